/* Ceph's perf counters: a daemon's perf dump parsed into the counters placer
 * keeps, the delta of two dumps, and where the time went; see ceph-counters.h
 * and docs/bench.md, "Ceph's counters". */
#include "results/ceph-counters.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/jsoncost.h"

const char *const placer_ceph_delta_state_names[3] = { "ok", "missing", "restarted" };

/* What a perf dump of Ceph 16 may cost jansson: a real one is ~30 KiB of
 * text, a few hundred KiB parsed. */
#define DUMP_MAX_COST ((uint64_t)32 << 20)
#define DUMP_MAX_STRING 4096
/* Seconds whose nanoseconds still fit summary.json's integers (int64_t: 291 years). */
#define SUM_MAX_S 9.2e9

/* In name order (strcmp): placer_ceph_counter_find() and the delta's merge
 * rely on it. */
static const struct placer_ceph_counter_spec osd_kept[] = {
  { "bluestore.commit_lat", PLACER_CEPH_LATENCY },
  { "bluestore.kv_commit_lat", PLACER_CEPH_LATENCY },
  { "bluestore.kv_flush_lat", PLACER_CEPH_LATENCY },
  { "bluestore.kv_sync_lat", PLACER_CEPH_LATENCY },
  { "osd.op_r", PLACER_CEPH_COUNT },
  { "osd.op_r_latency", PLACER_CEPH_LATENCY },
  { "osd.op_r_out_bytes", PLACER_CEPH_COUNT },
  { "osd.op_r_process_latency", PLACER_CEPH_LATENCY },
  { "osd.op_w", PLACER_CEPH_COUNT },
  { "osd.op_w_in_bytes", PLACER_CEPH_COUNT },
  { "osd.op_w_latency", PLACER_CEPH_LATENCY },
  { "osd.op_w_process_latency", PLACER_CEPH_LATENCY },
  { "osd.subop_w", PLACER_CEPH_COUNT },
  { "osd.subop_w_latency", PLACER_CEPH_LATENCY },
};
static const struct placer_ceph_counter_spec mds_kept[] = {
  { "mds.forward", PLACER_CEPH_COUNT },         { "mds.reply", PLACER_CEPH_COUNT },
  { "mds.reply_latency", PLACER_CEPH_LATENCY }, { "mds.request", PLACER_CEPH_COUNT },
  { "mds.slow_reply", PLACER_CEPH_COUNT },      { "mds_server.handle_client_request", PLACER_CEPH_COUNT },
};
/* The MDS's per-operation latencies: mds_server.req_OP_latency (Pacific has 30). */
#define MDS_OP_SECTION "mds_server"
#define MDS_OP_PREFIX "req_"
#define MDS_OP_SUFFIX "_latency"
#define MDS_MAX_OPS 128

const struct placer_ceph_counter_spec *placer_ceph_counters_kept(enum placer_ceph_daemon_type type, size_t *n) {
  *n = type == PLACER_CEPH_OSD ? N_OF(osd_kept) : N_OF(mds_kept);
  return type == PLACER_CEPH_OSD ? osd_kept : mds_kept;
}

int placer_ceph_daemon_type_of(const char *daemon, enum placer_ceph_daemon_type *type) {
  size_t len = strlen(daemon);
  if (len >= PLACER_CEPH_DAEMON_NAME_MAX || len < 5)
    return -1;
  enum placer_ceph_daemon_type t;
  if (strncmp(daemon, "osd.", 4) == 0)
    t = PLACER_CEPH_OSD;
  else if (strncmp(daemon, "mds.", 4) == 0)
    t = PLACER_CEPH_MDS;
  else
    return -1;
  for (const char *p = daemon + 4; *p; p++) {
    bool ok = t == PLACER_CEPH_OSD ? isdigit((unsigned char)*p) : isalnum((unsigned char)*p) || *p == '_' || *p == '-';
    if (!ok)
      return -1;
  }
  *type = t;
  return 0;
}

/* Is NAME an operation's latency (mds_server.req_OP_latency, OP of [a-z])?  Its OP into OP. */
static bool mds_op_name(const char *name, char *op, size_t len) {
  const char *prefix = MDS_OP_SECTION "." MDS_OP_PREFIX;
  size_t n = strlen(name), pre = strlen(prefix), suf = strlen(MDS_OP_SUFFIX);
  if (n <= pre + suf || strncmp(name, prefix, pre) != 0 || strcmp(name + n - suf, MDS_OP_SUFFIX) != 0 ||
      n - pre - suf >= len)
    return false;
  for (size_t i = pre; i < n - suf; i++)
    if (!islower((unsigned char)name[i]))
      return false;
  memcpy(op, name + pre, n - pre - suf);
  op[n - pre - suf] = '\0';
  return true;
}

int placer_ceph_counter_kind_of(enum placer_ceph_daemon_type type, const char *name,
                                enum placer_ceph_counter_kind *kind) {
  size_t n;
  const struct placer_ceph_counter_spec *kept = placer_ceph_counters_kept(type, &n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(kept[i].name, name) == 0) {
      *kind = kept[i].kind;
      return 0;
    }
  char op[sizeof(((struct placer_ceph_mds_op *)0)->op)];
  if (type == PLACER_CEPH_MDS && strlen(name) < PLACER_CEPH_COUNTER_NAME_MAX && mds_op_name(name, op, sizeof(op))) {
    *kind = PLACER_CEPH_LATENCY;
    return 0;
  }
  return -1;
}

static int cmp_counter(const void *a, const void *b) {
  return strcmp(((const struct placer_ceph_counter *)a)->name, ((const struct placer_ceph_counter *)b)->name);
}

void placer_ceph_counters_sort(struct placer_ceph_counter *c, size_t n) {
  qsort(c, n, sizeof(*c), cmp_counter);
}

const struct placer_ceph_counter *placer_ceph_counter_find(const struct placer_ceph_counter *counters, size_t n,
                                                           const char *name) {
  struct placer_ceph_counter key;
  if (strlen(name) >= sizeof(key.name))
    return NULL;
  strcpy(key.name, name);
  return bsearch(&key, counters, n, sizeof(*counters), cmp_counter);
}

void placer_ceph_counters_free(struct placer_ceph_counters *c) {
  if (c == NULL)
    return;
  free(c->counters);
  c->counters = NULL;
  c->n = 0;
}

struct parse {
  const char *daemon;
  struct placer_error **err;
  struct placer_ceph_counter *out;
  size_t n, cap;
};

static int bad(struct parse *p, const char *name, const char *what) {
  return placer_error_set(p->err, PLACER_EXIT_USAGE, 0, "%s perf dump: %s: %s", p->daemon, name, what);
}

/* VALUE (perf dump's SECTION.KEY) as a counter of KIND, appended. */
static int keep(struct parse *p, const char *name, enum placer_ceph_counter_kind kind, const json_t *value) {
  struct placer_ceph_counter c = { .kind = kind };
  snprintf(c.name, sizeof(c.name), "%s", name);
  if (kind == PLACER_CEPH_COUNT) {
    if (!json_is_integer(value) || json_integer_value(value) < 0)
      return bad(p, name, "expected a count (a whole number >= 0)");
    c.count = (uint64_t)json_integer_value(value);
  } else {
    const json_t *count = json_object_get(value, "avgcount"), *sum = json_object_get(value, "sum");
    if (!json_is_object(value) || !json_is_integer(count) || json_integer_value(count) < 0 || !json_is_number(sum))
      return bad(p, name, "expected a latency {\"avgcount\": whole number >= 0, \"sum\": seconds}");
    double s = json_number_value(sum);
    if (!(s >= 0 && s <= SUM_MAX_S))
      return bad(p, name, "its sum is not a number of seconds >= 0");
    c.count = (uint64_t)json_integer_value(count);
    c.sum_ns = (uint64_t)llround(s * 1e9);
  }
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 32;
    struct placer_ceph_counter *grown = realloc(p->out, cap * sizeof(*grown));
    if (grown == NULL)
      return placer_error_oom(p->err, "perf dump");
    p->out = grown;
    p->cap = cap;
  }
  p->out[p->n++] = c;
  return 0;
}

/* mds_server.req_OP_latency for every OP of [a-z] the dump lists. */
static int keep_mds_ops(struct parse *p, const json_t *root) {
  const char *key;
  const json_t *value;
  size_t ops = 0;
  json_object_foreach(json_object_get(root, MDS_OP_SECTION), key, value) {
    char name[PLACER_CEPH_COUNTER_NAME_MAX], op[sizeof(((struct placer_ceph_mds_op *)0)->op)];
    if (snprintf(name, sizeof(name), "%s.%s", MDS_OP_SECTION, key) >= (int)sizeof(name) ||
        !mds_op_name(name, op, sizeof(op)))
      continue;
    if (++ops > MDS_MAX_OPS)
      return bad(p, MDS_OP_SECTION, "more than 128 request latencies");
    if (keep(p, name, PLACER_CEPH_LATENCY, value) < 0)
      return -1;
  }
  return 0;
}

int placer_ceph_counters_parse(const char *daemon, const char *text, size_t len, struct placer_ceph_counters *out,
                               struct placer_error **err) {
  enum placer_ceph_daemon_type type;
  if (placer_ceph_daemon_type_of(daemon, &type) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "'%s' is not an OSD (osd.N) or an MDS (mds.ID)", daemon);
  uint64_t cost = 0;
  size_t line = 0;
  if (len > PLACER_CEPH_DUMP_MAX_BYTES || placer_json_cost(text, len, DUMP_MAX_STRING, &cost, &line) < 0 ||
      cost > DUMP_MAX_COST)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s perf dump: %zu bytes, not a perf dump (at most %zu)", daemon,
                            len, PLACER_CEPH_DUMP_MAX_BYTES);
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL || !json_is_object(root)) {
    json_decref(root);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s perf dump: not a JSON object (line %d: %s)", daemon,
                            root ? 1 : jerr.line, root ? "not an object" : jerr.text);
  }
  const char *section_of_type = type == PLACER_CEPH_OSD ? "osd" : "mds";
  if (!json_is_object(json_object_get(root, section_of_type))) { /* another daemon's socket, or not Ceph's */
    json_decref(root);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s perf dump: no '%s' section: not an %s's perf dump", daemon,
                            section_of_type, type == PLACER_CEPH_OSD ? "OSD" : "MDS");
  }
  struct parse p = { .daemon = daemon, .err = err };
  size_t n_kept;
  const struct placer_ceph_counter_spec *kept = placer_ceph_counters_kept(type, &n_kept);
  int rc = 0;
  for (size_t i = 0; i < n_kept && rc == 0; i++) {
    char section[PLACER_CEPH_COUNTER_NAME_MAX];
    snprintf(section, sizeof(section), "%s", kept[i].name);
    char *dot = strchr(section, '.');
    *dot = '\0';
    const json_t *value = json_object_get(json_object_get(root, section), dot + 1);
    if (value)
      rc = keep(&p, kept[i].name, kept[i].kind, value);
  }
  if (rc == 0 && type == PLACER_CEPH_MDS)
    rc = keep_mds_ops(&p, root);
  json_decref(root);
  if (rc < 0) {
    free(p.out);
    return -1;
  }
  placer_ceph_counters_sort(p.out, p.n);
  *out = (struct placer_ceph_counters){ .type = type, .n = p.n, .counters = p.out };
  snprintf(out->daemon, sizeof(out->daemon), "%s", daemon);
  return 0;
}

/* ---- delta ----------------------------------------------------------------- */

void placer_ceph_delta_free(struct placer_ceph_delta *d) {
  if (d == NULL)
    return;
  free(d->counters);
  d->counters = NULL;
  d->n = 0;
}

double placer_ceph_counter_avg_ns(const struct placer_ceph_counter *c) {
  if (c == NULL || c->kind != PLACER_CEPH_LATENCY || c->count == 0)
    return NAN;
  return (double)c->sum_ns / (double)c->count;
}

/* The first counter of A that went backwards in B, said in WHY; false when none. */
static bool went_backwards(const struct placer_ceph_counter *a, const struct placer_ceph_counter *b, char *why,
                           size_t len) {
  if (b->count < a->count) {
    snprintf(why, len, "%s%s went from %llu to %llu", a->name, a->kind == PLACER_CEPH_LATENCY ? "'s count" : "",
             (unsigned long long)a->count, (unsigned long long)b->count);
    return true;
  }
  if (b->sum_ns < a->sum_ns) {
    snprintf(why, len, "%s's sum went from %.9f s to %.9f s", a->name, a->sum_ns / 1e9, b->sum_ns / 1e9);
    return true;
  }
  return false;
}

int placer_ceph_delta(const char *daemon, const struct placer_ceph_counters *before,
                      const struct placer_ceph_counters *after, const char *why, struct placer_ceph_delta *out,
                      struct placer_error **err) {
  *out = (struct placer_ceph_delta){ .state = PLACER_CEPH_DELTA_OK };
  snprintf(out->daemon, sizeof(out->daemon), "%s", daemon);
  if (placer_ceph_daemon_type_of(daemon, &out->type) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "'%s' is not an OSD (osd.N) or an MDS (mds.ID)", daemon);
  if (before == NULL || after == NULL) {
    out->state = PLACER_CEPH_DELTA_MISSING;
    snprintf(out->why, sizeof(out->why), "%s",
             why                               ? why
             : before == NULL && after == NULL ? "no perf dump before or after the run"
             : before == NULL                  ? "no perf dump before the run"
                                               : "no perf dump after the run");
    return 0;
  }
  size_t cap = after->n < before->n ? after->n : before->n;
  out->counters = malloc((cap ? cap : 1) * sizeof(*out->counters));
  if (out->counters == NULL)
    return placer_error_oom(err, "perf counters");
  for (size_t i = 0, j = 0; i < before->n && j < after->n;) {
    const struct placer_ceph_counter *a = &before->counters[i], *b = &after->counters[j];
    int c = strcmp(a->name, b->name);
    if (c < 0 || c > 0) { /* in one dump only: missing */
      i += c < 0;
      j += c > 0;
      continue;
    }
    if (went_backwards(a, b, out->why, sizeof(out->why))) {
      placer_ceph_delta_free(out);
      out->state = PLACER_CEPH_DELTA_RESTARTED;
      return 0;
    }
    struct placer_ceph_counter *d = &out->counters[out->n++];
    *d = *b;
    d->count = b->count - a->count;
    d->sum_ns = b->sum_ns - a->sum_ns;
    i++;
    j++;
  }
  return 0;
}

/* ---- where the time went ----------------------------------------------------- */

/* NAME summed over the counted daemons of TYPE; false when one lacks it or
 * none counted. */
static bool sum_counter(const struct placer_ceph_delta *d, size_t n, enum placer_ceph_daemon_type type,
                        const char *name, uint64_t *count, uint64_t *sum_ns) {
  size_t counted = 0;
  *count = *sum_ns = 0;
  for (size_t i = 0; i < n; i++) {
    if (d[i].type != type || d[i].state != PLACER_CEPH_DELTA_OK)
      continue;
    const struct placer_ceph_counter *c = placer_ceph_counter_find(d[i].counters, d[i].n, name);
    if (c == NULL)
      return false;
    *count += c->count;
    *sum_ns += c->sum_ns;
    counted++;
  }
  return counted > 0;
}

static double rate(const struct placer_ceph_delta *d, size_t n, enum placer_ceph_daemon_type type, const char *name,
                   double duration_s) {
  uint64_t count, sum;
  if (!sum_counter(d, n, type, name, &count, &sum) || !(duration_s > 0))
    return NAN;
  return (double)count / duration_s;
}

static double mean_ns(const struct placer_ceph_delta *d, size_t n, enum placer_ceph_daemon_type type,
                      const char *name) {
  uint64_t count, sum;
  if (!sum_counter(d, n, type, name, &count, &sum) || count == 0)
    return NAN;
  return (double)sum / (double)count;
}

static void count_daemons(const struct placer_ceph_delta *d, size_t n, enum placer_ceph_daemon_type type,
                          size_t *counted, size_t *left_out) {
  *counted = *left_out = 0;
  for (size_t i = 0; i < n; i++)
    if (d[i].type == type)
      ++*(d[i].state == PLACER_CEPH_DELTA_OK ? counted : left_out);
}

void placer_ceph_osd_time(const struct placer_ceph_delta *d, size_t n, double duration_s,
                          struct placer_ceph_osd_time *out) {
  enum placer_ceph_daemon_type osd = PLACER_CEPH_OSD;
  *out = (struct placer_ceph_osd_time){ 0 };
  count_daemons(d, n, osd, &out->osds, &out->left_out);
  out->write_ops_per_s = rate(d, n, osd, "osd.op_w", duration_s);
  out->write_ns = mean_ns(d, n, osd, "osd.op_w_latency");
  out->write_process_ns = mean_ns(d, n, osd, "osd.op_w_process_latency");
  out->write_queue_ns = out->write_ns - out->write_process_ns;
  out->replication_ns = mean_ns(d, n, osd, "osd.subop_w_latency");
  out->replica_writes_per_s = rate(d, n, osd, "osd.subop_w", duration_s);
  out->read_ops_per_s = rate(d, n, osd, "osd.op_r", duration_s);
  out->read_ns = mean_ns(d, n, osd, "osd.op_r_latency");
  out->read_process_ns = mean_ns(d, n, osd, "osd.op_r_process_latency");
  out->read_queue_ns = out->read_ns - out->read_process_ns;
  out->bluestore_commit_ns = mean_ns(d, n, osd, "bluestore.commit_lat");
  out->kv_sync_ns = mean_ns(d, n, osd, "bluestore.kv_sync_lat");
  out->kv_flush_ns = mean_ns(d, n, osd, "bluestore.kv_flush_lat");
  out->kv_commit_ns = mean_ns(d, n, osd, "bluestore.kv_commit_lat");
}

void placer_ceph_mds_time_free(struct placer_ceph_mds_time *t) {
  if (t == NULL)
    return;
  free(t->ops);
  t->ops = NULL;
  t->n_ops = 0;
}

static int cmp_op(const void *a, const void *b) {
  return strcmp(((const struct placer_ceph_mds_op *)a)->op, ((const struct placer_ceph_mds_op *)b)->op);
}

int placer_ceph_mds_time(const struct placer_ceph_delta *d, size_t n, double duration_s,
                         struct placer_ceph_mds_time *out, struct placer_error **err) {
  enum placer_ceph_daemon_type mds = PLACER_CEPH_MDS;
  *out = (struct placer_ceph_mds_time){ 0 };
  count_daemons(d, n, mds, &out->mdss, &out->left_out);
  out->requests_per_s = rate(d, n, mds, "mds.request", duration_s);
  out->reply_latency_ns = mean_ns(d, n, mds, "mds.reply_latency");
  /* the operations: every req_OP_latency a counted MDS has, once, by name */
  for (size_t i = 0; i < n; i++) {
    if (d[i].type != mds || d[i].state != PLACER_CEPH_DELTA_OK)
      continue;
    for (size_t k = 0; k < d[i].n; k++) {
      struct placer_ceph_mds_op op = { .per_s = NAN, .latency_ns = NAN };
      if (d[i].counters[k].count == 0 || !mds_op_name(d[i].counters[k].name, op.op, sizeof(op.op)))
        continue;
      bool seen = false;
      for (size_t m = 0; m < out->n_ops && !seen; m++)
        seen = strcmp(out->ops[m].op, op.op) == 0;
      if (seen)
        continue;
      uint64_t sum = 0;
      bool all = sum_counter(d, n, mds, d[i].counters[k].name, &op.count, &sum);
      if (all) {
        op.per_s = duration_s > 0 ? (double)op.count / duration_s : NAN;
        op.latency_ns = op.count ? (double)sum / (double)op.count : NAN;
      }
      struct placer_ceph_mds_op *grown = realloc(out->ops, (out->n_ops + 1) * sizeof(*grown));
      if (grown == NULL) {
        placer_ceph_mds_time_free(out);
        return placer_error_oom(err, "MDS operations");
      }
      out->ops = grown;
      out->ops[out->n_ops++] = op;
    }
  }
  if (out->n_ops) /* by name: the same order every run */
    qsort(out->ops, out->n_ops, sizeof(*out->ops), cmp_op);
  return 0;
}

void placer_ceph_run_counters_free(struct placer_ceph_run_counters *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n; i++)
    placer_ceph_delta_free(&r->daemons[i]);
  free(r->daemons);
  r->daemons = NULL;
  r->n = 0;
}
