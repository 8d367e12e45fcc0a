#!/usr/bin/env bash
# Runs pipeline files through geopipe-dask (integrations/dask) on a LocalCluster of two worker
# processes, kills a worker while it runs a shard, and checks that the outputs are byte for
# byte those of one `geopipe run` (integrations/dask/tests/test_dask.py).
#
# Usage: Scripts/test-dask.sh [GEOPIPE]   (default .build/debug/geopipe)
# Installs integrations/dask with dask and distributed from PyPI into .build/dask-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
geopipe=$(realpath "${1:-.build/debug/geopipe}")
venv=.build/dask-venv
if [ ! -x "$venv/bin/geopipe-dask" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet ./integrations/dask
"$venv/bin/python" integrations/dask/tests/test_dask.py "$geopipe"
