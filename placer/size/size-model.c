/* The sizing model -- IOPS follow the CPU the OSDs get -- fitted on some
 * allotments and checked on others (bench/size-validate.sh's measurements). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "size/size.h"
#include "results/stats.h"
#include "lib/text-table.h"
#include "lib/textfile.h"

static double median(double *x, size_t n) {
  struct placer_stats_summary s;
  placer_stats_summarize(x, n, &s);
  return s.median;
}

int placer_size_model_fit(const struct placer_size_point *points, size_t n, struct placer_size_model *out) {
  double *cost = calloc(n ? n : 1, sizeof(double));
  if (cost == NULL)
    return -1;
  size_t k = 0;
  double demand = INFINITY;
  for (size_t i = 0; i < n; i++) {
    const struct placer_size_point *p = &points[i];
    if (!(p->iops > 0) || !(p->used_cores > 0))
      continue;
    cost[k++] = p->used_cores * 1000.0 / p->iops;
    /* well below its allotment: the OSDs did not want more */
    if (p->used_cores < 0.9 * p->allotted_cores && (isinf(demand) || p->used_cores > demand))
      demand = p->used_cores;
  }
  if (k == 0) {
    free(cost);
    return -1;
  }
  out->ms_per_io = median(cost, k);
  out->demand_cores = demand;
  free(cost);
  return 0;
}

double placer_size_model_iops(const struct placer_size_model *m, double allotted_cores) {
  double cores = allotted_cores < m->demand_cores ? allotted_cores : m->demand_cores;
  return m->ms_per_io > 0 ? cores * 1000.0 / m->ms_per_io : NAN;
}

void placer_size_check_free(struct placer_size_check *c) {
  if (c == NULL)
    return;
  for (size_t i = 0; i < c->n_rows; i++)
    free(c->rows[i].workload);
  free(c->rows);
  free(c);
}

static bool is_fit(double q, const double *fit, size_t n_fit) {
  for (size_t i = 0; i < n_fit; i++)
    if (fabs(q - fit[i]) < 1e-6)
      return true;
  return false;
}

/* The median point of every (workload, allotment) of the runs. */
static int rows_of(json_t *runs, struct placer_size_check *c) {
  size_t n = json_array_size(runs);
  for (size_t i = 0; i < n; i++) {
    json_t *run = json_array_get(runs, i);
    const char *w = json_string_value(json_object_get(run, "workload"));
    double q = json_number_value(json_object_get(run, "quota_cores"));
    if (w == NULL || !(q > 0))
      continue;
    bool seen = false;
    for (size_t k = 0; k < c->n_rows; k++)
      seen |= strcmp(c->rows[k].workload, w) == 0 && fabs(c->rows[k].allotted_cores - q) < 1e-6;
    if (seen)
      continue;
    struct placer_size_check_row *bigger = realloc(c->rows, (c->n_rows + 1) * sizeof(*bigger));
    if (bigger == NULL)
      return -1;
    c->rows = bigger;
    struct placer_size_check_row *row = &c->rows[c->n_rows++];
    memset(row, 0, sizeof(*row));
    row->allotted_cores = q;
    if ((row->workload = strdup(w)) == NULL)
      return -1;
    double *iops = calloc(n, sizeof(double)), *used = calloc(n, sizeof(double));
    if (iops == NULL || used == NULL) {
      free(iops);
      free(used);
      return -1;
    }
    for (size_t j = 0; j < n; j++) {
      json_t *r = json_array_get(runs, j);
      const char *rw = json_string_value(json_object_get(r, "workload"));
      double rq = json_number_value(json_object_get(r, "quota_cores"));
      double ri = json_number_value(json_object_get(r, "iops"));
      double cpu = json_number_value(json_object_get(r, "osd_cpu_s"));
      double t = json_number_value(json_object_get(r, "runtime_s"));
      if (rw == NULL || strcmp(rw, w) != 0 || fabs(rq - q) > 1e-6 || !(ri > 0) || !(t > 0))
        continue;
      iops[row->n] = ri;
      used[row->n] = cpu / t;
      row->n++;
    }
    row->iops = row->n ? median(iops, row->n) : NAN;
    row->used = row->n ? median(used, row->n) : NAN;
    free(iops);
    free(used);
  }
  return 0;
}

static void finish_check(struct placer_size_check *c, const double *fit, size_t n_fit) {
  /* per workload: fit on the fit allotments, predict every row */
  for (size_t i = 0; i < c->n_rows; i++) {
    struct placer_size_point pts[64];
    size_t k = 0;
    for (size_t r = 0; r < c->n_rows && k < 64; r++)
      if (strcmp(c->rows[r].workload, c->rows[i].workload) == 0 && is_fit(c->rows[r].allotted_cores, fit, n_fit))
        pts[k++] = (struct placer_size_point){ c->rows[r].allotted_cores, c->rows[r].iops, c->rows[r].used };
    struct placer_size_model m;
    struct placer_size_check_row *row = &c->rows[i];
    row->fitted = is_fit(row->allotted_cores, fit, n_fit);
    row->predicted = placer_size_model_fit(pts, k, &m) == 0 ? placer_size_model_iops(&m, row->allotted_cores) : NAN;
    row->error = row->predicted / row->iops - 1;
    if (!row->fitted && isfinite(row->error) && fabs(row->error) > c->max_abs_error)
      c->max_abs_error = fabs(row->error);
  }
  /* by workload, then allotment */
  for (size_t i = 1; i < c->n_rows; i++)
    for (size_t k = i; k > 0; k--) {
      struct placer_size_check_row *a = &c->rows[k - 1], *b = &c->rows[k];
      int cmp = strcmp(a->workload, b->workload);
      if (cmp < 0 || (cmp == 0 && a->allotted_cores <= b->allotted_cores))
        break;
      struct placer_size_check_row t = *a;
      *a = *b;
      *b = t;
    }
}

/* bench/size-validate.sh's JSON checked as summary.json is (results-check.c)
 * before it is used: a figure out of its range, a word for a number or a
 * name with control bytes is one line naming the key, never a "nan" in the
 * table or an escape sequence on the terminal. */
#define MAX_VALIDATION_RUNS 65536

struct figure {
  const char *key;
  bool integer, optional, positive; /* positive: more than 0, else at least 0 */
  double max;
};

static int figure_check(const char *path, const char *where, const json_t *obj, const struct figure *f,
                        struct placer_error **err) {
  const json_t *v = json_object_get(obj, f->key);
  if (v == NULL && f->optional)
    return 0;
  const char *want = f->integer ? "a whole number" : "a number";
  if (v == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: %s%s: missing (expected %s)", path, where, f->key,
                            want);
  if (f->integer ? !json_is_integer(v) : !json_is_number(v))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: %s%s: expected %s, got %s", path, where, f->key, want,
                            json_is_string(v)   ? "a string"
                            : json_is_number(v) ? "a fraction"
                            : json_is_null(v)   ? "null"
                                                : "another type");
  double x = json_number_value(v);
  if (x < 0 || (f->positive && x == 0))
    return placer_error_set(err, PLACER_EXIT_USAGE, ERANGE, "%s: %s%s: %g is %s", path, where, f->key, x,
                            x < 0 ? "negative" : "not more than 0");
  if (x > f->max)
    return placer_error_set(err, PLACER_EXIT_USAGE, ERANGE, "%s: %s%s: %g is more than %g", path, where, f->key, x,
                            f->max);
  return 0;
}

static int validation_check(const char *path, const json_t *j, struct placer_error **err) {
  static const struct figure top[] = {
    { "version", true, false, true, 1 },
    { "osds", true, false, true, 1024 },
    { "replicas", true, false, true, 16 },
  };
  static const struct figure run[] = {
    { "quota_cores", false, false, true, 65536 }, /* an allotment of no CPU measures nothing */
    { "repeat", true, false, false, 1e6 },        { "iops", false, false, false, 1e12 },
    { "total_ios", true, true, false, 1e15 },     { "osd_cpu_s", false, false, false, 1e9 },
    { "runtime_s", false, false, true, 1e9 }, /* the window the rates are over */
    { "fio_iops", false, true, false, 1e12 },
  };
  for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
    if (figure_check(path, "", j, &top[i], err) < 0)
      return -1;
  const json_t *runs = json_object_get(j, "runs");
  if (json_array_size(runs) > MAX_VALIDATION_RUNS)
    return placer_error_set(err, PLACER_EXIT_USAGE, E2BIG, "%s: runs: %zu entries, more than %d", path,
                            json_array_size(runs), MAX_VALIDATION_RUNS);
  for (size_t i = 0; i < json_array_size(runs); i++) {
    const json_t *r = json_array_get(runs, i);
    char where[48];
    snprintf(where, sizeof(where), "runs[%zu].", i);
    if (!json_is_object(r))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: runs[%zu]: expected an object", path, i);
    const json_t *w = json_object_get(r, "workload");
    const char *name = json_string_value(w);
    if (name == NULL || name[0] == '\0' || json_string_length(w) > 255 || strlen(name) != json_string_length(w))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "%s: %sworkload: expected a name (a string of 1 to 255 bytes)", path, where);
    for (const char *p = name; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f) {
        cleanup_free char *shown = placer_text_escape(name);
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: %sworkload: the name '%s' has a control byte",
                                path, where, shown ? shown : "?");
      }
    for (size_t k = 0; k < sizeof(run) / sizeof(run[0]); k++)
      if (figure_check(path, where, r, &run[k], err) < 0)
        return -1;
  }
  return 0;
}

int placer_size_check_file(const char *path, const double *fit, size_t n_fit, struct placer_size_check **out,
                           struct placer_error **err) {
  cleanup_free char *text = NULL;
  size_t len = 0;
  if (placer_textfile_read_input("--validate", path, PLACER_TEXTFILE_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  json_t *j = NULL;
  if (placer_bench_json_parse(path, text, len, &j, err) < 0)
    return -1;
  const char *format = json_string_value(json_object_get(j, "format"));
  json_t *runs = json_object_get(j, "runs");
  if (format == NULL || strcmp(format, "placer-size-validation") != 0 || !json_is_array(runs)) {
    json_decref(j);
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s: not the output of bench/size-validate.sh (format placer-size-validation)", path);
  }
  if (validation_check(path, j, err) < 0) {
    json_decref(j);
    return -1;
  }
  struct placer_size_check *c = calloc(1, sizeof(*c));
  if (c == NULL || rows_of(runs, c) < 0) {
    json_decref(j);
    placer_size_check_free(c);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s", path);
  }
  json_decref(j);
  finish_check(c, fit, n_fit);
  *out = c;
  return 0;
}

int placer_size_check_print(const struct placer_size_check *c, const double *fit, size_t n_fit, FILE *out) {
  fputs("model: IOPS = min(allotted, demand) x 1000 / (ms of OSD CPU per I/O); fit on", out);
  for (size_t i = 0; i < n_fit; i++)
    fprintf(out, "%s %.2f", i ? "," : "", fit[i]);
  fputs(" cores\n\n", out);
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "workload");
  placer_table_cell_r(&t, "OSD cores allotted");
  placer_table_cell_r(&t, "runs");
  placer_table_cell_r(&t, "OSD cores used");
  placer_table_cell_r(&t, "IOPS measured");
  placer_table_cell_r(&t, "IOPS predicted");
  placer_table_cell_r(&t, "error");
  for (size_t i = 0; i < c->n_rows; i++) {
    const struct placer_size_check_row *r = &c->rows[i];
    cleanup_free char *name = placer_text_escape(r->workload);
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", name ? name : "?");
    placer_table_cell_r(&t, "%.2f%s", r->allotted_cores, r->fitted ? " (fit)" : "");
    placer_table_cell_r(&t, "%zu", r->n);
    /* a figure the runs do not give (no CPU measured, nothing to fit on) is "-", never "nan" */
    placer_table_cell_r(&t, isfinite(r->used) ? "%.2f" : "-", r->used);
    placer_table_cell_r(&t, isfinite(r->iops) ? "%.0f" : "-", r->iops);
    placer_table_cell_r(&t, isfinite(r->predicted) ? "%.0f" : "-", r->predicted);
    placer_table_cell_r(&t, isfinite(r->error) ? "%+.1f%%" : "-", 100 * r->error);
  }
  if (placer_table_print(&t, out) < 0)
    return -1;
  size_t predicted = 0, finite = 0;
  for (size_t i = 0; i < c->n_rows; i++) {
    predicted += !c->rows[i].fitted;
    finite += !c->rows[i].fitted && isfinite(c->rows[i].error);
  }
  if (finite)
    fprintf(out, "\nlargest error where predicted: %.1f%%\n", 100 * c->max_abs_error);
  else if (predicted)
    fputs("\nnothing predicted: the fit allotments give no cost per I/O (no IOPS or no OSD CPU measured there)\n", out);
  else
    fputs("\nnothing predicted: every allotment measured is a fit allotment (see --fit)\n", out);
  return ferror(out) ? -1 : 0;
}

/* "quota-0.5" -> 0.5 (bench's quota sweep names its variants so); -1 otherwise */
static double quota_of(const char *variant) {
  if (strncmp(variant, "quota-", 6) != 0)
    return -1;
  char *end = NULL;
  double v = strtod(variant + 6, &end);
  return end != variant + 6 && *end == '\0' && v > 0 ? v : -1;
}

int placer_size_check_results(const struct placer_bench_results *r, const double *fit, size_t n_fit,
                              struct placer_size_check **out, struct placer_error **err) {
  int alone = placer_bench_alone_condition(r);
  if (alone < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "validate: the results have no condition without neighbours");
  struct placer_size_check *c = calloc(1, sizeof(*c));
  double *iops = calloc(r->repeats ? r->repeats : 1, sizeof(double));
  double *used = calloc(r->repeats ? r->repeats : 1, sizeof(double));
  if (c == NULL || iops == NULL || used == NULL)
    goto oom;
  size_t quota_variants = 0;
  bool knobs = r->split_parameter && strcmp(r->split_parameter, "quota") == 0 && r->knobs;
  for (size_t v = 0; v < r->n_variants; v++) {
    double q = knobs ? (isfinite(r->knobs[v]) ? r->knobs[v] : -1) : quota_of(r->variants[v]);
    quota_variants += q > 0;
    for (size_t w = 0; w < r->n_workloads; w++) {
      size_t n = 0;
      size_t cpus = 0;
      for (size_t rep = 0; rep < r->repeats; rep++) {
        const struct placer_bench_run *run = placer_bench_results_run_const(r, v, (size_t)alone, w, rep);
        if (run == NULL || !run->done)
          continue;
        double i = placer_bench_run_main_metric(run, &r->workloads[w]);
        double u = placer_bench_run_role_cores(run, r->storage_role);
        if (!(i > 0) || !(u > 0))
          continue;
        iops[n] = i;
        used[n] = u;
        n++;
        if (run->n_cpus > cpus)
          cpus = run->n_cpus;
      }
      /* the base variant (no quota): the whole machine is its allotment */
      if (n == 0 || (q <= 0 && (v != 0 || cpus == 0)))
        continue;
      struct placer_size_check_row *bigger = realloc(c->rows, (c->n_rows + 1) * sizeof(*bigger));
      if (bigger == NULL)
        goto oom;
      c->rows = bigger;
      struct placer_size_check_row *row = &c->rows[c->n_rows++];
      memset(row, 0, sizeof(*row));
      if ((row->workload = strdup(r->workloads[w].name)) == NULL)
        goto oom;
      row->allotted_cores = q > 0 ? q : r->node_cpus > 0 ? r->node_cpus : (double)cpus;
      row->n = n;
      row->iops = median(iops, n);
      row->used = median(used, n);
    }
  }
  free(iops);
  free(used);
  if (quota_variants == 0) {
    placer_size_check_free(c);
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "validate: no variant named quota-CORES (a study with sweep: {parameter: quota})");
  }
  finish_check(c, fit, n_fit);
  *out = c;
  return 0;
oom:
  free(iops);
  free(used);
  placer_size_check_free(c);
  return placer_error_oom(err, "validate");
}
