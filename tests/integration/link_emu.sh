#!/usr/bin/env bash
# Integration test of link emulation (node/emulate.c, --link-* options of stepnet run): local runs
# on 127.0.0.1. One slowed link, set by a per-link file, makes every slot wait for it (the slot
# barrier): the measured time is at least (slots - 1) x its delay, for the collective and for the
# idle barrier, the results still verify and equal the simulator's, and the report shows the
# emulated values next to the measured calibration (a one-way time of at least the delay). Bad
# values and bad link files exit 2 naming the value. Only lower bounds are asserted: emulation
# can make a run slower than the delay, never faster, so no assertion depends on the machine's
# speed.
set -euo pipefail
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }
fail() { echo "FAIL $*"; exit 1; }
# ge A B: A >= B (decimals)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

delay_us=20000
cat >"$tmp/links.txt" <<EOF
# one slow link: the edge between nodes 2 and 3 of ring:6
link 2-3 delay=20ms   # 20000 us
EOF

# the collective: verified, as in the simulator, and slowed by the one link in every slot
for coll in te bcast; do
    out=$(timeout 120 "$stepnet" run --topo ring:6 --coll "$coll" --link-file "$tmp/links.txt" \
        --reps 2 --warmup 0 --probes 3 --json)
    sim=$("$stepnet" sim --topo ring:6 --coll "$coll" --json)
    [ "$(jget verified "$out")" = true ] || fail "$coll not verified: $out"
    for k in steps trace_hash deliveries; do
        [ "$(jget "$k" "$out")" = "$(jget "$k" "$sim")" ] || fail "$coll: $k differs from sim"
    done
    steps=$(jget steps "$out")
    wall=$(jget wall_us_median "$out")
    ge "$wall" "$(((steps - 1) * delay_us))" ||
        fail "$coll: $steps steps took $wall us, less than (steps - 1) x $delay_us us"
    # the report: one group of 1 link at 20 ms measured at >= 20 ms one way, the others at 0
    emu=$(printf '%s' "$out" | grep -o '"link_emulation":{.*')
    printf '%s' "$emu" | grep -q '"delay_us":20000,"jitter_us":0,"rate_bps":null,"links":1,' ||
        fail "$coll: no group of one 20 ms link in $emu"
    printf '%s' "$emu" | grep -q '"delay_us":0,"jitter_us":0,"rate_bps":null,"links":5,' ||
        fail "$coll: no group of five plain links in $emu"
    m=$(printf '%s' "$emu" | grep -o '"a":2,"b":3,[^}]*' | grep -o '"measured_us":[0-9.]*' | cut -d: -f2)
    ge "$m" "$delay_us" || fail "$coll: the slow link measured $m us one-way, below its delay"
    echo "ok $coll on ring:6 with one 20 ms link: $steps steps in $wall us, link measured $m us"
done

# the idle barrier: N bare slots take at least (N - 1) x the delay
n=30
# link 2-3 is not an edge of torus:3x3 (2 and 3 are not neighbours): refused with exit 2
timeout 60 "$stepnet" run --topo torus:3x3 --coll mnb --link-file "$tmp/links.txt" \
    >/dev/null 2>"$tmp/err" && fail "a link that is not an edge was accepted"
grep -q "links.txt line 2: link 2-3: nodes 2 and 3 are not neighbours" "$tmp/err" ||
    fail "bad message: $(cat "$tmp/err")"
echo "dim 1 delay=10ms" >"$tmp/dim.txt"
out=$(timeout 120 "$stepnet" run --topo torus:3x3 --coll mnb --idle-slots $n --link-file \
    "$tmp/dim.txt" --reps 1 --warmup 0 --probes 0 --json)
[ "$(jget verified "$out")" = true ] || fail "idle barrier not verified: $out"
wall=$(jget wall_us_median "$out")
ge "$wall" "$(((n - 1) * 10000))" || fail "idle: $n slots took $wall us, less than $((n - 1)) x 10 ms"
echo "ok idle barrier of $n slots on torus:3x3 with dimension 1 at 10 ms: $wall us"

# every link: the command-line options, with jitter and a rate
out=$(timeout 120 "$stepnet" run --topo ring:4 --coll te --link-delay 2ms --link-jitter 500us \
    --link-rate 100mbit --reps 1 --warmup 0 --probes 3 --json)
[ "$(jget verified "$out")" = true ] || fail "jitter and rate: not verified: $out"
printf '%s' "$out" | grep -q '"delay_us":2000,"jitter_us":500,"rate_bps":100000000,"links":4,' ||
    fail "jitter and rate: report lacks the values: $out"
steps=$(jget steps "$out")
ge "$(jget wall_us_median "$out")" "$(((steps - 1) * 1500))" || fail "jitter: faster than delay - jitter"
text=$(timeout 120 "$stepnet" run --topo ring:4 --coll te --link-delay 2ms --reps 1 --warmup 0 --probes 3)
printf '%s' "$text" | grep -q "emulated        delay 2ms jitter 0 rate unlimited on 4 links: measured" ||
    fail "text report lacks the emulation line: $text"
echo "ok every link at 2 ms +- 500 us, 100 mbit"

# bad input: exit 2 naming the value and the accepted units, before any node starts
bad() { # bad NEEDLE ARGS...
    local needle=$1 rc=0
    shift
    timeout 60 "$stepnet" run --topo ring:4 --coll te "$@" >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] || fail "exit $rc (want 2) for $*"
    grep -q -- "$needle" "$tmp/err" || fail "message of $* lacks '$needle': $(cat "$tmp/err")"
}
bad "'1x' for --link-delay: expected" --link-delay 1x
bad "usecs" --link-jitter 5min
bad "'5%' for --link-rate" --link-rate 5%
bad "kbit, mbit" --link-rate 100mb
bad "cannot read '$tmp/none.txt' (--link-file)" --link-file "$tmp/none.txt"
printf 'edge 1 delay=1ms\nedge 9 delay=1ms\n' >"$tmp/b1.txt"
bad "b1.txt line 2: bad edge '9': expected a number in 0 .. 3" --link-file "$tmp/b1.txt"
printf 'dim 0 delay=1ms\n' >"$tmp/b2.txt"
bad "need a family with dimensions" --link-file "$tmp/b2.txt"
printf 'edge 0 loss=1%%\n' >"$tmp/b3.txt"
bad "unknown value 'loss'" --link-file "$tmp/b3.txt"
echo "ok bad values refused with exit 2"
echo "link_emu: all passed"
