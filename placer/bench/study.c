/* Bench studies: the YAML schema as key tables for the walker in
 * profile-yaml.c, defaults, and the checks that span several keys.  The
 * workload kinds' own keys are in their files (bench/workload-*.c), the
 * sweep's checks in study-sweep.c.  docs/bench.md ("The study file")
 * describes every key; keep the two in step. */
#include "bench/study.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/fio-options.h"
#include "bench/neighbour.h"
#include "bench/study-internal.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "lib/array.h"
#include "profile/profile-yaml.h"
#include "results/results.h"

#define GIB (UINT64_C(1) << 30)
#define MAX_PASS_KINDS 8

static const char *const cluster_names[] = {
  [PLACER_STUDY_CLUSTER_LOCAL] = "local",
  [PLACER_STUDY_CLUSTER_EXISTING] = "existing",
  [PLACER_STUDY_CLUSTER_NONE] = "none",
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

const char *placer_study_cluster_name(enum placer_study_cluster_type t) {
  return t <= PLACER_STUDY_CLUSTER_NONE ? cluster_names[t] : "?";
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

/* The verdicts' significance level: 0.05 or 5%, in (0, 0.5]. */
static int parse_alpha(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *st = target;
  double x = 0;
  if (study_parse_fraction_value(w, f, v, &x) < 0)
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
  if (study_parse_fraction_value(w, f, v, &x) < 0)
    return -1;
  double pct = x * 100.0;
  if (pct < 1.0 || fabs(pct - round(pct)) > 1e-9)
    return pyaml_walk_key_error(w, v, f->key, "expected a whole percent 1%%..100%% such as 50%%, got '%s'",
                                pyaml_walk_scalar(v));
  nb->load_percent = (unsigned)round(pct);
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
    if (study_parse_fraction(w, &ff, cw, &width) < 0)
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

static int parse_kind(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);

/* workloads.target: a target of the table (bench/target.c), by its name. */
static int parse_target(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  const char *given = study_scalar_or_kind(v);
  if ((wl->target = bench_target_find(given)) != NULL)
    return 0;
  char names[256] = "";
  for (size_t i = 0; bench_targets[i]; i++) {
    size_t len = strlen(names);
    snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", bench_targets[i]->name);
  }
  return pyaml_walk_key_error(w, v, f->key, "expected one of %s, got '%s'", names, given);
}

/* The keys of workloads every kind takes (where fio runs, for how long);
 * its kind's own follow them (bench_workload_ops.keys). */
static const struct pyaml_field workloads_fields[] = {
  { .key = "kind", .type = PYAML_FIELD_CUSTOM, .parse = parse_kind },
  { .key = "target", .type = PYAML_FIELD_CUSTOM, .parse = parse_target },
  { .key = "path", .type = PYAML_FIELD_STRING, .offset = WORKLOADS_AT(path) },
  { .key = "size", .type = PYAML_FIELD_SIZE, .offset = WORKLOADS_AT(size_bytes), .min = 1 },
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

/* workloads.kind: a kind whose runs are the cells (block, the default). */
static int parse_kind(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  const struct bench_workload_ops *kind = pyaml_walk_is_scalar(v) ? bench_workload_find(pyaml_walk_scalar(v)) : NULL;
  if (kind == NULL || !(kind->flags & BENCH_WORKLOAD_CELLS)) {
    char names[128];
    bench_workload_names(BENCH_WORKLOAD_CELLS, names, sizeof(names));
    return pyaml_walk_key_error(w, v, f->key, "expected one of %s, got '%s'", names, study_scalar_or_kind(v));
  }
  wl->kind = kind;
  return 0;
}

/* The workloads mapping: its kind first, then the keys every kind takes and
 * that kind's own. */
static int parse_workloads(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = &((struct placer_study *)target)->workloads;
  size_t saved = pyaml_walk_push(w, "%s", f->key);
  yaml_node_t *kind = v->type == YAML_MAPPING_NODE ? pyaml_walk_lookup(w, v, "kind") : NULL;
  int rc = kind ? parse_kind(w, &workloads_fields[0], kind, wl) : 0;
  struct pyaml_field fields[N_OF(workloads_fields) + 16];
  size_t n = 0;
  for (size_t i = 0; i < N_OF(workloads_fields); i++)
    fields[n++] = workloads_fields[i];
  for (size_t i = 0; i < wl->kind->n_keys && n < N_OF(fields); i++)
    fields[n++] = wl->kind->keys[i];
  struct pyaml_schema schema = { "workloads", fields, n };
  if (rc == 0)
    rc = pyaml_walk_mapping(w, v, &schema, wl);
  pyaml_walk_pop(w, saved);
  return rc;
}

/* neighbours[].kind: a kind of the table (bench/neighbour.c), by its name. */
static int parse_neighbour_kind(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_neighbour *nb = target;
  const char *given = study_scalar_or_kind(v);
  char names[256] = "";
  for (size_t i = 0; bench_neighbours[i]; i++) {
    if (strcmp(bench_neighbours[i]->kind, given) == 0) {
      nb->kind = bench_neighbours[i]->kind;
      return 0;
    }
    bool named = false; /* a kind once, though it runs in several backends */
    for (size_t k = 0; k < i && !named; k++)
      named = strcmp(bench_neighbours[k]->kind, bench_neighbours[i]->kind) == 0;
    size_t len = strlen(names);
    if (!named)
      snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "", bench_neighbours[i]->kind);
  }
  return pyaml_walk_key_error(w, v, f->key, "expected one of %s, got '%s'", names, given);
}

static const struct pyaml_field neighbour_fields[] = {
  { .key = "name", .type = PYAML_FIELD_NAME, .offset = NEIGHBOUR_AT(name) },
  { .key = "role", .type = PYAML_FIELD_NAME, .offset = NEIGHBOUR_AT(role) },
  { .key = "kind", .type = PYAML_FIELD_CUSTOM, .parse = parse_neighbour_kind },
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
  { .key = "values", .type = PYAML_FIELD_CUSTOM, .parse = study_parse_sweep_values },
  { .key = "roles", .type = PYAML_FIELD_STRING_LIST, .offset = SWEEP_AT(roles) },
  { .key = "workload", .type = PYAML_FIELD_STRING, .offset = SWEEP_AT(workload) },
  { .key = "from", .type = PYAML_FIELD_NAME, .offset = SWEEP_AT(from) },
  { .key = "storage_min_fraction",
    .type = PYAML_FIELD_CUSTOM,
    .parse = study_parse_fraction,
    .offset = SWEEP_AT(storage_min_fraction) },
  { .key = "neighbour_min_fraction",
    .type = PYAML_FIELD_CUSTOM,
    .parse = study_parse_fraction,
    .offset = SWEEP_AT(neighbour_min_fraction) },
};
static const struct pyaml_schema sweep_schema = { "sweep", sweep_fields, N_OF(sweep_fields) };

static int parse_variants(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);

static int parse_neighbours(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);

static const struct pyaml_field study_fields[] = {
  { .key = "version", .type = PYAML_FIELD_CUSTOM, .parse = parse_version },
  { .key = "title", .type = PYAML_FIELD_STRING, .offset = STUDY_AT(title) },
  { .key = "cluster", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(cluster), .mapping = &cluster_schema },
  { .key = "variants", .type = PYAML_FIELD_CUSTOM, .parse = parse_variants },
  { .key = "workloads", .type = PYAML_FIELD_CUSTOM, .parse = parse_workloads },
  { .key = "neighbours", .type = PYAML_FIELD_CUSTOM, .parse = parse_neighbours },
  { .key = "hardware_baseline",
    .type = PYAML_FIELD_MAPPING,
    .offset = STUDY_AT(baseline),
    .mapping = &baseline_schema },
  { .key = "repeats", .type = PYAML_FIELD_CUSTOM, .parse = parse_repeats },
  { .key = "alpha", .type = PYAML_FIELD_CUSTOM, .parse = parse_alpha },
  { .key = "warmup", .type = PYAML_FIELD_UINT, .offset = STUDY_AT(warmup), .max = PLACER_BENCH_MAX_WARMUP },
  { .key = "sweep", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(sweep), .mapping = &sweep_schema },
  { .key = "slo", .type = PYAML_FIELD_MAPPING, .offset = STUDY_AT(slo), .mapping = &study_slo_schema },
  { .key = "max_time", .type = PYAML_FIELD_CUSTOM, .parse = study_parse_max_time },
};

static int parse_variants(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *s = target;
  if (v->type != YAML_SEQUENCE_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a list of variants (name and profile)");
  size_t n = study_seq_len(v);
  if (n == 0)
    return pyaml_walk_key_error(w, v, f->key, "must list at least one variant");
  s->variants = calloc(n, sizeof(*s->variants));
  if (s->variants == NULL)
    return study_oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = study_seq_item(w, v, i);
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
  nb->kind = bench_neighbours[0]->kind; /* stress-ng */
  nb->backend = PLACER_STUDY_BACKEND_EXEC;
  nb->intensity = 1;
  nb->memory_bytes = UINT64_C(256) << 20;
  nb->work_memory_bytes = UINT64_C(64) << 20;
}

static int parse_neighbours(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *s = target;
  if (v->type != YAML_SEQUENCE_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a list of neighbours");
  size_t n = study_seq_len(v);
  if (n == 0)
    return 0;
  s->neighbours = calloc(n, sizeof(*s->neighbours));
  if (s->neighbours == NULL)
    return study_oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = study_seq_item(w, v, i);
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
  s->workloads.kind = &bench_workload_block;
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
  placer_slo_init(&s->slo);
}

/* Every variant's knob starts undefined (not a sweep step). */
static void variants_defaults(struct placer_study *s) {
  for (size_t i = 0; i < s->n_variants; i++)
    s->variants[i].knob = NAN;
}

static const char *const local_only[] = { "osds", "mds", "osd_size", "image_size", "extra_conf", "timeout", NULL };

static int check_cluster(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  struct placer_study_cluster *c = &s->cluster;
  yaml_node_t *cn = pyaml_walk_lookup(w, root, "cluster");
  if (c->type != PLACER_STUDY_CLUSTER_LOCAL)
    for (size_t i = 0; local_only[i]; i++)
      if (pyaml_walk_lookup_key(w, cn, local_only[i]))
        return study_key_error(w, root, "cluster", local_only[i], "only goes with type local (this cluster is %s)",
                               placer_study_cluster_name(c->type));
  if (c->type != PLACER_STUDY_CLUSTER_EXISTING) {
    static const char *const existing_only[] = { "conf", "keyring", NULL };
    for (size_t i = 0; existing_only[i]; i++)
      if (pyaml_walk_lookup_key(w, cn, existing_only[i]))
        return study_key_error(w, root, "cluster", existing_only[i], "only goes with type existing");
  }
  if (c->type == PLACER_STUDY_CLUSTER_NONE) {
    static const char *const ceph_keys[] = { "client", "pool", "image", NULL };
    for (size_t i = 0; ceph_keys[i]; i++)
      if (pyaml_walk_lookup_key(w, cn, ceph_keys[i]))
        return study_key_error(w, root, "cluster", ceph_keys[i], "there is no Ceph with type none");
  }
  if (c->type == PLACER_STUDY_CLUSTER_EXISTING && c->conf == NULL)
    return study_key_error(w, root, "cluster", "type", "an existing cluster needs 'conf' (its ceph.conf)");
  if (c->osd_size_bytes % GIB || c->image_size_bytes % GIB)
    return study_key_error(w, root, "cluster", c->osd_size_bytes % GIB ? "osd_size" : "image_size",
                           "must be a whole number of GiB");
  if (study_set_default(&c->client, "admin") < 0 || study_set_default(&c->pool, "rbd") < 0 ||
      study_set_default(&c->image, "placer-bench") < 0)
    return study_oom(w);
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
    yaml_node_t *vn = study_seq_item(w, vs, i);
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
        rc = pyaml_walk_key_error(w, study_seq_item(w, env, k), "env",
                                  "[%zu]: expected KEY=VALUE without blanks, got '%s'", k, e);
      }
    }
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  if (s->n_variants > 64)
    return study_key_error(w, root, NULL, "variants", "at most 64 variants");
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
      return study_oom(w);
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
  return study_key_error(w, root, section, "path", "'%s': expected %s", *path, why);
}

static int check_workloads(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  struct placer_study_workloads *wl = &s->workloads;
  yaml_node_t *wn = pyaml_walk_lookup(w, root, "workloads");
  bool target_given = pyaml_walk_lookup(w, wn, "target") != NULL;
  if (!target_given)
    wl->target = s->cluster.type == PLACER_STUDY_CLUSTER_NONE ? &bench_target_file : &bench_target_rbd;
  const struct bench_target_ops *target = wl->target;
  if (s->cluster.type == PLACER_STUDY_CLUSTER_NONE && (target->flags & BENCH_TARGET_CEPH))
    return study_key_error(w, root, "workloads", "target",
                           "target %s needs Ceph; with cluster type none use target file", target->name);
  if ((target->flags & BENCH_TARGET_LOCAL_PATH) && wl->path == NULL)
    return study_key_error(w, root, "workloads", "target", "target %s needs 'path' (a file or a block device)",
                           target->name);
  if (wl->path && !(target->flags & (BENCH_TARGET_LOCAL_PATH | BENCH_TARGET_MOUNT_PATH)))
    return study_key_error(w, root, "workloads", "path", "only goes with target file or cephfs");
  if (wl->write && !(target->flags & BENCH_TARGET_LOCAL_PATH))
    return study_key_error(w, root, "workloads", "write",
                           "only goes with target file (the file or device it may write)");
  if ((target->flags & BENCH_TARGET_LOCAL_PATH) &&
      check_local_path(w, root, "workloads", &wl->path, &wl->path_line, &wl->path_column) < 0)
    return -1;
  const char *settle_key = NULL, *settle_why = NULL;
  if (target->settle && target->settle(s, &settle_key, &settle_why) < 0)
    return settle_why ? study_key_error(w, root, "workloads", settle_key, "%s", settle_why) : study_oom(w);
  const char *refusal = bench_workload_target_refusal(wl->kind, target);
  if (refusal) /* at the target, or at the kind when the target is the default */
    return study_key_error(w, root, "workloads", target_given ? "target" : "kind",
                           "workloads of kind %s %s: target %s does not serve them", wl->kind->name, refusal,
                           target->name);
  if (s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL && (target->flags & BENCH_TARGET_IMAGE) &&
      wl->size_bytes > s->cluster.image_size_bytes)
    return study_key_error(w, root, "workloads", "size", "is larger than the rbd image (cluster.image_size)");
  if (wl->kind->settle(w, s, root, wn) < 0)
    return -1;
  yaml_node_t *opts = pyaml_walk_lookup(w, wn, "fio_options");
  for (size_t i = 0; i < wl->fio_options.n; i++) {
    const char *why = bench_fio_option_refused(wl->fio_options.items[i], wl->target);
    if (why == NULL)
      continue;
    size_t saved = pyaml_walk_push(w, "workloads");
    int rc = pyaml_walk_key_error(w, study_seq_item(w, opts, i), "fio_options", "[%zu]: '%s': %s", i,
                                  wl->fio_options.items[i], why);
    pyaml_walk_pop(w, saved);
    return rc;
  }
  return 0;
}

/* The keys a neighbour's kind does not take (another kind's), then the
 * kind's own defaults and checks (bench_neighbour_ops.settle). */
static int check_neighbour_kind(struct pyaml_walk *w, struct placer_study_neighbour *nb, yaml_node_t *nn) {
  const struct bench_neighbour_ops *ops = bench_neighbour(nb->kind, PLACER_STUDY_BACKEND_EXEC);
  for (yaml_node_pair_t *p = nn->data.mapping.pairs.start; ops && p < nn->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    const char *key = pyaml_walk_scalar(k);
    if (bench_neighbour_takes(ops, key))
      continue;
    for (size_t i = 0; bench_neighbours[i]; i++)
      if (bench_neighbour_takes(bench_neighbours[i], key))
        return pyaml_walk_key_error(w, k, key, "only goes with kind %s", bench_neighbours[i]->kind);
  }
  if ((ops = bench_neighbour(nb->kind, nb->backend)) == NULL)
    return pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, nn, "backend"), "backend", "kind %s does not run in %s",
                                nb->kind, backend_names[nb->backend]);
  const char *key = NULL, *why = NULL;
  if (ops->settle && ops->settle(nb, &key, &why) < 0)
    return why ? pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, nn, key), key, "%s", why) : study_oom(w);
  return 0;
}

static int check_neighbours(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *ns = pyaml_walk_lookup(w, root, "neighbours");
  for (size_t i = 0; i < s->n_neighbours; i++) {
    struct placer_study_neighbour *nb = &s->neighbours[i];
    yaml_node_t *nn = study_seq_item(w, ns, i);
    size_t saved = pyaml_walk_push(w, "neighbours[%zu]", i);
    int rc = 0;
    if (study_set_default(&nb->role, "neighbour") < 0)
      rc = study_oom(w);
    char fallback[32];
    snprintf(fallback, sizeof(fallback), "neighbour%zu", i);
    if (rc == 0 && study_set_default(&nb->name, i == 0 ? "neighbour" : fallback) < 0)
      rc = study_oom(w);
    for (size_t j = 0; rc == 0 && j < i; j++)
      if (strcmp(s->neighbours[j].name, nb->name) == 0)
        rc = pyaml_walk_error(w, nn, "duplicate neighbour name '%s' (first at line %u)", nb->name,
                              s->neighbours[j].line);
    if (rc == 0 && strcmp(nb->kind, s->neighbours[0].kind) != 0)
      rc = pyaml_walk_key_error(w, pyaml_walk_lookup(w, nn, "kind"), "kind",
                                "all neighbours must be of one kind (their work rates add up)");
    if (rc == 0)
      rc = check_neighbour_kind(w, nb, nn);
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
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
      return study_key_error(w, root, "cluster", "rebuild",
                             "'never' keeps one cluster for every variant, but %s ('%s' and '%s'): use per-variant",
                             why, s->variants[0].name, s->variants[bad].name);
    return study_key_error(w, root, "cluster", "rebuild", "'never' is for cluster type local: %s", why);
  }
  return 0;
}

static int check_baseline(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *bn = pyaml_walk_lookup(w, root, "hardware_baseline");
  s->baseline.enabled = bn != NULL;
  if (!s->baseline.enabled)
    return 0;
  if (s->baseline.path == NULL)
    return study_key_error(w, root, NULL, "hardware_baseline",
                           "needs 'path' (a file, or a block device with write: true)");
  if (check_local_path(w, root, "hardware_baseline", &s->baseline.path, &s->baseline.path_line,
                       &s->baseline.path_column) < 0)
    return -1;
  if (s->baseline.size_bytes == 0)
    s->baseline.size_bytes = s->workloads.size_bytes;
  for (size_t i = 0; i < s->workloads.n_block_sizes; i++)
    if (s->workloads.block_sizes[i] > s->baseline.size_bytes)
      return study_key_error(w, root, "hardware_baseline", "size", "is smaller than a block size");
  return 0;
}

/* Each pass kind (recovery): its defaults and checks, and a target that
 * serves it when the study has its mapping. */
static int check_pass_kinds(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  for (size_t i = 0; bench_workloads[i]; i++) {
    const struct bench_workload_ops *kind = bench_workloads[i];
    if (!(kind->flags & BENCH_WORKLOAD_PASS))
      continue;
    yaml_node_t *section = pyaml_walk_lookup(w, root, kind->section);
    if (kind->settle(w, s, root, section) < 0)
      return -1;
    const char *why = section ? bench_workload_target_refusal(kind, s->workloads.target) : NULL;
    if (why)
      return study_key_error(w, root, NULL, kind->section, "%s %s: target %s does not serve it", kind->name, why,
                             s->workloads.target->name);
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
  /* the top-level keys, and each pass kind's mapping (recovery) */
  struct pyaml_field fields[N_OF(study_fields) + MAX_PASS_KINDS];
  struct pyaml_schema sections[MAX_PASS_KINDS];
  size_t n = 0, n_sections = 0;
  for (size_t i = 0; i < N_OF(study_fields); i++)
    fields[n++] = study_fields[i];
  for (size_t i = 0; bench_workloads[i] && n_sections < MAX_PASS_KINDS; i++) {
    const struct bench_workload_ops *kind = bench_workloads[i];
    if (!(kind->flags & BENCH_WORKLOAD_PASS))
      continue;
    sections[n_sections] = (struct pyaml_schema){ kind->section, kind->keys, kind->n_keys };
    fields[n++] = (struct pyaml_field){ .key = kind->section,
                                        .type = PYAML_FIELD_MAPPING,
                                        .offset = kind->study_offset,
                                        .mapping = &sections[n_sections++] };
  }
  struct pyaml_schema study_schema = { "study", fields, n };
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (pyaml_walk_mapping(&w, root, &study_schema, s) < 0)
    goto out;
  variants_defaults(s);
  if (check_cluster(&w, s, root) < 0 || check_variants(&w, s, root) < 0 || check_workloads(&w, s, root) < 0 ||
      check_neighbours(&w, s, root) < 0 || study_check_sweep(&w, s, root) < 0 || check_rebuild(&w, s, root) < 0 ||
      check_baseline(&w, s, root) < 0 || check_pass_kinds(&w, s, root) < 0 || study_check_curves(&w, s, root) < 0)
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
  free(s->workloads.load_steps);
  free(s->workloads.load_line);
  free(s->workloads.load_column);
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

int placer_study_load_default(struct placer_study **out, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (placer_study_default_path(&path, err) < 0)
    return -1;
  return placer_study_load(path, out, err);
}
