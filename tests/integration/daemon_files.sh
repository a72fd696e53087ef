#!/usr/bin/env bash
# Integration test of the daemon's files (stepnet-node --serve --log-file FILE --pid-file FILE):
# the pid file holds the daemon's pid once it listens and is gone after SIGTERM; the daemon's log
# and that of the node processes it starts go to the log file, which SIGHUP reopens after a rename
# (logrotate); a stale pid file is taken over; refused with exit 2 and the value named: either
# option without --serve, a log file that cannot be opened, a pid file of a running daemon, a pid
# file that holds something else.
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
fail() { echo "FAIL daemon_files: $*"; exit 1; }
wait_for() { # wait_for FILE REGEX: up to 10 s
    for _ in $(seq 100); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1 within 10 s: $(cat "$1" 2>/dev/null)"
}
# refused CASE REGEX COMMAND...: exit status 2 and a message matching REGEX on stderr
refused() {
    local what=$1 want=$2 rc=0
    shift 2
    timeout 20 "$@" >"$tmp/refused.out" 2>"$tmp/refused.err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit status $rc, want 2: $(cat "$tmp/refused.err")"
    grep -qE -- "$want" "$tmp/refused.err" || fail "$what: no '$want' in: $(cat "$tmp/refused.err")"
}
key=$tmp/key
"$stepnet" keygen "$key" 2>/dev/null
serve=("$node" --serve --listen 127.0.0.1:0 --key "$key")

# 1. a daemon with both files
log=$tmp/node.log pidf=$tmp/node.pid
"${serve[@]}" --log-file "$log" --pid-file "$pidf" >"$tmp/d.out" 2>"$tmp/d.err" &
dpid=$!
pids+=("$dpid")
wait_for "$tmp/d.out" 'SERVE port='
port=$(sed -n 's/SERVE port=//p' "$tmp/d.out")
[ "$(cat "$pidf")" = "$dpid" ] || fail "the pid file holds '$(cat "$pidf")', want $dpid"
grep -q "DAEMON-LISTEN serving runs on 127.0.0.1:$port" "$log" || fail "no DAEMON-LISTEN in the log: $(cat "$log")"
[ ! -s "$tmp/d.err" ] || fail "the daemon wrote to stderr despite --log-file: $(cat "$tmp/d.err")"
[ "$(stat -c %a "$log")" = 640 ] || fail "the log file has mode $(stat -c %a "$log"), want 640"
# run RING-SIZE: a verified run of ring:N whose nodes all come from this daemon, logging routine events
run() {
    local list="127.0.0.1:$port" out
    for _ in $(seq $(($1 - 1))); do list="$list,127.0.0.1:$port"; done
    out=$(timeout 60 "$stepnet" run --nodes "$list" --key "$key" --topo "ring:$1" --coll bcast \
        --reps 1 --warmup 0 --probes 2 --verbose --json 2>/dev/null) || fail "the run failed: $out"
    grep -q '"verified":true' <<<"$out" || fail "the run did not verify: $out"
}
run 4
# the node processes inherit the log file: their lines are there
wait_for "$log" 'node 3 NODE-READY'
grep -q 'DAEMON-RUN' "$log" || fail "no DAEMON-RUN in the log"

# every node of the run reaped, so that nothing writes to the file once it is renamed
for _ in $(seq 100); do
    [ "$(grep -c DAEMON-NODE-EXIT "$log")" = 4 ] && break
    sleep 0.1
done
[ "$(grep -c DAEMON-NODE-EXIT "$log")" = 4 ] || fail "not 4 DAEMON-NODE-EXIT lines within 10 s: $(cat "$log")"

# 2. logrotate: rename, SIGHUP, and the daemon and its next nodes write to a new file
mv "$log" "$log.1"
kill -HUP "$dpid"
wait_for "$log" "DAEMON-LOG SIGHUP: reopened $log"
kill -0 "$dpid" 2>/dev/null || fail "the daemon died of SIGHUP"
rotated=$(wc -l <"$log.1")
run 3
wait_for "$log" 'node 2 NODE-READY'
[ "$(wc -l <"$log.1")" = "$rotated" ] || fail "the renamed log grew after SIGHUP"

# 3. refusals: the pid file of a running daemon (its file left alone), options without --serve,
# a log file that cannot be opened, a pid file that is not one (left as it was)
refused "a running daemon's pid file" "--pid-file $pidf belongs to a running stepnet-node \\(pid $dpid\\)" \
    "${serve[@]}" --pid-file "$pidf"
[ "$(cat "$pidf")" = "$dpid" ] || fail "the refused daemon changed the pid file"
refused "--log-file without --serve" "--log-file $tmp/x.log is for the daemon \\(--serve\\) only" \
    "$node" --join 127.0.0.1:9 --key "$key" --log-file "$tmp/x.log"
refused "--pid-file without --serve" "--pid-file $tmp/x.pid is for the daemon \\(--serve\\) only" \
    "$node" --join 127.0.0.1:9 --key "$key" --pid-file "$tmp/x.pid"
refused "a log file in a missing directory" "cannot open --log-file $tmp/none/x.log for appending: No such file" \
    "${serve[@]}" --log-file "$tmp/none/x.log"
refused "a directory as log file" "cannot open --log-file $tmp for appending: Is a directory" \
    "${serve[@]}" --log-file "$tmp"
printf 'not a pid\n' >"$tmp/other"
refused "a pid file that is not one" "--pid-file $tmp/other holds 'not a pid', not a process id" \
    "${serve[@]}" --pid-file "$tmp/other"
[ "$(cat "$tmp/other")" = "not a pid" ] || fail "the file that is not a pid file was changed"
[ ! -e "$tmp/x.log" ] && [ ! -e "$tmp/x.pid" ] || fail "a refused node created a file"

# 4. SIGTERM: exit status 0 and the pid file removed
kill -TERM "$dpid"
rc=0
wait "$dpid" || rc=$?
[ "$rc" = 0 ] || fail "the daemon exited with status $rc after SIGTERM"
[ ! -e "$pidf" ] || fail "the pid file is still there after SIGTERM"
grep -q 'DAEMON-STOP' "$log" || fail "no DAEMON-STOP in the log"

# 5. stale pid files are taken over: a process that is gone, and a live one that is not a daemon
# (this shell: a pid a reboot may have handed to another program)
sleep 0 & gone=$!
wait "$gone"
for stale in "$gone" "$$"; do
    echo "$stale" >"$pidf"
    "${serve[@]}" --pid-file "$pidf" >"$tmp/s.out" 2>"$tmp/s.err" &
    spid=$!
    pids+=("$spid")
    wait_for "$tmp/s.out" 'SERVE port='
    [ "$(cat "$pidf")" = "$spid" ] || fail "the stale pid file ($stale) was not taken over: $(cat "$pidf")"
    grep -q "DAEMON-PIDFILE took over $pidf from pid $stale" "$tmp/s.err" ||
        fail "the take-over of pid $stale is not logged: $(cat "$tmp/s.err")"
    kill -INT "$spid"
    wait "$spid" || fail "the daemon exited with status $? after SIGINT"
    [ ! -e "$pidf" ] || fail "the pid file is still there after SIGINT"
done
echo "daemon_files: ok (pid file written and removed, log file with the nodes' lines, reopened on SIGHUP, stale pid files taken over, 6 refusals)"
