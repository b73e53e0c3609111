#!/bin/sh
# The CI gate (`placer compare`) on recorded results directories
# (tests/fixtures/bench-gate, written by test_bench_report's test_compare_gate):
# an A/A comparison passes (exit 0), a candidate whose pinned variant has half
# its rate (pinned to half the cores) fails with exit 5 naming exactly the
# pinned cells, `placer bench --compare` options are checked, and bad input is
# exit 2.  No root, no Ceph: seconds.  ci/bench-gate.sh adds a real short run.
set -eu
SRC=${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}
PLACER=${PLACER_BIN:?PLACER_BIN not set}
FX=$SRC/tests/fixtures/bench-gate
T=bench_gate me=bench_gate
. "$SRC/tests/integration/lib/common.sh"
t_begin
out=$T_WORK

rc=0; "$PLACER" compare "$FX/baseline" "$FX/aa" >"$out/aa" || rc=$?
[ $rc = 0 ] || fail "A/A: exit $rc, want 0: $(cat "$out/aa")"
grep -q "^No regression: 12 cells compared." "$out/aa" || fail "A/A summary: $(cat "$out/aa")"
echo "$me: A/A: exit 0, $(tail -1 "$out/aa")"

rc=0; "$PLACER" compare "$FX/baseline" "$FX/half" >"$out/half" || rc=$?
[ $rc = 5 ] || fail "half: exit $rc, want 5: $(cat "$out/half")"
[ "$(grep -c ' REGRESSION$' "$out/half")" = 6 ] || fail "half: want 6 regressed cells: $(cat "$out/half")"
grep ' REGRESSION$' "$out/half" | grep -v '^pinned / ' && fail "an unpinned cell is flagged"
grep -q '^pinned / alone / 4k-randwrite .* -50.0% .* REGRESSION$' "$out/half" || fail "the pinned 4K randwrite cell: $(cat "$out/half")"
echo "$me: half the cores: exit 5, $(tail -1 "$out/half" | cut -c1-60)..."

rc=0; "$PLACER" compare --threshold 60% "$FX/baseline" "$FX/half" >"$out/t60" || rc=$?
[ $rc = 0 ] || fail "--threshold 60%: exit $rc, want 0 (the drop is 50%)"
rc=0; "$PLACER" compare --alpha 0.005 "$FX/baseline" "$FX/half" >"$out/a" || rc=$?
[ $rc = 0 ] || fail "--alpha 0.005: exit $rc, want 0 (5 vs 5 cannot reach p < 0.005)"
echo "$me: --threshold 60% and --alpha 0.005 pass the same drop (exit 0)"

rc=0; "$PLACER" compare "$FX/baseline" "$out/nowhere" 2>"$out/err" || rc=$?
[ $rc = 2 ] || fail "a directory without summary.json: exit $rc, want 2"
grep -q "summary.json" "$out/err" || fail "the message does not name summary.json: $(cat "$out/err")"
rc=0; "$PLACER" compare --threshold x "$FX/baseline" "$FX/aa" 2>/dev/null || rc=$?
[ $rc = 2 ] || fail "--threshold x: exit $rc, want 2"
rc=0; "$PLACER" bench --compare "$FX/baseline" --threshold 2x --dry-run 2>/dev/null || rc=$?
[ $rc = 2 ] || fail "bench --threshold 2x: exit $rc, want 2"
echo "$me: bad input: exit 2"
echo "$me: ok"
