#!/bin/sh
# placer bench trusts only what it made (issue #35), proved with real runs (cluster none, fio on
# files, 1 s runs) on decoy files of random data that the test checks byte for byte:
#   - fio options by allowlist: the eight ways round the old denylist (--unlink, the filedelete and
#     exec engines, --offset, --filesize, --mem=mmap:, --iomem=mmapshared:, --timeout) are
#     refused before anything runs (exit 2, one line, no results directory, the decoy as it was),
#     where they deleted or rewrote the decoy or ran a program; a read-only study of the decoy
#     with allowed options that change how fio does its I/O (psync, invalidate, fadvise, a rate)
#     runs and leaves it byte for byte;
#   - a target on the results directory's own files (summary.json, fio's own JSON, logs/, an
#     absolute path into --out) is refused up front (it ran the study, then deleted the file);
#   - --resume of a results directory with a link planted in it (runs.csv and fio's output of
#     the run left to do onto the decoy) or with a summary.json whose runtime is -1 (fio for 136
#     years) is refused before anything is written, the directory and the decoy as they were;
#   - a quota sweep step runs at its own value, not its variant's set: of the same key;
#   - with irqbalance running (a process of that name), a study with an IRQ variant is refused
#     before its first run (it ran the other variants, then exited 2).
# ctest: timeout=300
set -u
T=bench_trust
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
need_root
need_cmd fio sha256sum stress-ng
PY=/usr/bin/python3

bench_setup /var/tmp # not tmpfs: O_DIRECT
mkdir "$work/elsewhere"
{ echo "precious data"; head -c 8388608 /dev/urandom; } >"$work/elsewhere/decoy" || fail "no decoy"
decoy=$work/elsewhere/decoy
sums() { (cd "$work/elsewhere" && sha256sum decoy); }
sums >"$work/decoy.sha256"
decoy_intact() { sums | cmp -s - "$work/decoy.sha256" || fail "$1: the decoy changed"; }

# study NAME: a one-variant cluster-none study $work/NAME.yaml, its workloads and the rest from stdin
study() {
  {
    printf 'version: 1\ntitle: trust %s\ncluster: { type: none }\n' "$1"
    printf 'variants: [ { name: a, profile: unpinned } ]\nrepeats: 1\nwarmup: 0\n'
    cat
  } >"$work/$1.yaml"
}

# refused NAME PATTERN [ARGS]: a real run (not --dry-run) refused before anything runs
refused() {
  _name=$1 _pattern=$2
  shift 2
  "$PLACER" bench --quiet --prefix "$prefix" "$@" >"$work/$_name.out" 2>"$work/$_name.err"
  rc=$?
  [ "$rc" = 2 ] || { cat "$work/$_name.err" >&2; fail "$_name: exit $rc, expected 2"; }
  [ "$(wc -l <"$work/$_name.err")" = 1 ] && grep -q -- "$_pattern" "$work/$_name.err" ||
    fail "$_name: expected one line with '$_pattern', got: $(cat "$work/$_name.err")"
  [ ! -s "$work/$_name.out" ] || fail "$_name: stdout on error: $(head -3 "$work/$_name.out")"
  decoy_intact "$_name"
  [ -n "${keep_running:-}" ] || bench_nothing_left "$_name"
}

# A read-only study of the decoy (no write: true needed), fio told more through fio_options.
read_only() {
  printf 'workloads:\n  path: %s\n  size: 4MiB\n  patterns: [randread]\n  prefill: false\n  iodepth: 4\n' "$decoy"
  printf '  runtime: 1\n  ramp: 0\n  fio_options: ["%s"%s]\n' "$1" "${2:+, \"$2\"}"
}

# --- fio options: the eight bypasses of #35, refused before anything runs
n=0
for opt in --unlink=1 --ioengine=filedelete --offset=4k --filesize=16m "--mem=mmap:$decoy" \
  "--iomem=mmapshared:$decoy" "--ioengine=exec|--program=/bin/touch $work/elsewhere/ran" --timeout=99999; do
  n=$((n + 1))
  read_only "${opt%%|*}" "$(case "$opt" in *'|'*) echo "${opt#*|}" ;; esac)" | study "bypass$n"
  case "$opt" in
    --timeout=*) want="placer sets it (fio's alias of runtime" ;;
    --ioengine=*) want="not an engine a study may use" ;;
    *) want="not one of the fio options a study may pass" ;;
  esac
  refused "bypass$n" "workloads.fio_options: \[0\]: '${opt%%|*}': $want" --out "$work/r-bypass$n" "$work/bypass$n.yaml"
  [ ! -e "$work/r-bypass$n" ] || fail "bypass$n: a results directory was made"
  [ ! -e "$work/elsewhere/ran" ] || fail "bypass$n: fio's exec engine ran a program"
done
say "fio options: the 8 ways round the old denylist refused before anything ran, the decoy byte for byte"

# --- allowed options that change fio's I/O on the decoy: it runs, the decoy stays as it was
{
  read_only --ioengine=psync --invalidate=1 | sed 's/"]$/", "--fadvise_hint=random", "--rate_iops=500", "--randrepeat=0"]/'
} | study allowed
"$PLACER" bench --quiet --prefix "$prefix" --out "$work/r-allowed" "$work/allowed.yaml" \
  >"$work/allowed.out" 2>"$work/allowed.err" || { rc=$?; cat "$work/allowed.err" >&2; fail "allowed: exit $rc"; }
$PY - "$work/r-allowed/summary.json" <<'PY' || fail "allowed: summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
r = s["runs"]
assert s["interrupted"] is False and len(r) == 1 and r[0]["read"]["iops"] > 0, r
PY
$PY - "$work"/r-allowed/fio/a-r0-alone-4k-randread.json <<'PY' || fail "allowed: fio did not run with the options"
import json, sys
o = json.load(open(sys.argv[1]))["jobs"][0]["job options"]
assert o["ioengine"] == "psync" and o["invalidate"] == "1" and o["rate_iops"] == "500", o
PY
decoy_intact allowed
bench_nothing_left allowed
say "allowed: a read-only study of the decoy with psync, invalidate, fadvise, a rate ran; the decoy byte for byte"

# --- the results directory's own files are never a study's target
W='  size: 4MiB\n  patterns: [randwrite]\n  iodepth: 4\n  runtime: 1\n  ramp: 0\n'
for target in summary.json fio/a-r0-alone-4k-randwrite.json logs; do
  name=own-$(echo "$target" | tr -c 'a-z0-9\n' -)
  printf "workloads:\n  path: %s\n$W" "$target" | study "$name"
  refused "$name" "workloads.path: '$target' is placer's own" --out "$work/r-$name" "$work/$name.yaml"
  [ ! -e "$work/r-$name" ] || fail "$name: a results directory was made"
done
mkdir "$work/r-abs"
printf "workloads:\n  path: %s/r-abs/runs.csv\n$W" "$work" | study own-abs
refused own-abs "workloads.path: '$work/r-abs/runs.csv' is placer's own runs.csv" --out "$work/r-abs" "$work/own-abs.yaml"
[ -z "$(ls -A "$work/r-abs")" ] || fail "own-abs: the empty --out got $(ls -A "$work/r-abs")"
say "own files: summary.json, fio's JSON, logs/ and an absolute path into --out refused before anything ran"

# --- --resume: a results directory is data.  A finished two-repeat study, its second run
# dropped from summary.json: a directory --resume would complete.
printf "workloads:\n  path: t.img\n$W" | sed 's/repeats: 1/repeats: 2/' | study resumable
sed -i 's/^repeats: 1$/repeats: 2/' "$work/resumable.yaml"
"$PLACER" bench --quiet --prefix "$prefix" --out "$work/r" "$work/resumable.yaml" \
  >"$work/resumable.out" 2>"$work/resumable.err" || { rc=$?; cat "$work/resumable.err" >&2; fail "resumable: exit $rc"; }
$PY - "$work/r/summary.json" <<'PY' || fail "resumable: summary.json"
import json, sys
p = sys.argv[1]
s = json.load(open(p))
assert len(s["runs"]) == 2, s["runs"]
s["runs"] = s["runs"][:1]
s["interrupted"] = True
json.dump(s, open(p, "w"))
PY
tree() { (cd "$work/r" && find . -printf '%p %y %l\n' | sort && find . -type f -exec sha256sum {} + | sort); }
tree >"$work/r.before"
# resumed R: the directory, the decoy and the machine as they were
resume_refused() {
  refused "$1" "$2" --resume "$work/r"
  tree | cmp -s - "$work/r.before" || fail "$1: the results directory changed: $(tree | diff "$work/r.before" - | head -5)"
}
ln -s "$decoy" "$work/r/runs.csv.planted" && mv "$work/r/runs.csv" "$work/r.runs.csv" &&
  mv "$work/r/runs.csv.planted" "$work/r/runs.csv" || fail "plant runs.csv"
tree >"$work/r.before"
resume_refused link-runs-csv "results directory '.*/r': runs.csv is a symbolic link"
rm "$work/r/runs.csv" && mv "$work/r.runs.csv" "$work/r/runs.csv" || fail "restore runs.csv"
json=$work/r/fio/a-r1-alone-4k-randwrite.json # the output of the run left to do
mv "$json" "$work/r1.json" && ln -s "$decoy" "$json" || fail "plant fio's output"
tree >"$work/r.before"
resume_refused link-fio-json "fio/a-r1-alone-4k-randwrite.json is a symbolic link"
rm "$json" && mv "$work/r1.json" "$json" || fail "restore fio's output"
$PY - "$work/r/summary.json" <<'PY' || fail "runtime -1"
import json, sys
s = json.load(open(sys.argv[1]))
s["study"]["runtime_s"] = -1
json.dump(s, open(sys.argv[1], "w"))
PY
tree >"$work/r.before"
resume_refused runtime-negative "summary.json: study.runtime_s: -1 is less than 1"
say "--resume: links planted in runs.csv and fio's output, and runtime_s -1, refused; nothing written"

# --- a quota step runs at its own value: its variant sets the same key to 0.5 cores
cat >"$work/sweep.yaml" <<EOF
version: 1
title: trust sweep
cluster: { type: none }
variants: [ { name: base, profile: unpinned, set: [fio.cpu.quota=0.5] } ]
workloads: { path: t.img, size: 4MiB, patterns: [randwrite], iodepth: 1, runtime: 1, ramp: 0, prefill: false,
             fio_options: [--ioengine=null] }
neighbours: [ { name: hog, kind: stress-ng, stressor: cpu, intensity: 1 } ]
sweep: { parameter: quota, values: [1] }
repeats: 1
warmup: 0
EOF
"$PLACER" bench --quiet --prefix "$prefix" --allow-inconclusive --out "$work/r-sweep" "$work/sweep.yaml" \
  >"$work/sweep.out" 2>"$work/sweep.err" || { rc=$?; cat "$work/sweep.err" >&2; fail "sweep: exit $rc"; }
grep -q "^  fio: 1 cores$" "$work/r-sweep/plans/quota-1.txt" ||
  fail "sweep: quota-1 does not run at 1 core: $(grep -A2 'cpu quota' "$work/r-sweep/plans/quota-1.txt")"
grep -q "^  fio: 0.5 cores$" "$work/r-sweep/plans/base.txt" || fail "sweep: base is not at 0.5 cores"
bench_nothing_left sweep
say "sweep: quota-1 planned and run at 1 core, its variant at 0.5"

# --- irqbalance running: a study with an IRQ variant refused before its first run
if "$PLACER" plan --set irqs.vda=1 "$SRC/profiles/unpinned.yaml" >/dev/null 2>&1; then
  cp /bin/sleep "$work/irqbalance" && "$work/irqbalance" 300 &
  irqb=$!
  t_defer "kill $irqb 2>/dev/null"
  cat >"$work/irq.yaml" <<EOF
version: 1
cluster: { type: none }
variants: [ { name: a, profile: unpinned }, { name: b, profile: unpinned, set: [irqs.vda=1] } ]
workloads: { path: t.img, size: 4MiB, patterns: [randwrite], iodepth: 1, runtime: 1, ramp: 0, prefill: false }
repeats: 6
warmup: 0
EOF
  keep_running=irqbalance # the fake irqbalance is the test's: it goes before the check of what is left
  refused irqbalance "variant 'b' steers IRQs (irqs:) and irqbalance is running (pid [0-9]*): it would move them" \
    --out "$work/r-irq" "$work/irq.yaml"
  keep_running=
  [ ! -e "$work/r-irq" ] || fail "irqbalance: a results directory was made (a variant ran)"
  kill "$irqb"
  wait "$irqb" 2>/dev/null
  bench_nothing_left irqbalance
  say "irqbalance: a study with an IRQ variant refused before its first run"
else
  say "irqbalance: skipped (no vda IRQ to steer here)"
fi
bench_nothing_left end
say "OK"
