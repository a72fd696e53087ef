#!/usr/bin/env bash
# stepnet sim --trace and stepnet run --trace (docs/trace.md): every file is checked against the
# Chrome trace-event format and against the run's transmissions by trace_check.py (one `send`
# event per data or control packet the report counts); run's transmissions equal sim's; the
# truncation is stated; the clock is stated, and a run whose nodes' clock offsets are estimated
# (daemons) has every offset and uncertainty in its metadata and every frame arriving after it
# left within the two clocks' uncertainty; under --sync dataflow the slots are the logical slots
# each node played and the frames drawn are exactly the schedule's; the options refuse what they
# cannot do. Runs on 127.0.0.1 with port 0.
set -uo pipefail
: "${STEPNET:?STEPNET is not set: run this test through ctest}"
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/trace_check.py"
dir=$(mktemp -d)
daemon_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fails=0
t() { timeout 120 "$STEPNET" "$@"; }
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
ok() { # ok DESCRIPTION COMMAND...: the command must pass
    local what=$1
    shift
    if ! "$@"; then
        echo "FAIL $what"
        fails=$((fails + 1))
    fi
}
command -v python3 >/dev/null || { echo "FAIL python3 is missing (scripts/setup.sh installs it)"; exit 1; }

# sim: a plain collective, one with control packets, and a truncated trace
expect 0 "sim te" t sim --topo torus:3x3 --coll te --json --trace "$dir/s1.json"
cp "$dir/out" "$dir/s1.out"
ok "sim te trace" $check "$dir/s1.json" "$dir/s1.out"
pm=(--topo torus:4x4 --coll pmnb --m 8 --algo pmnb-mesh-split --frags 4)
expect 0 "sim pmnb" t sim "${pm[@]}" --json --trace "$dir/s2.json"
cp "$dir/out" "$dir/s2.out"
ok "sim pmnb trace" $check "$dir/s2.json" "$dir/s2.out"
grep -q '"control_packets":0,' "$dir/s2.out" && { echo "FAIL the pmnb case has no control packets"; fails=$((fails + 1)); }
expect 0 "sim truncated" t sim --topo ring:6 --coll te --json --trace "$dir/s3.json" --trace-slots 2
cp "$dir/out" "$dir/s3.out"
ok "sim truncated trace" $check "$dir/s3.json" "$dir/s3.out" --truncated

# a sim that fails (the slot limit): exit 1, the transmissions up to the failure and its reason
expect 1 "sim failing" t sim --topo torus:4x4 --coll te --max-slots 3 --trace "$dir/s4.json"
ok "failed sim's trace" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [e["name"] for e in d["traceEvents"]]
assert names.count("sim failed") == 1 and "send" in names, names
' "$dir/s4.json"

# run: the same transmissions as sim, slot events at every node, the repetition chosen
expect 0 "run te" t run --topo torus:3x3 --coll te --reps 2 --json --trace "$dir/r1.json"
cp "$dir/out" "$dir/r1.out"
ok "run te trace" $check "$dir/r1.json" "$dir/r1.out" --slots --same-sends "$dir/s1.json" --clock one
grep -q '"traced_repetition":2' "$dir/r1.json" || { echo "FAIL run te: not the last repetition"; fails=$((fails + 1)); }
expect 0 "run pmnb" t run "${pm[@]}" --reps 2 --trace-rep 1 --json --trace "$dir/r2.json"
cp "$dir/out" "$dir/r2.out"
ok "run pmnb trace" $check "$dir/r2.json" "$dir/r2.out" --slots --same-sends "$dir/s2.json"
grep -q '"traced_repetition":1' "$dir/r2.json" || { echo "FAIL run pmnb: --trace-rep 1 not honoured"; fails=$((fails + 1)); }
expect 0 "run truncated" t run --topo ring:6 --coll te --reps 1 --json --trace "$dir/r3.json" --trace-slots 2
cp "$dir/out" "$dir/r3.out"
ok "run truncated trace" $check "$dir/r3.json" "$dir/r3.out" --slots --truncated
# a run that fails in the traced repetition: exit 1, and the file says there is no trace
expect 1 "run failing" t run --topo ring:6 --coll te --reps 1 --fault 2:kill@2 --trace "$dir/r4.json"
ok "failed run's trace" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["otherData"]["truncated"] is True, d["otherData"]
assert [e["name"] for e in d["traceEvents"]] == ["no trace"], d["traceEvents"]
' "$dir/r4.json"
# nodes whose clocks are probed (daemons, as on other machines, here all on 127.0.0.1): the
# offsets are estimated and applied; on one machine the true offsets are 0, so every frame's
# aligned arrival is after its departure within the two nodes' stated uncertainty
: "${STEPNET_NODE:?STEPNET_NODE is not set: run this test through ctest}"
"$STEPNET" keygen "$dir/key" 2>/dev/null
"$STEPNET_NODE" --serve --listen 127.0.0.1:0 --key "$dir/key" >"$dir/daemon.out" 2>"$dir/daemon.err" &
daemon_pid=$!
for _ in $(seq 100); do grep -q 'SERVE port=' "$dir/daemon.out" && break; sleep 0.1; done
dport=$(sed -n 's/SERVE port=//p' "$dir/daemon.out")
if [ -z "$dport" ]; then
    echo "FAIL the daemon did not print its port within 10 s: $(cat "$dir/daemon.err")"
    fails=$((fails + 1))
else
    d=127.0.0.1:$dport
    expect 0 "run te on daemons" t run --topo torus:3x3 --coll te --reps 2 --json --trace "$dir/r5.json" \
        --nodes "$d,$d,$d,$d,$d,$d,$d,$d,$d" --key "$dir/key"
    cp "$dir/out" "$dir/r5.out"
    ok "daemons' trace on aligned clocks" $check "$dir/r5.json" "$dir/r5.out" --slots \
        --same-sends "$dir/s1.json" --clock offsets
fi
# --sync dataflow: the same transmissions as sim, each node's slot events the logical slots it
# played, and a frame in for exactly the frames the schedule sends it (dataflow sends no empty
# frames); a dense case (te) and a sparse one (bcast, in which most nodes skip most slots)
expect 0 "run te dataflow" t run --topo torus:3x3 --coll te --sync dataflow --reps 2 --json \
    --trace "$dir/d1.json"
cp "$dir/out" "$dir/d1.out"
ok "run te dataflow trace" $check "$dir/d1.json" "$dir/d1.out" --same-sends "$dir/s1.json" \
    --dataflow "$dir/s1.json" --clock one
expect 0 "sim bcast" t sim --topo ring:8 --coll bcast --json --trace "$dir/s5.json"
cp "$dir/out" "$dir/s5.out"
expect 0 "run bcast dataflow" t run --topo ring:8 --coll bcast --sync dataflow --reps 1 --json \
    --trace "$dir/d2.json"
cp "$dir/out" "$dir/d2.out"
ok "run bcast dataflow trace" $check "$dir/d2.json" "$dir/d2.out" --same-sends "$dir/s5.json" \
    --dataflow "$dir/s5.json"
# control packets (pmnb's) under dataflow: sent and drawn as the schedule's transmissions too
expect 0 "run pmnb dataflow" t run "${pm[@]}" --sync dataflow --reps 1 --json --trace "$dir/d4.json"
cp "$dir/out" "$dir/d4.out"
ok "run pmnb dataflow trace" $check "$dir/d4.json" "$dir/d4.out" --same-sends "$dir/s2.json" \
    --dataflow "$dir/s2.json"
expect 0 "run truncated dataflow" t run --topo ring:6 --coll te --sync dataflow --reps 1 --json \
    --trace "$dir/d3.json" --trace-slots 2
cp "$dir/out" "$dir/d3.out"
ok "run truncated dataflow trace" $check "$dir/d3.json" "$dir/d3.out" --truncated
# no trace asked: the run is unchanged
expect 0 "run without trace" t run --topo ring:6 --coll te --reps 1 --json

# refusals: exit 2 with a message naming the option
expect 2 "--trace-slots without --trace" t sim --topo ring:4 --coll bcast --trace-slots 5
grep -q -- "--trace-slots" "$dir/err" || { echo "FAIL no message naming --trace-slots"; fails=$((fails + 1)); }
expect 2 "--trace-rep past --reps" t run --topo ring:4 --coll bcast --reps 2 --trace "$dir/x.json" --trace-rep 3
grep -q -- "--trace-rep" "$dir/err" || { echo "FAIL no message naming --trace-rep"; fails=$((fails + 1)); }
expect 2 "--trace-slots 0" t run --topo ring:4 --coll bcast --trace "$dir/x.json" --trace-slots 0
expect 2 "--trace-slots too many" t sim --topo ring:4 --coll bcast --trace "$dir/x.json" --trace-slots 100001
expect 2 "--trace with --idle-slots" t run --topo ring:4 --coll bcast --trace "$dir/x.json" --idle-slots 10
expect 2 "--trace unwritable (sim)" t sim --topo ring:4 --coll bcast --trace "$dir/no/such/dir.json"
expect 2 "--trace unwritable (run)" t run --topo ring:4 --coll bcast --trace "$dir/no/such/dir.json"
expect 2 "--trace with dynbcast" t sim --topo torus:4x4 --coll dynbcast --rho 0.3 --trace "$dir/x.json"
expect 1 "--trace to a full disk" t sim --topo ring:4 --coll bcast --trace /dev/full

if [ "$fails" -ne 0 ]; then
    echo "trace: $fails failures"
    exit 1
fi
echo "trace: all checks passed"
