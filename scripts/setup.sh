#!/usr/bin/env bash
# Installs what is missing on Debian 12 (apt-get update once, then install), then configures and
# builds stepnet into build/. Idempotent: a second run installs nothing and rebuilds only changes.
# Arguments are passed to cmake's configure step (scripts/test.sh adds -DSTEPNET_WERROR=ON; a
# user's build leaves warnings as warnings).
set -euo pipefail
cd "$(dirname "$0")/.."

# clang: the second compiler scripts/test.sh builds with; help2man: the man pages (at build time);
# time: GNU time, the peak RSS in scripts/bench/memory.sh
# python3: its json, csv and xml modules read traces and CSV (tests/integration/trace_check.py,
# scripts/plot.sh); gnuplot-nox: scripts/plot.sh draws the SVG plots
# docker.io: dockerd and its client for deploy/compose-smoke.sh (the test compose_smoke)
# librsvg2-bin: rsvg-convert, the PNGs of scripts/plot.sh and tests/integration/plot.sh
PKGS=(build-essential cmake ninja-build pkg-config libuv1-dev libprotobuf-c-dev
      protobuf-c-compiler libsodium-dev libcmocka-dev bc clang clang-format help2man man-db iproute2
      procps time bsdutils openssh-client openssh-server docker-compose docker.io
      python3 gnuplot-nox librsvg2-bin)
# debhelper, lintian: scripts/package.sh builds the Debian package, the test `package` checks it
PKGS+=(debhelper lintian)
# stepnet synth: the SAT solver CaDiCaL through its C API (core/synth/solve.c)
PKGS+=(libcadical-dev)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    echo "setup: installing ${missing[*]}" >&2
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build
