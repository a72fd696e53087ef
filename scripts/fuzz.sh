#!/bin/sh
# Fuzzes the targets of tests/fuzz with libFuzzer (clang, ASan + UBSan): one target, or all of them
# in turn. The targets are the files tests/fuzz/fuzz_TARGET.c (CMake builds the same list). Builds
# build-fuzz/ (CC=clang, -DSTEPNET_FUZZ=ON) and runs each target on a scratch copy of
# tests/fuzz/corpus/TARGET/, so the checked-in corpus only changes by hand. scripts/fuzz.sh --help
# says the rest.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)

targets() {
    for f in "$src"/tests/fuzz/fuzz_*.c; do
        [ -e "$f" ] || continue
        f=${f##*/fuzz_}
        printf '%s\n' "${f%.c}"
    done
}

target_list() { # on one line
    targets | paste -sd' ' -
}

usage() {
    cat <<EOF
Usage: scripts/fuzz.sh TARGET DURATION
       scripts/fuzz.sh all DURATION
       scripts/fuzz.sh --list

Fuzzes one target of tests/fuzz, or every target in turn (all), for DURATION each with libFuzzer
(clang, AddressSanitizer and UndefinedBehaviorSanitizer). DURATION is whole minutes (10) or
seconds with an s (20s).

Targets (one per tests/fuzz/fuzz_TARGET.c): $(target_list)

The build is build-fuzz/ (CC=clang, -DSTEPNET_FUZZ=ON), separate from build/. Each target runs on
a scratch copy of tests/fuzz/corpus/TARGET/ in build-fuzz/fuzz-TARGET/, so the checked-in corpus
only changes by hand. An input that runs longer than the per-input timeout counts as a crash:
\$STEPNET_FUZZ_TIMEOUT seconds, 10 by default, about a hundred times the slowest input a target
accepts in this build (the topology targets refuse specs over a 4 MiB memory budget,
FUZZ_TOPO_BUDGET in tests/fuzz/fuzz.h, before building them). A crash leaves its input as
build-fuzz/fuzz-TARGET/crash-* (timeout-* for a timeout): fix the bug and add the input to
tests/fuzz/corpus/TARGET/, and the CTest replay (test fuzz_TARGET) keeps it fixed.

Exit status: 0 when no target crashed, 1 when one did (all: every target still runs, and the
ones that crashed are named), 2 bad usage or no clang.

Examples:
  scripts/fuzz.sh wire_data 10      # ten minutes
  scripts/fuzz.sh all 20s           # every target for 20 seconds
EOF
}

case ${1:-} in
-h | --help)
    usage
    exit 0
    ;;
--list)
    targets
    exit 0
    ;;
esac
if [ $# -ne 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET|all DURATION (scripts/fuzz.sh --help)" >&2
    exit 2
fi
d=$2
unit=60
case $d in
*s)
    d=${d%s}
    unit=1
    ;;
esac
d=$(printf '%s' "$d" | sed 's/^0*//') # no octal
case $d in
'' | *[!0-9]*)
    echo "scripts/fuzz.sh: DURATION must be whole minutes (10) or seconds (20s), above 0, not '$2'" >&2
    exit 2
    ;;
esac
seconds=$((d * unit))
if [ "$1" = all ]; then
    run=$(targets)
else
    targets | grep -qx -- "$1" || {
        echo "scripts/fuzz.sh: unknown target '$1' (targets: $(target_list))" >&2
        exit 2
    }
    run=$1
fi
timeout=${STEPNET_FUZZ_TIMEOUT:-10}
case $timeout in
'' | *[!0-9]* | 0)
    echo "scripts/fuzz.sh: STEPNET_FUZZ_TIMEOUT must be whole seconds, not '$timeout'" >&2
    exit 2
    ;;
esac
command -v clang >/dev/null || {
    echo "scripts/fuzz.sh: needs clang (libFuzzer)" >&2
    exit 2
}
build=$src/build-fuzz
CC=clang cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEPNET_FUZZ=ON \
    -DSTEPNET_MANPAGES=OFF >/dev/null
# shellcheck disable=SC2046,SC2086 # one word per target
cmake --build "$build" --target $(printf 'fuzz_%s ' $run)
crashed=""
for t in $run; do
    work=$build/fuzz-$t
    mkdir -p "$work/corpus"
    cp "$src/tests/fuzz/corpus/$t/"* "$work/corpus/" 2>/dev/null || true
    echo "scripts/fuzz.sh: $t for $seconds s (per-input timeout $timeout s) in $work" >&2
    (cd "$work" && "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
        -max_len=65536 -timeout="$timeout" corpus) || crashed="$crashed $t"
done
if [ -n "$crashed" ]; then
    echo "scripts/fuzz.sh: crashed:$crashed (inputs in $build/fuzz-TARGET/)" >&2
    exit 1
fi
