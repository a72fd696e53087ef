#!/usr/bin/env bash
# Integration test: a cluster launcher forms the network. `mpirun -np 4 stepnet-node --join
# 127.0.0.1:PORT --key K --id auto` (Debian's Open MPI) starts four nodes that take their ids from
# OMPI_COMM_WORLD_RANK; the join-mode coordinator gets nodes 0 to 3 and the run verifies. Exits 77
# (CTest: skipped) where mpirun is not installed (scripts/setup.sh does not install Open MPI).
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
if ! command -v mpirun >/dev/null; then
    echo "mpirun_join: mpirun (openmpi-bin) is not installed: skipped"
    exit 77
fi
tmp=$(mktemp -d)
coord=""
cleanup() {
    [ -n "$coord" ] && kill -9 "$coord" 2>/dev/null || true
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() {
    echo "FAIL $*"
    sed 's/^/  coordinator: /' "$tmp/err"
    exit 1
}
"$stepnet" keygen "$tmp/key" 2>/dev/null
timeout 120 "$stepnet" run --nodes join --listen 127.0.0.1:0 --key "$tmp/key" --topo ring:4 \
    --coll te --reps 2 --warmup 0 --probes 3 --ready-timeout-ms 60000 --json >"$tmp/out" \
    2>"$tmp/err" &
coord=$!
port=""
for _ in $(seq 200); do # 10 s
    port=$(grep -o 'join 127.0.0.1:[0-9]*' "$tmp/err" | head -n1 | cut -d: -f2 || true)
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || fail "the coordinator did not start"
# Open MPI as root needs --allow-run-as-root; --oversubscribe: 4 processes on any core count
rc=0
# each process writes "RANK PID" (the shell execs the node: the same pid) before it starts
timeout 90 mpirun --allow-run-as-root --oversubscribe -np 4 \
    sh -c 'echo "$OMPI_COMM_WORLD_RANK $$" >>"$0"; exec "$@"' "$tmp/ranks" \
    "$node" --join "127.0.0.1:$port" --key "$tmp/key" --id auto --quiet >"$tmp/mpirun.out" \
    2>"$tmp/mpirun.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/mpirun.err"; fail "mpirun exited with $rc"; }
rc=0
wait "$coord" || rc=$?
coord=""
[ "$rc" -eq 0 ] || fail "the coordinator exited with $rc"
grep -q '"verified":true' "$tmp/out" || fail "not verified: $(cat "$tmp/out")"
for r in 0 1 2 3; do
    pid=$(awk -v r="$r" '$1 == r { print $2 }' "$tmp/ranks")
    [ -n "$pid" ] || fail "no process of rank $r: $(cat "$tmp/ranks")"
    grep -q "node $r joined from .* (pid $pid " "$tmp/err" ||
        fail "node $r is not the process of mpirun rank $r (pid $pid)"
done
# every id came from a rank: no refusal was logged
if grep -q "refused" "$tmp/err"; then fail "a node was refused"; fi
echo "ok mpirun -np 4 stepnet-node --id auto: node i is the process of rank i, verified"
