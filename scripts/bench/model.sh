#!/usr/bin/env bash
# Time-model benchmark: predicted against measured wall time on emulated LANs of network
# namespaces (deploy/netns-cluster.sh: one namespace per node, real TCP between them; delays by
# the kernel's netem where it exists, else by stepnet's own link emulation; rates by tbf on every
# node's interface, its NIC). Cases, each a run of 20 steps or more:
#   uniform delay 200us and 1ms on every link (te on complete:8 --msgs 20, bcast on ring:8
#   --msgs 20); two groups of four joined by one slow link (linear:8, the link 3-4 at 1 ms, the
#   others unemulated; te --msgs 2); a 100 Mbit/s NIC rate (tbf) with te on complete:8, 8 KiB
#   packets, --msgs 20 (seven links share each node's interface).
# For each: the median over --reps runs of the measured wall time (wall_us_median), of the time
# model's prediction (time_model.predicted_us) and of the simple prediction steps x (alpha + size
# x beta) of the median link; ratio = measured / predicted. Target: the model within 1 +- 0.25.
# Each case runs in each execution mode of --sync (default both): under the slot barrier the
# prediction is the slot model's, under dataflow the critical path's (the run's predicted_us).
# Needs root (namespaces); exits 77 where they cannot be created. Figures, not a test.
#
#   scripts/bench/model.sh [--reps N] [--sync "slot dataflow"]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/model
reps=3 syncs="slot dataflow"
bench_args reps "--sync syncs list:slot|dataflow" -- "$@"
[ -x build/stepnet ] && [ -x build/stepnet-node ] || scripts/setup.sh >/dev/null
probe="snbm$$"
ip netns add "$probe" 2>/dev/null || { echo "bench/model: cannot create network namespaces (root needed)"; exit 77; }
ip netns del "$probe"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "link 3-4 delay=1ms" >"$tmp/groups.txt"

printf '%-34s %-8s %6s %12s %12s %7s %12s %7s %7s\n' case sync steps measured_us model_us ratio \
    simple_us ratio within
row() { # row LABEL NETNS-OPTIONS... -- RUN-OPTIONS...: one line per execution mode
    local y
    for y in $syncs; do row_sync "$y" "$@"; done
}
row_sync() { # row_sync SYNC LABEL NETNS-OPTIONS... -- RUN-OPTIONS...
    local sync=$1 label=$2 nopts=() ropts=() j ms=() mp=() sp=() steps=0
    shift 2
    while [ "$1" != -- ]; do nopts+=("$1"); shift; done
    shift
    ropts=("$@")
    for _ in $(seq "$reps"); do
        j=$(timeout 600 deploy/netns-cluster.sh ${nopts[@]+"${nopts[@]}"} -- "${ropts[@]}" \
            --security none --insecure-ok --reps 5 --warmup 1 --probes 20 --sync "$sync" --json \
            2>/dev/null)
        [ "$(jget verified "$j")" = true ] || { echo "bench/model: $label did not verify: $j" >&2; exit 1; }
        steps=$(jget steps "$j")
        ms+=("$(jget wall_us_median "$j")")
        mp+=("$(jget predicted_us "$j")") # the model of the run's --sync
        local size
        size=$(jget size "$j")
        sp+=("$(awk -v s="$steps" -v a="$(jget alpha_us "$j")" -v b="$(jget beta_us_per_byte "$j")" \
            -v z="$size" 'BEGIN {print s * (a + z * b)}')")
    done
    local m p s
    m=$(printf '%s\n' "${ms[@]}" | median)
    p=$(printf '%s\n' "${mp[@]}" | median)
    s=$(printf '%s\n' "${sp[@]}" | median)
    awk -v l="$label" -v y="$sync" -v st="$steps" -v m="$m" -v p="$p" -v s="$s" 'BEGIN {
        r = m / p
        printf "%-34s %-8s %6d %12.1f %12.1f %7.3f %12.1f %7.3f %7s\n", l, y, st, m, p, r, s, m / s,
               (r >= 0.75 && r <= 1.25) ? "yes" : "NO"
    }'
}
row "delay 200us, te complete:8" --delay 200us -- --topo complete:8 --coll te --msgs 20
row "delay 200us, bcast ring:8" --delay 200us -- --topo ring:8 --coll bcast --msgs 20
row "delay 1ms, te complete:8" --delay 1ms -- --topo complete:8 --coll te --msgs 20
row "delay 1ms, bcast ring:8" --delay 1ms -- --topo ring:8 --coll bcast --msgs 20
row "two groups, one 1ms link, te" -- --topo linear:8 --coll te --msgs 2 --link-file "$tmp/groups.txt"
row "rate 100mbit NIC, te complete:8" --rate 100mbit -- --topo complete:8 --coll te --msgs 20 --size 8192
echo "medians of $reps runs (each the median of 5 repetitions); $(deploy/netns-cluster.sh --help >/dev/null; \
    echo "delays: netem where the kernel has it, else stepnet's emulation")"
