#!/usr/bin/env bash
# A stepnet cluster of network namespaces on this machine: one namespace per node, each with its
# own veth interface on a private bridge (10.X.0.0/24, X from the script's pid, so that two clusters
# can coexist), the coordinator in the root namespace in
# join mode. Real TCP between distinct network stacks, optionally with netem delay on every link
# to the bridge, or a token-bucket rate limit on every node's interface (its NIC, egress); nothing
# leaves this machine. Needs root (ip netns, ip link, tc).
#
#   deploy/netns-cluster.sh [--delay 100us] [--rate 1gbit] -- [stepnet run options without
#                           --nodes/--listen/--key]
#   e.g. deploy/netns-cluster.sh --delay 50us -- --topo ring:8 --coll te --json
#
# Cleans up its namespaces and bridge on exit, also after a failure or Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
delay="" rate="" prefix="sn$$" net="10.$((64 + $$ % 128)).0"
while [ $# -gt 0 ]; do
    case "$1" in
    --delay) delay="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "netns-cluster: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$delay" ] && [ -n "$rate" ] && { echo "netns-cluster: --delay and --rate cannot be combined" >&2; exit 2; }
[ $# -gt 0 ] || { echo "netns-cluster: give stepnet run options after --, e.g. -- --topo ring:4 --coll te" >&2; exit 2; }
stepnet=${STEPNET:-build/stepnet}
node=${STEPNET_NODE:-build/stepnet-node}
[ -x "$stepnet" ] && [ -x "$node" ] || scripts/setup.sh >/dev/null
# the node count of the topology, from the model
topo=""
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --topo ] && { j=$((i + 1)); topo="${!j}"; }; done
[ -n "$topo" ] || { echo "netns-cluster: --topo is required" >&2; exit 2; }
n=$("$stepnet" model --topo "$topo" --coll bcast --json | grep -o '"nodes":[0-9]*' | cut -d: -f2)
[ "$n" -le 200 ] || { echo "netns-cluster: $n nodes; at most 200 namespaces" >&2; exit 2; }

br="${prefix}br"
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
    for ((i = 0; i < n; i++)); do ip netns del "${prefix}n$i" 2>/dev/null || true; done
    ip link del "$br" 2>/dev/null || true
    [ -n "${keydir:-}" ] && rm -rf "$keydir"
    return 0
}
trap cleanup EXIT INT TERM
ip link add "$br" type bridge
ip addr add $net.1/24 dev "$br"
ip link set "$br" up
for ((i = 0; i < n; i++)); do
    ns="${prefix}n$i"
    ip netns add "$ns"
    ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns"
    ip link set "${prefix}v$i" master "$br" up
    ip netns exec "$ns" ip addr add "$net.$((i + 10))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    if [ -n "$delay" ] && ! ip netns exec "$ns" tc qdisc add dev eth0 root netem delay "$delay" 2>/dev/null; then
        echo "netns-cluster: --delay needs the kernel's netem qdisc (sch_netem), which this kernel does not offer" >&2
        exit 2
    fi
    if [ -n "$rate" ] && ! ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 100ms 2>/dev/null; then
        echo "netns-cluster: --rate needs the kernel's tbf qdisc (sch_tbf), or a valid rate such as 1gbit" >&2
        exit 2
    fi
done
# a fresh cluster key for this cluster (every connection is authenticated and encrypted with it),
# unless the options ask for --security none (then the nodes accept it too)
security=sodium
for ((i = 1; i < $#; i++)); do [ "${!i}" = --security ] && { j=$((i + 1)); security="${!j}"; }; done
keydir=$(mktemp -d)
key="$keydir/cluster.key"
coord_sec=(--key "$key") node_sec=(--key "$key")
if [ "$security" = none ]; then
    coord_sec=(--insecure-ok) node_sec=(--security none --insecure-ok)
else
    "$stepnet" keygen "$key" 2>/dev/null
fi
# the coordinator in join mode on the bridge; its port is read from its first line on stderr
log=$(mktemp)
"$stepnet" run --nodes join --listen "$net.1:0" "${coord_sec[@]}" "$@" 2>"$log" &
coord=$!
pids+=("$coord")
port=""
for _ in $(seq 100); do
    port=$(grep -o "join $net.1:[0-9]*" "$log" | head -n1 | cut -d: -f2 || true)
    [ -n "$port" ] && break
    sleep 0.05
done
[ -n "$port" ] || { cat "$log" >&2; echo "netns-cluster: the coordinator did not start" >&2; exit 1; }
for ((i = 0; i < n; i++)); do
    ip netns exec "${prefix}n$i" "$node" --join "$net.1:$port" "${node_sec[@]}" --quiet >/dev/null 2>>"$log" &
    pids+=("$!")
done
rc=0
wait "$coord" || rc=$?
grep -v '^stepnet run: node [0-9]* joined' "$log" >&2 || true
rm -f "$log"
rm -rf "$keydir"
exit "$rc"
