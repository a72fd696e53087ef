#!/usr/bin/env bash
# --progress of stepnet run and bench (docs/output.md, "Progress"): the lines on stderr name each
# phase as the run reaches it, in order (launch with its launcher, join with the links up,
# calibration, warm-up, repetitions), each phase's end, the sizes of a sweep in order, an ETA only
# after a measured repetition ended, and a last line that says done or stopped; nothing on stdout
# and nothing without --progress. Only the order and the counts are checked, never the timing.
# Runs on 127.0.0.1 with port 0 (local nodes, nodes "over ssh" through a stand-in that runs them
# here, and one daemon for the daemons launcher).
set -uo pipefail
: "${STEPNET:?STEPNET is not set: run this test through ctest}"
: "${STEPNET_NODE:?STEPNET_NODE is not set: run this test through ctest}"
command -v python3 >/dev/null || { echo "FAIL python3 is missing (scripts/setup.sh installs it)"; exit 1; }
dir=$(mktemp -d)
daemon_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fails=0
t() { timeout 120 "$STEPNET" "$@"; }
# check NAME STATUS WANT-STATUS CHECKER-ARGS...: the progress lines of $dir/err against
# the expectations (see the checker below)
check() {
    local what=$1 rc=$2 want=$3
    shift 3
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $what: status $rc, expected $want"
        cat "$dir/err"
        fails=$((fails + 1))
        return
    fi
    if grep -q "progress:" "$dir/out"; then
        echo "FAIL $what: progress on stdout"
        fails=$((fails + 1))
    fi
    python3 - "$dir/err" "$@" <<'EOF' || { echo "FAIL $what"; cat "$dir/err"; fails=$((fails + 1)); }
# argv: STDERR CMD LAUNCHER NODES WARMUP REPS END SIZE,SIZE,...
import re, sys
err, cmd, launcher, nodes, warmup, reps, end, sizes = sys.argv[1:9]
nodes, warmup, reps = int(nodes), int(warmup), int(reps)
sizes = [int(s) for s in sizes.split(",")]
order = ["launch", "join", "calibration", "warmup", "run"]
pat = re.compile(r"^stepnet %s: progress: phase=(\w+) (\d+)/(\d+)(.*)$" % cmd)
lines = [l.rstrip("\n") for l in open(err) if "progress:" in l]
bad = []
def fail(m):
    bad.append(m)
if not lines:
    fail("no progress line")
seen, top, point = [], -1, 0
for l in lines:
    m = pat.match(l)
    if not m:
        fail("not a progress line: %r" % l)
        continue
    ph, done, total, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    kv = dict(re.findall(r"(\w+)=(\S+)", rest))
    if ph not in order:
        fail("unknown phase %r" % l)
        continue
    k = order.index(ph)
    if ph not in seen:
        seen.append(ph)
    # start-up phases never come back; warm-up and run alternate over a sweep's sizes
    if k < top and (k < 3 or top < 3):
        fail("phase %s after %s: %r" % (ph, order[top], l))
    top = max(top, k)
    if done > total:
        fail("more done than in all: %r" % l)
    if ph == "launch" and kv.get("launcher") != launcher:
        fail("launcher %r, expected %r: %r" % (kv.get("launcher"), launcher, l))
    if ph in ("launch", "join") and total != nodes:
        fail("%d nodes, expected %d: %r" % (total, nodes, l))
    if ph in ("warmup", "run"):
        p, n = (int(x) for x in kv["point"].split("/"))
        if n != len(sizes) or p < point or int(kv["size"]) != sizes[p - 1]:
            fail("size %s at point %s, the sizes are %s: %r" % (kv["size"], kv["point"], sizes, l))
        point = p
        rd, rt = (int(x) for x in kv["reps"].split("/"))
        if rt != (warmup + reps) * len(sizes) or total != (warmup if ph == "warmup" else reps):
            fail("repetition counts: %r" % l)
        # an ETA only once a measured repetition of the run ended
        if "eta_s" in kv and rd <= warmup:
            fail("an ETA before a measured repetition: %r" % l)
want = [p for p in order if p != "launch" or launcher != "join"]
if warmup == 0:
    want.remove("warmup")
if seen != want:
    fail("phases %s, expected %s" % (seen, want))
def ended(ph, pred):
    return any(pat.match(l) and pat.match(l).group(1) == ph and pred(pat.match(l)) for l in lines)
full = lambda m: m.group(2) == m.group(3)
for ph in ("launch", "calibration"):
    if ph in want and not ended(ph, full):
        fail("no line with the %s phase complete" % ph)
if not ended("join", lambda m: full(m) and "links_up=%d/%d" % (nodes, nodes) in m.group(4)):
    fail("no line with every node joined and its links up")
last = lines[-1] if lines else ""
if not last.endswith(" end=" + end) or sum(" end=" in l for l in lines) != 1:
    fail("the last line does not end with end=%s: %r" % (end, last))
every = (warmup + reps) * len(sizes)
if end == "done" and "reps=%d/%d" % (every, every) not in last:
    fail("the last line does not count every repetition: %r" % last)
# every size of a finished sweep has a line of its own, however fast it went
if end == "done":
    points = {int(re.search(r" point=(\d+)/", l).group(1)) for l in lines if " point=" in l}
    if points != set(range(1, len(sizes) + 1)):
        fail("lines for the sizes at points %s, expected 1 to %d" % (sorted(points), len(sizes)))
for m in bad[:10]:
    print("  " + m)
sys.exit(1 if bad else 0)
EOF
}

# run: one size, local nodes
t run --topo ring:4 --coll bcast --reps 3 --warmup 1 --progress >"$dir/out" 2>"$dir/err"
check "run --progress" $? 0 run local 4 1 3 done 8
# bench: a sweep of three sizes, in order
t bench --topo torus:3x3 --coll te --sizes 8,64,1K --iters 3 --warmup 1 --progress \
    >"$dir/out" 2>"$dir/err"
check "bench --progress" $? 0 bench local 9 1 3 done 8,64,1024
# no warm-up: that phase is skipped
t run --topo ring:4 --coll bcast --reps 2 --warmup 0 --progress >"$dir/out" 2>"$dir/err"
check "run --warmup 0 --progress" $? 0 run local 4 0 2 done 8
# a run that fails in its repetition: the last line says it stopped
t run --topo ring:6 --coll te --reps 1 --warmup 0 --fault 2:kill@2 --progress >"$dir/out" \
    2>"$dir/err"
rc=$?
grep -q "progress: phase=run .* end=stopped$" "$dir/err" && [ "$rc" -eq 1 ] ||
    { echo "FAIL a failed run's last progress line: status $rc"; cat "$dir/err"; fails=$((fails + 1)); }
# without --progress, and with --no-progress (stderr is a file here): not a line
for flag in "" --no-progress; do
    t run --topo ring:4 --coll bcast --reps 2 $flag >"$dir/out" 2>"$dir/err"
    if grep -q "progress:" "$dir/err"; then
        echo "FAIL progress lines with '$flag' into a file"
        fails=$((fails + 1))
    fi
done

# the ssh launcher, through a stand-in for ssh that runs the remote command here: launch counts
# the remote nodes that answered
printf '#!/bin/sh\nfor a; do last=$a; done\nexec sh -c "$last"\n' >"$dir/ssh"
chmod +x "$dir/ssh"
t run --topo ring:4 --coll te --reps 3 --warmup 1 --hosts 127.0.0.1:4 --ssh "$dir/ssh" \
    --remote-node "$STEPNET_NODE" --listen 127.0.0.1:0 --progress >"$dir/out" 2>"$dir/err"
check "run --hosts --progress" $? 0 run ssh 4 1 3 done 8

# the daemons launcher: launch counts the daemons that replied; the calibration probes the clocks
"$STEPNET" keygen "$dir/key" 2>/dev/null
"$STEPNET_NODE" --serve --listen 127.0.0.1:0 --key "$dir/key" >"$dir/daemon.out" 2>"$dir/daemon.err" &
daemon_pid=$!
for _ in $(seq 100); do grep -q 'SERVE port=' "$dir/daemon.out" && break; sleep 0.1; done
dport=$(sed -n 's/SERVE port=//p' "$dir/daemon.out")
if [ -z "$dport" ]; then
    echo "FAIL the daemon did not print its port within 10 s: $(cat "$dir/daemon.err")"
    fails=$((fails + 1))
else
    d=127.0.0.1:$dport
    t run --topo ring:4 --coll te --reps 2 --warmup 1 --nodes "$d,$d,$d,$d" --key "$dir/key" \
        --progress >"$dir/out" 2>"$dir/err"
    check "run --nodes daemons --progress" $? 0 run daemons 4 1 2 done 8
fi

if [ "$fails" -ne 0 ]; then
    echo "progress: $fails failures"
    exit 1
fi
echo "progress: all checks passed"
