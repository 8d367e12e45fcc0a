# What the benchmark scripts share; each sources it after `set -euo pipefail`, with BENCH_NAME
# set for its error messages. Moves to the repository root and sets ROOT, BENCH, SWIFT,
# BUILD_PATH, GEOPIPE, DATA and WORK (from the environment, paths made absolute) and the
# helpers abspath, log and die.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=$ROOT/bench
abspath() { case $1 in /*) echo "$1" ;; *) echo "$ROOT/$1" ;; esac; }

SWIFT=${SWIFT:-swift}
BUILD_PATH=$(abspath "${BUILD_PATH:-.build}")
GEOPIPE=${GEOPIPE:-$BUILD_PATH/release/geopipe}
case $GEOPIPE in */*) GEOPIPE=$(abspath "$GEOPIPE") ;; esac
DATA=$(abspath "${DATA:-../shared/data}")
WORK=$(abspath "${BENCH_WORK:-bench/.work}")

log() { echo "==> $*" >&2; }
die() { echo "${BENCH_NAME:-bench}: error: $*" >&2; exit 1; }
