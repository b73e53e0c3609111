#!/bin/sh
# Check that placer's C sources and unit tests are formatted as .clang-format
# says (clang-format 14, ci/install-deps.sh installs it).  Fix a file with
# `clang-format -i FILE`.  Exit 1 when a file would change.  The files go to
# clang-format in batches, two at a time (one process per file cost a minute
# on a loaded 2-core machine).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed (sh ci/install-deps.sh)" >&2; exit 2; }
n=$(git ls-files 'placer/*.[ch]' 'tests/unit/*.[ch]' | wc -l)
out=$(git ls-files -z 'placer/*.[ch]' 'tests/unit/*.[ch]' |
  xargs -0 -n 25 -P 2 clang-format --style=file --dry-run --Werror 2>&1) && rc=0 || rc=$?
bad=$(printf '%s\n' "$out" |
  sed -n 's/^\([^: ]*\.[ch]\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' | sort -u)
if [ -n "$bad" ]; then
  for f in $bad; do echo "check-format: $f is not formatted (clang-format -i $f)" >&2; done
  exit 1
fi
if [ "$rc" != 0 ]; then
  printf '%s\n' "$out" | tail -n 5 >&2
  echo "check-format: clang-format failed (exit $rc)" >&2
  exit 2
fi
echo "check-format: $n files formatted as .clang-format says"
