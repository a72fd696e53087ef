#!/usr/bin/env bash
# Everything CI runs: install what is missing, build with warnings as errors, check the format,
# run every test; build (without running the tests) Release with GCC and RelWithDebInfo and
# Release with clang, warnings as errors, so that no compiler or optimisation level warns; then
# build with AddressSanitizer + UndefinedBehaviorSanitizer and run every test again except those
# labelled `heavy` (gigabyte frames and long fault loops: the same code paths as lighter tests, at a
# size or length the sanitizers' memory and time overhead cannot afford on CI's 2 cores); and run
# the simulator's threaded stepping (test_sim_threads) under ThreadSanitizer.
#
#   scripts/test.sh            everything above: the gate before a merge
#   scripts/test.sh --quick    install and build as above, then only the tests labelled `unit`
#                              (tests/unit, the fuzz corpus replays, the tree's and the docs' checks;
#                              about 30 s on 2 cores once built)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case $# in
0) ;;
1) case "$1" in
   --quick) quick=1 ;;
   -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
   *) echo "test: unknown argument '$1': expected --quick or --help (none: the full gate)" >&2
      exit 2 ;;
   esac ;;
*) echo "test: too many arguments ('$*'): expected at most one, --quick or --help" >&2; exit 2 ;;
esac

scripts/setup.sh -DSTEPNET_WERROR=ON
if [ "$quick" = 1 ]; then
    ctest --test-dir build --output-on-failure -j2 -L unit
    echo "test: the unit tests passed (--quick: no format check, integration, other builds or sanitizers)"
    exit 0
fi
scripts/format.sh --check
ctest --test-dir build --output-on-failure -j2

for cfg in gcc:Release clang:RelWithDebInfo clang:Release; do
    cc=${cfg%%:*} type=${cfg#*:}
    dir=build-$cc-${type,,}
    echo "test: building $type with $cc, warnings as errors ($dir)"
    CC=$cc cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DSTEPNET_WERROR=ON \
        -DSTEPNET_MANPAGES=OFF >/dev/null
    cmake --build "$dir" >"$dir/build.log" 2>&1 || { cat "$dir/build.log"; exit 1; }
done

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTEPNET_SANITIZE=ON \
    -DSTEPNET_WERROR=ON >/dev/null
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j2 -LE heavy
# the simulator's parallel stepping under ThreadSanitizer (clang; only the test that splits slots)
CC=clang cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEPNET_WERROR=ON \
    -DSTEPNET_MANPAGES=OFF -DCMAKE_C_FLAGS=-fsanitize=thread \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build-tsan --target test_sim_threads >build-tsan/build.log 2>&1 ||
    { cat build-tsan/build.log; exit 1; }
TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 build-tsan/tests/test_sim_threads
echo "test: all tests passed (plain, ASan+UBSan, and the threaded simulator under TSan; Release with GCC, RelWithDebInfo and Release with clang built)"
