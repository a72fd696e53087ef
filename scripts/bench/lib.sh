# Helpers shared by the benchmark drivers in scripts/bench/ (sourced, not run, from the repository
# root): the one argument parser (bench_args), reading one-line JSON reports and key=value probe
# lines, medians, and the side-by-side comparison of two stepnet variants.

# ---- arguments --------------------------------------------------------------------------------

# The options several drivers share, by name: "OPTION VARIABLE KIND" (see bench_args).
declare -A BENCH_COMMON=(
    [reps]="--reps reps int:1:1000"
    [rounds]="--rounds rounds int:1:100"
    [sizes]="--sizes sizes ints:1:16777216"
    [csv]="--csv csv text"
    [security]="--security security enum:none|sodium"
    [baseline]="--baseline baseline text"
)

# bench_die MESSAGE...: the message on stderr after the driver's name ($BENCH_NAME), then exit 2.
bench_die() { echo "${BENCH_NAME:-bench}: $*" >&2; exit 2; }

# bench_help: the driver's opening comment (its lines 2.. up to the first that is not a comment).
bench_help() { awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "scripts/bench/${0##*/}"; }

# bench_check OPTION VALUE KIND: exits 2 (bench_die) naming the option, the value and what is
# accepted unless VALUE is of KIND: int:MIN:MAX, ints:MIN:MAX (a list of them, separated by blanks),
# enum:A|B|... (one of them), list:A|B|... (a list of them), num (a decimal number, not negative),
# text or call:FUNC (anything).
bench_check() {
    local opt=$1 val=$2 kind=$3 lo hi w
    case "$kind" in
    int:* | ints:*)
        lo=${kind#*:} hi=${lo#*:} lo=${lo%%:*}
        [ "${kind%%:*}" = int ] || [ -n "${val// /}" ] ||
            bench_die "$opt '$val': expected integers from $lo to $hi, separated by blanks"
        for w in $val; do
            [[ "$w" =~ ^[0-9]{1,12}$ ]] && [ "$w" -ge "$lo" ] && [ "$w" -le "$hi" ] ||
                bench_die "$opt '$w': expected an integer from $lo to $hi"
        done
        [ "${kind%%:*}" = ints ] || [[ "$val" =~ ^[0-9]+$ ]] ||
            bench_die "$opt '$val': expected an integer from $lo to $hi" ;;
    enum:* | list:*)
        lo=${kind#*:} hi=${lo//|/, } # the values, and the same for a message
        [[ "$hi" != *", "* ]] || hi="${hi%, *} or ${hi##*, }"
        if [ "${kind%%:*}" = enum ]; then
            [[ "|$lo|" == *"|$val|"* ]] && [ -n "$val" ] || bench_die "$opt '$val': expected $hi"
        else
            [ -n "${val// /}" ] || bench_die "$opt '$val': expected one or more of $hi"
            for w in $val; do
                [[ "|$lo|" == *"|$w|"* ]] || bench_die "$opt '$w': expected $hi"
            done
        fi ;;
    num)
        [[ "$val" =~ ^[0-9]+(\.[0-9]+)?$ ]] || bench_die "$opt '$val': expected a number" ;;
    esac
}

# bench_args SPEC... -- ARGS...: the one argument parser of the drivers. Each SPEC is the name of
# a shared option (BENCH_COMMON: reps, rounds, sizes, csv, security, baseline) or a driver's own,
# "OPTION VARIABLE KIND": KIND is flag (VARIABLE=1, no value), call:FUNC (FUNC VALUE is called) or
# a kind of bench_check (VARIABLE=VALUE once checked). The variables keep the driver's defaults
# unless given. -h and --help print bench_help and exit 0; an option not in the table, a missing
# value or a bad one exits 2 with a message naming it.
bench_args() {
    local _ba_specs=() _ba_s _ba_opt _ba_var _ba_kind _ba_found
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        if [[ "$1" == --* ]]; then
            _ba_specs+=("$1")
        else
            [ -n "${BENCH_COMMON[$1]:-}" ] ||
                { echo "bench_args: no shared option '$1' (a bug in $0)" >&2; exit 70; }
            _ba_specs+=("${BENCH_COMMON[$1]}")
        fi
        shift
    done
    [ $# -gt 0 ] && shift # --
    while [ $# -gt 0 ]; do
        case "$1" in -h | --help) bench_help; exit 0 ;; esac
        _ba_found=""
        for _ba_s in "${_ba_specs[@]}"; do
            read -r _ba_opt _ba_var _ba_kind <<<"$_ba_s"
            [ "$_ba_opt" != "$1" ] || { _ba_found=1; break; }
        done
        [ -n "$_ba_found" ] || bench_die "unknown argument '$1' (see --help)"
        if [ "$_ba_kind" = flag ]; then
            printf -v "$_ba_var" 1
            shift
            continue
        fi
        [ $# -ge 2 ] || bench_die "$1 needs a value (see --help)"
        case "$_ba_kind" in
        call:*) "${_ba_kind#call:}" "$2" ;;
        *) bench_check "$1" "$2" "$_ba_kind"; printf -v "$_ba_var" '%s' "$2" ;;
        esac
        shift 2
    done
}

# ---- reports and figures ----------------------------------------------------------------------

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
