#!/bin/sh
# Check that the executable links exactly the libraries the project means it
# to: every NEEDED entry of build/placer (readelf -d) is one of the libraries
# CMakeLists.txt links (its pkg_check_modules, plus libm and libc), and each of
# those is NEEDED.  With -Wl,--as-needed a library that no code calls drops out
# of NEEDED, so "linked but never called" fails here (docs/dependencies.md).
# Usage: sh ci/check-linked.sh [EXECUTABLE]   (default build/placer; exit 1 on a mismatch)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${1:-$root/build/placer}
[ -x "$exe" ] || { echo "check-linked: no executable '$exe' (build first)" >&2; exit 2; }

# The soname of -lNAME as the toolchain resolves it (libyaml.so -> libyaml-0.so.2).
soname_of() {
  so=$(cc -print-file-name="lib$1.so")
  s=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
  [ -n "$s" ] || s=lib$1.so
  echo "$s"
}

# Intended: the pkg-config modules the top-level CMakeLists.txt requires
# (tests' own, like cmocka, are in tests/CMakeLists.txt), libm, libc.
modules=$(sed -n 's/^pkg_check_modules([A-Z_]* REQUIRED IMPORTED_TARGET \([^ >=)]*\).*/\1/p' "$root/CMakeLists.txt")
intended="libc.so.6 libm.so.6" # glibc (libm.so is a linker script)
for m in $modules; do
  for l in $(pkg-config --libs-only-l "$m"); do
    intended="$intended $(soname_of "${l#-l}")"
  done
done

needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
fail=0
for n in $needed; do
  case " $intended " in
  *" $n "*) ;;
  *) echo "check-linked: $exe needs $n, which CMakeLists.txt does not mean to link" >&2; fail=1 ;;
  esac
done
for i in $intended; do
  case " $(echo $needed) " in
  *" $i "*) ;;
  *) echo "check-linked: $exe is linked with $i but no code calls it (--as-needed dropped it): use it or remove it" >&2; fail=1 ;;
  esac
done
[ $fail = 0 ] && echo "check-linked: $(echo $needed | wc -w) libraries, each one called:" $needed
exit $fail
