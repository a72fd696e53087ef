#!/usr/bin/env bash
# What the learned stop buys (`stepnet run --termination`): te and mnb on complete:8 and
# complete:16 at 8 B and 4 KiB, each node's own time (node_us_median, the figure compared with Open
# MPI), with --termination detect (every repetition detects its end: D + 1 slots of empty frames
# after the last node is done) and learn (the default: only the first of each size does), and,
# with --baseline DIR, the stepnet and stepnet-node of another build (its defaults) as a third
# variant. The variants alternate run by run, so that they see the same machine state; prints the
# median over --reps rounds per variant and the ratio of each to detect (below 1: faster).
# --security none, so that the runtime alone is measured. Figures, not a test.
#
#   scripts/bench_termination.sh [--reps N] [--baseline DIR] [--csv FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=5 baseline="" csv=""
while [ $# -gt 0 ]; do
    case "$1" in --reps | --baseline | --csv)
        [ $# -ge 2 ] || { echo "bench_termination: $1 needs a value (see --help)" >&2; exit 2; } ;;
    esac
    case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --csv) csv="$2"; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "bench_termination: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$reps" =~ ^[0-9]+$ ]] && [ "$reps" -ge 1 ] ||
    { echo "bench_termination: --reps '$reps': expected a positive integer" >&2; exit 2; }
if [ -n "$baseline" ] && { [ ! -x "$baseline/stepnet" ] || [ ! -x "$baseline/stepnet-node" ]; }; then
    echo "bench_termination: --baseline '$baseline': expected a directory holding stepnet and" \
        "stepnet-node" >&2
    exit 2
fi
[ -x build/stepnet ] && [ -x build/stepnet-node ] || scripts/setup.sh >/dev/null
. scripts/bench_lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

variants=(detect learn)
[ -n "$baseline" ] && variants+=(baseline)
cases=()
for n in 8 16; do
    for c in te mnb; do
        for s in 8 4096; do cases+=("$c complete:$n $s"); done
    done
done
started=$(date +%s)
for r in $(seq "$reps"); do
    for i in "${!cases[@]}"; do
        read -r coll topo size <<<"${cases[$i]}"
        for v in "${variants[@]}"; do
            if [ "$v" = baseline ]; then
                bin=(env STEPNET_NODE="$baseline/stepnet-node" "$baseline/stepnet")
                extra=()
            else
                bin=(build/stepnet)
                extra=(--termination "$v")
            fi
            out=$("${bin[@]}" run --topo "$topo" --coll "$coll" --size "$size" --reps 21 \
                --warmup 1 --probes 2 --security none "${extra[@]}" --json 2>/dev/null) || true
            [ "$(jget verified "$out")" = true ] ||
                { echo "bench_termination: ${cases[$i]} ($v) failed" >&2; exit 1; }
            jget node_us_median "$out" >>"$tmp/$i.$v"
            echo >>"$tmp/$i.$v"
        done
    done
    echo "bench_termination: round $r of $reps done ($(($(date +%s) - started)) s)" >&2
done
printf '%-20s %6s' case size
for v in "${variants[@]}"; do printf ' %11s' "$v"; done
for v in "${variants[@]}"; do [ "$v" = detect ] || printf ' %9s' "$v/det"; done
echo
[ -n "$csv" ] && echo "case,size,variant,node_us_median,ratio_to_detect" >"$csv"
for i in "${!cases[@]}"; do
    read -r coll topo size <<<"${cases[$i]}"
    base=$(grep -v '^$' "$tmp/$i.detect" | median)
    printf '%-20s %6s' "$coll $topo" "$size"
    for v in "${variants[@]}"; do printf ' %11.1f' "$(grep -v '^$' "$tmp/$i.$v" | median)"; done
    for v in "${variants[@]}"; do
        m=$(grep -v '^$' "$tmp/$i.$v" | median)
        ratio=$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
        [ "$v" = detect ] || printf ' %9s' "$ratio"
        [ -n "$csv" ] && echo "$coll $topo,$size,$v,$m,$ratio" >>"$csv"
    done
    echo
done
echo "node_us_median in us (each node's own time, averaged over the nodes; median of 21"
echo "repetitions per run, then over $reps rounds); $(nproc) cores"
