/* The study keys of response curves (issue #39): a block workload's load
 * steps (workloads.load), the service-level objectives (slo, through the
 * grammar of results/slo.c) and the time a study may take (max_time), with
 * the checks across keys that only these make (docs/bench.md, "Response
 * curves and SLOs"). */
#include "bench/study-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/units.h"
#include "results/results.h"

static const char *const load_names[] = {
  [PLACER_STUDY_LOAD_NONE] = "",
  [PLACER_STUDY_LOAD_IODEPTH] = "iodepth",
  [PLACER_STUDY_LOAD_NUMJOBS] = "numjobs",
  [PLACER_STUDY_LOAD_RATE_IOPS] = "rate_iops",
};
/* What each step may be: fio's own bounds of iodepth and numjobs as the
 * workloads keys take them; a rate up to a billion IOPS. */
static const unsigned load_max[] = { 0, 4096, 256, 1000000000 };

#define MAX_LOAD_STEPS 16

const char *placer_study_load_name(int load) {
  return load >= 0 && load <= PLACER_STUDY_LOAD_RATE_IOPS ? load_names[load] : "?";
}

/* workloads.load: { iodepth | numjobs | rate_iops: [STEP, ...] }, one key,
 * whole numbers, strictly increasing (placer_slo_check_steps says how a
 * step fails; its place is the step's). */
int study_parse_load(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  if (v->type != YAML_MAPPING_NODE || v->data.mapping.pairs.top - v->data.mapping.pairs.start != 1)
    return pyaml_walk_key_error(w, v, f->key,
                                "expected one of iodepth, numjobs or rate_iops with its steps, such as "
                                "{ iodepth: [1, 4, 16, 64] }");
  yaml_node_pair_t *pair = v->data.mapping.pairs.start;
  yaml_node_t *key = yaml_document_get_node(w->doc, pair->key), *list = yaml_document_get_node(w->doc, pair->value);
  const char *name = pyaml_walk_is_scalar(key) ? pyaml_walk_scalar(key) : "";
  int load = PLACER_STUDY_LOAD_NONE;
  for (int i = PLACER_STUDY_LOAD_IODEPTH; i <= PLACER_STUDY_LOAD_RATE_IOPS; i++)
    if (strcmp(name, load_names[i]) == 0)
      load = i;
  size_t saved = pyaml_walk_push(w, "%s%s", w->path[0] ? "." : "", f->key);
  int rc = 0;
  if (load == PLACER_STUDY_LOAD_NONE)
    rc = pyaml_walk_key_error(w, key, name, "unknown key '%s' (a load step sets iodepth, numjobs or rate_iops)", name);
  else if (list->type != YAML_SEQUENCE_NODE || study_seq_len(list) < 1 || study_seq_len(list) > MAX_LOAD_STEPS)
    rc =
        pyaml_walk_key_error(w, list, name, "expected a list of 1 to %d steps, such as [1, 4, 16, 64]", MAX_LOAD_STEPS);
  size_t n = rc == 0 ? study_seq_len(list) : 0;
  double *steps = calloc(n ? n : 1, sizeof(*steps));
  unsigned *line = calloc(n ? n : 1, sizeof(*line)), *column = calloc(n ? n : 1, sizeof(*column));
  if (rc == 0 && (steps == NULL || line == NULL || column == NULL))
    rc = study_oom(w);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    yaml_node_t *item = study_seq_item(w, list, i);
    unsigned long long x;
    const char *why;
    line[i] = (unsigned)item->start_mark.line + 1;
    column[i] = (unsigned)item->start_mark.column + 1;
    if (!pyaml_walk_is_plain(item) || pyaml_walk_parse_uint(item, load_max[load], &x, &why) < 0 || x == 0) {
      rc = pyaml_walk_key_error(w, item, name, "[%zu]: expected a whole number 1..%u, got '%s'", i, load_max[load],
                                study_scalar_or_kind(item));
      break;
    }
    steps[i] = (double)x;
    struct placer_slo none;
    placer_slo_init(&none);
    char bad_why[160];
    size_t bad;
    if (placer_slo_check_steps(&none, name, steps, i + 1, &bad, bad_why, sizeof(bad_why)) < 0)
      rc = pyaml_walk_key_error(w, item, name, "[%zu]: %s", i, bad_why);
  }
  pyaml_walk_pop(w, saved);
  if (rc < 0) {
    free(steps);
    free(line);
    free(column);
    return -1;
  }
  free(wl->load_steps);
  free(wl->load_line);
  free(wl->load_column);
  wl->load = load;
  wl->load_steps = steps;
  wl->n_load_steps = n;
  wl->load_line = line;
  wl->load_column = column;
  return 0;
}

/* slo.storage.KEY and slo.neighbours.KEY (arg 1): the grammar's, the
 * refusal at the value's FILE:LINE:COL. */
static int parse_slo_key(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  char why[200];
  if (!pyaml_walk_is_plain(v))
    return pyaml_walk_key_error(w, v, f->key, "expected a value such as 2ms, 5000 iops or 90%%");
  if (placer_slo_set(target, f->arg ? "neighbours" : "storage", f->key, pyaml_walk_scalar(v), why, sizeof(why)) < 0)
    return pyaml_walk_key_error(w, v, f->key, "%s", why);
  return 0;
}

static const struct pyaml_field slo_storage_fields[] = {
  { .key = "p50", .type = PYAML_FIELD_CUSTOM, .parse = parse_slo_key },
  { .key = "p99", .type = PYAML_FIELD_CUSTOM, .parse = parse_slo_key },
  { .key = "p99.9", .type = PYAML_FIELD_CUSTOM, .parse = parse_slo_key },
  { .key = "at", .type = PYAML_FIELD_CUSTOM, .parse = parse_slo_key },
};
static const struct pyaml_field slo_neighbours_fields[] = {
  { .key = "keep", .type = PYAML_FIELD_CUSTOM, .parse = parse_slo_key, .arg = 1 },
};
static const struct pyaml_schema slo_storage_schema = { "slo.storage", slo_storage_fields, N_OF(slo_storage_fields) };
static const struct pyaml_schema slo_neighbours_schema = { "slo.neighbours", slo_neighbours_fields,
                                                           N_OF(slo_neighbours_fields) };
static const struct pyaml_field slo_fields[] = {
  { .key = "storage", .type = PYAML_FIELD_MAPPING, .mapping = &slo_storage_schema },
  { .key = "neighbours", .type = PYAML_FIELD_MAPPING, .mapping = &slo_neighbours_schema },
};
const struct pyaml_schema study_slo_schema = { "slo", slo_fields, N_OF(slo_fields) };

/* max_time: 12min, 720s, 1h. */
int study_parse_max_time(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study *s = target;
  double seconds;
  const char *why;
  if (!pyaml_walk_is_plain(v))
    return pyaml_walk_key_error(w, v, f->key, "expected a time such as 12min or 720s");
  if (placer_parse_seconds(pyaml_walk_scalar(v), &seconds, &why) < 0)
    return pyaml_walk_key_error(w, v, f->key, "%s, got '%s'", why, pyaml_walk_scalar(v));
  if (!(seconds >= 1))
    return pyaml_walk_key_error(w, v, f->key, "at least 1s, got '%s'", pyaml_walk_scalar(v));
  s->max_time_s = seconds;
  s->max_time_line = (unsigned)v->start_mark.line + 1;
  s->max_time_column = (unsigned)v->start_mark.column + 1;
  return 0;
}

/* The node of slo.SIDE.KEY, or NULL. */
static yaml_node_t *slo_node(struct pyaml_walk *w, yaml_node_t *root, const char *side, const char *key) {
  return pyaml_walk_lookup(w, pyaml_walk_lookup(w, pyaml_walk_lookup(w, root, "slo"), side), key);
}

/* MSG at slo.SIDE.KEY's value (else at slo). */
static int slo_error(struct pyaml_walk *w, yaml_node_t *root, const char *side, const char *key, const char *msg) {
  yaml_node_t *at = slo_node(w, root, side, key);
  char path[48];
  snprintf(path, sizeof(path), "slo.%s", side);
  size_t saved = pyaml_walk_push(w, "%s", at ? path : "");
  int rc = at ? pyaml_walk_key_error(w, at, key, "%s", msg)
              : pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, root, "slo"), "slo", "%s", msg);
  pyaml_walk_pop(w, saved);
  return rc;
}

/* The load steps against the keys they set (a step and the key both
 * setting iodepth, or the study's fio_options a rate), and the SLO against
 * the steps and the workloads (its `at` in their unit, above every rate
 * step). */
int study_check_curves(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  const struct placer_study_workloads *wl = &s->workloads;
  yaml_node_t *wn = pyaml_walk_lookup(w, root, "workloads");
  const char *name = placer_study_load_name(wl->load);
  if ((wl->load == PLACER_STUDY_LOAD_IODEPTH || wl->load == PLACER_STUDY_LOAD_NUMJOBS) &&
      pyaml_walk_lookup_key(w, wn, name))
    return study_key_error(w, root, "workloads", name,
                           "the load steps set it (workloads.load.%s): give one or the other", name);
  for (size_t i = 0; wl->load == PLACER_STUDY_LOAD_RATE_IOPS && i < wl->fio_options.n; i++)
    if (strncmp(wl->fio_options.items[i], "--rate_iops=", 12) == 0) {
      size_t saved = pyaml_walk_push(w, "workloads");
      int rc = pyaml_walk_key_error(w, study_seq_item(w, pyaml_walk_lookup(w, wn, "fio_options"), i), "fio_options",
                                    "[%zu]: '%s': the load steps set the rate (workloads.load.rate_iops)", i,
                                    wl->fio_options.items[i]);
      pyaml_walk_pop(w, saved);
      return rc;
    }
  const struct placer_slo *slo = &s->slo;
  if (pyaml_walk_lookup(w, root, "slo") && wl->n_load_steps == 0)
    return study_key_error(w, root, NULL, "slo",
                           "an SLO is read off response curves: give workloads.load steps (one step, such as { "
                           "iodepth: [16] }, is a curve of one point)");
  bool storage = pyaml_walk_lookup(w, pyaml_walk_lookup(w, root, "slo"), "storage") != NULL;
  if (storage && !placer_slo_storage_set(slo))
    return slo_error(w, root, "storage", "at",
                     "slo.storage needs a latency target to hold (p50, p99 or p99.9), such as p99: 2ms");
  if (!isnan(slo->keep) && s->n_neighbours == 0)
    return slo_error(w, root, "neighbours", "keep", "the study has no neighbours to keep a share of their rate");
  if (slo->at == PLACER_SLO_AT_IOPS || slo->at == PLACER_SLO_AT_BYTES) {
    /* the judged workload's unit: the sweep's, else the first */
    for (size_t i = 0; i < placer_study_n_workloads(s); i++) {
      struct placer_bench_workload x = { 0 };
      if (placer_study_workload(s, i, &x, w->err) < 0)
        return -1;
      bool bytes = placer_bench_workload_uses_bandwidth(&x);
      bool judged = s->sweep.workload
                        ? strcmp(x.name, s->sweep.workload) == 0 || (x.curve && strcmp(x.curve, s->sweep.workload) == 0)
                        : i == 0;
      if (judged && bytes != (slo->at == PLACER_SLO_AT_BYTES)) {
        char msg[200];
        snprintf(msg, sizeof(msg), "the workload it judges is measured in %s: give %s",
                 bytes ? "MB/s (blocks of 64 KiB and more)" : "IOPS",
                 bytes ? "a rate of bytes such as 200MiB/s" : "a rate in IOPS such as 5000 iops");
        placer_bench_workload_clear(&x);
        return slo_error(w, root, "storage", "at", msg);
      }
      placer_bench_workload_clear(&x);
      if (judged)
        break;
    }
  }
  double *steps = wl->load_steps;
  size_t n = wl->n_load_steps, bad;
  char why[200];
  if (n > 0 && placer_slo_check_steps(slo, name, steps, n, &bad, why, sizeof(why)) < 0) {
    if (bad < n) { /* parse_load checked the steps: only the slo's `at` is left, but be exact */
      size_t saved = pyaml_walk_push(w, "workloads.load");
      int rc = pyaml_walk_error(w, wn, "%s", why);
      pyaml_walk_pop(w, saved);
      return rc;
    }
    return slo_error(w, root, "storage", "at", why);
  }
  return 0;
}
