#!/bin/sh
# Fuzzes one target of tests/fuzz for N minutes with libFuzzer (clang, ASan + UBSan):
#   scripts/fuzz.sh TARGET MINUTES      TARGET: topo_spec, topo_file, wire_data, control, handshake
# Builds build-fuzz/ (CC=clang, -DSTEPNET_FUZZ=ON) and runs the target on a scratch copy of
# tests/fuzz/corpus/TARGET/, so the checked-in corpus only changes by hand. A crash leaves
# crash-* (the input) in build-fuzz/fuzz-TARGET/; add it to tests/fuzz/corpus/TARGET/ with the fix,
# and the CTest replay keeps it fixed.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET MINUTES (TARGET: topo_spec topo_file wire_data control handshake)" >&2
    exit 2
fi
target=$1
minutes=$2
src=$(cd "$(dirname "$0")/.." && pwd)
case $target in
topo_spec | topo_file | wire_data | control | handshake) ;;
*)
    echo "scripts/fuzz.sh: unknown target '$target'" >&2
    exit 2
    ;;
esac
case $minutes in
'' | *[!0-9]*)
    echo "scripts/fuzz.sh: MINUTES must be a whole number, not '$minutes'" >&2
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
cmake --build "$build" --target "fuzz_$target"
work=$build/fuzz-$target
mkdir -p "$work/corpus"
cp "$src/tests/fuzz/corpus/$target/"* "$work/corpus/" 2>/dev/null || true
cd "$work"
exec "$build/tests/fuzz/fuzz_$target" -max_total_time=$((minutes * 60)) -rss_limit_mb=2048 \
    -max_len=65536 -timeout=10 corpus
