#!/usr/bin/env bash
# Installs what is missing on Debian 12 (apt-get update once, then install), then configures and
# builds stepnet into build/. Idempotent: a second run installs nothing and rebuilds only changes.
# Each step (install, configure, build) says when it starts and how long it took, on stderr; the
# package manager's own output goes there too, so that a long install is never silent.
#
#   scripts/setup.sh [--runtime] [--print-packages | --install-only] [CMAKE_ARGS...]
#     (none)            every package the tests, the packaging, the sanitizer and clang builds and
#                       the deployment tests need (scripts/test.sh), and a build with the tests
#     --runtime         only what building and running stepnet needs (the compiler, cmake, ninja,
#                       pkg-config, libuv, protobuf-c, libsodium, CaDiCaL): scripts/demo.sh; the
#                       build leaves out the tests and the man pages
#     --print-packages  print the package list of the chosen set, one a line, and exit
#     --install-only    install what is missing of the chosen set, and build nothing
#   CMAKE_ARGS are passed to cmake's configure step (scripts/test.sh adds -DSTEPNET_WERROR=ON; a
#   user's build leaves warnings as warnings).
#
# No service is started or left enabled: openssh-server and docker.io enable and start sshd and
# dockerd when installed on a host with systemd; the tests start their own sshd (in network
# namespaces) and dockerd, so the install runs with a policy-rc.d that forbids starting services,
# and the services of packages this run installed are disabled afterwards. (The test setup_sets
# points STEPNET_SETUP_POLICY and STEPNET_SETUP_SYSTEMD elsewhere than /usr/sbin/policy-rc.d and
# /run/systemd/system, with a package manager of its own on PATH.)
set -euo pipefail
cd "$(dirname "$0")/.."

runtime=0 print=0 install_only=0
while [ $# -gt 0 ]; do
    case "$1" in
    --runtime) runtime=1; shift ;;
    --print-packages) print=1; shift ;;
    --install-only) install_only=1; shift ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    --*)
        echo "setup: unknown option '$1': expected --runtime, --print-packages, --install-only," \
            "--help or cmake's arguments (-D...)" >&2
        exit 2 ;;
    *) break ;;
    esac
done

# what building and running stepnet needs (CMakeLists.txt: libuv, protobuf-c, libsodium through
# pkg-config; CaDiCaL, the SAT solver of `stepnet synth`, core/synth/solve.c)
PKGS=(build-essential cmake ninja-build pkg-config libuv1-dev libprotobuf-c-dev
      protobuf-c-compiler libsodium-dev libcadical-dev)
if [ "$runtime" = 0 ]; then
    # libcmocka-dev: the tests; clang: the second compiler scripts/test.sh builds with; help2man,
    # man-db: the man pages (at build time); time: GNU time, the peak RSS in
    # scripts/bench/memory.sh; python3: its json, csv and xml modules read traces and CSV
    # (tests/integration/trace_check.py, scripts/plot.sh); gnuplot-nox: scripts/plot.sh draws the
    # SVG plots; librsvg2-bin: rsvg-convert, the PNGs of scripts/plot.sh and
    # tests/integration/plot.sh; iproute2, procps, bsdutils, bc: the integration scripts;
    # openssh-client, openssh-server: the ssh launcher's tests (sshd in network namespaces);
    # docker.io, docker-compose: dockerd and its client for deploy/compose-smoke.sh
    PKGS+=(libcmocka-dev bc clang clang-format help2man man-db iproute2 procps time bsdutils
           openssh-client openssh-server docker-compose docker.io python3 gnuplot-nox
           librsvg2-bin)
    # debhelper, lintian: scripts/package.sh builds the Debian package, the test `package` checks it
    PKGS+=(debhelper lintian)
fi
if [ "$print" = 1 ]; then
    printf '%s\n' "${PKGS[@]}"
    exit 0
fi

step_start=0
step() { # step NAME: says that NAME starts, and remembers when
    step_start=$(date +%s)
    echo "setup: $1" >&2
}
step_done() { # step_done NAME: how long the step took
    echo "setup: $1 took $(($(date +%s) - step_start)) s" >&2
}

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    step "installing ${missing[*]} (apt-get; its output follows)"
    # forbid starting services during the install (invoke-rc.d and deb-systemd-invoke ask
    # policy-rc.d; 101 = action forbidden), unless the host has its own policy
    policy=${STEPNET_SETUP_POLICY:-/usr/sbin/policy-rc.d} own_policy=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
        $SUDO chmod 755 "$policy"
        own_policy=1
    fi
    trap '[ "$own_policy" = 1 ] && $SUDO rm -f "$policy"' EXIT
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
        "${missing[@]}" >&2
    [ "$own_policy" = 1 ] && $SUDO rm -f "$policy"
    own_policy=0
    # the services of what this run installed: stopped and disabled (a host that had them keeps
    # its own settings, since only newly installed packages are looked at)
    if command -v systemctl >/dev/null && [ -d "${STEPNET_SETUP_SYSTEMD:-/run/systemd/system}" ]; then
        for p in "${missing[@]}"; do
            case "$p" in
            openssh-server) units=(ssh.service ssh.socket) ;;
            docker.io) units=(docker.service docker.socket containerd.service) ;;
            *) continue ;;
            esac
            $SUDO systemctl disable --now "${units[@]}" >/dev/null 2>&1 || true
        done
    fi
    step_done "installing ${#missing[@]} packages"
fi
[ "$install_only" = 0 ] || exit 0

# the set's build: with the tests and the man pages, or (--runtime) the programs alone; stated
# every time, since the cache would otherwise keep what an earlier configure chose
if [ "$runtime" = 1 ]; then
    set -- -DBUILD_TESTING=OFF -DSTEPNET_MANPAGES=OFF "$@"
else
    set -- -DBUILD_TESTING=ON -DSTEPNET_MANPAGES=ON "$@"
fi
step "configuring build/ (cmake $*)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
step_done "configuring"
step "building build/ (ninja)"
cmake --build build
step_done "building"
