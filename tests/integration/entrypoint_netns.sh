#!/usr/bin/env bash
# The container entrypoint (deploy/docker/entrypoint.sh) outside a container: a coordinator
# namespace and four node namespaces on a private bridge, host names given per namespace by
# /etc/netns/NAME/hosts (which `ip netns exec` mounts over /etc/hosts), and the environment of
# deploy/compose.yaml. Join mode (nodes dial `coordinator:7000`, links in 7200-7299), then
# daemons (the coordinator dials node0:7100,...), both verified against the simulator; a key of
# mode 0644 is copied privately; bad variables exit 2. Exits 77 (CTest: skipped) where namespaces
# cannot be created (not root, no CAP_NET_ADMIN).
set -euo pipefail
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
: "${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program}"
bindir=$(cd "$(dirname "$stepnet")" && pwd)
prefix="sne$$"
net="10.$((64 + $$ % 128)).$((1 + $$ % 250))"
if ! ip netns add "${prefix}probe" 2>/dev/null; then
    echo "entrypoint_netns: cannot create network namespaces here: skipped"
    exit 77
fi
ip netns del "${prefix}probe"
tmp=$(mktemp -d)
n=4
names=(coordinator node0 node1 node2 node3)
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for nm in "${names[@]}"; do
        # whatever still runs in a namespace would outlive `ip netns del`
        for p in $(ip netns pids "${prefix}$nm" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip netns del "${prefix}$nm" 2>/dev/null || true
        rm -rf "/etc/netns/${prefix}$nm"
    done
    rmdir /etc/netns 2>/dev/null || true
    ip link del "${prefix}br" 2>/dev/null || true
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL $*"; exit 1; }
jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }

ip link add "${prefix}br" type bridge
# the bridge keeps the address it has: left to itself it takes the lowest of its ports', and a port
# removed mid-run would change it under the nodes' ARP caches (their frames to the coordinator lost
# until the caches expire, about a minute)
ip link set "${prefix}br" address "$(cat "/sys/class/net/${prefix}br/address")"
ip link set "${prefix}br" up
hosts="127.0.0.1 localhost"$'\n'
for i in "${!names[@]}"; do hosts+="$net.$((i + 10)) ${names[$i]}"$'\n'; done
for i in "${!names[@]}"; do
    ns="${prefix}${names[$i]}"
    ip netns add "$ns"
    ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns"
    ip link set "${prefix}v$i" master "${prefix}br" up
    ip netns exec "$ns" ip addr add "$net.$((i + 10))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    mkdir -p "/etc/netns/$ns"
    printf '%s' "$hosts" >"/etc/netns/$ns/hosts"
done
# `ip netns exec` gives every namespace its own /etc/hosts: the names resolve inside
got=$(ip netns exec "${prefix}node2" getent hosts coordinator | cut -d' ' -f1)
[ "$got" = "$net.10" ] || fail "coordinator resolves to '$got' in ${prefix}node2, not $net.10"

key=$tmp/key
"$stepnet" keygen "$key" 2>/dev/null
sim=$("$stepnet" sim --topo ring:4 --coll te --json)
# inns NAME [VAR=VALUE...]: the entrypoint in namespace NAME with the compose file's environment
# (exec: started with &, the recorded pid is the entrypoint's, then stepnet's, itself)
inns() {
    local ns="${prefix}$1"
    shift
    exec ip netns exec "$ns" env STEPNET_BIN="$bindir" TMPDIR="$tmp" "$@" deploy/docker/entrypoint.sh
}
verify() { # verify OUTPUT WHAT
    [ "$(jget verified "$1")" = true ] || fail "$2: not verified: $1"
    for k in steps trace_hash deliveries; do
        [ "$(jget "$k" "$1")" = "$(jget "$k" "$sim")" ] || fail "$2: $k differs from sim"
    done
}

# 1. join mode, as deploy/compose.yaml runs it
inns coordinator STEPNET_ROLE=coordinator STEPNET_TOPO=ring:4 STEPNET_COLL=te STEPNET_NODES=$n \
    STEPNET_LISTEN=0.0.0.0:7000 STEPNET_REPS=2 STEPNET_KEY_FILE="$key" \
    STEPNET_ARGS="--json --probes 2 --ready-timeout-ms 20000" >"$tmp/coord.out" 2>"$tmp/coord.err" &
cpid=$!
pids+=("$cpid")
for i in $(seq 0 $((n - 1))); do
    inns "node$i" STEPNET_ROLE=node STEPNET_COORDINATOR=coordinator:7000 STEPNET_PORT_RANGE=7200-7299 \
        STEPNET_KEY_FILE="$key" >/dev/null 2>"$tmp/n$i.err" &
    pids+=("$!")
done
timeout 60 tail --pid="$cpid" -f /dev/null || fail "join run did not end within 60 s"
wait "$cpid" || fail "join run failed: $(cat "$tmp/coord.err")"
verify "$(cat "$tmp/coord.out")" "join mode"
grep -q "joined from $net" "$tmp/coord.err" || fail "nodes did not join over the bridge: $(cat "$tmp/coord.err")"
echo "ok entrypoint join mode: 4 node namespaces joined coordinator:7000 by name"

# 2. daemons, with a key of mode 0644 (copied into a private 0600 file by the entrypoint), run as
#    the user `nobody` (STEPNET_USER, as the image runs them as `stepnet`) where it can reach the
#    programs
cp "$key" "$tmp/loose.key"
chmod 644 "$tmp/loose.key"
chmod 711 "$tmp"
user=()
if setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --init-groups -- \
    test -x "$bindir/stepnet-node" 2>/dev/null; then
    user=(STEPNET_USER=nobody)
else
    echo "  (nobody cannot run $bindir/stepnet-node: the daemons run as $(id -un))"
fi
for i in $(seq 0 $((n - 1))); do
    inns "node$i" "${user[@]}" STEPNET_ROLE=daemon STEPNET_LISTEN=0.0.0.0:7100 STEPNET_PORT_RANGE=7200-7299 \
        STEPNET_KEY_FILE="$tmp/loose.key" >"$tmp/d$i.out" 2>"$tmp/d$i.err" &
    pids+=("$!")
done
for i in $(seq 0 $((n - 1))); do
    for _ in $(seq 100); do grep -q 'SERVE port=7100' "$tmp/d$i.out" && break; sleep 0.1; done
    grep -q 'SERVE port=7100' "$tmp/d$i.out" || fail "daemon $i did not start: $(cat "$tmp/d$i.err")"
done
for round in 1 2; do
    out=$(timeout 60 ip netns exec "${prefix}coordinator" env STEPNET_BIN="$bindir" TMPDIR="$tmp" \
        STEPNET_ROLE=coordinator STEPNET_TOPO=ring:4 STEPNET_DAEMONS=node0:7100,node1:7100,node2:7100,node3:7100 \
        STEPNET_LISTEN=0.0.0.0:0 STEPNET_PORT_RANGE=7000-7010 STEPNET_REPS=2 \
        STEPNET_KEY_FILE="$tmp/loose.key" STEPNET_ARGS="--json --probes 2" deploy/docker/entrypoint.sh \
        2>"$tmp/drun.err") || fail "daemon run $round failed: $(cat "$tmp/drun.err")"
    verify "$out" "daemon run $round"
    [ "$(jget nodes_mode "$out")" = daemons ] || fail "not a daemon run: $out"
done
if [ ${#user[@]} -gt 0 ]; then
    for p in $(ip netns pids "${prefix}node0"); do
        [ "$(ps -o user= -p "$p")" = nobody ] || fail "daemon process $p runs as $(ps -o user= -p "$p"), not nobody"
    done
fi
echo "ok entrypoint daemons: two runs on node0..node3:7100 by name, loose key copied privately${user:+, as nobody}"

# 3. bad variables: exit 2 naming the value
set +e
msg=$(STEPNET_ROLE=boss STEPNET_KEY_FILE="$key" deploy/docker/entrypoint.sh 2>&1)
rc=$?
msg2=$(STEPNET_ROLE=coordinator STEPNET_TOPO=ring:5 STEPNET_NODES=4 STEPNET_BIN="$bindir" \
    STEPNET_KEY_FILE="$key" deploy/docker/entrypoint.sh 2>&1)
rc2=$?
msg3=$(STEPNET_ROLE=node STEPNET_KEY_FILE="$tmp/none" deploy/docker/entrypoint.sh 2>&1)
rc3=$?
set -e
[ $rc = 2 ] && echo "$msg" | grep -q "'boss'" || fail "bad role: $rc: $msg"
[ $rc2 = 2 ] && echo "$msg2" | grep -q "STEPNET_NODES=4.*5 nodes" || fail "node count: $rc2: $msg2"
[ $rc3 = 2 ] && echo "$msg3" | grep -q "$tmp/none" || fail "missing key: $rc3: $msg3"
echo "ok bad role, node count and key refused with status 2"
# 4. the recorded pids are the processes: once they are ended, nothing runs in the namespaces
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
for nm in "${names[@]}"; do
    left=$(ip netns pids "${prefix}$nm")
    [ -z "$left" ] || fail "processes left in ${prefix}$nm: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"
done
echo "ok nothing left running in the namespaces"
echo "entrypoint_netns: all passed"
