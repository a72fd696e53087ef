#!/usr/bin/env bash
# Integration test: the fault matrix in network namespaces. One namespace per node on a private
# bridge, the coordinator in the root namespace in join mode (as deploy/netns-cluster.sh), and
# one fault per case while the repetitions run, injected from outside the processes:
#   kill         SIGKILL to one node                 -> the run names that node
#   stop         SIGSTOP to one node                 -> the run names that node as stopped
#   link         a blackhole route both ways between two neighbours (packets vanish, no reset)
#                                                    -> the run names that link, both ends alive
#   coordinator  SIGSTOP to the coordinator          -> every node leaves naming the coordinator's
#                                                       address; resumed, it says it was silent
# Each case checks the message and its deadline, and that no stepnet process is left in any
# namespace. Exits 77 (CTest: skipped) where namespaces cannot be created (not root, no
# CAP_NET_ADMIN).
set -euo pipefail
. "$(dirname "$0")/netns_lib.sh"
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
probe="snfm$$"
if ! ip netns add "$probe" 2>/dev/null; then
    echo "fault_matrix: cannot create network namespaces here: skipped"
    exit 77
fi
ip netns del "$probe"

n=6                 # ring:6: node i's neighbours are i-1 and i+1
prefix="snf$$"
net=$(netns_free_net 61) || { echo "fault_matrix: no free 10.X.0.0/24 subnet"; exit 1; }
br="${prefix}br"
work=$(mktemp -d)
slot_ms=1000 hb_ms=200
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do
        if [ -n "$p" ]; then kill -CONT "$p" 2>/dev/null || true; kill -9 "$p" 2>/dev/null || true; fi
    done
    for ((i = 0; i < n; i++)); do ip netns del "${prefix}n$i" 2>/dev/null || true; done
    ip link del "$br" 2>/dev/null || true
    rm -rf "$work"
    return 0
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL $*"; for f in "$work"/*.log; do echo "--- $f"; cat "$f"; done; exit 1; }

netns_bridge_up "$br" "$net"
for ((i = 0; i < n; i++)); do
    ns="${prefix}n$i"
    netns_host_up "$ns" "${prefix}v$i" "$br" "$net.$((i + 10))"
done
"$stepnet" keygen "$work/cluster.key" 2>/dev/null

# Starts a held-open run (many repetitions) with the cluster's nodes; waits until every node has
# its assignment; fills coord, nodepid[ID] and nodens[ID] (node ids are given in join order).
start_run() {
    rm -f "$work"/*.log
    "$stepnet" run --nodes join --listen "$net.1:0" --key "$work/cluster.key" --topo ring:$n \
        --coll te --reps 1000000 --warmup 0 --probes 3 --slot-timeout-ms $slot_ms \
        --heartbeat-ms $hb_ms --json >"$work/coord.json" 2>"$work/coord.log" &
    coord=$!
    pids+=("$coord")
    local port=""
    for _ in $(seq 200); do
        port=$(grep -o "join $net.1:[0-9]*" "$work/coord.log" | head -n1 | cut -d: -f2 || true)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || fail "the coordinator did not start"
    local ns_pid=()
    for ((i = 0; i < n; i++)); do
        ip netns exec "${prefix}n$i" "$node" --join "$net.1:$port" --key "$work/cluster.key" \
            >/dev/null 2>"$work/ns$i.log" &
        ns_pid[i]=$!
        pids+=("$!")
    done
    nodepid=() nodens=()
    for _ in $(seq 300); do
        [ "$(cat "$work"/ns*.log | grep -c NODE-READY || true)" -ge $n ] && break
        sleep 0.05
    done
    for ((i = 0; i < n; i++)); do
        local id
        id=$(grep -o 'node [0-9]* NODE-ASSIGN' "$work/ns$i.log" | head -n1 | cut -d' ' -f2 || true)
        [ -n "$id" ] || fail "the node in ${prefix}n$i got no assignment"
        nodepid[id]=${ns_pid[i]}
        nodens[id]="${prefix}n$i"
    done
    sleep 0.5 # repetitions are running
}

# Waits (at most $1 seconds) for the coordinator to exit; sets rc and took.
wait_coord() {
    local t0 end
    t0=$(date +%s.%N)
    end=$(echo "$t0 + $1" | bc)
    while kill -0 "$coord" 2>/dev/null; do
        [ "$(echo "$(date +%s.%N) > $end" | bc)" = 1 ] && fail "the coordinator did not end within $1 s"
        sleep 0.05
    done
    rc=0
    wait "$coord" || rc=$?
    took=$(echo "$(date +%s.%N) - $t0" | bc)
}

# Nothing of this run is left: no process in any namespace, no node or coordinator pid alive.
expect_clean() {
    local p
    for _ in $(seq 100); do
        local left=0
        for ((i = 0; i < n; i++)); do [ -n "$(ip netns pids "${prefix}n$i")" ] && left=1; done
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left=1; done
        [ $left = 0 ] && break
        sleep 0.05
    done
    for ((i = 0; i < n; i++)); do
        [ -z "$(ip netns pids "${prefix}n$i")" ] || fail "$1: processes left in ${prefix}n$i: $(ip netns pids "${prefix}n$i")"
    done
    for p in "${pids[@]}"; do
        wait "$p" 2>/dev/null || true
    done
    pids=()
}

verdict() { grep '^stepnet run: ' "$work/coord.log" | grep -v 'joined from\|waiting for\|refused' | tail -n1; }

# kill: node 2 dies -> the run names node 2
start_run
kill -9 "${nodepid[2]}"
wait_coord 10
v=$(verdict)
[ "$rc" = 1 ] || fail "kill: exit status $rc, want 1"
grep -q "node 2 " <<<"$v" || fail "kill: the verdict does not name node 2: $v"
echo "ok kill: $took s: $v"
expect_clean kill

# stop: node 4 stops -> the run names node 4 at the slot deadline
start_run
kill -STOP "${nodepid[4]}"
wait_coord 10
v=$(verdict)
[ "$rc" = 1 ] || fail "stop: exit status $rc, want 1"
# the slot deadline of its neighbours, or (stopped after its last slot) its heartbeat
grep -Eq "node 4 \(pid [0-9]+\) is stopped" <<<"$v" ||
    fail "stop: the verdict does not name node 4: $v"
kill -9 "${nodepid[4]}" 2>/dev/null || true
echo "ok stop: $took s: $v"
expect_clean stop

# link: packets between nodes 2 and 3 vanish both ways -> the run names link 2-3
start_run
ip netns exec "${nodens[2]}" ip route add blackhole "$(ip netns exec "${nodens[3]}" ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)/32"
ip netns exec "${nodens[3]}" ip route add blackhole "$(ip netns exec "${nodens[2]}" ip -4 -o addr show eth0 | awk '{print $4}' | cut -d/ -f1)/32"
wait_coord 10
v=$(verdict)
[ "$rc" = 1 ] || fail "link: exit status $rc, want 1"
grep -Eq "link 2-3 \(edge [0-9]+\) went silent at slot [0-9]+; both ends alive" <<<"$v" ||
    fail "link: the verdict does not name link 2-3: $v"
echo "ok link: $took s: $v"
expect_clean link
for ((i = 0; i < n; i++)); do ip netns exec "${prefix}n$i" ip route flush type blackhole 2>/dev/null || true; done

# coordinator: the coordinator stops -> every node leaves within the heartbeat deadline naming it
start_run
kill -STOP "$coord"
t0=$(date +%s.%N)
for _ in $(seq 200); do
    [ "$(cat "$work"/ns*.log | grep -c CTL-SILENT || true)" -ge $n ] && break
    sleep 0.05
done
left=$(echo "$(date +%s.%N) - $t0" | bc)
[ "$(cat "$work"/ns*.log | grep -c "CTL-SILENT the coordinator at $net.1:")" -ge $n ] ||
    fail "coordinator: not every node left naming the coordinator's address"
[ "$(echo "$left < 5" | bc)" = 1 ] || fail "coordinator: the nodes took $left s (deadline $((5 * hb_ms)) ms)"
kill -CONT "$coord"
wait_coord 10
v=$(verdict)
[ "$rc" = 1 ] || fail "coordinator: exit status $rc, want 1"
grep -q "the coordinator was silent" <<<"$v" || fail "coordinator: the verdict does not name the coordinator: $v"
echo "ok coordinator: nodes left after $left s: $v"
expect_clean coordinator

echo "fault_matrix: all passed"
