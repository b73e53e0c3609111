/* Ceph's counters of a run written and read back: the "ceph_counters" object
 * of summary.json and ceph-counters.csv, both checked when read (docs/bench.md,
 * "Ceph's counters"); see ceph-counters.h. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/csv.h"
#include "lib/textfile.h"
#include "lib/units.h"
#include "results/ceph-counters.h"

/* ---- JSON --------------------------------------------------------------------- */

static json_t *number_or_null(double x) {
  return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static json_t *daemon_to_json(const struct placer_ceph_delta *d) {
  json_t *counters = json_object();
  for (size_t i = 0; counters && i < d->n; i++) {
    const struct placer_ceph_counter *c = &d->counters[i];
    json_t *v = c->kind == PLACER_CEPH_COUNT
                    ? json_pack("{s:I}", "count", (json_int_t)c->count)
                    : json_pack("{s:I,s:I}", "count", (json_int_t)c->count, "sum_ns", (json_int_t)c->sum_ns);
    if (v == NULL || json_object_set_new(counters, c->name, v) < 0) {
      json_decref(counters);
      return NULL;
    }
  }
  return json_pack("{s:s,s:s,s:o,s:o}", "daemon", d->daemon, "state", placer_ceph_delta_state_names[d->state], "why",
                   d->state == PLACER_CEPH_DELTA_OK ? json_null() : json_string(d->why), "counters", counters);
}

static json_t *osd_time_to_json(const struct placer_ceph_osd_time *t) {
  return json_pack("{s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "osds", (json_int_t)t->osds,
                   "left_out", (json_int_t)t->left_out, "write_ops_per_s", number_or_null(t->write_ops_per_s),
                   "write_ns", number_or_null(t->write_ns), "write_queue_ns", number_or_null(t->write_queue_ns),
                   "write_process_ns", number_or_null(t->write_process_ns), "replication_ns",
                   number_or_null(t->replication_ns), "replica_writes_per_s", number_or_null(t->replica_writes_per_s),
                   "read_ops_per_s", number_or_null(t->read_ops_per_s), "read_ns", number_or_null(t->read_ns),
                   "read_queue_ns", number_or_null(t->read_queue_ns), "read_process_ns",
                   number_or_null(t->read_process_ns), "bluestore_commit_ns", number_or_null(t->bluestore_commit_ns),
                   "kv_sync_ns", number_or_null(t->kv_sync_ns), "kv_flush_ns", number_or_null(t->kv_flush_ns),
                   "kv_commit_ns", number_or_null(t->kv_commit_ns));
}

static json_t *mds_time_to_json(const struct placer_ceph_mds_time *t) {
  json_t *ops = json_array();
  for (size_t i = 0; ops && i < t->n_ops; i++) {
    const struct placer_ceph_mds_op *op = &t->ops[i];
    if (json_array_append_new(ops, json_pack("{s:s,s:I,s:o,s:o}", "op", op->op, "count", (json_int_t)op->count, "per_s",
                                             number_or_null(op->per_s), "latency_ns", number_or_null(op->latency_ns))) <
        0) {
      json_decref(ops);
      return NULL;
    }
  }
  return json_pack("{s:I,s:I,s:o,s:o,s:o}", "mdss", (json_int_t)t->mdss, "left_out", (json_int_t)t->left_out,
                   "requests_per_s", number_or_null(t->requests_per_s), "reply_latency_ns",
                   number_or_null(t->reply_latency_ns), "ops", ops);
}

json_t *placer_ceph_run_counters_to_json(const struct placer_ceph_run_counters *r, double duration_s) {
  json_t *daemons = json_array();
  for (size_t i = 0; daemons && i < r->n; i++)
    if (json_array_append_new(daemons, daemon_to_json(&r->daemons[i])) < 0) {
      json_decref(daemons);
      return NULL;
    }
  struct placer_ceph_osd_time osd;
  struct placer_ceph_mds_time mds;
  placer_ceph_osd_time(r->daemons, r->n, duration_s, &osd);
  if (placer_ceph_mds_time(r->daemons, r->n, duration_s, &mds, NULL) < 0) {
    json_decref(daemons);
    return NULL;
  }
  json_t *where = json_pack("{s:o,s:o}", "osd", osd.osds + osd.left_out ? osd_time_to_json(&osd) : json_null(), "mds",
                            mds.mdss + mds.left_out ? mds_time_to_json(&mds) : json_null());
  placer_ceph_mds_time_free(&mds);
  return json_pack("{s:o,s:o}", "daemons", daemons, "where", where);
}

/* The reader's place in the object, for messages: "runs[3].ceph_counters.daemons[1]". */
struct jread {
  struct placer_error **err;
  char path[256];
};

/* A refusal, bad input: "WHERE: message". */
static int vrefuse(struct placer_error **err, const char *where, const char *fmt, va_list ap) {
  char msg[256];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: %s", where, msg);
}

static int jfail(struct jread *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int jfail(struct jread *j, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vrefuse(j->err, j->path, fmt, ap);
  va_end(ap);
  return rc;
}

static size_t jpush(struct jread *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t jpush(struct jread *j, const char *fmt, ...) {
  size_t len = strlen(j->path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->path + len, sizeof(j->path) - len, fmt, ap);
  va_end(ap);
  return len;
}

/* A whole number >= 0 at KEY of OBJ, or absent when OPTIONAL. */
static int juint(struct jread *j, const json_t *obj, const char *key, bool optional, bool *present, uint64_t *out) {
  const json_t *v = json_object_get(obj, key);
  *present = v != NULL;
  size_t at = jpush(j, ".%s", key);
  int rc = 0;
  if (v == NULL && !optional)
    rc = jfail(j, "missing (expected a whole number >= 0)");
  else if (v && (!json_is_integer(v) || json_integer_value(v) < 0))
    rc = jfail(j, "expected a whole number >= 0");
  else if (v)
    *out = (uint64_t)json_integer_value(v);
  j->path[at] = '\0';
  return rc;
}

/* A line of text: at most LEN - 1 bytes of UTF-8 (jansson's check: what is
 * read here goes to summary.json), no control byte. */
static bool one_line(const char *s, size_t len) {
  bool ascii = true;
  if (strlen(s) >= len)
    return false;
  for (const char *p = s; *p; p++) {
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return false;
    ascii = ascii && (unsigned char)*p < 0x80;
  }
  json_t *utf8 = ascii ? NULL : json_string(s);
  json_decref(utf8);
  return ascii || utf8 != NULL;
}

static int counter_from_json(struct jread *j, enum placer_ceph_daemon_type type, const char *name, const json_t *v,
                             struct placer_ceph_counter *c) {
  enum placer_ceph_counter_kind kind;
  size_t at = jpush(j, ".counters[\"%s\"]", name);
  int rc = 0;
  bool has_count, has_sum;
  *c = (struct placer_ceph_counter){ 0 };
  if (placer_ceph_counter_kind_of(type, name, &kind) < 0)
    rc = jfail(j, "not a counter placer keeps for this daemon");
  else if (!json_is_object(v))
    rc = jfail(j, "expected an object");
  else if (juint(j, v, "count", false, &has_count, &c->count) < 0 ||
           juint(j, v, "sum_ns", kind == PLACER_CEPH_COUNT, &has_sum, &c->sum_ns) < 0)
    rc = -1;
  else if (kind == PLACER_CEPH_COUNT && has_sum)
    rc = jfail(j, "a count has no sum_ns");
  if (rc == 0) {
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->kind = kind;
  }
  j->path[at] = '\0';
  return rc;
}

static int daemon_from_json(struct jread *j, const json_t *v, struct placer_ceph_delta *d) {
  const json_t *name = json_object_get(v, "daemon"), *state = json_object_get(v, "state"),
               *why = json_object_get(v, "why"), *counters = json_object_get(v, "counters");
  if (!json_is_object(v))
    return jfail(j, "expected an object");
  if (!json_is_string(name) || placer_ceph_daemon_type_of(json_string_value(name), &d->type) < 0)
    return jfail(j, "daemon: expected an OSD (osd.N) or an MDS (mds.ID)");
  snprintf(d->daemon, sizeof(d->daemon), "%s", json_string_value(name));
  size_t s = 0;
  while (s < 3 && !(json_is_string(state) && strcmp(json_string_value(state), placer_ceph_delta_state_names[s]) == 0))
    s++;
  if (s == 3)
    return jfail(j, "state: expected ok, missing or restarted");
  d->state = (enum placer_ceph_delta_state)s;
  if (d->state != PLACER_CEPH_DELTA_OK && (!json_is_string(why) || !one_line(json_string_value(why), sizeof(d->why))))
    return jfail(j, "why: expected one line of at most %zu bytes saying why the daemon is %s", sizeof(d->why) - 1,
                 placer_ceph_delta_state_names[s]);
  if (d->state == PLACER_CEPH_DELTA_OK && why && !json_is_null(why))
    return jfail(j, "why: null expected for a daemon that is ok");
  if (d->state != PLACER_CEPH_DELTA_OK)
    snprintf(d->why, sizeof(d->why), "%s", json_string_value(why));
  if (!json_is_object(counters) || json_object_size(counters) > PLACER_CEPH_MAX_COUNTERS)
    return jfail(j, "counters: expected an object of at most %d counters", PLACER_CEPH_MAX_COUNTERS);
  if (d->state != PLACER_CEPH_DELTA_OK && json_object_size(counters) > 0)
    return jfail(j, "counters: a daemon that is %s has none", placer_ceph_delta_state_names[s]);
  d->counters = malloc((json_object_size(counters) + 1) * sizeof(*d->counters));
  if (d->counters == NULL)
    return placer_error_oom(j->err, "ceph_counters");
  const char *key;
  const json_t *cv;
  json_object_foreach((json_t *)counters, key, cv) {
    if (counter_from_json(j, d->type, key, cv, &d->counters[d->n]) < 0)
      return -1;
    d->n++;
  }
  placer_ceph_counters_sort(d->counters, d->n); /* as a delta keeps them */
  return 0;
}

int placer_ceph_run_counters_from_json(const json_t *j, const char *path, struct placer_ceph_run_counters *out,
                                       struct placer_error **err) {
  struct jread r = { .err = err };
  snprintf(r.path, sizeof(r.path), "%s", path);
  *out = (struct placer_ceph_run_counters){ 0 };
  const json_t *daemons = json_object_get(j, "daemons");
  if (!json_is_object(j))
    return jfail(&r, "expected an object");
  if (!json_is_array(daemons) || json_array_size(daemons) > PLACER_CEPH_MAX_DAEMONS)
    return jfail(&r, "daemons: expected an array of at most %d daemons", PLACER_CEPH_MAX_DAEMONS);
  size_t n = json_array_size(daemons);
  out->daemons = calloc(n ? n : 1, sizeof(*out->daemons));
  if (out->daemons == NULL)
    return placer_error_oom(err, "ceph_counters");
  for (size_t i = 0; i < n; i++) {
    size_t at = jpush(&r, ".daemons[%zu]", i);
    int rc = daemon_from_json(&r, json_array_get(daemons, i), &out->daemons[i]);
    out->n = i + 1;
    for (size_t k = 0; rc == 0 && k < i; k++)
      if (strcmp(out->daemons[k].daemon, out->daemons[i].daemon) == 0)
        rc = jfail(&r, "%s is listed twice", out->daemons[i].daemon);
    r.path[at] = '\0';
    if (rc < 0) {
      placer_ceph_run_counters_free(out);
      return -1;
    }
  }
  return 0;
}

/* ---- CSV ---------------------------------------------------------------------- */

void placer_ceph_csv_write_header(FILE *f) {
  fputs(PLACER_CEPH_CSV_HEADER "\n", f);
}

static void write_run_key(FILE *f, const char *variant, unsigned repeat, const char *condition, const char *workload,
                          const struct placer_ceph_delta *d) {
  char rep[16];
  snprintf(rep, sizeof(rep), "%u", repeat);
  placer_csv_write_field(f, variant, false);
  placer_csv_write_field(f, rep, false);
  placer_csv_write_field(f, condition, false);
  placer_csv_write_field(f, workload, false);
  placer_csv_write_field(f, d->daemon, false);
  placer_csv_write_field(f, placer_ceph_delta_state_names[d->state], false);
}

void placer_ceph_csv_write_run(FILE *f, const char *variant, unsigned repeat, const char *condition,
                               const char *workload, const struct placer_ceph_run_counters *run) {
  for (size_t i = 0; i < run->n; i++) {
    const struct placer_ceph_delta *d = &run->daemons[i];
    if (d->state != PLACER_CEPH_DELTA_OK || d->n == 0) { /* one row: the daemon is there, without counters */
      write_run_key(f, variant, repeat, condition, workload, d);
      fputs(",,,,", f);
      placer_csv_write_field(f, d->state == PLACER_CEPH_DELTA_OK ? NULL : d->why, true);
      continue;
    }
    for (size_t k = 0; k < d->n; k++) {
      const struct placer_ceph_counter *c = &d->counters[k];
      write_run_key(f, variant, repeat, condition, workload, d);
      placer_csv_write_field(f, c->name, false);
      fprintf(f, "%llu,", (unsigned long long)c->count);
      if (c->kind == PLACER_CEPH_LATENCY)
        fprintf(f, "%llu,", (unsigned long long)c->sum_ns);
      else
        fputc(',', f);
      placer_csv_write_number(f, placer_ceph_counter_avg_ns(c), false);
      placer_csv_write_field(f, NULL, true);
    }
  }
}

enum { F_VARIANT, F_REPEAT, F_CONDITION, F_WORKLOAD, F_DAEMON, F_STATE, F_COUNTER, F_COUNT, F_SUM, F_AVG, F_WHY, F_N };

struct csv_read {
  const char *path;
  size_t line;
  struct placer_error **err;
  struct placer_ceph_csv_run *runs;
  size_t n_runs, cap_runs;
  size_t rows;
};

static int cfail(struct csv_read *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(struct csv_read *c, const char *fmt, ...) {
  char where[PATH_MAX + 32];
  snprintf(where, sizeof(where), "%s:%zu", c->path, c->line);
  va_list ap;
  va_start(ap, fmt);
  int rc = vrefuse(c->err, where, fmt, ap);
  va_end(ap);
  return rc;
}

/* A name of a run (variant, condition, workload): as summary.json's. */
static bool run_name_ok(const char *s) {
  return *s && one_line(s, 256);
}

static int parse_uint_field(struct csv_read *c, const char *what, const char *s, uint64_t max, uint64_t *out) {
  if (placer_parse_u64(s, out) < 0 || *s == ' ' || *s == '\t' || *out > max)
    return cfail(c, "%s: '%s' is not a whole number from 0 to %llu", what, s, (unsigned long long)max);
  return 0;
}

/* The run of this row: the last one when the row is its, else a new one
 * (a run seen before and left is a fault: its rows are not together). */
static bool is_run(const struct placer_ceph_csv_run *r, char **f, uint64_t repeat) {
  return r->repeat == repeat && strcmp(r->variant, f[F_VARIANT]) == 0 && strcmp(r->condition, f[F_CONDITION]) == 0 &&
         strcmp(r->workload, f[F_WORKLOAD]) == 0;
}

static int row_run(struct csv_read *c, char **f, uint64_t repeat, struct placer_ceph_csv_run **run) {
  if (c->n_runs && is_run(&c->runs[c->n_runs - 1], f, repeat)) {
    *run = &c->runs[c->n_runs - 1];
    return 0;
  }
  for (size_t i = 0; i < c->n_runs; i++) /* once per run: the rows of a run are together */
    if (is_run(&c->runs[i], f, repeat))
      return cfail(c, "run %s-r%llu %s %s: its rows are not together (another run's rows come between)", f[F_VARIANT],
                   (unsigned long long)repeat, f[F_CONDITION], f[F_WORKLOAD]);
  if (c->n_runs == c->cap_runs) {
    size_t cap = c->cap_runs ? 2 * c->cap_runs : 16;
    struct placer_ceph_csv_run *grown = realloc(c->runs, cap * sizeof(*grown));
    if (grown == NULL)
      return placer_error_oom(c->err, c->path);
    c->runs = grown;
    c->cap_runs = cap;
  }
  struct placer_ceph_csv_run *r = &c->runs[c->n_runs];
  *r = (struct placer_ceph_csv_run){ .repeat = (unsigned)repeat };
  r->variant = strdup(f[F_VARIANT]);
  r->condition = strdup(f[F_CONDITION]);
  r->workload = strdup(f[F_WORKLOAD]);
  c->n_runs++;
  if (!r->variant || !r->condition || !r->workload)
    return placer_error_oom(c->err, c->path);
  *run = r;
  return 0;
}

/* The daemon of this row in RUN: its last one, or a new one. */
static int row_daemon(struct csv_read *c, struct placer_ceph_csv_run *run, char **f, struct placer_ceph_delta **out) {
  struct placer_ceph_run_counters *rc = &run->counters;
  struct placer_ceph_delta *last = rc->n ? &rc->daemons[rc->n - 1] : NULL;
  for (size_t i = 0; i < rc->n; i++)
    if (strcmp(rc->daemons[i].daemon, f[F_DAEMON]) == 0) {
      bool more = &rc->daemons[i] == last && last->state == PLACER_CEPH_DELTA_OK && last->n > 0 &&
                  strcmp(f[F_STATE], "ok") == 0 && f[F_COUNTER][0];
      if (!more)
        return cfail(c, "%s is listed twice in run %s-r%u %s %s", f[F_DAEMON], run->variant, run->repeat,
                     run->condition, run->workload);
      *out = last;
      return 0;
    }
  struct placer_ceph_delta *grown = realloc(rc->daemons, (rc->n + 1) * sizeof(*grown));
  if (grown == NULL)
    return placer_error_oom(c->err, c->path);
  rc->daemons = grown;
  struct placer_ceph_delta *d = &rc->daemons[rc->n++];
  *d = (struct placer_ceph_delta){ 0 };
  snprintf(d->daemon, sizeof(d->daemon), "%s", f[F_DAEMON]);
  if (placer_ceph_daemon_type_of(d->daemon, &d->type) < 0)
    return cfail(c, "daemon: '%s' is not an OSD (osd.N) or an MDS (mds.ID)", f[F_DAEMON]);
  size_t s = 0;
  while (s < 3 && strcmp(f[F_STATE], placer_ceph_delta_state_names[s]) != 0)
    s++;
  if (s == 3)
    return cfail(c, "state: '%s' is not ok, missing or restarted", f[F_STATE]);
  d->state = (enum placer_ceph_delta_state)s;
  *out = d;
  return 0;
}

/* A counter's row of daemon D. */
static int row_counter(struct csv_read *c, struct placer_ceph_delta *d, char **f) {
  struct placer_ceph_counter k = { 0 };
  if (placer_ceph_counter_kind_of(d->type, f[F_COUNTER], &k.kind) < 0)
    return cfail(c, "counter: '%s' is not one placer keeps for %s", f[F_COUNTER], d->daemon);
  snprintf(k.name, sizeof(k.name), "%s", f[F_COUNTER]);
  if (d->n && strcmp(d->counters[d->n - 1].name, k.name) >= 0)
    return cfail(c, "counter %s of %s: not after %s (each once, in name order)", k.name, d->daemon,
                 d->counters[d->n - 1].name);
  if (parse_uint_field(c, "count", f[F_COUNT], INT64_MAX, &k.count) < 0)
    return -1;
  if (k.kind == PLACER_CEPH_COUNT && (f[F_SUM][0] || f[F_AVG][0]))
    return cfail(c, "%s is a count: sum_ns and avg_ns are empty", k.name);
  if (k.kind == PLACER_CEPH_LATENCY) {
    if (parse_uint_field(c, "sum_ns", f[F_SUM], INT64_MAX, &k.sum_ns) < 0)
      return -1;
    double avg = placer_ceph_counter_avg_ns(&k);
    char *end;
    double given = f[F_AVG][0] ? strtod(f[F_AVG], &end) : NAN;
    bool ok = isnan(avg) ? f[F_AVG][0] == '\0' : f[F_AVG][0] && *end == '\0' && fabs(given - avg) <= 1e-6 * avg;
    if (!ok)
      return cfail(c, "avg_ns: '%s' is not sum_ns / count (%.10g)", f[F_AVG], avg);
  }
  struct placer_ceph_counter *grown = realloc(d->counters, (d->n + 1) * sizeof(*grown));
  if (grown == NULL)
    return placer_error_oom(c->err, c->path);
  d->counters = grown;
  d->counters[d->n++] = k;
  return 0;
}

static int parse_row(struct csv_read *c, char **f) {
  uint64_t repeat;
  if (!run_name_ok(f[F_VARIANT]) || !run_name_ok(f[F_CONDITION]) || !run_name_ok(f[F_WORKLOAD]))
    return cfail(c, "variant, condition and workload: names of 1 to 255 bytes");
  if (parse_uint_field(c, "repeat", f[F_REPEAT], 1000000, &repeat) < 0)
    return -1;
  struct placer_ceph_csv_run *run = NULL;
  struct placer_ceph_delta *d = NULL;
  if (row_run(c, f, repeat, &run) < 0 || row_daemon(c, run, f, &d) < 0)
    return -1;
  bool no_counter = !f[F_COUNTER][0] && !f[F_COUNT][0] && !f[F_SUM][0] && !f[F_AVG][0];
  if (d->state != PLACER_CEPH_DELTA_OK) {
    if (!no_counter)
      return cfail(c, "%s is %s: its row has no counter", d->daemon, placer_ceph_delta_state_names[d->state]);
    if (!f[F_WHY][0] || !one_line(f[F_WHY], sizeof(d->why)))
      return cfail(c, "why: %s is %s: one line of at most %zu bytes says why", d->daemon,
                   placer_ceph_delta_state_names[d->state], sizeof(d->why) - 1);
    snprintf(d->why, sizeof(d->why), "%s", f[F_WHY]);
    return 0;
  }
  if (f[F_WHY][0])
    return cfail(c, "why: empty for a daemon that is ok");
  if (no_counter)
    return 0; /* an ok daemon without counters: its one row */
  if (!f[F_COUNTER][0])
    return cfail(c, "counter: empty, but the row has numbers");
  return row_counter(c, d, f);
}

int placer_ceph_csv_parse(const char *path, const char *text, size_t len, struct placer_ceph_csv_run **out,
                          size_t *n_out, struct placer_error **err) {
  struct csv_read c = { .path = path, .err = err };
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return placer_error_oom(err, path);
  memcpy(copy, text, len);
  copy[len] = '\0';
  char *p = copy, *f[F_N];
  size_t left = len;
  const char *why = NULL;
  int rc = 0;
  c.line = 1;
  size_t header = strlen(PLACER_CEPH_CSV_HEADER "\n");
  if (len > PLACER_CEPH_CSV_MAX_BYTES)
    rc = cfail(&c, "%zu bytes, more than the %zu a counters file may have", len, PLACER_CEPH_CSV_MAX_BYTES);
  else if (len < header || memcmp(p, PLACER_CEPH_CSV_HEADER "\n", header) != 0)
    rc = cfail(&c, "expected the header %s", PLACER_CEPH_CSV_HEADER);
  if (rc == 0) {
    p += header;
    left -= header;
  }
  while (rc == 0 && left > 0) {
    c.line++;
    if (++c.rows > PLACER_CEPH_CSV_MAX_ROWS) {
      rc = cfail(&c, "more than %zu rows", PLACER_CEPH_CSV_MAX_ROWS);
      break;
    }
    int n = placer_csv_split_row(&p, &left, f, F_N, &why);
    if (n < 0)
      rc = cfail(&c, "%s", why);
    else if (n != F_N)
      rc = cfail(&c, "%d fields, expected %d (%s)", n, F_N, PLACER_CEPH_CSV_HEADER);
    else
      rc = parse_row(&c, f);
  }
  free(copy);
  if (rc < 0) {
    placer_ceph_csv_runs_free(c.runs, c.n_runs);
    return -1;
  }
  *out = c.runs;
  *n_out = c.n_runs;
  return 0;
}

int placer_ceph_csv_load(const char *path, struct placer_ceph_csv_run **out, size_t *n_out, struct placer_error **err) {
  char *text = NULL;
  size_t len = 0;
  if (placer_textfile_read_input("counters file", path, PLACER_CEPH_CSV_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  int rc = placer_ceph_csv_parse(path, text, len, out, n_out, err);
  free(text);
  return rc;
}

void placer_ceph_csv_runs_free(struct placer_ceph_csv_run *runs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(runs[i].variant);
    free(runs[i].condition);
    free(runs[i].workload);
    placer_ceph_run_counters_free(&runs[i].counters);
  }
  free(runs);
}
