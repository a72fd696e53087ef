#!/usr/bin/env bash
# What the learned stop buys (`stepnet run --termination`): te and mnb on complete:8 and
# complete:16 at 8 B and 4 KiB, each node's own time (node_us_median, the figure compared with Open
# MPI), with --termination detect (every repetition detects its end: D + 1 slots of empty frames
# after the last node is done) and learn (the default: only the first of each size does), and,
# with --baseline DIR, the stepnet and stepnet-node of another build (its defaults) as a third
# variant; ratios to detect. scripts/bench/variants.sh runs it. Figures, not a test.
#
#   scripts/bench/termination.sh [--reps N] [--baseline DIR] [--csv FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/termination
# the options are scripts/bench/variants.sh's (bench_args there), but for --variant, which is this
# script's own pair
for a in "$@"; do
    case "$a" in
    -h | --help) bench_help; exit 0 ;;
    --variant) bench_die "--variant is scripts/bench/variants.sh's (this script gives two)" ;;
    esac
done
BENCH_NAME=bench/termination exec scripts/bench/variants.sh --variant "detect=--termination detect" \
    --variant "learn=--termination learn" "$@"
