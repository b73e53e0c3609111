#!/bin/sh
# The shipped response-curve study (studies/curves.yaml) in its shortest form on a real local Ceph
# cluster: the same keys (unpinned, pinned, a quota step; 4K random writes at load steps, alone and
# next to the half-busy neighbour; p99 <= 50 ms at 400 IOPS, the neighbour keeping 80%), with 2 load steps
# (iodepth 1 and 16), one quota step, one repeat of 1 s runs.  It checks what happened, not only
# the exit code:
#   - fio ran each step at its iodepth (fio's own JSON says so) and every cell has its run;
#   - the CPU summary.json says each variant gives storage is what the OSDs had: pinned's on one
#     CPU of their own (placement.csv), quota-1's under one core of CPU time (roles.csv);
#   - the curves in summary.json are the medians of the runs, the report and report.html give
#     every variant's curve, its SLO point (or by how much it misses) and the balance point from the
#     curves, the curve plots are drawn, and the text report and the page agree;
#   - the same study with a max_time shorter than it takes is refused before anything runs (one
#     FILE:LINE:COL line, exit 2, no results directory);
#   - quota-1 takes over unpinned's solo rate (it places the neighbour alike), and neither the
#     progress line's first total nor --dry-run counts that run: the total stays what ran;
#   - nothing of the study is left.
# About a minute.
# ctest: cost=70
set -u
T=bench_curves
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd ceph-mon ceph-mgr ceph-osd fio stress-ng gnuplot /usr/bin/python3
need_fio_engine rbd
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
bench_setup

# the shipped study, shortened: its keys as they are, fewer steps, one quota step, one repeat
sed -e 's/iodepth: \[1, 4, 16, 64\]/iodepth: [1, 16]/' -e 's/values: \[0.5, 1\]/values: [1]/' \
  -e 's/^repeats: 4/repeats: 1/' -e 's/^  runtime: 2 /  runtime: 1 /' "$SRC/studies/curves.yaml" >"$work/curves.yaml"
grep -q 'iodepth: \[1, 16\]' "$work/curves.yaml" && grep -q '^repeats: 1' "$work/curves.yaml" &&
  grep -q 'values: \[1\]' "$work/curves.yaml" && grep -q 'runtime: 1 ' "$work/curves.yaml" ||
  fail "studies/curves.yaml no longer has the keys this test shortens"

# max_time shorter than the study: refused before anything runs
sed 's/^max_time: 12min/max_time: 20s/' "$work/curves.yaml" >"$work/short.yaml"
line=$(grep -n '^max_time:' "$work/short.yaml" | cut -d: -f1)
"$PLACER" bench --quiet --allow-inconclusive --prefix "$prefix" --out "$work/short" "$work/short.yaml" \
  >"$work/short.out" 2>"$work/short.err"
rc=$?
[ "$rc" = 2 ] || fail "max_time 20s: exit $rc, expected 2: $(cat "$work/short.err")"
[ "$(wc -l <"$work/short.err")" = 1 ] || fail "max_time 20s: not one line: $(cat "$work/short.err")"
grep -q "^placer: $work/short.yaml:$line:11: max_time: 20s is less than the study takes: [0-9]* runs of 1+1 s" \
  "$work/short.err" || fail "max_time 20s: $(cat "$work/short.err")"
[ ! -e "$work/short" ] || fail "max_time 20s: a results directory was made"

"$PLACER" bench --allow-inconclusive --prefix "$prefix" --out "$work/r" "$work/curves.yaml" \
  >"$work/r.out" 2>"$work/r.err" || { rc=$?; cat "$work/r.err" >&2; fail "the study exited $rc"; }
bench_nothing_left "curves"
# the progress line counts from the start what will run: quota-1 places the neighbour as unpinned
# does and takes over its solo rate, a run neither the first line's total nor the dry run counts
bench_progress_whole "$work/r.err" "the curve study"
first=$(grep -o '\[[0-9]*/[0-9]*\]' "$work/r.err" | head -1)
last=$(grep -o '\[[0-9]*/[0-9]*\]' "$work/r.err" | tail -1)
[ "${first#*/}" = "${last#*/}" ] || fail "the progress total changed from $first to $last"
grep -q "quota-1-r0: the neighbours are placed as in unpinned: its solo rate" "$work/r.err" ||
  fail "quota-1 did not take over unpinned's solo rate: $(grep solo "$work/r.err")"
"$PLACER" bench --dry-run --allow-inconclusive --prefix "$prefix" "$work/curves.yaml" >"$work/dry.out" 2>&1 || fail "dry run: $(cat "$work/dry.out")"
grep -q "^pass quota-1 repeat 0: (the solo rates of unpinned) " "$work/dry.out" || fail "dry run: $(cat "$work/dry.out")"
total=${last#*/}
grep -q "^${total%]} runs of " "$work/dry.out" ||
  fail "dry run: not the ${total%]} runs the study made: $(grep 'runs of' "$work/dry.out")"

$PY - "$work/r" <<'PY' || fail "curves"
import json, os, re, statistics, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
steps = {w["name"]: w for w in s["workloads"]}
assert list(steps) == ["4k-randwrite@iodepth1", "4k-randwrite@iodepth16"], list(steps)
for name, w in steps.items():
    assert w["curve"] == "4k-randwrite" and w["load"]["name"] == "iodepth", w
assert s["variants"] == ["unpinned", "pinned", "quota-1"], s["variants"]
assert s["slo"]["p99_ns"] == 50e6 and s["slo"]["at"] == "iops" and s["slo"]["at_rate"] == 400 and s["slo"]["keep"] == 0.8, s["slo"]
assert s["storage_cpus"] == [None, 1, 1], s["storage_cpus"]
# every cell ran, fio at its step's iodepth (its own record of what it was told)
assert len(s["runs"]) == 3 * 2 * 2, len(s["runs"])
for r in s["runs"]:
    fio = json.load(open(os.path.join(d, r["fio_json"])))
    told = fio["jobs"][0]["job options"]["iodepth"]
    assert told == str(int(steps[r["workload"]]["load"]["value"])), (r["workload"], told)
# what storage was given is what it had: pinned's OSDs on one CPU, quota-1's under one core
for row in open(os.path.join(d, "placement.csv")).read().splitlines()[1:]:
    variant, repeat, inst, role, proc, pid, group, cpus, mems = row.split(",")
    if variant == "pinned" and role == "osd":
        assert re.fullmatch(r"\d+", cpus), row
osd = {}
for r in s["runs"]:
    osd.setdefault(r["variant"], []).append(
        sum(u["cpu_ns"] for u in r["roles"] if u["role"] == "osd") / 1e9 / r["duration_s"])
assert max(osd["quota-1"]) <= 1.1, osd["quota-1"]
# the curves are the runs' medians
curves = {(c["variant"], c["condition"]): c for c in s["summary"]["curves"]}
assert len(curves) == 3 * 2, list(curves)
for (v, cond), c in curves.items():
    assert c["curve"] == "4k-randwrite" and c["load"] == "iodepth", c
    for st in c["steps"]:
        runs = [r for r in s["runs"] if r["variant"] == v and r["condition"] == cond and r["workload"] == st["workload"]]
        want = statistics.median(r["write"]["iops"] for r in runs)
        assert abs(st["throughput"]["median"] - want) < 1e-6 * want, (v, cond, st, want)
        p99 = statistics.median(r["write"]["clat_p99_ns"] for r in runs)
        assert abs(st["p99_ns"]["median"] - p99) < 1e-6 * p99, (v, cond, st, p99)
    assert c["slo_point"]["status"] in ("met", "always_met", "never_met"), c["slo_point"]
    if cond == "neighbour":
        assert all(st["neighbour_kept"]["median"] > 0 for st in c["steps"]), c["steps"]
bal = s["summary"]["curve_balance"]
assert bal["computed"] and bal["curve"] == "4k-randwrite" and bal["condition"] == "neighbour", bal
assert len(bal["verdicts"]) == 3 and bal["summary"], bal
# the report: every variant's curve in each condition, its SLO point or its miss, the balance point
txt = open(os.path.join(d, "report.txt")).read()
assert txt.count("4k-randwrite alone (IOPS against completion latency as iodepth rises)") == 1, txt
assert txt.count("4k-randwrite next to neighbour (IOPS against completion latency as iodepth rises)") == 1, txt
assert txt.count("    SLO point: ") == 3 * 2, txt
assert "Balance point from the curves (4k-randwrite, neighbour): " + bal["summary"] + "." in txt, txt
for (v, cond), c in curves.items():
    assert "SLO point: " + c["slo_point"]["text"] in txt, (v, cond)
# the page: its curve tables' cells are the text's, its plots drawn
html = open(os.path.join(d, "report.html")).read()
assert html.count('<table class="curve"') == 2, "curve tables"
for t in re.findall(r'<table class="curve".*?</table>', html, re.S):
    for row in re.findall(r"<tr>(.*?)</tr>", t, re.S)[1:]:
        cells = [x.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
                 for x in re.findall(r"<td>(.*?)</td>", row)]
        assert any(all(c in line for c in cells if c) for line in txt.splitlines()), cells
m = re.search(r'<p id="curve-balance">(.*?)</p>', html, re.S)
assert m and m.group(1).replace("&lt;", "<").replace("&gt;", ">") in txt, "balance sentence"
for plot in ("curve-0-0", "curve-0-1", "split"):
    svg = open(os.path.join(d, "report", plot + ".svg")).read()
    assert "<path" in svg and 'report/%s.svg' % plot in html, plot
print("curves: %d runs; balance: %s" % (len(s["runs"]), bal["summary"]))
PY
say "OK"
