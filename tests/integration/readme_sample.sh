#!/usr/bin/env bash
# README.md's sample outputs are what the programs print today (scripts/readme_sample.sh --check:
# every sample's command run again, its lines against the block's with numbers masked), and the
# check fails, with a diff, on a README whose block lacks a line the program prints. Runs
# `stepnet run` on 127.0.0.1 with port 0 (local nodes).
set -uo pipefail
: "${STEPNET:?STEPNET is not set: run this test through ctest}"
: "${STEPNET_NODE:?STEPNET_NODE is not set: run this test through ctest}"
: "${STEPNET_SRC:?STEPNET_SRC is not set: run this test through ctest}"
script=$STEPNET_SRC/scripts/readme_sample.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
if ! "$script" --check >"$dir/out" 2>&1; then
    echo "FAIL README.md's samples differ from the programs' output:"
    cat "$dir/out"
    fails=$((fails + 1))
fi
# The same README without a line of its first sample (trace_hash): the check must fail and say so.
awk '/^<!-- sample:begin /{inside=1} /^<!-- sample:end -->$/{inside=0}
     !(inside && /^  trace_hash /)' "$STEPNET_SRC/README.md" >"$dir/README.md"
if cmp -s "$dir/README.md" "$STEPNET_SRC/README.md"; then
    echo "FAIL README.md's first sample has no trace_hash line to leave out"
    fails=$((fails + 1))
elif "$script" --check --readme "$dir/README.md" >"$dir/out" 2>&1; then
    echo "FAIL a sample without its trace_hash line passed the check:"
    cat "$dir/out"
    fails=$((fails + 1))
elif ! grep -q '^+  trace_hash ' "$dir/out"; then
    echo "FAIL the check of a sample without its trace_hash line does not show the line:"
    cat "$dir/out"
    fails=$((fails + 1))
fi
[ $fails -eq 0 ] || exit 1
echo "PASS README.md's samples match the programs' output, and a missing line is caught"
