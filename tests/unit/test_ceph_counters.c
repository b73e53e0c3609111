/* Ceph's perf counters (results/ceph-counters.h) on perf dumps captured from
 * the real Ceph 16.2 here (tests/fixtures/ceph-perf/README.md).  Every expected
 * number was read from the fixtures with python3's json module (the sums
 * rounded to ns, as placer keeps them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/ceph-counters.h"
#include "test_support.h"

static char *fixture(const char *name) {
  char rel[256];
  snprintf(rel, sizeof(rel), "fixtures/ceph-perf/%s", name);
  char *text = test_read_file(test_data_path(rel));
  if (text == NULL)
    fail_msg("cannot read %s", rel);
  return text;
}

static void parse_text(const char *daemon, const char *text, struct placer_ceph_counters *out) {
  struct placer_error *err = NULL;
  if (placer_ceph_counters_parse(daemon, text, strlen(text), out, &err) < 0)
    fail_msg("%s: %s", daemon, err->msg);
}

static void parse(const char *daemon, const char *file, struct placer_ceph_counters *out) {
  char *text = fixture(file);
  parse_text(daemon, text, out);
  free(text);
}

static const struct placer_ceph_counter *find(const struct placer_ceph_counter *c, size_t n, const char *name) {
  const struct placer_ceph_counter *k = placer_ceph_counter_find(c, n, name);
  if (k == NULL)
    fail_msg("no counter %s", name);
  return k;
}

static void delta(const char *daemon, const struct placer_ceph_counters *before,
                  const struct placer_ceph_counters *after, struct placer_ceph_delta *out) {
  struct placer_error *err = NULL;
  if (placer_ceph_delta(daemon, before, after, NULL, out, &err) < 0)
    fail_msg("delta %s: %s", daemon, err->msg);
}

static bool close_to(double x, double want) {
  return fabs(x - want) <= 1e-9 * fabs(want) + 1e-9;
}

static void test_osd_dump(void **state) {
  struct placer_ceph_counters c;
  parse("osd.0", "osd.0-after.json", &c);
  assert_string_equal(c.daemon, "osd.0");
  assert_int_equal(c.type, PLACER_CEPH_OSD);
  size_t n_kept;
  placer_ceph_counters_kept(PLACER_CEPH_OSD, &n_kept);
  assert_int_equal(c.n, n_kept); /* Ceph 16's dump has every one */
  assert_int_equal(c.n, 14);
  const struct placer_ceph_counter *w = find(c.counters, c.n, "osd.op_w_latency");
  assert_int_equal(w->kind, PLACER_CEPH_LATENCY);
  assert_int_equal(w->count, 2603);
  assert_int_equal(w->sum_ns, 16908102069ull);
  assert_true(close_to(placer_ceph_counter_avg_ns(w), 16908102069.0 / 2603));
  const struct placer_ceph_counter *op_w = find(c.counters, c.n, "osd.op_w");
  assert_int_equal(op_w->kind, PLACER_CEPH_COUNT);
  assert_int_equal(op_w->count, 2603);
  assert_int_equal(op_w->sum_ns, 0);
  assert_true(isnan(placer_ceph_counter_avg_ns(op_w)));
  assert_int_equal(find(c.counters, c.n, "bluestore.kv_sync_lat")->sum_ns, 9415766250ull);
  assert_int_equal(find(c.counters, c.n, "osd.op_r_out_bytes")->count, 27713536);
  assert_int_equal(find(c.counters, c.n, "osd.subop_w_latency")->count, 18650);
  for (size_t i = 1; i < c.n; i++) /* name order */
    assert_true(strcmp(c.counters[i - 1].name, c.counters[i].name) < 0);
  /* what placer does not keep is not there: the mds's counters, op_rw */
  assert_null(placer_ceph_counter_find(c.counters, c.n, "osd.op_rw"));
  assert_null(placer_ceph_counter_find(c.counters, c.n, "mds.request"));
  placer_ceph_counters_free(&c);
}

static void test_mds_dump(void **state) {
  struct placer_ceph_counters c;
  parse("mds.a", "mds.a-after.json", &c);
  assert_int_equal(c.type, PLACER_CEPH_MDS);
  assert_int_equal(c.n, 6 + 29); /* the fixed ones and Pacific's 29 request latencies */
  assert_int_equal(find(c.counters, c.n, "mds.request")->count, 2421);
  assert_int_equal(find(c.counters, c.n, "mds.reply_latency")->count, 2421);
  assert_int_equal(find(c.counters, c.n, "mds.reply_latency")->sum_ns, 435639940ull);
  assert_int_equal(find(c.counters, c.n, "mds_server.req_create_latency")->count, 2000);
  assert_int_equal(find(c.counters, c.n, "mds_server.req_getvxattr_latency")->kind, PLACER_CEPH_LATENCY);
  /* a count of mds_server that is not a request latency is not an operation */
  assert_null(placer_ceph_counter_find(c.counters, c.n, "mds_server.cap_revoke_eviction"));
  for (size_t i = 1; i < c.n; i++)
    assert_true(strcmp(c.counters[i - 1].name, c.counters[i].name) < 0);
  placer_ceph_counters_free(&c);
}

/* The two OSDs of the captured run: where the time went over both. */
static void test_osd_where(void **state) {
  struct placer_ceph_counters b0, a0, b1, a1;
  parse("osd.0", "osd.0-before.json", &b0);
  parse("osd.0", "osd.0-after.json", &a0);
  parse("osd.1", "osd.1-before.json", &b1);
  parse("osd.1", "osd.1-after.json", &a1);
  struct placer_ceph_delta d[2];
  delta("osd.0", &b0, &a0, &d[0]);
  delta("osd.1", &b1, &a1, &d[1]);
  assert_int_equal(d[0].state, PLACER_CEPH_DELTA_OK);
  assert_string_equal(d[0].why, "");
  assert_int_equal(d[1].n, 14);
  assert_int_equal(find(d[1].counters, d[1].n, "osd.op_w")->count, 18639);
  assert_int_equal(find(d[1].counters, d[1].n, "osd.op_w_latency")->sum_ns, 118219098409ull);
  assert_int_equal(find(d[0].counters, d[0].n, "osd.subop_w")->count, 18639);

  struct placer_ceph_osd_time t;
  placer_ceph_osd_time(d, 2, 10.0, &t);
  assert_int_equal(t.osds, 2);
  assert_int_equal(t.left_out, 0);
  assert_true(close_to(t.write_ops_per_s, 21242 / 10.0));
  assert_true(close_to(t.write_ns, (16908102069.0 + 118219098409.0) / 21242));
  assert_true(close_to(t.write_process_ns, (16038408897.0 + 108634262242.0) / 21242));
  assert_true(close_to(t.write_queue_ns, t.write_ns - t.write_process_ns));
  assert_true(t.write_queue_ns > 0 && t.write_queue_ns < t.write_ns);
  assert_true(close_to(t.replication_ns, (81212853787.0 + 11663028694.0) / (18639 + 2603)));
  assert_true(close_to(t.replica_writes_per_s, 21242 / 10.0));
  assert_true(close_to(t.read_ops_per_s, 55751 / 10.0));
  assert_true(close_to(t.read_ns, (2992894653.0 + 39426532474.0) / 55751));
  assert_true(close_to(t.bluestore_commit_ns, (80742059274.0 + 84336130828.0) / (21260 + 21260)));
  assert_true(close_to(t.kv_sync_ns, (9278516506.0 + 9426603720.0) / (3991 + 4266)));
  assert_true(close_to(t.kv_flush_ns, (2132607.0 + 3818207.0) / (3991 + 4266)));
  assert_true(close_to(t.kv_commit_ns, (9276383899.0 + 9422785513.0) / (3991 + 4266)));
  /* no duration: the rates are unknown, the latencies are not */
  placer_ceph_osd_time(d, 2, NAN, &t);
  assert_true(isnan(t.write_ops_per_s) && !isnan(t.write_ns));

  /* osd.1's socket did not answer after the run: it is left out, not zero */
  struct placer_ceph_delta m[2];
  delta("osd.0", &b0, &a0, &m[0]);
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_delta("osd.1", &b1, NULL, "no answer from its admin socket in 2 s", &m[1], &err), 0);
  assert_int_equal(m[1].state, PLACER_CEPH_DELTA_MISSING);
  assert_string_equal(m[1].why, "no answer from its admin socket in 2 s");
  assert_int_equal(m[1].n, 0);
  placer_ceph_osd_time(m, 2, 10.0, &t);
  assert_int_equal(t.osds, 1);
  assert_int_equal(t.left_out, 1);
  assert_true(close_to(t.write_ops_per_s, 260.3));
  assert_true(close_to(t.write_ns, 16908102069.0 / 2603));
  for (size_t i = 0; i < 2; i++) {
    placer_ceph_delta_free(&d[i]);
    placer_ceph_delta_free(&m[i]);
  }
  /* a daemon with no dump at all, and none before: said so */
  struct placer_ceph_delta none;
  delta("osd.3", NULL, NULL, &none);
  assert_string_equal(none.why, "no perf dump before or after the run");
  delta("osd.3", NULL, &a0, &none);
  assert_string_equal(none.why, "no perf dump before the run");
  /* no OSD counted: nothing is known, nothing is 0 */
  placer_ceph_osd_time(&none, 1, 10.0, &t);
  assert_int_equal(t.osds, 0);
  assert_int_equal(t.left_out, 1);
  assert_true(isnan(t.write_ops_per_s) && isnan(t.write_ns) && isnan(t.kv_sync_ns));
  placer_ceph_counters_free(&b0);
  placer_ceph_counters_free(&a0);
  placer_ceph_counters_free(&b1);
  placer_ceph_counters_free(&a1);
}

static void test_mds_where(void **state) {
  struct placer_ceph_counters b, a;
  parse("mds.a", "mds.a-before.json", &b);
  parse("mds.a", "mds.a-after.json", &a);
  struct placer_ceph_delta d;
  delta("mds.a", &b, &a, &d);
  struct placer_ceph_mds_time t;
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_mds_time(&d, 1, 20.0, &t, &err), 0);
  assert_int_equal(t.mdss, 1);
  assert_true(close_to(t.requests_per_s, 2417 / 20.0));
  assert_true(close_to(t.reply_latency_ns, 431523407.0 / 2417));
  /* the operations that ran, by name */
  static const struct {
    const char *op;
    uint64_t count, sum_ns;
  } want[] = { { "create", 2000, 347998212 }, { "getattr", 174, 11743506 }, { "mkdir", 20, 4408986 },
               { "readdir", 21, 19815815 },   { "rmdir", 2, 25322031 },     { "unlink", 200, 22234857 } };
  assert_int_equal(t.n_ops, 6);
  for (size_t i = 0; i < 6; i++) {
    assert_string_equal(t.ops[i].op, want[i].op);
    assert_int_equal(t.ops[i].count, want[i].count);
    assert_true(close_to(t.ops[i].per_s, want[i].count / 20.0));
    assert_true(close_to(t.ops[i].latency_ns, (double)want[i].sum_ns / want[i].count));
  }
  placer_ceph_mds_time_free(&t);
  /* OSDs only: the MDS's figures are unknown */
  struct placer_ceph_delta missing;
  delta("mds.a", &b, NULL, &missing);
  assert_int_equal(placer_ceph_mds_time(&missing, 1, 20.0, &t, &err), 0);
  assert_int_equal(t.mdss, 0);
  assert_int_equal(t.left_out, 1);
  assert_true(isnan(t.requests_per_s) && isnan(t.reply_latency_ns));
  assert_int_equal(t.n_ops, 0);
  placer_ceph_mds_time_free(&t);
  placer_ceph_delta_free(&d);
  placer_ceph_counters_free(&b);
  placer_ceph_counters_free(&a);
}

/* osd.1 killed and started again between two dumps, for real: its counters
 * start from zero, the delta is marked and nothing of it is averaged. */
static void test_restart(void **state) {
  struct placer_ceph_counters b, a;
  parse("osd.1", "osd.1-restart-before.json", &b);
  parse("osd.1", "osd.1-restart-after.json", &a);
  struct placer_ceph_delta d;
  delta("osd.1", &b, &a, &d);
  assert_int_equal(d.state, PLACER_CEPH_DELTA_RESTARTED);
  assert_string_equal(d.why, "bluestore.commit_lat's count went from 21624 to 7340");
  assert_int_equal(d.n, 0);
  assert_null(d.counters);
  struct placer_ceph_osd_time t;
  placer_ceph_osd_time(&d, 1, 10.0, &t);
  assert_int_equal(t.osds, 0);
  assert_int_equal(t.left_out, 1);
  assert_true(isnan(t.write_ns));
  /* a count that went backwards, and a sum alone */
  b.counters[0].count = a.counters[0].count; /* bluestore.commit_lat no longer backwards */
  b.counters[0].sum_ns = 0;
  struct placer_ceph_counter *op_w = (struct placer_ceph_counter *)find(b.counters, b.n, "osd.op_w");
  for (size_t i = 1; i < b.n; i++)
    if (&b.counters[i] != op_w)
      b.counters[i] = a.counters[i];
  delta("osd.1", &b, &a, &d);
  assert_string_equal(d.why, "osd.op_w went from 18678 to 6186");
  b.counters[0].count = 0;
  b.counters[0].sum_ns = a.counters[0].sum_ns + 1;
  delta("osd.1", &b, &a, &d);
  assert_string_equal(d.why, "bluestore.commit_lat's sum went from 26.331403540 s to 26.331403539 s");
  placer_ceph_counters_free(&b);
  placer_ceph_counters_free(&a);
}

/* A counter the dump lacks is missing: not in the delta, and every figure
 * that needs it unknown (not 0), the others as they were. */
static void test_counter_missing(void **state) {
  char *text = fixture("osd.0-after.json");
  char *key = strstr(text, "\"op_w_process_latency\"");
  assert_non_null(key);
  memcpy(key + 1, "OP", 2); /* "OP_w_process_latency": not a counter placer reads */
  struct placer_ceph_counters b, a;
  parse("osd.0", "osd.0-before.json", &b);
  parse_text("osd.0", text, &a);
  free(text);
  assert_int_equal(a.n, 13);
  assert_null(placer_ceph_counter_find(a.counters, a.n, "osd.op_w_process_latency"));
  struct placer_ceph_delta d;
  delta("osd.0", &b, &a, &d);
  assert_int_equal(d.state, PLACER_CEPH_DELTA_OK);
  assert_int_equal(d.n, 13);
  struct placer_ceph_osd_time t;
  placer_ceph_osd_time(&d, 1, 10.0, &t);
  assert_true(isnan(t.write_process_ns) && isnan(t.write_queue_ns));
  assert_true(close_to(t.write_ns, 16908102069.0 / 2603));
  assert_true(close_to(t.read_process_ns, 1668533579.0 / 6766));
  /* lacking on one OSD of two: the figure over both is unknown, not osd.1's alone */
  struct placer_ceph_counters b1, a1;
  parse("osd.1", "osd.1-before.json", &b1);
  parse("osd.1", "osd.1-after.json", &a1);
  struct placer_ceph_delta two[2] = { d };
  delta("osd.1", &b1, &a1, &two[1]);
  placer_ceph_osd_time(two, 2, 10.0, &t);
  assert_int_equal(t.osds, 2);
  assert_true(isnan(t.write_process_ns));
  assert_true(close_to(t.write_ops_per_s, 2124.2));
  placer_ceph_delta_free(&two[0]);
  placer_ceph_delta_free(&two[1]);
  placer_ceph_counters_free(&b);
  placer_ceph_counters_free(&a);
  placer_ceph_counters_free(&b1);
  placer_ceph_counters_free(&a1);
}

static void expect_bad(const char *daemon, const char *text, const char *want) {
  struct placer_ceph_counters c;
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_counters_parse(daemon, text, strlen(text), &c, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, want) == NULL)
    fail_msg("'%s' does not say '%s'", err->msg, want);
  assert_null(strchr(err->msg, '\n'));
  placer_error_free(err);
}

static void test_bad_dumps(void **state) {
  expect_bad("osd.0", "", "osd.0 perf dump: not a JSON object");
  expect_bad("osd.0", "[1]", "not a JSON object");
  expect_bad("osd.0", "{\"osd\": {\"op_w\": -1}}", "osd.0 perf dump: osd.op_w: expected a count");
  expect_bad("osd.0", "{\"osd\": {\"op_w\": 1.5}}", "osd.op_w: expected a count");
  expect_bad("osd.0", "{\"osd\": {\"op_w_latency\": {\"avgcount\": 3}}}", "osd.op_w_latency: expected a latency");
  expect_bad("osd.0", "{\"osd\": {\"op_w_latency\": {\"avgcount\": 3, \"sum\": -0.5}}}", "its sum is not");
  expect_bad("osd.0", "{\"osd\": {\"op_w\": 1, \"op_w\": 2}}", "not a JSON object");
  expect_bad("osd.0", "{\"mds\": {\"request\": 1}}", "osd.0 perf dump: no 'osd' section: not an OSD's perf dump");
  char *mds = fixture("mds.a-after.json");
  expect_bad("osd.0", mds, "no 'osd' section"); /* an MDS's socket named as an OSD's */
  free(mds);
  expect_bad("mds.a", "{\"mds\": {}, \"mds_server\": {\"req_create_latency\": 7}}",
             "mds_server.req_create_latency: expected");
  expect_bad("mon.a", "{}", "'mon.a' is not an OSD");
  expect_bad("osd.0", "{}", "no 'osd' section");
  expect_bad("osd.x", "{}", "'osd.x' is not an OSD");
  char *huge = malloc(PLACER_CEPH_DUMP_MAX_BYTES + 2);
  memset(huge, ' ', PLACER_CEPH_DUMP_MAX_BYTES + 1);
  huge[PLACER_CEPH_DUMP_MAX_BYTES + 1] = '\0';
  expect_bad("osd.0", huge, "not a perf dump");
  free(huge);
  /* sections and counters that are not there are missing, not an error */
  struct placer_ceph_counters c;
  parse_text("osd.7", "{\"osd\": {\"op_w\": 5}, \"bluestore\": []}", &c);
  assert_int_equal(c.n, 1);
  assert_int_equal(c.counters[0].count, 5);
  placer_ceph_counters_free(&c);
}

/* The run of the fixtures, its restart and a missing daemon, as a run's counters. */
static void fixture_run(struct placer_ceph_run_counters *run) {
  static const char *const names[][3] = { { "osd.0", "osd.0-before.json", "osd.0-after.json" },
                                          { "osd.1", "osd.1-restart-before.json", "osd.1-restart-after.json" },
                                          { "mds.a", "mds.a-before.json", "mds.a-after.json" } };
  run->n = 4;
  run->daemons = calloc(4, sizeof(*run->daemons));
  for (size_t i = 0; i < 3; i++) {
    struct placer_ceph_counters b, a;
    parse(names[i][0], names[i][1], &b);
    parse(names[i][0], names[i][2], &a);
    delta(names[i][0], &b, &a, &run->daemons[i]);
    placer_ceph_counters_free(&b);
    placer_ceph_counters_free(&a);
  }
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_delta("osd.2", NULL, NULL, "no answer from its admin socket in 2 s, \"timed out\"",
                                     &run->daemons[3], &err),
                   0);
}

static void assert_same_run(const struct placer_ceph_run_counters *x, const struct placer_ceph_run_counters *y) {
  assert_int_equal(x->n, y->n);
  for (size_t i = 0; i < x->n; i++) {
    const struct placer_ceph_delta *a = &x->daemons[i], *b = &y->daemons[i];
    assert_string_equal(a->daemon, b->daemon);
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->state, b->state);
    assert_string_equal(a->why, b->why);
    assert_int_equal(a->n, b->n);
    for (size_t k = 0; k < a->n; k++) {
      assert_string_equal(a->counters[k].name, b->counters[k].name);
      assert_int_equal(a->counters[k].kind, b->counters[k].kind);
      assert_int_equal(a->counters[k].count, b->counters[k].count);
      assert_int_equal(a->counters[k].sum_ns, b->counters[k].sum_ns);
    }
  }
}

static void test_json_round_trip(void **state) {
  struct placer_ceph_run_counters run, back;
  fixture_run(&run);
  json_t *j = placer_ceph_run_counters_to_json(&run, 20.0);
  assert_non_null(j);
  /* the derived part: where the time went, the missing and restarted OSDs left out */
  json_t *osd = json_object_get(json_object_get(j, "where"), "osd");
  assert_int_equal(json_integer_value(json_object_get(osd, "osds")), 1);
  assert_int_equal(json_integer_value(json_object_get(osd, "left_out")), 2);
  assert_true(close_to(json_real_value(json_object_get(osd, "write_ops_per_s")), 2603 / 20.0));
  json_t *mds = json_object_get(json_object_get(j, "where"), "mds");
  assert_true(close_to(json_real_value(json_object_get(mds, "requests_per_s")), 2417 / 20.0));
  assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(mds, "ops"), 0), "op")),
                      "create");
  json_t *d1 = json_array_get(json_object_get(j, "daemons"), 1);
  assert_string_equal(json_string_value(json_object_get(d1, "state")), "restarted");
  assert_int_equal(json_object_size(json_object_get(d1, "counters")), 0);
  /* through text, as summary.json holds it */
  char *text = json_dumps(j, JSON_COMPACT);
  json_t *again = json_loads(text, 0, NULL);
  struct placer_error *err = NULL;
  if (placer_ceph_run_counters_from_json(again, "runs[0].ceph_counters", &back, &err) < 0)
    fail_msg("%s", err->msg);
  assert_same_run(&run, &back);
  free(text);
  json_decref(again);
  json_decref(j);
  placer_ceph_run_counters_free(&back);
  placer_ceph_run_counters_free(&run);
}

static void expect_bad_json(const char *text, const char *want) {
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  if (j == NULL)
    fail_msg("test JSON: %s", jerr.text);
  struct placer_ceph_run_counters r;
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_run_counters_from_json(j, "runs[2].ceph_counters", &r, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strcmp(err->msg, want) != 0)
    fail_msg("'%s', expected '%s'", err->msg, want);
  placer_error_free(err);
  json_decref(j);
}

static void test_json_damaged(void **state) {
  expect_bad_json("[]", "runs[2].ceph_counters: expected an object");
  expect_bad_json("{\"daemons\": {}}", "runs[2].ceph_counters: daemons: expected an array of at most 1024 daemons");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"ok\", \"counters\": {\"osd.op_w\": "
                  "{\"count\": -3}}}]}",
                  "runs[2].ceph_counters.daemons[0].counters[\"osd.op_w\"].count: expected a whole number >= 0");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"ok\", \"counters\": {\"osd.op_w_latency\": "
                  "{\"count\": 3}}}]}",
                  "runs[2].ceph_counters.daemons[0].counters[\"osd.op_w_latency\"].sum_ns: missing (expected a whole "
                  "number >= 0)");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"ok\", \"counters\": {\"osd.op_w\": "
                  "{\"count\": 3, \"sum_ns\": 5}}}]}",
                  "runs[2].ceph_counters.daemons[0].counters[\"osd.op_w\"]: a count has no sum_ns");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"mds.a\", \"state\": \"ok\", \"counters\": {\"osd.op_w\": "
                  "{\"count\": 3}}}]}",
                  "runs[2].ceph_counters.daemons[0].counters[\"osd.op_w\"]: not a counter placer keeps for this "
                  "daemon");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"missing\", \"why\": \"gone\", \"counters\": "
                  "{\"osd.op_w\": {\"count\": 3}}}]}",
                  "runs[2].ceph_counters.daemons[0]: counters: a daemon that is missing has none");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"restarted\", \"counters\": {}}]}",
                  "runs[2].ceph_counters.daemons[0]: why: expected one line of at most 191 bytes saying why the "
                  "daemon is restarted");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"gone\", \"counters\": {}}]}",
                  "runs[2].ceph_counters.daemons[0]: state: expected ok, missing or restarted");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\", \"state\": \"ok\", \"counters\": {}}, "
                  "{\"daemon\": \"osd.0\", \"state\": \"ok\", \"counters\": {}}]}",
                  "runs[2].ceph_counters.daemons[1]: osd.0 is listed twice");
  expect_bad_json("{\"daemons\": [{\"daemon\": \"osd.0\\u001b\", \"state\": \"ok\", \"counters\": {}}]}",
                  "runs[2].ceph_counters.daemons[0]: daemon: expected an OSD (osd.N) or an MDS (mds.ID)");
}

static char *csv_of(const struct placer_ceph_run_counters *runs, const char *const *variants, size_t n) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  placer_ceph_csv_write_header(f);
  for (size_t i = 0; i < n; i++)
    placer_ceph_csv_write_run(f, variants[i], (unsigned)i, "alone", "4k-randwrite", &runs[i]);
  fclose(f);
  return text;
}

static void test_csv_round_trip(void **state) {
  struct placer_ceph_run_counters runs[2];
  fixture_run(&runs[0]);
  fixture_run(&runs[1]);
  runs[1].daemons[0].n = 0; /* an ok daemon without a counter keeps its row */
  static const char *const variants[] = { "pinned", "a,b \"quoted\"" };
  char *text = csv_of(runs, variants, 2);
  /* one row per counter of each ok daemon, one for each other daemon */
  size_t rows = 0;
  for (const char *p = text; *p; p++)
    rows += *p == '\n';
  assert_int_equal(rows, 1 + (14 + 1 + 35 + 1) + (1 + 1 + 35 + 1));
  assert_non_null(strstr(text, "\npinned,0,alone,4k-randwrite,osd.0,ok,osd.op_w,2603,,,\n"));
  assert_non_null(strstr(text, "\npinned,0,alone,4k-randwrite,osd.0,ok,osd.op_w_latency,2603,16908102069,"
                               "6495621.233,\n"));
  assert_non_null(strstr(text, "\npinned,0,alone,4k-randwrite,osd.1,restarted,,,,,bluestore.commit_lat's count "
                               "went from 21624 to 7340\n"));
  assert_non_null(strstr(text, ",osd.2,missing,,,,,\"no answer from its admin socket in 2 s, \"\"timed out\"\"\"\n"));
  assert_non_null(strstr(text, "\n\"a,b \"\"quoted\"\"\",1,alone,4k-randwrite,osd.0,ok,,,,,\n"));
  struct placer_ceph_csv_run *back = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  if (placer_ceph_csv_parse("ceph-counters.csv", text, strlen(text), &back, &n, &err) < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(n, 2);
  for (size_t i = 0; i < 2; i++) {
    assert_string_equal(back[i].variant, variants[i]);
    assert_int_equal(back[i].repeat, i);
    assert_string_equal(back[i].condition, "alone");
    assert_string_equal(back[i].workload, "4k-randwrite");
    assert_same_run(&runs[i], &back[i].counters);
  }
  placer_ceph_csv_runs_free(back, n);
  /* only the header: no run */
  assert_int_equal(
      placer_ceph_csv_parse("c.csv", PLACER_CEPH_CSV_HEADER "\n", strlen(PLACER_CEPH_CSV_HEADER) + 1, &back, &n, &err),
      0);
  assert_int_equal(n, 0);
  placer_ceph_csv_runs_free(back, n);
  free(text);
  runs[1].daemons[0].n = 14;
  placer_ceph_run_counters_free(&runs[0]);
  placer_ceph_run_counters_free(&runs[1]);
}

static void expect_bad_csv(const char *rows, const char *want) {
  char text[4096];
  snprintf(text, sizeof(text), "%s\n%s", PLACER_CEPH_CSV_HEADER, rows);
  struct placer_ceph_csv_run *runs = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_csv_parse("DIR/ceph-counters.csv", text, strlen(text), &runs, &n, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strcmp(err->msg, want) != 0)
    fail_msg("'%s', expected '%s'", err->msg, want);
  assert_null(runs);
  placer_error_free(err);
}

#define ROW "v,0,alone,4k-randwrite,"

static void test_csv_damaged(void **state) {
  struct placer_ceph_csv_run *runs = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_csv_parse("x.csv", "variant,repeat\n", 15, &runs, &n, &err), -1);
  assert_string_equal(err->msg, "x.csv:1: expected the header " PLACER_CEPH_CSV_HEADER);
  placer_error_clear(&err);
  expect_bad_csv(ROW "osd.0,ok,osd.op_w,26", "DIR/ceph-counters.csv:2: the row has no end of line (the file is cut "
                                             "short)");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w,26,,\n",
                 "DIR/ceph-counters.csv:2: 10 fields, expected 11 (" PLACER_CEPH_CSV_HEADER ")");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w,-26,,,\n",
                 "DIR/ceph-counters.csv:2: count: '-26' is not a whole number from 0 to 9223372036854775807");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w_latency,10,100,11,\n",
                 "DIR/ceph-counters.csv:2: avg_ns: '11' is not sum_ns / count (10)");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w_latency,0,0,0,\n",
                 "DIR/ceph-counters.csv:2: avg_ns: '0' is not sum_ns / count (nan)");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w,1,5,,\n", "DIR/ceph-counters.csv:2: osd.op_w is a count: sum_ns and avg_ns are "
                                                  "empty");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w,1,,,\n" ROW "osd.0,ok,osd.op_r,1,,,\n",
                 "DIR/ceph-counters.csv:3: counter osd.op_r of osd.0: not after osd.op_w (each once, in name order)");
  expect_bad_csv(ROW "osd.0,ok,osd.op_w,1,,,\n" ROW "osd.1,ok,osd.op_w,1,,,\n" ROW "osd.0,ok,osd.op_x,1,,,\n",
                 "DIR/ceph-counters.csv:4: osd.0 is listed twice in run v-r0 alone 4k-randwrite");
  expect_bad_csv(ROW "osd.0,missing,,,,,gone\n" ROW "osd.0,missing,,,,,gone\n",
                 "DIR/ceph-counters.csv:3: osd.0 is listed twice in run v-r0 alone 4k-randwrite");
  expect_bad_csv(ROW "osd.0,ok,,,,,\n"
                     "w,0,alone,4k-randwrite,osd.0,ok,,,,,\n" ROW "osd.1,ok,,,,,\n",
                 "DIR/ceph-counters.csv:4: run v-r0 alone 4k-randwrite: its rows are not together (another run's "
                 "rows come between)");
  expect_bad_csv(ROW "osd.0,gone,,,,,\n", "DIR/ceph-counters.csv:2: state: 'gone' is not ok, missing or restarted");
  expect_bad_csv(ROW "mon.a,ok,,,,,\n", "DIR/ceph-counters.csv:2: daemon: 'mon.a' is not an OSD (osd.N) or an MDS "
                                        "(mds.ID)");
  expect_bad_csv(ROW "mds.a,ok,osd.op_w,1,,,\n", "DIR/ceph-counters.csv:2: counter: 'osd.op_w' is not one placer "
                                                 "keeps for mds.a");
  expect_bad_csv(ROW "osd.0,restarted,osd.op_w,1,,,x\n", "DIR/ceph-counters.csv:2: osd.0 is restarted: its row has "
                                                         "no counter");
  expect_bad_csv(ROW "osd.0,missing,,,,,\n", "DIR/ceph-counters.csv:2: why: osd.0 is missing: one line of at most "
                                             "191 bytes says why");
  expect_bad_csv(ROW "osd.0,ok,,,,,why\n", "DIR/ceph-counters.csv:2: why: empty for a daemon that is ok");
  expect_bad_csv("v,x,alone,4k-randwrite,osd.0,ok,,,,,\n", "DIR/ceph-counters.csv:2: repeat: 'x' is not a whole "
                                                           "number from 0 to 1000000");
  expect_bad_csv(",0,alone,4k-randwrite,osd.0,ok,,,,,\n", "DIR/ceph-counters.csv:2: variant, condition and workload: "
                                                          "names of 1 to 255 bytes");
  expect_bad_csv("\"v\x1b\",0,alone,4k-randwrite,osd.0,ok,,,,,\n", "DIR/ceph-counters.csv:2: a control byte in a "
                                                                   "field");
  expect_bad_csv("\"v\xff\",0,alone,4k-randwrite,osd.0,ok,,,,,\n", "DIR/ceph-counters.csv:2: variant, condition and "
                                                                   "workload: names of 1 to 255 bytes");
  expect_bad_csv("\"v\"x,0,alone,4k-randwrite,osd.0,ok,,,,,\n", "DIR/ceph-counters.csv:2: text after a closing "
                                                                "quote");
  expect_bad_csv("v\"x,0,alone,4k-randwrite,osd.0,ok,,,,,\n", "DIR/ceph-counters.csv:2: a quote inside an unquoted "
                                                              "field");
  expect_bad_csv(ROW "osd.0,ok,,1,,,\n", "DIR/ceph-counters.csv:2: counter: empty, but the row has numbers");
}

/* ceph-counters.csv read from a file: a regular file only, bounded. */
static void test_csv_load(void **state) {
  char dir[] = "/tmp/test_ceph_counters.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof(path), "%s/ceph-counters.csv", dir);
  test_write_file(path, PLACER_CEPH_CSV_HEADER "\n" ROW "osd.0,ok,osd.op_w,1,,,\n");
  struct placer_ceph_csv_run *runs = NULL;
  size_t n = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_ceph_csv_load(path, &runs, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_int_equal(runs[0].counters.daemons[0].counters[0].count, 1);
  placer_ceph_csv_runs_free(runs, n);
  assert_int_equal(placer_ceph_csv_load(dir, &runs, &n, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "a directory, not a regular file"));
  placer_error_clear(&err);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_osd_dump),     cmocka_unit_test(test_mds_dump),
    cmocka_unit_test(test_osd_where),    cmocka_unit_test(test_mds_where),
    cmocka_unit_test(test_restart),      cmocka_unit_test(test_counter_missing),
    cmocka_unit_test(test_bad_dumps),    cmocka_unit_test(test_json_round_trip),
    cmocka_unit_test(test_json_damaged), cmocka_unit_test(test_csv_round_trip),
    cmocka_unit_test(test_csv_damaged),  cmocka_unit_test(test_csv_load),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
