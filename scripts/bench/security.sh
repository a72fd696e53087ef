#!/usr/bin/env bash
# What transport security costs (docs/security.md), measured in one run:
#   1. CPU per frame of sealing and opening alone (stepnet-rawprobe seal: the exact calls of
#      net/secure.c, in place) with each cipher the transport negotiates (XChaCha20-Poly1305, and
#      AES-256-GCM where the CPU has AES-NI), at 8 B, 1 KiB, 64 KiB and 1 MiB; then the CPU per
#      byte of every AEAD libsodium offers here (stepnet-rawprobe ciphers);
#   2. wall time of te on complete:8 and mnb on ring:8 at the same packet sizes, with security and
#      each cipher (--cipher aes256gcm, --cipher xchacha20poly1305) and with --security none,
#      alternating run by run (--reps rounds, default 5), each figure the median over the rounds
#      of stepnet's own median over its repetitions;
#   3. added CPU per frame end to end: the bare slot barrier (--idle-slots) on ring:2, CPU time of
#      the coordinator and both nodes (getrusage of the children) with and without security,
#      divided by the frames sent (two per slot, one each way).
#   4. with --lan RATE (root): te on complete:2 (two nodes joined by one link: the target of
#      docs/performance.md, sodium / none <= 1.10 at 1gbit) and on complete:8 at 64 KiB and 1 MiB in
#      a cluster of network namespaces whose interfaces are limited to RATE (tbf qdisc;
#      deploy/netns-cluster.sh --rate), i.e. a LAN of that speed instead of loopback, with and
#      without security. --lan-only skips parts 1-3.
# Figures, not a test; the machine is shared, so only the side-by-side ratios mean much.
#
#   scripts/bench/security.sh [--reps N] [--csv FILE] [--lan 1gbit [--lan-only]]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
BENCH_NAME=bench/security
reps=5 csv="" lan="" lan_only=0
bench_args reps csv "--lan lan text" "--lan-only lan_only flag" -- "$@"
[ -x build/stepnet ] && [ -x build/stepnet-rawprobe ] || scripts/setup.sh >/dev/null

sizes=(8 1024 65536 1048576)
[ -n "$csv" ] && echo "part,case,size,secure,none,unit,ratio" >"$csv"

if [ "$lan_only" = 0 ]; then
# the ciphers this CPU runs (AES-256-GCM needs AES-NI)
ciphers=(xchacha20poly1305)
build/stepnet-rawprobe seal --size 8 --iters 1 --cipher aes256gcm >/dev/null 2>&1 &&
    ciphers=(aes256gcm xchacha20poly1305)
echo "1. sealing and opening one frame (CPU, median of $reps; stepnet-rawprobe seal)"
printf '%-18s %9s %10s %10s %10s %12s\n' cipher size seal_us open_us total_us ns_per_byte
for c in "${ciphers[@]}"; do
    for s in "${sizes[@]}"; do
        iters=$((s >= 65536 ? 400 : 200000))
        out=$(for _ in $(seq "$reps"); do
            build/stepnet-rawprobe seal --size "$s" --iters "$iters" --cipher "$c"
        done)
        med() { printf '%s\n' "$out" | while read -r l; do kv "$1" "$l"; done | median; }
        printf '%-18s %9s %10.3f %10.3f %10.3f %12.3f\n' "$c" "$s" "$(med seal_us)" \
            "$(med open_us)" "$(med total_us)" "$(med ns_per_byte)"
        [ -n "$csv" ] && echo "seal $c,frame,$s,$(med total_us),,us,"  >>"$csv"
    done
done
echo

echo "1b. the AEADs libsodium offers on this CPU, 64 KiB messages (CPU ns per byte; stepnet-rawprobe ciphers)"
build/stepnet-rawprobe ciphers --size 65536 --iters 400 | tr ' ' '\n' | grep _ns_per_byte | sed 's/^/    /'
echo

echo "2. wall time, each cipher vs --security none (median of $reps alternating rounds)"
printf '%-5s %-12s %9s' coll topology size
for c in "${ciphers[@]}"; do printf ' %18s' "${c}_us"; done
printf ' %12s' none_us
for c in "${ciphers[@]}"; do printf ' %18s' "$c/none"; done
echo
for cs in "te complete:8" "mnb ring:8"; do
    coll=${cs%% *} topo=${cs#* }
    for s in "${sizes[@]}"; do
        declare -A vals=()
        for _ in $(seq "$reps"); do
            for mode in "${ciphers[@]}" none; do
                if [ "$mode" = none ]; then args=(--security none); else args=(--cipher "$mode"); fi
                j=$(build/stepnet run --topo "$topo" --coll "$coll" --size "$s" --probes 3 --reps 3 \
                    --warmup 1 "${args[@]}" --json 2>/dev/null)
                [ "$(jget verified "$j")" = true ] ||
                    { echo "bench/security: $coll $topo $s ($mode) did not verify" >&2; exit 1; }
                vals[$mode]+="$(jget wall_us_median "$j") "
            done
        done
        none=$(printf '%s\n' ${vals[none]} | median)
        printf '%-5s %-12s %9s' "$coll" "$topo" "$s"
        for c in "${ciphers[@]}"; do printf ' %18.1f' "$(printf '%s\n' ${vals[$c]} | median)"; done
        printf ' %12.1f' "$none"
        for c in "${ciphers[@]}"; do
            m=$(printf '%s\n' ${vals[$c]} | median)
            r=$(awk -v a="$m" -v b="$none" 'BEGIN {printf "%.2f", a / b}')
            printf ' %18s' "$r"
            [ -n "$csv" ] && echo "wall $c,$coll $topo,$s,$m,$none,us,$r" >>"$csv"
        done
        echo
        unset vals
    done
done
echo

echo "3. added CPU per frame end to end: the idle slot barrier on ring:2 (8 B frames)"
slots=100000
cpu() { # cpu MODE -> "user system" CPU seconds of one run and its children
    local t
    t=$( (build/stepnet run --topo ring:2 --coll mnb --idle-slots "$slots" --reps 1 --warmup 0 \
        --probes 0 --security "$1" >/dev/null 2>&1; times) | tail -n1)
    printf '%s\n' "$t" | awk '{gsub("s", "", $1); gsub("s", "", $2); split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2], s[1] * 60 + s[2]}'
}
us=() ss=() un=() sn=()
for _ in $(seq "$reps"); do
    read -r u s < <(cpu sodium); us+=("$u"); ss+=("$s")
    read -r u s < <(cpu none); un+=("$u"); sn+=("$s")
done
au=$(printf '%s\n' "${us[@]}" | median) as=$(printf '%s\n' "${ss[@]}" | median)
bu=$(printf '%s\n' "${un[@]}" | median) bs=$(printf '%s\n' "${sn[@]}" | median)
frames=$((slots * 2))
per=$(awk -v a="$au" -v b="$bu" -v f="$frames" 'BEGIN {printf "%.2f", (a - b) * 1e6 / f}')
printf '%d slots, %d frames: user CPU %.3f s with security, %.3f s without (system %.3f s and %.3f s)\n' \
    "$slots" "$frames" "$au" "$bu" "$as" "$bs"
printf 'added user CPU per frame (sealed once, opened once): %s us\n' "$per"
[ -n "$csv" ] && echo "cpu,idle ring:2,8,$au,$bu,s,$per" >>"$csv"
echo
fi
if [ -n "$lan" ]; then
    echo "4. te over a $lan LAN of network namespaces (median of $reps alternating rounds)"
    printf '%-5s %-12s %9s %14s %14s %7s %9s\n' coll topology size sodium_us none_us ratio overhead
    for topo in complete:2 complete:8; do
        for s in 65536 1048576; do
            compare_modes "$reps" "LAN te $topo $s" deploy/netns-cluster.sh --rate "$lan" -- \
                --topo "$topo" --coll te --size "$s" --probes 3 --reps 3 --warmup 1 --json
            a=$CMP_A b=$CMP_B ratio=$CMP_RATIO
            printf '%-5s %-12s %9s %14.1f %14.1f %7s %9s\n' te "$topo" "$s" "$a" "$b" "$ratio" "$CMP_OVER"
            [ -n "$csv" ] && echo "lan $lan,te $topo,$s,$a,$b,us,$ratio" >>"$csv"
        done
    done
    echo
fi
echo "($(nproc) cores, $(uname -m); libsodium $(dpkg-query -W -f='${Version}' libsodium23 2>/dev/null || echo '?'))"
