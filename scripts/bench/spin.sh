#!/usr/bin/env bash
# What waiting by polling buys (`stepnet run --spin-us`): each case runs with every value of
# --values (default "0 1000": always sleep, and the default), alternated round by round, so that
# all values see the same machine state; prints the median over --reps rounds per value and the
# ratio of each to the first value (below 1: faster than the first). Cases: the idle barrier on
# ring:8, ring:64, torus:8x8 and torus:16x16 (256 processes), in us per slot; te on complete:8 at
# 8 B (node_us_median: each node's own time, a one-slot collective), 64 KiB and 1 MiB (us per
# step). --security none, so that the runtime alone is measured. Figures, not a test.
#
#   scripts/bench/spin.sh [--reps N] [--values "0 1000"] [--csv FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/spin
reps=5 values="0 1000" csv=""
bench_args reps csv "--values values ints:0:1000000" -- "$@"
[ -x build/stepnet ] && [ -x build/stepnet-node ] || scripts/setup.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# label|key|unit|arguments of stepnet run
cases=(
    "idle ring:8|us_per_slot|us/slot|--topo ring:8 --coll bcast --idle-slots 2000"
    "idle ring:64|us_per_slot|us/slot|--topo ring:64 --coll bcast --idle-slots 500"
    "idle torus:8x8|us_per_slot|us/slot|--topo torus:8x8 --coll bcast --idle-slots 500"
    "idle torus:16x16 (256 proc)|us_per_slot|us/slot|--topo torus:16x16 --coll bcast --idle-slots 300"
    "te complete:8 8 B (per node)|node_us_median|us|--topo complete:8 --coll te --size 8 --reps 21"
    "te complete:8 64 KiB|us_per_step|us/step|--topo complete:8 --coll te --size 65536 --msgs 20"
    "te complete:8 1 MiB|us_per_step|us/step|--topo complete:8 --coll te --size 1048576 --msgs 5"
)
started=$(date +%s)
for r in $(seq "$reps"); do
    for i in "${!cases[@]}"; do
        IFS='|' read -r _ key _ args <<<"${cases[$i]}"
        for v in $values; do
            # shellcheck disable=SC2086 # $args: the case's arguments, split at spaces
            out=$(build/stepnet run $args --security none --spin-us "$v" --warmup 1 --probes 2 \
                --json 2>/dev/null) || true
            [ "$(jget verified "$out")" = true ] ||
                { echo "bench/spin: stepnet run $args --spin-us $v failed" >&2; exit 1; }
            jget "$key" "$out" >>"$tmp/$i.$v"
            echo >>"$tmp/$i.$v"
        done
    done
    echo "bench/spin: round $r of $reps done ($(($(date +%s) - started)) s)" >&2
done
read -r -a vals <<<"$values"
printf '%-30s %-8s' case unit
variant_head "${vals[@]}"
echo
[ -n "$csv" ] && echo "case,unit,spin_us,median,ratio_to_first" >"$csv"
for i in "${!cases[@]}"; do
    IFS='|' read -r label _ unit _ <<<"${cases[$i]}"
    printf '%-30s %-8s' "$label" "$unit"
    variant_row "$tmp" "$i" "$csv" "$label,$unit" "${vals[@]}"
    echo
done
echo "(columns: the --spin-us values, then each over the first; medians of $reps rounds, values"
echo " alternated within each round; --security none; $(nproc) cores, $(uname -m))"
