#!/usr/bin/env bash
# Integration test of the Debian package (scripts/package.sh, debian/, deploy/systemd/): the
# package is named stepnet_VERSION_ARCH.deb and holds both programs, their man pages, the
# systemd unit, its settings and logrotate file (conffiles), copyright and changelog; the
# programs extracted with dpkg-deb -x print their version and run a verified collective; the
# unit's command line, filled in with the settings file's values, starts a daemon that serves;
# lintian reports no error; systemd-analyze verify accepts the unit (skipped, with a line, where
# systemd-analyze is missing). Skipped (status 77) without dpkg-buildpackage, debhelper or lintian.
set -euo pipefail
src=${STEPNET_SRC:?set STEPNET_SRC to the source tree, or run this test through ctest}
for tool in dpkg-buildpackage dh lintian; do
    command -v "$tool" >/dev/null ||
        { echo "SKIP package: $tool not found (scripts/setup.sh installs it)"; exit 77; }
done
tmp=$(mktemp -d /tmp/stepnet-pkgtest.XXXXXX)
dpid=
cleanup() {
    [ -z "$dpid" ] || kill "$dpid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL package: $*"; exit 1; }

version=$(sed -n 's/^project(stepnet VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
arch=$(dpkg --print-architecture)
deb=$("$src/scripts/package.sh" "$tmp/out") || fail "scripts/package.sh failed"
[ "$deb" = "$tmp/out/stepnet_${version}_${arch}.deb" ] || fail "the package is '$deb', want stepnet_${version}_${arch}.deb"

# the contents
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||' >"$tmp/files"
for f in usr/bin/stepnet usr/bin/stepnet-node usr/share/man/man1/stepnet.1.gz \
    usr/share/man/man1/stepnet-node.1.gz lib/systemd/system/stepnet-node.service \
    etc/default/stepnet-node etc/logrotate.d/stepnet-node etc/stepnet/ \
    usr/share/doc/stepnet/copyright usr/share/doc/stepnet/changelog.gz; do
    grep -qx "$f" "$tmp/files" || fail "the package has no $f: $(cat "$tmp/files")"
done
! grep -q '^usr/lib/debug' "$tmp/files" || fail "the package holds debug files"
! grep -q 'rawprobe' "$tmp/files" || fail "the package holds the benchmark probe"
dpkg-deb -f "$deb" Depends | grep -q libuv1 || fail "Depends does not name libuv1: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles >"$tmp/conffiles"
for f in /etc/default/stepnet-node /etc/logrotate.d/stepnet-node; do
    grep -qx "$f" "$tmp/conffiles" || fail "$f is not a conffile: $(cat "$tmp/conffiles")"
done

# the extracted programs run: their versions, a local run (stepnet finds the stepnet-node beside
# it), the man pages
root=$tmp/root
dpkg-deb -x "$deb" "$root"
for prog in stepnet stepnet-node; do
    v=$("$root/usr/bin/$prog" --version) || fail "$prog --version failed"
    [ "$v" = "$prog $version" ] || fail "$prog --version says '$v', want '$prog $version'"
    if command -v man >/dev/null; then
        MANWIDTH=100 man -l "$root/usr/share/man/man1/$prog.1.gz" 2>/dev/null | grep -q '^NAME' ||
            fail "the man page $prog.1.gz does not render"
    fi
done
out=$(cd / && timeout 120 env -u STEPNET_NODE PATH=/usr/bin:/bin \
    "$root/usr/bin/stepnet" run --topo ring:4 --coll bcast --json) ||
    fail "the extracted stepnet run failed: $out"
grep -q '"verified":true' <<<"$out" || fail "the extracted run did not verify: $out"
man -l "$root/usr/share/man/man1/stepnet-node.1.gz" 2>/dev/null | grep -q -- '--pid-file' ||
    fail "stepnet-node.1 does not document --pid-file"

# the unit's ExecStart with the settings file's values (the listen port 0 on 127.0.0.1, the key
# of a temporary file for systemd's credential, --log-file as the settings file shows it)
unit=$root/lib/systemd/system/stepnet-node.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
range=$(sed -n 's/^STEPNET_PORT_RANGE=//p' "$root/etc/default/stepnet-node")
[ -n "$range" ] || fail "/etc/default/stepnet-node sets no STEPNET_PORT_RANGE"
grep -q '^STEPNET_LISTEN=0.0.0.0:7100$' "$root/etc/default/stepnet-node" ||
    fail "/etc/default/stepnet-node does not set STEPNET_LISTEN=0.0.0.0:7100"
grep -q -- '--log-file /var/log/stepnet/' "$root/etc/default/stepnet-node" ||
    fail "/etc/default/stepnet-node does not show --log-file under /var/log/stepnet"
mkdir "$tmp/cred"
"$root/usr/bin/stepnet" keygen "$tmp/cred/cluster.key" 2>/dev/null
cmd=${exec_start//\/usr\/bin\/stepnet-node/$root/usr/bin/stepnet-node}
cmd=${cmd//\$\{STEPNET_LISTEN\}/127.0.0.1:0}
cmd=${cmd//\$\{STEPNET_PORT_RANGE\}/$range}
cmd=${cmd//%d/$tmp/cred}
cmd=${cmd//\$STEPNET_OPTS/--log-file $tmp/node.log}
read -r -a argv <<<"$cmd"
"${argv[@]}" >"$tmp/serve.out" 2>"$tmp/serve.err" &
dpid=$!
for _ in $(seq 100); do grep -q 'SERVE port=' "$tmp/serve.out" && break; sleep 0.1; done
grep -q 'SERVE port=' "$tmp/serve.out" ||
    fail "the unit's command line ($cmd) did not serve within 10 s: $(cat "$tmp/serve.err" "$tmp/node.log" 2>/dev/null)"
grep -q 'DAEMON-LISTEN' "$tmp/node.log" || fail "the daemon of the unit's command line logged nothing to --log-file"
kill -TERM "$dpid"
wait "$dpid" || fail "the daemon of the unit's command line exited with status $? after SIGTERM"
dpid=

# lintian: no error; the warnings and notes are printed (docs/deploy.md lists those kept)
lintian --fail-on error --info "$deb" >"$tmp/lintian" 2>&1 || fail "lintian reports errors: $(cat "$tmp/lintian")"
grep -E '^[EWI]: ' "$tmp/lintian" || true

if command -v systemd-analyze >/dev/null; then
    # the unit as installed, with its program where dpkg-deb put it (--man=no: its man page was
    # rendered above)
    sed "s|/usr/bin/stepnet-node|$root/usr/bin/stepnet-node|" "$unit" >"$tmp/stepnet-node.service"
    systemd-analyze verify --man=no "$tmp/stepnet-node.service" >"$tmp/verify" 2>&1 ||
        fail "systemd-analyze verify refuses the unit: $(cat "$tmp/verify")"
    ! grep -q 'stepnet-node.service' "$tmp/verify" || fail "systemd-analyze verify warns: $(cat "$tmp/verify")"
    verified="systemd-analyze verify passed"
else
    verified="systemd-analyze not found: the unit was not verified"
    echo "package: $verified"
fi
echo "package: ok ($(basename "$deb"): contents, extracted programs run, unit's command line serves, lintian no error; $verified)"
