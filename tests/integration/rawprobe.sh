#!/usr/bin/env bash
# stepnet-rawprobe, the yardstick of scripts/bench/run.sh and docs/performance.md: every mode runs
# briefly on 127.0.0.1 and prints its one key=value line with positive figures; the payload mode
# verifies what it generated; bad options are refused with status 2. Figures are not judged.
set -uo pipefail
probe=${STEPNET_RAWPROBE:?STEPNET_RAWPROBE is not set: run this test through ctest}
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# run MODE KEY... -- ARGS: the mode's line must hold every KEY with a positive number
run() {
    local mode=$1 keys=() out
    shift
    while [ "$1" != -- ]; do keys+=("$1"); shift; done
    shift
    if ! out=$(timeout 120 "$probe" "$mode" "$@" 2>&1); then
        fail "$mode $*: status $?: $out"
        return
    fi
    case "$out" in "mode=$mode "*) ;; *) fail "$mode: line '$out'"; return ;; esac
    for k in "${keys[@]}"; do
        v=$(printf '%s\n' "$out" | tr ' ' '\n' | sed -n "s/^$k=//p")
        awk -v v="$v" 'BEGIN {exit !(v + 0 > 0)}' || fail "$mode: $k='$v' in '$out'"
    done
    LAST=$out
}
run latency one_way_us -- --size 8 --iters 200
run bandwidth MBps -- --size 65536 --bytes 16777216
run barrier us_per_slot -- --topo ring:4 --size 8 --slots 50
run barrier us_per_slot MBps -- --topo complete:4 --size 65536 --slots 10
run barrier us_per_slot spin_us -- --topo ring:4 --size 8 --slots 50 --spin-us 500
run seal seal_us open_us -- --size 1024 --iters 200
run ciphers secretstream_seal_ns_per_byte xchacha20poly1305_seal_ns_per_byte -- --size 4096 --iters 50
run payload fill_ns_per_byte check_ns_per_byte -- --size 65536 --links 3 --iters 20
case "$LAST" in *"verified=yes"*) ;; *) fail "payload did not verify: $LAST" ;; esac
"$probe" nosuchmode >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown mode is not refused with status 2"
"$probe" barrier --nosuch 1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option is not refused with status 2"
for bad in x -1 1000001; do
    "$probe" barrier --spin-us "$bad" >/dev/null 2>&1
    [ $? -eq 2 ] || fail "--spin-us $bad is not refused with status 2"
done
[ "$fails" -eq 0 ] && echo "rawprobe: all passed"
exit $((fails > 0))
