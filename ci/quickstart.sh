#!/bin/sh
# Quick-start command (a): install what is needed, build, and run placer's
# main job on its default study (studies/default.yaml).  Needs root.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ "$(id -u)" = 0 ] || { echo "ci/quickstart.sh: run as root (it installs packages)" >&2; exit 2; }
sh ci/install-deps.sh all
BUILD_DIR=$root/build sh ci/build.sh
./build/placer topo
echo
./build/placer bench
