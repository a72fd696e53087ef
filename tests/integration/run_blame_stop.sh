#!/usr/bin/env bash
# Integration test: blame of a stopped node, ten times in a row. `stepnet run --topo ring:8 --coll
# te --reps 4000 --warmup 0 --probes 2` with the default deadlines; once repetitions run, SIGSTOP
# to the node started with `--id 3`. Its neighbours 2 and 4 name it at their slot deadline (5 s),
# the blame window waits a further slot deadline for node 3's own report, and nodes 2 and 4 leave
# 5 s after their unanswered reports, inside that window: the verdict must name node 3, as
# stopped, every time, never a node that left after its own report. All ten runs use the default
# deadlines (the race between the leaving neighbours and the blame window is the case under
# test, and a shorter --slot-timeout-ms would remove it); the one option added, --progress, only
# prints progress lines on stderr, whose "phase=run K/N" tells the test that repetitions run. Node 3 is
# found among the coordinator's children by its command line, resumed (SIGCONT) after the run,
# and no node of the run may be left. About 13 s a run.
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
runs=${BLAME_STOP_RUNS:-10}
tmp=$(mktemp -d)
coord="" stopped="" nodes=()
cleanup() {
    [ -n "$stopped" ] && kill -CONT "$stopped" 2>/dev/null || true
    for p in "${nodes[@]:-}" $coord; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
    return 0
}
trap cleanup EXIT INT TERM
fail() {
    echo "FAIL run $k: $*"
    sed 's/^/  coordinator: /' "$tmp/err" | tail -n 40
    exit 1
}
# The pid of the child of $1 whose command line has `--id $2` (empty when none yet).
child_with_id() {
    local p
    for p in $(pgrep -P "$1" || true); do
        if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- " --id $2 "; then
            echo "$p"
            return
        fi
    done
}
# Waits at most $2 seconds for process $1 to end.
wait_gone() {
    local end=$((SECONDS + $2))
    while kill -0 "$1" 2>/dev/null; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.1
    done
}

for ((k = 1; k <= runs; k++)); do
    : >"$tmp/err"
    "$stepnet" run --topo ring:8 --coll te --reps 4000 --warmup 0 --probes 2 --progress \
        >"$tmp/out" 2>"$tmp/err" &
    coord=$!
    end=$((SECONDS + 60))
    until grep -q 'progress: phase=run [1-9]' "$tmp/err"; do
        kill -0 "$coord" 2>/dev/null || fail "the run ended before its first repetition"
        [ $SECONDS -lt $end ] || fail "no repetition within 60 s"
        sleep 0.05
    done
    stopped=$(child_with_id "$coord" 3)
    [ -n "$stopped" ] || fail "no child of the coordinator runs with --id 3"
    mapfile -t nodes < <(pgrep -P "$coord")
    [ "${#nodes[@]}" = 8 ] || fail "the coordinator has ${#nodes[@]} children, want 8"
    kill -STOP "$stopped"
    rc=0
    wait_gone "$coord" 60 || fail "the coordinator did not end within 60 s of the stop"
    wait "$coord" || rc=$?
    coord=""
    kill -CONT "$stopped" 2>/dev/null || true
    for p in "${nodes[@]}"; do
        wait_gone "$p" 10 || fail "node process $p is left 10 s after the run"
    done
    v=$(grep '^stepnet run: ' "$tmp/err" | grep -v 'progress: ' | tail -n1)
    [ "$rc" = 1 ] || fail "exit status $rc, want 1: $v"
    grep -Eq "^stepnet run: node 3 \(pid $stopped\) is stopped" <<<"$v" ||
        fail "the verdict does not name node 3 (pid $stopped) as stopped: $v"
    echo "ok run $k: ${v:0:160}"
    stopped="" nodes=()
done
echo "run_blame_stop: $runs of $runs runs named node 3 stopped"
