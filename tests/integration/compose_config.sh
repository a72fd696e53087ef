#!/usr/bin/env bash
# Validation of deploy/compose.yaml with Debian's docker-compose (`docker-compose config`; no
# container engine needed): the file parses, has the coordinator and the node service, the key as
# a secret of mode 0400, the node count from STEPNET_NODES and the image from STEPNET_IMAGE; the
# Dockerfile's entrypoint exists.
# Exits 77 (CTest: skipped) where docker-compose is not installed (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v docker-compose >/dev/null || { echo "compose_config: no docker-compose: skipped"; exit 77; }
fail() { echo "FAIL $*"; exit 1; }
out=$(docker-compose -f deploy/compose.yaml config) || fail "docker-compose config refused deploy/compose.yaml"
for want in "coordinator:" "node:" "STEPNET_ROLE: coordinator" "STEPNET_ROLE: node" \
    "STEPNET_COORDINATOR: coordinator:7000" "mode: 256" "source: stepnet_key" "replicas: 4"; do
    printf '%s\n' "$out" | grep -qF -- "$want" || fail "no '$want' in the rendered compose file"
done
out=$(STEPNET_NODES=9 STEPNET_TOPO=torus:3x3 docker-compose -f deploy/compose.yaml config)
printf '%s\n' "$out" | grep -qF "replicas: 9" || fail "STEPNET_NODES=9 does not give 9 nodes"
printf '%s\n' "$out" | grep -qF "STEPNET_TOPO: torus:3x3" || fail "STEPNET_TOPO not passed"
printf '%s\n' "$out" | grep -qF "image: stepnet:latest" || fail "the default image is not stepnet:latest"
# deploy/compose-smoke.sh runs the same file with its locally imported image
out=$(STEPNET_IMAGE=stepnet:smoke docker-compose -f deploy/compose.yaml config)
[ "$(printf '%s\n' "$out" | grep -cF "image: stepnet:smoke")" = 2 ] || fail "STEPNET_IMAGE does not set both services' image"
grep -q 'deploy/docker/entrypoint.sh' deploy/docker/Dockerfile || fail "the Dockerfile does not install the entrypoint"
[ -x deploy/docker/entrypoint.sh ] || fail "deploy/docker/entrypoint.sh is not executable"
# the runtime stage installs the Debian package of every shared library the programs link
for prog in "${STEPNET:-}" "${STEPNET_NODE:-}"; do
    [ -n "$prog" ] || continue
    for lib in $(ldd "$prog" | awk '$3 ~ /^\// {print $3}'); do
        pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n1 | cut -d: -f1) || true
        [ -z "$pkg" ] && pkg=$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1)
        # the C library is in every image; sanitizer runtimes only in sanitizer builds
        case "$pkg" in "" | libc6 | libasan* | libubsan* | libgcc-s1 | libstdc++6) continue ;; esac
        grep -qw "$pkg" deploy/docker/Dockerfile ||
            fail "$(basename "$prog") links $lib from $pkg, which deploy/docker/Dockerfile does not install"
    done
done
echo "compose_config: deploy/compose.yaml validates"
