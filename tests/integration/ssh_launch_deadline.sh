#!/usr/bin/env bash
# Integration test of the ready deadline's message (docs/runtime.md, "The ready deadline"): nodes
# that can never say hello, so that the outcome does not depend on the machine's speed, with a
# small explicit --ready-timeout-ms. The message must name each late node, its host (ssh, daemons)
# and what it is still doing, and the option that raises the deadline. The "ssh" program is a
# script of this test (no sshd, no root): one that never starts the session, one that starts the
# real stepnet-node pointed at a port where no coordinator answers, one whose nodes announce an
# address nobody has. Then nothing may be left running. The cases whose nodes must get as far as a
# LISTEN line or a hello allow 10 s and 12 s for it: a node starts in well under a second, even
# under the sanitizers on a loaded 2-core machine.
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
tmp=$(mktemp -d)
daemon_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() {
    echo "FAIL $*"
    exit 1
}

# An ssh whose session never starts: it waits until the coordinator ends it.
printf '#!/bin/sh\nexec sleep 120\n' >"$tmp/ssh-hangs"
# An ssh that runs the remote command here, but with the coordinator's address replaced by port 1
# of 127.0.0.1, where nothing listens: the real node starts, prints its LISTEN line and retries its
# connection for --connect-timeout-ms, never saying hello.
cat >"$tmp/ssh-elsewhere" <<'EOF'
#!/bin/sh
for last; do :; done
exec sh -c "$(printf '%s' "$last" | sed "s/--join '[^']*'/--join '127.0.0.1:1'/")"
EOF
# An ssh that runs the remote command here, the node announcing 192.0.2.1 (TEST-NET-1, no host's
# address) to its neighbours: every node says hello, but no link can come up, and the nodes dial
# again until --connect-timeout-ms.
cat >"$tmp/ssh-unreachable" <<'EOF'
#!/bin/sh
for last; do :; done
exec sh -c "$(printf '%s' "$last" | sed "s/--stdin-session/--stdin-session --advertise 192.0.2.1/")"
EOF
# A local node that never dials the coordinator.
printf '#!/bin/sh\nexec sleep 120\n' >"$tmp/node-hangs"
chmod +x "$tmp/ssh-hangs" "$tmp/ssh-elsewhere" "$tmp/ssh-unreachable" "$tmp/node-hangs"

# late NAME WANT... -- RUN-OPTIONS...: the run fails with status 1 within its deadline, its
# verdict on stderr contains every WANT, and no process of this test is left running.
late() {
    local name=$1 rc=0 line w
    shift
    local wants=()
    while [ "$1" != "--" ]; do
        wants+=("$1")
        shift
    done
    shift
    timeout 120 "$stepnet" run --topo ring:4 --coll mnb --reps 1 --warmup 0 --probes 0 \
        --connect-timeout-ms 60000 --json "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 1 ] || { cat "$tmp/err"; fail "$name: exit status $rc, expected 1"; }
    line=$(grep '^stepnet run: ' "$tmp/err" | tail -n1 || true)
    for w in "${wants[@]}"; do
        case "$line" in
        *"$w"*) ;;
        *) cat "$tmp/err"; fail "$name: the verdict does not say '$w': $line" ;;
        esac
    done
    for _ in $(seq 100); do # 10 s for the ended sessions' processes to go
        pgrep -f "$tmp/" >/dev/null || break
        sleep 0.1
    done
    ! pgrep -af "$tmp/" || fail "$name: processes of the run left running"
    echo "ok $name: $line"
}

late "ssh session still starting" "ready deadline: nodes joined (1500 ms) expired: 4 of 4" \
    "host ha: ssh session still starting (2 nodes: 0,1)" \
    "host hb: ssh session still starting (2 nodes: 2,3)" "raise it with --ready-timeout-ms" -- \
    --hosts ha:2,hb:2 --listen 127.0.0.1:0 --ssh "$tmp/ssh-hangs" --ready-timeout-ms 1500

late "ssh: node started, no hello" "ready deadline: nodes joined (10000 ms) expired: 4 of 4" \
    "host ha: process started but no hello (1 node: 0)" \
    "host hb: process started but no hello (3 nodes: 1-3)" "raise it with --ready-timeout-ms" -- \
    --hosts ha:1,hb:3 --listen 127.0.0.1:0 --ssh "$tmp/ssh-elsewhere" --remote-node "$node" \
    --ready-timeout-ms 10000

late "ssh: joined, links not up" "ready deadline: nodes ready (12000 ms) expired: 4 of 4" \
    "host ha: joined but not ready: links not up (2 nodes: 0,1)" \
    "host hb: joined but not ready: links not up (2 nodes: 2,3)" \
    "raise it with --ready-timeout-ms" -- --hosts ha:2,hb:2 --listen 127.0.0.1:0 \
    --ssh "$tmp/ssh-unreachable" --remote-node "$node" --ready-timeout-ms 12000

late "local process, no hello" "ready deadline: nodes joined (1500 ms) expired: 4 of 4" \
    "process started but no hello (4 nodes: 0-3)" "raise it with --ready-timeout-ms" -- \
    --node-bin "$tmp/node-hangs" --ready-timeout-ms 1500

# A "daemon" that accepts the connection and never answers the invitation (the coordinator waits
# --connect-timeout-ms for its reply: longer than the ready deadline).
PORT_FILE="$tmp/port" python3 - <<'EOF' & # (the path in its environment, not in its command line)
import os, socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(os.environ["PORT_FILE"], "w").write(str(s.getsockname()[1]))
time.sleep(120)
EOF
daemon_pid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || fail "the silent daemon did not start"
d="127.0.0.1:$(cat "$tmp/port")"
late "daemon not answering" "ready deadline: nodes joined (1500 ms) expired: 4 of 4" \
    "host $d: daemon has not answered its invitation (4 nodes: 0-3)" \
    "raise it with --ready-timeout-ms" -- --nodes "$d,$d,$d,$d" --listen 127.0.0.1:0 \
    --security none --insecure-ok --ready-timeout-ms 1500
echo "ssh_launch_deadline: all passed"
