#!/usr/bin/env bash
# Integration test: a real slow link. One network namespace per node on a private bridge, the
# coordinator in the root namespace in join mode (as fault_matrix.sh), and every node's interface
# shaped by the kernel to 1 Mbit/s (tbf, or htb where tbf is missing), so each link carries a
# 64 KiB packet in about half a second and a repetition's frames take seconds. With the default
# deadlines the runs must verify: a link whose bytes keep coming is slow, not silent, and the slot
# deadline's allowance follows the calibrated model of that link (docs/runtime.md, "Deadlines").
# Before the slot deadline measured progress, linear:2 bcast here failed "link 0-1 went silent;
# both ends alive". Nothing may be left in any namespace. Exits 77 (CTest: skipped) where
# namespaces cannot be created (not root, no CAP_NET_ADMIN, no `ip`) or the kernel shapes with
# neither tbf nor htb.
set -euo pipefail
. "$(dirname "$0")/netns_lib.sh"
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
probe="snsl$$"
if ! command -v ip >/dev/null || ! command -v tc >/dev/null || ! ip netns add "$probe" 2>/dev/null
then
    echo "netns_slow_link: cannot create network namespaces here (or no tc): skipped"
    exit 77
fi
# which shaper this kernel offers (modprobe may be unavailable: try each on a probe interface)
shaper=""
if ip -n "$probe" link add sla type veth peer name slb 2>/dev/null; then
    if ip netns exec "$probe" tc qdisc add dev sla root tbf rate 1mbit burst 32kbit latency 400ms \
        2>/dev/null; then
        shaper=tbf
    elif ip netns exec "$probe" tc qdisc add dev sla root handle 1: htb default 10 2>/dev/null &&
        ip netns exec "$probe" tc class add dev sla parent 1: classid 1:10 htb rate 1mbit \
            burst 32kbit 2>/dev/null; then
        shaper=htb
    fi
fi
ip netns del "$probe"
if [ -z "$shaper" ]; then
    echo "netns_slow_link: this kernel shapes with neither tbf (sch_tbf) nor htb (sch_htb): skipped"
    exit 77
fi

n=3 # the most nodes a case uses
prefix="snl$$"
net=$(netns_free_net 29) || { echo "netns_slow_link: no free 10.X.0.0/24 subnet"; exit 1; }
br="${prefix}br"
work=$(mktemp -d)
pids=()
cleanup() {
    # the timeouts pass TERM on to the programs they run; what is left in our namespaces is ours
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    for ((i = 0; i < n; i++)); do
        for p in $(ip netns pids "${prefix}n$i" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        # A run killed mid-frame leaves orphaned sockets with unsent bytes in the namespace; they
        # keep it, and its interface pair, alive until their retransmissions give up (minutes).
        # Deleting our end of the pair removes both ends now.
        ip link del "${prefix}v$i" 2>/dev/null || true
        ip netns del "${prefix}n$i" 2>/dev/null || true
    done
    ip link del "$br" 2>/dev/null || true
    rm -rf "$work"
    return 0
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL $*"; for f in "$work"/*.log; do echo "--- $f"; tail -n 30 "$f"; done; exit 1; }
jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }

netns_bridge_up "$br" "$net"
for ((i = 0; i < n; i++)); do
    ns="${prefix}n$i"
    netns_host_up "$ns" "${prefix}v$i" "$br" "$net.$((i + 10))"
    # Everything a node sends leaves through its eth0 at 1 Mbit/s: every link between two nodes
    # is that slow in both directions. The control traffic shares it (it is small).
    if [ "$shaper" = tbf ]; then
        ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate 1mbit burst 32kbit latency 400ms
    else
        ip netns exec "$ns" tc qdisc add dev eth0 root handle 1: htb default 10
        ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:10 htb rate 1mbit burst 32kbit
    fi
done
"$stepnet" keygen "$work/cluster.key" 2>/dev/null

# Runs one collective over the shaped links with the default deadlines and checks its verdict:
# exit status 0 and a verified JSON report.
check() { # check NODES RUN-OPTIONS...
    local k=$1
    shift
    rm -f "$work"/*.log "$work/coord.json"
    local t0=$SECONDS
    timeout 600 "$stepnet" run --nodes join --listen "$net.1:0" --key "$work/cluster.key" "$@" \
        --json >"$work/coord.json" 2>"$work/coord.log" &
    local coord=$!
    pids+=("$coord")
    local port=""
    for _ in $(seq 200); do
        port=$(grep -so "join $net.1:[0-9]*" "$work/coord.log" | head -n1 | cut -d: -f2 || true)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || fail "the coordinator did not start: $*"
    for ((i = 0; i < k; i++)); do
        timeout 600 ip netns exec "${prefix}n$i" "$node" --join "$net.1:$port" \
            --key "$work/cluster.key" >/dev/null 2>"$work/ns$i.log" &
        pids+=("$!")
    done
    local rc=0
    wait "$coord" || rc=$?
    local out verdict
    out=$(cat "$work/coord.json")
    verdict=$(grep '^stepnet run: ' "$work/coord.log" | grep -v 'joined from\|waiting for' |
        tail -n1 || true)
    [ "$rc" = 0 ] || fail "$* over 1 Mbit/s links: exit status $rc, want 0: $verdict"
    [ "$(jget verified "$out")" = true ] || fail "$* over 1 Mbit/s links: not verified: $out"
    echo "ok $* over 1 Mbit/s $shaper links: verified in $((SECONDS - t0)) s" \
        "(wall_us_median $(jget wall_us_median "$out"))"
}
# 64 KiB packets: half a second a frame, with every default, --probes included: the calibration's
# 64 KiB probes cross these links too (a round trip of about 1.1 s), and each of its series stops
# after SN_DEADLINE_SERIES_NS (5 s) with the probes measured so far, so it ends well within the
# ready deadline (before, the default 20 probes kept it calibrating past 30 s).
check 2 --topo linear:2 --coll bcast --size 65536 --reps 2 --warmup 0
check 3 --topo ring:3 --coll te --size 65536 --reps 2 --warmup 0
# 1 MiB packets: 8.4 s a frame, longer than the 5 s silence limit, the frame's bytes arriving all
# along. The slot deadline is the default one; only the calibration's is raised (one 1 MiB round
# trip is 17 s, and each series measures one at least). Before the slot deadline measured
# progress, this run failed "link 0-1 went silent; both ends alive" at 5 s.
check 2 --topo linear:2 --coll bcast --size 1048576 --reps 2 --warmup 0 --probes 1 \
    --ready-timeout-ms 120000

# nothing left: every node leaves at the end of its run
for _ in $(seq 300); do
    left=0
    for ((i = 0; i < n; i++)); do [ -n "$(ip netns pids "${prefix}n$i")" ] && left=1; done
    [ $left = 0 ] && break
    sleep 0.1
done
for ((i = 0; i < n; i++)); do
    [ -z "$(ip netns pids "${prefix}n$i")" ] ||
        fail "processes left in ${prefix}n$i 30 s after the runs: $(ip netns pids "${prefix}n$i")"
done
echo "netns_slow_link: passed"
