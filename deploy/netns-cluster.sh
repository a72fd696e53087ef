#!/usr/bin/env bash
# A stepnet cluster of network namespaces on this machine: one namespace per node, each with its
# own veth interface on a private bridge (10.X.0.0/24, X from the script's pid, so that two clusters
# can coexist), the coordinator in the root namespace in
# join mode. Real TCP between distinct network stacks, optionally with a delay (and jitter) on
# every node's interface, or a token-bucket rate limit on it (its NIC, egress), or both; nothing
# leaves this machine. Needs root (ip netns, ip link, tc).
#
#   deploy/netns-cluster.sh [--delay 100us] [--jitter 10us] [--rate 1gbit]
#                           [--emu auto|netem|stepnet] -- [stepnet run options without
#                           --nodes/--listen/--key]
#   e.g. deploy/netns-cluster.sh --delay 50us -- --topo ring:8 --coll te --json
#
# Delay and jitter: the kernel's netem qdisc where it exists (--emu auto, the default, or netem);
# where it does not (many kernels and containers), or with --emu stepnet, the nodes emulate them
# themselves (stepnet run --link-delay/--link-jitter; netem also delays the control channel,
# stepnet's emulation only the links). Rate: tbf, or netem's rate with a delay under netem, or
# stepnet's --link-rate where tbf is missing. Times and rates in tc's units.
# Cleans up its namespaces and bridge on exit, also after a failure or Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
delay="" jitter="" rate="" emu=auto prefix="sn$$" net="10.$((64 + $$ % 128)).0"
while [ $# -gt 0 ]; do
    case "$1" in
    --delay) delay="$2"; shift 2 ;;
    --jitter) jitter="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --emu) emu="$2"; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "netns-cluster: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$emu" in auto | netem | stepnet) ;; *)
    echo "netns-cluster: bad value '$emu' for --emu: expected auto, netem or stepnet" >&2; exit 2 ;;
esac
[ -n "$jitter" ] && [ -z "$delay" ] && { echo "netns-cluster: --jitter needs --delay" >&2; exit 2; }
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
# which emulation: netem where it exists (a probe namespace tries it), else stepnet's own
use_netem=0 use_tbf=0
if [ -n "$delay" ] && [ "$emu" != stepnet ]; then
    p="${prefix}probe"
    ip netns add "$p"
    if ip netns exec "$p" tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then
        use_netem=1
    elif [ "$emu" = netem ]; then
        ip netns del "$p"
        echo "netns-cluster: --emu netem needs the kernel's netem qdisc (sch_netem), which this kernel does not offer; use --emu auto or stepnet" >&2
        exit 2
    fi
    ip netns del "$p"
fi
[ -n "$rate" ] && [ "$use_netem" = 0 ] && [ "$emu" != stepnet ] && use_tbf=1
node_emu=() # the options passed to stepnet run for stepnet's own emulation
if [ -n "$delay" ] && [ "$use_netem" = 0 ]; then
    node_emu+=(--link-delay "$delay")
    [ -n "$jitter" ] && node_emu+=(--link-jitter "$jitter")
    echo "netns-cluster: no netem here (or --emu stepnet): the nodes emulate the delay themselves" >&2
fi
[ -n "$rate" ] && [ "$use_netem" = 0 ] && [ "$use_tbf" = 0 ] && node_emu+=(--link-rate "$rate")

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
    if [ "$use_netem" = 1 ] &&
        ! ip netns exec "$ns" tc qdisc add dev eth0 root netem delay "$delay" ${jitter:+"$jitter"} ${rate:+rate "$rate"} 2>/dev/null; then
        echo "netns-cluster: netem refused delay '$delay'${jitter:+ jitter '$jitter'}${rate:+ rate '$rate'}" >&2
        exit 2
    fi
    if [ "$use_tbf" = 1 ] && ! ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 256kb latency 100ms 2>/dev/null; then
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
"$stepnet" run --nodes join --listen "$net.1:0" "${coord_sec[@]}" ${node_emu[@]+"${node_emu[@]}"} "$@" 2>"$log" &
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
grep -v 'COORD-JOINED' "$log" >&2 || true
rm -f "$log"
rm -rf "$keydir"
exit "$rc"
