#!/usr/bin/env bash
# Integration test: `stepnet run --hosts` starting the nodes over ssh. Two "hosts" are network
# namespaces on a private bridge, each running an OpenSSH server started here (a temporary host
# key and authorized key); the coordinator runs in the root namespace. A hostfile run and a -H
# list run are verified against the simulator; then each failure (no route, connection refused,
# authentication, a missing stepnet-node) must fail the run with exit status 1, name the host,
# and leave no stepnet process in any namespace. Exits 77 (CTest: skipped) without namespaces
# (not root) or without sshd.
set -euo pipefail
. "$(dirname "$0")/netns_lib.sh"
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
sshd=/usr/sbin/sshd
if [ ! -x "$sshd" ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
    echo "ssh_launch: needs sshd, ssh and ssh-keygen (openssh-server, openssh-client): skipped"
    exit 77
fi
prefix="snh$$"
if ! ip netns add "${prefix}probe" 2>/dev/null; then
    echo "ssh_launch: cannot create network namespaces here: skipped"
    exit 77
fi
ip netns del "${prefix}probe"
net="10.$((192 + $$ % 32)).$((($$ / 32) % 250))"
br="${prefix}br"
nhosts=2
tmp=$(mktemp -d)
sshd_pids=()
cleanup() {
    for p in "${sshd_pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
    pkill -9 -f "$tmp/bin/" 2>/dev/null || true
    for ((i = 0; i < nhosts; i++)); do ip netns del "${prefix}h$i" 2>/dev/null || true; done
    ip link del "$br" 2>/dev/null || true
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() {
    echo "FAIL $*"
    exit 1
}

# ---- the hosts: a bridge, one namespace per host, an sshd in each ----------------------------
netns_bridge_up "$br" "$net"
mkdir -p /run/sshd # sshd's privilege separation directory (Debian creates it at boot)
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/wrong_id"
cp "$tmp/id.pub" "$tmp/authorized_keys"
for ((i = 0; i < nhosts; i++)); do
    ns="${prefix}h$i"
    netns_host_up "$ns" "${prefix}v$i" "$br" "$net.$((i + 10))"
    cat >"$tmp/sshd_config$i" <<EOF
Port 22
ListenAddress $net.$((i + 10))
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
        if timeout 1 bash -c "exec 3<>/dev/tcp/$net.$((i + 10))/22" 2>/dev/null; then
            up=1
            break
        fi
        sleep 0.1
    done
    [ -n "$up" ] || { cat "$tmp/sshd.log"; fail "sshd on $net.$((i + 10)) did not start"; }
done

# the remote stepnet-node under a path of this test only, so that a stray one is found by name
mkdir "$tmp/bin"
cp "$node" "$tmp/bin/stepnet-node"
remote="$tmp/bin/stepnet-node"
ssh_ok="ssh -F /dev/null -i $tmp/id -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
ssh_bad="ssh -F /dev/null -i $tmp/wrong_id -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"

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
    ps -ef | grep -e "$tmp" -e sshd | grep -v grep || true
    fail "$what: left running: $extra"
}

# run_ok NAME RUN-OPTIONS...: a verified run over ssh, equal to the simulator
run_ok() {
    local name=$1 out sim rc=0
    shift
    out=$(STEPNET_SSH="$ssh_ok" timeout 120 "$stepnet" run --listen "$net.1:0" \
        --remote-node "$remote" --reps 2 --warmup 0 --probes 3 --json "$@" 2>"$tmp/err") || rc=$?
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

# run_fails NAME HOST-NAMED MESSAGE SSH-COMMAND RUN-OPTIONS...: the run fails with exit status 1
# within its deadline, its error names the host and says MESSAGE, nothing is left running
run_fails() {
    local name=$1 host=$2 msg=$3 sshcmd=$4 rc=0
    shift 4
    STEPNET_SSH="$sshcmd" timeout 120 "$stepnet" run --listen "$net.1:0" --topo ring:4 --coll te \
        --reps 1 --warmup 0 --probes 0 --connect-timeout-ms 5000 "$@" >"$tmp/out" 2>"$tmp/err" ||
        rc=$?
    [ "$rc" -eq 1 ] || { cat "$tmp/err"; fail "$name: exit status $rc, expected 1"; }
    local verdict
    verdict=$(grep '^stepnet run: host' "$tmp/err" | tail -n1 || true)
    [ -n "$verdict" ] || { cat "$tmp/err"; fail "$name: no failure naming a host"; }
    case "$verdict" in
    *"host $host "*) ;;
    *) fail "$name: the failure does not name host $host: $verdict" ;;
    esac
    case "$verdict" in
    *"$msg"*) ;;
    *) fail "$name: the failure does not say '$msg': $verdict" ;;
    esac
    nothing_left "$name"
    echo "ok $name: $verdict"
}

# ---- verified runs --------------------------------------------------------------------------
printf '# two hosts, two slots each\nroot@%s slots=2\n%s:22 slots=2   # the second host\n\n' \
    "$net.10" "$net.11" >"$tmp/hosts"
run_ok "hostfile, --map-by slot" --topo ring:4 --coll te --hosts "$tmp/hosts"
grep -q "root@$net.10 (slots 2): nodes 0 1" "$tmp/err" || { cat "$tmp/err"; fail "placement by slot not printed"; }
grep -q "$net.11:22 (slots 2): nodes 2 3" "$tmp/err" || { cat "$tmp/err"; fail "placement by slot not printed"; }
run_ok "-H list, --map-by node" --topo torus:2x3 --coll mnb --hosts "$net.10:3,$net.11:3" --map-by node
grep -q "$net.10 (slots 3): nodes 0 2 4" "$tmp/err" || { cat "$tmp/err"; fail "placement by node not printed"; }
run_ok "security none" --topo ring:3 --coll bcast --hosts "$net.10,$net.11:2" --security none --insecure-ok
# the text report names the launch mode and the hosts given nodes (not "local processes")
txt=$(STEPNET_SSH="$ssh_ok" timeout 120 "$stepnet" run --listen "$net.1:0" --remote-node "$remote" \
    --reps 1 --warmup 0 --probes 0 --topo ring:4 --coll te --hosts "$net.10:2,$net.11:2" 2>"$tmp/err") ||
    { cat "$tmp/err"; fail "text report: exit status $?"; }
grep -q "^  nodes           4 processes on 2 hosts over ssh, 4 TCP links" <<<"$txt" ||
    fail "the nodes line does not say 4 processes on 2 hosts over ssh: $txt"

# ---- failures: each names its host ----------------------------------------------------------
run_fails "no route" "$net.99" "ssh failed" "$ssh_ok" --hosts "$net.10:2,$net.99:2" \
    --remote-node "$remote"
printf '%s slots=2\n%s:2222 slots=2\n' "$net.10" "$net.11" >"$tmp/hosts_refused"
run_fails "connection refused" "$net.11:2222" "Connection refused" "$ssh_ok" \
    --hosts "$tmp/hosts_refused" --remote-node "$remote"
run_fails "authentication" "$net.10" "Permission denied" "$ssh_bad" --hosts "$net.10:4" \
    --remote-node "$remote"
run_fails "missing stepnet-node" "$net.11" "not found" "$ssh_ok" --hosts "$net.11:4" \
    --remote-node /nonexistent/stepnet-node

# a remote node of another protocol version (a wrapper announcing version 99)
printf '#!/bin/sh\nexec %s "$@" --wire-version 99\n' "$remote" >"$tmp/bin/other-version"
chmod +x "$tmp/bin/other-version"
run_fails "protocol version" "$net.10" "protocol version mismatch: the node speaks version 99" \
    "$ssh_ok" --hosts "$net.10:4" --remote-node "$tmp/bin/other-version"

# ---- the coordinator killed mid-run: every remote node leaves ---------------------------------
STEPNET_SSH="$ssh_ok" "$stepnet" run --listen "$net.1:0" --remote-node "$remote" --topo ring:4 \
    --coll te --hosts "$net.10:2,$net.11:2" --idle-slots 100000000 --reps 1000 --warmup 0 \
    --probes 0 >/dev/null 2>"$tmp/err" &
coord=$!
started=""
for _ in $(seq 200); do # all four remote nodes running (20 s deadline)
    [ "$(pgrep -f "$tmp/bin/stepnet-node" | wc -l)" -ge 4 ] && { started=1; break; }
    sleep 0.1
done
[ -n "$started" ] || { kill -9 "$coord"; cat "$tmp/err"; fail "killed coordinator: nodes did not start"; }
sleep 1
kill -9 "$coord"
wait "$coord" 2>/dev/null || true
nothing_left "coordinator killed"
echo "ok coordinator killed: every remote node left"
echo "ssh_launch: all passed"
