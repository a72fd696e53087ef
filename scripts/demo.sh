#!/usr/bin/env bash
# The main job on the embedded default: installs what is missing, builds, and runs total exchange
# on a 4x4 torus under the single-port model over real TCP links, one stepnet-node process per
# node on 127.0.0.1, every payload byte verified at every hop; then the same collective in the
# slot simulator, which must report the same steps and trace hash. Extra arguments replace the
# default options, e.g. scripts/demo.sh --topo hypercube:4 --coll bcast --ports single
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--topo torus:4x4 --coll te --ports single)
build/stepnet run "${args[@]}"
echo
build/stepnet sim "${args[@]}" | grep -E '^stepnet sim|steps|trace_hash|deliveries'
