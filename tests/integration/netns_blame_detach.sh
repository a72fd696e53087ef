#!/usr/bin/env bash
# Integration test: blame of a node whose network is gone. ring:6 in join mode, one network
# namespace per node on a private bridge, the coordinator in the root namespace (as
# fault_matrix.sh); once repetitions run, the interface of node 2's namespace is deleted for good
# (its veth pair removed: no reset, no FIN, nothing reaches it or leaves it). Nodes 1 and 3 name
# node 2 at their slot deadline and leave 5 s after their unanswered reports, inside the blame
# window; node 2's own report never arrives. The coordinator's heartbeats to node 2 are not
# acknowledged, so the verdict must name node 2 as unreachable, never node 1 or 3. Every deadline
# is the default one. Nothing may be left in any namespace. Exits 77 (CTest: skipped) where
# namespaces cannot be created (not root, no CAP_NET_ADMIN, no `ip`).
set -euo pipefail
. "$(dirname "$0")/netns_lib.sh"
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
probe="snbd$$"
if ! command -v ip >/dev/null || ! ip netns add "$probe" 2>/dev/null; then
    echo "netns_blame_detach: cannot create network namespaces here: skipped"
    exit 77
fi
ip netns del "$probe"

n=6
prefix="snd$$"
net=$(netns_free_net 17) || { echo "netns_blame_detach: no free 10.X.0.0/24 subnet"; exit 1; }
br="${prefix}br"
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
    for ((i = 0; i < n; i++)); do ip netns del "${prefix}n$i" 2>/dev/null || true; done
    ip link del "$br" 2>/dev/null || true
    rm -rf "$work"
    return 0
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL $*"; for f in "$work"/*.log; do echo "--- $f"; tail -n 30 "$f"; done; exit 1; }

netns_bridge_up "$br" "$net"
for ((i = 0; i < n; i++)); do
    ns="${prefix}n$i"
    netns_host_up "$ns" "${prefix}v$i" "$br" "$net.$((i + 10))"
done
"$stepnet" keygen "$work/cluster.key" 2>/dev/null

"$stepnet" run --nodes join --listen "$net.1:0" --key "$work/cluster.key" --topo ring:$n \
    --coll te --size 1048576 --reps 1000000 --warmup 0 --probes 3 --progress >"$work/coord.json" \
    2>"$work/coord.log" &
coord=$!
pids+=("$coord")
port=""
for _ in $(seq 200); do
    port=$(grep -o "join $net.1:[0-9]*" "$work/coord.log" | head -n1 | cut -d: -f2 || true)
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || fail "the coordinator did not start"
for ((i = 0; i < n; i++)); do
    ip netns exec "${prefix}n$i" "$node" --join "$net.1:$port" --key "$work/cluster.key" \
        >/dev/null 2>"$work/ns$i.log" &
    pids+=("$!")
done
# repetitions run (--progress prints "phase=run K/N" once K >= 1 of them have ended)
for _ in $(seq 1200); do
    grep -q 'progress: phase=run [1-9]' "$work/coord.log" && break
    kill -0 "$coord" 2>/dev/null || fail "the run ended before its first repetition"
    sleep 0.05
done
grep -q 'progress: phase=run [1-9]' "$work/coord.log" || fail "no repetition within 60 s"
# the namespace of node 2 (ids are given in join order)
victim=""
for ((i = 0; i < n; i++)); do
    grep -q 'node 2 NODE-ASSIGN' "$work/ns$i.log" && victim=$i
done
[ -n "$victim" ] || fail "no namespace holds node 2"
ip link del "${prefix}v$victim"
t0=$SECONDS
while kill -0 "$coord" 2>/dev/null; do
    [ $((SECONDS - t0)) -lt 60 ] || fail "the coordinator did not end within 60 s of the detach"
    sleep 0.1
done
rc=0
wait "$coord" || rc=$?
v=$(grep '^stepnet run: ' "$work/coord.log" | grep -v 'joined from\|waiting for\|progress: ' |
    tail -n1)
[ "$rc" = 1 ] || fail "exit status $rc, want 1: $v"
grep -Eq "^stepnet run: node 2 \(pid [0-9]+\) is unreachable" <<<"$v" ||
    fail "the verdict does not name node 2 as unreachable: $v"
echo "ok detached node 2 after $((SECONDS - t0)) s: $v"
# nothing left: node 2 leaves on its own (its exit timer), the others at the coordinator's abort
for _ in $(seq 300); do
    left=0
    for ((i = 0; i < n; i++)); do [ -n "$(ip netns pids "${prefix}n$i")" ] && left=1; done
    [ $left = 0 ] && break
    sleep 0.1
done
for ((i = 0; i < n; i++)); do
    [ -z "$(ip netns pids "${prefix}n$i")" ] ||
        fail "processes left in ${prefix}n$i 30 s after the run: $(ip netns pids "${prefix}n$i")"
done
echo "netns_blame_detach: passed"
