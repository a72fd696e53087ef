#!/usr/bin/env bash
# Multinode broadcast against its lower bound: `stepnet sim --coll mnb` (auto) on hypercube:2..10,
# every torus and mesh with sides 2..10 (tori 3..10) and a few 3-D ones, in both port models;
# prints the worst steps / lower bound per family, algorithm and port model, and the cases above
# a ratio (default 1.2). Figures, not a test (tests/unit/test_mnb_generic.c pins the counts).
#
#   scripts/bench/mnb_sweep.sh [--above R] [--csv FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/mnb_sweep
above=1.2 csv=""
bench_args "--above above num" csv -- "$@"
[ -x build/stepnet ] || scripts/setup.sh >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
topos=(hypercube:{2..10} torus:{3..10}x{3..10} torus:3x3x3 torus:4x4x4 torus:5x5x5
    mesh:{2..10}x{2..10} mesh:3x3x3 mesh:4x4x4 mesh:2x3x4)
for t in "${topos[@]}"; do
    for p in multi single; do
        build/stepnet sim --topo "$t" --coll mnb --ports "$p" --json |
            python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["topology"], d["ports"], d["algorithm"], d["steps"], d["lower_bound"],
      "%.3f" % (d["steps"] / d["lower_bound"]), "yes" if d["verified"] else "NO")' >>"$out"
    done
done
[ -n "$csv" ] && { echo "topology,ports,algorithm,steps,lower_bound,ratio,verified"; tr ' ' , <"$out"; } >"$csv"
echo "family      ports   algorithm        cases  worst steps/bound"
awk '{split($1, a, ":"); k = sprintf("%-11s %-7s %-16s", a[1], $2, $3); n[k]++; if ($6 > m[k]) m[k] = $6}
     END {for (k in n) printf "%s %5d  %s\n", k, n[k], m[k]}' "$out" | sort
echo
echo "cases: $(wc -l <"$out"), verified: $(grep -c ' yes$' "$out"), above $above:"
awk -v r="$above" '$6 > r {print "  " $0}' "$out"
