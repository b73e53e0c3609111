/* The text report's cost, CPU per role, memory locality, peak RSS and
 * busiest threads per cell, and the hardware baseline's share per variant. */
#include "report/report-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "lib/array.h"
#include "lib/error.h"
#include "lib/text-table.h"
#include "results/hardware-baseline.h"

static size_t collect_roles(const struct placer_bench_results *r, const char **roles, size_t max) {
  size_t n = 0, total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  for (size_t i = 0; i < total; i++)
    for (size_t k = 0; r->runs[i].done && k < r->runs[i].n_roles; k++) {
      const char *role = r->runs[i].roles[k].role;
      size_t j = 0;
      while (j < n && strcmp(roles[j], role) != 0)
        j++;
      if (j == n && n < max)
        roles[n++] = role;
    }
  return n;
}

typedef double (*run_role_fn)(const struct placer_bench_run *, const char *);

static double cell_role_median(const struct placer_bench_results *r, size_t v, size_t c, size_t w, run_role_fn fn,
                               const char *role) {
  double values[PLACER_BENCH_MAX];
  size_t n = 0;
  for (size_t k = 0; k < r->repeats && n < PLACER_BENCH_MAX; k++) {
    double x = fn(placer_bench_results_run_const(r, v, c, w, k), role);
    if (!isnan(x))
      values[n++] = x;
  }
  return placer_stats_median(values, n);
}

/* Mean busy fraction over the cores, and the busiest core, averaged over the
 * cell's done runs. */
static void cell_cores(const struct placer_bench_results *r, size_t v, size_t c, size_t w, double *mean, int *busiest,
                       double *busiest_value) {
  *mean = *busiest_value = NAN;
  *busiest = -1;
  size_t n_cpus = 0;
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    if (run->done && run->n_cpus > n_cpus)
      n_cpus = run->n_cpus;
  }
  double *sum = calloc(n_cpus + 1, sizeof(*sum));
  size_t *count = calloc(n_cpus + 1, sizeof(*count));
  for (size_t k = 0; sum && count && k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    for (size_t i = 0; run->done && i < run->n_cpus; i++)
      if (!isnan(run->cpu_busy[i])) {
        sum[i] += run->cpu_busy[i];
        count[i]++;
      }
  }
  double total = 0;
  size_t cores = 0;
  for (size_t i = 0; sum && count && i < n_cpus; i++) {
    if (count[i] == 0)
      continue;
    double avg = sum[i] / (double)count[i];
    total += avg;
    cores++;
    if (*busiest < 0 || avg > *busiest_value) {
      *busiest = (int)i;
      *busiest_value = avg;
    }
  }
  if (cores)
    *mean = total / (double)cores;
  free(sum);
  free(count);
}

/* The first three cells of a per-cell row: "4K randwrite", "alone", "pinned". */
void report_cell_label_cells(struct placer_table *t, const struct placer_bench_results *r, size_t v, size_t c,
                             size_t w) {
  char label[128];
  report_workload_label(&r->workloads[w], label, sizeof(label));
  placer_table_row(t, false);
  placer_table_cell_l(t, "%s", label);
  placer_table_cell_l(t, "%s", r->conditions[c].name);
  placer_table_cell_l(t, "%s", r->variants[v]);
}

static void blank_label_cells(struct placer_table *t) {
  placer_table_row(t, false);
  for (int i = 0; i < 3; i++)
    placer_table_cell_l(t, "%s", "");
}

/* The storage daemons' cost per client IO and how busy the machine was. */
int report_cost_table(const struct placer_bench_results *r, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  blank_label_cells(&t);
  placer_table_cell_r(&t, "%s ms CPU/IO", r->storage_role[0] ? r->storage_role : "storage");
  placer_table_cell_r(&t, "write amp");
  placer_table_cell_r(&t, "cores busy");
  placer_table_cell_r(&t, "busiest core");
  placer_table_cell_r(&t, "%s local mem", r->storage_role[0] ? r->storage_role : "storage");
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        struct placer_bench_cell_stats s;
        placer_bench_cell_stats(r, v, c, w, &s);
        report_cell_label_cells(&t, r, v, c, w);
        report_fmt_fixed(s.storage_cpu_ms_per_io.median, "%.3g", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        report_fmt_fixed(s.write_amplification.median, "%.2f", a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        double mean, busiest_value;
        int busiest;
        cell_cores(r, v, c, w, &mean, &busiest, &busiest_value);
        report_fmt_percent(mean, a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        report_fmt_percent(busiest_value, a, sizeof(a));
        if (busiest >= 0)
          placer_table_cell_r(&t, "cpu%d %s", busiest, a);
        else
          placer_table_cell_r(&t, DASH);
        report_fmt_local(cell_role_median(r, v, c, w, placer_bench_run_role_local_mem, r->storage_role), a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
      }
  fprintf(out, "\nCost (medians over repeats; cores busy = mean load of the cores; local mem = share of the "
               "least local instance's resident memory on its group's NUMA nodes)\n");
  return placer_table_print(&t, out);
}

/* A figure per role and cell, one column per role (narrow enough for a
 * terminal): FN's median over the repeats, shown by FMT, under TITLE. */
static int role_cell_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles,
                           run_role_fn fn, void (*fmt)(double, char *, size_t), const char *title, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  blank_label_cells(&t);
  for (size_t i = 0; i < n_roles; i++)
    placer_table_cell_r(&t, "%s", roles[i]);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        report_cell_label_cells(&t, r, v, c, w);
        for (size_t i = 0; i < n_roles; i++) {
          fmt(cell_role_median(r, v, c, w, fn, roles[i]), a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
        }
      }
  fprintf(out, "\n%s\n", title);
  return placer_table_print(&t, out);
}

static void fmt_cores(double cores, char *buf, size_t len) {
  report_fmt_fixed(cores, "%.2f", buf, len);
}

/* CPU per role. */
static int role_cores_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles, FILE *out) {
  return role_cell_table(r, roles, n_roles, placer_bench_run_role_cores, fmt_cores,
                         "Cores used per role (CPU time / run time, medians over repeats)", out);
}

/* Memory locality per role: the least local instance's share of resident
 * memory on its group's NUMA nodes, sampled at the end of each run. */
static int role_local_mem_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles,
                                FILE *out) {
  return role_cell_table(r, roles, n_roles, placer_bench_run_role_local_mem, report_fmt_local,
                         "Local memory per role (share of the least local instance's resident memory on its group's "
                         "NUMA nodes at the end of each run, medians over repeats)",
                         out);
}

/* Peak RSS is a process's high-water mark since it started, so it is given
 * once per variant: the largest seen over all its runs. */
static int role_rss_table(const struct placer_bench_results *r, const char *const *roles, size_t n_roles, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  for (size_t i = 0; i < n_roles; i++)
    placer_table_cell_r(&t, "%s", roles[i]);
  for (size_t v = 0; v < r->n_variants; v++) {
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", r->variants[v]);
    for (size_t i = 0; i < n_roles; i++) {
      double peak = NAN;
      for (size_t w = 0; w < r->n_workloads; w++)
        for (size_t c = 0; c < r->n_conditions; c++)
          for (size_t k = 0; k < r->repeats; k++) {
            const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
            double x = run->done ? placer_bench_run_role_peak_rss(run, roles[i]) : NAN;
            if (!isnan(x) && (isnan(peak) || x > peak))
              peak = x;
          }
      report_fmt_bytes(peak, a, sizeof(a));
      placer_table_cell_r(&t, "%s", a);
    }
  }
  fprintf(out, "\nPeak RSS per role (largest over the variant's runs)\n");
  return placer_table_print(&t, out);
}

int report_role_tables(const struct placer_bench_results *r, FILE *out) {
  const char *roles[32];
  size_t n_roles = collect_roles(r, roles, 32);
  if (n_roles == 0)
    return 0;
  return role_cores_table(r, roles, n_roles, out) | role_local_mem_table(r, roles, n_roles, out) |
         role_rss_table(r, roles, n_roles, out);
}

struct thread_share {
  const char *instance, *thread;
  double share;
};

static int cmp_share(const void *pa, const void *pb) {
  const struct thread_share *a = pa, *b = pb;
  if (a->share != b->share)
    return a->share > b->share ? -1 : 1;
  int c = strcmp(a->instance, b->instance);
  return c ? c : strcmp(a->thread, b->thread);
}

#define TOP_THREADS 3

/* The busiest threads of a cell: per (instance, thread), the median over the
 * runs that recorded it of its share of one core; -1 out of memory (a thread
 * left out would have been a wrong answer, not a shorter one). */
static ssize_t cell_threads(const struct placer_bench_results *r, size_t v, size_t c, size_t w,
                            struct thread_share *top) {
  size_t n = 0, cap = 0;
  struct thread_share *all = NULL;
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    for (size_t i = 0; run->done && i < run->n_threads; i++) {
      size_t j = 0;
      while (j < n && !(strcmp(all[j].instance, run->threads[i].instance) == 0 &&
                        strcmp(all[j].thread, run->threads[i].thread) == 0))
        j++;
      if (j < n)
        continue;
      if (n == cap) {
        struct thread_share *bigger = realloc(all, (cap = cap ? 2 * cap : 16) * sizeof(*bigger));
        if (bigger == NULL) {
          free(all);
          return -1;
        }
        all = bigger;
      }
      all[n++] = (struct thread_share){ run->threads[i].instance, run->threads[i].thread, NAN };
    }
  }
  for (size_t j = 0; j < n; j++) {
    double values[PLACER_BENCH_MAX];
    size_t m = 0;
    for (size_t k = 0; k < r->repeats && m < PLACER_BENCH_MAX; k++) {
      const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
      for (size_t i = 0; run->done && run->duration_s > 0 && i < run->n_threads; i++)
        if (strcmp(all[j].instance, run->threads[i].instance) == 0 &&
            strcmp(all[j].thread, run->threads[i].thread) == 0)
          values[m++] = (double)run->threads[i].cpu_ns / 1e9 / run->duration_s;
    }
    all[j].share = m ? placer_stats_median(values, m) : -1;
  }
  if (n)
    qsort(all, n, sizeof(*all), cmp_share);
  size_t kept = 0;
  for (size_t j = 0; j < n && kept < TOP_THREADS; j++)
    if (all[j].share >= 0)
      top[kept++] = all[j];
  free(all);
  return (ssize_t)kept;
}

int report_threads_table(const struct placer_bench_results *r, FILE *out) {
  size_t total = r->n_variants * r->n_conditions * r->n_workloads * r->repeats;
  bool any = false;
  for (size_t i = 0; i < total && !any; i++)
    any = r->runs[i].done && r->runs[i].n_threads > 0;
  if (!any)
    return 0;
  struct placer_table t = { 0 };
  char label[128], a[32];
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        struct thread_share top[TOP_THREADS];
        ssize_t n = cell_threads(r, v, c, w, top);
        if (n < 0) {
          t.failed = true; /* print frees it and prints nothing */
          return placer_table_print(&t, out);
        }
        placer_table_row(&t, false);
        report_workload_label(&r->workloads[w], label, sizeof(label));
        placer_table_cell_l(&t, "%s", label);
        placer_table_cell_l(&t, "%s", r->conditions[c].name);
        placer_table_cell_l(&t, "%s", r->variants[v]);
        for (size_t i = 0; i < (size_t)n; i++) {
          report_fmt_percent(top[i].share, a, sizeof(a));
          cleanup_free char *thread = placer_text_escape(top[i].thread); /* a comm is any 15 bytes */
          placer_table_cell_l(&t, "%s %s %s", top[i].instance, thread ? thread : "?", a);
        }
        if (n == 0)
          placer_table_cell_l(&t, DASH);
      }
  fprintf(out, "\nBusiest threads (share of one core, median over repeats)\n");
  return placer_table_print(&t, out);
}

/* The hardware baseline's lines: what the hardware did per workload and the
 * share of it each variant delivers alone (summary.json's shares_alone). */
void report_baseline_lines(const struct placer_bench_results *r, const json_t *hardware_baseline, FILE *out) {
  cleanup_free char *path = placer_text_escape(json_string_value(json_object_get(hardware_baseline, "path")));
  fprintf(out, "\nHardware baseline: fio on %s, no Ceph, not placed; share of it each variant delivers alone\n",
          path ? path : "?");
  fprintf(out, "%-22s", "");
  for (size_t w = 0; w < r->n_workloads; w++) {
    char head[64];
    report_workload_label(&r->workloads[w], head, sizeof(head));
    fprintf(out, " %16s", head);
  }
  fprintf(out, "\n%-22s", "  hardware");
  for (size_t w = 0; w < r->n_workloads; w++) {
    bool found;
    double x = placer_bench_baseline_metric(hardware_baseline, &r->workloads[w], &found);
    char cell[32];
    if (!found)
      snprintf(cell, sizeof(cell), DASH);
    else if (placer_bench_workload_uses_bandwidth(&r->workloads[w]))
      snprintf(cell, sizeof(cell), "%.1f MB/s", x / 1e6);
    else
      snprintf(cell, sizeof(cell), "%.0f IOPS", x);
    fprintf(out, " %16s", cell);
  }
  fputc('\n', out);
  for (size_t v = 0; v < r->n_variants && placer_bench_alone_condition(r) >= 0; v++) {
    char label[64];
    snprintf(label, sizeof(label), "  %s", r->variants[v]);
    fprintf(out, "%-22s", label);
    for (size_t w = 0; w < r->n_workloads; w++) {
      char cell[32];
      report_fmt_fixed(placer_bench_baseline_share(hardware_baseline, r, v, w) * 100.0, "%.1f%%", cell, sizeof(cell));
      fprintf(out, " %16s", cell);
    }
    fputc('\n', out);
  }
}
