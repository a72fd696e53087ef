#!/usr/bin/env bash
# Everything CI runs: install what is missing, build with warnings as errors, check the format,
# run every test; build (without running the tests) Release with GCC and RelWithDebInfo and
# Release with clang, warnings as errors, so that no compiler or optimisation level warns; then
# build with AddressSanitizer + UndefinedBehaviorSanitizer and run every test again.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh -DSTEPNET_WERROR=ON
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
    ctest --test-dir build-asan --output-on-failure -j2
echo "test: all tests passed (plain and ASan+UBSan; Release with GCC, RelWithDebInfo and Release with clang built)"
