# Helpers shared by the benchmark scripts (sourced, not run): reading one-line JSON reports and
# key=value probe lines, medians, and the side-by-side comparison of two stepnet variants.

jget() { # jget KEY JSON -> the raw value of KEY in a flat one-line JSON object
    local v
    v=$(printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2-)
    printf '%s' "${v//\"/}"
}

kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; } # kv KEY "a=1 b=2" -> 1

# median: of the numbers on stdin, one per line (empty lines ignored)
median() { grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# compare_modes REPS LABEL CMD...: runs CMD --security sodium and CMD --security none REPS times,
# alternating, each printing one JSON report; sets CMP_A and CMP_B to the medians of their
# wall_us_median, CMP_RATIO and CMP_OVER to the ratio and the overhead in percent.
compare_modes() {
    local reps=$1 label=$2
    shift 2
    local sv=() nv=() j mode
    for _ in $(seq "$reps"); do
        for mode in sodium none; do
            j=$("$@" --security "$mode" 2>/dev/null)
            [ "$(jget verified "$j")" = true ] || { echo "bench: $label ($mode) did not verify" >&2; exit 1; }
            if [ "$mode" = sodium ]; then sv+=("$(jget wall_us_median "$j")"); else nv+=("$(jget wall_us_median "$j")"); fi
        done
    done
    CMP_A=$(printf '%s\n' "${sv[@]}" | median)
    CMP_B=$(printf '%s\n' "${nv[@]}" | median)
    CMP_RATIO=$(awk -v a="$CMP_A" -v b="$CMP_B" 'BEGIN {printf "%.2f", a / b}')
    CMP_OVER=$(awk -v a="$CMP_A" -v b="$CMP_B" 'BEGIN {printf "%+.0f%%", (a / b - 1) * 100}')
}

# variant_head NAME...: the column heads of variant_row: each name, then each but the first over it.
variant_head() {
    local v
    for v in "$@"; do printf ' %12s' "$v"; done
    for v in "${@:2}"; do printf ' %14s' "$v/$1"; done
}

# variant_row DIR I CSV CSVHEAD NAME...: the medians of case I for each variant NAME (the numbers
# in DIR/I.NAME, one per line), then the ratio of each but the first to the first (below 1: less
# than the first); appends "CSVHEAD,NAME,median,ratio" per variant to CSV when it is not empty.
variant_row() {
    local dir=$1 i=$2 csv=$3 head=$4
    shift 4
    local base m ratio v
    base=$(median <"$dir/$i.$1")
    for v in "$@"; do printf ' %12.2f' "$(median <"$dir/$i.$v")"; done
    for v in "$@"; do
        m=$(median <"$dir/$i.$v")
        ratio=$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
        [ "$v" = "$1" ] || printf ' %14s' "$ratio"
        [ -z "$csv" ] || echo "$head,$v,$m,$ratio" >>"$csv"
    done
}
