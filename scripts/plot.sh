#!/usr/bin/env bash
# Turns stepnet's CSV and JSON outputs into plots (gnuplot draws SVG; python3 reads the inputs;
# rsvg-convert makes a PNG of it when OUTPUT ends in .png).
#
# usage: scripts/plot.sh KIND INPUT OUTPUT.svg|OUTPUT.png
#   latency    INPUT: the CSV of `stepnet bench --csv` or `run --csv`, or their JSON (--json,
#              --out: one record per line); the columns size, avg_us, min_us, max_us,
#              predicted_us are found by header name: wall time versus message size, the min-max
#              band, the average, p50 if present, and the prediction; one series per value of
#              collective, topology, algorithm, ports, rx, duplex or security when they vary
#   bandwidth  INPUT: as latency, with the columns bw_node_mb_s and bw_total_mb_s (and
#              bw_bus_mb_s, drawn when present: the bus bandwidth of nccl-tests): the payload
#              bandwidth in MB/s per node and in all versus message size
#   table      INPUT: the CSV of `stepnet table --csv` (predicted, simulated, agree, and tcp when
#              written with --run): measured versus predicted steps, one point per row, y = x
#   util       INPUT: a --trace file of `stepnet sim` or `stepnet run` (docs/trace.md): link
#              utilisation per slot as a heat map (directed link versus slot; the colour is the
#              number of packets the link carried in the slot: 0 or 1; one box per busy cell)
#   dyn        INPUT: the CSV of `stepnet sim --coll dynbcast --sweep-rho A:B:S` (columns rho,
#              delay_mean, delay_bound, delay_p99, rho_star by name): mean delay versus load, the
#              99th percentile, the paper's bound ((11) on meshes and tori, (6) on folded cubes)
#              and the stability limit rho* ((14), or (5) on folded cubes)
# Every plot is 900 x 560 pixels, its title and a subtitle saying what was run (from the CSV's
# columns or the JSON's fields; docs/output.md, "Plots"), its legend outside the data.
# Exit status: 0 the plot was written, 1 the input holds nothing to plot or gnuplot failed, 2 bad
# usage (and a missing gnuplot, python3 or rsvg-convert: scripts/setup.sh installs them).
set -euo pipefail

usage() {
    sed -n '5,23p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
[ $# -eq 3 ] || usage
kind=$1 in=$2 out=$3
case $kind in latency | bandwidth | table | util | dyn) ;; *)
    echo "plot.sh: bad KIND '$kind': expected latency, bandwidth, table, util or dyn" >&2
    usage
    ;;
esac
case $out in *.svg | *.png) ;; *)
    echo "plot.sh: bad OUTPUT '$out': expected a file name ending in .svg or .png" >&2
    exit 2
    ;;
esac
[ -r "$in" ] || { echo "plot.sh: cannot read INPUT '$in'" >&2; exit 2; }
tools=(gnuplot python3)
case $out in *.png) tools+=(rsvg-convert) ;; esac
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || { echo "plot.sh: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gnuplot runs in $tmp: OUTPUT made absolute
case $out in /*) ;; *) out="$PWD/$out" ;; esac
svg=$out
case $out in *.png) svg="$tmp/plot.svg" ;; esac

# ---- extraction: INPUT into whitespace-separated data files and gnuplot settings in $tmp ----
python3 - "$kind" "$in" "$tmp" <<'PY'
import csv, json, math, sys

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


# The JSON fields of run and bench records under the CSV's column names (docs/output.md).
JSON_AS_CSV = {"wall_us_avg": "avg_us", "wall_us_min": "min_us", "wall_us_max": "max_us",
               "wall_us_p50": "p50_us", "wall_us_p99": "p99_us"}


def launch_text(rec):
    """The CSV's launch column from a JSON record: as the text report's nodes line says it."""
    n, mode = rec.get("nodes"), rec.get("nodes_mode")
    if n is None or mode is None:
        return None
    hosts = len({h for h in rec.get("hosts") or [] if h})
    on = " on %d host%s" % (hosts, "" if hosts == 1 else "s") if hosts else ""
    return {"ssh": "%d processes%s over ssh", "join": "%d joined processes%s",
            "daemons": "%d daemon processes%s"}.get(mode, "%d local processes") % (
                (n, on) if mode in ("ssh", "join", "daemons") else (n,))


def records(need):
    """The rows of a run or bench CSV, or of their JSON (one object, or one per line), as dicts
    of text keyed by the CSV's column names."""
    with open(path) as f:
        text = f.read()
    if not text.lstrip().startswith("{"):
        return rows(need)
    try:
        recs = [json.loads(text)]
    except ValueError:
        try:
            recs = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as e:
            die("neither CSV nor JSON records of run or bench (%s)" % e)
    out = []
    for rec in recs:
        if not isinstance(rec, dict) or rec.get("cmd") not in ("run", "bench"):
            die("not a record of stepnet run or bench")
        row = {JSON_AS_CSV.get(k, k): ("" if v is None else v) for k, v in rec.items()
               if not isinstance(v, (list, dict))}
        if rec.get("cmd") == "run":  # run's statistics of its one size
            row["iterations"] = rec.get("iterations", "")
        row["launch"] = launch_text(rec) or ""
        out.append({k: str(v) for k, v in row.items()})
    cols = list(out[0].keys())
    missing = [c for c in need if c not in cols]
    if missing:
        die("no field %s in the records (the JSON of run or bench names them %s)" %
            (", ".join(missing), ", ".join({v: k for k, v in JSON_AS_CSV.items()}.get(c, c)
                                           for c in missing)))
    return out, cols


def write(name, lines):
    with open("%s/%s" % (tmp, name), "w") as f:
        for line in lines:
            f.write(" ".join("?" if v is None else repr(v) if isinstance(v, float) else str(v)
                             for v in line) + "\n")


def gp_str(s):
    """A gnuplot double-quoted string (its \\n is a line break)."""
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def clean(x):
    """x without the float noise of a product (0.30000000000000004 is 0.3)."""
    return float("%.12g" % x)


def ticks_125(lo, hi):
    """The ticks of a log axis over [lo, hi]: 1-2-5 steps (a denser 1-1.5-2-3-5-7 where they
    would leave fewer than three, only the powers of 10 labelled where more than 13), and the
    range from the tick below lo to the tick above hi. Returns (range, [(value, major)])."""
    if hi <= lo:
        lo, hi = lo / 1.5, hi * 1.5
    k0, k1 = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    for mants in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        vals = sorted(clean(m * 10.0 ** k) for k in range(k0, k1 + 1) for m in mants)
        bottom = max(v for v in vals if v <= lo * (1 + 1e-9))
        top = min(v for v in vals if v >= hi * (1 - 1e-9))
        ticks = [v for v in vals if bottom <= v <= top]
        if len(ticks) >= 3:
            break
    if len(ticks) > 13:
        return (bottom, top), [(v, clean(math.log10(v)) == round(math.log10(v))) for v in ticks]
    return (bottom, top), [(v, True) for v in ticks]


def fmt_num(x):
    return "%g" % clean(x)


def time_unit(top_us):
    """The unit of a time axis: the largest of us, ms, s that its top tick reaches."""
    for name, us in (("s", 1e6), ("ms", 1e3)):
        if top_us >= us:
            return name, us
    return "us", 1.0


def size_text(b):
    """A size in bytes in B, KiB, MiB or GiB: 8 B, 512 B, 1 KiB, 64 KiB, 1 MiB, 1.5 MiB."""
    for name, unit in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= unit:
            return "%s %s" % (fmt_num(b / unit), name)
    return "%s B" % fmt_num(b)


def tics(axis, ticks, label):
    """gnuplot's set {axis}tics (...) of [(value, major)]: majors labelled, minors not."""
    return "set %stics (%s)" % (axis, ", ".join(
        ('%s %r 0' % (gp_str(label(v)), v)) if major else ('"" %r 1' % v) for v, major in ticks))


def size_axis(sizes):
    """xrange and the x ticks of message sizes: the powers of 2, one in 1, 2, 5 or 10 labelled
    (at most ten labels): from the smallest to the largest when the step spans them, else the
    multiples of the step (so that 1 KiB and 1 MiB are among them)."""
    lo, hi = min(sizes) / 1.3, max(sizes) * 1.3
    if lo * 1.3 == hi / 1.3:  # one size (a run): its own tick
        return ["set xrange [%r:%r]" % (lo, hi), "set logscale x 2",
                tics("x", [(float(min(sizes)), True)], size_text)]
    exps = [e for e in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)
            if lo <= 2 ** e <= hi]
    if not exps:  # sizes closer than a power of 2: the one nearest
        exps = [round(math.log2(min(sizes)))]
        lo, hi = min(lo, 2 ** exps[0] / 1.3), max(hi, 2 ** exps[0] * 1.3)
    step = next(s for s in (1, 2, 5, 10, 20) if (len(exps) - 1) / s <= 9)
    base = exps[0] if (exps[-1] - exps[0]) % step == 0 else 0
    ticks = [(float(2 ** e), (e - base) % step == 0) for e in exps]
    return ["set xrange [%r:%r]" % (lo, hi), "set logscale x 2", tics("x", ticks, size_text)]


def log_axis(axis, values, label):
    (bottom, top), ticks = ticks_125(min(values), max(values))
    # the range a little wider than the end ticks: no point on the frame, no end tick dropped
    return ["set %srange [%r:%r]" % (axis, bottom / 1.1, top * 1.1),
            "set logscale %s 10" % axis,
            tics(axis, ticks, label)], top


def int_step(n):
    """The step of a linear axis of whole numbers (slots, links): 1, 2, 5, 10, 20, ... so that it
    has at most 15 ticks."""
    step = 1
    while n / step > 15:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


def when_text(ts):
    """2026-11-23T20:06:13Z as 2026-11-23 20:06 UTC."""
    return "%s %s UTC" % (ts[:10], ts[11:16]) if len(ts) >= 16 and ts[10] == "T" else ts


SERIES_KEYS = ("collective", "topology", "algorithm", "ports", "rx", "duplex", "security")


def what_was_run(data, cols, what):
    """The title and the subtitle of a latency or bandwidth plot: every column that holds one
    value in the file says what was run; those that vary name the series instead."""
    one = {k: data[0][k] for k in cols if k in data[0] and data[0][k] != "" and
           len({d.get(k) for d in data}) == 1}
    title = what
    if "collective" in one:
        title += " of %s" % one["collective"]
    if "topology" in one:
        title += " on %s" % one["topology"]
    line1 = []
    if "algorithm" in one:
        line1.append("algorithm %s" % one["algorithm"])
    if "ports" in one:
        ports = "%s-port" % one["ports"]
        if one["ports"] == "single" and "rx" in one:
            ports += " (rx %s)" % one["rx"]
        line1.append(ports)
    if "duplex" in one:
        line1.append("%s duplex" % one["duplex"])
    if "security" in one:
        line1.append("security %s" % one["security"])
    line2 = []
    if "launch" in one:
        line2.append(one["launch"])
    reps = one.get("iterations")
    if reps:
        reps = "%s iterations" % reps
        if "warmup" in one:
            reps += " after %s warm-up" % one["warmup"]
        line2.append(reps + (" per size" if len({d.get("size") for d in data}) > 1 else ""))
    stamp = []
    if "stepnet_version" in one:
        stamp.append("stepnet %s" % one["stepnet_version"])
    times = sorted(d["timestamp"] for d in data if d.get("timestamp"))
    if times:
        stamp.append(when_text(times[0]))
    sub = [", ".join(line1)] if line1 else []
    if line2 or stamp:
        sub.append("; ".join(x for x in (", ".join(line2), ", ".join(stamp)) if x))
    if not sub:
        sub = ["(the input does not say how it was run)"]
    return title, "\n".join(sub)


settings = []  # gnuplot commands, loaded before the kind's own
colours = ["#08519c", "#238b45", "#cb181d", "#6a51a3", "#d94801", "#525252"]
bands = ["#c6dbef", "#c7e9c0", "#fcbba1", "#dadaeb", "#fdd0a2", "#d9d9d9"]
if kind in ("latency", "bandwidth"):
    lat = kind == "latency"
    need = ["size", "avg_us", "min_us", "max_us", "predicted_us"] if lat else \
        ["size", "bw_node_mb_s", "bw_total_mb_s"]
    data, cols = records(need)
    keys = [k for k in SERIES_KEYS if k in cols and len({d[k] for d in data}) > 1]
    series = {}
    for d in data:
        if lat:
            p = (num(d["size"]), num(d["avg_us"]), num(d["min_us"]), num(d["max_us"]),
                 num(d["predicted_us"]), num(d.get("p50_us")))
        else:
            p = (num(d["size"]), num(d["bw_node_mb_s"]), num(d["bw_total_mb_s"]),
                 num(d.get("bw_bus_mb_s")))
        if p[0] is not None and p[0] > 0 and p[1] is not None and p[1] > 0:
            series.setdefault(" ".join(d[k] for k in keys), []).append(p)
    if not series:
        die("no row with a size and %s" % ("an average" if lat else "a bandwidth"))
    pts_all = [p for pts in series.values() for p in pts]
    plots = []
    for i, (name, pts) in enumerate(series.items()):
        write("s%d.dat" % i, sorted(pts))
        c, b = colours[i % len(colours)], bands[i % len(bands)]
        tag = (name + ": ") if name else ""
        f = "'s%d.dat'" % i
        one = len(pts) == 1  # a run: no band nor line through one point
        if lat:
            band = "1:2:3:4 with yerrorbars pt -1 lw 2" if one else \
                "1:3:4 with filledcurves fs transparent solid 0.5"
            plots.append("%s using %s lc rgb '%s' title '%smin-max'" % (f, band, b, tag))
            plots.append("%s using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '%s' "
                         "title '%saverage'" % (f, c, tag))
            if any(p[5] is not None for p in pts):
                plots.append("%s using 1:6 with points pt 6 lc rgb '%s' title '%sp50'" %
                             (f, c, tag))
            if any(p[4] is not None for p in pts):
                plots.append("%s using 1:5 with %s lw 2 dt 2 lc rgb '%s' title '%spredicted'"
                             % (f, "points pt 2 ps 1.5" if one else "lines", c, tag))
        else:
            plots.append("%s using 1:3 with linespoints lw 2 pt 7 ps 0.8 lc rgb '%s' "
                         "title '%sall nodes'" % (f, c, tag))
            plots.append("%s using 1:2 with linespoints lw 2 dt 2 pt 6 lc rgb '%s' "
                         "title '%sper node'" % (f, c, tag))
            if any(p[3] is not None for p in pts):  # records before it have no bus bandwidth
                plots.append("%s using 1:4 with linespoints lw 2 dt 3 pt 4 lc rgb '%s' "
                             "title '%sbus bandwidth'" % (f, c, tag))
    settings.append("p = \"plot %s\"" % ", ".join(plots).replace('"', "'"))
    if len(series) > 1:  # long names: the legend under the plot, two columns, the width to the data
        settings += ["set key outside below center horizontal maxcols 2 height 1.5", "unset bmargin"]
    settings += size_axis([p[0] for p in pts_all])
    if lat:
        ys = [v for p in pts_all for v in (p[1], p[2], p[3], p[4], p[5]) if v is not None and v > 0]
        (bottom, top), _ = ticks_125(min(ys), max(ys))
        unit, per = time_unit(top)
        axis, _ = log_axis("y", ys, lambda v: "%s %s" % (fmt_num(v / per), unit))
        settings += axis
        what, ylabel = "Latency", "wall time of a repetition"
    else:
        ys = [v for p in pts_all for v in (p[1], p[2], p[3]) if v is not None and v > 0]
        axis, _ = log_axis("y", ys, fmt_num)
        settings += axis
        what, ylabel = "Payload bandwidth", "payload bandwidth (MB/s, 10^6 bytes per second)"
    title, sub = what_was_run(data, cols, what)
    settings += ["ttl = %s" % gp_str(title), "sub = %s" % gp_str(sub),
                 "set ylabel %s" % gp_str(ylabel)]
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
    (bottom, top), ticks = ticks_125(min(allv), max(allv))
    settings += ["has_differ = %d" % bool(differ), "has_tcp = %d" % bool(tcp),
                 "set xrange [%r:%r]" % (bottom / 1.1, top * 1.1),
                 "set yrange [%r:%r]" % (bottom / 1.1, top * 1.1),
                 tics("x", ticks, fmt_num), tics("y", ticks, fmt_num),
                 "ttl = %s" % gp_str("Measured versus predicted steps"),
                 "sub = %s" % gp_str("%d cases of the reproduction table (stepnet table --csv"
                                     "%s): %d differ" % (len(agree) + len(differ),
                                                         " --run" if tcp else "", len(differ)))]
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
    title = "Link utilisation of %s on %s" % (other.get("collective", "?"),
                                             other.get("topology", "?"))
    sub = "algorithm %s, %s-port, stepnet %s; %d of %d link-slots busy" % (
        other.get("algorithm", "?"), other.get("ports", "?"), other.get("cmd", "?"), busy,
        nslots * len(links))
    settings += ["nslots = %d" % nslots, "nlinks = %d" % len(links),
                 "set xtics %d" % int_step(nslots), "set ytics %d" % int_step(len(links)),
                 "ttl = %s" % gp_str(title), "sub = %s" % gp_str(sub)]
elif kind == "dyn":
    data, cols = rows(["rho", "delay_mean", "delay_bound"])
    pts = sorted((num(d["rho"]), num(d["delay_mean"]), num(d["delay_bound"]),
                  num(d.get("delay_p99"))) for d in data if num(d["rho"]) is not None)
    if not any(p[1] is not None for p in pts):
        die("no row with a mean delay")
    write("dyn.dat", pts)
    star = [num(d.get("rho_star")) for d in data if num(d.get("rho_star")) is not None]
    reqs = [num(d.get("requests")) for d in data if num(d.get("requests")) is not None]
    sub = "stepnet sim --coll dynbcast --sweep-rho: %d loads" % len(pts)
    if reqs:
        sub += ", %d to %d requests each" % (min(reqs), max(reqs))
    if star:
        sub += "; stable below rho* = %.3g" % star[0]
    settings += ["rho_star = %r" % (star[0] if star else -1.0),
                 "has_p99 = %d" % any(p[3] is not None for p in pts),
                 "ttl = %s" % gp_str("Dynamic broadcasting: delay versus load"),
                 "sub = %s" % gp_str(sub)]
with open(tmp + "/settings.gp", "w") as f:
    f.write("\n".join(settings) + "\n")
PY

# ---- rendering ----
{
    cat <<EOF
set terminal svg size 900,560 dynamic enhanced font "sans,12" background rgb "white"
set output "$svg"
set datafile missing "?"
set grid xtics ytics mxtics mytics lc rgb "#dddddd", lc rgb "#f0f0f0"
set key outside right top vertical Left reverse noenhanced samplen 2.5 spacing 1.1
set tmargin at screen 0.84
set bmargin at screen 0.11
cd "$tmp"
load "settings.gp"
set label 101 ttl at screen 0.5, screen 0.955 center font ",15" noenhanced
set label 102 sub at screen 0.5, screen 0.91 center font ",11" textcolor rgb "#444444" noenhanced
EOF
    case $kind in
    latency | bandwidth)
        cat <<'EOF'
set xlabel "message size (payload bytes per packet)"
EOF
        ;;
    table)
        cat <<'EOF'
set xlabel "predicted steps (slots)"
set ylabel "measured steps (slots)"
set logscale xy
set size ratio -1
p = "plot x with lines lc rgb '#999999' title 'measured = predicted', " . \
    "'agree.dat' using 1:2 with points pt 7 ps 0.8 lc rgb '#08519c' title 'simulated (agrees)'"
if (has_differ) p = p . ", 'differ.dat' using 1:2 with points pt 9 ps 1.2 lc rgb '#cb181d' title 'simulated (differs)'"
if (has_tcp) p = p . ", 'tcp.dat' using 1:2 with points pt 6 ps 1.4 lc rgb '#238b45' title 'over TCP'"
EOF
        ;;
    util)
        cat <<'EOF'
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
p = "plot 'util.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fill solid noborder lc palette"
EOF
        ;;
    dyn)
        cat <<'EOF'
set xlabel "load rho = lambda N X"
set ylabel "delay (time units)"
if (rho_star > 0) set arrow from rho_star, graph 0 to rho_star, graph 1 nohead dt 3 lc rgb "#555555"
if (rho_star > 0) set label sprintf("rho* = %.3g", rho_star) at rho_star, graph 0.95 offset 0.5,0
p = "plot 'dyn.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#08519c' title 'mean delay', " . \
    "'dyn.dat' using 1:3 with linespoints lw 2 dt 2 pt 4 lc rgb '#cb181d' title 'delay bound'"
if (has_p99) p = p . ", 'dyn.dat' using 1:4 with linespoints pt 6 lc rgb '#6baed6' title '99th percentile'"
EOF
        ;;
    esac
    echo "eval p"
} >"$tmp/plot.gp"
if ! gnuplot "$tmp/plot.gp" 2>"$tmp/err"; then
    cat "$tmp/err" >&2
    echo "plot.sh: gnuplot failed for $in" >&2
    exit 1
fi
grep -v -i "warning: .*empty\|^$" "$tmp/err" >&2 || true
if [ "$svg" != "$out" ] && ! rsvg-convert --format png --output "$out" "$svg" 2>"$tmp/err"; then
    cat "$tmp/err" >&2
    echo "plot.sh: rsvg-convert failed for $in" >&2
    exit 1
fi
echo "plot.sh: wrote $out" >&2
