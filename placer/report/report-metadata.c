/* The text report's table of a metadata workload's operations: each
 * operation's rate and p99 per cell (the main table has their rate together). */
#include "report/report-internal.h"

#include <math.h>
#include <stdio.h>

#include "lib/text-table.h"

/* The median over a cell's done runs of operation OP's rate (P99: its p99). */
static double op_median(const struct placer_bench_results *r, size_t v, size_t c, size_t w, const char *op, bool p99) {
  double values[PLACER_BENCH_MAX];
  size_t n = 0;
  for (size_t k = 0; k < r->repeats && n < PLACER_BENCH_MAX; k++) {
    const struct placer_bench_run *run = placer_bench_results_run_const(r, v, c, w, k);
    const struct placer_bench_op *o = run->done ? placer_bench_run_op(run, op) : NULL;
    double x = o == NULL ? NAN : p99 ? o->clat_p99_ns : o->iops;
    if (!isnan(x))
      values[n++] = x;
  }
  return placer_stats_median(values, n);
}

int report_metadata_table(const struct placer_bench_results *r, FILE *out) {
  int rc = 0;
  for (size_t w = 0; w < r->n_workloads; w++) {
    const struct placer_bench_workload *wl = &r->workloads[w];
    if (wl->kind != PLACER_BENCH_WORKLOAD_METADATA)
      continue;
    struct placer_table t = { 0 };
    char label[160], a[32];
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", wl->name);
    for (size_t i = 0; i < wl->ops.n; i++) {
      placer_table_cell_r(&t, "%s/s", wl->ops.items[i]);
      placer_table_cell_r(&t, "p99 ms");
    }
    for (size_t c = 0; c < r->n_conditions; c++) {
      report_condition_label(r, c, label, sizeof(label));
      placer_table_row(&t, true);
      placer_table_cell_l(&t, "%s", label);
      for (size_t v = 0; v < r->n_variants; v++) {
        placer_table_row(&t, false);
        placer_table_cell_l(&t, "  %s", r->variants[v]);
        for (size_t i = 0; i < wl->ops.n; i++) {
          report_fmt_rate(op_median(r, v, c, w, wl->ops.items[i], false), a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
          report_fmt_ms(op_median(r, v, c, w, wl->ops.items[i], true), a, sizeof(a));
          placer_table_cell_r(&t, "%s", a);
        }
      }
    }
    fprintf(out, "\n%s, each operation (medians over repeats; fio's rate of each phase and its p99 latency)\n",
            wl->name);
    rc |= placer_table_print(&t, out);
  }
  return rc;
}
