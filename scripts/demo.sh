#!/usr/bin/env bash
# The main job on the embedded default: installs what building and running needs (scripts/setup.sh
# --runtime: the compiler, cmake, libuv, protobuf-c, libsodium, CaDiCaL; no test or deployment
# package, no service), builds, and runs total exchange on a 4x4 torus under the single-port model
# over real TCP links, one stepnet-node process per node on 127.0.0.1, every payload byte
# verified at every hop; then the same collective in the slot simulator, which must report the
# same steps and trace hash. Each step says when it starts and how long it took. Extra arguments
# replace the default options, e.g. scripts/demo.sh --topo hypercube:4 --coll bcast --ports single
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
scripts/setup.sh --runtime >/dev/null
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--topo torus:4x4 --coll te --ports single)
echo "demo: running build/stepnet run ${args[*]}" >&2
t1=$(date +%s)
build/stepnet run "${args[@]}"
echo "demo: the run took $(($(date +%s) - t1)) s" >&2
echo
build/stepnet sim "${args[@]}" | grep -E '^stepnet sim|steps|trace_hash|deliveries'
echo "demo: done in $(($(date +%s) - t0)) s (set-up and build included)" >&2
