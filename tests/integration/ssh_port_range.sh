#!/usr/bin/env bash
# `stepnet run --hosts ... --port-range LO-HI`: the nodes started over ssh take their link
# listeners from the range too (docs/deploy.md, "Firewalls for nodes started over ssh"), so that a
# host's firewall is opened for a known range. The "ssh" is a script of this test (no sshd, no
# root): it records the remote command, runs it here, and keeps a copy of the node's standard
# output (its 'LISTEN port=P' line). Every wait has a deadline (timeout).
set -euo pipefail
stepnet=${STEPNET:?STEPNET is not set: run this test through ctest}
: "${STEPNET_NODE:?STEPNET_NODE is not set: run this test through ctest}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL ssh_port_range: $*"
    exit 1
}
# the remote command names stepnet-node; here it is the one under test
cat >"$tmp/ssh" <<EOF
#!/usr/bin/env bash
set -o pipefail
for last; do :; done
printf '%s\n' "\$last" >>"$tmp/commands"
cmd=\${last//"'stepnet-node'"/"'$STEPNET_NODE'"}
sh -c "\$cmd" | tee -a "$tmp/stdout"
EOF
chmod +x "$tmp/ssh"

# a range of 40 ports for the control listener and 4 nodes on one machine: the first free ones
lo=47300 hi=47339
timeout 120 "$stepnet" run --topo ring:4 --coll te --reps 1 --hosts ha:2,hb:2 --ssh "$tmp/ssh" \
    --listen 127.0.0.1:0 --port-range "$lo-$hi" --json >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "the run failed"; }
grep -q '"verified":true' "$tmp/out" || fail "not verified: $(cat "$tmp/out")"
grep -q '"nodes_mode":"ssh"' "$tmp/out" || fail "not an ssh run"
[ "$(grep -c -- "--port-range $lo-$hi" "$tmp/commands")" = 4 ] ||
    fail "not every ssh command passes --port-range $lo-$hi: $(cat "$tmp/commands")"
mapfile -t ports < <(sed -n 's/^LISTEN port=\([0-9]*\)$/\1/p' "$tmp/stdout")
[ ${#ports[@]} = 4 ] || fail "${#ports[@]} LISTEN lines, not 4: $(cat "$tmp/stdout")"
for p in "${ports[@]}"; do
    { [ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ]; } || fail "a node listened on port $p, outside $lo-$hi"
done
# without --port-range the command carries none (the node picks any free port)
: >"$tmp/commands"
timeout 120 "$stepnet" run --topo ring:4 --coll te --reps 1 --hosts ha:4 --ssh "$tmp/ssh" \
    --listen 127.0.0.1:0 --json >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "the run without a range failed"; }
! grep -q -- "--port-range" "$tmp/commands" || fail "--port-range passed though none was given"
echo "ssh_port_range: 4 nodes over ssh listened on ports ${ports[*]} of --port-range $lo-$hi"
