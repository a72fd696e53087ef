#!/usr/bin/env bash
# The proven optima of docs/reproduction.md ("Proven optima"): `stepnet synth` on every instance
# within its reach where stepnet's best algorithm and its best lower bound differ, from three
# sources: the small cases of `stepnet table` with a gap (fat trees, folded cubes), the small
# meshes, tori and hypercubes of scripts/bench/mnb_sweep.sh and paths in both port models, and
# single-port broadcast on small connected random graphs from every root. Prints a markdown table:
# the instance, the best algorithm's steps, the bound, the proven optimum (or the interval reached
# within --timeout) and the solver's time; "below every algorithm" marks an optimum that no
# algorithm of stepnet reaches. Instances where the bound meets an algorithm are left out (nothing
# to prove); the count of those is printed at the end.
#
#   scripts/synth_table.sh [TIMEOUT_S]     (STEPNET=path/to/stepnet, default build/stepnet)
set -euo pipefail
cd "$(dirname "$0")/.."
stepnet=${STEPNET:-build/stepnet}
timeout_s=${1:-60}
[ -x "$stepnet" ] || { echo "synth_table: $stepnet not found: build first (cmake --build build)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cases=()
for t in fattree:2:2 fattree:3:2 fattree:2:3 foldedcube:3 foldedcube:4; do
    cases+=("table|--topo $t --coll mnb")
done
for t in fattree:2:2:const fattree:2:2:exp fattree:3:2:const fattree:3:2:exp fattree:2:3:exp \
    fattree:2:3:1,1,2; do
    cases+=("table|--topo $t --coll te")
done
for t in linear:{4..9} mesh:2x3 mesh:2x4 mesh:3x3 mesh:3x4 mesh:4x4 torus:3x3 torus:3x4 \
    torus:4x4 hypercube:3 hypercube:4; do
    for p in multi single; do
        cases+=("mnb_sweep|--topo $t --coll mnb --ports $p")
    done
done
for spec in 10:1 10:2 12:3 12:4 14:5 14:6 16:7 16:8; do
    n=${spec%%:*} seed=${spec#*:}
    f="$dir/random${n}_$seed.txt"
    python3 scripts/random_graph.py "$n" "$seed" "$f"
    for ((root = 0; root < n; root++)); do
        cases+=("random|--topo file:$f --coll bcast --ports single --root $root")
    done
done
echo "| source | instance | best algorithm | bound | proven optimum | solve s | |"
echo "|---|---|---|---|---|---|---|"
met=0
for c in "${cases[@]}"; do
    src=${c%%|*} args=${c#*|}
    # shellcheck disable=SC2086
    "$stepnet" synth $args --timeout "$timeout_s" --json >"$dir/out.json" 2>"$dir/err" || true
    python3 - "$src" "$dir/out.json" "$dir/err" <<'PY' || met=$((met + 1))
import json, re, sys
src, fo, fe = sys.argv[1:4]
try:
    d = json.load(open(fo))
except ValueError:
    print(f"| {src} | error | {open(fe).read().strip()[:100]} | | | | |")
    sys.exit(0)
if d.get("sat_by") == "algorithm" and d.get("unsat_by") == "bound":
    sys.exit(1)  # the bound meets an algorithm: nothing to prove
topo = re.sub(r"^file:.*/", "", d["topology"]).replace(".txt", "")
inst = f"{topo} {d['collective']} {d['ports']}" + (f" root {d['root']}" if d["collective"] == "bcast" else "")
opt = str(d["optimum"]) if d["optimum"] is not None else f"[{d['lower']}, {d['upper']}] (bounded)"
note = ""
if d["optimum"] is not None and d["optimum"] < d["best_algorithm_steps"]:
    note = "**below every algorithm**"
elif d["optimum"] is not None and d["optimum"] > d["lower_bound"]:
    note = "above the bound"
if not d.get("verified", False) and d["optimum"] is not None:
    note += " NOT verified"
print(f"| {src} | {inst} | {d['best_algorithm']} {d['best_algorithm_steps']} | {d['lower_bound']} | "
      f"{opt} | {d['solve_s']:.2f} | {note} |")
PY
done
echo
echo "$met more instances where the lower bound meets an algorithm's steps (proven without the solver)."
