#!/bin/sh
# Run integration tests again and again, as the house rule asks before a test is called done:
# "20 times with stress-ng --cpu 2 beside them".  Each run's whole output is kept
# (LOGDIR/NAME.N.log), so a failure that does not recur can still be read; the summary line
# per test gives passes, failures and the runs that failed.
#
# usage: ci/loop-test.sh [-n RUNS] [-l LOAD] [-o LOGDIR] [-b BUILD_DIR] TEST...
#   TEST       a ctest name without the "integration_" prefix (apply_trees)
#   -n RUNS    runs per test (default 20)
#   -l LOAD    stress-ng --cpu LOAD workers beside every run (default 2; 0: none)
#   -o LOGDIR  where the logs go (default /var/tmp/placer-loop-YYYYmmdd-HHMMSS)
#   -b DIR     the build directory whose ctest runs (default build)
# Exit 0 when every run passed, 1 otherwise.  Root, as the integration tests are.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
runs=20 load=2 logdir="" build="$root/build"
while getopts n:l:o:b: opt; do
  case $opt in
    n) runs=$OPTARG ;; l) load=$OPTARG ;; o) logdir=$OPTARG ;; b) build=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-l LOAD] [-o LOGDIR] [-b BUILD_DIR] TEST..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-n RUNS] [-l LOAD] [-o LOGDIR] [-b BUILD_DIR] TEST..." >&2; exit 2; }
[ -f "$build/CTestTestfile.cmake" ] || { echo "loop-test: $build is not a build directory" >&2; exit 2; }
[ -n "$logdir" ] || logdir=/var/tmp/placer-loop-$(date +%Y%m%d-%H%M%S)
mkdir -p "$logdir" || exit 2

hog=""
stop_hog() { [ -z "$hog" ] || { kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; hog=""; }; }
trap 'stop_hog; exit 130' INT TERM HUP
if [ "$load" -gt 0 ]; then
  command -v stress-ng >/dev/null || { echo "loop-test: stress-ng is not installed" >&2; exit 2; }
  stress-ng --cpu "$load" --timeout 0 --quiet &
  hog=$!
fi

status=0
for t in "$@"; do
  pass=0 failed=""
  i=1
  while [ "$i" -le "$runs" ]; do
    log="$logdir/$t.$i.log"
    t0=$(date +%s)
    (cd "$build" && ctest -R "^integration_$t\$" --output-on-failure) >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - t0))
    if grep -q "Skipped" "$log"; then
      failed="$failed $i(skipped)"; status=1; echo "$t run $i: SKIPPED ($log)"
    elif [ "$rc" = 0 ] && grep -q "100% tests passed" "$log"; then
      pass=$((pass + 1)); echo "$t run $i: pass ($took s)"
    else
      failed="$failed $i"; status=1; echo "$t run $i: FAIL ($took s, $log)"
    fi
    i=$((i + 1))
  done
  echo "loop-test: $t: $pass of $runs passed${failed:+; failed:$failed} (load: stress-ng --cpu $load; logs in $logdir)" |
    tee -a "$logdir/summary.txt"
done
stop_hog
exit "$status"
