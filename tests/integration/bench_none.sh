#!/bin/sh
# placer bench without Ceph (cluster none: fio on a local file), for real:
#   - a tiny study (unpinned vs demo-local, 4K randwrite + randread, a stress-ng
#     neighbour, a warm-up pass, 2 repeats, a hardware baseline) exits 0 and its results
#     are complete (ci/bench-check.py: every cell and repeat, raw fio JSON, fio's CPU,
#     the neighbours' rates with and without storage, fio and the neighbour on exactly
#     the CPUs of their plan); the neighbour at load 50% ran with --cpu-load=50 and used
#     at most about half a core; the warm-up runs left their fio JSON; the baseline and
#     its shares are in summary.json; the report is on stdout, and it is report.txt, what
#     `placer bench --report` prints and `placer report` writes (one route, the baseline's lines
#     in each); the neighbours' solo rate measured in every pass, before its cells, and each
#     share in summary.json the median over the passes of the runs' rates each over the solo
#     run of its own pass;
#   - fio and the neighbour hold none of the results files open;
#   - Ctrl-C (SIGINT) in the middle of a long run stops within seconds with exit 130,
#     the summary says interrupted and keeps the runs done so far, and no process and
#     no cgroup is left;
#   - dynamic repeats (min 2, max 3, a CI width never reached): the third pass runs and is
#     counted in the progress line, summary.json and the report say it stopped at the cap;
#   - a study with a mistake is refused with FILE:LINE:COL (exit 2) before anything runs, and so
#     is one whose 3 repeats cannot reach p < 0.05 (the fix named); the tiny study's 2 repeats
#     run with --allow-inconclusive, which says what it allowed.
# ctest: cost=100
set -u
T=bench_none
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd fio stress-ng /usr/bin/python3

bench_setup /var/tmp # not tmpfs: O_DIRECT
bg=""

{ bench_study_ab "bench none test" "$work/target.img" "randwrite, randread" 2; cat <<YAML; } >"$work/study.yaml"
neighbours:
  - { name: hog, kind: stress-ng, stressor: cpu, method: matrixprod, load: 50% }
hardware_baseline: { path: hw.img, size: 32MiB }
repeats: 2
warmup: 1
YAML

# --- a whole study ------------------------------------------------------------------
t0=$(date +%s)
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/r1" "$work/study.yaml" >"$work/r1.out" 2>"$work/r1.err" &
bg=$!
# the neighbour's command line, as it runs: load: 50% reached stress-ng
hog_argv=""
while kill -0 "$bg" 2>/dev/null; do
  for p in $(bench_ours); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = stress-ng ] && hog_argv=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")
  done
  [ -z "$hog_argv" ] || break
  sleep 0.2
done
wait "$bg" || { rc=$?; cat "$work/r1.err" >&2; fail "placer bench exited $rc"; }
bg=""
say "study done in $(($(date +%s) - t0)) s"
case "$hog_argv" in *" --cpu-load=50 "*) ;; *) fail "the neighbour ran as '$hog_argv', without --cpu-load=50" ;; esac
head -1 "$work/r1.out" | grep -q "^placer bench: bench none test" || fail "no report on stdout"
# 2 repeats cannot conclude; --allow-inconclusive ran it and said so
grep -q "note: --allow-inconclusive: 2 repeats: a paired p cannot go below 0.50 and an unpaired one below 0.33" \
  "$work/r1.err" || fail "no note for --allow-inconclusive: $(grep note "$work/r1.err")"
grep -q "Hardware baseline" "$work/r1.out" || fail "no hardware baseline in the report"
$PY "$SRC/ci/bench-check.py" "$work/r1" --roles fio --placer "$PLACER" || fail "results incomplete"
# one report route: the text bench printed and wrote as report.txt is the directory's, as
# `placer bench --report` prints it and `placer report` writes it beside the page (the hardware
# baseline's lines in each); bench adds where the results are after it
"$PLACER" bench --report "$work/r1" >"$work/r1.report" || fail "bench --report exited $?"
cmp -s "$work/r1/report.txt" "$work/r1.report" ||
  fail "report.txt and bench --report differ: $(diff "$work/r1/report.txt" "$work/r1.report" | head -5)"
cmp -s "$work/r1/report.txt" "$work/r1/report/report.txt" ||
  fail "report.txt and the page's report/report.txt differ: $(diff "$work/r1/report.txt" "$work/r1/report/report.txt" | head -5)"
head -c "$(wc -c <"$work/r1/report.txt")" "$work/r1.out" | cmp -s - "$work/r1/report.txt" ||
  fail "bench printed another report than report.txt"
[ "$(tail -1 "$work/r1.out")" = "Results: $work/r1 (summary.json, report.txt, fio/, runs.csv, roles.csv, threads.csv, cores.csv, placement.csv, solo.csv, logs/)" ] ||
  fail "bench's last line: $(tail -1 "$work/r1.out")"
grep -q "^Hardware baseline" "$work/r1/report/report.txt" || fail "no hardware baseline in report/report.txt"
rm -r "$work/r1/report" "$work/r1/report.html"
"$PLACER" report "$work/r1" >/dev/null || fail "placer report exited $?"
cmp -s "$work/r1/report.txt" "$work/r1/report/report.txt" || fail "placer report's report/report.txt differs"
for v in unpinned pinned; do
  for w in 4k-randwrite 4k-randread; do
    [ -s "$work/r1/fio/$v-warmup0-alone-$w.json" ] || fail "no warm-up fio JSON for $v $w"
  done
done
$PY - "$work/r1/summary.json" <<'PY' || fail "summary.json: the baseline, the neighbour's CPU"
import json, sys
s = json.load(open(sys.argv[1]))
hb = s["hardware_baseline"]
assert len(hb["workloads"]) == 2, hb
assert all(w["read_iops"] + w["write_iops"] > 0 for w in hb["workloads"]), hb
assert len(hb["shares_alone"]) == 4 and all(x["share"] > 0 for x in hb["shares_alone"]), hb
assert s["study"]["cluster"] == "none" and s["study"]["warmup"] == 1
# the neighbour's own CPU is measured in the neighbour condition
for r in s["runs"]:
    roles = {u["role"]: u for u in r["roles"]}
    if r["condition"] == "hog":
        assert roles["neighbour"]["cpu_ns"] > 0, r
# --cpu-load=50 held: at most about half a core, where a full worker takes a whole one on
# an idle machine (unpinned: fio on a file leaves most of the other CPU free).  No lower
# bound: on a loaded machine (the loops' stress-ng beside) it gets less than it asks.
cores = sorted(u["cpu_ns"] / 1e9 / r["duration_s"] for r in s["runs"]
               if r["condition"] == "hog" and r["variant"] == "unpinned"
               for u in r["roles"] if u["role"] == "neighbour")
assert cores and 0 < cores[len(cores) // 2] <= 0.7, cores
PY
# the neighbours' solo rate, every pass: each variant's solo run of pass k in summary.json and
# solo.csv, run in that pass before its cells (the progress log's order), and every share of
# summary.json's cells is the median of its runs' rates each over the solo run of its own pass
$PY - "$work/r1" <<'PY' || fail "summary.json: the solo runs per pass"
import csv, json, os, re, statistics, sys
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
solo = {(x["variant"], x["condition"], x["repeat"]): x["neighbour_rate"] for x in s["solo"]}
want = {(v, "hog", k) for v in ("unpinned", "pinned") for k in (0, 1)}
assert set(solo) == want and all(x > 0 for x in solo.values()), solo
rows = {(r["variant"], r["condition"], int(r["repeat"])) for r in csv.DictReader(open(os.path.join(out, "solo.csv")))}
assert rows == want, rows
log = [l for l in open(out + ".err").read().splitlines() if "] " in l]
for v in ("unpinned", "pinned"):
    for k in (0, 1):
        tag = f"{v}-r{k}: "
        steps = [l.split("] ", 1)[1].split(" | ")[0] for l in log if "] " + tag in l]
        first_cell = next(i for i, x in enumerate(steps) if re.match(tag + "4k-", x))
        solo_at = steps.index(tag + "hog alone (solo rate)")
        assert solo_at < first_cell, steps
for c in s["summary"]["cells"]:
    if c["condition"] != "hog":
        continue
    shares = [r["neighbour_rate"] / solo[("unpinned", "hog", r["repeat"])] for r in s["runs"]
              if (r["variant"], r["condition"], r["workload"]) == (c["variant"], "hog", c["workload"])]
    assert len(shares) == 2 and abs(c["neighbour_kept"] - statistics.median(shares)) < 1e-6 * c["neighbour_kept"], (c, shares)
    assert c["neighbour_kept_ci95_low"] <= c["neighbour_kept"] <= c["neighbour_kept_ci95_high"], c
# each variant's changes of its profile, recorded (none in this study)
assert [v.get("set") for v in s["study"]["variants"]] == [[], []], s["study"]["variants"]
PY
[ ! -e "$work/r1/hw.img" ] || fail "the baseline's file was not removed"
[ -z "$(bench_ours)" ] || fail "processes left after the study: $(bench_ours)"
bench_nothing_left "after the study"

# --- Ctrl-C -------------------------------------------------------------------------
sed -e 's/repeats: 2/repeats: 20/' -e 's/warmup: 1/warmup: 0/' -e '/hardware_baseline/d' \
  "$work/study.yaml" >"$work/long.yaml"
"$PLACER" bench --prefix "$prefix" --out "$work/r2" "$work/long.yaml" >"$work/r2.out" 2>"$work/r2.err" &
bg=$!
# Wait until the second pass runs (the first one's 4 runs are done), then Ctrl-C.
i=0
until grep -q "] pinned-r0: 4k-randwrite alone" "$work/r2.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 1200 ] || fail "the long study never reached its second pass"
  sleep 0.1
done
sleep 1
[ -n "$(bench_ours)" ] || fail "nothing of the study runs before the Ctrl-C"
# Nothing bench starts inherits its results files (runs.csv, summary.json, ...).
for p in $(bench_ours); do
  [ "$p" != "$bg" ] || continue
  for fd in /proc/"$p"/fd/*; do
    case "$(readlink "$fd" 2>/dev/null)" in
      "$work/r2/"*.csv | "$work/r2/summary.json"*) fail "PID $p ($(cat /proc/"$p"/comm 2>/dev/null)) holds $(readlink "$fd") open" ;;
    esac
  done
done
t1=$(date +%s)
kill -INT "$bg"
wait "$bg"; rc=$?
bg=""
took=$(($(date +%s) - t1))
[ "$rc" = 130 ] || { cat "$work/r2.err" >&2; fail "after SIGINT: exit $rc, expected 130"; }
[ "$took" -le 20 ] || fail "SIGINT took $took s to stop"
grep -q "INTERRUPTED" "$work/r2.out" || fail "the report does not say interrupted"
$PY - "$work/r2/summary.json" <<'PY' || fail "summary.json after SIGINT"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is True
runs = [(r["variant"], r["repeat"]) for r in s["runs"]]
assert runs.count(("unpinned", 0)) == 4, runs  # the first pass, kept
assert all(v == "unpinned" or c == "alone" for v, c in
           ((r["variant"], r["condition"]) for r in s["runs"])), runs
PY
$PY "$SRC/ci/bench-check.py" "$work/r2" --allow-interrupted >/dev/null 2>&1 &&
  fail "bench-check accepted an interrupted study"
[ -z "$(bench_ours)" ] || fail "processes left after SIGINT: $(bench_ours)"
bench_nothing_left "after SIGINT"
say "SIGINT: exit 130 after $took s, the first pass kept, nothing left"

# --- dynamic repeats ----------------------------------------------------------------
# repeats {min: 2, max: 3} with a CI width two runs never reach (0.1 points): a third pass
# is added, the study stops at the cap and says why, and the progress count grows with it
sed -e 's/^repeats: 2$/repeats: { min: 2, max: 3, ci_width: 0.1% }/' -e 's/warmup: 1/warmup: 0/' \
  -e '/hardware_baseline/d' -e '/^neighbours:/,/name: hog/d' -e 's/^  patterns: .*/  patterns: [randread]/' \
  -e 's/^  runtime: 2$/  runtime: 1/' "$work/study.yaml" >"$work/dyn.yaml"
grep -q "ci_width: 0.1%" "$work/dyn.yaml" && ! grep -q "hog" "$work/dyn.yaml" || fail "dyn.yaml: $(cat "$work/dyn.yaml")"
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/r4" "$work/dyn.yaml" >"$work/r4.out" 2>"$work/r4.err" ||
  { rc=$?; cat "$work/r4.err" >&2; fail "the dynamic study exited $rc"; }
$PY - "$work/r4/summary.json" <<'PY' || fail "summary.json of the dynamic study"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["repeats_run"] == 3 and "the cap of 3 repeats" in s["stop_reason"], (s["repeats_run"], s["stop_reason"])
assert sorted((r["variant"], r["repeat"]) for r in s["runs"]) == sorted(
    (v, k) for v in ("unpinned", "pinned") for k in range(3)), s["runs"]
PY
grep -q "Repeats: stopped at 3: the cap of 3 repeats" "$work/r4.out" || fail "the report does not say it stopped at the cap"
grep -q "\[6/6\] pinned-r2: 4k-randread alone" "$work/r4.err" || fail "the third pass is not counted: $(grep 'pinned-r2' "$work/r4.err")"
bench_progress_whole "$work/r4.err" "the dynamic study"
bench_nothing_left "after the dynamic study"
say "dynamic repeats: a third pass added at the CI width asked, stopped at the cap, counted [6/6]"

# --- a bad study --------------------------------------------------------------------
printf 'variants:\n  - name: a\n    profile: unpinned\nworkloads:\n  patterns: [randwrte]\n' >"$work/bad.yaml"
"$PLACER" bench --out "$work/r3" "$work/bad.yaml" >/dev/null 2>"$work/r3.err"; rc=$?
[ "$rc" = 2 ] || fail "bad study: exit $rc, expected 2"
grep -q "bad.yaml:5:14: workloads.patterns: \[0\]: unknown pattern 'randwrte'" "$work/r3.err" ||
  fail "bad study: $(cat "$work/r3.err")"
[ ! -e "$work/r3" ] || fail "bad study: a results directory was made"
# a design that cannot conclude (3 repeats) is refused with the fix, before anything runs
sed -e 's/^repeats: 2$/repeats: 3/' "$work/study.yaml" >"$work/three.yaml"
line=$(grep -n '^repeats: 3$' "$work/three.yaml" | cut -d: -f1)
"$PLACER" bench --out "$work/r5" "$work/three.yaml" >/dev/null 2>"$work/r5.err"; rc=$?
[ "$rc" = 2 ] || fail "a 3-repeat study: exit $rc, expected 2"
grep -q "three.yaml:$line:10: repeats: 3 repeats: a paired p cannot go below 0.25 and an unpaired one below 0.10.*use at least 4 (6 for the paired test); or --allow-inconclusive" \
  "$work/r5.err" || fail "a 3-repeat study: $(cat "$work/r5.err")"
[ ! -e "$work/r5" ] || fail "a 3-repeat study: a results directory was made"
say "OK"
