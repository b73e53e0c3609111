/* placer bench --resume DIR: the study a results directory was made by
 * (its summary.json names the study file and the counts given on the
 * command line), and the runs it already holds, so that only what is
 * missing runs again. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/internal.h"
#include "lib/textfile.h"

static int load_summary(const char *dir, json_t **out, struct placer_error **err) {
  if (placer_bench_summary_load(dir, out, NULL, err) < 0)
    return placer_error_prefix(err, "--resume '%s' (not a results directory of placer bench?)", dir);
  return 0;
}

int placer_bench_resume_study(const char *dir, struct placer_study **out, struct placer_error **err) {
  json_t *j = NULL;
  /* a results directory is data, maybe from elsewhere: no link is written through */
  if (bench_results_dir_check(dir, err) < 0)
    return placer_error_prefix(err, "--resume");
  if (load_summary(dir, &j, err) < 0)
    return -1;
  /* what it takes over is checked like the rest, before any of it is used */
  if (placer_bench_results_check(j, err) < 0) {
    json_decref(j);
    return placer_error_prefix(err, "--resume '%s': summary.json", dir);
  }
  const json_t *s = json_object_get(j, "study");
  const char *file = json_string_value(json_object_get(s, "study_file"));
  if (file == NULL) {
    json_decref(j);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "--resume '%s': summary.json does not name its study file", dir);
  }
  struct placer_study *study = NULL;
  if (placer_study_load(file, &study, err) < 0) {
    json_decref(j);
    return placer_error_prefix(err, "--resume '%s'", dir);
  }
  /* what --repeats, --warmup and --runtime said the first time */
  study->repeats = (unsigned)json_integer_value(json_object_get(s, "repeats"));
  study->repeats_max = (unsigned)json_integer_value(json_object_get(s, "repeats_max"));
  if (study->repeats_max < study->repeats)
    study->repeats_max = study->repeats;
  if (json_is_number(json_object_get(s, "ci_width")))
    study->ci_width = json_number_value(json_object_get(s, "ci_width"));
  study->warmup = (unsigned)json_integer_value(json_object_get(s, "warmup"));
  study->workloads.runtime_s = (unsigned)json_integer_value(json_object_get(s, "runtime_s"));
  json_decref(j);
  if (study->repeats == 0 || study->workloads.runtime_s == 0) {
    placer_study_free(study);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "--resume '%s': summary.json has no repeats or runtime_s", dir);
  }
  *out = study;
  return 0;
}

static bool same_names(char **a, size_t na, const char *const *b, size_t nb) {
  if (na != nb)
    return false;
  for (size_t i = 0; i < na; i++)
    if (strcmp(a[i], b[i]) != 0)
      return false;
  return true;
}

int bench_resume_results(struct bench *b, struct placer_error **err) {
  json_t *j = NULL;
  if (load_summary(b->out, &j, err) < 0)
    return -1;
  struct placer_bench_results *old = NULL;
  int rc = placer_bench_results_from_json(j, &old, err);
  json_t *baseline = json_object_get(j, "hardware_baseline");
  if (rc == 0 && json_is_object(baseline))
    b->baseline = json_incref(baseline);
  json_t *csv_bytes = json_object_get(j, "csv_bytes");
  if (rc == 0 && json_is_object(csv_bytes))
    b->resume_csv_bytes = json_incref(csv_bytes);
  json_decref(j);
  if (rc < 0)
    return placer_error_prefix(err, "--resume '%s': summary.json", b->out);
  const struct placer_bench_results *now = b->results;
  bool same = old->n_workloads == now->n_workloads && old->n_conditions == now->n_conditions &&
              old->repeats == now->repeats && (old->recovery == NULL) == (now->recovery == NULL) &&
              same_names(old->variants, old->n_variants, (const char *const *)now->variants, now->n_variants);
  for (size_t i = 0; same && i < old->n_workloads; i++)
    same = strcmp(old->workloads[i].name, now->workloads[i].name) == 0;
  for (size_t i = 0; same && i < old->n_conditions; i++)
    same = strcmp(old->conditions[i].name, now->conditions[i].name) == 0;
  if (!same) {
    placer_bench_results_free(old);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "--resume '%s': the study file no longer makes the same variants, workloads, conditions, "
                            "repeats and recovery runs as summary.json; run it anew",
                            b->out);
  }
  old->interrupted = true; /* until it has run to its end */
  placer_bench_results_free(b->results);
  b->results = old;
  return 0;
}

bool bench_run_done(const struct bench *b, size_t v, size_t c, size_t w, size_t repeat) {
  const struct placer_bench_run *run = placer_bench_results_run_const(b->results, v, c, w, repeat);
  return run && run->done;
}

bool bench_pass_done(const struct bench *b, size_t v, int repeat) {
  if (repeat < 0) /* a warm-up pass: only before the first measured run */
    return b->resumed;
  for (size_t c = 0; c < b->n_conds; c++) {
    if (c > 0 && isnan(placer_bench_results_solo(b->results, v, c, (size_t)repeat)))
      return false;
    for (size_t w = 0; w < b->n_workloads; w++)
      if (!bench_run_done(b, v, c, w, (size_t)repeat))
        return false;
  }
  return !b->study->recovery.enabled || bench_recovery_done(b, v, (size_t)repeat);
}
