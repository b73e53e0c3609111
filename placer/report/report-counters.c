/* The report's "where the time went": Ceph's own counters per cell
 * (results/ceph-counters.h), medians over the repeats -- for the OSDs the
 * client write's time at the primary split into its queue wait and its
 * processing, a replica's write, BlueStore's commit and RocksDB's sync, and
 * the reads; for the MDS its requests per second, its reply latency and each
 * operation's -- and the daemons whose counters are missing, and why. */
#include "report/report-internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lib/array.h"
#include "lib/text-table.h"

#define MAX_MDS_OPS 5

/* The OSDs' figures, as the table shows them: a rate or a time in ns. */
static const struct {
  const char *head;
  size_t offset;
  bool rate;
} osd_figures[] = {
  { "writes/s", offsetof(struct placer_ceph_osd_time, write_ops_per_s), true },
  { "write ms", offsetof(struct placer_ceph_osd_time, write_ns), false },
  { "queue", offsetof(struct placer_ceph_osd_time, write_queue_ns), false },
  { "process", offsetof(struct placer_ceph_osd_time, write_process_ns), false },
  { "replica", offsetof(struct placer_ceph_osd_time, replication_ns), false },
  { "commit", offsetof(struct placer_ceph_osd_time, bluestore_commit_ns), false },
  { "kv sync", offsetof(struct placer_ceph_osd_time, kv_sync_ns), false },
  { "reads/s", offsetof(struct placer_ceph_osd_time, read_ops_per_s), true },
  { "read ms", offsetof(struct placer_ceph_osd_time, read_ns), false },
  { "queue", offsetof(struct placer_ceph_osd_time, read_queue_ns), false },
};

static bool cell_has_counters(const struct placer_bench_results *r, size_t v, size_t c, size_t w) {
  for (size_t k = 0; k < r->repeats; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    if (run->done && run->ceph)
      return true;
  }
  return false;
}

/* Whether any run has a daemon of TYPE counted (ok) or not (missing). */
static bool any_daemon(const struct placer_bench_results *r, enum placer_ceph_daemon_type type) {
  for (size_t i = 0; i < r->n_variants * r->n_conditions * r->n_workloads * r->repeats; i++)
    for (size_t d = 0; r->runs[i].done && r->runs[i].ceph && d < r->runs[i].ceph->n; d++)
      if (r->runs[i].ceph->daemons[d].type == type)
        return true;
  return false;
}

static double osd_figure(const struct placer_ceph_osd_time *t, size_t i) {
  return *(const double *)((const char *)t + osd_figures[i].offset);
}

/* The median of OSD figure I over a cell's runs with counters. */
static double osd_median(const struct placer_bench_results *r, size_t v, size_t c, size_t w, size_t i) {
  double values[PLACER_BENCH_MAX];
  size_t n = 0;
  for (size_t k = 0; k < r->repeats && n < PLACER_BENCH_MAX; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    if (!run->done || run->ceph == NULL)
      continue;
    struct placer_ceph_osd_time t;
    placer_ceph_osd_time(run->ceph->daemons, run->ceph->n, run->duration_s, &t);
    double x = osd_figure(&t, i);
    if (!isnan(x))
      values[n++] = x;
  }
  return placer_stats_median(values, n);
}

/* The median over a cell's runs of the MDS's requests per second (OP NULL,
 * REPLY false), its reply latency (REPLY), or operation OP's latency. */
static double mds_median(const struct placer_bench_results *r, size_t v, size_t c, size_t w, const char *op,
                         bool reply) {
  double values[PLACER_BENCH_MAX];
  size_t n = 0;
  for (size_t k = 0; k < r->repeats && n < PLACER_BENCH_MAX; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    struct placer_ceph_mds_time t;
    if (!run->done || run->ceph == NULL ||
        placer_ceph_mds_time(run->ceph->daemons, run->ceph->n, run->duration_s, &t, NULL) < 0)
      continue;
    double x = reply ? t.reply_latency_ns : t.requests_per_s;
    if (op) { /* an operation this run did not count: no figure */
      x = NAN;
      for (size_t i = 0; i < t.n_ops; i++)
        if (strcmp(t.ops[i].op, op) == 0)
          x = t.ops[i].latency_ns;
    }
    placer_ceph_mds_time_free(&t);
    if (!isnan(x))
      values[n++] = x;
  }
  return placer_stats_median(values, n);
}

/* The MDS's operations the runs counted most often (over every run), at most
 * MAX_MDS_OPS of them, most first. */
static size_t mds_top_ops(const struct placer_bench_results *r, char (*ops)[32], uint64_t *counts) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_variants * r->n_conditions * r->n_workloads * r->repeats; i++) {
    const struct placer_bench_run *run = &r->runs[i];
    struct placer_ceph_mds_time t;
    if (!run->done || run->ceph == NULL ||
        placer_ceph_mds_time(run->ceph->daemons, run->ceph->n, run->duration_s, &t, NULL) < 0)
      continue;
    for (size_t k = 0; k < t.n_ops; k++) {
      size_t j = 0;
      while (j < n && strcmp(ops[j], t.ops[k].op) != 0)
        j++;
      if (j == n && n < 64) {
        snprintf(ops[n], sizeof(ops[n]), "%s", t.ops[k].op);
        counts[n++] = 0;
      }
      if (j < 64)
        counts[j] += t.ops[k].count;
    }
    placer_ceph_mds_time_free(&t);
  }
  for (size_t i = 1; i < n; i++) /* by count, most first; ties by name (the order they came in) */
    for (size_t j = i; j > 0 && counts[j] > counts[j - 1]; j--) {
      char op[32];
      uint64_t x = counts[j];
      memcpy(op, ops[j], sizeof(op));
      memcpy(ops[j], ops[j - 1], sizeof(op));
      memcpy(ops[j - 1], op, sizeof(op));
      counts[j] = counts[j - 1];
      counts[j - 1] = x;
    }
  return n < MAX_MDS_OPS ? n : MAX_MDS_OPS;
}

static void head_cells(struct placer_table *t, const char *what) {
  placer_table_row(t, false);
  placer_table_cell_l(t, "%s", what);
  placer_table_cell_l(t, "%s", "");
  placer_table_cell_l(t, "%s", "");
}

static int osd_table(const struct placer_bench_results *r, FILE *out) {
  struct placer_table t = { 0 };
  char a[32];
  head_cells(&t, "OSDs");
  for (size_t i = 0; i < N_OF(osd_figures); i++)
    placer_table_cell_r(&t, "%s", osd_figures[i].head);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        if (!cell_has_counters(r, v, c, w))
          continue;
        report_cell_label_cells(&t, r, v, c, w);
        for (size_t i = 0; i < N_OF(osd_figures); i++) {
          double x = osd_median(r, v, c, w, i);
          if (osd_figures[i].rate)
            report_fmt_rate(x, a, sizeof(a));
          else
            report_fmt_ms(x, a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
        }
      }
  return placer_table_print(&t, out);
}

static int mds_table(const struct placer_bench_results *r, FILE *out) {
  char ops[64][32];
  uint64_t counts[64];
  size_t n_ops = mds_top_ops(r, ops, counts);
  struct placer_table t = { 0 };
  char a[32];
  head_cells(&t, "MDS");
  placer_table_cell_r(&t, "requests/s");
  placer_table_cell_r(&t, "reply ms");
  for (size_t i = 0; i < n_ops; i++)
    placer_table_cell_r(&t, "%s ms", ops[i]);
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        if (!cell_has_counters(r, v, c, w))
          continue;
        report_cell_label_cells(&t, r, v, c, w);
        report_fmt_rate(mds_median(r, v, c, w, NULL, false), a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        report_fmt_ms(mds_median(r, v, c, w, NULL, true), a, sizeof(a));
        placer_table_cell_r(&t, "%s", a);
        for (size_t i = 0; i < n_ops; i++) {
          report_fmt_ms(mds_median(r, v, c, w, ops[i], false), a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
        }
      }
  return placer_table_print(&t, out);
}

/* Each daemon that was not counted in some run of a cell: in how many of
 * its runs, and why the first time. */
static void missing_lines(const struct placer_bench_results *r, FILE *out) {
  for (size_t w = 0; w < r->n_workloads; w++)
    for (size_t c = 0; c < r->n_conditions; c++)
      for (size_t v = 0; v < r->n_variants; v++) {
        size_t runs = 0;
        for (size_t k = 0; k < r->repeats; k++) {
          const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
          runs += run->done && run->ceph;
        }
        for (size_t k = 0; k < r->repeats; k++) {
          const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
          for (size_t d = 0; run->done && run->ceph && d < run->ceph->n; d++) {
            const struct placer_ceph_delta *x = &run->ceph->daemons[d];
            if (x->state == PLACER_CEPH_DELTA_OK)
              continue;
            bool told = false; /* once per daemon and cell: at its first run */
            size_t times = 0;
            for (size_t j = 0; j < r->repeats; j++) {
              const struct placer_bench_run *o = placer_bench_results_run_const(r, v, c, w, j);
              for (size_t e = 0; o->done && o->ceph && e < o->ceph->n; e++)
                if (strcmp(o->ceph->daemons[e].daemon, x->daemon) == 0 &&
                    o->ceph->daemons[e].state != PLACER_CEPH_DELTA_OK) {
                  told |= j < k;
                  times += 1;
                }
            }
            if (told)
              continue;
            cleanup_free char *why = placer_text_escape(x->why);
            fprintf(out, "  %s %s in %zu of %zu runs of %s, %s, %s: its counters are left out (%s)\n", x->daemon,
                    placer_ceph_delta_state_names[x->state], times, runs, r->variants[v], r->conditions[c].name,
                    r->workloads[w].name, why ? why : "?");
          }
        }
      }
}

int report_where_tables(const struct placer_bench_results *r, FILE *out) {
  bool osds = any_daemon(r, PLACER_CEPH_OSD), mdss = any_daemon(r, PLACER_CEPH_MDS);
  if (!osds && !mdss)
    return 0;
  fprintf(out, "\nWhere the time went: Ceph's own counters over each run (perf dump before and after), medians over "
               "repeats.\n");
  if (osds)
    fprintf(out, "OSDs: a client write at its primary from receipt to reply (queue: waiting for a thread; process: the "
                 "rest,\nreplication included), a replica's write, a BlueStore commit and a RocksDB sync, in ms each; "
                 "a read likewise.\n");
  if (mdss)
    fprintf(out, "MDS: client requests per second, request to reply in ms, and its most frequent operations' ms "
                 "each.\n");
  int rc = 0;
  if (osds)
    rc |= osd_table(r, out);
  if (mdss)
    rc |= mds_table(r, out);
  missing_lines(r, out);
  return rc;
}

void placer_bench_report_where(const struct placer_bench_results *r, FILE *out) {
  report_where_tables(r, out);
}
