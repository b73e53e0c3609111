/* summary.json checked against its schema (docs/bench.md) before anything
 * uses it: types, ranges (rates, sizes, latencies and CPU finite and >= 0,
 * shares and fractions in [0, 1]), names, and array lengths within the
 * study's shape.  The reader behind it (results-json.c) can then trust what
 * it reads: no negative IOPS judged as a regression, no "many" for a list. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/array.h"
#include "results/results.h"

/* What one results directory may hold, far above a real study's (its
 * shape is at most PLACER_BENCH_MAX of each; a run has a few dozen roles
 * and threads), far below what would hurt. */
#define MAX_ROLES 4096
#define MAX_THREADS 16384
#define MAX_CPUS (1u << 20)

struct check {
  struct placer_error **err;
  char path[192];
};

static int fail(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct check *c, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return placer_error_set(c->err, PLACER_EXIT_USAGE, 0, "%s: %s", c->path[0] ? c->path : "top level", msg);
}

/* Extend the path ("runs[3]" + ".write"); returns the length to restore. */
static size_t push(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t push(struct check *c, const char *fmt, ...) {
  size_t len = strlen(c->path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->path + len, sizeof(c->path) - len, fmt, ap);
  va_end(ap);
  return len;
}

static size_t push_key(struct check *c, const char *key) {
  return push(c, "%s%s", c->path[0] ? "." : "", key);
}

static void pop(struct check *c, size_t len) {
  c->path[len] = '\0';
}

static const char *type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "true/false";
  default: return "null";
  }
}

enum { OPTIONAL = 1, NULLABLE = 2, INTEGER = 4, EMPTY = 8 };

/* OBJ.KEY is of TYPE (JSON_REAL: any number), or absent with OPTIONAL, or
 * null with NULLABLE; *out is it, or NULL when absent or null. */
static int typed(struct check *c, const json_t *obj, const char *key, json_type type, int flags, const json_t **out) {
  const json_t *v = json_object_get(obj, key);
  *out = NULL;
  const char *want = type == JSON_OBJECT   ? "an object"
                     : type == JSON_ARRAY  ? "an array"
                     : type == JSON_STRING ? "a string"
                     : type == JSON_TRUE   ? "true or false"
                     : flags & INTEGER     ? "a whole number"
                                           : "a number";
  size_t at = push_key(c, key);
  int rc = 0;
  if (v == NULL) {
    if (!(flags & OPTIONAL))
      rc = fail(c, "missing (expected %s)", want);
  } else if (json_is_null(v)) {
    if (!(flags & NULLABLE))
      rc = fail(c, "null, expected %s", want);
  } else if (type == JSON_TRUE   ? !json_is_boolean(v)
             : type == JSON_REAL ? ((flags & INTEGER) ? !json_is_integer(v) : !json_is_number(v))
                                 : json_typeof(v) != type) {
    rc = fail(c, "expected %s, got %s", want, type_name(v));
  } else {
    *out = v;
  }
  pop(c, at);
  return rc;
}

/* A number in [MIN, MAX] (finite: JSON has no NaN or infinity, but a real
 * past DBL_MAX never parses, so only the range is left). */
static int number_in(struct check *c, const json_t *v, double min, double max) {
  double x = json_number_value(v);
  char shown[64];
  if (json_is_integer(v))
    snprintf(shown, sizeof(shown), "%lld", (long long)json_integer_value(v));
  else
    snprintf(shown, sizeof(shown), "%g", x);
  if (!isfinite(x))
    return fail(c, "%s is not a finite number", shown);
  if (x < min)
    return min == 0 ? fail(c, "%s is negative", shown) : fail(c, "%s is less than %g", shown, min);
  if (x > max)
    return fail(c, "%s is more than %g", shown, max);
  return 0;
}

static int num(struct check *c, const json_t *obj, const char *key, int flags, double min, double max) {
  const json_t *v;
  if (typed(c, obj, key, JSON_REAL, flags, &v) < 0)
    return -1;
  if (v == NULL)
    return 0;
  size_t at = push_key(c, key);
  int rc = number_in(c, v, min, max);
  pop(c, at);
  return rc;
}

/* A name: non-empty (but with EMPTY_OK), at most 255 bytes, no control
 * bytes (they would reach the terminal as escape sequences). */
static int name_ok(struct check *c, const json_t *v, bool empty_ok) {
  if (!json_is_string(v))
    return fail(c, "expected a name (a string), got %s", type_name(v));
  const char *s = json_string_value(v);
  size_t len = json_string_length(v);
  if (len == 0 && !empty_ok)
    return fail(c, "an empty name");
  if (len > 255)
    return fail(c, "a name of %zu bytes (at most 255)", len);
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return fail(c, "the name '%s' has a control byte", s);
  return 0;
}

static int name(struct check *c, const json_t *obj, const char *key, int flags) {
  const json_t *v;
  if (typed(c, obj, key, JSON_STRING, flags, &v) < 0)
    return -1;
  if (v == NULL)
    return 0;
  size_t at = push_key(c, key);
  int rc = name_ok(c, v, flags & EMPTY);
  pop(c, at);
  return rc;
}

/* A file of the results directory: relative, inside it. */
static int rel_path(struct check *c, const json_t *obj, const char *key) {
  const json_t *v;
  if (typed(c, obj, key, JSON_STRING, OPTIONAL | NULLABLE, &v) < 0)
    return -1;
  if (v == NULL)
    return 0;
  const char *s = json_string_value(v);
  size_t at = push_key(c, key);
  int rc = 0;
  if (s[0] == '/' || strcmp(s, "..") == 0 || strncmp(s, "../", 3) == 0 || strstr(s, "/../") ||
      (strlen(s) >= 3 && strcmp(s + strlen(s) - 3, "/..") == 0) || strlen(s) != json_string_length(v))
    rc = fail(c, "'%s' is not a path inside the results directory", s);
  pop(c, at);
  return rc;
}

/* An array of at most MAX elements (NAME them in the message). */
static int array(struct check *c, const json_t *obj, const char *key, int flags, size_t max, const char *why,
                 const json_t **out) {
  if (typed(c, obj, key, JSON_ARRAY, flags, out) < 0)
    return -1;
  if (*out && json_array_size(*out) > max) {
    size_t at = push_key(c, key);
    int rc = fail(c, "%zu entries, more than the %zu %s", json_array_size(*out), max, why);
    pop(c, at);
    return rc;
  }
  return 0;
}

static int element_object(struct check *c, const json_t *v) {
  return json_is_object(v) ? 0 : fail(c, "expected an object, got %s", type_name(v));
}

static int io_check(struct check *c, const json_t *run, const char *key) {
  const json_t *io;
  if (typed(c, run, key, JSON_OBJECT, 0, &io) < 0)
    return -1;
  size_t at = push_key(c, key);
  static const char *const counts[] = { "bw_bytes", "io_bytes", "total_ios", "runtime_ms" };
  static const char *const rates[] = { "iops", "clat_mean_ns", "clat_p50_ns", "clat_p99_ns", "clat_p999_ns" };
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < N_OF(counts); i++)
    rc = num(c, io, counts[i], OPTIONAL | INTEGER, 0, INFINITY);
  for (size_t i = 0; rc == 0 && i < N_OF(rates); i++)
    rc = num(c, io, rates[i], OPTIONAL | NULLABLE, 0, INFINITY);
  pop(c, at);
  return rc;
}

/* A run's operations, each under its name: its workload's kind's (a block
 * workload's read and write, a metadata workload's create, stat and delete). */
static int ops_check(struct check *c, const json_t *run, int kind) {
  const char *const *ops = kind == PLACER_BENCH_WORKLOAD_METADATA ? placer_bench_metadata_ops : placer_bench_block_ops;
  for (size_t i = 0; ops[i]; i++)
    if (io_check(c, run, ops[i]) < 0)
      return -1;
  return 0;
}

/* Ceph's counters of a run, where it has them: read as the reader reads
 * them (ceph-counters-io.c), every refusal naming its path. */
static int ceph_check(struct check *c, const json_t *run) {
  const json_t *ceph;
  if (typed(c, run, "ceph_counters", JSON_OBJECT, OPTIONAL | NULLABLE, &ceph) < 0)
    return -1;
  if (ceph == NULL)
    return 0;
  size_t at = push_key(c, "ceph_counters");
  struct placer_ceph_run_counters counters;
  int rc = placer_ceph_run_counters_from_json(ceph, c->path, &counters, c->err);
  if (rc == 0)
    placer_ceph_run_counters_free(&counters);
  pop(c, at);
  return rc;
}

/* The kind of workload NAME in summary.json's "workloads" (a block one when
 * it has no kind, or when the name is not there: the reader refuses that). */
static int workload_kind_of(const json_t *j, const char *name) {
  const json_t *e;
  size_t i;
  json_array_foreach(json_object_get(j, "workloads"), i, e) {
    const char *n = json_string_value(json_object_get(e, "name")),
               *kind = json_string_value(json_object_get(e, "kind"));
    if (n && name && strcmp(n, name) == 0 && kind && strcmp(kind, "metadata") == 0)
      return PLACER_BENCH_WORKLOAD_METADATA;
  }
  return PLACER_BENCH_WORKLOAD_BLOCK;
}

static int roles_check(struct check *c, const json_t *run) {
  const json_t *roles, *e;
  size_t i;
  if (array(c, run, "roles", OPTIONAL, MAX_ROLES, "instances a run may sample", &roles) < 0)
    return -1;
  json_array_foreach(roles, i, e) {
    size_t at = push(c, ".roles[%zu]", i);
    if (element_object(c, e) < 0 || name(c, e, "instance", 0) < 0 || name(c, e, "role", 0) < 0 ||
        num(c, e, "cpu_ns", OPTIONAL | INTEGER, 0, INFINITY) < 0 ||
        num(c, e, "peak_rss_bytes", OPTIONAL | INTEGER, 0, INFINITY) < 0 ||
        num(c, e, "local_mem_share", OPTIONAL | NULLABLE, 0, 1) < 0)
      return -1;
    pop(c, at);
  }
  return 0;
}

static int threads_check(struct check *c, const json_t *run) {
  const json_t *threads, *e;
  size_t i;
  if (array(c, run, "threads", OPTIONAL, MAX_THREADS, "threads a run may sample", &threads) < 0)
    return -1;
  json_array_foreach(threads, i, e) {
    size_t at = push(c, ".threads[%zu]", i);
    const json_t *thread;
    /* a thread's comm is any 15 bytes its program chose: a string, not a name */
    if (element_object(c, e) < 0 || name(c, e, "instance", 0) < 0 ||
        typed(c, e, "thread", JSON_STRING, 0, &thread) < 0 || num(c, e, "cpu_ns", OPTIONAL | INTEGER, 0, INFINITY) < 0)
      return -1;
    pop(c, at);
  }
  return 0;
}

static int run_check(struct check *c, const json_t *j, const json_t *run, size_t repeats) {
  const json_t *busy, *e;
  size_t k;
  if (element_object(c, run) < 0 || name(c, run, "variant", 0) < 0 || name(c, run, "condition", 0) < 0 ||
      name(c, run, "workload", 0) < 0 || num(c, run, "repeat", INTEGER, 0, (double)repeats - 1) < 0 ||
      rel_path(c, run, "fio_json") < 0 || num(c, run, "duration_s", OPTIONAL | NULLABLE, 0, INFINITY) < 0 ||
      ops_check(c, run, workload_kind_of(j, json_string_value(json_object_get(run, "workload")))) < 0 ||
      ceph_check(c, run) < 0 || num(c, run, "fio_failed_jobs", OPTIONAL | INTEGER, 0, INFINITY) < 0 ||
      num(c, run, "device_bytes_written", OPTIONAL | NULLABLE | INTEGER, 0, INFINITY) < 0 ||
      num(c, run, "neighbour_rate", OPTIONAL | NULLABLE, 0, INFINITY) < 0 || roles_check(c, run) < 0 ||
      threads_check(c, run) < 0 || array(c, run, "cpu_busy", OPTIONAL, MAX_CPUS, "CPUs a node may have", &busy) < 0)
    return -1;
  json_array_foreach(busy, k, e) {
    size_t at = push(c, ".cpu_busy[%zu]", k);
    if (!json_is_null(e) && !json_is_number(e))
      return fail(c, "expected a number, got %s", type_name(e));
    if (json_is_number(e) && number_in(c, e, 0, 1) < 0)
      return -1;
    pop(c, at);
  }
  return 0;
}

static int solo_check(struct check *c, const json_t *solo, size_t repeats) {
  return element_object(c, solo) < 0 || name(c, solo, "variant", 0) < 0 || name(c, solo, "condition", 0) < 0 ||
                 num(c, solo, "repeat", INTEGER, 0, (double)repeats - 1) < 0 ||
                 num(c, solo, "neighbour_rate", NULLABLE, 0, INFINITY) < 0
             ? -1
             : 0;
}

static int recovery_check(struct check *c, const json_t *j, size_t n_variants, size_t repeats) {
  const json_t *rec, *runs, *e;
  size_t i;
  if (typed(c, j, "recovery", JSON_OBJECT, OPTIONAL | NULLABLE, &rec) < 0)
    return -1;
  if (rec == NULL)
    return 0;
  size_t at = push_key(c, "recovery");
  const json_t *s;
  if (typed(c, rec, "action", JSON_STRING, 0, &s) < 0 || name(c, rec, "daemon", 0) < 0 ||
      name(c, rec, "workload", 0) < 0 || num(c, rec, "at_s", OPTIONAL | NULLABLE, 0, INFINITY) < 0 ||
      num(c, rec, "down_s", OPTIONAL | NULLABLE, 0, INFINITY) < 0 ||
      array(c, rec, "runs", OPTIONAL, n_variants * repeats, "recovery runs of the study (a variant's per repeat)",
            &runs) < 0)
    return -1;
  if (strcmp(json_string_value(s), "kill") != 0 && strcmp(json_string_value(s), "out") != 0)
    return fail(c, "action '%s' is neither kill nor out", json_string_value(s));
  static const char *const times[] = { "detect_s",    "down_s",      "recovery_s", "total_s",
                                       "iops_before", "iops_during", "iops_min",   "degraded_peak" };
  json_array_foreach(runs, i, e) {
    size_t at_run = push(c, ".runs[%zu]", i);
    const json_t *roles, *x;
    size_t k;
    if (element_object(c, e) < 0 || name(c, e, "variant", 0) < 0 ||
        num(c, e, "repeat", INTEGER, 0, (double)repeats - 1) < 0 || rel_path(c, e, "fio_json") < 0 ||
        rel_path(c, e, "watch_log") < 0 ||
        array(c, e, "roles", OPTIONAL, MAX_ROLES, "instances a run may sample", &roles) < 0)
      return -1;
    for (size_t t = 0; t < N_OF(times); t++)
      if (num(c, e, times[t], OPTIONAL | NULLABLE, 0, INFINITY) < 0)
        return -1;
    json_array_foreach(roles, k, x) {
      size_t at_role = push(c, ".roles[%zu]", k);
      if (element_object(c, x) < 0 || name(c, x, "instance", 0) < 0 || name(c, x, "role", 0) < 0 ||
          num(c, x, "rss_before_bytes", OPTIONAL | INTEGER, 0, INFINITY) < 0 ||
          num(c, x, "rss_peak_bytes", OPTIONAL | INTEGER, 0, INFINITY) < 0)
        return -1;
      pop(c, at_role);
    }
    pop(c, at_run);
  }
  pop(c, at);
  return 0;
}

/* The study's shape and counts, which --resume takes over (the study file,
 * repeats, warm-up, runtime): within what a study file may say, so that a
 * -1 never reaches fio as a 136-year runtime. */
static int study_check(struct check *c, const json_t *j) {
  const json_t *st, *file;
  if (typed(c, j, "study", JSON_OBJECT, OPTIONAL | NULLABLE, &st) < 0)
    return -1;
  if (st == NULL)
    return 0;
  size_t at = push_key(c, "study");
  if (typed(c, st, "study_file", JSON_STRING, OPTIONAL | NULLABLE, &file) < 0 ||
      num(c, st, "repeats", OPTIONAL | INTEGER, 1, PLACER_BENCH_MAX_REPEATS) < 0 ||
      num(c, st, "repeats_max", OPTIONAL | INTEGER, 1, PLACER_BENCH_MAX_REPEATS) < 0 ||
      num(c, st, "warmup", OPTIONAL | INTEGER, 0, PLACER_BENCH_MAX_WARMUP) < 0 ||
      num(c, st, "runtime_s", OPTIONAL | INTEGER, 1, PLACER_BENCH_MAX_RUNTIME_S) < 0 ||
      num(c, st, "ramp_s", OPTIONAL | INTEGER, 0, PLACER_BENCH_MAX_RAMP_S) < 0 ||
      num(c, st, "ci_width", OPTIONAL | NULLABLE, 0, 1) < 0)
    return -1;
  if (file) {
    const char *s = json_string_value(file);
    size_t at_f = push_key(c, "study_file");
    bool bad = s[0] != '/' || json_string_length(file) != strlen(s) || strlen(s) > 4096;
    for (const char *p = s; !bad && *p; p++)
      bad = (unsigned char)*p < 0x20 || *p == 0x7f;
    if (bad)
      return fail(c, "'%.200s' is not a study file's absolute path", s);
    pop(c, at_f);
  }
  const json_t *rep = json_object_get(st, "repeats"), *rep_max = json_object_get(st, "repeats_max");
  if (rep && rep_max && json_integer_value(rep_max) < json_integer_value(rep)) {
    push_key(c, "repeats_max");
    return fail(c, "%lld is less than repeats (%lld)", (long long)json_integer_value(rep_max),
                (long long)json_integer_value(rep));
  }
  pop(c, at);
  return 0;
}

/* What --resume takes over: the hardware baseline's figures and the CSV
 * files' sizes. */
static int baseline_check(struct check *c, const json_t *j) {
  const json_t *hb, *runs, *e, *sizes;
  size_t i;
  if (typed(c, j, "hardware_baseline", JSON_OBJECT, OPTIONAL | NULLABLE, &hb) < 0 ||
      typed(c, j, "csv_bytes", JSON_OBJECT, OPTIONAL | NULLABLE, &sizes) < 0)
    return -1;
  const char *key;
  json_object_foreach((json_t *)sizes, key, e) {
    size_t at = push(c, "csv_bytes.%s", key);
    if (!json_is_integer(e) || json_integer_value(e) < 0)
      return fail(c, "expected a size in bytes, got %s", type_name(e));
    pop(c, at);
  }
  if (hb == NULL)
    return 0;
  size_t at = push_key(c, "hardware_baseline");
  if (array(c, hb, "workloads", OPTIONAL, PLACER_BENCH_MAX, "workloads a study may have", &runs) < 0)
    return -1;
  static const char *const figures[] = { "read_iops", "write_iops", "read_bw_bytes", "write_bw_bytes" };
  json_array_foreach(runs, i, e) {
    size_t at_w = push(c, ".workloads[%zu]", i);
    if (element_object(c, e) < 0 || name(c, e, "workload", 0) < 0)
      return -1;
    for (size_t k = 0; k < N_OF(figures); k++)
      if (num(c, e, figures[k], 0, 0, INFINITY) < 0)
        return -1;
    pop(c, at_w);
  }
  pop(c, at);
  return 0;
}

/* split.parameter: a placement sweep's knob (quota, cores, weight), which
 * the report and size read as one: never the intensity, never another word. */
static int split_parameter_check(struct check *c, const json_t *split) {
  const char *p = json_string_value(json_object_get(split, "parameter"));
  for (size_t i = 1; placer_bench_sweep_parameter_names[i]; i++)
    if (strcmp(p, placer_bench_sweep_parameter_names[i]) == 0)
      return 0;
  size_t at = push_key(c, "parameter");
  int rc = fail(c, "'%s' is not a split sweep's parameter (quota, cores, weight)", p);
  pop(c, at);
  return rc;
}

/* A workload that is a load step of a response curve: its curve's name and
 * its load, { "name": iodepth | numjobs | rate_iops, "value" > 0 }, both or
 * neither. */
static int load_step_check(struct check *c, const json_t *e) {
  const json_t *load;
  if (name(c, e, "curve", OPTIONAL) < 0 || typed(c, e, "load", JSON_OBJECT, OPTIONAL, &load) < 0)
    return -1;
  if ((json_object_get(e, "curve") != NULL) != (load != NULL))
    return fail(c, "a load step has both \"curve\" and \"load\"");
  if (load == NULL)
    return 0;
  size_t at = push_key(c, "load");
  if (name(c, load, "name", 0) < 0 || num(c, load, "value", 0, 1, 1e12) < 0)
    return -1;
  const char *n = json_string_value(json_object_get(load, "name"));
  if (strcmp(n, "iodepth") != 0 && strcmp(n, "numjobs") != 0 && strcmp(n, "rate_iops") != 0) {
    push_key(c, "name");
    return fail(c, "'%s' is not what a load step sets (iodepth, numjobs, rate_iops)", n);
  }
  pop(c, at);
  return 0;
}

/* The steps of one curve set the same thing, each to another value: a
 * curve's loads strictly increase once sorted. */
static int curves_shape_check(struct check *c, const json_t *workloads) {
  const json_t *a, *b;
  size_t i, k;
  json_array_foreach(workloads, i, a) {
    const char *ca = json_string_value(json_object_get(a, "curve"));
    for (k = 0; ca && k < i; k++) {
      b = json_array_get(workloads, k);
      const char *cb = json_string_value(json_object_get(b, "curve"));
      if (cb == NULL || strcmp(ca, cb) != 0)
        continue;
      const json_t *la = json_object_get(a, "load"), *lb = json_object_get(b, "load");
      size_t at = push(c, "workloads[%zu].load", i);
      if (strcmp(json_string_value(json_object_get(la, "name")), json_string_value(json_object_get(lb, "name"))) != 0)
        return fail(c, "curve '%s' steps by %s here and by %s at workloads[%zu]", ca,
                    json_string_value(json_object_get(la, "name")), json_string_value(json_object_get(lb, "name")), k);
      if (json_number_value(json_object_get(la, "value")) == json_number_value(json_object_get(lb, "value")))
        return fail(c, "curve '%s' has the step %g twice (workloads[%zu])", ca,
                    json_number_value(json_object_get(la, "value")), k);
      pop(c, at);
    }
  }
  return 0;
}

/* "slo": the targets (ns, more than 0), where to hold them, the
 * neighbours' share; "storage_cpus": per variant, the CPUs storage is
 * given, or null. */
static int slo_check(struct check *c, const json_t *j, size_t nv) {
  const json_t *slo, *cpus, *e;
  size_t i;
  if (typed(c, j, "slo", JSON_OBJECT, OPTIONAL | NULLABLE, &slo) < 0 ||
      array(c, j, "storage_cpus", OPTIONAL, nv, "variants of the study (one each)", &cpus) < 0)
    return -1;
  if (slo) {
    size_t at = push_key(c, "slo");
    static const char *const targets[] = { "p50_ns", "p99_ns", "p999_ns", "at_rate" };
    for (i = 0; i < N_OF(targets); i++)
      if (num(c, slo, targets[i], OPTIONAL | NULLABLE, 1e-9, INFINITY) < 0)
        return -1;
    if (num(c, slo, "keep", OPTIONAL | NULLABLE, 1e-9, 1) < 0 || name(c, slo, "at", OPTIONAL | NULLABLE) < 0)
      return -1;
    const char *a = json_string_value(json_object_get(slo, "at"));
    bool rate = a && (strcmp(a, "iops") == 0 || strcmp(a, "bytes_per_s") == 0);
    if (a && !rate && strcmp(a, "knee") != 0) {
      push_key(c, "at");
      return fail(c, "'%s' is not where an SLO holds (knee, iops, bytes_per_s)", a);
    }
    if (rate != json_is_number(json_object_get(slo, "at_rate")))
      return fail(c, "\"at_rate\" goes with \"at\" iops or bytes_per_s, and only with them");
    pop(c, at);
  }
  if (cpus && json_array_size(cpus) != nv) {
    push_key(c, "storage_cpus");
    return fail(c, "%zu entries, but the study has %zu variants", json_array_size(cpus), nv);
  }
  json_array_foreach(cpus, i, e) {
    size_t at = push(c, "storage_cpus[%zu]", i);
    if (!json_is_null(e) && !json_is_number(e))
      return fail(c, "expected a number or null, got %s", type_name(e));
    if (json_is_number(e) && number_in(c, e, 1e-9, MAX_CPUS) < 0)
      return -1;
    pop(c, at);
  }
  return 0;
}

/* A workload: a block one's pattern and block size; its kind, one of the
 * kinds (absent: block); a metadata one's tree within what a study may say. */
static bool workload_check(struct check *c, const json_t *w) {
  const json_t *kind;
  if (name(c, w, "pattern", OPTIONAL) < 0 || num(c, w, "block_size_bytes", OPTIONAL | INTEGER, 0, INFINITY) < 0 ||
      typed(c, w, "kind", JSON_STRING, OPTIONAL, &kind) < 0 ||
      num(c, w, "files", OPTIONAL | INTEGER, 0, PLACER_BENCH_MAX_FILES) < 0 ||
      num(c, w, "directories", OPTIONAL | INTEGER, 0, PLACER_BENCH_MAX_JOBS) < 0 ||
      num(c, w, "jobs", OPTIONAL | INTEGER, 0, PLACER_BENCH_MAX_JOBS) < 0)
    return true;
  for (size_t k = 0; kind && placer_bench_workload_kind_names[k]; k++)
    if (strcmp(json_string_value(kind), placer_bench_workload_kind_names[k]) == 0)
      return false;
  if (kind == NULL)
    return false;
  size_t at = push_key(c, "kind");
  fail(c, "'%s' is not a workload kind (block, metadata)", json_string_value(kind));
  pop(c, at);
  return true;
}

/* The names of VARIANTS (strings) or of WORKLOADS/CONDITIONS (objects). */
static int shape_list(struct check *c, const json_t *j, const char *key, bool objects, size_t *n) {
  const json_t *list, *e;
  size_t i;
  if (array(c, j, key, 0, PLACER_BENCH_MAX, "a study may have", &list) < 0)
    return -1;
  if (json_array_size(list) == 0) {
    size_t at = push_key(c, key);
    int rc = fail(c, "empty (a study has at least one)");
    pop(c, at);
    return rc;
  }
  json_array_foreach(list, i, e) {
    size_t at = push(c, "%s[%zu]", key, i);
    if (!objects
            ? name_ok(c, e, false) < 0
            : element_object(c, e) < 0 || name(c, e, "name", 0) < 0 ||
                  (strcmp(key, "workloads") == 0 ? workload_check(c, e) || load_step_check(c, e) < 0
                                                 : num(c, e, "neighbour_level", OPTIONAL | NULLABLE, 0, INFINITY) < 0))
      return -1;
    pop(c, at);
  }
  *n = json_array_size(list);
  return strcmp(key, "workloads") == 0 ? curves_shape_check(c, list) : 0;
}

int placer_bench_results_check(const json_t *j, struct placer_error **err) {
  struct check c = { .err = err };
  if (!json_is_object(j))
    return fail(&c, "expected an object, got %s", type_name(j));
  const char *format = json_string_value(json_object_get(j, "format"));
  const json_t *version = json_object_get(j, "version");
  if (format == NULL || strcmp(format, PLACER_BENCH_RESULTS_FORMAT) != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "\"format\" is not \"%s\" (not the results of placer bench)",
                            PLACER_BENCH_RESULTS_FORMAT);
  if (!json_is_integer(version) || json_integer_value(version) != PLACER_BENCH_RESULTS_VERSION)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "version %lld, expected %d",
                            json_is_integer(version) ? (long long)json_integer_value(version) : -1LL,
                            PLACER_BENCH_RESULTS_VERSION);
  const json_t *v, *runs, *solo, *neighbour, *sweep, *split, *e;
  size_t nv = 0, nw = 0, nc = 0, i;
  if (typed(&c, j, "title", JSON_STRING, OPTIONAL | NULLABLE, &v) < 0 ||
      typed(&c, j, "interrupted", JSON_TRUE, OPTIONAL, &v) < 0 ||
      typed(&c, j, "stop_reason", JSON_STRING, OPTIONAL | NULLABLE, &v) < 0 ||
      name(&c, j, "storage_role", OPTIONAL | EMPTY) < 0 || num(&c, j, "repeats", INTEGER, 1, PLACER_BENCH_MAX) < 0 ||
      shape_list(&c, j, "variants", false, &nv) < 0 || shape_list(&c, j, "workloads", true, &nw) < 0 ||
      shape_list(&c, j, "conditions", true, &nc) < 0 || typed(&c, j, "neighbour", JSON_OBJECT, 0, &neighbour) < 0 ||
      num(&c, j, "node_cpus", OPTIONAL | NULLABLE, 1, MAX_CPUS) < 0 || slo_check(&c, j, nv) < 0)
    return -1;
  const json_t *alpha;
  if (typed(&c, j, "alpha", JSON_REAL, OPTIONAL, &alpha) < 0)
    return -1;
  if (alpha) { /* absent before alpha was a study key: 0.05 */
    size_t at_a = push_key(&c, "alpha");
    double x = json_number_value(alpha);
    if (!(x > 0 && x <= 0.5))
      return fail(&c, "%g is not a significance level in (0, 0.5]", x);
    pop(&c, at_a);
  }
  size_t repeats = (size_t)json_integer_value(json_object_get(j, "repeats"));
  if (num(&c, j, "repeats_run", OPTIONAL | NULLABLE | INTEGER, 1, (double)repeats) < 0)
    return -1;
  size_t at = push_key(&c, "neighbour");
  static const char *const texts[] = { "name", "unit", "level_unit", "role" };
  for (size_t k = 0; k < N_OF(texts); k++)
    if (name(&c, neighbour, texts[k], OPTIONAL | NULLABLE | EMPTY) < 0)
      return -1;
  pop(&c, at);
  if (typed(&c, j, "sweep", JSON_OBJECT, OPTIONAL | NULLABLE, &sweep) < 0 ||
      typed(&c, j, "split", JSON_OBJECT, OPTIONAL | NULLABLE, &split) < 0)
    return -1;
  if (sweep) {
    at = push_key(&c, "sweep");
    if (name(&c, sweep, "workload", 0) < 0 || num(&c, sweep, "storage_min_fraction", NULLABLE, 0, 1) < 0 ||
        num(&c, sweep, "neighbour_min_fraction", NULLABLE, 0, 1) < 0)
      return -1;
    pop(&c, at);
  }
  if (split) {
    const json_t *knobs;
    at = push_key(&c, "split");
    if (name(&c, split, "parameter", 0) < 0 || split_parameter_check(&c, split) < 0 ||
        name(&c, split, "workload", 0) < 0 || name(&c, split, "from", OPTIONAL) < 0 ||
        num(&c, split, "storage_min_fraction", NULLABLE, 0, 1) < 0 ||
        array(&c, split, "knobs", 0, nv, "variants of the study (a knob each)", &knobs) < 0)
      return -1;
    if (json_array_size(knobs) != nv)
      return fail(&c, "knobs: %zu, but the study has %zu variants", json_array_size(knobs), nv);
    const char *from = json_string_value(json_object_get(split, "from"));
    bool known = from == NULL;
    for (i = 0; !known && i < nv; i++)
      known = strcmp(json_string_value(json_array_get(json_object_get(j, "variants"), i)), from) == 0;
    if (!known) {
      push(&c, ".from");
      return fail(&c, "'%s' is not one of the variants", from);
    }
    json_array_foreach(knobs, i, e) {
      size_t at_k = push(&c, ".knobs[%zu]", i);
      if (!json_is_null(e) && !json_is_number(e))
        return fail(&c, "expected a number or null, got %s", type_name(e));
      if (json_is_number(e) && number_in(&c, e, 0, INFINITY) < 0)
        return -1;
      pop(&c, at_k);
    }
    pop(&c, at);
  }
  /* A run per variant, condition, workload and repeat at most: a longer
   * list repeats a run or names one the study does not have. */
  char why[160];
  snprintf(why, sizeof(why), "runs of the study (%zu variants x %zu conditions x %zu workloads x %zu repeats)", nv, nc,
           nw, repeats);
  if (array(&c, j, "runs", 0, nv * nc * nw * repeats, why, &runs) < 0)
    return -1;
  json_array_foreach(runs, i, e) {
    at = push(&c, "runs[%zu]", i);
    if (run_check(&c, j, e, repeats) < 0)
      return -1;
    pop(&c, at);
  }
  snprintf(why, sizeof(why), "solo rates of the study (%zu variants x %zu conditions x %zu repeats)", nv, nc, repeats);
  if (array(&c, j, "solo", OPTIONAL, nv * nc * repeats, why, &solo) < 0)
    return -1;
  json_array_foreach(solo, i, e) {
    at = push(&c, "solo[%zu]", i);
    if (solo_check(&c, e, repeats) < 0)
      return -1;
    pop(&c, at);
  }
  return recovery_check(&c, j, nv, repeats) < 0 || baseline_check(&c, j) < 0 || study_check(&c, j) < 0 ? -1 : 0;
}
