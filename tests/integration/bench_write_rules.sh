#!/bin/sh
# placer bench writes only where the study says it may (docs/bench.md, "What placer
# writes"), proved with real runs (cluster none, fio on a file, 1 s runs) on decoy files
# of random data that the test checks byte for byte:
#   - refused before anything runs (exit 2, one line naming the key, no results
#     directory made, the decoy as it was): a fio option that names the decoy
#     (--filename, --output, an abbreviation, one hidden behind a newline),
#     hardware_baseline.path climbing out of the results directory with '..',
#     hardware_baseline.path and workloads.path naming the existing decoy without
#     write: true;
#   - allowed: a read-only study of the decoy without write: true runs and leaves it
#     byte for byte; with write: true the study writes the decoy (so write: true is what
#     lets placer write a file it did not create) and leaves it in place; a study with
#     relative paths writes its target and baseline files inside the results directory
#     and removes them at its end.
set -u
T=bench_write_rules
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd fio sha256sum

bench_setup /var/tmp # not tmpfs: O_DIRECT
mkdir "$work/elsewhere"
for d in target hw out; do
  { echo "precious data"; head -c 8388608 /dev/urandom; } >"$work/elsewhere/decoy-$d" || fail "no decoy"
done
sums() { (cd "$work/elsewhere" && sha256sum decoy-*); }
sums >"$work/decoys.sha256"

# study NAME: a one-variant cluster-none study $work/NAME.yaml, its workloads and the
# rest from stdin (YAML), 1 s runs of 4 MiB
study() {
  {
    printf 'version: 1\ntitle: write rules %s\ncluster: { type: none }\n' "$1"
    printf 'variants: [ { name: unpinned, profile: unpinned } ]\nrepeats: 1\nwarmup: 0\n'
    cat
  } >"$work/$1.yaml"
}

# refused NAME PATTERN: the study is refused before anything runs (a real run, not --dry-run)
refused() {
  "$PLACER" bench --quiet --prefix "$prefix" --out "$work/r-$1" "$work/$1.yaml" >"$work/$1.out" 2>"$work/$1.err"
  rc=$?
  [ "$rc" = 2 ] || { cat "$work/$1.err" >&2; fail "$1: exit $rc, expected 2"; }
  [ "$(wc -l <"$work/$1.err")" = 1 ] && grep -q -- "$2" "$work/$1.err" ||
    fail "$1: expected one line with '$2', got: $(cat "$work/$1.err")"
  [ ! -s "$work/$1.out" ] || fail "$1: stdout on error: $(head -3 "$work/$1.out")"
  [ ! -e "$work/r-$1" ] || fail "$1: a results directory was made"
  sums | cmp -s - "$work/decoys.sha256" || fail "$1: a decoy changed: $(sums | diff "$work/decoys.sha256" -)"
  bench_nothing_left "$1"
  say "$1: refused ($(sed 's/^placer: [^ ]*: //' "$work/$1.err" | tr -d '\\' | cut -c1-100)...)"
}

W="workloads:
  path: target.img
  size: 4MiB
  patterns: [randwrite]
  iodepth: 4
  runtime: 1
  ramp: 0"

printf '%s\n  fio_options: [--randrepeat=0, --filename=%s]\n' "$W" "$work/elsewhere/decoy-target" | study filename
refused filename "workloads.fio_options: \[1\]: '--filename=.*decoy-target': placer sets it"
printf '%s\n  fio_options: [--output=%s]\n' "$W" "$work/elsewhere/decoy-out" | study output
refused output "workloads.fio_options: \[0\]: '--output=.*': placer sets it"
printf '%s\n  fio_options: [--filenam=%s]\n' "$W" "$work/elsewhere/decoy-target" | study abbreviation
refused abbreviation "workloads.fio_options: \[0\]: '--filenam=.*': not one of the fio options a study may pass"
printf '%s\n  fio_options: ["--randrepeat=0\\n--filename=%s"]\n' "$W" "$work/elsewhere/decoy-target" | study newline
refused newline "no option may hold a newline"
# from the results directory $work/r-X, ../elsewhere/decoy-hw is the decoy
printf '%s\nhardware_baseline: { path: ../elsewhere/decoy-hw, size: 4MiB }\n' "$W" | study dotdot
refused dotdot "hardware_baseline.path: '../elsewhere/decoy-hw': expected a path inside the results directory"
printf '%s\nhardware_baseline: { path: %s, size: 4MiB }\n' "$W" "$work/elsewhere/decoy-hw" | study baseline
refused baseline "hardware_baseline.path: '.*decoy-hw' is an existing file (8.0 MiB) that placer did not create, and the study writes it (prefill.*): set hardware_baseline.write: true"
printf '%s\n' "$W" | sed "s|path: target.img|path: $work/elsewhere/decoy-target|" | study target
refused target "workloads.path: '.*decoy-target' is an existing file (8.0 MiB) that placer did not create, and the study writes it (prefill, randwrite): set workloads.write: true"

# ran NAME: the study runs to its end (exit 0)
ran() {
  "$PLACER" bench --quiet --prefix "$prefix" --out "$work/r-$1" "$work/$1.yaml" >"$work/$1.out" 2>"$work/$1.err" ||
    { rc=$?; cat "$work/$1.err" >&2; fail "$1: exit $rc"; }
  $PY - "$work/r-$1/summary.json" <<'PY' || fail "$1: summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is False and len(s["runs"]) == 1, s["runs"]
r = s["runs"][0]
assert r["read"]["iops"] + r["write"]["iops"] > 0, r
PY
  bench_nothing_left "$1"
}

# A read of the decoy: no write: true needed, and not one byte changes.
printf 'workloads:\n  path: %s\n  size: 4MiB\n  patterns: [randread]\n  prefill: false\n  iodepth: 4\n  runtime: 1\n  ramp: 0\n' \
  "$work/elsewhere/decoy-target" | study reads
ran reads
sums | cmp -s - "$work/decoys.sha256" || fail "reads: a decoy changed: $(sums | diff "$work/decoys.sha256" -)"
say "reads: a read-only study of the decoy ran, the decoy byte for byte as it was"

# Relative paths: the target and the baseline's file inside the results directory, removed at the end.
printf '%s\nhardware_baseline: { path: hw/b.img, size: 4MiB }\n' "$W" | study relative
ran relative
[ ! -e "$work/r-relative/target.img" ] && [ ! -e "$work/r-relative/hw/b.img" ] ||
  fail "relative: the files placer made were not removed: $(ls -R "$work/r-relative" | head -20)"
grep -q "Hardware baseline" "$work/relative.out" || fail "relative: no hardware baseline in the report"
sums | cmp -s - "$work/decoys.sha256" || fail "relative: a decoy changed"
say "relative: target.img and hw/b.img written in the results directory and removed at the end"

# write: true is what lets placer write the decoy: it is written, and stays (placer did not make it).
printf '%s\n  write: true\n' "$W" | sed "s|path: target.img|path: $work/elsewhere/decoy-target|" | study written
ran written
[ -f "$work/elsewhere/decoy-target" ] || fail "written: the decoy was removed"
sums | grep decoy-target | cmp -s - "$(grep decoy-target "$work/decoys.sha256" >"$work/t.sum"; echo "$work/t.sum")" &&
  fail "written: with write: true the study did not write the decoy (the test proves nothing)"
sums | grep -v decoy-target | cmp -s - "$(grep -v decoy-target "$work/decoys.sha256" >"$work/o.sum"; echo "$work/o.sum")" ||
  fail "written: another decoy changed"
say "written: with write: true the decoy was written and kept; OK"
