#!/usr/bin/env bash
# Time-model benchmark under a transient: the prediction against the measured wall time of
#   stepnet run --topo ring:8 --coll te --msgs 4 --link-delay 1ms --reps 3 --warmup 1
#               --security none --json > FILE
# (stepnet's own link emulation: no root needed), quiet and with a process started beside it at
# the same moment: a Python interpreter that imports json and burns one core for --burn seconds,
# as when the report is piped into a script. Each run's ratio is time_model.predicted_us over
# wall_us_median (and predicted_dataflow_us over it, for the record), read from the file after
# the run. Prints per condition the median and the range of the ratios and how many runs lie
# within 1 +- 0.25 (the target: all). With --baseline BIN (a stepnet built from an older commit,
# its stepnet-node beside it) every run alternates with one of BIN, baseline first, and both are
# printed. Figures, not a test.
#
#   scripts/bench/model_disturbed.sh [--reps N] [--burn SECONDS] [--baseline BIN]
#     --reps N          runs per condition and build (default 10)
#     --burn SECONDS    how long the process beside the run burns a core (default 0.3)
#     --baseline BIN    also run BIN, alternating
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/model_disturbed
reps=10
burn=0.3
base=""
bench_args "--reps reps int:1:1000" "--burn burn num" "--baseline base text" -- "$@"
[ -x build/stepnet ] && [ -x build/stepnet-node ] || scripts/setup.sh >/dev/null
[ -z "$base" ] || [ -x "$base" ] || bench_die "--baseline '$base' is not an executable file"
command -v python3 >/dev/null || bench_die "python3 is needed (the process beside the run)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one BIN CONDITION: one run, its ratios appended to $tmp/BUILD.CONDITION
one() {
    local bin=$1 build=$2 cond=$3 f="$tmp/run.json" pid=""
    if [ "$cond" = beside ]; then
        python3 -c "import json, sys, time
t = time.time()
while time.time() - t < $burn:
    pass" &
        pid=$!
    fi
    timeout 120 "$bin" run --topo ring:8 --coll te --msgs 4 --link-delay 1ms --reps 3 --warmup 1 \
        --security none --json >"$f" 2>/dev/null || true
    [ -z "$pid" ] || wait "$pid"
    python3 - "$f" >>"$tmp/$build.$cond" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if not d.get("verified"):
    sys.exit("bench/model_disturbed: a run did not verify")
m, w = d["time_model"], d["wall_us_median"]
df = d.get("predicted_dataflow_us")
print(m["predicted_us"] / w, (df / w) if df else "-", m.get("calib_disturbed", "-"))
EOF
}

builds=(new)
[ -z "$base" ] || builds=(base new)
for _ in $(seq "$reps"); do
    for cond in quiet beside; do
        for b in "${builds[@]}"; do
            if [ "$b" = base ]; then one "$base" base "$cond"; else one build/stepnet new "$cond"; fi
        done
    done
done

printf '%-8s %-7s %5s %7s %15s %7s %9s %10s\n' build process runs median range within dataflow disturbed
for b in "${builds[@]}"; do
    for cond in quiet beside; do
        python3 - "$b" "$cond" "$tmp/$b.$cond" <<'EOF'
import statistics, sys
b, cond, path = sys.argv[1:4]
rows = [line.split() for line in open(path)]
r = sorted(float(x[0]) for x in rows)
d = [float(x[1]) for x in rows if x[1] != "-"]
dist = sum(x[2] == "True" for x in rows)
within = sum(0.75 <= x <= 1.25 for x in r)
print("%-8s %-7s %5d %7.2f %7.2f-%-7.2f %4d/%-2d %9s %10s" % (
    b, cond, len(r), statistics.median(r), r[0], r[-1], within, len(r),
    "%.2f" % statistics.median(d) if d else "-",
    "%d/%d" % (dist, len(r)) if rows[0][2] != "-" else "-"))
EOF
    done
done
echo "ratios predicted/measured (time_model.predicted_us / wall_us_median), one per run; dataflow:"
echo "the median of predicted_dataflow_us / wall_us_median (the slot runtime's wall time: for the"
echo "record, not a target); disturbed: runs whose report said calib_disturbed; beside: python3"
echo "burning a core for ${burn}s, started with the run; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
