#!/usr/bin/env bash
# stepnet synth (docs/synth.md): proven optima written as schedule files and run over TCP with
# `stepnet run --algo schedule:FILE` (one stepnet-node per node on 127.0.0.1, port 0), which
# must verify in exactly the proven number of slots with the synth report's trace hash (sna, mna
# and allreduce among them, their schedules listing operands); and the refusals, exit 2: an
# unsupported or unknown collective, sna or mna single-port with --rx any, an encoding over
# --max-clauses or --max-memory, --algo, a bad --timeout, a damaged schedule file. No outcome
# depends on how fast the machine is: every instance here is proven in well under a second.
set -uo pipefail
: "${STEPNET:?STEPNET is not set: run this test through ctest}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
t() { timeout 300 "$STEPNET" "$@"; }
expect() { # expect STATUS DESCRIPTION COMMAND...
    local want=$1 what=$2
    shift 2
    "$@" >"$dir/out" 2>"$dir/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $what: status $rc, expected $want"
        cat "$dir/out" "$dir/err"
        fails=$((fails + 1))
    fi
}
field() { # field FILE KEY: the value of a top-level JSON key
    python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(json.dumps(v) if not isinstance(v, str) else v)' "$1" "$2"
}
same() { # same DESCRIPTION GOT WANT
    if [ "$2" != "$3" ]; then
        echo "FAIL $1: $2, expected $3"
        fails=$((fails + 1))
    fi
}
command -v python3 >/dev/null || { echo "FAIL python3 is missing (scripts/setup.sh installs it)"; exit 1; }

# instance | proven optimum | who found the schedule: linear:9 single-port mnb is below every
# algorithm of stepnet (15); on hypercube:3 the bound meets bcast-binomial, whose schedule synth
# writes without a solver call. The combining ones: sna and mna solved as their duals (bcast,
# mnb) and written reversed in time; allreduce on ring:6 with 4 pieces refuted at 4 slots by the
# relaxation and its schedule of 5 made exact (allreduce-rsag takes 6); on complete:6 the
# relaxation refutes 1 slot and allreduce-rsag's schedule of 2 is written
cases=(
    "--topo linear:9 --coll mnb --ports single|13|solver"
    "--topo hypercube:3 --coll bcast --ports single --root 5|3|algorithm"
    "--topo torus:3x3 --coll gather --ports single --rx any|2|solver"
    "--topo hypercube:3 --coll sna --msgs 4 --root 6 --no-bound|4|solver"
    "--topo ring:4 --coll mna --msgs 2 --no-bound|3|solver"
    "--topo ring:6 --coll allreduce --msgs 4|5|solver"
    "--topo complete:6 --coll allreduce --msgs 4|2|algorithm"
)
i=0
for c in "${cases[@]}"; do
    args=${c%%|*} rest=${c#*|}
    want=${rest%|*} by=${rest#*|}
    i=$((i + 1))
    f="$dir/s$i.json"
    # shellcheck disable=SC2086
    expect 0 "synth $args" t synth $args --out "$f" --json
    cp "$dir/out" "$dir/synth$i.out"
    same "synth $args: status" "$(field "$dir/synth$i.out" status)" optimal
    same "synth $args: optimum" "$(field "$dir/synth$i.out" optimum)" "$want"
    same "synth $args: verified" "$(field "$dir/synth$i.out" verified)" true
    same "synth $args: sat_by" "$(field "$dir/synth$i.out" sat_by)" "$by"
    same "synth $args: schedule" "$(field "$dir/synth$i.out" schedule)" "$f"
    # shellcheck disable=SC2086
    expect 0 "run $args --algo schedule:FILE" t run ${args/--no-bound/} --algo "schedule:$f" --json
    cp "$dir/out" "$dir/run$i.out"
    same "run $args: verified" "$(field "$dir/run$i.out" verified)" true
    same "run $args: steps" "$(field "$dir/run$i.out" steps)" "$want"
    same "run $args: trace_hash" "$(field "$dir/run$i.out" trace_hash)" \
        "$(field "$dir/synth$i.out" trace_hash)"
done

# the refusals, each naming what is accepted or the estimate
expect 2 "combining collective" t synth --topo ring:4 --coll pmna
grep -q "synth proves bcast, scatter, gather, mnb, te, pmnb, pexchange, sna, allreduce and mna" "$dir/err" ||
    { echo "FAIL pmna: $(cat "$dir/err")"; fails=$((fails + 1)); }
# sna and mna are proven by time reversal, which single-port with any receptions does not keep
for c in sna mna; do
    expect 2 "$c --rx any" t synth --topo ring:4 --coll $c --ports single --rx any
    grep -q -- "--rx any: synth proves $c as the time reversal" "$dir/err" ||
        { echo "FAIL $c --rx any: $(cat "$dir/err")"; fails=$((fails + 1)); }
done
expect 2 "allreduce over --max-clauses" t synth --topo ring:6 --coll allreduce --msgs 4 --max-clauses 100
grep -q "clauses.*above --max-clauses 100" "$dir/err" ||
    { echo "FAIL allreduce --max-clauses: $(cat "$dir/err")"; fails=$((fails + 1)); }
expect 2 "unknown collective" t synth --topo ring:4 --coll nosuch
expect 2 "over --max-clauses" t synth --topo linear:9 --coll mnb --ports single --max-clauses 100
grep -q "clauses.*above --max-clauses 100" "$dir/err" ||
    { echo "FAIL --max-clauses: $(cat "$dir/err")"; fails=$((fails + 1)); }
expect 2 "over --max-memory" t synth --topo mesh:4x4 --coll te --ports single --max-memory 16M
grep -q "above the limit" "$dir/err" || { echo "FAIL --max-memory: $(cat "$dir/err")"; fails=$((fails + 1)); }
expect 2 "--algo" t synth --topo ring:4 --coll bcast --algo bcast-tree
expect 2 "bad --timeout" t synth --topo ring:4 --coll bcast --timeout soon
expect 1 "--out unwritable" t synth --topo ring:4 --coll bcast --out "$dir/no/such/dir.json"
# a damaged schedule file: cut in the middle, or a transmission moved a slot earlier
head -c 200 "$dir/s1.json" >"$dir/cut.json"
expect 2 "cut schedule file" t run --topo linear:9 --coll mnb --ports single --algo "schedule:$dir/cut.json"
python3 - "$dir/s1.json" "$dir/early.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
# the first transmission of a node other than the packet's source, one slot earlier: it then
# sends a packet it does not hold yet
for sl in s["slots"]:
    for x in sl["sends"]:
        if x["node"] != x["src"] and sl["slot"] > 1:
            sl["sends"].remove(x)
            prev = [p for p in s["slots"] if p["slot"] == sl["slot"] - 1][0]
            prev["sends"].append(x)
            json.dump(s, open(sys.argv[2], "w"))
            sys.exit(0)
PY
expect 2 "schedule file sending too early" t run --topo linear:9 --coll mnb --ports single --algo "schedule:$dir/early.json"

if [ "$fails" -ne 0 ]; then
    echo "synth: $fails failures"
    exit 1
fi
echo "synth: all checks passed"
