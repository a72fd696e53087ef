#!/usr/bin/env bash
# Integration test: `stepnet run --hosts` over IPv6 only (docs/deploy.md, "Starting the nodes over
# ssh"). Two "hosts" are network namespaces on a private bridge that carries IPv6 addresses only
# (a ULA /64), each running an OpenSSH server started here; the coordinator runs in the root
# namespace on --listen [ULA]:0 with a host file of [IPv6] hosts. The nodes started over ssh must
# listen where their neighbours dial them (the address through which the coordinator reaches
# them), so the runs verify and equal the simulator. Exits 77 (CTest: skipped) without
# namespaces (not root) or without sshd.
set -euo pipefail
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
sshd=/usr/sbin/sshd
if [ ! -x "$sshd" ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
    echo "ssh_launch_ipv6: needs sshd, ssh and ssh-keygen (openssh-server, openssh-client): skipped"
    exit 77
fi
prefix="sn6$$"
if ! ip netns add "${prefix}probe" 2>/dev/null; then
    echo "ssh_launch_ipv6: cannot create network namespaces here: skipped"
    exit 77
fi
ip netns del "${prefix}probe"
# a /64 of fd03:7::/48 of this test run only, so that parallel runs do not share addresses
net=$(printf 'fd03:7:%x:' $(($$ % 65536)))
br="${prefix}br"
nhosts=2
tmp=$(mktemp -d)
sshd_pids=()
coord=""
cleanup() {
    local i p
    [ -n "$coord" ] && kill -9 "$coord" 2>/dev/null || true
    for p in "${sshd_pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
    for ((i = 0; i < nhosts; i++)); do # whatever still runs in a namespace of this test
        for p in $(ip netns pids "${prefix}h$i" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
        ip netns del "${prefix}h$i" 2>/dev/null || true
    done
    pkill -9 -f "$tmp/bin/" 2>/dev/null || true
    ip link del "$br" 2>/dev/null || true
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() {
    echo "FAIL $*"
    exit 1
}

# ---- the hosts: a bridge, one namespace per host, IPv6 only, an sshd in each -----------------
ip link add "$br" type bridge
# the bridge keeps the address it has: left to itself it takes the lowest of its ports', and a port
# removed mid-run would change it under the nodes' ARP caches (their frames to the coordinator lost
# until the caches expire, about a minute)
ip link set "$br" address "$(cat "/sys/class/net/$br/address")"
# nodad: the addresses are usable at once, not after duplicate address detection
ip -6 addr add "${net}:1/64" dev "$br" nodad
ip link set "$br" up
mkdir -p /run/sshd # sshd's privilege separation directory (Debian creates it at boot)
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id"
cp "$tmp/id.pub" "$tmp/authorized_keys"
for ((i = 0; i < nhosts; i++)); do
    ns="${prefix}h$i"
    ip netns add "$ns"
    ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns"
    ip link set "${prefix}v$i" master "$br" up
    ip netns exec "$ns" ip -6 addr add "${net}:$((i + 10))/64" dev eth0 nodad
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    cat >"$tmp/sshd_config$i" <<EOF
Port 22
ListenAddress ${net}:$((i + 10))
HostKey $tmp/host_key
AuthorizedKeysFile $tmp/authorized_keys
PidFile $tmp/sshd$i.pid
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PrintMotd no
LogLevel ERROR
EOF
    ip netns exec "$ns" "$sshd" -D -e -f "$tmp/sshd_config$i" 2>>"$tmp/sshd.log" &
    sshd_pids+=("$!")
done
for ((i = 0; i < nhosts; i++)); do # every sshd listening, within 10 s
    up=""
    for _ in $(seq 100); do
        if timeout 1 bash -c "exec 3<>/dev/tcp/${net}:$((i + 10))/22" 2>/dev/null; then
            up=1
            break
        fi
        sleep 0.1
    done
    [ -n "$up" ] || { cat "$tmp/sshd.log"; fail "sshd on ${net}:$((i + 10)) did not start"; }
done

# the remote stepnet-node under a path of this test only, so that a stray one is found by name
mkdir "$tmp/bin"
cp "$node" "$tmp/bin/stepnet-node"
remote="$tmp/bin/stepnet-node"
ssh_ok="ssh -F /dev/null -i $tmp/id -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"

jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }

# Nothing of this test left running: no stepnet-node anywhere, and in every namespace nothing
# but its sshd listener (an sshd session may take a moment to end: 10 s deadline).
nothing_left() {
    local what=$1 extra
    for _ in $(seq 100); do
        extra=""
        pgrep -f "$tmp/bin/" >/dev/null && extra="stepnet-node processes"
        for ((i = 0; i < nhosts; i++)); do
            local n
            n=$(ip netns pids "${prefix}h$i" | wc -l)
            [ "$n" -le 1 ] || extra="$extra; $n processes in ${prefix}h$i"
        done
        [ -z "$extra" ] && return 0
        sleep 0.1
    done
    fail "$what: left running: $extra"
}

# run_ok NAME RUN-OPTIONS...: a verified run over ssh and IPv6, equal to the simulator
run_ok() {
    local name=$1 out sim rc=0
    shift
    out=$(STEPNET_SSH="$ssh_ok" timeout 120 "$stepnet" run --listen "[${net}:1]:0" \
        --remote-node "$remote" --reps 2 --warmup 0 --probes 3 --connect-timeout-ms 10000 \
        --json "$@" 2>"$tmp/err") || rc=$?
    [ "$rc" -eq 0 ] || { cat "$tmp/err"; fail "$name: exit status $rc"; }
    local args=() skip=0
    for a in "$@"; do # the simulator takes the run's topology and collective options only
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        case "$a" in --hosts | --map-by | --security) skip=1 ;; --insecure-ok) ;; *) args+=("$a") ;; esac
    done
    sim=$("$stepnet" sim "${args[@]}" --json)
    [ "$(jget verified "$out")" = true ] || fail "$name: not verified: $out"
    for k in steps trace_hash deliveries packets; do
        [ "$(jget "$k" "$out")" = "$(jget "$k" "$sim")" ] ||
            fail "$name: $k differs from sim: run $(jget "$k" "$out"), sim $(jget "$k" "$sim")"
    done
    [ "$(jget nodes_mode "$out")" = ssh ] || fail "$name: nodes_mode is not ssh: $out"
    nothing_left "$name"
    echo "ok $name (steps $(jget steps "$out"), trace $(jget trace_hash "$out"))"
}

# ---- verified runs: every link crosses the bridge or stays in a host, all over IPv6 ----------
printf '# two IPv6 hosts, two slots each\nroot@[%s] slots=2\n[%s]:22 slots=2\n' \
    "${net}:10" "${net}:11" >"$tmp/hosts"
run_ok "IPv6 hostfile, --map-by slot" --topo ring:4 --coll te --hosts "$tmp/hosts"
run_ok "IPv6 hostfile, --map-by node" --topo mesh:2x2 --coll mnb --hosts "$tmp/hosts" \
    --map-by node --security none --insecure-ok
# ---- where the nodes listen: on their host's address, not on a wildcard ----------------------
# A long run (its collectives idle for 10^8 slots) whose nodes stay up while their listening
# sockets are read in each namespace; then the coordinator is killed and every node leaves.
STEPNET_SSH="$ssh_ok" "$stepnet" run --listen "[${net}:1]:0" --remote-node "$remote" \
    --topo ring:4 --coll te --hosts "$tmp/hosts" --idle-slots 100000000 --reps 1000 --warmup 0 \
    --probes 0 >/dev/null 2>"$tmp/err" &
coord=$!
listening() { ip netns exec "${prefix}h$1" ss -Hltnp 2>/dev/null | grep stepnet-node || true; }
started=""
for _ in $(seq 300); do # both nodes of each host listening (30 s deadline)
    if [ "$(listening 0 | wc -l)" -ge 2 ] && [ "$(listening 1 | wc -l)" -ge 2 ]; then
        started=1
        break
    fi
    sleep 0.1
done
[ -n "$started" ] || { kill -9 "$coord"; cat "$tmp/err"; fail "listeners: the nodes did not start"; }
for ((i = 0; i < nhosts; i++)); do
    while read -r _ _ _ local _; do
        [ "$local" = "[${net}:$((i + 10))]:${local##*:}" ] || {
            kill -9 "$coord"
            fail "a node on host ${net}:$((i + 10)) listens on $local, not on the host's address"
        }
    done < <(listening "$i")
done
kill -9 "$coord"
wait "$coord" 2>/dev/null || true
coord=""
nothing_left "listeners"
echo "ok listeners: every node listens on its host's IPv6 address"
echo "ssh_launch_ipv6: all passed"
