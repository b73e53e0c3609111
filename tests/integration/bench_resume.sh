#!/bin/sh
# Faults during a study, for real (cluster none: fio on a local file, a
# stress-ng neighbour; no Ceph, so it stays short):
#   - SIGKILL of placer bench in the middle of its second pass: fio and the
#     neighbour are left running in its cgroups, summary.json holds the first
#     pass; `placer bench --resume DIR` kills what was left, keeps the runs
#     measured before (same numbers, same fio JSON) and runs only the missing
#     ones: the study is complete (ci/bench-check.py), nothing is left;
#   - the neighbour exiting in the middle of a run: the study stops with one
#     line naming it, summary.json records it (stopped_by) and keeps what was
#     measured, nothing is left; --resume completes it;
#   - fio hanging (SIGSTOP) in a run: past its runtime + workloads.grace it is
#     killed and the study stops (exit 4) naming the run as hung and its log,
#     keeps what was measured, leaves nothing; --resume completes it.
#   - --resume of a directory that is not a results directory: one line, exit 2.
# ctest: cost=180
set -u
T=bench_resume
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd fio stress-ng /usr/bin/python3

bench_setup /var/tmp # not tmpfs: O_DIRECT
bg=""

# fio's file in the results directory: placer's own, so --resume after a SIGKILL may write it;
# one pattern is enough: what is kept, killed and resumed does not depend on it
{ bench_study_ab "bench resume test" target.img randwrite 3; cat <<YAML; } >"$work/study.yaml"
neighbours:
  - { name: hog, kind: stress-ng, stressor: cpu, method: matrixprod }
repeats: 2
warmup: 0
YAML
# The neighbour and hang cases need one pass only (4 runs, not 8): the test stays short.
sed 's/^repeats: 2$/repeats: 1/' "$work/study.yaml" >"$work/study1.yaml"
grep -q "^repeats: 1$" "$work/study1.yaml" || fail "study1.yaml has no repeats: 1"

# The runs of summary.json: "variant repeat condition workload write_iops read_iops fio_json".
runs_of() {
  $PY - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    print(r["variant"], r["repeat"], r["condition"], r["workload"], r["write"]["iops"], r["read"]["iops"],
          r.get("fio_json"))
PY
}

# --- SIGKILL of placer, then --resume -----------------------------------------------
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/r" "$work/study.yaml" >"$work/r.out" 2>"$work/r.err" &
bg=$!
i=0
until grep -q "] pinned-r0: 4k-randwrite + hog" "$work/r.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 1200 ] || { cat "$work/r.err" >&2; fail "the study never reached its second pass"; }
  sleep 0.1
done
sleep 1
kill -KILL "$bg"
wait "$bg" 2>/dev/null
bg=""
[ -n "$(bench_ours)" ] || fail "nothing of the study left running after SIGKILL (the test proves nothing)"
runs_of "$work/r/summary.json" | sort >"$work/before"
[ "$(grep -c '^unpinned 0 ' "$work/before")" = 2 ] || fail "summary.json before the resume: $(cat "$work/before")"
say "SIGKILL in the second pass: $(wc -l <"$work/before") runs in summary.json, left running: $(bench_ours)"

"$PLACER" bench --prefix "$prefix" --resume "$work/r" >"$work/r2.out" 2>"$work/r2.err" ||
  { rc=$?; cat "$work/r2.err" >&2; fail "placer bench --resume exited $rc"; }
grep -q "killing .* processes left in cgroup '$prefix'" "$work/r2.err" || fail "--resume did not say it killed the leftovers: $(cat "$work/r2.err")"
grep -q "unpinned-r0" "$work/r2.err" && fail "--resume ran the first pass again"
bench_progress_whole "$work/r2.err" "--resume"
$PY "$SRC/ci/bench-check.py" "$work/r" --roles fio --placer "$PLACER" || fail "results incomplete after --resume"
runs_of "$work/r/summary.json" | sort >"$work/after"
[ "$(wc -l <"$work/after")" = 8 ] || fail "after --resume: $(wc -l <"$work/after") runs, not 8"
# what was measured before the kill is kept as it was
comm -23 "$work/before" "$work/after" >"$work/lost"
[ ! -s "$work/lost" ] || fail "runs measured before the kill changed or went: $(cat "$work/lost")"
$PY - "$work/r/summary.json" <<'PY' || fail "summary.json after --resume"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is False and s["stopped_by"] is None, (s["interrupted"], s["stopped_by"])
PY
[ -z "$(bench_ours)" ] || fail "processes left after --resume: $(bench_ours)"
bench_nothing_left "after --resume"
say "--resume: the leftovers killed, $(wc -l <"$work/before") runs kept, the study complete (8 runs), nothing left"

# --- the neighbour exits mid-run ------------------------------------------------------
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/n" "$work/study1.yaml" >"$work/n.out" 2>"$work/n.err" &
bg=$!
i=0
until grep -q "] unpinned-r0: 4k-randwrite + hog" "$work/n.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 1200 ] || { cat "$work/n.err" >&2; fail "the study never ran with its neighbour"; }
  sleep 0.1
done
# `placer exec` plans before it becomes stress-ng: under load that takes a while
hog=""
i=0
while [ -z "$hog" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "no stress-ng neighbour running"
  kill -0 "$bg" 2>/dev/null || fail "the study ended before the test found its stress-ng neighbour"
  sleep 0.1
  hog=$(for p in $(bench_ours); do case "$(cat /proc/"$p"/comm 2>/dev/null)" in stress-ng*) echo "$p" ;; esac; done)
done
kill -KILL $hog
wait "$bg"; rc=$?
bg=""
[ "$rc" != 0 ] || fail "the study went on as if the neighbour had not died"
tail -1 "$work/n.err" | grep -q "neighbour" || fail "the error does not name the neighbour: $(tail -2 "$work/n.err")"
$PY - "$work/n/summary.json" <<'PY' || fail "summary.json after the neighbour died"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is True and "neighbour" in (s["stopped_by"] or ""), s["stopped_by"]
assert any(r["condition"] == "alone" for r in s["runs"]), s["runs"]
PY
[ -z "$(bench_ours)" ] || fail "processes left after the neighbour died: $(bench_ours)"
bench_nothing_left "after the neighbour died"
say "neighbour killed: exit $rc, '$(tail -1 "$work/n.err" | cut -c1-100)', recorded, nothing left"
"$PLACER" bench --prefix "$prefix" --resume "$work/n" >"$work/n2.out" 2>"$work/n2.err" ||
  { rc=$?; cat "$work/n2.err" >&2; fail "--resume after the neighbour died exited $rc"; }
$PY "$SRC/ci/bench-check.py" "$work/n" --roles fio --placer "$PLACER" || fail "results incomplete after the second --resume"
bench_progress_whole "$work/n2.err" "--resume after the neighbour died"
bench_nothing_left "after the second --resume"
say "--resume completed it"

# --- fio hangs ---------------------------------------------------------------------------
# workloads.grace 8: a fio still running 8 s past its 6 s runtime is hung (the default, 120 s,
# would make this take minutes: the bound on $took below fails if the grace is not used; 2 s
# was too short for a fio beside a hog on a loaded 2-core machine: killed as hung, wrongly)
# runtime 6: time for the test to find the run's fio and stop it while it runs, on a loaded machine
sed -e 's/^  ramp: 0$/  ramp: 0\n  grace: 8/' -e 's/^  runtime: 3$/  runtime: 6/' "$work/study1.yaml" >"$work/hang.yaml"
grep -q "^  grace: 8$" "$work/hang.yaml" && grep -q "^  runtime: 6$" "$work/hang.yaml" || fail "hang.yaml: $(cat "$work/hang.yaml")"
"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/h" "$work/hang.yaml" >"$work/h.out" 2>"$work/h.err" &
bg=$!
i=0
until grep -q "] pinned-r0: 4k-randwrite alone" "$work/h.err" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 1200 ] || { cat "$work/h.err" >&2; fail "the study never reached pinned's first run"; }
  sleep 0.1
done
# that run's fio (its --output names it), parent and job processes: stopped, as a hung fio is
hung_json=$work/h/fio/pinned-r0-alone-4k-randwrite.json
fio=""
i=0
while [ -z "$fio" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "no fio of pinned-r0 4k-randwrite running"
  sleep 0.1
  for p in $(bench_ours); do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = fio ] || continue
    case "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" in *"--output=$hung_json"*) fio="$fio $p" ;; esac
  done
done
kill -STOP $fio
t1=$(date +%s)
# kill returns before the signal is taken: wait (a bounded while) for each to be stopped
for p in $fio; do
  i=0
  until grep -q '^State:.*stopped' "/proc/$p/status" 2>/dev/null; do
    [ -d "/proc/$p" ] || fail "fio $p ended before the test stopped it"
    i=$((i + 1)); [ $i -lt 50 ] || fail "fio $p is not stopped 5 s after SIGSTOP: $(grep '^State' "/proc/$p/status")"
    sleep 0.1
  done
done
runs_of "$work/h/summary.json" | sort >"$work/h.before"
wait "$bg"; rc=$?
bg=""
took=$(($(date +%s) - t1))
[ "$rc" = 4 ] || { cat "$work/h.err" >&2; fail "fio stopped: exit $rc, expected 4"; }
line=$(tail -1 "$work/h.err")
hung_log=$work/h/logs/fio-pinned-r0-alone-4k-randwrite.log
echo "$line" | grep -q "pinned-r0: fio 4k-randwrite did not finish in 14 s (hung?), killed; see $hung_log\$" ||
  fail "the error does not name the hung run and its log: $line"
[ -f "$hung_log" ] || fail "the log the error names is not there: $hung_log"
# SIGTERM does not reach a stopped process: killed with SIGKILL 10 s after the 14 s
[ "$took" -le 45 ] || fail "the hung fio was killed after $took s (runtime 6 + grace 8 + 10 s for SIGKILL)"
$PY - "$work/h/summary.json" <<'PY' || fail "summary.json after fio hung"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["interrupted"] is True and "hung" in (s["stopped_by"] or ""), s["stopped_by"]
runs = {(r["variant"], r["condition"], r["workload"]) for r in s["runs"]}
assert ("unpinned", "alone", "4k-randwrite") in runs and ("unpinned", "hog", "4k-randwrite") in runs and ("pinned", "alone", "4k-randwrite") not in runs, runs
PY
# what was measured before fio hung is in summary.json as it was
runs_of "$work/h/summary.json" | sort >"$work/h.stopped"
cmp -s "$work/h.before" "$work/h.stopped" || fail "summary.json changed its runs when fio hung: $(diff "$work/h.before" "$work/h.stopped")"
[ "$(wc -l <"$work/h.stopped")" = 2 ] || fail "after fio hung: $(wc -l <"$work/h.stopped") runs kept, not 2"
[ -z "$(bench_ours)" ] || fail "processes left after fio hung: $(bench_ours)"
bench_nothing_left "after fio hung"
say "fio stopped: killed as hung after $took s, exit 4, '$(echo "$line" | cut -c1-90)', 2 runs kept, nothing left"
"$PLACER" bench --prefix "$prefix" --resume "$work/h" >"$work/h2.out" 2>"$work/h2.err" ||
  { rc=$?; cat "$work/h2.err" >&2; fail "--resume after fio hung exited $rc"; }
grep -q "unpinned-r0" "$work/h2.err" && fail "--resume ran unpinned-r0 again"
bench_progress_whole "$work/h2.err" "--resume of the hung study"
$PY "$SRC/ci/bench-check.py" "$work/h" --roles fio --placer "$PLACER" || fail "results incomplete after --resume of the hung study"
runs_of "$work/h/summary.json" | sort >"$work/h.after"
comm -23 "$work/h.before" "$work/h.after" >"$work/h.lost"
[ ! -s "$work/h.lost" ] || fail "runs measured before fio hung changed or went: $(cat "$work/h.lost")"
[ -z "$(bench_ours)" ] || fail "processes left after --resume of the hung study: $(bench_ours)"
bench_nothing_left "after --resume of the hung study"
say "--resume completed the hung study (4 runs, the 2 before kept)"

# --- --resume of something else ---------------------------------------------------------
mkdir "$work/empty"
"$PLACER" bench --resume "$work/empty" >/dev/null 2>"$work/e.err"; rc=$?
[ "$rc" = 2 ] || fail "--resume of an empty directory: exit $rc, expected 2"
[ "$(wc -l <"$work/e.err")" = 1 ] && grep -q "not a results directory" "$work/e.err" || fail "--resume of an empty directory: $(cat "$work/e.err")"
say "OK"
