#!/usr/bin/env bash
# Simulator scale benchmark: packet-hops per second and peak memory of `stepnet sim` on large
# runs. Prints one row per case with the median wall time over the repetitions; with --csv FILE
# also writes the rows as CSV. Figures, not a test: nothing here fails on a slow machine.
#
#   scripts/bench/sim.sh [--reps N] [--big] [--csv FILE] [--threads N] [--baseline BIN]
#                        [--base-threads N]
#     --reps N        repetitions of each small case (default 3; the large cases run once)
#     --big           add the 10^6-node torus scatter cases (about a minute each)
#     --threads N     `stepnet sim --threads N` (default: stepnet's, the CPUs it may use); the
#                     threads column says how many stepped each case (1 where the algorithm
#                     steps serially)
#     --baseline BIN  also run every case with another stepnet binary (e.g. a copy built from an
#                     older commit), alternating run by run, and print its hops/s, peak memory
#                     and the ratio new/baseline next to each row (the trace_hash must agree)
#     --base-threads N  pass --threads N to the baseline (a build that knows the option: e.g.
#                     build/stepnet itself with --base-threads 1, to measure the threads' gain)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/sim
reps=3 big=0 csv="" base="" threads="" bthreads=""
bench_args reps csv "--baseline base text" "--big big flag" "--threads threads int:1:64" \
    "--base-threads bthreads int:1:64" -- "$@"
[ -x build/stepnet ] || scripts/setup.sh >/dev/null
if [ -n "$base" ] && [ ! -x "$base" ]; then
    echo "bench/sim: --baseline '$base' is not an executable file" >&2
    exit 2
fi
if [ -n "$bthreads" ] && [ -z "$base" ]; then
    echo "bench/sim: --base-threads needs --baseline BIN" >&2
    exit 2
fi

# size|collective|topology|ports[|algorithm] (auto-selection without one)
cases=(
    "small|te|torus:32x32|multi"
    "small|te|torus:32x32|multi|te-route"
    "small|te|torus:32x32|single"
    "small|te|torus:32x32|single|te-a2"
    "small|te|torus:32x32|single|te-route"
    "small|te|hypercube:10|multi"
    "small|te|hypercube:10|single"
    "small|te|hypercube:10|single|te-route"
    "large|te|hypercube:12|multi"
    "large|te|hypercube:12|single"
    "large|te|hypercube:12|single|te-route"
    "large|bcast|torus:1000x1000|multi"
    "large|bcast|torus:1000x1000|single"
)
[ "$big" = 1 ] && cases+=("large|scatter|torus:1000x1000|multi" "large|gather|torus:1000x1000|multi")

hdr_base=""
[ -n "$base" ] && hdr_base=$(printf ' %9s %13s %9s %7s' base_s base_hops_s base_MiB ratio)
printf '%-8s %-17s %-7s %-17s %9s %9s %9s %13s %9s %13s %9s %7s%s\n' coll topology ports algorithm \
    steps predicted lower packets wall_s hops_per_s rss_MiB threads "$hdr_base"
[ -n "$csv" ] && echo "coll,topology,ports,algorithm,steps,predicted,lower_bound,packets,wall_s_median,hops_per_s,peak_rss_kib,reps,threads${base:+,base_wall_s_median,base_hops_per_s,base_peak_rss_kib,ratio}" >"$csv"
# one_run BIN [THREADS] -> the JSON of one run of the current case (fails the script if it does
# not verify)
one_run() {
    local o targs=()
    [ -n "${2:-}" ] && targs=(--threads "$2")
    o=$("$1" sim --topo "$topo" --coll "$coll" --ports "$ports" --algo "${algo:-auto}" --json \
        --no-progress "${targs[@]}")
    [ "$(jget verified "$o")" = true ] || { echo "bench/sim: $coll on $topo did not verify ($1)" >&2; exit 1; }
    printf '%s' "$o"
}
for c in "${cases[@]}"; do
    IFS='|' read -r size coll topo ports algo <<<"$c"
    n=$reps
    [ "$size" = large ] && n=1
    walls=() bwalls=() rss=0 brss=0 out="" bout=""
    for _ in $(seq "$n"); do
        if [ -n "$base" ]; then # alternate, baseline first
            bout=$(one_run "$base" "$bthreads")
            bwalls+=("$(jget wall_s "$bout")")
            r=$(jget peak_rss_kb "$bout")
            [ "$r" -gt "$brss" ] && brss=$r
        fi
        out=$(one_run build/stepnet "$threads")
        walls+=("$(jget wall_s "$out")")
        r=$(jget peak_rss_kb "$out")
        [ "$r" -gt "$rss" ] && rss=$r
        if [ -n "$base" ] && [ "$(jget trace_hash "$out")" != "$(jget trace_hash "$bout")" ]; then
            echo "bench/sim: $coll on $topo: trace_hash differs from the baseline's" >&2
            exit 1
        fi
    done
    wall=$(printf '%s\n' "${walls[@]}" | median)
    packets=$(jget packets "$out")
    hps=$(awk -v p="$packets" -v w="$wall" 'BEGIN {printf "%.3g", (w > 0 ? p / w : 0)}')
    extra="" cextra=""
    if [ -n "$base" ]; then
        bwall=$(printf '%s\n' "${bwalls[@]}" | median)
        bhps=$(awk -v p="$packets" -v w="$bwall" 'BEGIN {printf "%.3g", (w > 0 ? p / w : 0)}')
        ratio=$(awk -v a="$bwall" -v b="$wall" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
        extra=$(printf ' %9.2f %13s %9d %7s' "$bwall" "$bhps" $((brss / 1024)) "$ratio")
        cextra=",$bwall,$bhps,$brss,$ratio"
    fi
    nth=$(jget threads "$out")
    printf '%-8s %-17s %-7s %-17s %9s %9s %9s %13s %9.2f %13s %9d %7s%s\n' "$coll" "$topo" "$ports" \
        "$(jget algorithm "$out")" "$(jget steps "$out")" "$(jget predicted_steps "$out")" \
        "$(jget lower_bound "$out")" "$packets" "$wall" "$hps" $((rss / 1024)) "${nth:-1}" "$extra"
    [ -n "$csv" ] && echo "$coll,$topo,$ports,$(jget algorithm "$out"),$(jget steps "$out"),$(jget predicted_steps "$out"),$(jget lower_bound "$out"),$packets,$wall,$hps,$rss,$n,${nth:-1}$cextra" >>"$csv"
done
echo "(median wall time over $reps runs for the small cases, one run for the large ones${base:+; ratio = baseline wall / new wall, runs alternated}; $(nproc) cores, $(uname -m))"
