#!/usr/bin/env bash
# Integration test: `cmake --install` of the build directory BUILD into a temporary prefix gives
# both programs and both man pages, and the INSTALLED stepnet runs a collective with the
# installed stepnet-node (found next to itself), with nothing of the build tree on PATH and no
# STEPNET_NODE. usage: install.sh BUILD man|noman (ctest passes them; noman: configured with
# -DSTEPNET_MANPAGES=OFF)
set -euo pipefail
build=${1:?usage: install.sh BUILD-DIRECTORY man|noman (run this test through ctest)}
expect_man=${2:-man}
prefix=$(mktemp -d /tmp/stepnet-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/stepnet bin/stepnet-node; do
    [ -x "$prefix/$f" ] || fail "$f is not installed (or not executable) under $prefix"
done
# the documentation the help and the man pages refer to
for f in share/doc/stepnet/README.md share/doc/stepnet/docs/model.md share/doc/stepnet/docs/usage.md; do
    [ -f "$prefix/$f" ] || fail "$f is not installed under $prefix"
done
[ ! -e "$prefix/share/doc/stepnet/docs/man" ] || fail "the man pages' sources are installed as docs"
# the benchmark probe is a tool of the repository, not of the installation
[ ! -e "$prefix/bin/stepnet-rawprobe" ] || fail "bin/stepnet-rawprobe is installed"
for page in stepnet stepnet-node; do
    [ "$expect_man" = man ] || break
    man1=$(find "$prefix" -path "*/man1/$page.1" | head -n1)
    [ -n "$man1" ] || fail "no man page $page.1 under $prefix"
    if command -v man >/dev/null; then
        text=$(MANWIDTH=100 man -l "$man1" 2>/dev/null) || fail "man -l $man1 failed"
        for section in NAME SYNOPSIS OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
            grep -q "^$section" <<<"$text" || fail "$page.1 has no section $section"
        done
    fi
done

# the installed programs only: a PATH of the system's directories, no STEPNET_NODE
export PATH=/usr/bin:/bin
unset STEPNET STEPNET_NODE
want=$(sed -n 's/^project(stepnet VERSION \([0-9.]*\).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
for prog in stepnet stepnet-node; do
    v=$("$prefix/bin/$prog" --version)
    [ "$v" = "$prog $want" ] || fail "$prog --version says '$v', want '$prog $want'"
done
out=$(cd / && timeout 120 "$prefix/bin/stepnet" run --topo ring:4 --coll bcast --json) ||
    fail "the installed stepnet run failed: $out"
grep -q '"verified":true' <<<"$out" || fail "the installed run did not verify: $out"
# without its stepnet-node the error names where it looked and --node-bin
rm "$prefix/bin/stepnet-node"
if err=$(cd / && timeout 60 "$prefix/bin/stepnet" run --topo ring:4 --coll bcast --json 2>&1); then
    fail "stepnet run succeeded without stepnet-node"
fi
grep -q "$prefix/bin/stepnet-node" <<<"$err" || fail "the error does not name $prefix/bin/stepnet-node: $err"
grep -q -- "--node-bin" <<<"$err" || fail "the error does not mention --node-bin: $err"
echo "install: ok ($prefix: stepnet, stepnet-node, man pages; installed run verified)"
