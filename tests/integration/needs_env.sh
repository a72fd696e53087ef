#!/usr/bin/env bash
# Test hygiene: a test binary started outside ctest, without the environment ctest gives it
# (STEPNET, STEPNET_NODE), must fail (non-zero) and say which variable to set, never pass by
# skipping. usage: needs_env.sh TEST-BINARY
set -uo pipefail
bin=${1:?usage: needs_env.sh TEST-BINARY}
out=$(env -u STEPNET -u STEPNET_NODE -u STEPNET_SRC "$bin" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "FAIL needs_env: $bin passed without STEPNET:"
    echo "$out"
    exit 1
fi
if ! grep -q "STEPNET is not set: run this test through ctest" <<<"$out"; then
    echo "FAIL needs_env: $bin failed (status $rc) without naming STEPNET and ctest:"
    echo "$out"
    exit 1
fi
echo "needs_env: $bin fails with status $rc and names STEPNET"
