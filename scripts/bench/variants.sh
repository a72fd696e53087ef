#!/usr/bin/env bash
# Variants of stepnet's options side by side: te and mnb on complete:8 and complete:16 at 8 B and
# 4 KiB, each node's own time (node_us_median, the figure compared with Open MPI), once per
# --variant NAME=OPTIONS (extra options of `stepnet run`, split on spaces) and, with --baseline DIR,
# with the stepnet and stepnet-node of another build (its defaults) as a variant named baseline.
# The variants alternate run by run, so that they see the same machine state; prints the median
# over --reps rounds per variant and the ratio of each to the first (below 1: faster).
# --security none, so that the runtime alone is measured. Figures, not a test.
# scripts/bench/termination.sh and the coordinator's priority in docs/performance.md use it.
#
#   scripts/bench/variants.sh --variant NAME=OPTIONS... [--reps N] [--baseline DIR] [--csv FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=${BENCH_NAME:-bench/variants} # bench/termination runs this script under its name
me=$BENCH_NAME
reps=5 baseline="" csv=""
variants=() opts=()
variant_add() { # variant_add NAME=OPTIONS: one more --variant
    [[ "$1" =~ ^[A-Za-z0-9_-]+= ]] && [ "${1%%=*}" != baseline ] ||
        bench_die "--variant '$1': expected NAME=OPTIONS (NAME of letters, digits, _ and -, not baseline)"
    local v
    for v in "${variants[@]}"; do
        [ "$v" != "${1%%=*}" ] || bench_die "--variant name '$v' given twice"
    done
    variants+=("${1%%=*}")
    opts+=("${1#*=}")
}
bench_args reps baseline csv "--variant - call:variant_add" -- "$@"
[ ${#variants[@]} -ge 1 ] || bench_die "give at least one --variant NAME=OPTIONS"
if [ -n "$baseline" ] && { [ ! -x "$baseline/stepnet" ] || [ ! -x "$baseline/stepnet-node" ]; }; then
    echo "$me: --baseline '$baseline': expected a directory holding stepnet and" \
        "stepnet-node" >&2
    exit 2
fi
[ -x build/stepnet ] && [ -x build/stepnet-node ] || scripts/setup.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
        for k in "${!variants[@]}"; do
            v=${variants[$k]}
            if [ "$v" = baseline ]; then
                bin=(env STEPNET_NODE="$baseline/stepnet-node" "$baseline/stepnet")
                extra=()
            else
                bin=(build/stepnet)
                read -r -a extra <<<"${opts[$k]}"
            fi
            out=$("${bin[@]}" run --topo "$topo" --coll "$coll" --size "$size" --reps 21 \
                --warmup 1 --probes 2 --security none "${extra[@]}" --json 2>/dev/null) || true
            [ "$(jget verified "$out")" = true ] ||
                { echo "$me: ${cases[$i]} ($v) failed" >&2; exit 1; }
            jget node_us_median "$out" >>"$tmp/$i.$v"
            echo >>"$tmp/$i.$v"
        done
    done
    echo "$me: round $r of $reps done ($(($(date +%s) - started)) s)" >&2
done
printf '%-20s %6s' case size
variant_head "${variants[@]}"
echo
[ -n "$csv" ] && echo "case,size,variant,node_us_median,ratio_to_${variants[0]}" >"$csv"
for i in "${!cases[@]}"; do
    read -r coll topo size <<<"${cases[$i]}"
    printf '%-20s %6s' "$coll $topo" "$size"
    variant_row "$tmp" "$i" "$csv" "$coll $topo,$size" "${variants[@]}"
    echo
done
echo "node_us_median in us (each node's own time, averaged over the nodes; median of 21"
echo "repetitions per run, then over $reps rounds); $(nproc) cores"
