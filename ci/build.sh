#!/bin/sh
# Configure and build placer into BUILD_DIR (default build/), warnings as
# errors.  Extra arguments go to cmake's configure step.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DPLACER_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" -- --no-print-directory >"$build.log" 2>&1 || { cat "$build.log" >&2; exit 1; }
