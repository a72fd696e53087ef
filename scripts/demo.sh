#!/usr/bin/env bash
# The main job on the embedded default: installs what is missing, builds, and runs total exchange
# on a 4x4 torus under the single-port model in the slot simulator, every packet verified, next to
# the model's prediction and lower bounds. Extra arguments replace the default run's options,
# e.g. scripts/demo.sh --topo hypercube:6 --coll bcast --ports single
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
if [ $# -gt 0 ]; then
    exec build/stepnet sim "$@"
fi
build/stepnet sim --topo torus:4x4 --coll te --ports single
