#!/bin/sh
# Check that placer's C sources and unit tests are formatted as .clang-format
# says (clang-format 14, ci/install-deps.sh installs it).  Fix a file with
# `clang-format -i FILE`.  Exit 1 when a file would change.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed (sh ci/install-deps.sh)" >&2; exit 2; }
fail=0
n=0
for f in $(git ls-files 'placer/*.[ch]' 'tests/unit/*.[ch]'); do
  n=$((n + 1))
  if ! clang-format --style=file --dry-run --Werror "$f" 2>/dev/null; then
    echo "check-format: $f is not formatted (clang-format -i $f)" >&2
    fail=1
  fi
done
[ $fail = 0 ] && echo "check-format: $n files formatted as .clang-format says"
exit $fail
