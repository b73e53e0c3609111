/* Bench studies: the YAML schema as key tables for the walker in
 * profile-yaml.c, defaults, and the checks that span several keys.
 * docs/bench.md ("The study file") describes every key; keep the two in step. */
#include "bench/study.h"
#include "lib/datafile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/array.h"
#include "bench/fio-options.h"
#include "bench/target.h"
#include "report/report.h" /* placer_bench_format_block_size */
#include "results/results.h"
#include "profile-yaml.h"
#include "lib/units.h"

#define GIB (UINT64_C(1) << 30)

static const char *const cluster_names[] = {
  [PLACER_STUDY_CLUSTER_LOCAL] = "local",
  [PLACER_STUDY_CLUSTER_EXISTING] = "existing",
  [PLACER_STUDY_CLUSTER_NONE] = "none",
  NULL,
};
static const char *const neighbour_kind_names[] = {
  [PLACER_STUDY_NEIGHBOUR_STRESS_NG] = "stress-ng",
  [PLACER_STUDY_NEIGHBOUR_VM] = "vm",
  NULL,
};
static const char *const backend_names[] = {
  [PLACER_STUDY_BACKEND_EXEC] = "exec",
  [PLACER_STUDY_BACKEND_PODMAN] = "podman",
  NULL,
};
static const char *const rebuild_names[] = {
  [PLACER_STUDY_REBUILD_AUTO] = "auto",
  [PLACER_STUDY_REBUILD_PER_VARIANT] = "per-variant",
  [PLACER_STUDY_REBUILD_NEVER] = "never",
  NULL,
};

bool placer_study_sweeps_placement(const struct placer_study *s) {
  return s->sweep.enabled && s->sweep.parameter != PLACER_STUDY_SWEEP_INTENSITY;
}

const char *placer_study_sweep_parameter_name(int parameter) {
  return parameter >= 0 && parameter <= PLACER_STUDY_SWEEP_WEIGHT
             ? placer_bench_sweep_parameter_names[parameter] /* by enum placer_study_sweep_parameter */
             : "?";
}

/* fio rw= values placer knows how to report. */
static const char *const pattern_names[] = {
  "read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite", NULL,
};

const char *placer_study_cluster_name(enum placer_study_cluster_type t) {
  return t <= PLACER_STUDY_CLUSTER_NONE ? cluster_names[t] : "?";
}
const char *placer_study_target_name(enum placer_study_target t) {
  return bench_target(t)->name;
}
const char *placer_study_neighbour_kind_name(enum placer_study_neighbour_kind k) {
  return k <= PLACER_STUDY_NEIGHBOUR_VM ? neighbour_kind_names[k] : "?";
}

const char *placer_study_recovery_action_name(int action) {
  return action == PLACER_STUDY_RECOVERY_OUT ? "out" : "kill";
}

static size_t seq_len(const yaml_node_t *v) {
  return (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
}

static yaml_node_t *seq_item(struct pyaml_walk *w, const yaml_node_t *v, size_t i) {
  return yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
}

static int oom(struct pyaml_walk *w) {
  return placer_error_oom(w->err, "parse study");
}

/* 1 when NAME is one of the study's workloads ("4k-randwrite"), 0 when not, -1 out of memory. */
static int has_workload(const struct placer_study *s, const char *name) {
  for (size_t i = 0; i < placer_study_n_workloads(s); i++) {
    char *wname = NULL;
    uint64_t bs;
    const char *pattern;
    if (placer_study_workload(s, i, &wname, &bs, &pattern) < 0)
      return -1;
    bool same = strcmp(wname, name) == 0;
    free(wname);
    if (same)
      return 1;
  }
  return 0;
}

/* ---- custom value parsers ---- */

static int parse_version(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  unsigned long long value;
  const char *why;
  if (pyaml_walk_parse_uint(v, 1000, &value, &why) < 0)
    return pyaml_walk_key_error(w, v, f->key, "%s", why);
  if (value != PLACER_STUDY_VERSION)
    return pyaml_walk_key_error(w, v, f->key, "unsupported study version %llu (this placer reads version %d)", value,
                                PLACER_STUDY_VERSION);
  return 0;
}

/* "90%" or 0.9, in (0, 1]. */
static int parse_fraction(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  double *slot = (double *)((char *)target + f->offset);
  if (!pyaml_walk_is_plain(v))
    return pyaml_walk_key_error(w, v, f->key, "expected a fraction such as 0.9 or 90%%");
  const char *s = pyaml_walk_scalar(v);
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || errno)
    return pyaml_walk_key_error(w, v, f->key, "expected a fraction such as 0.9 or 90%%, got '%s'", s);
  if (*end == '%') {
    x /= 100.0;
    end++;
  }
  if (*end != '\0' || !(x > 0.0 && x <= 1.0))
    return pyaml_walk_key_error(w, v, f->key, "expected a fraction in (0, 1] such as 0.9 or 90%%, got '%s'", s);
  *slot = x;
  return 0;
}

/* A fraction (parse_fraction) into *X rather than into a field. */
static int parse_fraction_value(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, double *x) {
  struct pyaml_field ff = *f;
  ff.offset = 0;
  return parse_fraction(w, &ff, v, x);
}

/* The verdicts' significance level: 0.05 or 5%, in (0, 0.5]. */
static int parse_alpha(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *st = target;
  double x = 0;
  if (parse_fraction_value(w, f, v, &x) < 0)
    return -1;
  if (x > 0.5)
    return pyaml_walk_key_error(w, v, f->key, "expected a significance level in (0, 0.5] such as 0.05, got '%s'",
                                pyaml_walk_scalar(v));
  st->alpha = x;
  return 0;
}

/* A stress-ng worker's duty cycle: "50%" or 0.5, whole percent 1..100. */
static int parse_load(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_neighbour *nb = target;
  double x = 0;
  if (parse_fraction_value(w, f, v, &x) < 0)
    return -1;
  double pct = x * 100.0;
  if (pct < 1.0 || fabs(pct - round(pct)) > 1e-9)
    return pyaml_walk_key_error(w, v, f->key, "expected a whole percent 1%%..100%% such as 50%%, got '%s'",
                                pyaml_walk_scalar(v));
  nb->load_percent = (unsigned)round(pct);
  return 0;
}

static int parse_block_sizes(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  if (v->type != YAML_SEQUENCE_NODE || seq_len(v) == 0)
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty list of sizes such as [4K, 128K, 4M]");
  size_t n = seq_len(v);
  free(wl->block_sizes);
  wl->n_block_sizes = 0;
  wl->block_sizes = calloc(n, sizeof(*wl->block_sizes));
  if (wl->block_sizes == NULL)
    return oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = seq_item(w, v, i);
    uint64_t bytes;
    const char *why;
    if (!pyaml_walk_is_scalar(item) || placer_parse_bytes(pyaml_walk_scalar(item), &bytes, &why) < 0)
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: expected a size such as 4K or 4M", i);
    if (bytes < 512 || bytes % 512 != 0 || bytes > (UINT64_C(1) << 30))
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: '%s': a block size is a multiple of 512 bytes, at most 1G",
                                  i, pyaml_walk_scalar(item));
    for (size_t j = 0; j < i; j++)
      if (wl->block_sizes[j] == bytes)
        return pyaml_walk_key_error(w, item, f->key, "[%zu]: block size '%s' is listed twice", i,
                                    pyaml_walk_scalar(item));
    wl->block_sizes[wl->n_block_sizes++] = bytes;
  }
  return 0;
}

static int parse_patterns(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  if (v->type != YAML_SEQUENCE_NODE || seq_len(v) == 0)
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty list such as [randwrite, randread]");
  placer_string_list_free(&wl->patterns);
  size_t n = seq_len(v);
  wl->patterns.items = calloc(n, sizeof(char *));
  if (wl->patterns.items == NULL)
    return oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = seq_item(w, v, i);
    const char *s = pyaml_walk_is_scalar(item) ? pyaml_walk_scalar(item) : "";
    bool known = false;
    for (size_t k = 0; pattern_names[k] && !known; k++)
      known = strcmp(pattern_names[k], s) == 0;
    if (!known)
      return pyaml_walk_key_error(w, item, f->key,
                                  "[%zu]: unknown pattern '%s' (read, write, randread, randwrite, rw, randrw, trim, "
                                  "randtrim, trimwrite)",
                                  i, s);
    for (size_t j = 0; j < i; j++)
      if (strcmp(wl->patterns.items[j], s) == 0)
        return pyaml_walk_key_error(w, item, f->key, "[%zu]: pattern '%s' is listed twice", i, s);
    if ((wl->patterns.items[i] = strdup(s)) == NULL)
      return oom(w);
    wl->patterns.n = i + 1;
  }
  return 0;
}

/* Positive decimals, ascending and distinct; what they mean is checked
 * with the parameter (check_sweep). */
static int parse_sweep_values(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_sweep *sw = target;
  if (v->type != YAML_SEQUENCE_NODE || seq_len(v) == 0)
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty list of values such as [1, 2, 4]");
  size_t n = seq_len(v);
  free(sw->steps);
  free(sw->step_line);
  free(sw->step_column);
  sw->n_steps = 0;
  sw->steps = calloc(n, sizeof(*sw->steps));
  sw->step_line = calloc(n, sizeof(*sw->step_line));
  sw->step_column = calloc(n, sizeof(*sw->step_column));
  if (sw->steps == NULL || sw->step_line == NULL || sw->step_column == NULL)
    return oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = seq_item(w, v, i);
    const char *t = pyaml_walk_is_plain(item) ? pyaml_walk_scalar(item) : "";
    char *end;
    errno = 0;
    double x = strtod(t, &end);
    /* the range is the parameter's, checked with it (check_sweep) */
    if (end == t || *end || errno || !(x > 0) || !isfinite(x))
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: expected a positive number, got '%s'", i, t);
    if (i > 0 && x <= sw->steps[i - 1])
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: values must be distinct and ascending", i);
    sw->step_line[sw->n_steps] = (unsigned)item->start_mark.line + 1;
    sw->step_column[sw->n_steps] = (unsigned)item->start_mark.column + 1;
    sw->steps[sw->n_steps++] = x;
  }
  return 0;
}

/* repeats: N, or { min: N, max: M, ci_width: 5% }. */
static int parse_repeats(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *st = target;
  if (v->type != YAML_MAPPING_NODE) {
    unsigned long long x;
    const char *why;
    if (pyaml_walk_parse_uint(v, PLACER_BENCH_MAX_REPEATS, &x, &why) < 0 || x == 0)
      return pyaml_walk_key_error(w, v, f->key, "expected 1..%d or {min: N, max: M, ci_width: 5%%}",
                                  PLACER_BENCH_MAX_REPEATS);
    st->repeats = st->repeats_max = (unsigned)x;
    st->ci_width = 0;
    st->repeats_line = (unsigned)v->start_mark.line + 1;
    st->repeats_column = (unsigned)v->start_mark.column + 1;
    return 0;
  }
  yaml_node_t *mn = pyaml_walk_lookup(w, v, "min"), *mx = pyaml_walk_lookup(w, v, "max"),
              *cw = pyaml_walk_lookup(w, v, "ci_width");
  for (yaml_node_pair_t *pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, pr->key);
    const char *ks = k && pyaml_walk_is_scalar(k) ? pyaml_walk_scalar(k) : "";
    if (strcmp(ks, "min") && strcmp(ks, "max") && strcmp(ks, "ci_width"))
      return pyaml_walk_key_error(w, k, f->key, "unknown key '%s' (min, max, ci_width)", ks);
  }
  unsigned long long lo = 5, hi = 20;
  const char *why;
  if (mn && (pyaml_walk_parse_uint(mn, PLACER_BENCH_MAX_REPEATS, &lo, &why) < 0 || lo < 2))
    return pyaml_walk_key_error(w, mn, "repeats.min", "expected 2..%d", PLACER_BENCH_MAX_REPEATS);
  if (mx && (pyaml_walk_parse_uint(mx, PLACER_BENCH_MAX_REPEATS, &hi, &why) < 0 || hi < lo))
    return pyaml_walk_key_error(w, mx, "repeats.max", "expected min..%d", PLACER_BENCH_MAX_REPEATS);
  double width = 0.05;
  if (cw) {
    struct pyaml_field ff = { .key = "repeats.ci_width", .offset = 0 };
    if (parse_fraction(w, &ff, cw, &width) < 0)
      return -1;
  }
  st->repeats = (unsigned)lo;
  st->repeats_max = (unsigned)hi;
  st->ci_width = width;
  const yaml_node_t *at = mn ? mn : v; /* the dynamic minimum is what a verdict may be given on */
  st->repeats_line = (unsigned)at->start_mark.line + 1;
  st->repeats_column = (unsigned)at->start_mark.column + 1;
  return 0;
}

#define CLUSTER_AT(field) offsetof(struct placer_study_cluster, field)
#define VARIANT_AT(field) offsetof(struct placer_study_variant, field)
#define WORKLOADS_AT(field) offsetof(struct placer_study_workloads, field)
#define NEIGHBOUR_AT(field) offsetof(struct placer_study_neighbour, field)
#define BASELINE_AT(field) offsetof(struct placer_study_baseline, field)
#define SWEEP_AT(field) offsetof(struct placer_study_sweep, field)
#define STUDY_AT(field) offsetof(struct placer_study, field)

static const struct pyaml_field cluster_fields[] = {
  { .key = "type", .type = PYAML_FIELD_ENUM, .offset = CLUSTER_AT(type), .names = cluster_names },
  { .key = "osds", .type = PYAML_FIELD_UINT, .offset = CLUSTER_AT(osds), .min = 1, .max = 64 },
  { .key = "mds", .type = PYAML_FIELD_BOOL, .offset = CLUSTER_AT(mds) },
  { .key = "osd_size", .type = PYAML_FIELD_SIZE, .offset = CLUSTER_AT(osd_size_bytes), .min = 1 },
  { .key = "image_size", .type = PYAML_FIELD_SIZE, .offset = CLUSTER_AT(image_size_bytes), .min = 1 },
  { .key = "extra_conf", .type = PYAML_FIELD_STRING, .offset = CLUSTER_AT(extra_conf) },
  { .key = "timeout", .type = PYAML_FIELD_UINT, .offset = CLUSTER_AT(timeout_s), .min = 10, .max = 3600 },
  { .key = "conf", .type = PYAML_FIELD_STRING, .offset = CLUSTER_AT(conf) },
  { .key = "keyring", .type = PYAML_FIELD_STRING, .offset = CLUSTER_AT(keyring) },
  { .key = "client", .type = PYAML_FIELD_STRING, .offset = CLUSTER_AT(client) },
  { .key = "pool", .type = PYAML_FIELD_STRING, .offset = CLUSTER_AT(pool) },
  { .key = "image", .type = PYAML_FIELD_STRING, .offset = CLUSTER_AT(image) },
  { .key = "devices", .type = PYAML_FIELD_STRING_LIST, .offset = CLUSTER_AT(devices) },
  { .key = "rebuild", .type = PYAML_FIELD_ENUM, .offset = CLUSTER_AT(rebuild), .names = rebuild_names },
};
static const struct pyaml_schema cluster_schema = { "cluster", cluster_fields, N_OF(cluster_fields) };

static const struct pyaml_field variant_fields[] = {
  { .key = "name", .type = PYAML_FIELD_NAME, .offset = VARIANT_AT(name) },
  { .key = "profile", .type = PYAML_FIELD_STRING, .offset = VARIANT_AT(profile) },
  { .key = "env", .type = PYAML_FIELD_STRING_LIST, .offset = VARIANT_AT(env) },
  { .key = "fio_env", .type = PYAML_FIELD_BOOL, .offset = VARIANT_AT(fio_env) },
  { .key = "set", .type = PYAML_FIELD_STRING_LIST, .offset = VARIANT_AT(sets) },
};
static const struct pyaml_schema variant_schema = { "variant", variant_fields, N_OF(variant_fields) };

static const struct pyaml_field workloads_fields[] = {
  { .key = "target", .type = PYAML_FIELD_ENUM, .offset = WORKLOADS_AT(target), .names = bench_target_names },
  { .key = "path", .type = PYAML_FIELD_STRING, .offset = WORKLOADS_AT(path) },
  { .key = "size", .type = PYAML_FIELD_SIZE, .offset = WORKLOADS_AT(size_bytes), .min = 1 },
  { .key = "block_sizes", .type = PYAML_FIELD_CUSTOM, .parse = parse_block_sizes },
  { .key = "patterns", .type = PYAML_FIELD_CUSTOM, .parse = parse_patterns },
  { .key = "iodepth", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(iodepth), .min = 1, .max = 4096 },
  { .key = "numjobs", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(numjobs), .min = 1, .max = 256 },
  { .key = "runtime",
    .type = PYAML_FIELD_UINT,
    .offset = WORKLOADS_AT(runtime_s),
    .min = 1,
    .max = PLACER_BENCH_MAX_RUNTIME_S },
  { .key = "ramp", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(ramp_s), .max = PLACER_BENCH_MAX_RAMP_S },
  { .key = "prefill", .type = PYAML_FIELD_BOOL, .offset = WORKLOADS_AT(prefill) },
  { .key = "grace", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(grace_s), .min = 1, .max = 86400 },
  { .key = "fio_options", .type = PYAML_FIELD_STRING_LIST, .offset = WORKLOADS_AT(fio_options) },
  { .key = "write", .type = PYAML_FIELD_BOOL, .offset = WORKLOADS_AT(write) },
};
static const struct pyaml_schema workloads_schema = { "workloads", workloads_fields, N_OF(workloads_fields) };

static const struct pyaml_field neighbour_fields[] = {
  { .key = "name", .type = PYAML_FIELD_NAME, .offset = NEIGHBOUR_AT(name) },
  { .key = "role", .type = PYAML_FIELD_NAME, .offset = NEIGHBOUR_AT(role) },
  { .key = "kind", .type = PYAML_FIELD_ENUM, .offset = NEIGHBOUR_AT(kind), .names = neighbour_kind_names },
  { .key = "backend", .type = PYAML_FIELD_ENUM, .offset = NEIGHBOUR_AT(backend), .names = backend_names },
  { .key = "image", .type = PYAML_FIELD_STRING, .offset = NEIGHBOUR_AT(image) },
  { .key = "stressor", .type = PYAML_FIELD_NAME, .offset = NEIGHBOUR_AT(stressor) },
  { .key = "method", .type = PYAML_FIELD_NAME, .offset = NEIGHBOUR_AT(method) },
  { .key = "intensity", .type = PYAML_FIELD_UINT, .offset = NEIGHBOUR_AT(intensity), .min = 1, .max = 1024 },
  { .key = "load", .type = PYAML_FIELD_CUSTOM, .parse = parse_load },
  { .key = "kernel", .type = PYAML_FIELD_STRING, .offset = NEIGHBOUR_AT(kernel) },
  { .key = "initrd", .type = PYAML_FIELD_STRING, .offset = NEIGHBOUR_AT(initrd) },
  { .key = "memory", .type = PYAML_FIELD_SIZE, .offset = NEIGHBOUR_AT(memory_bytes), .min = 1 },
  { .key = "work_memory", .type = PYAML_FIELD_SIZE, .offset = NEIGHBOUR_AT(work_memory_bytes), .min = 1 },
};
static const struct pyaml_schema neighbour_schema = { "neighbour", neighbour_fields, N_OF(neighbour_fields) };

static const struct pyaml_field baseline_fields[] = {
  { .key = "path", .type = PYAML_FIELD_STRING, .offset = BASELINE_AT(path) },
  { .key = "size", .type = PYAML_FIELD_SIZE, .offset = BASELINE_AT(size_bytes), .min = 1 },
  { .key = "write", .type = PYAML_FIELD_BOOL, .offset = BASELINE_AT(write) },
};
static const struct pyaml_schema baseline_schema = { "hardware_baseline", baseline_fields, N_OF(baseline_fields) };

static const struct pyaml_field sweep_fields[] = {
  { .key = "parameter",
    .type = PYAML_FIELD_ENUM,
    .offset = SWEEP_AT(parameter),
    .names = placer_bench_sweep_parameter_names },
  { .key = "values", .type = PYAML_FIELD_CUSTOM, .parse = parse_sweep_values },
  { .key = "roles", .type = PYAML_FIELD_STRING_LIST, .offset = SWEEP_AT(roles) },
  { .key = "workload", .type = PYAML_FIELD_STRING, .offset = SWEEP_AT(workload) },
  { .key = "from", .type = PYAML_FIELD_NAME, .offset = SWEEP_AT(from) },
  { .key = "storage_min_fraction",
    .type = PYAML_FIELD_CUSTOM,
    .parse = parse_fraction,
    .offset = SWEEP_AT(storage_min_fraction) },
  { .key = "neighbour_min_fraction",
    .type = PYAML_FIELD_CUSTOM,
    .parse = parse_fraction,
    .offset = SWEEP_AT(neighbour_min_fraction) },
};
static const struct pyaml_schema sweep_schema = { "sweep", sweep_fields, N_OF(sweep_fields) };

static const char *const recovery_action_names[] = { "kill", "out", NULL };
#define RECOVERY_AT(field) offsetof(struct placer_study_recovery, field)
static const struct pyaml_field recovery_fields[] = {
  { .key = "action", .type = PYAML_FIELD_ENUM, .offset = RECOVERY_AT(action), .names = recovery_action_names },
  { .key = "osd", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(osd), .max = 1023 },
  { .key = "at", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(at_s), .min = 1, .max = 3600 },
  { .key = "down", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(down_s), .min = 1, .max = 3600 },
  { .key = "timeout", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(timeout_s), .min = 10, .max = 86400 },
  { .key = "workload", .type = PYAML_FIELD_STRING, .offset = RECOVERY_AT(workload) },
};
static const struct pyaml_schema recovery_schema = { "recovery", recovery_fields, N_OF(recovery_fields) };

static int parse_variants(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);
static int parse_neighbours(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);

static const struct pyaml_field study_fields[] = {
  { .key = "version", .type = PYAML_FIELD_CUSTOM, .parse = parse_version },
  { .key = "title", .type = PYAML_FIELD_STRING, .offset = STUDY_AT(title) },
  { .key = "cluster", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(cluster), .mapping = &cluster_schema },
  { .key = "variants", .type = PYAML_FIELD_CUSTOM, .parse = parse_variants },
  { .key = "workloads", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(workloads), .mapping = &workloads_schema },
  { .key = "neighbours", .type = PYAML_FIELD_CUSTOM, .parse = parse_neighbours },
  { .key = "hardware_baseline",
    .type = PYAML_FIELD_MAPPING,
    .offset = STUDY_AT(baseline),
    .mapping = &baseline_schema },
  { .key = "repeats", .type = PYAML_FIELD_CUSTOM, .parse = parse_repeats },
  { .key = "alpha", .type = PYAML_FIELD_CUSTOM, .parse = parse_alpha },
  { .key = "warmup", .type = PYAML_FIELD_UINT, .offset = STUDY_AT(warmup), .max = PLACER_BENCH_MAX_WARMUP },
  { .key = "sweep", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(sweep), .mapping = &sweep_schema },
  { .key = "recovery", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(recovery), .mapping = &recovery_schema },
};
static const struct pyaml_schema study_schema = { "study", study_fields, N_OF(study_fields) };

static int parse_variants(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *s = target;
  if (v->type != YAML_SEQUENCE_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a list of variants (name and profile)");
  size_t n = seq_len(v);
  if (n == 0)
    return pyaml_walk_key_error(w, v, f->key, "must list at least one variant");
  s->variants = calloc(n, sizeof(*s->variants));
  if (s->variants == NULL)
    return oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = seq_item(w, v, i);
    struct placer_study_variant *var = &s->variants[i];
    var->line = (unsigned)item->start_mark.line + 1;
    s->n_variants = i + 1;
    size_t saved = pyaml_walk_push(w, "%s[%zu]", f->key, i);
    int rc = pyaml_walk_mapping(w, item, &variant_schema, var);
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  return 0;
}

static void neighbour_defaults(struct placer_study_neighbour *nb) {
  nb->kind = PLACER_STUDY_NEIGHBOUR_STRESS_NG;
  nb->backend = PLACER_STUDY_BACKEND_EXEC;
  nb->intensity = 1;
  nb->memory_bytes = UINT64_C(256) << 20;
  nb->work_memory_bytes = UINT64_C(64) << 20;
}

static int parse_neighbours(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *s = target;
  if (v->type != YAML_SEQUENCE_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a list of neighbours");
  size_t n = seq_len(v);
  if (n == 0)
    return 0;
  s->neighbours = calloc(n, sizeof(*s->neighbours));
  if (s->neighbours == NULL)
    return oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = seq_item(w, v, i);
    struct placer_study_neighbour *nb = &s->neighbours[i];
    neighbour_defaults(nb);
    nb->line = (unsigned)item->start_mark.line + 1;
    s->n_neighbours = i + 1;
    size_t saved = pyaml_walk_push(w, "%s[%zu]", f->key, i);
    int rc = pyaml_walk_mapping(w, item, &neighbour_schema, nb);
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  return 0;
}

/* ---- defaults and checks across keys ---- */

static void study_defaults(struct placer_study *s) {
  s->cluster.type = PLACER_STUDY_CLUSTER_LOCAL;
  s->cluster.osd_size_bytes = 16 * GIB;
  s->cluster.image_size_bytes = 1 * GIB;
  s->cluster.timeout_s = 120;
  s->workloads.iodepth = 16;
  s->workloads.numjobs = 1;
  s->workloads.runtime_s = 10;
  s->workloads.ramp_s = 2;
  s->workloads.prefill = true;
  s->workloads.grace_s = 120;
  s->workloads.size_bytes = UINT64_C(256) << 20;
  s->repeats = 6; /* the least with which both tests can find a change significant at alpha 0.05 */
  s->repeats_max = 6;
  s->alpha = 0.05;
  s->warmup = 1;
  s->sweep.storage_min_fraction = 0.90;
  s->sweep.neighbour_min_fraction = 0.85;
  s->recovery.at_s = 3;
  s->recovery.down_s = 5;
  s->recovery.timeout_s = 300;
}

/* Every variant's knob starts undefined (not a sweep step). */
static void variants_defaults(struct placer_study *s) {
  for (size_t i = 0; i < s->n_variants; i++)
    s->variants[i].knob = NAN;
}

static int set_default(char **slot, const char *value) {
  if (*slot)
    return 0;
  *slot = strdup(value);
  return *slot ? 0 : -1;
}

/* The node of KEY below the mapping at PATH ("cluster"), for positions. */
static yaml_node_t *key_at(struct pyaml_walk *w, yaml_node_t *root, const char *section, const char *key) {
  yaml_node_t *m = section ? pyaml_walk_lookup(w, root, section) : root;
  return pyaml_walk_lookup_key(w, m, key);
}

static int key_error(struct pyaml_walk *w, yaml_node_t *root, const char *section, const char *key, const char *fmt,
                     ...) __attribute__((format(printf, 5, 6)));
static int key_error(struct pyaml_walk *w, yaml_node_t *root, const char *section, const char *key, const char *fmt,
                     ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  yaml_node_t *at = key_at(w, root, section, key);
  size_t saved = section ? pyaml_walk_push(w, "%s", section) : strlen(w->path);
  int rc = at ? pyaml_walk_key_error(w, at, key, "%s", msg)
              : pyaml_walk_error(
                    w, section && pyaml_walk_lookup(w, root, section) ? pyaml_walk_lookup(w, root, section) : root,
                    "%s", msg);
  pyaml_walk_pop(w, saved);
  return rc;
}

static const char *const local_only[] = { "osds", "mds", "osd_size", "image_size", "extra_conf", "timeout", NULL };

static int check_cluster(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  struct placer_study_cluster *c = &s->cluster;
  yaml_node_t *cn = pyaml_walk_lookup(w, root, "cluster");
  if (c->type != PLACER_STUDY_CLUSTER_LOCAL)
    for (size_t i = 0; local_only[i]; i++)
      if (pyaml_walk_lookup_key(w, cn, local_only[i]))
        return key_error(w, root, "cluster", local_only[i], "only goes with type local (this cluster is %s)",
                         placer_study_cluster_name(c->type));
  if (c->type != PLACER_STUDY_CLUSTER_EXISTING) {
    static const char *const existing_only[] = { "conf", "keyring", NULL };
    for (size_t i = 0; existing_only[i]; i++)
      if (pyaml_walk_lookup_key(w, cn, existing_only[i]))
        return key_error(w, root, "cluster", existing_only[i], "only goes with type existing");
  }
  if (c->type == PLACER_STUDY_CLUSTER_NONE) {
    static const char *const ceph_keys[] = { "client", "pool", "image", NULL };
    for (size_t i = 0; ceph_keys[i]; i++)
      if (pyaml_walk_lookup_key(w, cn, ceph_keys[i]))
        return key_error(w, root, "cluster", ceph_keys[i], "there is no Ceph with type none");
  }
  if (c->type == PLACER_STUDY_CLUSTER_EXISTING && c->conf == NULL)
    return key_error(w, root, "cluster", "type", "an existing cluster needs 'conf' (its ceph.conf)");
  if (c->osd_size_bytes % GIB || c->image_size_bytes % GIB)
    return key_error(w, root, "cluster", c->osd_size_bytes % GIB ? "osd_size" : "image_size",
                     "must be a whole number of GiB");
  if (set_default(&c->client, "admin") < 0 || set_default(&c->pool, "rbd") < 0 ||
      set_default(&c->image, "placer-bench") < 0)
    return oom(w);
  return 0;
}

static bool has_blank(const char *s) {
  return strpbrk(s, " \t\n") != NULL;
}

static int check_variants(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *vs = pyaml_walk_lookup(w, root, "variants");
  if (vs == NULL)
    return pyaml_walk_error(w, root, "missing key 'variants' (the placements to compare, each a name and a profile)");
  for (size_t i = 0; i < s->n_variants; i++) {
    struct placer_study_variant *v = &s->variants[i];
    yaml_node_t *vn = seq_item(w, vs, i);
    size_t saved = pyaml_walk_push(w, "variants[%zu]", i);
    int rc = 0;
    if (v->name == NULL)
      rc = pyaml_walk_error(w, vn, "missing key 'name'");
    else if (v->profile == NULL)
      rc = pyaml_walk_error(w, vn, "variant '%s': missing key 'profile' (a shipped profile's name or a path)", v->name);
    else if (has_blank(v->profile))
      rc = pyaml_walk_key_error(w, pyaml_walk_lookup(w, vn, "profile"), "profile",
                                "a profile path must not contain blanks");
    for (size_t j = 0; rc == 0 && j < i; j++)
      if (strcmp(s->variants[j].name, v->name) == 0)
        rc = pyaml_walk_key_error(w, pyaml_walk_lookup(w, vn, "name"), "name",
                                  "duplicate variant name '%s' (first at line %u)", v->name, s->variants[j].line);
    for (size_t k = 0; rc == 0 && k < v->env.n; k++) {
      const char *e = v->env.items[k];
      const char *eq = strchr(e, '=');
      bool ok = eq && eq != e && !has_blank(e);
      for (const char *p = e; ok && p < eq; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
      if (!ok) {
        yaml_node_t *env = pyaml_walk_lookup(w, vn, "env");
        rc = pyaml_walk_key_error(w, seq_item(w, env, k), "env", "[%zu]: expected KEY=VALUE without blanks, got '%s'",
                                  k, e);
      }
    }
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  if (s->n_variants > 64)
    return key_error(w, root, NULL, "variants", "at most 64 variants");
  return 0;
}

/* SECTION.path, a file placer writes (docs/bench.md, "What placer
 * writes"): absolute as given, or relative to the results directory:
 * normalised in place ("./a//b" -> "a/b"), never out of it ("..") nor the
 * directory itself.  *LINE and *COLUMN get its place in the file. */
static int check_local_path(struct pyaml_walk *w, yaml_node_t *root, const char *section, char **path, unsigned *line,
                            unsigned *column) {
  yaml_node_t *at = pyaml_walk_lookup(w, pyaml_walk_lookup(w, root, section), "path");
  if (at) {
    *line = (unsigned)at->start_mark.line + 1;
    *column = (unsigned)at->start_mark.column + 1;
  }
  const char *why = NULL;
  for (const char *p = *path; *p && !why; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      why = "a path without control bytes";
  if (why == NULL && **path == '\0')
    why = "a file's path, not an empty one";
  if (why == NULL && **path != '/') {
    char *norm = calloc(1, strlen(*path) + 1), *copy = strdup(*path);
    if (norm == NULL || copy == NULL) {
      free(norm);
      free(copy);
      return oom(w);
    }
    char *rest = copy, *part;
    while ((part = strsep(&rest, "/")) != NULL && !why) {
      if (strcmp(part, "..") == 0)
        why = "a path inside the results directory ('..' is not allowed: give an absolute path for a file outside it)";
      else if (*part && strcmp(part, ".") != 0)
        strcat(strcat(norm, *norm ? "/" : ""), part);
    }
    if (!why && *norm == '\0')
      why = "a file's path, not the results directory itself";
    free(copy);
    if (why == NULL) {
      free(*path);
      *path = norm;
    } else {
      free(norm);
    }
  }
  if (why == NULL)
    return 0;
  return key_error(w, root, section, "path", "'%s': expected %s", *path, why);
}

static int check_workloads(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  struct placer_study_workloads *wl = &s->workloads;
  yaml_node_t *wn = pyaml_walk_lookup(w, root, "workloads");
  bool target_given = pyaml_walk_lookup(w, wn, "target") != NULL;
  if (!target_given)
    wl->target = s->cluster.type == PLACER_STUDY_CLUSTER_NONE ? PLACER_STUDY_TARGET_FILE : PLACER_STUDY_TARGET_RBD;
  if (wl->n_block_sizes == 0) {
    wl->block_sizes = calloc(1, sizeof(*wl->block_sizes));
    if (wl->block_sizes == NULL)
      return oom(w);
    wl->block_sizes[0] = 4096;
    wl->n_block_sizes = 1;
  }
  if (wl->patterns.n == 0) {
    wl->patterns.items = calloc(2, sizeof(char *));
    if (wl->patterns.items == NULL || (wl->patterns.items[0] = strdup("randwrite")) == NULL ||
        (wl->patterns.items[1] = strdup("randread")) == NULL) {
      wl->patterns.n = wl->patterns.items && wl->patterns.items[0] ? 1 : 0;
      return oom(w);
    }
    wl->patterns.n = 2;
  }
  const struct bench_target_ops *target = bench_target(wl->target);
  if (s->cluster.type == PLACER_STUDY_CLUSTER_NONE && (target->flags & BENCH_TARGET_CEPH))
    return key_error(w, root, "workloads", "target", "target %s needs Ceph; with cluster type none use target file",
                     target->name);
  if ((target->flags & BENCH_TARGET_LOCAL_PATH) && wl->path == NULL)
    return key_error(w, root, "workloads", "target", "target %s needs 'path' (a file or a block device)", target->name);
  if (wl->path && !(target->flags & (BENCH_TARGET_LOCAL_PATH | BENCH_TARGET_MOUNT_PATH)))
    return key_error(w, root, "workloads", "path", "only goes with target file or cephfs");
  if (wl->write && !(target->flags & BENCH_TARGET_LOCAL_PATH))
    return key_error(w, root, "workloads", "write", "only goes with target file (the file or device it may write)");
  if ((target->flags & BENCH_TARGET_LOCAL_PATH) &&
      check_local_path(w, root, "workloads", &wl->path, &wl->path_line, &wl->path_column) < 0)
    return -1;
  const char *settle_key = NULL, *settle_why = NULL;
  if (target->settle && target->settle(s, &settle_key, &settle_why) < 0)
    return settle_why ? key_error(w, root, "workloads", settle_key, "%s", settle_why) : oom(w);
  if (s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL && (target->flags & BENCH_TARGET_IMAGE) &&
      wl->size_bytes > s->cluster.image_size_bytes)
    return key_error(w, root, "workloads", "size", "is larger than the rbd image (cluster.image_size)");
  for (size_t i = 0; i < wl->n_block_sizes; i++)
    if (wl->block_sizes[i] > wl->size_bytes)
      return key_error(w, root, "workloads", "block_sizes", "a block size is larger than 'size'");
  yaml_node_t *opts = pyaml_walk_lookup(w, wn, "fio_options");
  for (size_t i = 0; i < wl->fio_options.n; i++) {
    const char *why = bench_fio_option_refused(wl->fio_options.items[i], wl->target);
    if (why == NULL)
      continue;
    size_t saved = pyaml_walk_push(w, "workloads");
    int rc = pyaml_walk_key_error(w, seq_item(w, opts, i), "fio_options", "[%zu]: '%s': %s", i,
                                  wl->fio_options.items[i], why);
    pyaml_walk_pop(w, saved);
    return rc;
  }
  if (placer_study_n_workloads(s) > 64)
    return key_error(w, root, "workloads", "patterns", "at most 64 workloads (block sizes x patterns)");
  return 0;
}

static int check_neighbours(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *ns = pyaml_walk_lookup(w, root, "neighbours");
  for (size_t i = 0; i < s->n_neighbours; i++) {
    struct placer_study_neighbour *nb = &s->neighbours[i];
    yaml_node_t *nn = seq_item(w, ns, i);
    size_t saved = pyaml_walk_push(w, "neighbours[%zu]", i);
    int rc = 0;
    if (set_default(&nb->role, "neighbour") < 0)
      rc = oom(w);
    char fallback[32];
    snprintf(fallback, sizeof(fallback), "neighbour%zu", i);
    if (rc == 0 && set_default(&nb->name, i == 0 ? "neighbour" : fallback) < 0)
      rc = oom(w);
    for (size_t j = 0; rc == 0 && j < i; j++)
      if (strcmp(s->neighbours[j].name, nb->name) == 0)
        rc = pyaml_walk_error(w, nn, "duplicate neighbour name '%s' (first at line %u)", nb->name,
                              s->neighbours[j].line);
    if (rc == 0 && nb->kind != s->neighbours[0].kind)
      rc = pyaml_walk_key_error(w, pyaml_walk_lookup(w, nn, "kind"), "kind",
                                "all neighbours must be of one kind (their work rates add up)");
    if (rc == 0 && nb->kind == PLACER_STUDY_NEIGHBOUR_VM) {
      static const char *const stress_only[] = { "backend", "image", "stressor", "method", "load", NULL };
      for (size_t k = 0; rc == 0 && stress_only[k]; k++)
        if (pyaml_walk_lookup_key(w, nn, stress_only[k]))
          rc = pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, nn, stress_only[k]), stress_only[k],
                                    "only goes with kind stress-ng");
    }
    if (rc == 0 && nb->kind == PLACER_STUDY_NEIGHBOUR_STRESS_NG) {
      static const char *const vm_only[] = { "kernel", "initrd", "memory", "work_memory", NULL };
      for (size_t k = 0; rc == 0 && vm_only[k]; k++)
        if (pyaml_walk_lookup_key(w, nn, vm_only[k]))
          rc = pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, nn, vm_only[k]), vm_only[k], "only goes with kind vm");
      if (rc == 0 && nb->image && nb->backend != PLACER_STUDY_BACKEND_PODMAN)
        rc = pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, nn, "image"), "image", "only goes with backend podman");
      if (rc == 0 && set_default(&nb->stressor, "cpu") < 0)
        rc = oom(w);
      if (rc == 0 && nb->load_percent && strcmp(nb->stressor, "cpu") != 0)
        rc = pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, nn, "load"), "load",
                                  "only goes with stressor cpu (stress-ng --cpu-load)");
      if (rc == 0 && nb->backend == PLACER_STUDY_BACKEND_PODMAN &&
          set_default(&nb->image, "localhost/placer/stress-ng:latest") < 0)
        rc = oom(w);
    }
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  return 0;
}

/* 1 when variant I's profile pins (pin: true, the default), 0 when not, -1
 * on an error (a profile that cannot be read: the error names the variant). */
static int variant_pins(struct pyaml_walk *w, const struct placer_study *s, size_t i) {
  cleanup_free char *path = NULL;
  struct placer_profile *prof = NULL;
  if (placer_study_profile_path(s, &s->variants[i], &path, w->err) < 0) /* names the variant */
    return placer_error_prefix(w->err, "sweep");
  if (placer_profile_load(path, &prof, w->err) < 0)
    return placer_error_prefix(w->err, "sweep: variant '%s'", s->variants[i].name);
  int pins = prof->pin;
  placer_profile_free(prof);
  return pins;
}

/* The variant a placement sweep's steps are made from: sweep.from, else for
 * a cores sweep (which pins) the first variant whose profile pins, else the
 * first variant.  The first variant stays the baseline A either way, so an
 * unpinned A can keep its place while the split is swept on a pinned one. */
static int resolve_sweep_from(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  bool cores = s->sweep.parameter == PLACER_STUDY_SWEEP_CORES;
  s->sweep.from_index = 0;
  if (s->sweep.from) {
    if (!placer_study_sweeps_placement(s))
      return key_error(w, root, "sweep", "from",
                       "only goes with a placement sweep (quota, cores, weight): an intensity sweep runs every "
                       "variant");
    size_t i = 0;
    while (i < s->n_variants && strcmp(s->variants[i].name, s->sweep.from) != 0)
      i++;
    if (i == s->n_variants) {
      char names[256] = "";
      for (size_t k = 0; k < s->n_variants; k++) {
        size_t len = strlen(names);
        snprintf(names + len, sizeof(names) - len, "%s%s", k ? ", " : "", s->variants[k].name);
      }
      return key_error(w, root, "sweep", "from", "'%s' is not one of the variants (%s)", s->sweep.from, names);
    }
    s->sweep.from_index = i;
    if (!cores)
      return 0;
    int pins = variant_pins(w, s, i);
    if (pins < 0)
      return -1;
    if (!pins)
      return key_error(w, root, "sweep", "from",
                       "a cores sweep pins, and variant '%s' has a profile with pin: false ('%s'); name a variant "
                       "whose profile pins",
                       s->sweep.from, s->variants[i].profile);
    return 0;
  }
  if (!cores)
    return 0;
  for (size_t i = 0; i < s->n_variants; i++) {
    int pins = variant_pins(w, s, i);
    if (pins < 0)
      return -1;
    if (pins) {
      s->sweep.from_index = i;
      return 0;
    }
  }
  return key_error(w, root, "sweep", "parameter",
                   "a cores sweep pins, and no variant's profile does (pin: false): add a variant with a pinned "
                   "profile such as demo-local, and name it in sweep.from if it is not the first that pins");
}

/* A placement sweep's variants, made from the variant sweep.from names
 * (resolve_sweep_from) and appended after the variants given: one per
 * step, named "quota-0.5", "cores-1", "weight-4", whose sets use the role
 * classes "@storage", "@neighbours" and "@clients" that bench resolves
 * against the profile. */
static int generate_steps(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  size_t given = s->n_variants;
  if (given + s->sweep.n_steps > 64)
    return key_error(w, root, "sweep", "values", "at most 64 variants with the steps");
  struct placer_study_variant *vs = realloc(s->variants, (given + s->sweep.n_steps) * sizeof(*vs));
  if (vs == NULL)
    return oom(w);
  s->variants = vs;
  size_t from = s->sweep.from_index;
  const struct placer_study_variant *base = &vs[from];
  for (size_t i = 0; i < s->sweep.n_steps; i++) {
    double x = s->sweep.steps[i];
    struct placer_study_variant *v = &vs[given + i];
    memset(v, 0, sizeof(*v));
    v->knob = x;
    v->line = base->line;
    v->fio_env = base->fio_env;
    v->from = from;
    v->knob_line = s->sweep.step_line[i];
    v->knob_column = s->sweep.step_column[i];
    char name[64], set[128];
    /* the variant's own changes first, the step's after them: where both
     * set the same key, the step's value is the one its name and its knob
     * say (quota-1 ran at the 0.5 cores of its variant's set, #35) */
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < base->sets.n; k++)
      rc = placer_string_list_add(&v->sets, base->sets.items[k]);
    switch (s->sweep.parameter) {
    case PLACER_STUDY_SWEEP_QUOTA: {
      unsigned m;
      char text[32];
      snprintf(text, sizeof(text), "%.3f", x);
      if (placer_parse_quota(text, &m) < 0 || fabs(m / 1000.0 - x) > 1e-9)
        return key_error(w, root, "sweep", "values", "quota %g: expected cores 0.01..65536 with at most 3 decimals", x);
      snprintf(name, sizeof(name), "quota-%g", x);
      snprintf(set, sizeof(set), "@storage.cpu.quota=%g", x);
      rc |= placer_string_list_add(&v->sets, set);
      break;
    }
    case PLACER_STUDY_SWEEP_CORES:
      if (x != floor(x) || x > 65536)
        return key_error(w, root, "sweep", "values", "cores %g: expected whole cores 1..65536", x);
      snprintf(name, sizeof(name), "cores-%g", x);
      snprintf(set, sizeof(set), "@storage.cpu.cores=%g", x);
      rc |= placer_string_list_add(&v->sets, set);
      break;
    case PLACER_STUDY_SWEEP_WEIGHT: {
      /* storage : neighbours = x : 1 on the weight scale, 100 the smaller side. */
      double ws = x >= 1 ? 100.0 * x : 100.0, wn = x >= 1 ? 100.0 : 100.0 / x;
      if (ws > 10000.5 || wn > 10000.5)
        return key_error(w, root, "sweep", "values", "weight ratio %g: expected 0.01..100 (storage : neighbours)", x);
      snprintf(name, sizeof(name), "weight-%g", x);
      snprintf(set, sizeof(set), "@storage.cpu.weight=%.0f", ws);
      rc |= placer_string_list_add(&v->sets, set);
      snprintf(set, sizeof(set), "@neighbours.cpu.weight=%.0f", wn);
      rc |= placer_string_list_add(&v->sets, set);
      break;
    }
    }
    for (size_t k = 0; rc == 0 && k < base->env.n; k++)
      rc = placer_string_list_add(&v->env, base->env.items[k]);
    if (rc < 0 || (v->name = strdup(name)) == NULL || (v->profile = strdup(base->profile)) == NULL) {
      s->n_variants = given + i + 1;
      return oom(w);
    }
    s->n_variants = given + i + 1;
    for (size_t k = 0; k < given; k++)
      if (strcmp(v->name, vs[k].name) == 0)
        return key_error(w, root, "variants", NULL, "variant '%s' has the name of a sweep step", v->name);
  }
  return 0;
}

static int check_sweep(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *sn = pyaml_walk_lookup(w, root, "sweep");
  s->sweep.enabled = sn != NULL;
  if (!s->sweep.enabled)
    return 0;
  if (s->n_neighbours == 0)
    return key_error(w, root, NULL, "sweep", "a sweep measures storage against its neighbours: list 'neighbours' too");
  if (s->sweep.n_steps == 0)
    return key_error(w, root, "sweep", "values", "a sweep needs 'values' (the steps)");
  if (s->sweep.roles.n && s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY)
    return key_error(w, root, "sweep", "roles", "only goes with a placement sweep (quota, cores, weight)");
  for (size_t i = 0; i < s->sweep.roles.n; i++)
    for (size_t k = 0; k < s->n_neighbours; k++)
      if (strcmp(s->sweep.roles.items[i], s->neighbours[k].role) == 0) {
        size_t saved = pyaml_walk_push(w, "sweep");
        int rc = pyaml_walk_key_error(
            w, seq_item(w, pyaml_walk_lookup(w, pyaml_walk_lookup(w, root, "sweep"), "roles"), i), "roles",
            "[%zu]: '%s' is the neighbours' role (neighbours[%zu]): a split sweep measures storage against the "
            "neighbours, so they cannot be the storage",
            i, s->sweep.roles.items[i], k);
        pyaml_walk_pop(w, saved);
        return rc;
      }
  if (s->sweep.from && s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY)
    return key_error(w, root, "sweep", "from",
                     "only goes with a placement sweep (quota, cores, weight): an intensity sweep runs every variant");
  if (s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY) {
    if (s->sweep.n_steps + 1 > 64)
      return key_error(w, root, "sweep", "values", "at most 63 steps");
    s->sweep.values = calloc(s->sweep.n_steps, sizeof(*s->sweep.values));
    if (s->sweep.values == NULL)
      return oom(w);
    for (size_t i = 0; i < s->sweep.n_steps; i++) {
      double x = s->sweep.steps[i];
      if (x != floor(x) || x < 1 || x > 1024)
        return key_error(w, root, "sweep", "values",
                         "[%zu]: %g: expected an intensity, a whole number 1..1024 (stress-ng workers or guest vCPUs "
                         "per instance)",
                         i, x);
      s->sweep.values[i] = (unsigned)x;
    }
    s->sweep.n_values = s->sweep.n_steps;
  } else if (resolve_sweep_from(w, s, root) < 0 || generate_steps(w, s, root) < 0) {
    return -1;
  }
  if (s->sweep.workload) {
    int found = has_workload(s, s->sweep.workload);
    if (found < 0)
      return oom(w);
    if (!found)
      return key_error(w, root, "sweep", "workload", "'%s' is not one of the workloads (e.g. \"4k-randwrite\")",
                       s->sweep.workload);
  }
  return 0;
}

/* rebuild: never needs one cluster that serves every variant: a local
 * cluster, and variants that differ only in placement (the daemons' env is
 * fixed when they start).  auto picks never where it holds. */
static int check_rebuild(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  const char *why = NULL;
  size_t bad = 0;
  if (s->cluster.type != PLACER_STUDY_CLUSTER_LOCAL)
    why = "only a local cluster is built by placer";
  for (size_t i = 1; why == NULL && i < s->n_variants; i++)
    if (!placer_string_list_equal(&s->variants[i].env, &s->variants[0].env) ||
        s->variants[i].fio_env != s->variants[0].fio_env) {
      why = "variants differ in 'env', which the daemons get when they start";
      bad = i;
    }
  if (s->cluster.rebuild == PLACER_STUDY_REBUILD_AUTO) {
    s->cluster.rebuild = why ? PLACER_STUDY_REBUILD_PER_VARIANT : PLACER_STUDY_REBUILD_NEVER;
    return 0;
  }
  if (s->cluster.rebuild == PLACER_STUDY_REBUILD_NEVER && why) {
    if (bad)
      return key_error(w, root, "cluster", "rebuild",
                       "'never' keeps one cluster for every variant, but %s ('%s' and '%s'): use per-variant", why,
                       s->variants[0].name, s->variants[bad].name);
    return key_error(w, root, "cluster", "rebuild", "'never' is for cluster type local: %s", why);
  }
  return 0;
}

static int check_baseline(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *bn = pyaml_walk_lookup(w, root, "hardware_baseline");
  s->baseline.enabled = bn != NULL;
  if (!s->baseline.enabled)
    return 0;
  if (s->baseline.path == NULL)
    return key_error(w, root, NULL, "hardware_baseline", "needs 'path' (a file, or a block device with write: true)");
  if (check_local_path(w, root, "hardware_baseline", &s->baseline.path, &s->baseline.path_line,
                       &s->baseline.path_column) < 0)
    return -1;
  if (s->baseline.size_bytes == 0)
    s->baseline.size_bytes = s->workloads.size_bytes;
  for (size_t i = 0; i < s->workloads.n_block_sizes; i++)
    if (s->workloads.block_sizes[i] > s->baseline.size_bytes)
      return key_error(w, root, "hardware_baseline", "size", "is smaller than a block size");
  return 0;
}

static int check_recovery(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  struct placer_study_recovery *r = &s->recovery;
  r->enabled = pyaml_walk_lookup(w, root, "recovery") != NULL;
  if (!r->enabled)
    return 0;
  if (s->cluster.type != PLACER_STUDY_CLUSTER_LOCAL)
    return key_error(w, root, NULL, "recovery",
                     "recovery fails and restarts an OSD: only with cluster type local (this cluster is %s)",
                     placer_study_cluster_name(s->cluster.type));
  if (s->cluster.osds == 1)
    return key_error(w, root, NULL, "recovery", "recovery needs a second OSD to keep the data while one is down");
  if (s->cluster.osds && r->osd >= s->cluster.osds)
    return key_error(w, root, "recovery", "osd", "osd.%u: the cluster has osd.0 to osd.%u", r->osd,
                     s->cluster.osds - 1);
  if (r->workload) {
    int found = has_workload(s, r->workload);
    if (found < 0)
      return oom(w);
    if (!found)
      return key_error(w, root, "recovery", "workload", "'%s' is not one of the workloads (e.g. \"4k-randwrite\")",
                       r->workload);
  }
  return 0;
}

int placer_study_parse(const char *file, const char *text, size_t len, struct placer_study **out,
                       struct placer_error **err) {
  yaml_document_t doc;
  if (pyaml_walk_load_doc(file, "study", "'variants'", text, len, &doc, err) < 0)
    return -1;
  struct pyaml_walk w = { .file = file, .doc = &doc, .err = err };
  struct placer_study *s = calloc(1, sizeof(*s));
  int rc = -1;
  if (s == NULL) {
    placer_error_oom(err, "parse study");
    goto out;
  }
  study_defaults(s);
  /* relative profile paths start at the study's directory (a cores sweep
   * reads its variants' profiles while parsing) */
  const char *slash = strrchr(file, '/');
  s->dir = slash ? strndup(file, (size_t)(slash - file) + (slash == file)) : NULL;
  if (slash && s->dir == NULL) {
    placer_error_oom(err, "parse study");
    goto out;
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (pyaml_walk_mapping(&w, root, &study_schema, s) < 0)
    goto out;
  variants_defaults(s);
  if (check_cluster(&w, s, root) < 0 || check_variants(&w, s, root) < 0 || check_workloads(&w, s, root) < 0 ||
      check_neighbours(&w, s, root) < 0 || check_sweep(&w, s, root) < 0 || check_rebuild(&w, s, root) < 0 ||
      check_baseline(&w, s, root) < 0 || check_recovery(&w, s, root) < 0)
    goto out;
  if ((s->path = strdup(file)) == NULL) {
    placer_error_oom(err, "parse study");
    goto out;
  }
  *out = TAKE_PTR(s);
  rc = 0;
out:
  placer_study_free(s);
  yaml_document_delete(&doc);
  return rc;
}

int placer_study_load(const char *path, struct placer_study **out, struct placer_error **err) {
  cleanup_free char *text = NULL;
  size_t len = 0;
  if (pyaml_read_file("study", path, PYAML_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  return placer_study_parse(path, text ? text : "", len, out, err);
}

void placer_study_free(struct placer_study *s) {
  if (s == NULL)
    return;
  free(s->path);
  free(s->generated);
  free(s->dir);
  free(s->title);
  struct placer_study_cluster *c = &s->cluster;
  free(c->extra_conf);
  free(c->conf);
  free(c->keyring);
  free(c->client);
  free(c->pool);
  free(c->image);
  placer_string_list_free(&c->devices);
  for (size_t i = 0; i < s->n_variants; i++) {
    free(s->variants[i].name);
    free(s->variants[i].profile);
    placer_string_list_free(&s->variants[i].env);
    placer_string_list_free(&s->variants[i].sets);
  }
  free(s->variants);
  free(s->workloads.path);
  free(s->workloads.block_sizes);
  placer_string_list_free(&s->workloads.patterns);
  placer_string_list_free(&s->workloads.fio_options);
  for (size_t i = 0; i < s->n_neighbours; i++) {
    struct placer_study_neighbour *nb = &s->neighbours[i];
    free(nb->name);
    free(nb->role);
    free(nb->image);
    free(nb->stressor);
    free(nb->method);
    free(nb->kernel);
    free(nb->initrd);
  }
  free(s->neighbours);
  free(s->baseline.path);
  free(s->sweep.values);
  free(s->sweep.workload);
  free(s->sweep.steps);
  free(s->sweep.step_line);
  free(s->sweep.step_column);
  free(s->sweep.from);
  placer_string_list_free(&s->sweep.roles);
  free(s->recovery.workload);
  free(s);
}

size_t placer_study_n_workloads(const struct placer_study *s) {
  return s->workloads.n_block_sizes * s->workloads.patterns.n;
}

int placer_study_workload(const struct placer_study *s, size_t i, char **name, uint64_t *block_size,
                          const char **pattern) {
  size_t np = s->workloads.patterns.n;
  if (np == 0 || i >= placer_study_n_workloads(s))
    return -1;
  uint64_t bs = s->workloads.block_sizes[i / np];
  const char *pat = s->workloads.patterns.items[i % np];
  char label[32];
  placer_bench_format_block_size(bs, label, sizeof(label));
  for (char *p = label; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  if (name && asprintf(name, "%s-%s", label, pat) < 0) {
    *name = NULL;
    return -1;
  }
  if (block_size)
    *block_size = bs;
  if (pattern)
    *pattern = pat;
  return 0;
}

int placer_study_profile_path(const struct placer_study *s, const struct placer_study_variant *v, char **out,
                              struct placer_error **err) {
  const char *ref = v->profile;
  size_t len = strlen(ref);
  bool bare = strchr(ref, '/') == NULL && !(len > 5 && strcmp(ref + len - 5, ".yaml") == 0) &&
              !(len > 4 && strcmp(ref + len - 4, ".yml") == 0);
  if (!bare) {
    char *p = NULL;
    if (ref[0] == '/' || s->dir == NULL)
      p = strdup(ref);
    else if (asprintf(&p, "%s/%s", s->dir, ref) < 0)
      p = NULL;
    if (p == NULL)
      return placer_error_oom(err, "variant's profile path");
    *out = p;
    return 0;
  }
  cleanup_free char *file = NULL;
  if (asprintf(&file, "%s.yaml", ref) < 0)
    return placer_error_oom(err, "variant's profile path");
  const char *env = getenv("PLACER_PROFILES_DIR");
  char *found = env && *env ? placer_path_if_readable(env, file) : NULL;
  cleanup_free char *rel = NULL;
  if (found == NULL && asprintf(&rel, "profiles/%s", file) >= 0)
    found = placer_data_file(NULL, rel);
  if (found == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "variant '%s': no shipped profile '%s' (looked in $PLACER_PROFILES_DIR and placer's "
                            "profiles directory); give a path such as ./%s.yaml",
                            v->name, ref, ref);
  *out = found;
  return 0;
}

int placer_study_default_path(char **out, struct placer_error **err) {
  char *path = placer_data_file("PLACER_DEFAULT_STUDY", "studies/default.yaml");
  if (path == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "no default study: studies/default.yaml is neither next to placer, in its share/placer, "
                            "nor in the source tree (set $PLACER_DEFAULT_STUDY)");
  /* "/usr/bin/../share/placer/studies/default.yaml" reads better resolved. */
  char *real = realpath(path, NULL);
  if (real) {
    free(path);
    path = real;
  }
  *out = path;
  return 0;
}

int placer_study_default_text(char **out, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (placer_study_default_path(&path, err) < 0)
    return -1;
  return pyaml_read_file("study", path, PYAML_MAX_BYTES, out, NULL, err);
}

int placer_study_load_default(struct placer_study **out, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (placer_study_default_path(&path, err) < 0)
    return -1;
  return placer_study_load(path, out, err);
}
