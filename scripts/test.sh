#!/usr/bin/env bash
# Everything CI runs: install what is missing, build, check the format, run every test, then build
# with AddressSanitizer + UndefinedBehaviorSanitizer and run every test again.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/format.sh --check
ctest --test-dir build --output-on-failure -j2

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTEPNET_SANITIZE=ON >/dev/null
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j2
echo "test: all tests passed (plain and ASan+UBSan)"
