#!/usr/bin/env bash
# Turns stepnet's CSV and JSON outputs into SVG plots (gnuplot; python3 reads the inputs).
#
# usage: scripts/plot.sh KIND INPUT OUTPUT.svg
#   latency  INPUT: the CSV of `stepnet bench --csv` (columns size, avg_us, min_us, max_us,
#            predicted_us, found by header name; others ignored): latency versus message size,
#            the min-max band, the average, p50 if present, and the prediction; one series per
#            value of collective, topology, algorithm, ports, rx, duplex or security when the
#            file has such a column with several values
#   table    INPUT: the CSV of `stepnet table --csv` (predicted, simulated, agree, and tcp when
#            written with --run): measured versus predicted steps, one point per row, y = x
#   util     INPUT: a --trace file of `stepnet sim` or `stepnet run` (docs/trace.md): link
#            utilisation per slot as a heat map (directed link versus slot; the colour is the
#            number of packets the link carried in the slot: 0 or 1; one box per busy cell)
#   dyn      INPUT: the CSV of `stepnet sim --coll dynbcast --sweep-rho A:B:S` (columns rho,
#            delay_mean, delay_bound, delay_p99, rho_star by name): mean delay versus load, the
#            99th percentile, the paper's bound ((11) on meshes and tori, (6) on folded cubes)
#            and the stability limit rho* ((14), or (5) on folded cubes)
# Exit status: 0 the SVG was written, 1 the input holds nothing to plot or gnuplot failed, 2 bad
# usage (and a missing gnuplot or python3: scripts/setup.sh installs both).
set -euo pipefail

usage() {
    sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
[ $# -eq 3 ] || usage
kind=$1 in=$2 out=$3
case $kind in latency | table | util | dyn) ;; *)
    echo "plot.sh: bad KIND '$kind': expected latency, table, util or dyn" >&2
    usage
    ;;
esac
[ -r "$in" ] || { echo "plot.sh: cannot read INPUT '$in'" >&2; exit 2; }
for tool in gnuplot python3; do
    command -v $tool >/dev/null || { echo "plot.sh: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gnuplot runs in $tmp: OUTPUT made absolute
case $out in /*) ;; *) out="$PWD/$out" ;; esac

# ---- extraction: INPUT into whitespace-separated data files and gnuplot settings in $tmp ----
python3 - "$kind" "$in" "$tmp" <<'PY'
import csv, json, sys

kind, path, tmp = sys.argv[1:4]


def die(msg):
    print("plot.sh: %s: %s" % (path, msg), file=sys.stderr)
    sys.exit(1)


def num(v):
    """A number, or None for an empty, null or non-numeric cell."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x == x else None


def rows(need):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        if r.fieldnames is None:
            die("empty CSV")
        missing = [c for c in need if c not in r.fieldnames]
        if missing:
            die("no column %s in the header (%s)" % (", ".join(missing), ",".join(r.fieldnames)))
        good = [row for row in r if None not in row and None not in row.values()]
        if r.line_num - 1 > len(good):
            print("plot.sh: %s: %d rows without as many fields as the header skipped" %
                  (path, r.line_num - 1 - len(good)), file=sys.stderr)
        return good, r.fieldnames


def write(name, lines):
    with open("%s/%s" % (tmp, name), "w") as f:
        for line in lines:
            f.write(" ".join("?" if v is None else repr(v) if isinstance(v, float) else str(v)
                             for v in line) + "\n")


settings = []
if kind == "latency":
    data, cols = rows(["size", "avg_us", "min_us", "max_us", "predicted_us"])
    # one series per run configuration: the columns among these that take several values
    keys = [k for k in ("collective", "topology", "algorithm", "ports", "rx", "duplex", "security")
            if k in cols and len({d[k] for d in data}) > 1]
    series = {}
    for d in data:
        p = (num(d["size"]), num(d["avg_us"]), num(d["min_us"]), num(d["max_us"]),
             num(d["predicted_us"]), num(d.get("p50_us")))
        if p[0] is not None and p[0] > 0 and p[1] is not None:
            series.setdefault(" ".join(d[k] for k in keys), []).append(p)
    if not series:
        die("no row with a size and an average")
    colours = ["#08519c", "#238b45", "#cb181d", "#6a51a3", "#d94801", "#525252"]
    bands = ["#c6dbef", "#c7e9c0", "#fcbba1", "#dadaeb", "#fdd0a2", "#d9d9d9"]
    plots = []
    for i, (name, pts) in enumerate(series.items()):
        write("lat%d.dat" % i, sorted(pts))
        c, b = colours[i % len(colours)], bands[i % len(bands)]
        tag = (name + ": ") if name else ""
        f = "'lat%d.dat'" % i
        plots.append("%s using 1:3:4 with filledcurves fs transparent solid 0.5 lc rgb '%s' "
                     "title '%smin-max'" % (f, b, tag))
        plots.append("%s using 1:2 with linespoints lw 2 pt 7 lc rgb '%s' title '%saverage'" %
                     (f, c, tag))
        if any(p[5] is not None for p in pts):
            plots.append("%s using 1:6 with points pt 6 lc rgb '%s' title '%sp50'" % (f, c, tag))
        if any(p[4] is not None for p in pts):
            plots.append("%s using 1:5 with lines lw 2 dt 2 lc rgb '%s' title '%spredicted'" %
                         (f, c, tag))
    settings.append("p = \"plot %s\"" % ", ".join(plots).replace('"', "'"))
elif kind == "table":
    data, cols = rows(["predicted", "simulated"])
    agree, differ, tcp = [], [], []
    for d in data:
        p, s = num(d["predicted"]), num(d["simulated"])
        if p is None or s is None or p <= 0 or s <= 0:
            continue
        (agree if d.get("agree", "=") == "=" else differ).append((p, s))
        t = num(d.get("tcp"))
        if t is not None and t > 0:
            tcp.append((p, t))
    if not agree and not differ:
        die("no row with a prediction and a simulated count")
    write("agree.dat", agree or [(None, None)])
    write("differ.dat", differ or [(None, None)])
    write("tcp.dat", tcp or [(None, None)])
    allv = [v for pt in agree + differ + tcp for v in pt]
    settings += ["has_differ = %d" % bool(differ), "has_tcp = %d" % bool(tcp),
                 "vmin = %r" % (min(allv) / 1.5), "vmax = %r" % (max(allv) * 1.5),
                 "nrows = %d" % (len(agree) + len(differ)), "ndiffer = %d" % len(differ)]
elif kind == "util":
    try:
        with open(path) as f:
            d = json.load(f)
        events = d["traceEvents"]
    except (ValueError, KeyError, TypeError) as e:
        die("not a trace-event file (%s)" % e)
    sends = [e for e in events if e.get("name") == "send" and e.get("ph") == "X"]
    if not sends:
        die("no send events")
    links = sorted({e["args"]["link"] for e in sends})
    row = {l: i for i, l in enumerate(links)}
    nslots = max(e["args"]["slot"] for e in sends)
    grid = [[0] * nslots for _ in links]
    for e in sends:
        grid[row[e["args"]["link"]]][e["args"]["slot"] - 1] += 1
    with open(tmp + "/util.dat", "w") as f:  # the busy cells only, one box each
        for i, l in enumerate(links):
            for s in range(nslots):
                if grid[i][s]:
                    f.write("%d %d %d\n" % (s + 1, i, grid[i][s]))
    busy = sum(1 for r in grid for v in r if v)
    other = d.get("otherData", {})
    title = "%s on %s (%s, %s)" % (other.get("collective", "?"), other.get("topology", "?"),
                                   other.get("algorithm", "?"), other.get("cmd", "?"))
    settings += ["nslots = %d" % nslots, "nlinks = %d" % len(links),
                 "ttl = \"%s: %d of %d link-slots busy\"" % (title.replace('"', "'"), busy,
                                                             nslots * len(links))]
elif kind == "dyn":
    data, cols = rows(["rho", "delay_mean", "delay_bound"])
    pts = sorted((num(d["rho"]), num(d["delay_mean"]), num(d["delay_bound"]),
                  num(d.get("delay_p99"))) for d in data if num(d["rho"]) is not None)
    if not any(p[1] is not None for p in pts):
        die("no row with a mean delay")
    write("dyn.dat", pts)
    star = [num(d.get("rho_star")) for d in data if num(d.get("rho_star")) is not None]
    settings += ["rho_star = %r" % (star[0] if star else -1.0),
                 "has_p99 = %d" % any(p[3] is not None for p in pts)]
with open(tmp + "/settings.gp", "w") as f:
    f.write("\n".join(settings) + "\n")
PY

# ---- rendering ----
{
    cat <<EOF
set terminal svg size 800,500 dynamic enhanced font "sans,12" background rgb "white"
set output "$out"
set datafile missing "?"
set grid lc rgb "#dddddd"
set key top left box opaque
cd "$tmp"
load "settings.gp"
EOF
    case $kind in
    latency)
        cat <<'EOF'
set title "Latency versus message size"
set xlabel "message size (bytes)"
set ylabel "latency (microseconds)"
set logscale xy 2
set format x "%.0b%BB"
set key noenhanced
eval p
EOF
        ;;
    table)
        cat <<'EOF'
set title sprintf("Measured versus predicted steps (%d rows, %d differ)", nrows, ndiffer)
set xlabel "predicted steps"
set ylabel "measured steps"
set logscale xy
set key bottom right
set xrange [vmin:vmax]
set yrange [vmin:vmax]
set size ratio -1
p = "plot x with lines lc rgb '#999999' title 'measured = predicted', " . \
    "'agree.dat' using 1:2 with points pt 7 ps 0.8 lc rgb '#08519c' title 'simulated (agrees)'"
if (has_differ) p = p . ", 'differ.dat' using 1:2 with points pt 9 ps 1.2 lc rgb '#cb181d' title 'simulated (differs)'"
if (has_tcp) p = p . ", 'tcp.dat' using 1:2 with points pt 6 ps 1.4 lc rgb '#238b45' title 'over TCP'"
eval p
EOF
        ;;
    util)
        cat <<'EOF'
set title ttl noenhanced
set xlabel "slot"
set ylabel "directed link (rows in link-id order)"
set xrange [0.5:nslots + 0.5]
set yrange [-0.5:nlinks - 0.5]
set cbrange [0:1]
set cbtics 0, 1, 1
set cblabel "packets on the link in the slot"
set palette defined (0 "#f7fbff", 1 "#08519c")
unset key
unset grid
plot "util.dat" using 1:2:(0.5):(0.5):3 with boxxyerror fill solid noborder lc palette
EOF
        ;;
    dyn)
        cat <<'EOF'
set title "Dynamic broadcasting: delay versus load"
set xlabel "load rho = lambda N X"
set ylabel "delay (time units)"
if (rho_star > 0) set arrow from rho_star, graph 0 to rho_star, graph 1 nohead dt 3 lc rgb "#555555"
if (rho_star > 0) set label sprintf("rho* = %.3g", rho_star) at rho_star, graph 0.95 offset 0.5,0
p = "plot 'dyn.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#08519c' title 'mean delay', " . \
    "'dyn.dat' using 1:3 with linespoints lw 2 dt 2 pt 4 lc rgb '#cb181d' title 'delay bound'"
if (has_p99) p = p . ", 'dyn.dat' using 1:4 with linespoints pt 6 lc rgb '#6baed6' title '99th percentile'"
eval p
EOF
        ;;
    esac
} >"$tmp/plot.gp"
if ! gnuplot "$tmp/plot.gp" 2>"$tmp/err"; then
    cat "$tmp/err" >&2
    echo "plot.sh: gnuplot failed for $in" >&2
    exit 1
fi
grep -v -i "warning: .*empty\|^$" "$tmp/err" >&2 || true
echo "plot.sh: wrote $out" >&2
