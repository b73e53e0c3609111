/* The CI gate between two results directories; see compare.h. */
#include "results/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/text-table.h"
#include "lib/textfile.h"

static void fmt_change(double x, char *buf, size_t len) {
  if (isnan(x))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%+.1f%%", round(x * 1000.0) == 0 ? 0.0 : round(x * 1000.0) / 10.0);
}

static void fmt_p(double p, char *buf, size_t len) {
  if (isnan(p))
    snprintf(buf, len, "-");
  else if (p < 0.001)
    snprintf(buf, len, "p<0.001");
  else
    snprintf(buf, len, "p=%.3f", p);
}

/* The main metric of every done run of a cell. */
static size_t cell_main(const struct placer_bench_results *r, size_t v, size_t c, size_t w, double *out) {
  size_t n = 0;
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    double x = run ? placer_bench_run_main_metric(run, &r->workloads[w]) : NAN;
    if (!isnan(x))
      out[n++] = x;
  }
  return n;
}

/* Whether a workload of R is judged on a cost, lower being better. */
static bool any_cost(const struct placer_bench_results *r) {
  for (size_t w = 0; w < r->n_workloads; w++)
    if (r->workloads[w].lower_is_better)
      return true;
  return false;
}

/* "a block workload", "a metadata workload of 2000 files in 2 directories, 2 jobs": for messages. */
static void workload_shape(const struct placer_bench_workload *w, char *buf, size_t len) {
  if (w->kind == PLACER_BENCH_WORKLOAD_METADATA)
    snprintf(buf, len, "a metadata workload of %llu files in %u directories, %u jobs", (unsigned long long)w->files,
             w->directories, w->jobs);
  else
    snprintf(buf, len, "a %s workload", placer_bench_workload_kind_names[w->kind]);
}

int placer_bench_compare_same_cells(const struct placer_bench_results *base, const struct placer_bench_results *cand,
                                    struct placer_error **err) {
  for (size_t w = 0; w < cand->n_workloads; w++) {
    const struct placer_bench_workload *y = &cand->workloads[w];
    int bw = placer_bench_results_workload_index(base, y->name);
    if (bw < 0)
      continue;
    const struct placer_bench_workload *x = &base->workloads[bw];
    if (x->kind != y->kind || x->files != y->files || x->directories != y->directories || x->jobs != y->jobs) {
      cleanup_free char *name = placer_text_escape(y->name);
      char a[96], b[96];
      workload_shape(x, a, sizeof(a));
      workload_shape(y, b, sizeof(b));
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "compare: workload '%s' is %s in the baseline and %s in the candidate: not the same cell",
                              name ? name : "?", a, b);
    }
    const char *px = x->pattern ? x->pattern : "", *py = y->pattern ? y->pattern : "";
    bool bx = placer_bench_workload_uses_bandwidth(x), by = placer_bench_workload_uses_bandwidth(y);
    bool same_load = (x->curve == NULL) == (y->curve == NULL) &&
                     (x->curve == NULL || (strcmp(x->curve, y->curve) == 0 && strcmp(x->load_name, y->load_name) == 0 &&
                                           x->load == y->load));
    if (strcmp(px, py) == 0 && x->block_size_bytes == y->block_size_bytes && bx == by &&
        x->lower_is_better == y->lower_is_better && same_load)
      continue;
    if (!same_load) {
      cleanup_free char *name = placer_text_escape(y->name);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "compare: workload '%s' is %s %g in the baseline and %s %g in the candidate: not the "
                              "same cell",
                              name ? name : "?", x->curve ? x->load_name : "no load step", x->curve ? x->load : 0,
                              y->curve ? y->load_name : "no load step", y->curve ? y->load : 0);
    }
    cleanup_free char *name = placer_text_escape(y->name), *ex = placer_text_escape(px), *ey = placer_text_escape(py);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "compare: workload '%s' is %s of %llu B (%s) in the baseline and %s of %llu B (%s) in the "
                            "candidate: not the same cell",
                            name ? name : "?", ex ? ex : "?", (unsigned long long)x->block_size_bytes,
                            bx ? "MB/s" : "IOPS", ey ? ey : "?", (unsigned long long)y->block_size_bytes,
                            by ? "MB/s" : "IOPS");
  }
  return 0;
}

/* The load steps of a response curve that are in one results and not the
 * other: compared are the steps both have; these are said, not judged. */
static void skipped_steps(const struct placer_bench_results *base, const struct placer_bench_results *cand, FILE *f) {
  const struct placer_bench_results *sides[2] = { base, cand }, *others[2] = { cand, base };
  static const char *const only[2] = { "only in the baseline", "only in the candidate" };
  size_t skipped = 0, shared = 0;
  for (size_t side = 0; side < 2; side++)
    for (size_t w = 0; w < sides[side]->n_workloads; w++) {
      const struct placer_bench_workload *x = &sides[side]->workloads[w];
      if (x->curve == NULL)
        continue;
      if (placer_bench_results_workload_index(others[side], x->name) >= 0) {
        shared += side == 0;
        continue;
      }
      cleanup_free char *name = placer_text_escape(x->curve);
      fprintf(f, "%s%s %s %g (%s)", skipped++ ? ", " : "Load steps skipped, not in both: ", name ? name : "?",
              x->load_name, x->load, only[side]);
    }
  if (skipped)
    fprintf(f, "; the %zu step%s both have compared.\n", shared, shared == 1 ? "" : "s");
}

int placer_bench_compare_results(const struct placer_bench_results *base, const struct placer_bench_results *cand,
                                 const struct placer_bench_gate *gate, char **report, size_t *n_regressed,
                                 size_t *n_cells, struct placer_error **err) {
  *n_regressed = *n_cells = 0;
  if (placer_bench_compare_same_cells(base, cand, err) < 0)
    return -1;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  double *a = malloc((base->repeats + 1) * sizeof(*a)), *b = malloc((cand->repeats + 1) * sizeof(*b));
  if (f == NULL || a == NULL || b == NULL) {
    if (f)
      fclose(f);
    free(text);
    free(a);
    free(b);
    return placer_error_oom(err, "compare");
  }
  cleanup_free char *base_title = placer_text_escape(base->title), *cand_title = placer_text_escape(cand->title);
  fprintf(f, "placer compare: %s (baseline) against %s (candidate)\n", base_title ? base_title : "?",
          cand_title ? cand_title : "?");
  fprintf(f,
          "Per cell: candidate median vs baseline median, bootstrap 95%% CI, Mann-Whitney p.  Regression: a drop of\n"
          "more than %g%% with p < %g%s.\n\n",
          gate->threshold * 100, gate->alpha, any_cost(cand) ? " (a rise, where lower is better)" : "");
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "cell");
  placer_table_cell_r(&t, "baseline");
  placer_table_cell_r(&t, "candidate");
  placer_table_cell_r(&t, "change");
  placer_table_cell_r(&t, "95%% CI");
  placer_table_cell_r(&t, "p");
  placer_table_cell_l(&t, "verdict");
  char regressed_list[1024] = "";
  for (size_t v = 0; v < cand->n_variants; v++) {
    int bv = placer_bench_results_variant_index(base, cand->variants[v]);
    for (size_t c = 0; bv >= 0 && c < cand->n_conditions; c++) {
      int bc = placer_bench_results_condition_index(base, cand->conditions[c].name);
      for (size_t w = 0; bc >= 0 && w < cand->n_workloads; w++) {
        int bw = placer_bench_results_workload_index(base, cand->workloads[w].name);
        if (bw < 0)
          continue;
        size_t na = cell_main(base, (size_t)bv, (size_t)bc, (size_t)bw, a);
        size_t nb = cell_main(cand, v, c, w, b);
        if (na == 0 || nb == 0)
          continue;
        struct placer_stats_comparison cmp;
        placer_stats_compare(a, na, b, nb, &cmp);
        (*n_cells)++;
        /* a throughput regresses when it drops, a cost (lower is better) when it rises */
        double worse = cand->workloads[w].lower_is_better ? cmp.change : -cmp.change;
        bool regress = worse > gate->threshold && cmp.p_value < gate->alpha;
        bool improve = -worse > gate->threshold && cmp.p_value < gate->alpha;
        char ch[32], lo[32], hi[32], p[32], cell[256];
        fmt_change(cmp.change, ch, sizeof(ch));
        fmt_change(cmp.ci_low, lo, sizeof(lo));
        fmt_change(cmp.ci_high, hi, sizeof(hi));
        fmt_p(cmp.p_value, p, sizeof(p));
        snprintf(cell, sizeof(cell), "%s / %s / %s", cand->variants[v], cand->conditions[c].name,
                 cand->workloads[w].name);
        placer_table_row(&t, false);
        placer_table_cell_l(&t, "%s", cell);
        placer_table_cell_r(&t, "%.0f (n=%zu)", cmp.median_a, na);
        placer_table_cell_r(&t, "%.0f (n=%zu)", cmp.median_b, nb);
        placer_table_cell_r(&t, "%s", ch);
        placer_table_cell_r(&t, "[%s, %s]", lo, hi);
        placer_table_cell_r(&t, "%s", p);
        placer_table_cell_l(&t, "%s",
                            regress                     ? "REGRESSION"
                            : improve                   ? "improved"
                            : cmp.p_value < gate->alpha ? "changed, within the threshold"
                                                        : "no significant change");
        if (regress) {
          (*n_regressed)++;
          size_t l = strlen(regressed_list);
          snprintf(regressed_list + l, sizeof(regressed_list) - l, "%s%s", l ? ", " : "", cell);
        }
      }
    }
  }
  int rc = placer_table_print(&t, f);
  if (*n_cells == 0) {
    fclose(f);
    free(text);
    free(a);
    free(b);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "compare: no cell (variant, condition, workload) has runs in both results");
  }
  skipped_steps(base, cand, f);
  if (*n_regressed)
    fprintf(f, "\nREGRESSION in %zu of %zu cells: %s\n", *n_regressed, *n_cells, regressed_list);
  else
    fprintf(f, "\nNo regression: %zu cells compared.\n", *n_cells);
  free(a);
  free(b);
  if (fclose(f) != 0 || rc != 0) {
    free(text);
    return placer_error_oom(err, "compare");
  }
  *report = text;
  return 0;
}

/* NAMES (N of them) that OTHER (M) lacks, ", "-separated into F after SEP
 * and WHAT; false when none. */
static bool names_missing(FILE *f, const char *sep, const char *what, char *const *names, size_t n,
                          const char *const *other, size_t m) {
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < m && strcmp(names[i], other[k]) != 0)
      k++;
    if (k < m)
      continue;
    if (!any)
      fprintf(f, "%s%s", sep, what);
    fprintf(f, "%s%s", any ? ", " : "", names[i]);
    any = true;
  }
  return any;
}

char *placer_bench_compare_differences(const struct placer_bench_results *a, const struct placer_bench_results *b) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f == NULL)
    return NULL;
  const char *sep = "";
  if (strcmp(a->title, b->title) != 0) {
    cleanup_free char *ta = placer_text_escape(a->title), *tb = placer_text_escape(b->title);
    fprintf(f, "the titles ('%s' and '%s')", ta ? ta : "?", tb ? tb : "?");
    sep = "; ";
  }
  const char *wa[PLACER_BENCH_MAX], *wb[PLACER_BENCH_MAX];
  for (size_t i = 0; i < a->n_workloads && i < PLACER_BENCH_MAX; i++)
    wa[i] = a->workloads[i].name;
  for (size_t i = 0; i < b->n_workloads && i < PLACER_BENCH_MAX; i++)
    wb[i] = b->workloads[i].name;
  struct {
    const char *what;
    char *const *x;
    size_t nx;
    const char *const *y;
    size_t ny;
  } lists[] = {
    { "variants only in the baseline: ", a->variants, a->n_variants, (const char *const *)b->variants, b->n_variants },
    { "variants only in the candidate: ", b->variants, b->n_variants, (const char *const *)a->variants, a->n_variants },
    { "workloads only in the baseline: ", (char *const *)wa, a->n_workloads, wb, b->n_workloads },
    { "workloads only in the candidate: ", (char *const *)wb, b->n_workloads, wa, a->n_workloads },
  };
  for (size_t i = 0; i < N_OF(lists); i++)
    if (names_missing(f, sep, lists[i].what, lists[i].x, lists[i].nx, lists[i].y, lists[i].ny))
      sep = "; ";
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  if (text[0] == '\0') {
    free(text);
    return NULL;
  }
  return text;
}

int placer_bench_compare_dirs(const char *base_dir, const char *cand_dir, const struct placer_bench_gate *gate,
                              char **report, size_t *n_regressed, size_t *n_cells, char **differences,
                              struct placer_error **err) {
  struct placer_bench_results *a = NULL, *b = NULL;
  if (placer_bench_results_load_dir(base_dir, &a, err) < 0)
    return -1;
  if (placer_bench_results_load_dir(cand_dir, &b, err) < 0) {
    placer_bench_results_free(a);
    return -1;
  }
  if (differences)
    *differences = placer_bench_compare_differences(a, b);
  int rc = placer_bench_compare_results(a, b, gate, report, n_regressed, n_cells, err);
  if (rc < 0 && differences && *differences) {
    placer_error_prefix(err, "the studies differ (%s)", *differences);
    free(*differences);
    *differences = NULL;
  }
  placer_bench_results_free(a);
  placer_bench_results_free(b);
  return rc;
}
