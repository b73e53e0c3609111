#!/bin/sh
# Quick-start command (b): install what is needed, build, run the whole test
# suite: unit tests, the same unit tests under ASan+UBSan, a bounded fuzz
# run of every parser, then the integration tests that do the real thing
# (cgroups, podman, Ceph, qemu).
# .ci/run runs this verbatim.  Needs root.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ "$(id -u)" = 0 ] || { echo "ci/test.sh: run as root (it installs packages and uses cgroups)" >&2; exit 2; }

echo "== install packages"
sh ci/install-deps.sh all
echo "== includes point down the layers (docs/ARCHITECTURE.md)"
sh ci/check-layers.sh
echo "== C sources formatted as .clang-format says"
sh ci/check-format.sh
echo "== build (-Wall -Wextra -Werror)"
BUILD_DIR=$root/build sh ci/build.sh
echo "== every linked library is called (docs/dependencies.md)"
sh ci/check-linked.sh build/placer
echo "== build with ASan+UBSan"
BUILD_DIR=$root/build-asan sh ci/build.sh -DPLACER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug

echo "== unit and live cgroup tests under ASan+UBSan"
(cd build-asan && ctest -L 'unit|live' --output-on-failure)
echo "== fuzz every parser under ASan+UBSan (ci/fuzz.sh; PLACER_FUZZ_SECONDS each, default 30)"
sh ci/fuzz.sh
echo "== all tests (unit + integration)"
(cd build && ctest --output-on-failure)
