#!/usr/bin/env bash
# Integration test of IPv6 (docs/deploy.md, "Addresses and ports"): a local run and join runs
# with bracketed literals ([::1]:0), nodes listening and dialling over ::1 (given --listen ::1, and
# by default: the wildcard of their data host's family), and persistent daemons on [::1]. Exits 77
# (CTest: skipped) where this machine has no ::1.
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program}
if ! ip -6 addr show dev lo 2>/dev/null | grep -q '::1/128'; then
    echo "addr_ipv6: no ::1 on this machine: skipped"
    exit 77
fi
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL $*"; exit 1; }
jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }
wait_for() {
    for _ in $(seq 100); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1 within 10 s: $(cat "$1")"
}
key=$tmp/key
"$stepnet" keygen "$key" 2>/dev/null

out=$(timeout 60 "$stepnet" run --topo ring:4 --coll te --listen '[::1]:0' --reps 1 --json)
[ "$(jget verified "$out")" = true ] || fail "local run on [::1]: $out"
echo "ok local run, --listen [::1]:0"

# A join run over ::1: three nodes joining [::1]:PORT with the node options "$@". Without
# --listen a node listens on the wildcard of the family it reaches the coordinator with (:: here),
# the family of the address it announces.
join_runs=0
join_run() {
    join_runs=$((join_runs + 1))
    local c=$tmp/coord$join_runs
    timeout 60 "$stepnet" run --topo ring:3 --coll te --nodes join --listen '[::1]:0' \
        --key "$key" --connect-timeout-ms 5000 --reps 1 --json >"$c.out" 2>"$c.err" &
    local cpid=$!
    pids+=("$cpid")
    wait_for "$c.err" 'stepnet-node --join'
    local caddr
    caddr=$(grep -o 'join [^ ]*' "$c.err" | head -n1 | cut -d' ' -f2)
    case "$caddr" in "[::1]:"*) ;; *) fail "coordinator address $caddr is not [::1]:PORT" ;; esac
    for i in 0 1 2; do
        timeout 60 "$node" --join "$caddr" "$@" --key "$key" --quiet >/dev/null 2>"$tmp/n$i.err" &
        pids+=("$!")
    done
    wait "$cpid" || fail "join run over ::1 ($*) failed: $(cat "$c.err")"
    local out
    out=$(cat "$c.out")
    [ "$(jget verified "$out")" = true ] || fail "join run over ::1 ($*): $out"
    # the log names each node's link address as it is dialled: [::1]:PORT
    grep -qE 'joined from \[::1\]:[0-9]+ ' "$c.err" ||
        fail "no 'joined from [::1]:PORT' in $(cat "$c.err")"
}
join_run --listen ::1
echo "ok join mode over [::1], nodes with --listen ::1"
join_run
echo "ok join mode over [::1], nodes with the default --listen"

list=""
for i in 0 1 2; do
    "$node" --serve --listen '[::1]:0' --key "$key" --quiet >"$tmp/d$i.out" 2>"$tmp/d$i.err" &
    pids+=("$!")
    wait_for "$tmp/d$i.out" 'SERVE port='
    list="$list,[::1]:$(sed -n 's/SERVE port=//p' "$tmp/d$i.out")"
done
out=$(timeout 60 "$stepnet" run --topo ring:3 --coll te --nodes "${list#,}" --listen '[::1]:0' \
    --key "$key" --reps 1 --json)
[ "$(jget verified "$out")" = true ] || fail "daemon run over ::1: $out"
[ "$(jget nodes_mode "$out")" = daemons ] || fail "not a daemon run: $out"
echo "ok daemons on [::1]"
echo "addr_ipv6: all passed"
