#!/bin/sh
# placer status checks a running MDS's mds_cache_memory_limit against the plan (half the
# role's memory), on a real Ceph cluster (libexec/ceph-cluster.sh: mon, mgr, 1 OSD, mds.a):
#   1. the planned value set in the cluster's config database (ceph config set mds.a ...):
#      status exit 0, its JSON has the value the daemon runs with, read over the admin socket
#      the ceph-mds process itself listens on (DIR/run/ceph-mds.a.asok), and a note says so;
#   2. another value for every MDS (ceph config set mds ..., the mds.a entry removed): exit 1,
#      one drift line saying running vs planned, the instance and the document marked;
#   3. the planned value again at runtime (ceph daemon mds.a config set): exit 0;
#   4. another at runtime: exit 1 with its line; nothing else drifts.
# The planned value is the plan's own (placer plan --json: mds.cache_memory_limit_bytes); mds.a is
# bound with --pid (another test's cluster may run an mds.a too).
# Needs root, cgroup v1, the Ceph packages (ci/install-deps.sh all); exit 77 without them.
# ctest: cost=40
set -eu
T=status_mds
. "${PLACER_SOURCE_DIR:?PLACER_SOURCE_DIR not set}/tests/integration/lib/apply.sh"
apply_require_v1
need_cmd ceph-mon ceph-mgr ceph-osd ceph-mds ceph "$PY"
apply_setup status_mds
CLUSTER=$WORK/ceph
cluster_down() { sh "$SRC/libexec/ceph-cluster.sh" down "$CLUSTER" >/dev/null 2>&1 || true; }
t_defer cluster_down

profile=$WORK/mds.yaml
cat >"$profile" <<'EOF'
name: status-mds
roles:
  - name: mds
    kind: ceph-mds
    cpu: { cores: 1 }
    memory: 2GiB
    match: { ceph_id: a }
EOF
"$PLACER" plan --json "$profile" >"$WORK/plan.json" || fail "plan: $(cat "$WORK/plan.json")"
want=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["instances"][0]["mds"]["cache_memory_limit_bytes"])' "$WORK/plan.json")
[ "$want" = $((1 << 30)) ] || fail "the plan's cache limit is $want, not half of 2 GiB"

sh "$SRC/libexec/ceph-cluster.sh" up "$CLUSTER" --osds 1 --mds || fail "libexec/ceph-cluster.sh up failed"
eval "$(sh "$SRC/libexec/ceph-cluster.sh" env "$CLUSTER")"
export CEPH_CONF
MDS=$(cat "$CLUSTER/run/mds.a.pid")

# running: what mds.a runs with now
running() { ceph daemon mds.a config get mds_cache_memory_limit | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["mds_cache_memory_limit"])'; }
# until_running VALUE: mds.a runs with VALUE (a config database change reaches it in a moment)
until_running() {
    i=0
    until [ "$(running 2>/dev/null)" = "$1" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "mds.a does not run with mds_cache_memory_limit $1: $(running 2>&1)"
        sleep 0.1
    done
}
# status_is RC: placer status (text and JSON) exits RC; the JSON in $WORK/status.json
status_is() {
    rc=0; "$PLACER" status >"$WORK/status.txt" 2>&1 || rc=$?
    [ $rc = "$1" ] || fail "status: exit $rc, want $1: $(cat "$WORK/status.txt")"
    rc=0; "$PLACER" status --json >"$WORK/status.json" 2>"$WORK/status.err" || rc=$?
    [ $rc = "$1" ] || fail "status --json: exit $rc, want $1: $(cat "$WORK/status.err")"
}
# check_json RUNNING OK: the document's mds.0 says planned $want, RUNNING from pid $MDS's own socket
check_json() {
    "$PY" - "$WORK/status.json" "$want" "$1" "$2" "$MDS" "$CLUSTER/run/ceph-mds.a.asok" <<'EOF' || fail "status --json (above)"
import json, sys
doc, want, running, ok, pid, sock = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "ok", int(sys.argv[5]), sys.argv[6]
inst = [i for i in doc["instances"] if i["name"] == "mds.0"][0]
check = inst["mds_cache_memory_limit"]
assert check["planned"] == want, check
assert [(d["pid"], d["running"], d["admin_socket"]) for d in check["daemons"]] == [(pid, running, sock)], check
assert inst["ok"] is ok and doc["drift"] is (not ok), (inst["ok"], doc["drift"], inst["drift"])
EOF
}

ceph config set mds.a mds_cache_memory_limit "$want"
until_running "$want"
"$PLACER" apply --pid mds.0="$MDS" "$profile" >"$WORK/apply.out" || fail "apply: $(cat "$WORK/apply.out")"
grep -Eq "^mds\.0 .* bound pid $MDS ceph-mds" "$WORK/apply.out" || fail "mds.0 not bound to pid $MDS: $(cat "$WORK/apply.out")"

# ---- 1. as planned
status_is 0
check_json "$want" ok
grep -qx "    note: mds_cache_memory_limit 1.0 GiB ($want) in the running ceph-mds (pid $MDS), as planned" \
    "$WORK/status.txt" || fail "no note of the check: $(cat "$WORK/status.txt")"

# ---- 2. another value for every MDS in the config database
ceph config rm mds.a mds_cache_memory_limit
ceph config set mds mds_cache_memory_limit $((3 << 30))
until_running $((3 << 30))
status_is 1
check_json $((3 << 30)) drift
line="    DRIFT mds_cache_memory_limit 3.0 GiB ($((3 << 30))) in the running ceph-mds (pid $MDS), planned 1.0 GiB ($want): half its memory limit (placer export --format ceph sets it)"
[ "$(grep '^    DRIFT' "$WORK/status.txt")" = "$line" ] || fail "status's drift is not the one line: $(cat "$WORK/status.txt")"
grep -q '^mds\.0 *DRIFT ' "$WORK/status.txt" || fail "mds.0 not marked: $(cat "$WORK/status.txt")"

# ---- 3. the planned value at runtime, 4. another one
ceph daemon mds.a config set mds_cache_memory_limit "$want" >/dev/null
until_running "$want"
status_is 0
check_json "$want" ok
ceph daemon mds.a config set mds_cache_memory_limit $((512 << 20)) >/dev/null
until_running $((512 << 20))
status_is 1
check_json $((512 << 20)) drift
line="    DRIFT mds_cache_memory_limit 512 MiB ($((512 << 20))) in the running ceph-mds (pid $MDS), planned 1.0 GiB ($want): half its memory limit (placer export --format ceph sets it)"
[ "$(grep '^    DRIFT' "$WORK/status.txt")" = "$line" ] || fail "status's drift is not the one line: $(cat "$WORK/status.txt")"

"$PLACER" reset >/dev/null || fail "reset"
sh "$SRC/libexec/ceph-cluster.sh" down "$CLUSTER" >/dev/null || fail "cluster down"
t_nothing_left "after the cluster went down"
say "OK: status read mds.a's mds_cache_memory_limit over its own admin socket: the plan's $want clean (config database and runtime), 3 GiB and 512 MiB drift (exit 1, one line)"
