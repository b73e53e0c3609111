#!/bin/sh
# The results directory's file system filling up during a study, for real:
# --out on a tmpfs of 4 MiB (cluster none; fio's file on /var/tmp, outside it),
# filled from the test when the study reaches its second pass.
#   - full (0 bytes left) while fio runs: fio exits 0 with an empty JSON; the
#     study stops (exit 4) with one error line naming the fio JSON that could
#     not be written and the full disk;
#   - room for the run's fio JSON and rows, not for the new summary.json: the
#     error names summary.json, the run's CSV rows are cut again;
# in both: summary.json is byte for byte the one of the last run recorded
# (valid JSON, never cut), no temporary file is left, runs.csv holds the
# rows of summary.json's runs and nothing else (no row cut in the middle),
# nothing of the study runs, no cgroup is left; after the space is freed,
# `placer bench --resume DIR` completes the study (ci/bench-check.py: every
# run once, in summary.json and runs.csv) and the runs measured before are
# kept as they were.  About 2 minutes.
# ctest: cost=77
set -u
T=bench_disk_full
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root "mount"
need_cmd fio mount umount /usr/bin/python3

bench_setup /var/tmp # fio's file on a disk: O_DIRECT
fs=$work/fs
mkdir "$fs"
mount -t tmpfs -o size=4m,mode=0755 "placer-t-$T-$$" "$fs" || skip "cannot mount a tmpfs"
bg=""
fs_cleanup() {
  [ -z "$bg" ] || kill -9 "$bg" 2>/dev/null
  for p in $(bench_ours); do kill -9 "$p" 2>/dev/null; done
  sleep 0.5
  if mountpoint -q "$fs"; then
    [ "$rc" = 0 ] || cp -a "$fs" "$work/fs-copy" 2>/dev/null # what failed, kept with $work
    umount "$fs" 2>/dev/null || umount -l "$fs"
  fi
}
t_defer fs_cleanup

{ bench_study_ab "disk full test" "$work/target.img" "randwrite, randread" 3; cat <<YAML; } >"$work/study.yaml"
repeats: 2
warmup: 0
YAML

# "variant repeat condition workload write_iops read_iops fio_json" of each run in summary.json
runs_of() {
  $PY - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    print(r["variant"], r["repeat"], r["condition"], r["workload"], r["write"]["iops"], r["read"]["iops"],
          r.get("fio_json"))
PY
}

# free_blocks: the blocks (4 KiB) the tmpfs has left
free_blocks() { stat -f -c %a "$fs"; }

# fill KEEP: write a file until only KEEP blocks are left
fill() {
  n=$(($(free_blocks) - $1))
  [ "$n" -gt 0 ] || fail "the tmpfs has only $(free_blocks) blocks left before the fill"
  dd if=/dev/zero of="$fs/filler" bs=4096 count="$n" 2>/dev/null
  [ "$(free_blocks)" -le "$1" ] || fail "the fill left $(free_blocks) blocks, not $1"
}

# study_until NAME PATTERN: start the study into $fs/NAME (its output in $work/NAME.*,
# off the tmpfs); return when its progress says PATTERN
study_until() {
  "$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$fs/$1" "$work/study.yaml" >"$work/$1.out" 2>"$work/$1.err" &
  bg=$!
  i=0
  until grep -q "$2" "$work/$1.err" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 1200 ] || { cat "$work/$1.err" >&2; fail "$1: the study never reached '$2'"; }
    kill -0 "$bg" 2>/dev/null || { cat "$work/$1.err" >&2; fail "$1: the study ended before '$2'"; }
    sleep 0.1
  done
  cp "$fs/$1/summary.json" "$work/$1.summary-before"
}

# stopped NAME RUNS WHAT: the study into $fs/NAME stopped with exit 4, one error line
# (the last) matching WHAT; summary.json as it was (RUNS runs), no temporary file,
# the CSV files hold whole rows of those runs only, nothing left
stopped() {
  d=$fs/$1
  wait "$bg"; rc=$?
  bg=""
  [ "$rc" = 4 ] || { cat "$work/$1.err" >&2; fail "$1: the disk full: exit $rc, expected 4"; }
  line=$(tail -1 "$work/$1.err")
  echo "$line" | grep -Eq "$3" || fail "$1: the last line does not name what could not be written: $line"
  [ "$(grep -c '^placer: ' "$work/$1.err")" = 1 ] || fail "$1: not one error line: $(grep '^placer: ' "$work/$1.err")"
  cmp -s "$work/$1.summary-before" "$d/summary.json" || fail "$1: summary.json changed after the disk filled"
  $PY - "$d/summary.json" <<'PY' || fail "$1: summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is True, "a study that stopped is interrupted in its last summary.json"
PY
  [ "$(runs_of "$d/summary.json" | wc -l)" = "$2" ] || fail "$1: summary.json does not hold $2 runs"
  tmp=$(find "$d" -name '*.tmp')
  [ -z "$tmp" ] || fail "$1: temporary files left: $tmp"
  $PY - "$d" <<'PY' || fail "$1: the CSV files do not hold the rows of summary.json's runs"
import csv, json, os, sys
d = sys.argv[1]
runs = sorted((r["variant"], str(r["repeat"]), r["condition"], r["workload"])
              for r in json.load(open(os.path.join(d, "summary.json")))["runs"])
for name in ("runs.csv", "roles.csv", "cores.csv", "placement.csv"):
    table = list(csv.reader(open(os.path.join(d, name), newline="")))
    for n, row in enumerate(table[1:], 2):
        assert len(row) == len(table[0]), f"{name}:{n}: {row}"
    if name != "placement.csv":
        keys = {tuple(row[:4]) for row in table[1:]}
        assert sorted(keys) == sorted(set(runs)), f"{name}: {sorted(keys)} vs {runs}"
rows = [tuple(row[:4]) for row in list(csv.reader(open(os.path.join(d, "runs.csv"))))[1:]]
assert sorted(rows) == runs, f"runs.csv: {rows} vs {runs}"
PY
  bench_nothing_left "$1: after the disk filled"
}

# resumed NAME: room again: --resume completes the study, the runs before kept
resumed() {
  d=$fs/$1
  rm -f "$fs/filler"
  runs_of "$d/summary.json" | sort >"$work/$1.runs-before"
  "$PLACER" bench --prefix "$prefix" --resume "$d" >"$work/$1.r2.out" 2>"$work/$1.r2.err" ||
    { rc=$?; cat "$work/$1.r2.err" >&2; fail "$1: --resume after the space was freed exited $rc"; }
  $PY "$SRC/ci/bench-check.py" "$d" --roles fio --placer "$PLACER" || fail "$1: results incomplete after --resume"
  runs_of "$d/summary.json" | sort >"$work/$1.runs-after"
  [ "$(wc -l <"$work/$1.runs-after")" = 8 ] || fail "$1: after --resume: $(wc -l <"$work/$1.runs-after") runs, not 8"
  comm -23 "$work/$1.runs-before" "$work/$1.runs-after" >"$work/$1.lost"
  [ ! -s "$work/$1.lost" ] || fail "$1: runs measured before the disk filled changed or went: $(cat "$work/$1.lost")"
  [ -z "$(find "$d" -name '*.tmp')" ] || fail "$1: temporary files left after --resume"
  # no neighbours in this study: no solo rate to measure or to take from unpinned
  ! grep -q "solo rate" "$work/$1.err" "$work/$1.r2.err" || fail "$1: a solo rate without neighbours: $(grep -h "solo rate" "$work/$1.err" "$work/$1.r2.err" | head -1)"
  bench_nothing_left "$1: after --resume"
}

# --- full while fio runs: its JSON cannot be written -----------------------------------
study_until a "] unpinned-r1: 4k-randwrite alone"
fill 0
stopped a 4 "^placer: unpinned-r1: fio could not write $fs/a/fio/unpinned-r1-alone-4k-randwrite\\.json: No space left on device\$"
say "full while fio ran: exit 4, '$(tail -1 "$work/a.err" | cut -c1-130)'; summary.json as it was (4 runs), nothing left"
resumed a
say "space freed: --resume completed it (8 runs, the 4 before kept)"

# --- room for fio's JSON, not for summary.json --------------------------------------------
study_until b "] pinned-r1: 4k-randread alone"
json_blocks=$(( ($(stat -c %s "$fs/b/fio/pinned-r1-alone-4k-randwrite.json") + 4095) / 4096 ))
summary_blocks=$(( ($(stat -c %s "$fs/b/summary.json") + 4095) / 4096 ))
# fio's JSON and a block of slack (a CSV file growing into a new block) fit; the new
# summary.json, larger than the one there, does not
[ "$summary_blocks" -gt $((json_blocks + 1)) ] ||
  fail "summary.json ($summary_blocks blocks) is not larger than fio's JSON ($json_blocks) + 1: the test cannot tell them apart"
fill $((json_blocks + 1))
stopped b 7 "^placer: pinned-r1: 4k-randread alone not recorded: write $fs/b/summary\\.json: No space left on device\$"
[ -s "$fs/b/fio/pinned-r1-alone-4k-randread.json" ] || fail "b: fio's JSON was not written (the test meant to leave room for it)"
say "no room for summary.json: exit 4, '$(tail -1 "$work/b.err" | cut -c1-130)'; summary.json as it was (7 runs), the run's rows cut, nothing left"
resumed b
say "space freed: --resume completed it (8 runs, the 7 before kept); OK"
