#!/usr/bin/env bash
# What the learned stop buys (`stepnet run --termination`): te and mnb on complete:8 and
# complete:16 at 8 B and 4 KiB, each node's own time (node_us_median, the figure compared with Open
# MPI), with --termination detect (every repetition detects its end: D + 1 slots of empty frames
# after the last node is done) and learn (the default: only the first of each size does), and,
# with --baseline DIR, the stepnet and stepnet-node of another build (its defaults) as a third
# variant; ratios to detect. scripts/bench_variants.sh runs it. Figures, not a test.
#
#   scripts/bench_termination.sh [--reps N] [--baseline DIR] [--csv FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h | --help) sed -n '2,9p' "$0"; exit 0 ;; esac
for a in "$@"; do
    [ "$a" != --variant ] || { echo "bench_termination: --variant is bench_variants.sh's" >&2; exit 2; }
done
BENCH_NAME=bench_termination exec scripts/bench_variants.sh --variant "detect=--termination detect" \
    --variant "learn=--termination learn" "$@"
