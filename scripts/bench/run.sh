#!/usr/bin/env bash
# Runtime benchmark: stepnet run over loopback next to the physical limits measured by
# stepnet-rawprobe in the same run (plain processes and sockets, no protocol, no verification):
#   1. one-way loopback latency and single-stream TCP bandwidth;
#   2. the idle slot barrier of stepnet (empty frames on every link) against the raw probe of the
#      same pattern, on ring:2, ring:8, ring:64 and torus:8x8;
#   3. te on complete:8 at 8 B, 64 KiB and 1 MiB per packet against the raw barrier moving frames
#      of the same size on the same links;
#   4. 256 node processes on this machine: the idle barrier of torus:16x16 against the raw probe,
#      with each node's descriptors and resident memory sampled while the slots run.
# stepnet and the raw probe alternate round by round (--reps rounds, default 5), so that both see
# the same machine state (on a shared VM it drifts by a factor of two within minutes); every
# figure is the median over the rounds. The runtime runs with --security none by default, so that
# the protocol is compared with the raw probe alone (scripts/bench/security.sh measures what
# security adds); --security sodium measures the default transport instead. stepnet waits for
# frames as `stepnet run` does by default (--spin-us 1000) or as --spin-us says; the raw probe runs
# twice per round, sleeping in poll and spinning for the same time, and the reference (`raw`) is
# the faster of the two medians (both are printed). Figures, not a test.
#
#   scripts/bench/run.sh [--reps N] [--csv FILE] [--security none|sodium] [--spin-us US]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/run
reps=5 csv="" security=none spin=1000
bench_args reps csv security "--spin-us spin int:0:1000000" -- "$@"
[ -x build/stepnet ] && [ -x build/stepnet-rawprobe ] || scripts/setup.sh >/dev/null

rawmed() { # rawmed KEY ARGS...: median of KEY over $reps rawprobe runs
    local key=$1; shift
    for _ in $(seq "$reps"); do kv "$key" "$(build/stepnet-rawprobe "$@")"; done | median
}
[ -n "$csv" ] && echo "case,topology,size,stepnet,raw,raw_sleep,raw_spin,unit,ratio" >"$csv"
row() { # row CASE TOPO SIZE STEPNET RAW_SLEEP RAW_SPIN UNIT: raw = the better of the two
    local ratio raw
    case "$7" in
    MB/s) raw=$(awk -v a="$5" -v b="$6" 'BEGIN {print (a > b ? a : b)}') ;;
    *) raw=$(awk -v a="$5" -v b="$6" 'BEGIN {print (a < b ? a : b)}') ;;
    esac
    ratio=$(awk -v a="$4" -v b="$raw" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
    printf '%-22s %-12s %9s %12.2f %12.2f %12.2f %12.2f %-8s %6s\n' "$1" "$2" "$3" "$4" "$raw" "$5" \
        "$6" "$7" "$ratio"
    [ -n "$csv" ] && echo "$1,$2,$3,$4,$raw,$5,$6,$7,$ratio" >>"$csv"
    return 0
}

lat=$(rawmed one_way_us latency --size 8 --iters 20000)
bw=$(rawmed MBps bandwidth --size 1048576 --bytes 2147483648)
echo "raw loopback: one-way latency $lat us (8 B ping-pong), stream bandwidth $bw MB/s (1 MiB writes), medians of $reps"
echo
printf '%-22s %-12s %9s %12s %12s %12s %12s %-8s %6s\n' case topology size stepnet raw raw_sleep \
    raw_spin unit ratio
# interleave CMD_STEPNET and CMD_RAW (sleeping, then spinning) for $reps rounds; prints
# "stepnet_median raw_sleep_median raw_spin_median"
pair() { # pair KEY_STEPNET KEY_RAW -- STEPNET-ARGS... -- RAW-ARGS...
    local ks=$1 kr=$2; shift 2
    [ "$1" = -- ] && shift
    local sargs=() rargs=()
    while [ "$1" != -- ]; do sargs+=("$1"); shift; done
    shift
    rargs=("$@")
    local svals=() rvals=() pvals=() out
    for _ in $(seq "$reps"); do
        out=$(build/stepnet run "${sargs[@]}" --security "$security" --spin-us "$spin" --reps 3 \
            --warmup 1 --probes 5 --json 2>/dev/null)
        [ "$(jget verified "$out")" = true ] || { echo "bench/run: stepnet run ${sargs[*]} failed" >&2; exit 1; }
        svals+=("$(jget "$ks" "$out")")
        rvals+=("$(kv "$kr" "$(build/stepnet-rawprobe "${rargs[@]}")")")
        pvals+=("$(kv "$kr" "$(build/stepnet-rawprobe "${rargs[@]}" --spin-us "$spin")")")
    done
    printf '%s %s %s\n' "$(printf '%s\n' "${svals[@]}" | median)" \
        "$(printf '%s\n' "${rvals[@]}" | median)" "$(printf '%s\n' "${pvals[@]}" | median)"
}
for topo in ring:2 ring:8 ring:64 torus:8x8; do
    slots=2000
    case "$topo" in ring:64 | torus:8x8) slots=500 ;; esac
    read -r us raw rawp < <(pair us_per_slot us_per_slot -- --topo "$topo" --coll bcast \
        --idle-slots "$slots" -- barrier --topo "$topo" --size 8 --slots "$slots")
    row "idle barrier" "$topo" 8 "$us" "$raw" "$rawp" us/slot
done
for size in 8 65536 1048576; do
    msgs=20
    read -r us raw rawp < <(pair us_per_step us_per_slot -- --topo complete:8 --coll te \
        --size "$size" --msgs "$msgs" -- barrier --topo complete:8 --size "$size" --slots "$msgs")
    row "te per step" complete:8 "$size" "$us" "$raw" "$rawp" us/slot
    # bandwidth: every step moves one packet over each of the 56 directed links
    mb=$(awk -v s="$size" -v u="$us" 'BEGIN {printf "%.1f", 56 * s / u}')
    rawmb=$(awk -v s="$size" -v u="$raw" 'BEGIN {printf "%.1f", 56 * s / u}')
    rawpmb=$(awk -v s="$size" -v u="$rawp" 'BEGIN {printf "%.1f", 56 * s / u}')
    row "te bandwidth" complete:8 "$size" "$mb" "$rawmb" "$rawpmb" MB/s
done
# 256 node processes on this machine: the idle barrier of torus:16x16 next to the raw probe, and
# each node's footprint sampled while the slots run (descriptors and resident memory of every
# stepnet-node, medians; the raw probe's processes hold their links only)
svals=() rvals=() pvals=() fds=() rss=()
for _ in $(seq "$reps"); do
    tmp=$(mktemp)
    build/stepnet run --topo torus:16x16 --coll bcast --idle-slots 3000 --reps 1 --warmup 0 \
        --probes 1 --security "$security" --spin-us "$spin" --json >"$tmp" 2>/dev/null &
    run=$!
    for _ in $(seq 200); do # up to 20 s for the 256 nodes to start and connect
        [ "$(pgrep -c -x stepnet-node || true)" -ge 256 ] && break
        sleep 0.1
    done
    sleep 2 # calibration done, the idle slots running
    for pid in $(pgrep -x stepnet-node); do
        n=$(find "/proc/$pid/fd" -mindepth 1 2>/dev/null | wc -l) || true
        r=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null) || true
        [ -n "$r" ] && fds+=("$n") && rss+=("$r")
    done
    wait "$run" || { echo "bench/run: the 256-node run failed" >&2; exit 1; }
    out=$(cat "$tmp")
    rm -f "$tmp"
    [ "$(jget verified "$out")" = true ] || { echo "bench/run: the 256-node run failed" >&2; exit 1; }
    svals+=("$(jget us_per_slot "$out")")
    rvals+=("$(kv us_per_slot "$(build/stepnet-rawprobe barrier --topo torus:16x16 --size 8 --slots 1000)")")
    pvals+=("$(kv us_per_slot "$(build/stepnet-rawprobe barrier --topo torus:16x16 --size 8 --slots 1000 \
        --spin-us "$spin")")")
done
row "idle barrier, 256 proc" torus:16x16 8 "$(printf '%s\n' "${svals[@]}" | median)" \
    "$(printf '%s\n' "${rvals[@]}" | median)" "$(printf '%s\n' "${pvals[@]}" | median)" us/slot
echo "  per node process while the 256-node run's slots ran: $(printf '%s\n' "${fds[@]}" | median) descriptors (links: 4), $(printf '%s\n' "${rss[@]}" | median) KiB resident (median of ${#rss[@]} samples)"
echo
echo "ratio = stepnet / raw: above 1 is slower for times, below 1 is slower for bandwidths; raw is"
echo "the better of raw_sleep (the raw probe sleeping in poll) and raw_spin (polling for --spin-us $spin"
echo "into every slot, as stepnet's nodes did)."
echo "stepnet generates and checks every payload byte at every hop; the raw probe sends a static buffer."
echo "($(nproc) cores, $(uname -m); local node processes share the cores, so slots of more than"
echo " two nodes are CPU-bound: the raw barrier of the same pattern is the limit, not the latency)"
