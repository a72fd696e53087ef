#!/usr/bin/env bash
# scripts/bench/bandwidth.sh --quick on this build: a summary row for every collective and port
# model it surveys, at least one verified case in every collective's table, refusals listed and
# not counted as failures. Then the "never worse" check of --compare: the build against itself
# finds no case worse, and against a wrapper of it that refuses te and runs scatter with one packet
# more it finds exactly the te cases that verified and at least one scatter case worse. Bad usage
# exits 2.
set -uo pipefail
: "${STEPNET:?STEPNET is not set: run this test through ctest}"
: "${STEPNET_SRC:?STEPNET_SRC is not set: run this test through ctest}"
script=$STEPNET_SRC/scripts/bench/bandwidth.sh
bin=$(dirname "$STEPNET")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

if ! "$script" --quick --bin "$bin" --out "$dir/file.md" >"$dir/out.md" 2>"$dir/err"; then
    fail "bandwidth.sh --quick exited non-zero:"
    cat "$dir/err"
fi
cmp -s "$dir/out.md" "$dir/file.md" || fail "--out FILE differs from what was printed"
colls="bcast sna allreduce mna scatter gather mnb te"
for c in $colls; do
    ports="multi single"
    [ "$c" = bcast ] && ports="multi single half"
    for p in $ports; do
        # | coll | ports | cases | verified | refused | timed out | failed | median | max | within
        n4='[0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+' r='([0-9.]+|-)'
        row=$(grep -E "^\| $c \| $p \| [0-9]+ \| $n4 \| $r \| $r \| [0-9]+ of [0-9]+ \|" \
            "$dir/out.md")
        [ -n "$row" ] || { fail "no summary row for $c $p"; continue; }
        # The cases add up: verified + refused + timed out + failed = cases.
        awk -F'|' '{exit !($4 == $5 + $6 + $7 + $8)}' <<<"$row" ||
            fail "the counts of '$row' do not add up"
        awk -F'|' '{exit !($8 == 0)}' <<<"$row" || fail "failed cases in '$row'"
    done
    # The collective's table: at least one verified case (| topology | ports | M | algorithm |
    # steps | predicted | bound | bound name | ratio | verified | within |).
    n=$(awk -F'|' -v c="## $c" '$0 == c {on = 1; next} /^## / {on = 0}
        on && $2 ~ /^ `/ {n += ($11 == " yes ")} END {print n + 0}' "$dir/out.md")
    [ "$n" -ge 1 ] || fail "no verified case in the $c table"
done
# A refused case is listed with its reason, not as a failure: single-port (rx one) sna has no
# algorithm on this build, or has one (then nothing is listed and nothing need be).
if grep -q '^| sna | single | 12 | 0 | 12 ' "$dir/out.md"; then
    grep -q '^- `hypercube:3`, single, M 1, 4: refused: no algorithm for sna' "$dir/out.md" ||
        fail "the refused sna cases are not listed with their reason"
fi

# The build against itself: nothing worse, nothing better.
if ! "$script" --quick --bin "$bin" --compare "$bin" >"$dir/same.md" 2>"$dir/err"; then
    fail "bandwidth.sh --quick --compare (the same build) exited non-zero:"
    cat "$dir/err"
fi
# cases: the header's "N cases x 2 builds"
cases() { sed -n 's/.*; \([0-9]*\) cases x 2 builds in .*/\1/p' "$1"; }
grep -q "^Worse after than before: 0 of $(cases "$dir/same.md") cases\.$" "$dir/same.md" ||
    fail "the build against itself: $(grep '^Worse' "$dir/same.md" || echo 'no Worse line')"

# A regressed "after": te refused, scatter with one packet more than asked.
mkdir "$dir/after"
cat >"$dir/after/stepnet" <<EOF
#!/usr/bin/env bash
case " \$* " in *" --coll te "*)
    echo "stepnet: no algorithm for te (a test's wrapper)" >&2
    exit 2 ;; esac
case " \$* " in *" --coll scatter --msgs 4 "*)
    a=() p=""; for x in "\$@"; do [ "\$p" = --msgs ] && x=5; a+=("\$x") p=\$x; done
    set -- "\${a[@]}" ;; esac
exec "$STEPNET" "\$@"
EOF
chmod +x "$dir/after/stepnet"
"$script" --quick --bin "$dir/after" --compare "$bin" >"$dir/cmp.md" 2>"$dir/err" || {
    fail "bandwidth.sh --compare (a regressed build) exited non-zero:"
    cat "$dir/err"
}
te_ok=$(awk -F'|' '$2 == " te " {s += $5} END {print s + 0}' "$dir/cmp.md") # verified before
te_worse=$(grep -c '^- te on `.*; refused after$' "$dir/cmp.md")
scatter_worse=$(grep -c '^- scatter on `.*, M 4: .* steps before; .* steps after$' "$dir/cmp.md")
[ "$te_ok" -ge 1 ] && [ "$te_worse" -eq "$te_ok" ] ||
    fail "te refused after: $te_worse cases listed worse, $te_ok verified before"
[ "$scatter_worse" -ge 1 ] || fail "scatter with a packet more: no case listed worse"
worse=$((te_worse + scatter_worse))
grep -q "^Worse after than before: $worse of $(cases "$dir/cmp.md") cases:$" "$dir/cmp.md" ||
    fail "the count of worse cases: $(grep '^Worse' "$dir/cmp.md" || echo 'no Worse line')"

"$script" --bin "$dir/none" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--bin of a folder without stepnet did not exit 2"
"$script" --msgs 4 >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option did not exit 2"

[ $fails -eq 0 ] || exit 1
echo "PASS bandwidth.sh --quick: a summary and a verified case per collective; --compare finds" \
    "the worse cases"
