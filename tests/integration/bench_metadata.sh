#!/bin/sh
# The metadata workload and Ceph's counters in a real study (#38): the shipped
# studies/cephfs-metadata.yaml in its shortest form -- every variant as shipped (the MDS unpinned,
# on a CPU of its own, on the OSDs' CPU, at quota 0.1 and 0.25 cores), alone and next to the
# neighbour, one repeat (--repeats 1 --allow-inconclusive), 1 s solo windows (--runtime 1) and 200
# files a run (the copy's one change) -- on a local cluster with an MDS, CephFS mounted with
# ceph-fuse in fio's group:
#   - every run: fio created, stat'ed and deleted 200 files (100 a job), each operation's rate > 0
#     with a p99; the MDS's mds.request delta within 10% of fio's creates and deletes, and its
#     create and unlink counts exactly fio's (a stat of a file the client created is answered from
#     the capabilities it holds: docs/bench.md, "Workload kind metadata"); the OSDs' counters read;
#   - osd.1's admin socket moved away while mds-own's runs start and end: its counters missing in
#     both ("before the run: admin socket ...: No such file or directory"), the runs recorded, the
#     report says so; every other daemon of every run ok;
#   - ceph-counters.csv holds every OSD and the MDS for every run, and placer reads it back against
#     summary.json (placer report); bench-check.py: every cell measured, every process on the CPUs
#     of its plan; the report has the metadata table and where the time went;
#   - nothing is left: no daemon, no mount, no cluster directory, no cgroup.
# About 1.5 minutes on this 2-core VM (a cluster with an MDS, 5 placements, 10 runs).
# Skipped (77) without root, Ceph with ceph-mds and ceph-fuse, /dev/fuse, fio, stress-ng.
# ctest: cost=90
set -u
T=bench_metadata
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/bench.sh"
PY=/usr/bin/python3
need_root
need_cmd ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse fio stress-ng "$PY"
[ -e /dev/fuse ] || skip "no /dev/fuse for ceph-fuse"
need_fio_engine filecreate filestat filedelete
bench_setup

sed 's/^  files: [0-9]*/  files: 200/' "$SRC/studies/cephfs-metadata.yaml" >"$work/study.yaml"
grep -q '^  files: 200 ' "$work/study.yaml" || fail "the shipped study has no 'files:' to shorten"
out=$work/r
sock=$out/cluster/run/ceph-osd.1.asok

# osd.1's socket away from the switch to mds-own until the switch to mds-osd: mds-own's two runs
# read it missing before and after (the daemon keeps listening on the socket; its path comes back)
hide_socket() {
  _i=0
  until grep -q "mds-own-r0: switching the placement" "$work/err" 2>/dev/null; do
    _i=$((_i + 1))
    [ $_i -lt 3000 ] || { echo "never switched to mds-own" >"$work/hide.err"; return 1; }
    sleep 0.1
  done
  mv "$sock" "$sock.away" || { echo "mv $sock" >"$work/hide.err"; return 1; }
  until grep -q "mds-osd-r0: switching the placement" "$work/err" 2>/dev/null; do
    _i=$((_i + 1))
    [ $_i -lt 6000 ] || break
    sleep 0.1
  done
  mv "$sock.away" "$sock"
}
hide_socket &
hider=$!
t_defer 'kill $hider 2>/dev/null'

t0=$(date +%s)
"$PLACER" bench --repeats 1 --runtime 1 --allow-inconclusive --prefix "$prefix" --out "$out" "$work/study.yaml" \
  >"$work/out" 2>"$work/err" || { rc=$?; tail -20 "$work/err" >&2; fail "placer bench exited $rc"; }
wait $hider || fail "osd.1's socket: $(cat "$work/hide.err" 2>/dev/null)"
say "the study's shortest form in $(($(date +%s) - t0)) s"
bench_nothing_left "after the study"

"$PY" "$SRC/ci/bench-check.py" "$out" --roles osd,mon,mgr,mds,fio --placer "$PLACER" --study "$work/study.yaml" >"$work/check" 2>&1 ||
  { cat "$work/check" >&2; fail "bench-check.py"; }
"$PLACER" report "$out" >/dev/null 2>"$work/report.err" || fail "placer report: $(cat "$work/report.err")"

"$PY" - "$out" "$sock" <<'PY' || fail "the study's results"
import csv, json, os, sys
d, sock = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(d, "summary.json")))
assert s["workloads"] == [{"name": "metadata", "kind": "metadata", "files": 200, "directories": 2, "jobs": 2}], s["workloads"]
assert s["storage_role"] == "mds", s["storage_role"]
runs = s["runs"]
variants = ["unpinned", "mds-own", "mds-osd", "quota-0.1", "quota-0.25"]
assert sorted((r["variant"], r["condition"]) for r in runs) == sorted((v, c) for v in variants for c in ("alone", "neighbour")), \
    [(r["variant"], r["condition"]) for r in runs]
lines = []
for r in runs:
    where = "%s %s" % (r["variant"], r["condition"])
    for op in ("create", "stat", "delete"):
        o = r[op]
        assert o["total_ios"] == 200 and o["iops"] > 0 and o["clat_p99_ns"] > 0, (where, op, o)
    daemons = {x["daemon"]: x for x in r["ceph_counters"]["daemons"]}
    assert list(daemons) == ["osd.0", "osd.1", "mds.a"], (where, list(daemons))
    for name, x in daemons.items():
        if name == "osd.1" and r["variant"] == "mds-own":
            assert x["state"] == "missing" and x["counters"] == {}, (where, x)
            assert x["why"] == "before the run: admin socket %s: No such file or directory" % sock, (where, x["why"])
        else:
            assert x["state"] == "ok" and x["why"] is None, (where, name, x)
    mds = daemons["mds.a"]["counters"]
    served = r["create"]["total_ios"] + r["delete"]["total_ios"]
    requests = mds["mds.request"]["count"]
    assert abs(requests - served) <= 0.1 * served, (where, requests, served)
    assert mds["mds_server.req_create_latency"]["count"] == r["create"]["total_ios"], (where, mds["mds_server.req_create_latency"])
    assert mds["mds_server.req_unlink_latency"]["count"] == r["delete"]["total_ios"], (where, mds["mds_server.req_unlink_latency"])
    # the OSDs' counters are there; how many writes the MDS's journal made in a run of a second or
    # two is its flush timing's (0 to 10 here), so it is not a count to check
    for name in ("osd.0", "osd.1"):
        if daemons[name]["state"] == "ok":
            assert daemons[name]["counters"]["osd.op_w"]["count"] >= 0, (where, name)
    where_mds = r["ceph_counters"]["where"]["mds"]
    assert where_mds["mdss"] == 1 and where_mds["requests_per_s"] > 0 and where_mds["reply_latency_ns"] > 0, where_mds
    lines.append("%s: %d requests for %d creates and deletes" % (where, requests, served))
# the counters file: every OSD and the MDS in every run, as summary.json has them
rows = list(csv.DictReader(open(os.path.join(d, "ceph-counters.csv"))))
per_run = {}
for x in rows:
    per_run.setdefault((x["variant"], x["condition"]), set()).add((x["daemon"], x["state"]))
assert len(per_run) == 10, per_run.keys()
for (v, c), ds in per_run.items():
    want = {("osd.0", "ok"), ("osd.1", "missing" if v == "mds-own" else "ok"), ("mds.a", "ok")}
    assert ds == want, (v, c, ds)
rep = open(os.path.join(d, "report.txt")).read()
for needle in ("\nmetadata: 200 files, 2 directories, 2 jobs  create, stat, delete\n", "\nWhere the time went: ",
               "\nMDS  ", "  osd.1 missing in 1 of 1 runs of mds-own, alone, metadata: its counters are left out (before the run: "):
    assert needle in rep, needle
print("; ".join(lines[:3]))
PY
grep -q "ceph-counters.csv" "$work/out" || fail "the last line does not name ceph-counters.csv: $(tail -1 "$work/out")"
say "PASS"
