#!/usr/bin/env bash
# Integration test of host names and port ranges (docs/deploy.md, "Addresses and ports"): runs
# over `localhost` (local and join mode, the nodes dialling a host name), --port-range for the
# control and link listeners (the bound ports inside the range; a clear error when every port of
# the range is taken, named in the run's verdict), and exit 2 naming the value for bad ranges.
# IPv6 is addr_ipv6.sh.
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program}
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
# wait_for FILE REGEX: up to 10 s for a line of FILE to match
wait_for() {
    for _ in $(seq 100); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1 within 10 s: $(cat "$1")"
}
key=$tmp/key
"$stepnet" keygen "$key" 2>/dev/null

# 1. local mode with the control listener on a host name
out=$(timeout 60 "$stepnet" run --topo ring:4 --coll te --listen localhost:0 --reps 1 --json)
[ "$(jget verified "$out")" = true ] || fail "local run on localhost: $out"
echo "ok local run, --listen localhost:0"

# 2. a free range of 40 ports: find one by binding port 0 and taking the range above it
probe() { # a port that was free a moment ago (the kernel's choice), above 1024
    timeout 10 "$node" --join 127.0.0.1:9 --security none --insecure-ok --listen 127.0.0.1 \
        --connect-timeout-ms 1 2>/dev/null | sed -n 's/LISTEN port=//p' || true
}
base=$(probe)
[ -n "$base" ] || fail "could not find a free port"
[ "$base" -lt 65400 ] || base=40000
lo=$((base + 1)); hi=$((base + 40))

# 3. join mode: the coordinator on localhost inside the range, nodes joining by name, their link
#    listeners inside the range too
timeout 60 "$stepnet" run --topo ring:3 --coll te --nodes join --listen localhost:0 \
    --port-range "$lo-$hi" --key "$key" --reps 1 --json >"$tmp/coord.out" 2>"$tmp/coord.err" &
cpid=$!
pids+=("$cpid")
wait_for "$tmp/coord.err" 'stepnet-node --join'
cport=$(grep -o 'join [^ ]*' "$tmp/coord.err" | head -n1 | sed 's/.*://')
[ "$cport" -ge "$lo" ] && [ "$cport" -le "$hi" ] || fail "control port $cport outside $lo-$hi"
for i in 0 1 2; do
    adv=()
    [ $i = 0 ] && adv=(--advertise localhost) # neighbours resolve the name node 0 announces
    timeout 60 "$node" --join "localhost:$cport" --listen localhost --port-range "$lo-$hi" \
        --key "$key" --quiet "${adv[@]}" >"$tmp/n$i.out" 2>"$tmp/n$i.err" &
    pids+=("$!")
done
wait "$cpid" || fail "join run over localhost failed: $(cat "$tmp/coord.err"; for i in 0 1 2; do echo "node $i:"; cat "$tmp/n$i.out" "$tmp/n$i.err"; done)"
out=$(cat "$tmp/coord.out")
[ "$(jget verified "$out")" = true ] || fail "join run over localhost: $out"
for i in 0 1 2; do
    p=$(sed -n 's/LISTEN port=//p' "$tmp/n$i.out")
    [ -n "$p" ] && [ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ] || fail "node $i link port '$p' outside $lo-$hi"
done
grep -q "joined from localhost:" "$tmp/coord.err" || fail "node 0 did not announce localhost: $(cat "$tmp/coord.err")"
echo "ok join mode by host name, control port $cport and link ports inside $lo-$hi"

# 4. an exhausted range: a port held by a listener, then a range of only that port
timeout 30 "$node" --serve --listen 127.0.0.1:0 --security none --insecure-ok \
    >"$tmp/hold.out" 2>/dev/null &
pids+=("$!")
wait_for "$tmp/hold.out" 'SERVE port='
held=$(sed -n 's/SERVE port=//p' "$tmp/hold.out")
set +e
msg=$(timeout 30 "$stepnet" run --topo ring:3 --coll te --listen 127.0.0.1:0 --port-range "$held-$held" 2>&1)
rc=$?
set -e
[ $rc = 1 ] || fail "exhausted control range: status $rc: $msg"
echo "$msg" | grep -q "every port of --port-range $held-$held is in use" || fail "exhausted range message: $msg"
set +e
msg=$(timeout 30 "$node" --join 127.0.0.1:9 --security none --insecure-ok --listen 127.0.0.1 \
    --port-range "$held-$held" --connect-timeout-ms 500 2>&1)
rc=$?
set -e
[ $rc = 1 ] || fail "exhausted link range: status $rc: $msg"
echo "$msg" | grep -q "every port of --port-range $held-$held is in use" || fail "node exhausted range message: $msg"
# the run's verdict names the node that could not listen and its range: the node joins to say why
timeout 60 "$stepnet" run --topo ring:3 --coll te --nodes join --listen 127.0.0.1:0 --key "$key" \
    --reps 1 >"$tmp/ex.out" 2>"$tmp/ex.err" &
cpid=$!
pids+=("$cpid")
wait_for "$tmp/ex.err" 'stepnet-node --join'
caddr=$(grep -o 'join [^ ]*' "$tmp/ex.err" | head -n1 | cut -d' ' -f2)
timeout 60 "$node" --join "$caddr" --key "$key" --listen 127.0.0.1 --port-range "$held-$held" \
    --quiet >/dev/null 2>&1 &
pids+=("$!")
set +e
wait "$cpid"
rc=$?
set -e
verdict=$(grep '^stepnet run: ' "$tmp/ex.err" | tail -n1)
[ $rc = 1 ] || fail "join run with an exhausted link range: status $rc: $(cat "$tmp/ex.err")"
want="node [0-9]+: cannot listen on 127.0.0.1: every port of --port-range"
echo "$verdict" | grep -qE "$want $held-$held is in use" ||
    fail "join run verdict does not name the exhausted range: $verdict"
# a local run: two ports for the control listener and eight nodes (the first free a moment ago)
set +e
msg=$(timeout 60 "$stepnet" run --topo ring:8 --coll te --listen 127.0.0.1:0 --reps 1 \
    --port-range "$((hi - 1))-$hi" 2>&1 >/dev/null)
rc=$?
set -e
verdict=$(echo "$msg" | grep '^stepnet run: ' | tail -n1)
[ $rc = 1 ] || fail "local run with 2 ports for 8 nodes: status $rc: $msg"
echo "$verdict" | grep -qE "$want $((hi - 1))-$hi is in use" ||
    fail "local run verdict does not name the exhausted range: $verdict"
echo "ok exhausted ranges named (port $held; $((hi - 1))-$hi for 8 local nodes)"

# 5. bad values: exit 2 naming the value
for v in 0-10 10-5 70000 abc 5-; do
    set +e
    msg=$("$stepnet" run --topo ring:3 --coll te --port-range "$v" 2>&1)
    rc=$?
    msg2=$("$node" --join 127.0.0.1:9 --key "$key" --port-range "$v" 2>&1)
    rc2=$?
    set -e
    [ $rc = 2 ] && echo "$msg" | grep -qF "'$v'" || fail "stepnet run --port-range $v: status $rc: $msg"
    [ $rc2 = 2 ] && echo "$msg2" | grep -qF "'$v'" || fail "stepnet-node --port-range $v: status $rc2: $msg2"
done
set +e
msg=$("$stepnet" run --topo ring:3 --coll te --listen 127.0.0.1:7000 --port-range 7000-7010 2>&1)
rc=$?
set -e
[ $rc = 2 ] && echo "$msg" | grep -q "127.0.0.1:7000" || fail "--listen with a port and --port-range: $rc: $msg"
echo "ok bad ranges refused with status 2"
echo "addr_ports: all passed"
