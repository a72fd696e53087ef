#!/usr/bin/env bash
# How fast stepnet synth proves optima (docs/performance.md, "stepnet synth"): single-port
# broadcast on graphs of up to 24 nodes, random ones included (target 10 s each), mnb and te on up
# to 16 nodes and scatter/gather on up to 32 nodes (target 60 s each). A benchmark that prints
# figures, not a test. Every instance runs twice: as `stepnet synth` runs by default (where
# stepnet's lower bound meets an algorithm's steps, the optimum is proven without a solver call)
# and with --no-bound (the solver refutes every T below the optimum and finds the schedule
# itself: the measure of the solver), each with --timeout (default 60 s); a bounded status is
# reported as such. One markdown row per instance: the bound, the best algorithm, the default
# run's status and wall time, then the --no-bound run's status, optimum or interval, solver time,
# conflicts of its last two calls, encoding size and wall time (encoding, the algorithms' dry
# runs and the simulator's check included).
#
#   scripts/bench_synth.sh [TIMEOUT_S]     (STEPNET=path/to/stepnet, default build/stepnet)
set -euo pipefail
cd "$(dirname "$0")/.."
stepnet=${STEPNET:-build/stepnet}
timeout_s=${1:-60}
[ -x "$stepnet" ] || { echo "bench_synth: $stepnet not found: build first (cmake --build build)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# connected random graphs: a random spanning tree plus n/2 extra edges, fixed seeds
for spec in 16:1 20:2 24:3 24:4; do
    python3 scripts/random_graph.py "${spec%%:*}" "${spec#*:}" "$dir/rand${spec%%:*}_${spec#*:}.txt"
done
cases=(
    "bcast single|--topo ring:24 --coll bcast --ports single"
    "bcast single|--topo linear:24 --coll bcast --ports single --root 7"
    "bcast single|--topo mesh:4x6 --coll bcast --ports single"
    "bcast single|--topo ccc:3 --coll bcast --ports single"
    "bcast single|--topo star:4 --coll bcast --ports single"
    "bcast single|--topo hypercube:4 --coll bcast --ports single"
    "bcast single|--topo file:$dir/rand16_1.txt --coll bcast --ports single"
    "bcast single|--topo file:$dir/rand20_2.txt --coll bcast --ports single"
    "bcast single|--topo file:$dir/rand24_3.txt --coll bcast --ports single"
    "bcast single|--topo file:$dir/rand24_4.txt --coll bcast --ports single --root 5"
    "mnb single|--topo linear:9 --coll mnb --ports single"
    "mnb single|--topo ring:8 --coll mnb --ports single"
    "mnb single|--topo hypercube:3 --coll mnb --ports single"
    "mnb single|--topo torus:4x4 --coll mnb --ports single"
    "mnb multi|--topo torus:4x4 --coll mnb"
    "te multi|--topo hypercube:3 --coll te"
    "te multi|--topo ring:8 --coll te"
    "te multi|--topo hypercube:4 --coll te"
    "te single|--topo ring:6 --coll te --ports single"
    "te single|--topo complete:6 --coll te --ports single"
    "scatter single|--topo hypercube:5 --coll scatter --ports single"
    "scatter single|--topo torus:4x8 --coll scatter --ports single"
    "scatter multi|--topo torus:4x8 --coll scatter"
    "gather single|--topo ring:32 --coll gather --ports single"
    "gather single|--topo hypercube:5 --coll gather --ports single --rx any"
)
echo "| case | instance | bound | best algorithm | default: status, wall s | --no-bound: status | optimum (interval) | solve s | conflicts (sat / unsat) | variables | clauses | wall s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
run() { # run OUT ARGS...: the JSON report into OUT, the wall seconds on stdout
    local out=$1 start end
    shift
    start=$(date +%s.%N)
    "$stepnet" synth "$@" --timeout "$timeout_s" --json >"$out" 2>&1 || true
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
for c in "${cases[@]}"; do
    what=${c%%|*} args=${c#*|}
    # shellcheck disable=SC2086
    w1=$(run "$dir/a.json" $args)
    # shellcheck disable=SC2086
    w2=$(run "$dir/b.json" $args --no-bound)
    python3 - "$what" "$w1" "$w2" "$dir/a.json" "$dir/b.json" <<'PY'
import json, re, sys
what, w1, w2, fa, fb = sys.argv[1:6]
def load(f):
    try:
        return json.load(open(f))
    except ValueError:
        return {"error": open(f).read().strip()[:80]}
a, b = load(fa), load(fb)
if "status" not in a or "status" not in b:
    print(f"| {what} | error: {a.get('error') or b.get('error')} |"); sys.exit(0)
topo = re.sub(r"^file:.*/", "file:", a["topology"])
inst = f"{topo} {a['collective']}" + (f" root {a['root']}" if a["root"] else "")
opt = lambda d: str(d["optimum"]) if d["optimum"] is not None else f"[{d['lower']}, {d['upper']}]"
conf = lambda d, k: str(d[k]["conflicts"]) if d.get(k) else "-"
print(f"| {what} | {inst} | {a['lower_bound']} | {a['best_algorithm']} {a['best_algorithm_steps']} | "
      f"{a['status']} {opt(a)}, {float(w1):.2f} | {b['status']} | {opt(b)} | {b['solve_s']:.2f} | "
      f"{conf(b, 'sat')} / {conf(b, 'unsat')} | {b['variables']} | {b['clauses']} | {float(w2):.2f} |")
PY
done
