#!/bin/sh
# Quick-start command (b): install what is needed, build, run the whole test suite: the unit
# tests under ASan+UBSan, a bounded fuzz run of every parser, then every test with ctest two at a
# time (unit tests, and the integration tests that do the real thing: cgroups, podman, Ceph,
# qemu), and at the end the leftovers check (ci/leftovers.py): anything a test left on the machine
# fails the run.  The packages the build does not need are installed in the background while the
# builds and the fuzzing run, and then the shared setup the integration tests use (podman
# images, the guests' root file system: mostly downloads).
# .ci/run runs this verbatim.  Needs root.
#   PLACER_FUZZ_SECONDS  seconds per fuzz harness (default here 10; ci/fuzz.sh alone: 30)
#   PLACER_CTEST_JOBS    tests run at once (default 2; 3 was no faster on 2 cores: the guests,
#                        Ansible's nodes and the benches' CPU hogs saturate them)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ "$(id -u)" = 0 ] || { echo "ci/test.sh: run as root (it installs packages and uses cgroups)" >&2; exit 2; }
t0=$(date +%s)
stage() { s=$(($(date +%s) - t0)); printf '== [%d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*"; }

stage "install what the build needs (ci/install-deps.sh build)"
sh ci/install-deps.sh build
mkdir -p build
# In the background while the builds and the fuzzing run: the rest of the packages (Ceph, podman,
# qemu, ansible, chromium...), then a snapshot of the machine before any test (ci/leftovers.py
# compares the end with it), then the shared setup of the integration tests.
stage "in the background: the other packages, then the shared setup (log: build/background.log)"
rm -f build/packages.done
(
  set -e
  sh ci/install-deps.sh all
  /usr/bin/python3 ci/leftovers.py snapshot build/leftovers-before.json
  echo "packages installed: the machine's snapshot taken"
  : >build/packages.done
  sh ci/shared-setup.sh || echo "shared setup failed (exit $?): ctest's integration_shared_setup retries it"
) >build/background.log 2>&1 &
background_pid=$!

stage "includes point down the layers (docs/ARCHITECTURE.md)"
sh ci/check-layers.sh
stage "no test script writes onto /dev, /etc, /proc or /sys (ci/check-test-writes.sh)"
sh ci/check-test-writes.sh
stage "C sources formatted as .clang-format says"
sh ci/check-format.sh
stage "build (-Wall -Wextra -Werror)"
BUILD_DIR=$root/build sh ci/build.sh
stage "every linked library is called (docs/dependencies.md)"
sh ci/check-linked.sh build/placer
stage "no call cycle between C files (ci/check-cycles.py)"
/usr/bin/python3 ci/check-cycles.py build
# One sanitizer build (clang: ASan+UBSan, and libFuzzer's coverage so that the fuzzers link to the
# same objects) for the unit tests and the fuzzing.  Then the suite, after the CPU-heavy stages:
# beside them its guests and daemons ran slower and did more work (timer ticks under TCG, polls).
stage "build with ASan+UBSan and the fuzzers (clang)"
CC=clang BUILD_DIR=$root/build-asan sh ci/build.sh -DPLACER_SANITIZE=ON -DPLACER_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
stage "unit and live cgroup tests under ASan+UBSan (the Python ones run once, below)"
(cd build-asan && ctest -j2 -L 'unit|live' -LE python --output-on-failure)
stage "fuzz every parser under ASan+UBSan (ci/fuzz.sh; ${PLACER_FUZZ_SECONDS:-10} s each)"
PLACER_FUZZ_SECONDS=${PLACER_FUZZ_SECONDS:-10} BUILD_DIR=$root/build-asan sh ci/fuzz.sh

stage "waiting for the background packages and shared setup"
background_rc=0
wait "$background_pid" || background_rc=$?
cat build/background.log
# Without every package, tests would skip instead of running: that is a failed run.
[ "$background_rc" = 0 ] && [ -f build/packages.done ] ||
  { echo "ci/test.sh: installing the packages failed (exit $background_rc)" >&2; exit 1; }

stage "all tests, ${PLACER_CTEST_JOBS:-2} at a time (unit + integration)"
ctest_rc=0
(cd build && ctest -j"${PLACER_CTEST_JOBS:-2}" -LE fuzz_long --output-on-failure) || ctest_rc=$?
(cd build && sed -n 's/^\([a-z_0-9]*\) [0-9]* \([0-9.]*\).*/\2 \1/p' Testing/Temporary/CTestCostData.txt 2>/dev/null |
  sort -rn | head -n 12 | awk '{ printf "  %6.1f s  %s\n", $1, $2 }') || true

stage "leftovers: nothing a test made may remain (ci/leftovers.py)"
leftovers_rc=0
/usr/bin/python3 ci/leftovers.py check build/leftovers-before.json || leftovers_rc=$?
stage "done: ctest exit $ctest_rc, leftovers exit $leftovers_rc"
[ "$ctest_rc" = 0 ] && [ "$leftovers_rc" = 0 ]
