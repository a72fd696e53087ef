#!/usr/bin/env bash
# Integration test: `stepnet run --hosts` refuses bad input with exit status 2 and a message naming
# the value and what is accepted, before any ssh starts: options without --hosts, --hosts without
# a reachable --listen, bad hostfile lines, too few slots for the topology, a bad --map-by or
# --ssh. No network, no root.
set -euo pipefail
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
# refused MESSAGE ARGS...: `stepnet run --topo ring:4 --coll te ARGS` exits 2 saying MESSAGE
refused() {
    local msg=$1 rc=0
    shift
    STEPNET_SSH=/nonexistent/ssh timeout 30 "$stepnet" run --topo ring:4 --coll te "$@" \
        >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL exit $rc, expected 2: $*: $(cat "$tmp/err")"; exit 1; }
    grep -qF -- "$msg" "$tmp/err" || { echo "FAIL '$*' says '$(cat "$tmp/err")', not '$msg'"; exit 1; }
    n=$((n + 1))
}
refused "--map-by applies to --hosts only" --map-by node
refused "--remote-node applies to --hosts only" --remote-node /x
refused "--ssh applies to --hosts only" --ssh ssh
refused "--hosts needs --listen HOST:PORT" --hosts h1:4
refused "not the wildcard '0.0.0.0:0'" --hosts h1:4 --listen 0.0.0.0:0
refused "it takes no --nodes or --node-bin" --hosts h1:4 --listen 127.0.0.1:0 --node-bin /x
refused "bad value 'core' for --map-by: expected slot or node" --hosts h1:4 --listen 127.0.0.1:0 --map-by core
refused "add --insecure-ok to accept that with --hosts" --hosts h1:4 --listen 127.0.0.1:0 --security none
refused "--ssh: the ssh command is empty" --hosts h1:4 --listen 127.0.0.1:0 --ssh " "
refused "bad slots in 'h1:0'" --hosts h1:0 --listen 127.0.0.1:0
refused "bad host in '-oProxyCommand=x'" --hosts -oProxyCommand=x --listen 127.0.0.1:0
refused "the topology has 4 nodes but the 2 hosts offer 3 slots" --hosts h1:2,h2 --listen 127.0.0.1:0
refused "cannot read the hostfile $tmp/none" --hosts "$tmp/none" --listen 127.0.0.1:0
# a name only a hostfile has, mistyped: refused naming the file, not taken as a host
(cd "$tmp" && refused "cannot read the hostfile lab.hosts" --hosts lab.hosts --listen 127.0.0.1:0)
(cd "$tmp" && refused "cannot read the hostfile lab.txt" --hosts lab.txt --listen 127.0.0.1:0)
n=$((n + 2))
printf 'h1 slots=2\nh2 slot=2\n' >"$tmp/hosts"
refused "$tmp/hosts line 2: unknown key 'slot': did you mean slots?" --hosts "$tmp/hosts" --listen 127.0.0.1:0
printf 'h1 slots=2 # two\n\nh2:2200\n' >"$tmp/hosts"
refused "the topology has 4 nodes but the 2 hosts offer 3 slots" --hosts "$tmp/hosts" --listen 127.0.0.1:0
echo "hosts_cli: $n refusals, all with exit 2 and the value named"
