#!/usr/bin/env bash
# scripts/plot.sh renders every kind of plot from the committed fixtures (tests/fixtures/plot/):
# each SVG must be well-formed XML (python3's parser), an <svg> document, and hold the plotted
# curves (gnuplot's groups gnuplot_plot_N, each with a path, polygon or point symbols). The CSV readers find columns by
# header name (reordered and extra columns are tolerated); bad usage and unreadable input fail.
set -uo pipefail
: "${STEPNET_SRC:?STEPNET_SRC is not set: run this test through ctest}"
plot="$STEPNET_SRC/scripts/plot.sh"
fx="$STEPNET_SRC/tests/fixtures/plot"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
for tool in gnuplot python3; do
    command -v $tool >/dev/null || { echo "FAIL $tool is missing (scripts/setup.sh installs it)"; exit 1; }
done

# svg_ok FILE CURVES: well-formed SVG with at least CURVES plotted groups, each holding a path
svg_ok() {
    python3 - "$1" "$2" <<'PY'
import sys
import xml.etree.ElementTree as ET
path, want = sys.argv[1], int(sys.argv[2])
try:
    root = ET.parse(path).getroot()
except ET.ParseError as e:
    sys.exit("%s: not well-formed XML: %s" % (path, e))
ns = "{http://www.w3.org/2000/svg}"
if root.tag != ns + "svg":
    sys.exit("%s: the root element is %s, not svg" % (path, root.tag))
# gnuplot_plot_N ids (the key's sample repeats the id) drawing something: a path, a polygon, or
# point symbols (<use> of a symbol defined once)
drawn = set()
for g in root.iter(ns + "g"):
    gid = g.get("id", "")
    if not gid.startswith("gnuplot_plot_"):
        continue
    if any(e.get("d", "").strip() for e in g.iter(ns + "path")) or \
            any(e.get("points", "").strip() for e in g.iter(ns + "polygon")) or \
            any(e.get("transform", "").startswith("translate") for e in g.iter(ns + "use")):
        drawn.add(gid)
if len(drawn) < want:
    sys.exit("%s: %d plotted curves with a path, expected %d" % (path, len(drawn), want))
print("ok %s: %d curves" % (path, len(drawn)))
PY
}

# render KIND INPUT OUT CURVES
render() {
    if ! timeout 120 "$plot" "$1" "$2" "$3" 2>"$dir/err"; then
        echo "FAIL plot.sh $1 $2:"
        cat "$dir/err"
        fails=$((fails + 1))
        return
    fi
    svg_ok "$3" "$4" || fails=$((fails + 1))
}

render latency "$fx/bench.csv" "$dir/latency.svg" 4 # band, average, p50, predicted
render table "$fx/table.csv" "$dir/table.svg" 2     # y = x, the rows that agree
render util "$fx/trace-sim.json" "$dir/util-sim.svg" 1
render util "$fx/trace-run.json" "$dir/util-run.svg" 1
render dyn "$fx/dynbcast.csv" "$dir/dyn.svg" 3 # mean, bound (11), p99

# columns by name: reorder them and add one; the same curves come out
python3 - "$fx/bench.csv" "$dir/reordered.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = ["predicted_us", "extra", "max_us", "size", "min_us", "avg_us"]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, cols, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        r["extra"] = "x"
        w.writerow(r)
PY
render latency "$dir/reordered.csv" "$dir/reordered.svg" 3 # no p50 column: band, average, predicted
# two topologies in one sweep: one series each (band, average, p50, predicted)
python3 - "$fx/bench.csv" "$dir/two.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, list(rows[0].keys()))
    w.writeheader()
    for r in rows:
        w.writerow(r)
        r = dict(r, topology="ring:8", avg_us=float(r["avg_us"]) * 2)
        w.writerow(r)
PY
render latency "$dir/two.csv" "$dir/two.svg" 8
grep -q "ring:8: average" "$dir/two.svg" || { echo "FAIL the second series is not named"; fails=$((fails + 1)); }
# table with a row that differs and a tcp column: four curves
python3 - "$fx/table.csv" "$dir/table-tcp.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = list(rows[0].keys()) + ["tcp"]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, cols)
    w.writeheader()
    for i, r in enumerate(r for r in rows if None not in r):
        r["tcp"] = r["simulated"]
        if i == 0:
            r["simulated"], r["agree"] = str(int(r["simulated"]) + 1), "DIFFERS"
        w.writerow(r)
PY
render table "$dir/table-tcp.csv" "$dir/table-tcp.svg" 4

# refusals
expect_fail() { # expect_fail STATUS TEXT ARGS...: plot.sh fails with STATUS and says TEXT
    local want=$1 text=$2
    shift 2
    timeout 60 "$plot" "$@" >/dev/null 2>"$dir/err"
    local rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -q -- "$text" "$dir/err"; then
        echo "FAIL plot.sh $*: status $rc (expected $want), stderr:"
        cat "$dir/err"
        fails=$((fails + 1))
    fi
}
expect_fail 2 "bad KIND 'pie'" pie "$fx/bench.csv" "$dir/x.svg"
expect_fail 2 "usage" latency "$fx/bench.csv"
expect_fail 2 "cannot read INPUT" latency "$dir/missing.csv" "$dir/x.svg"
printf 'size,avg_us\n8,1\n' >"$dir/short.csv"
expect_fail 1 "no column min_us, max_us, predicted_us" latency "$dir/short.csv" "$dir/x.svg"
expect_fail 1 "not a trace-event file" util "$fx/bench.csv" "$dir/x.svg"

if [ "$fails" -ne 0 ]; then
    echo "plot: $fails failures"
    exit 1
fi
echo "plot: all checks passed"
