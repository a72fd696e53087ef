#!/usr/bin/env bash
# The open-file limit: stepnet raises its soft limit to the hard one (and so do the nodes it
# starts), so that a run needing more descriptors than the soft limit but fewer than the hard one
# verifies; and a run needing more than the hard limit is refused before anything starts, exit 2,
# with the need, the limit and how to raise it.
set -euo pipefail
stepnet=${STEPNET:?run this test through ctest (STEPNET)}
fail() { echo "FAIL fd_limit: $*"; exit 1; }
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge 256 ] ||
    { echo "SKIP fd_limit: the hard open-file limit is $hard, below the 256 this test needs"; exit 77; }

# 80 node processes: the coordinator's 80 control connections and more, above a soft limit of 64
out=$( (ulimit -Sn 64; timeout 120 "$stepnet" run --topo ring:80 --coll bcast --security none --json) 2>&1) ||
    fail "ring:80 under a soft limit of 64 (hard $hard): $out"
grep -q '"verified":true' <<<"$out" || fail "ring:80 did not verify: $out"

# above the hard limit: refused at once, naming the need and the limit
set +e
msg=$( (ulimit -n 64; timeout 30 "$stepnet" run --topo ring:100 --coll bcast --security none) 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "ring:100 under a hard limit of 64: exit $rc, want 2: $msg"
grep -q "ring:100 needs about 132 open files in the coordinator" <<<"$msg" || fail "the message: $msg"
grep -q "ulimit -Hn 64" <<<"$msg" || fail "the message does not name the hard limit: $msg"
echo "PASS fd_limit"
