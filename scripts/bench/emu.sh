#!/usr/bin/env bash
# Link emulation benchmark: how closely the measured time per slot tracks the delay (and rate)
# that stepnet's own link emulation adds (stepnet run --link-delay / --link-rate; no root, no
# netem). For each emulated delay d (0, 200us, 1ms, 5ms by default) it runs the bare slot barrier
# (--idle-slots) and te per step on the same topology, --reps rounds alternating the delays, and
# prints medians:
#   per_slot    the measured time per slot (us)
#   ratio       per_slot / d: the barrier can never beat the delay, so ratio >= 1
#   over_us     per_slot - d: what the machine adds per slot on top of the emulated delay (a
#               timer wake-up, a loopback hop and the slot's processing after a sleep)
# and, for the rate, te with 64 KiB packets at --link-rate R, per step against the serialisation
# time of one frame (bytes on the wire x 8 / R). Tolerance (the `within` column): ratio >= 0.98
# (never faster than emulated, up to clock noise) and per_slot <= 1.1 d + 300 us for the delays;
# ratio within 1 +- 0.1 for the rate. The overhead is mostly a constant per slot, so the ratio
# tends to 1 as the delay grows. Figures, not a test.
#
#   scripts/bench/emu.sh [--reps N] [--topo SPEC] [--delays "0 200us 1ms 5ms"] [--rate 100mbit]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/emu
reps=5 topo=ring:8 delays="0 200us 1ms 5ms" rate=100mbit
bench_args reps "--topo topo text" "--delays delays text" "--rate rate text" -- "$@"
[ -x build/stepnet ] || scripts/setup.sh >/dev/null

to_us() { # a tc time in microseconds
    awk -v t="$1" 'BEGIN {
        n = t + 0; u = substr(t, length(n "") + 1)
        if (u == "s") n *= 1e6; else if (u == "ms") n *= 1e3; else if (u == "ns") n /= 1e3
        print n }'
}
slots_for() { # enough slots for about 0.5 s per repetition, at least 50
    awk -v d="$1" 'BEGIN { n = (d > 0 ? int(500000 / d) : 2000); print (n < 50 ? 50 : n) }'
}
run() { # run ARGS...: one JSON report, verified
    local j
    j=$(build/stepnet run --topo "$topo" --security none --reps 3 --warmup 1 --probes 3 --json "$@" 2>/dev/null)
    [ "$(jget verified "$j")" = true ] || { echo "bench/emu: stepnet run --topo $topo $* failed" >&2; exit 1; }
    printf '%s' "$j"
}
declare -A idle te
for _ in $(seq "$reps"); do
    for d in $delays; do
        us=$(to_us "$d")
        n=$(slots_for "$us")
        emu=()
        [ "$us" != 0 ] && emu=(--link-delay "$d")
        j=$(run --coll mnb --idle-slots "$n" ${emu[@]+"${emu[@]}"})
        idle[$d]+="$(jget us_per_slot "$j") "
        j=$(run --coll te ${emu[@]+"${emu[@]}"})
        te[$d]+="$(awk -v w="$(jget wall_us_median "$j")" -v s="$(jget steps "$j")" 'BEGIN {print w / s}') "
    done
done
med() { printf '%s\n' $1 | median; }
echo "stepnet link emulation on $topo, --security none, medians of $reps rounds (delays alternated)"
printf '%-8s %-10s %12s %7s %8s %12s %7s %8s %7s\n' delay emulated_us idle_us/slot ratio over_us \
    te_us/step ratio over_us within
for d in $delays; do
    us=$(to_us "$d")
    mi=$(med "${idle[$d]}")
    mt=$(med "${te[$d]}")
    awk -v d="$d" -v us="$us" -v mi="$mi" -v mt="$mt" 'BEGIN {
        if (us > 0) {
            ok = mi / us >= 0.98 && mt / us >= 0.98 && mi <= 1.1 * us + 300 && mt <= 1.1 * us + 300
            printf "%-8s %-10g %12.1f %7.3f %8.1f %12.1f %7.3f %8.1f %7s\n", d, us, mi, mi / us,
                   mi - us, mt, mt / us, mt - us, ok ? "yes" : "NO"
        } else
            printf "%-8s %-10g %12.1f %7s %8s %12.1f %7s %8s %7s\n", d, us, mi, "-", "-", mt, "-", "-", "-"
    }'
done
# the rate: te with 64 KiB packets; every link carries one frame per slot in each direction
size=65536
rv=() bv=()
for _ in $(seq "$reps"); do
    j=$(run --coll te --size $size --link-rate "$rate")
    rv+=("$(awk -v w="$(jget wall_us_median "$j")" -v s="$(jget steps "$j")" 'BEGIN {print w / s}')")
    j=$(run --coll te --size $size)
    bv+=("$(awk -v w="$(jget wall_us_median "$j")" -v s="$(jget steps "$j")" 'BEGIN {print w / s}')")
done
bps=$(build/stepnet run --topo "$topo" --coll te --size $size --link-rate "$rate" --security none \
    --reps 1 --warmup 0 --probes 0 --json 2>/dev/null | grep -o '"rate_bps":[0-9]*' | head -n1 | cut -d: -f2)
mr=$(printf '%s\n' "${rv[@]}" | median)
mb=$(printf '%s\n' "${bv[@]}" | median)
echo
echo "rate $rate ($bps bit/s), te with $size-byte packets on $topo, medians of $reps rounds"
awk -v mr="$mr" -v mb="$mb" -v bps="$bps" -v size="$size" 'BEGIN {
    wire = size + 60                  # body: payload, data header and its length, frame header
    ser = wire * 8 / bps * 1e6        # one frame serialised at the rate, us
    printf "%-14s %14s %14s %10s %7s\n", "serialise_us", "te_us/step", "unlimited_us", "ratio", "within"
    printf "%-14.1f %14.1f %14.1f %10.3f %7s\n", ser, mr, mb, mr / ser,
           (mr / ser >= 0.9 && mr / ser <= 1.1) ? "yes" : "NO"
}'
