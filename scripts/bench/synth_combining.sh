#!/usr/bin/env bash
# Proven optima of the combining collectives in the bandwidth regime (docs/synth.md, "Combining
# collectives"): `stepnet synth --json` on small instances with several packets, sna and mna
# through their duals, allreduce through its relaxation. Prints Markdown: the instance, the best
# algorithm and its steps, stepnet's lower bound, synth's status and interval, who refuted
# optimum - 1 (solver or bound) and who found the schedule (solver or algorithm), the solving
# seconds and whether the simulator verified the schedule. Figures in slots, not a test: the exit
# status is 0 unless the script cannot run.
#
#   scripts/bench/synth_combining.sh [TIMEOUT_S]   (STEPNET=path/to/stepnet, default build/stepnet)
set -euo pipefail
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:-build/stepnet}
timeout_s=${1:-120}
[ -x "$stepnet" ] || { echo "synth_combining: $stepnet not found: build first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "synth_combining: python3 is missing" >&2; exit 2; }
cases=(
    "--topo hypercube:3 --coll sna --msgs 4"
    "--topo hypercube:3 --coll sna --msgs 4 --no-bound"
    "--topo hypercube:4 --coll sna --msgs 16"
    "--topo hypercube:4 --coll sna --msgs 16 --no-bound"
    "--topo hypercube:3 --coll mna --msgs 4"
    "--topo ring:6 --coll mna --msgs 4 --no-bound"
    "--topo hypercube:3 --coll sna --msgs 4 --ports single"
    "--topo ring:6 --coll allreduce --msgs 4"
    "--topo ring:6 --coll allreduce --msgs 8"
    "--topo ring:8 --coll allreduce --msgs 2"
    "--topo ring:8 --coll allreduce --msgs 8"
    "--topo ring:8 --coll allreduce --msgs 16"
    "--topo hypercube:3 --coll allreduce --msgs 3"
    "--topo hypercube:3 --coll allreduce --msgs 4 --ports single"
    "--topo complete:6 --coll allreduce --msgs 4"
    "--topo complete:6 --coll allreduce --msgs 16"
    "--topo hypercube:4 --coll allreduce --msgs 4"
    "--topo hypercube:4 --coll allreduce --msgs 16"
    "--topo ring:8 --coll allreduce --msgs 64"
    # the rows of the issue on large messages that a bound settles: bcast, sna, allreduce, mna
    "--topo hypercube:6 --coll bcast --msgs 64"
    "--topo complete:16 --coll bcast --msgs 64"
    "--topo complete:16 --coll sna --msgs 64"
    "--topo complete:16 --coll allreduce --msgs 64"
    "--topo torus:8x8 --coll allreduce --msgs 64 --ports single"
    "--topo torus:6x6 --coll mna --msgs 64"
)
echo "| instance | best algorithm | bound | synth | refuted by | schedule by | solve s | verified |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    out=$("$stepnet" synth $c --timeout "$timeout_s" --json 2>/dev/null) || true
    # shellcheck disable=SC2016 # the backquotes are Markdown, for Python
    printf '%s' "$out" | python3 -c '
import json, sys
case = sys.argv[1]
try:
    r = json.load(sys.stdin)
except ValueError:
    print("| `%s` | | | refused or failed | | | | |" % case)
    sys.exit(0)
if r["status"] == "optimal":
    st = "optimal %d" % r["optimum"]
else:
    st = "bounded [%d, %d]" % (r["lower"], r["upper"])
dual = " (dual %s)" % r["dual"] if r.get("dual") else ""
print("| `%s` | %s%s %d | %d | %s | %s | %s | %.2f | %s |" % (
    case, r["best_algorithm"], dual, r["best_algorithm_steps"], r["lower_bound"], st,
    r["unsat_by"] or "-", r["sat_by"] or "-", r["solve_s"], str(r["verified"]).lower()))
' "$c"
done
