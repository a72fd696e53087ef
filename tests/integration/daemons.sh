#!/usr/bin/env bash
# Integration test of persistent daemons (docs/deploy.md, "Persistent daemons"): four
# `stepnet-node --serve` daemons on 127.0.0.1 serve run after run of `stepnet run --nodes
# ADDR,...` (compared with the simulator); a coordinator killed (SIGKILL) mid-run leaves them
# ready for the next run with no node process left; --id on a daemon decides its node's id, and
# two daemons claiming one id are named; a daemon that is not there, or has another key, is named;
# 30 runs in a row leave each daemon's descriptor count unchanged and its memory bounded; a flood
# of strangers is logged at a bounded rate and leaves the daemon serving.
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL $*"; exit 1; }
jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }
wait_for() { # wait_for FILE REGEX: up to 10 s
    for _ in $(seq 100); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1 within 10 s: $(cat "$1")"
}
key=$tmp/key
"$stepnet" keygen "$key" 2>/dev/null
"$stepnet" keygen "$tmp/other" 2>/dev/null
# daemon NAME [OPTIONS]: starts a daemon, sets $port to its port and $dpid to its pid
daemon() {
    local name=$1
    shift
    "$node" --serve --listen 127.0.0.1:0 --key "$key" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    dpid=$!
    pids+=("$dpid")
    wait_for "$tmp/$name.out" 'SERVE port='
    port=$(sed -n 's/SERVE port=//p' "$tmp/$name.out")
}
list=""
dpids=()
for i in 0 1 2 3; do
    daemon "d$i"
    list="$list,127.0.0.1:$port"
    dpids+=("$dpid")
done
list=${list#,}
children() { # node processes the daemons still run
    local n=0
    for d in "${dpids[@]}"; do n=$((n + $(pgrep -P "$d" | wc -l))); done
    echo "$n"
}
no_children() { # up to 10 s for every daemon's node processes to be gone
    for _ in $(seq 100); do [ "$(children)" = 0 ] && return 0; sleep 0.1; done
    fail "node processes left under the daemons: $(children)"
}
check() { # check RUN-OPTIONS...: a daemon run, the same steps and trace hash as the simulator
    local out sim
    out=$(timeout 60 "$stepnet" run --nodes "$list" --key "$key" --reps 2 --warmup 0 --probes 2 --json "$@")
    sim=$("$stepnet" sim "$@" --json)
    [ "$(jget verified "$out")" = true ] || fail "not verified: $*: $out"
    [ "$(jget nodes_mode "$out")" = daemons ] || fail "not a daemon run: $out"
    for k in steps trace_hash deliveries; do
        [ "$(jget "$k" "$out")" = "$(jget "$k" "$sim")" ] || fail "$k differs from sim: $*"
    done
}

# 1. run after run on the same daemons
check --topo ring:4 --coll te
# the text report names them, and the one machine they run on
txt=$(timeout 60 "$stepnet" run --nodes "$list" --key "$key" --reps 1 --warmup 0 --probes 2 \
    --topo ring:4 --coll te 2>&1) || fail "the run for the text report failed: $txt"
grep -q "^  nodes           4 daemon processes on 1 host, 4 TCP links" <<<"$txt" ||
    fail "the nodes line does not say daemon processes on 1 host: $txt"
check --topo torus:2x2 --coll mnb
check --topo ring:4 --coll bcast --root 2
# one daemon listed for all 25 nodes: 25 invitations at once from one address, 25 node processes
d0=${list%%,*}
many=$d0
for _ in $(seq 24); do many="$many,$d0"; done
out=$(timeout 120 "$stepnet" run --nodes "$many" --key "$key" --topo torus:5x5 --coll bcast --reps 1 \
    --warmup 0 --probes 0 --json)
[ "$(jget verified "$out")" = true ] || fail "25 nodes on one daemon: $out"
no_children
# the same written HOST:PORT*N
out=$(timeout 120 "$stepnet" run --nodes "$d0*25" --key "$key" --topo torus:5x5 --coll bcast --reps 1 \
    --warmup 0 --probes 0 --json)
[ "$(jget verified "$out")" = true ] || fail "--nodes $d0*25: $out"
no_children
set +e
bad=$("$stepnet" run --nodes "$d0*24" --key "$key" --topo torus:5x5 --coll bcast 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "lists 24 daemons, but the topology has 25 nodes" <<<"$bad" ||
    fail "--nodes $d0*24 for 25 nodes: exit $rc: $bad"
# without --listen the coordinator listens on the address that routes to its daemons; daemons
# reached from two addresses of this machine (127.0.0.1 and the one routing to 192.0.2.1, or no
# route at all; nothing is sent) are refused, naming them
set +e
bad=$("$stepnet" run --nodes "$d0,192.0.2.1:7000,$d0,$d0" --key "$key" --topo ring:4 --coll bcast 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] && grep -qE "reached from different addresses of this machine|no route to the daemon" <<<"$bad" ||
    fail "daemons on two routes: exit $rc: $bad"
echo "ok three runs in a row on four daemons, and 25 nodes of one daemon (listed, and as ADDR*25)"

# 2. the coordinator killed mid-run: the daemons stay up and serve the next run
# no `timeout` wrapper: the SIGKILL must reach the coordinator itself (the trap ends it otherwise)
"$stepnet" run --nodes "$list" --key "$key" --topo ring:4 --coll te --idle-slots 50000000 \
    --reps 1 --warmup 0 --probes 0 --verbose >/dev/null 2>"$tmp/victim.err" &
victim=$!
pids+=("$victim")
for i in 0 1 2 3; do wait_for "$tmp/d$i.err" 'DAEMON-RUN run 4:'; done
wait_for "$tmp/victim.err" 'runs node 3'
sleep 1
kill -9 "$victim"
wait "$victim" 2>/dev/null || true
no_children
for d in "${dpids[@]}"; do kill -0 "$d" || fail "daemon $d died with the coordinator"; done
check --topo ring:4 --coll te
echo "ok coordinator killed mid-run: daemons survived, next run verified"

# 3. --id on a daemon decides its node's id; a clash names both daemons
daemon a --id 1
pa=$port
daemon b --id 0
pb=$port
daemon c
pc=$port
out=$(timeout 60 "$stepnet" run --nodes "127.0.0.1:$pa,127.0.0.1:$pb,127.0.0.1:$pc" --key "$key" \
    --topo ring:3 --coll bcast --reps 1 --json 2>"$tmp/ids.err")
[ "$(jget verified "$out")" = true ] || fail "run with daemon --id: $out"
for want in "daemon 127.0.0.1:$pa runs node 1" "daemon 127.0.0.1:$pb runs node 0" \
    "daemon 127.0.0.1:$pc runs node 2"; do
    grep -qF "$want" "$tmp/ids.err" || fail "placement not printed: '$want': $(cat "$tmp/ids.err")"
done
grep -q 'node 1 (pid' "$tmp/a.err" || fail "daemon --id 1 did not run node 1: $(cat "$tmp/a.err")"
grep -q 'node 0 (pid' "$tmp/b.err" || fail "daemon --id 0 did not run node 0: $(cat "$tmp/b.err")"
set +e
msg=$(timeout 60 "$stepnet" run --nodes "127.0.0.1:$pb,127.0.0.1:$pc,127.0.0.1:$pb" --key "$key" \
    --topo ring:3 --coll bcast --reps 1 2>&1)
rc=$?
set -e
[ $rc = 1 ] && echo "$msg" | grep -q "claims id 0" || fail "id clash: status $rc: $msg"
echo "ok daemon --id honoured, clash named"

# 4. a daemon that is not there, one with another key, and bad lists
daemon wrongkey --key "$tmp/other"
pw=$port
kill "$dpid"
wait "$dpid" 2>/dev/null || true
daemon wrongkey2 --key "$tmp/other"
pw=$port
set +e
msg=$(timeout 60 "$stepnet" run --nodes "${list%,*},127.0.0.1:$pw" --key "$key" --topo ring:4 --coll te 2>&1)
rc=$?
set -e
[ $rc = 1 ] && echo "$msg" | grep -q "daemon 127.0.0.1:$pw" || fail "wrong key: status $rc: $msg"
kill "$dpid"
wait "$dpid" 2>/dev/null || true
set +e
msg=$(timeout 60 "$stepnet" run --nodes "${list%,*},127.0.0.1:$pw" --key "$key" --topo ring:4 --coll te 2>&1)
rc=$?
set -e
[ $rc = 1 ] && echo "$msg" | grep -q "daemon 127.0.0.1:$pw.*cannot connect" || fail "absent daemon: status $rc: $msg"
for bad in "127.0.0.1" "127.0.0.1:0" "a:1,,b:2" "host:99999"; do
    set +e
    msg=$("$stepnet" run --nodes "$bad" --key "$key" --topo ring:4 --coll te 2>&1)
    rc=$?
    set -e
    [ $rc = 2 ] && echo "$msg" | grep -qF "'$bad'" || fail "--nodes $bad: status $rc: $msg"
done
set +e
msg=$("$stepnet" run --nodes "$list" --key "$key" --topo ring:5 --coll te 2>&1)
rc=$?
set -e
[ $rc = 2 ] && echo "$msg" | grep -q "lists 4 daemons" || fail "count mismatch: status $rc: $msg"
set +e
msg=$("$node" --serve --key "$key" 2>&1)
rc=$?
set -e
[ $rc = 2 ] && echo "$msg" | grep -q -- "--listen" || fail "--serve without --listen: $rc: $msg"
for d in "${dpids[@]}"; do kill -0 "$d" || fail "daemon $d died after a failed run"; done
check --topo ring:4 --coll te
echo "ok absent daemon, wrong key and bad lists named; daemons still serve"

# 5. many runs: descriptors unchanged, memory bounded
fds() { ls "/proc/$1/fd" | wc -l; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
f0=$(fds "${dpids[0]}")
m0=$(rss "${dpids[0]}")
for _ in $(seq 30); do
    out=$(timeout 60 "$stepnet" run --nodes "$list" --key "$key" --topo ring:4 --coll te --reps 1 \
        --warmup 0 --probes 0 --json)
    [ "$(jget verified "$out")" = true ] || fail "run in the series: $out"
done
no_children
for d in "${dpids[@]}"; do
    [ "$(fds "$d")" = "$f0" ] || fail "daemon $d holds $(fds "$d") descriptors after 30 runs, $f0 before"
done
m1=$(rss "${dpids[0]}")
# under AddressSanitizer freed memory waits in its quarantine (256 MiB by default), so RSS grows
# by design; LeakSanitizer checks the daemon's memory at its exit instead
if [ -n "${ASAN_OPTIONS:-}" ] || case "$(ldd "$node" 2>/dev/null || true)" in *libasan*) true ;; *) false ;; esac; then
    echo "ok 30 runs: $f0 descriptors before and after (RSS $m0 kB -> $m1 kB not judged under ASan)"
else
    [ $((m1 - m0)) -lt 1024 ] || fail "daemon RSS grew from $m0 kB to $m1 kB over 30 runs"
    echo "ok 30 runs: $f0 descriptors before and after, RSS $m0 kB -> $m1 kB"
fi
# 6. a flood of strangers: 200 connections that send garbage, close at once or say nothing until
#    the daemon's deadline. The refusals are logged at most 5 lines a second plus summary lines
#    with a count (net/admit.c's limit), every one of them counted, and the daemon serves a run
#    afterwards.
daemon flood --connect-timeout-ms 1000
fport=$port
t0=$(date +%s)
timeout 60 python3 - "$fport" <<'PY'
import socket, sys, time
port, held, t0 = int(sys.argv[1]), [], time.monotonic()
for i in range(200):
    if time.monotonic() - t0 > 20:
        sys.exit("the flood took more than 20 s")
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if i % 3 == 0:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n" * 4)  # garbage for the handshake
    if i % 3 == 1:
        s.close()  # connects, then closes before the handshake
    else:
        held.append(s)  # idle after the garbage or at once: the daemon's deadline closes it
time.sleep(2)
for s in held:
    s.close()
PY
elapsed=$(($(date +%s) - t0))
refusals() { # individual refusal lines plus the counts of the summary lines
    local one more
    one=$(grep -c 'DAEMON-REFUSED refused a daemon connection from 127.0.0.1' "$tmp/flood.err" || true)
    more=$(sed -n 's/.*DAEMON-REFUSED refused \([0-9]*\) more .*/\1/p' "$tmp/flood.err" |
        awk '{s += $1} END {print s + 0}')
    echo $((one + more))
}
for _ in $(seq 100); do [ "$(refusals)" -ge 200 ] && break; sleep 0.1; done
lines=$(wc -l <"$tmp/flood.err")
# one line at the start, then per one-second window at most 5 refusals and a summary
most=$((1 + 6 * (elapsed + 3)))
[ "$lines" -le "$most" ] ||
    fail "$lines log lines for 200 strangers in $elapsed s (at most $most): $(head -20 "$tmp/flood.err")"
[ "$(refusals)" = 200 ] ||
    fail "the log accounts for $(refusals) of 200 refused strangers: $(cat "$tmp/flood.err")"
# a window may straddle two wall-clock seconds: 5 lines and a summary from each
busiest=$(grep -o '^[0-9:]*' "$tmp/flood.err" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
[ "$busiest" -le 12 ] || fail "$busiest log lines in one second: $(cat "$tmp/flood.err")"
grep -q 'more daemon connections in the last' "$tmp/flood.err" ||
    fail "no summary line: $(cat "$tmp/flood.err")"
kill -0 "$dpid" || fail "the daemon died in the flood"
fl=127.0.0.1:$fport
out=$(timeout 60 "$stepnet" run --nodes "$fl,$fl,$fl,$fl" --key "$key" --topo ring:4 --coll te \
    --reps 1 --warmup 0 --probes 0 --json)
[ "$(jget verified "$out")" = true ] || fail "run after the flood: $out"
echo "ok 200 strangers: $lines log lines in $elapsed s, every refusal counted; the daemon still serves"

# 7. SIGTERM ends a daemon with status 0, and its node processes with it (the run fails, naming
#    the node)
"$stepnet" run --nodes "$list" --key "$key" --topo ring:4 --coll te --idle-slots 50000000 \
    --reps 1 --warmup 0 --probes 0 >/dev/null 2>"$tmp/term.err" &
victim=$!
pids+=("$victim")
for _ in $(seq 100); do [ "$(pgrep -P "${dpids[0]}" | wc -l)" = 1 ] && break; sleep 0.1; done
[ "$(pgrep -P "${dpids[0]}" | wc -l)" = 1 ] || fail "daemon 0 started no node process"
child=$(pgrep -P "${dpids[0]}")
sleep 0.5
kill -TERM "${dpids[0]}"
st=0
timeout 10 tail --pid="${dpids[0]}" -f /dev/null || fail "daemon did not exit within 10 s of SIGTERM"
wait "${dpids[0]}" || st=$?
[ $st = 0 ] || fail "daemon exited with status $st after SIGTERM"
grep -q DAEMON-STOP "$tmp/d0.err" || fail "no DAEMON-STOP line: $(tail -3 "$tmp/d0.err")"
kill -0 "$child" 2>/dev/null && fail "node process $child outlived its daemon"
st=0
timeout 30 tail --pid="$victim" -f /dev/null || fail "the run did not end within 30 s of its node's end"
wait "$victim" || st=$?
[ $st = 1 ] || fail "the run ended with status $st: $(tail -3 "$tmp/term.err")"
echo "ok SIGTERM stops a daemon and its node process; the run fails with status 1"
echo "daemons: all passed"
