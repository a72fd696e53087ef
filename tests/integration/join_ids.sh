#!/usr/bin/env bash
# Integration test: join mode with node ids chosen by the nodes, on 127.0.0.1 with port 0.
# (1) `stepnet-node --id auto` takes its rank from a launcher's environment (fake values of
# OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK and SLURM_PROCID, nodes started in reverse order):
# every node gets the id its variable says, and the run verifies. (2) An id taken or out of range
# is refused with a message naming the node and the value, on both sides; a node without --id
# gets the lowest free id. (3) `--id auto` without a launcher is refused (exit 2). (4) A node
# started with --stdin-session leaves when its standard input closes. (5) Every option takes
# `--opt=value` too (`--join=HOST:PORT --id=N`), and a bad value so spelled is refused (exit 2).
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() {
    echo "FAIL $*"
    [ -f "$tmp/err" ] && sed 's/^/  coordinator: /' "$tmp/err"
    [ -f "$tmp/session" ] && sed 's/^/  node: /' "$tmp/session"
    [ -f "$tmp/nodes.err" ] && sed "s/^/  nodes: /" "$tmp/nodes.err"
    exit 1
}
"$stepnet" keygen "$tmp/key" 2>/dev/null
launcher_vars=(-u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u PMI_RANK -u SLURM_PROCID)

# start_coord TOPO: a join-mode coordinator in the background (pid in $coord, port in $port)
start_coord() {
    rm -f "$tmp/err" "$tmp/out" # not the previous coordinator's port, read before the truncation
    timeout 120 "$stepnet" run --nodes join --listen 127.0.0.1:0 --key "$tmp/key" --topo "$1" \
        --coll te --reps 1 --warmup 0 --probes 0 --ready-timeout-ms 60000 --json \
        >"$tmp/out" 2>"$tmp/err" &
    coord=$!
    pids+=("$coord")
    port=""
    for _ in $(seq 200); do # 10 s
        port=$(grep -o 'join 127.0.0.1:[0-9]*' "$tmp/err" 2>/dev/null | head -n1 | cut -d: -f2 || true)
        [ -n "$port" ] && return 0
        sleep 0.05
    done
    fail "the coordinator did not start"
}
# wait_joined ID: the coordinator logged node ID joining (10 s)
wait_joined() {
    for _ in $(seq 200); do
        grep -q "node $1 joined" "$tmp/err" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "node $1 did not join"
}
# finish NAME: the coordinator exits 0 with a verified run
finish() {
    local rc=0
    wait "$coord" || rc=$?
    [ "$rc" -eq 0 ] || fail "$1: the coordinator exited with $rc"
    grep -q '"verified":true' "$tmp/out" || fail "$1: not verified: $(cat "$tmp/out")"
}

# ---- (1) ranks from the launcher's environment ----------------------------------------------
start_coord ring:4
declare -A pid_of
vars=(OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK SLURM_PROCID)
for r in 3 2 1 0; do
    env "${launcher_vars[@]}" "${vars[$r]}=$r" "$node" --join "127.0.0.1:$port" --key "$tmp/key" \
        --id auto --quiet >/dev/null 2>>"$tmp/nodes.err" &
    pid_of[$r]=$!
    pids+=("$!")
    wait_joined "$r" # one at a time: joining order is the reverse of the ids
done
finish "--id auto"
for r in 0 1 2 3; do
    grep -q "node $r joined from .* (pid ${pid_of[$r]} " "$tmp/err" ||
        fail "--id auto: node $r is not the process started with ${vars[$r]}=$r"
done
echo "ok --id auto: OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK and SLURM_PROCID give the ids"

# ---- (2) ids taken or out of range; a node without --id gets the lowest free one -------------
start_coord ring:3
"$node" --join "127.0.0.1:$port" --key "$tmp/key" --id 0 --quiet >/dev/null 2>>"$tmp/nodes.err" &
pids+=("$!")
wait_joined 0
rc=0
timeout 20 "$node" --join "127.0.0.1:$port" --key "$tmp/key" --id 0 >/dev/null 2>"$tmp/dup" || rc=$?
[ "$rc" -eq 1 ] || fail "duplicate --id 0: node exit status $rc, expected 1"
grep -q "refused --id 0: id 0 is taken" "$tmp/dup" || fail "duplicate: the node says: $(cat "$tmp/dup")"
grep -q "refused the node at 127.0.0.1:[0-9]* (pid [0-9]* on .*) asking for --id 0: id 0 is taken" \
    "$tmp/err" || fail "duplicate: the coordinator does not name the node and the value"
rc=0
timeout 20 "$node" --join "127.0.0.1:$port" --key "$tmp/key" --id 7 >/dev/null 2>"$tmp/range" || rc=$?
[ "$rc" -eq 1 ] || fail "--id 7: node exit status $rc, expected 1"
grep -q "refused --id 7: id 7 is out of range: the topology has nodes 0 to 2" "$tmp/range" ||
    fail "out of range: the node says: $(cat "$tmp/range")"
"$node" --join "127.0.0.1:$port" --key "$tmp/key" --id 2 --quiet >/dev/null 2>>"$tmp/nodes.err" &
pids+=("$!")
wait_joined 2
"$node" --join "127.0.0.1:$port" --key "$tmp/key" --quiet >/dev/null 2>>"$tmp/nodes.err" &
pids+=("$!")
wait_joined 1
finish "--id refusals"
echo "ok --id refusals: taken and out of range refused by name; the node without --id got id 1"

# ---- (3) --id auto without a launcher --------------------------------------------------------
rc=0
env "${launcher_vars[@]}" "$node" --join 127.0.0.1:9 --key "$tmp/key" --id auto 2>"$tmp/auto" || rc=$?
[ "$rc" -eq 2 ] || fail "--id auto without a launcher: exit status $rc, expected 2"
grep -q "no launcher rank in the environment (looked for OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID)" \
    "$tmp/auto" || fail "--id auto without a launcher says: $(cat "$tmp/auto")"
rc=0
env "${launcher_vars[@]}" PMI_RANK=x "$node" --join 127.0.0.1:9 --key "$tmp/key" --id auto \
    2>"$tmp/auto" || rc=$?
[ "$rc" -eq 2 ] && grep -q "bad value 'x' of PMI_RANK" "$tmp/auto" ||
    fail "--id auto with PMI_RANK=x: status $rc: $(cat "$tmp/auto")"
echo "ok --id auto without a launcher, or with a bad rank: exit 2, named"

# ---- (4) --stdin-session: the node leaves when its standard input closes --------------------
start_coord ring:2
mkfifo "$tmp/fifo"
"$node" --join "127.0.0.1:$port" --id 0 --stdin-session <"$tmp/fifo" >/dev/null 2>"$tmp/session" &
npid=$!
pids+=("$npid")
exec 7>"$tmp/fifo"
cat "$tmp/key" >&7
wait_joined 0
kill -0 "$npid" 2>/dev/null || fail "--stdin-session: the node left while its input was open"
exec 7>&- # the ssh session ends
left=""
for _ in $(seq 200); do # 10 s
    kill -0 "$npid" 2>/dev/null || { left=1; break; }
    sleep 0.05
done
[ -n "$left" ] || fail "--stdin-session: the node is still running 10 s after its input closed"
rc=0
wait "$npid" || rc=$?
[ "$rc" -eq 1 ] || fail "--stdin-session: node exit status $rc, expected 1"
grep -q "NODE-SESSION.*standard input closed" "$tmp/session" ||
    fail "--stdin-session: no NODE-SESSION log: $(cat "$tmp/session")"
kill "$coord" 2>/dev/null || true
wait "$coord" 2>/dev/null || true
echo "ok --stdin-session: the node left when its standard input closed"

# ---- (5) --opt=value --------------------------------------------------------------------------
start_coord ring:2
for r in 1 0; do
    "$node" --join="127.0.0.1:$port" --key="$tmp/key" --id="$r" --connect-timeout-ms=20000 \
        --quiet >/dev/null 2>>"$tmp/nodes.err" &
    pids+=("$!")
    wait_joined "$r"
done
finish "--join=HOST:PORT"
for bad in --connect-timeout-ms=abc --id=-1 --key-fd=2; do
    rc=0
    "$node" --join=127.0.0.1:9 --key="$tmp/key" "$bad" 2>"$tmp/bad" || rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/bad")" -eq 1 ] && grep -qF "bad value '${bad#*=}' for ${bad%%=*}: expected" "$tmp/bad" ||
        fail "$bad: exit status $rc: $(cat "$tmp/bad")"
done
rc=0
"$node" --join=127.0.0.1:9 --key="$tmp/key" --quiet=1 2>"$tmp/bad" || rc=$?
[ "$rc" -eq 2 ] && grep -qF "option '--quiet=1' takes no value" "$tmp/bad" ||
    fail "--quiet=1: exit status $rc: $(cat "$tmp/bad")"
echo "ok --join=HOST:PORT --id=N joins; --connect-timeout-ms=abc, --id=-1, --key-fd=2, --quiet=1: exit 2, named"
echo "join_ids: all passed"
