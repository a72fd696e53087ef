#!/usr/bin/env bash
# Integration test of the memory budget (--max-memory, docs/limits.md "What --max-memory covers"):
# every input whose memory the budget does not cover is refused with exit 2 before the
# allocation, naming the value and the limit, or stays within it. A file: graph larger than the
# limit is refused from its size (run, sim and model); one with a large comment block and four
# edges runs verified under a limit it fits, and its nodes never receive the comments (each
# node's peak stays below the comment block); link emulation's whole frames and model's
# candidates are refused, and parameters that need no topology (a named algorithm of another
# collective or port model, counts, the port model, --tp) before anything large is built. Peaks
# are GNU time's maximum resident set size (memory, not time: no assertion depends on the
# machine's speed); without /usr/bin/time, or in a sanitizer build, the peak checks are skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
stepnet=${STEPNET:?set STEPNET to the stepnet program, or run this test through ctest}
node=${STEPNET_NODE:?set STEPNET_NODE to the stepnet-node program, or run this test through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jget() { printf '%s' "$2" | grep -o "\"$1\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'; }
fail() { echo "FAIL $*"; exit 1; }
gnutime=/usr/bin/time
[ -x "$gnutime" ] || gnutime=
# a sanitizer build's shadow memory is part of its resident set: its peaks say nothing of ours.
# Known by the sanitizer's options (scripts/test.sh sets them) or by ldd's whole output: through
# `grep -q`, which stops at the first match, ldd could die of SIGPIPE and pipefail take the match
# for a miss (a gate's sanitizer pass judged a node's peak so)
[ -n "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ] && gnutime=
case "$(ldd "$stepnet" 2>/dev/null || true)" in *libasan* | *libubsan*) gnutime= ;; esac

# commented_ring FILE MB: the ring 0-1-2-3 with MB MiB of comment lines between its edges
commented_ring() {
    { printf '0 1\n1 2\n'
      head -c $(($2 << 20)) /dev/zero | tr '\0' 'x' | fold -w 79 | sed 's/^/#/'
      printf '2 3\n3 0\n'; } >"$1"
}

# refused CMD...: exit 2 and a message naming the memory limit; its peak stays below the limit
refused() {
    local limit_mib=$1 want=$2
    shift 2
    set +e
    if [ -n "$gnutime" ]; then
        timeout 120 "$gnutime" -o "$tmp/peak" -f '%M' "$@" >"$tmp/out" 2>"$tmp/err"
    else
        timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    local rc=$?
    set -e
    [ "$rc" = 2 ] || fail "exit $rc (expected 2) for $*: $(cat "$tmp/err")"
    grep -q "the memory limit is $limit_mib MiB" "$tmp/err" || fail "no limit in: $(cat "$tmp/err")"
    grep -q -- "$want" "$tmp/err" || fail "'$want' not in: $(cat "$tmp/err")"
    if [ -n "$gnutime" ]; then
        local kb
        kb=$(tail -n1 "$tmp/peak")
        [ "$kb" -lt $((limit_mib * 1024)) ] || fail "peak $kb KiB above the limit for $*"
    fi
    echo "ok refused: $* -> $(head -n1 "$tmp/err")"
}

# 1. a file: graph larger than the limit: refused from its size by every command
commented_ring "$tmp/big.txt" 40
for cmd in run sim model; do
    refused 32 "is 4[0-9] MiB, and a file: graph is read whole" \
        "$stepnet" "$cmd" --topo "file:$tmp/big.txt" --coll te --max-memory 32M
done

# 2. a file: graph of four edges behind 16 MiB of comments, under a limit it fits: verified, the
# same as the simulator, and no node holds the comments (its peak stays below them)
commented_ring "$tmp/mid.txt" 16
cat >"$tmp/node.sh" <<WRAP
#!/bin/sh
exec $gnutime -a -o "$tmp/node_peaks" -f '%M' "$node" "\$@"
WRAP
chmod +x "$tmp/node.sh"
[ -n "$gnutime" ] || { printf '#!/bin/sh\nexec "%s" "$@"\n' "$node" >"$tmp/node.sh"; }
out=$(STEPNET_NODE="$tmp/node.sh" timeout 120 "$stepnet" run --topo "file:$tmp/mid.txt" \
    --coll te --max-memory 64M --reps 1 --warmup 0 --probes 2 --json)
sim=$("$stepnet" sim --topo "file:$tmp/mid.txt" --coll te --max-memory 64M --json)
[ "$(jget verified "$out")" = true ] || fail "the commented ring did not verify: $out"
for k in steps trace_hash deliveries; do
    [ "$(jget "$k" "$out")" = "$(jget "$k" "$sim")" ] || fail "$k differs from sim"
done
if [ -n "$gnutime" ]; then
    [ "$(wc -l <"$tmp/node_peaks")" = 4 ] || fail "expected 4 node peaks: $(cat "$tmp/node_peaks")"
    while read -r kb; do
        [ "$kb" -lt $((12 << 10)) ] || fail "a node peaked at $kb KiB: it received the comments"
    done <"$tmp/node_peaks"
    echo "ok 16 MiB of comments: verified, node peaks $(tr '\n' ' ' <"$tmp/node_peaks")KiB"
fi

# 3. link emulation holds whole frames: counted, so 64 MiB packets behind a 1 ms delay are
# refused under 64M (each node's two links hold four of them); without emulation they stream
refused 64 "link emulation holds 256 MiB in whole frames" \
    "$stepnet" run --topo ring:4 --coll te --size 67108864 --link-delay 1ms --max-memory 64M \
    --reps 1 --warmup 0 --probes 2

# 4. model plans every candidate: foldedcube:11 mnb (276 MiB measured) under 32M
refused 32 "mnb on foldedcube:11" "$stepnet" model --topo foldedcube:11 --coll mnb --max-memory 32M

# 5. parameters that need no topology are refused before hypercube:20 (416 MiB) is built
# early MESSAGE ARGS...: `sim --topo hypercube:20 ARGS` exits 2 with MESSAGE, its peak small
early() {
    local want=$1
    shift
    set +e
    if [ -n "$gnutime" ]; then
        timeout 120 "$gnutime" -o "$tmp/peak" -f '%M' "$stepnet" sim --topo hypercube:20 "$@" \
            >/dev/null 2>"$tmp/err"
    else
        timeout 120 "$stepnet" sim --topo hypercube:20 "$@" >/dev/null 2>"$tmp/err"
    fi
    local rc=$?
    set -e
    [ "$rc" = 2 ] || fail "exit $rc for $*: $(cat "$tmp/err")"
    grep -q -- "$want" "$tmp/err" || fail "'$want' not in: $(cat "$tmp/err")"
    if [ -n "$gnutime" ]; then
        local kb
        kb=$(tail -n1 "$tmp/peak")
        [ "$kb" -lt $((64 << 10)) ] || fail "$* refused after building hypercube:20 ($kb KiB)"
    fi
    echo "ok refused before the build: $* -> $(head -n1 "$tmp/err")"
}
early "algorithm mnb-fcube is for mnb, not te" --coll te --algo mnb-fcube
early "algorithm bcast-bfs does not support single-port" --coll bcast --algo bcast-bfs --ports single
early "messages 2 and fragments 1 must both be 1" --coll barrier --msgs 2
early "the reception limit 'any' only applies to single-port" --coll te --rx any
early "is 4294967296 packets per pair" --coll te --msgs 65536 --frags 65536
early "bad value 'x' for --tp" --coll te --tp x
echo "PASS run_memory"
