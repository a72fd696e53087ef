#!/usr/bin/env bash
# Large messages against the network's capacity: `stepnet sim --json --algo auto` on the survey's
# families (hypercube:3..6, torus:4x4, 6x6, 8x8, mesh:4x4, 6x6, ring:8, 16, complete:8, 16,
# fattree:2:4, fattree:4:2, foldedcube:4..6, ccc:3, 4, butterfly:3, 4 and two random graphs of
# scripts/random_graph.py, 16 nodes seed 1 and 32 nodes seed 2) with --msgs 1, 4, 16 and 64,
# multiport and single-port (--rx one), broadcast also multiport half duplex, for bcast, sna,
# allreduce and mna; scatter, gather, mnb and te at --msgs 1 and 16 for the "never worse" check.
# Per case: the algorithm auto chose, its steps, the best lower bound (the report's lower_bound,
# the largest of its bounds, named), steps / bound, verified; refusals ("no algorithm"), timeouts
# and failures are listed, not errors. Prints Markdown: a summary row per collective and port
# model (cases, median and max ratio, how many within max(2 slots, 10 %) of the bound), then a
# table per collective. Figures in slots, not a test: the exit status is 0 unless the script
# itself cannot run (a missing binary, bad usage).
#
#   scripts/bench/bandwidth.sh [--quick] [--bin DIR] [--compare DIR2] [--out FILE] [--frags F]
#                              [--timeout S]
#     --quick         a subset (hypercube:3, torus:4x4, ring:8, complete:8, fattree:4:2, the
#                     16-node random graph; --msgs 1 and 4): under a minute
#     --bin DIR       the build folder whose stepnet is surveyed (default build/, built when
#                     missing)
#     --compare DIR2  also survey DIR2's stepnet, the build before: every case side by side,
#                     "before" (DIR2) and "after" (DIR) columns, the bound the larger of the two
#                     builds' bounds, and the cases that got worse (more steps, or verified before
#                     and not after) counted and listed
#     --out FILE      also write the report to FILE
#     --frags F       --frags of every case (default 1)
#     --timeout S     seconds per case and binary before it counts as timed out (default 60)
set -euo pipefail
here=$PWD
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/bandwidth
quick=0 bin="" cmp="" out="" frags=1 tmo=60
bench_args "--quick quick flag" "--bin bin text" "--compare cmp text" "--out out text" \
    "--frags frags int:1:64" "--timeout tmo int:1:3600" -- "$@"
abs() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s' "$here/$1" ;; esac; }
if [ -z "$bin" ]; then
    bin=$PWD/build
    [ -x build/stepnet ] || scripts/setup.sh >/dev/null
else
    bin=$(abs "$bin")
fi
[ -x "$bin/stepnet" ] || bench_die "--bin '$bin': no executable stepnet there"
if [ -n "$cmp" ]; then
    cmp=$(abs "$cmp")
    [ -x "$cmp/stepnet" ] || bench_die "--compare '$cmp': no executable stepnet there"
fi
[ -z "$out" ] || out=$(abs "$out")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The random graphs are written afresh from their seeds, so that every run surveys the same ones.
python3 scripts/random_graph.py 16 1 "$tmp/random-16-1.txt"
python3 scripts/random_graph.py 32 2 "$tmp/random-32-2.txt"
# commit DIR: the commit the build folder DIR was configured from (its CMake source folder),
# "+dirty" when that tree has uncommitted changes, "unknown" when it is not a git tree
commit() {
    local src
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
    if [ -z "$src" ] || ! git -C "$src" rev-parse --short=12 HEAD >/dev/null 2>&1; then
        echo unknown
        return
    fi
    printf '%s%s\n' "$(git -C "$src" rev-parse --short=12 HEAD)" \
        "$(git -C "$src" diff --quiet HEAD -- 2>/dev/null || echo +dirty)"
}
cmd="scripts/bench/bandwidth.sh $*"
BW_COMMIT=$(commit "$bin")
BW_CMP_COMMIT=""
[ -z "$cmp" ] || BW_CMP_COMMIT=$(commit "$cmp")
BW_MACHINE="$(nproc) cores, $(uname -m)"
export BW_QUICK=$quick BW_BIN=$bin BW_CMP=$cmp BW_FRAGS=$frags BW_TMO=$tmo BW_TMP=$tmp
export BW_CMD=${cmd% } BW_COMMIT BW_CMP_COMMIT BW_MACHINE
python3 - >"$tmp/report.md" <<'PY'
import json, os, statistics, subprocess, sys, time

env = os.environ


def shown(path):
    """A build folder as the report names it: relative to the repository when inside it."""
    rel = os.path.relpath(path, os.getcwd())
    return path if rel.startswith("..") else rel + "/"


quick, frags, tmo = env["BW_QUICK"] == "1", int(env["BW_FRAGS"]), int(env["BW_TMO"])
builds = [("after", env["BW_BIN"])] if not env["BW_CMP"] else \
    [("before", env["BW_CMP"]), ("after", env["BW_BIN"])]
rand = [("random:16:1", "file:%s/random-16-1.txt" % env["BW_TMP"]),
        ("random:32:2", "file:%s/random-32-2.txt" % env["BW_TMP"])]
if quick:
    topos = [(t, t) for t in ("hypercube:3", "torus:4x4", "ring:8", "complete:8", "fattree:4:2")]
    topos += rand[:1]
    msgs, fair_msgs = [1, 4], [1, 4]
else:
    names = ["hypercube:%d" % d for d in range(3, 7)] + ["torus:4x4", "torus:6x6", "torus:8x8",
             "mesh:4x4", "mesh:6x6", "ring:8", "ring:16", "complete:8", "complete:16",
             "fattree:2:4", "fattree:4:2"] + ["foldedcube:%d" % d for d in range(4, 7)] + \
            ["ccc:3", "ccc:4", "butterfly:3", "butterfly:4"]
    topos = [(t, t) for t in names] + rand
    msgs, fair_msgs = [1, 4, 16, 64], [1, 16]
# The port models: (label, options).
MULTI, SINGLE, HALF = ("multi", ["--ports", "multi"]), \
    ("single", ["--ports", "single", "--rx", "one"]), \
    ("half", ["--ports", "multi", "--duplex", "half"])
colls = [("bcast", msgs, [MULTI, SINGLE, HALF]), ("sna", msgs, [MULTI, SINGLE]),
         ("allreduce", msgs, [MULTI, SINGLE]), ("mna", msgs, [MULTI, SINGLE])]
colls += [(c, fair_msgs, [MULTI, SINGLE]) for c in ("scatter", "gather", "mnb", "te")]


def run(stepnet, spec, coll, m, popts):
    """One case with one binary: a dict with status ok, unverified, refused, timeout or failed."""
    argv = [stepnet + "/stepnet", "sim", "--topo", spec, "--coll", coll, "--msgs", str(m),
            "--frags", str(frags), "--algo", "auto", "--json", "--no-progress"] + popts
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=tmo)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "why": "over %d s" % tmo}
    err = " ".join(p.stderr.split())
    if p.returncode == 2 and "no algorithm for" in err:
        return {"status": "refused", "why": err.replace("stepnet: ", "", 1)}
    try:
        d = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"status": "failed", "why": "exit %d: %s" % (p.returncode, err or "no report")}
    bounds = [b for b in d.get("bounds") or [] if b.get("value") is not None]
    best = max(bounds, key=lambda b: b["value"], default=None)
    return {"status": "ok" if d.get("verified") and p.returncode == 0 else "unverified",
            "why": err, "algo": d.get("algorithm"), "steps": d.get("steps"),
            "pred": d.get("predicted_steps"), "bound": d.get("lower_bound"),
            "bound_name": best["name"] if best and best["value"] == d.get("lower_bound") else ""}


t0 = time.time()
rows = []  # (coll, topo label, port label, m, {build: result})
total = sum(len(topos) * len(ms) * len(ps) for _, ms, ps in colls)
for coll, ms, ports in colls:
    for label, spec in topos:
        for plabel, popts in ports:
            for m in ms:
                res = {b: run(path, spec, coll, m, popts) for b, path in builds}
                rows.append((coll, label, plabel, m, res))
                if len(rows) % 200 == 0:
                    print("bench/bandwidth: %d of %d cases, %.0f s" % (len(rows), total,
                          time.time() - t0), file=sys.stderr)
wall = time.time() - t0


def bound_of(res):
    """The best lower bound of a case: the larger of the builds' bounds, and its name."""
    got = [(r["bound"], r["bound_name"]) for r in res.values() if r.get("bound")]
    return max(got) if got else (None, "")


def ratio(r, bound):
    return r["steps"] / bound if r["status"] == "ok" and bound else None


def within(r, bound):
    return r["status"] == "ok" and bound and r["steps"] - bound <= max(2, 0.1 * bound)


def worse(res):
    """After more steps than before, or verified before and not after."""
    b, a = res["before"], res["after"]
    if b["status"] != "ok":
        return False
    return a["status"] != "ok" or a["steps"] > b["steps"]


def better(res):
    b, a = res["before"], res["after"]
    return a["status"] == "ok" and (b["status"] != "ok" or a["steps"] < b["steps"])


def cell(r):
    return r["steps"] if r["status"] == "ok" else describe(r).upper()


def describe(r):
    """What became of a case that did not verify."""
    return {"unverified": "not verified", "timeout": "timed out"}.get(r["status"], r["status"])


def fmt(x):
    return "-" if x is None else "%.2f" % x


o = []
pr = o.append
compare = len(builds) == 2
pr("# Large messages: steps against the lower bounds\n")
pr("Command: `%s`  " % env["BW_CMD"])
if compare:
    pr("Builds: after `%s` (commit %s), before `%s` (commit %s)  " % (
        shown(builds[1][1]), env["BW_COMMIT"], shown(builds[0][1]), env["BW_CMP_COMMIT"]))
else:
    pr("Build: `%s` (commit %s)  " % (shown(builds[0][1]), env["BW_COMMIT"]))
pr("Date: %s; %s; %d cases%s in %.0f s; --frags %d, per-case timeout %d s\n" % (
    time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), env["BW_MACHINE"], len(rows),
    " x 2 builds" if compare else "", wall, frags, tmo))
pr("Every case is `stepnet sim --algo auto --json`: steps in slots, bound = the report's "
   "lower_bound (the largest of its bounds%s), ratio = steps / bound, within = steps - bound <= "
   "max(2, 10 %% of the bound). single = `--ports single --rx one`, half = `--ports multi "
   "--duplex half`. Median and max over the verified cases.\n" % (
       "; with two builds the larger of their two" if compare else ""))

pr("## Summary\n")
if compare:
    pr("| collective | ports | cases | verified before | verified after | refused after | "
       "timed out after | median before | median after | max before | max after | "
       "within before | within after | worse | better |")
    pr("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
else:
    pr("| collective | ports | cases | verified | refused | timed out | failed | median ratio | "
       "max ratio | within | worst case |")
    pr("|---|---|---|---|---|---|---|---|---|---|---|")
for coll, _, ports in colls:
    for plabel, _ in ports:
        sel = [x for x in rows if x[0] == coll and x[2] == plabel]
        if not sel:
            continue
        stat = {}
        for b, _ in builds:
            rs = [(x[4][b], bound_of(x[4])[0], x) for x in sel]
            rat = [(ratio(r, bd), x) for r, bd, x in rs if ratio(r, bd) is not None]
            top = max(rat, key=lambda t: t[0], default=(None, None))
            stat[b] = {
                "ok": sum(r["status"] == "ok" for r, _, _ in rs),
                "refused": sum(r["status"] == "refused" for r, _, _ in rs),
                "timeout": sum(r["status"] == "timeout" for r, _, _ in rs),
                "failed": sum(r["status"] in ("failed", "unverified") for r, _, _ in rs),
                "median": statistics.median([t[0] for t in rat]) if rat else None,
                "max": top[0],
                "worst": "%s M %d" % (top[1][1], top[1][3]) if top[0] and top[0] > 1 else "-",
                "within": sum(bool(within(r, bd)) for r, bd, _ in rs)}
        if compare:
            s0, s1 = stat["before"], stat["after"]
            pr("| %s | %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %d | %d | %d | %d |" % (
                coll, plabel, len(sel), s0["ok"], s1["ok"], s1["refused"], s1["timeout"],
                fmt(s0["median"]), fmt(s1["median"]), fmt(s0["max"]), fmt(s1["max"]),
                s0["within"], s1["within"], sum(worse(x[4]) for x in sel),
                sum(better(x[4]) for x in sel)))
        else:
            s = stat["after"]
            pr("| %s | %s | %d | %d | %d | %d | %d | %s | %s | %d of %d | %s |" % (
                coll, plabel, len(sel), s["ok"], s["refused"], s["timeout"], s["failed"],
                fmt(s["median"]), fmt(s["max"]), s["within"], s["ok"], s["worst"]))
pr("")
if compare:
    bad = [x for x in rows if worse(x[4])]
    pr("Worse after than before: %d of %d cases%s\n" % (len(bad), len(rows), ":" if bad else "."))
    for x in bad:
        b, a = x[4]["before"], x[4]["after"]
        pr("- %s on `%s`, %s, M %d: %s, %s steps before; %s after" % (
            x[0], x[1], x[2], x[3], b["algo"], b["steps"], "%s, %s steps" % (
                a["algo"], a["steps"]) if a["status"] == "ok" else describe(a)))
    if bad:
        pr("")

for coll, _, _ in colls:
    sel = [x for x in rows if x[0] == coll]
    pr("## %s\n" % coll)
    if compare:
        pr("| topology | ports | M | algorithm before | steps before | algorithm after | "
           "steps after | predicted after | bound | ratio before | ratio after | change |")
        pr("|---|---|---|---|---|---|---|---|---|---|---|---|")
    else:
        pr("| topology | ports | M | algorithm | steps | predicted | bound | bound name | ratio | "
           "verified | within |")
        pr("|---|---|---|---|---|---|---|---|---|---|---|")
    for x in sel:
        res = x[4]
        bd, bname = bound_of(res)
        a = res["after"]
        if compare:
            b = res["before"]
            ch = "WORSE" if worse(res) else "better" if better(res) else ""
            pr("| `%s` | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                x[1], x[2], x[3], b.get("algo") or "-", cell(b), a.get("algo") or "-", cell(a),
                a.get("pred") if a.get("pred") is not None else "-", bd or "-",
                fmt(ratio(b, bd)), fmt(ratio(a, bd)), ch))
        elif a["status"] in ("ok", "unverified"):
            pr("| `%s` | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                x[1], x[2], x[3], a["algo"], a["steps"],
                a["pred"] if a["pred"] is not None else "-", bd or "-", bname or "-",
                fmt(ratio(a, bd)), "yes" if a["status"] == "ok" else "NO",
                "yes" if within(a, bd) else "no"))
    for b, _ in builds:
        off = [x for x in sel if x[4][b]["status"] not in ("ok", "unverified")]
        if not off:
            continue
        pr("\nNot run%s: %d cases\n" % (" (" + b + ")" if compare else "", len(off)))
        # One line per topology, port model and reason, its values of M together.
        groups = {}
        for x in off:
            r = x[4][b]
            why = r["why"].replace(dict(topos)[x[1]], x[1])
            groups.setdefault((x[1], x[2], r["status"], why), []).append(str(x[3]))
        for (t, p, st, why), ms in groups.items():
            pr("- `%s`, %s, M %s: %s: %s" % (t, p, ", ".join(ms), st, why))
    pr("")
# A count below its own lower bound means that the bound or the count is wrong: say so.
low = [(x, b) for x in rows for b, _ in builds
       if x[4][b]["status"] == "ok" and x[4][b]["bound"] and x[4][b]["steps"] < x[4][b]["bound"]]
if low:
    pr("Cases below their own lower bound (the bound or the count is wrong): %d\n" % len(low))
    for x, b in low:
        pr("- %s on `%s`, %s, M %d (%s): %s steps, bound %s" % (
            x[0], x[1], x[2], x[3], b, x[4][b]["steps"], x[4][b]["bound"]))
print("\n".join(o).rstrip("\n"))
PY
cat "$tmp/report.md"
[ -z "$out" ] || cp "$tmp/report.md" "$out"
