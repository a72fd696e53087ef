#!/usr/bin/env bash
# scripts/plot.sh renders every kind of plot from the committed fixtures (tests/fixtures/plot/),
# as SVG and as PNG. Each SVG must be well-formed XML (python3's parser), an <svg> document, hold
# the plotted curves (gnuplot's groups gnuplot_plot_N, each with a path, polygon or point
# symbols), and the texts a reader needs (the title, the subtitle's facts, the units of the axes:
# B/KiB/MiB, us/ms, MB/s), and no raw power-of-two tick label (262144). Each PNG must have the
# plot's size and not be blank (enough colours and enough pixels off the white background; the
# PNG is decoded here with zlib and struct). The CSV readers find columns by header name
# (reordered and extra columns are tolerated; a CSV written before the bandwidth and run columns
# still plots); bad usage and unreadable input fail.
set -uo pipefail
: "${STEPNET_SRC:?STEPNET_SRC is not set: run this test through ctest}"
plot="$STEPNET_SRC/scripts/plot.sh"
fx="$STEPNET_SRC/tests/fixtures/plot"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
for tool in gnuplot python3 rsvg-convert; do
    command -v $tool >/dev/null || { echo "FAIL $tool is missing (scripts/setup.sh installs it)"; exit 1; }
done
# svg_ok FILE CURVES [TEXT...]: well-formed SVG with at least CURVES plotted groups, each holding
# a path; every TEXT within its texts; no text a bare power of two from 1024 on (a raw byte count
# or microseconds where a unit belongs)
svg_ok() {
    python3 - "$@" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
path, want, texts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
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
labels = ["".join(t.itertext()).strip() for t in root.iter(ns + "text")]
alltext = "\n".join(labels)
missing = [t for t in texts if t not in alltext]
if missing:
    sys.exit("%s: no text %s among: %s" % (path, ", ".join(repr(t) for t in missing),
                                           " | ".join(labels)))
raw = [l for l in labels if re.fullmatch(r"\d+", l) and int(l) >= 1024 and
       int(l) & (int(l) - 1) == 0]
if raw:
    sys.exit("%s: raw power-of-two labels %s" % (path, ", ".join(raw)))
print("ok %s: %d curves" % (path, len(drawn)))
PY
}

# png_ok FILE WIDTH HEIGHT: a PNG of that size that is not blank: at least 8 distinct colours and
# at least 1.5 % of its pixels off the background (the colour of the top-left pixel)
png_ok() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("%s: not a PNG" % path)
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
if (w, h) != (want_w, want_h):
    sys.exit("%s: %dx%d pixels, expected %dx%d" % (path, w, h, want_w, want_h))
channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
if depth != 8 or channels is None or interlace:
    sys.exit("%s: colour type %d, depth %d, interlace %d: not read here" % (path, ctype, depth,
                                                                          interlace))
raw, bpp, stride = zlib.decompress(idat), channels, w * channels
prev, rows = bytes(stride), []
for y in range(h):  # undo the scanline filters (PNG specification, section 9)
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 1:  # Sub
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:  # Up
        line = bytearray((x + b) & 255 for x, b in zip(line, prev))
    elif f == 3:  # Average
        for i in range(stride):
            line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
    elif f == 4:  # Paeth: the nearest of a, b, c to a + b - c
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
pixels = [r[i:i + bpp] for r in rows for i in range(0, stride, bpp)]
background = pixels[0]
off = sum(1 for p in pixels if p != background)
colours = len(set(pixels))
if colours < 8 or off < 0.015 * len(pixels):
    sys.exit("%s: blank: %d colours, %.1f %% of the pixels off the background" %
             (path, colours, 100.0 * off / len(pixels)))
print("ok %s: %dx%d, %d colours, %.1f %% drawn" % (path, w, h, colours, 100.0 * off / len(pixels)))
PY
}

# render KIND INPUT OUT CURVES [TEXT...]: OUT.svg, checked by svg_ok
render() {
    local kind=$1 in=$2 out=$3 curves=$4
    shift 4
    if ! timeout 120 "$plot" "$kind" "$in" "$out.svg" 2>"$dir/err"; then
        echo "FAIL plot.sh $kind $in $out.svg:"
        cat "$dir/err"
        fails=$((fails + 1))
        return
    fi
    svg_ok "$out.svg" "$curves" "$@" || fails=$((fails + 1))
}

# picture KIND INPUT OUT: OUT.png, checked by png_ok (gnuplot's size: 900 x 560)
picture() {
    if ! timeout 120 "$plot" "$1" "$2" "$3.png" 2>"$dir/err"; then
        echo "FAIL plot.sh $1 $2 $3.png:"
        cat "$dir/err"
        fails=$((fails + 1))
        return
    fi
    png_ok "$3.png" 900 560 || fails=$((fails + 1))
}

# a real `stepnet bench --csv` (8 B to 512 KiB) and its JSON: the title and subtitle from its
# run columns, sizes in B/KiB, times in ms (its range: 0.08 ms to 50 ms)
said=("Latency of bcast on hypercube:3" "algorithm bcast-binomial, multi-port, full duplex, security sodium"
    "8 local processes, 5 iterations after 2 warm-up per size; stepnet 0.1.0, 2026-11-27 16:05 UTC")
render latency "$fx/sweep.csv" "$dir/latency" 4 "${said[@]}" "8 B" "512 B" "32 KiB" "512 KiB" "1 ms" "10 ms"
render latency "$fx/sweep.jsonl" "$dir/latency-json" 4 "${said[@]}" "512 KiB" "10 ms"
said[0]="Payload bandwidth of bcast on hypercube:3"
render bandwidth "$fx/sweep.csv" "$dir/bandwidth" 2 "${said[@]}" "MB/s" "2 KiB" "all nodes" "per node"
render bandwidth "$fx/sweep.jsonl" "$dir/bandwidth-json" 2 "${said[@]}" "MB/s" "512 KiB"
# the JSON of `stepnet run`: one size, its own tick, the band as an error bar
render latency "$fx/run.json" "$dir/run" 4 "Latency of bcast on ring:4" "100 B" "300 us" \
    "4 local processes, 3 iterations after 1 warm-up; stepnet 0.1.0, 2026-11-27 16:14 UTC"
# a CSV from before the bandwidth and run columns (six sizes up to 256 KiB, 0.1 ms to 10 ms): the
# title from its one topology
render latency "$fx/bench.csv" "$dir/latency-old" 4 "Latency on hypercube:3" "9 iterations per size" \
    "16 B" "256 KiB" "0.1 ms" "1 ms"
# the unit of the times by their range: us below 1 ms, s from 1 s on
scaled() { # scaled FACTOR OUT: bench.csv with its times multiplied by FACTOR
    python3 - "$fx/bench.csv" "$2" "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, list(rows[0].keys()))
    w.writeheader()
    for r in rows:
        w.writerow({k: float(v) * float(sys.argv[3]) if k.endswith("_us") else v
                    for k, v in r.items()})
PY
}
scaled 0.01 "$dir/fast.csv"
render latency "$dir/fast.csv" "$dir/latency-us" 4 "1 us" "2 us" "5 us" "10 us"
scaled 1000 "$dir/slow.csv"
render latency "$dir/slow.csv" "$dir/latency-s" 4 "0.1 s" "0.5 s" "1 s" "10 s"
render table "$fx/table.csv" "$dir/table" 2 "Measured versus predicted steps" "54 cases" "predicted steps (slots)"
render util "$fx/trace-sim.json" "$dir/util-sim" 1 "Link utilisation of te on torus:3x3" "108 of 108"
render util "$fx/trace-run.json" "$dir/util-run" 1 "Link utilisation of te on ring:6" "54 of 60"
render dyn "$fx/dynbcast.csv" "$dir/dyn" 3 "Dynamic broadcasting: delay versus load" "rho* = 0.185" # mean, bound (11), p99
# every kind as a picture
picture latency "$fx/sweep.csv" "$dir/latency"
picture bandwidth "$fx/sweep.jsonl" "$dir/bandwidth"
picture table "$fx/table.csv" "$dir/table"
picture util "$fx/trace-run.json" "$dir/util"
picture dyn "$fx/dynbcast.csv" "$dir/dyn"

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
render latency "$dir/reordered.csv" "$dir/reordered" 3 # no p50 column: band, average, predicted
# two topologies in one sweep: one series each (band, average, p50, predicted)
python3 - "$fx/sweep.csv" "$dir/two.csv" <<'PY'
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
render latency "$dir/two.csv" "$dir/two" 8 "Latency of bcast" "ring:8: average" "hypercube:3: average"
picture latency "$dir/two.csv" "$dir/two" # the legend under the plot
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
render table "$dir/table-tcp.csv" "$dir/table-tcp" 4 "stepnet table --csv --run" "1 differ"

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
expect_fail 2 "bad OUTPUT '$dir/x.pdf'" latency "$fx/sweep.csv" "$dir/x.pdf"
expect_fail 1 "no column bw_node_mb_s, bw_total_mb_s" bandwidth "$fx/bench.csv" "$dir/x.svg"
expect_fail 1 "not a record of stepnet run or bench" latency "$fx/trace-run.json" "$dir/x.svg"

if [ "$fails" -ne 0 ]; then
    echo "plot: $fails failures"
    exit 1
fi
echo "plot: all checks passed"
