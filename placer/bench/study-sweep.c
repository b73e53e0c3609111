/* A study's sweep (docs/bench.md, "sweep" and "Split sweeps"): its values,
 * the checks of its keys against the study, and a placement sweep's
 * variants, made from one variant's profile (sweep.from) with each step's
 * change of it. */
#include "bench/study-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "profile/profile.h"
#include "results/results.h" /* placer_bench_sweep_parameter_names */

bool placer_study_sweeps_placement(const struct placer_study *s) {
  return s->sweep.enabled && s->sweep.parameter != PLACER_STUDY_SWEEP_INTENSITY;
}

const char *placer_study_sweep_parameter_name(int parameter) {
  return parameter >= 0 && parameter <= PLACER_STUDY_SWEEP_WEIGHT
             ? placer_bench_sweep_parameter_names[parameter] /* by enum placer_study_sweep_parameter */
             : "?";
}

/* Positive decimals, ascending and distinct; what they mean is checked
 * with the parameter (study_check_sweep). */
int study_parse_sweep_values(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_sweep *sw = target;
  if (v->type != YAML_SEQUENCE_NODE || study_seq_len(v) == 0)
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty list of values such as [1, 2, 4]");
  size_t n = study_seq_len(v);
  free(sw->steps);
  free(sw->step_line);
  free(sw->step_column);
  sw->n_steps = 0;
  sw->steps = calloc(n, sizeof(*sw->steps));
  sw->step_line = calloc(n, sizeof(*sw->step_line));
  sw->step_column = calloc(n, sizeof(*sw->step_column));
  if (sw->steps == NULL || sw->step_line == NULL || sw->step_column == NULL)
    return study_oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = study_seq_item(w, v, i);
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
      return study_key_error(w, root, "sweep", "from",
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
      return study_key_error(w, root, "sweep", "from", "'%s' is not one of the variants (%s)", s->sweep.from, names);
    }
    s->sweep.from_index = i;
    if (!cores)
      return 0;
    int pins = variant_pins(w, s, i);
    if (pins < 0)
      return -1;
    if (!pins)
      return study_key_error(
          w, root, "sweep", "from",
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
  return study_key_error(w, root, "sweep", "parameter",
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
    return study_key_error(w, root, "sweep", "values", "at most 64 variants with the steps");
  struct placer_study_variant *vs = realloc(s->variants, (given + s->sweep.n_steps) * sizeof(*vs));
  if (vs == NULL)
    return study_oom(w);
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
        return study_key_error(w, root, "sweep", "values",
                               "quota %g: expected cores 0.01..65536 with at most 3 decimals", x);
      snprintf(name, sizeof(name), "quota-%g", x);
      snprintf(set, sizeof(set), "@storage.cpu.quota=%g", x);
      rc |= placer_string_list_add(&v->sets, set);
      break;
    }
    case PLACER_STUDY_SWEEP_CORES:
      if (x != floor(x) || x > 65536)
        return study_key_error(w, root, "sweep", "values", "cores %g: expected whole cores 1..65536", x);
      snprintf(name, sizeof(name), "cores-%g", x);
      snprintf(set, sizeof(set), "@storage.cpu.cores=%g", x);
      rc |= placer_string_list_add(&v->sets, set);
      break;
    case PLACER_STUDY_SWEEP_WEIGHT: {
      /* storage : neighbours = x : 1 on the weight scale, 100 the smaller side. */
      double ws = x >= 1 ? 100.0 * x : 100.0, wn = x >= 1 ? 100.0 : 100.0 / x;
      if (ws > 10000.5 || wn > 10000.5)
        return study_key_error(w, root, "sweep", "values", "weight ratio %g: expected 0.01..100 (storage : neighbours)",
                               x);
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
      return study_oom(w);
    }
    s->n_variants = given + i + 1;
    for (size_t k = 0; k < given; k++)
      if (strcmp(v->name, vs[k].name) == 0)
        return study_key_error(w, root, "variants", NULL, "variant '%s' has the name of a sweep step", v->name);
  }
  return 0;
}

int study_check_sweep(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root) {
  yaml_node_t *sn = pyaml_walk_lookup(w, root, "sweep");
  s->sweep.enabled = sn != NULL;
  if (!s->sweep.enabled)
    return 0;
  if (s->n_neighbours == 0)
    return study_key_error(w, root, NULL, "sweep",
                           "a sweep measures storage against its neighbours: list 'neighbours' too");
  if (s->sweep.n_steps == 0)
    return study_key_error(w, root, "sweep", "values", "a sweep needs 'values' (the steps)");
  if (s->sweep.roles.n && s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY)
    return study_key_error(w, root, "sweep", "roles", "only goes with a placement sweep (quota, cores, weight)");
  for (size_t i = 0; i < s->sweep.roles.n; i++)
    for (size_t k = 0; k < s->n_neighbours; k++)
      if (strcmp(s->sweep.roles.items[i], s->neighbours[k].role) == 0) {
        size_t saved = pyaml_walk_push(w, "sweep");
        int rc = pyaml_walk_key_error(
            w, study_seq_item(w, pyaml_walk_lookup(w, pyaml_walk_lookup(w, root, "sweep"), "roles"), i), "roles",
            "[%zu]: '%s' is the neighbours' role (neighbours[%zu]): a split sweep measures storage against the "
            "neighbours, so they cannot be the storage",
            i, s->sweep.roles.items[i], k);
        pyaml_walk_pop(w, saved);
        return rc;
      }
  if (s->sweep.from && s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY)
    return study_key_error(
        w, root, "sweep", "from",
        "only goes with a placement sweep (quota, cores, weight): an intensity sweep runs every variant");
  if (s->sweep.parameter == PLACER_STUDY_SWEEP_INTENSITY) {
    if (s->sweep.n_steps + 1 > 64)
      return study_key_error(w, root, "sweep", "values", "at most 63 steps");
    s->sweep.values = calloc(s->sweep.n_steps, sizeof(*s->sweep.values));
    if (s->sweep.values == NULL)
      return study_oom(w);
    for (size_t i = 0; i < s->sweep.n_steps; i++) {
      double x = s->sweep.steps[i];
      if (x != floor(x) || x < 1 || x > 1024)
        return study_key_error(
            w, root, "sweep", "values",
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
    int found = study_has_workload(s, s->sweep.workload, true);
    if (found < 0)
      return study_oom(w);
    if (!found)
      return study_key_error(w, root, "sweep", "workload", "'%s' is not one of the workloads (e.g. \"4k-randwrite\")",
                             s->sweep.workload);
  }
  return 0;
}
