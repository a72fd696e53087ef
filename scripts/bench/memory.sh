#!/usr/bin/env bash
# Memory of `stepnet run` against its estimate (docs/limits.md), measured in one run: for each case
# the peak RSS of the largest process (GNU time's %M: the largest of stepnet and every node it
# spawned and reaped) next to the JSON's `memory_estimate` (per process). The estimate must be an upper one and, since payloads stream
# through bounded buffers (net/conn.h), within 4x of the peak: a case outside [1, 4] is flagged
# and the script exits 1. Figures, not a timed test.
#
#   scripts/bench/memory.sh [--security none|sodium]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/memory
security=none
bench_args security -- "$@"
[ -x build/stepnet ] && [ -x /usr/bin/time ] || scripts/setup.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
printf '%-52s %12s %12s %7s\n' case peak_KiB estimate_KiB est/peak
while read -r args; do
    # shellcheck disable=SC2086
    /usr/bin/time -f %M -o "$tmp/rss" build/stepnet run $args --reps 1 --warmup 0 --probes 2 \
        --security "$security" --json >"$tmp/out" 2>/dev/null || true
    peak=$(tail -n1 "$tmp/rss")
    est=$(( $(grep -o '"memory_estimate":[0-9]*' "$tmp/out" | cut -d: -f2 || echo 0) / 1024 ))
    ok=$(grep -o '"verified":[a-z]*' "$tmp/out" | cut -d: -f2 || echo false)
    ratio=$(awk -v e="$est" -v p="$peak" 'BEGIN {printf "%.2f", (p > 0 ? e / p : 0)}')
    flag=""
    if [ "$ok" != true ] || awk -v r="$ratio" 'BEGIN {exit !(r < 1 || r > 4)}'; then flag="  <- outside [1, 4] or not verified"; bad=1; fi
    printf '%-52s %12s %12s %7s%s\n' "$args" "$peak" "$est" "$ratio" "$flag"
done <<'CASES'
--topo ring:4 --coll te --size 8
--topo ring:4 --coll te --size 1048576
--topo ring:4 --coll te --size 67108864
--topo torus:3x3 --coll te --size 16777216
--topo hypercube:3 --coll mnb --size 16777216
--topo complete:8 --coll te --size 1048576
CASES
exit "$bad"
