#!/usr/bin/env bash
# scripts/setup.sh's package sets and its install step, without touching the host: the runtime set
# (scripts/demo.sh) holds what building and running needs and none of the test, packaging or
# deployment packages; the full set (scripts/test.sh) holds both; the install runs apt-get with a
# policy-rc.d that forbids starting services, removes it afterwards, and stops and disables the
# services of the packages it installed. A package manager of the test's own (dpkg-query that
# knows no package, apt-get and systemctl that record their arguments) stands in for Debian's on
# PATH, and STEPNET_SETUP_POLICY and STEPNET_SETUP_SYSTEMD point into a temporary directory.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
setup=$src/scripts/setup.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; exit 1; }

runtime=$("$setup" --runtime --print-packages)
full=$("$setup" --print-packages)
for p in build-essential cmake ninja-build pkg-config libuv1-dev libprotobuf-c-dev \
    protobuf-c-compiler libsodium-dev libcadical-dev; do
    grep -qx "$p" <<<"$runtime" || fail "the runtime set lacks $p"
    grep -qx "$p" <<<"$full" || fail "the full set lacks $p"
done
for p in openssh-server docker.io docker-compose clang lintian debhelper libcmocka-dev gnuplot-nox; do
    grep -qx "$p" <<<"$runtime" && fail "the runtime set holds $p, which only the tests need"
    grep -qx "$p" <<<"$full" || fail "the full set lacks $p"
done
grep -q 'scripts/setup.sh --runtime' "$src/scripts/demo.sh" || fail "demo.sh does not use --runtime"

# bad usage: exit 2, naming the option
set +e
out=$("$setup" --runtme 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "--runtme: exit $rc, want 2"
grep -q "runtme" <<<"$out" || fail "--runtme: the message does not name it: $out"

# the install, with a package manager that records what it is asked
bin=$tmp/bin
mkdir -p "$bin" "$tmp/systemd"
cat >"$bin/dpkg-query" <<'X'
#!/bin/sh
exit 1
X
cat >"$bin/apt-get" <<X
#!/bin/sh
# the policy must forbid services while packages install
if [ "\$1" = install ]; then
    [ -x "$tmp/policy" ] && "$tmp/policy" ssh start; echo "policy \$?" >>"$tmp/log"
fi
echo "apt-get \$*" >>"$tmp/log"
X
cat >"$bin/systemctl" <<X
#!/bin/sh
echo "systemctl \$*" >>"$tmp/log"
X
cat >"$bin/id" <<'X'
#!/bin/sh
echo 0
X
chmod +x "$bin"/*
run_install() { # run_install ARGS: setup.sh --install-only ARGS with the fakes; its stderr in $tmp/err
    : >"$tmp/log"
    PATH=$bin:$PATH STEPNET_SETUP_POLICY=$tmp/policy STEPNET_SETUP_SYSTEMD=$tmp/systemd \
        "$setup" --install-only "$@" 2>"$tmp/err" || fail "setup.sh --install-only $*: $(cat "$tmp/err")"
}

run_install --runtime
grep -q "^apt-get update" "$tmp/log" || fail "no apt-get update: $(cat "$tmp/log")"
inst=$(grep "^apt-get .*install" "$tmp/log") || fail "no apt-get install: $(cat "$tmp/log")"
grep -q "libuv1-dev" <<<"$inst" || fail "the runtime install lacks libuv1-dev: $inst"
grep -q "openssh-server\|docker" <<<"$inst" && fail "the runtime install asks for a service: $inst"
grep -q "^policy 101" "$tmp/log" || fail "services were not forbidden during the install: $(cat "$tmp/log")"
[ -e "$tmp/policy" ] && fail "the policy-rc.d of the install was left behind"
grep -q "^systemctl" "$tmp/log" && fail "systemctl called with no service installed: $(cat "$tmp/log")"
grep -q "setup: installing .* took [0-9]* s" "$tmp/err" || fail "the install step says no time: $(cat "$tmp/err")"

run_install
grep -q "^systemctl disable --now ssh.service ssh.socket" "$tmp/log" ||
    fail "sshd not disabled after installing openssh-server: $(cat "$tmp/log")"
grep -q "^systemctl disable --now docker.service" "$tmp/log" ||
    fail "dockerd not disabled after installing docker.io: $(cat "$tmp/log")"

# a host's own policy-rc.d is kept as it is
printf '#!/bin/sh\nexit 0\n' >"$tmp/policy"
chmod +x "$tmp/policy"
run_install --runtime
[ "$(cat "$tmp/policy")" = "$(printf '#!/bin/sh\nexit 0')" ] || fail "the host's policy-rc.d was changed"
echo "PASS setup_sets"
