/* The bench results struct, its summary JSON and the terminal report, on
 * hand-built results: golden text and JSON in tests/golden/bench/
 * (PLACER_UPDATE_GOLDEN=1 rewrites them; review the diff), a JSON round trip,
 * and the figures the report is built from. The numbers imitate the pinning
 * experiment in MACHINE-NOTES (2 OSDs, fio rbd 4K iodepth 16). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/compare.h"
#include "report/report.h"
#include "results/results.h"
#include "results/hardware-baseline.h"
#include "bench_report_support.h"
#include "test_support.h"

static const char *const variants[] = { "unpinned", "pinned" };
static const double jitter[] = { -0.02, 0.0, 0.03, 0.01, -0.01 };

/* One finished run: IOPS (or bytes/s) `rate` in the workload's direction, p99
 * latency in ms, OSD CPU of `ms_per_io` per I/O over two OSDs, 15 s long. */
static void fill_run(struct placer_bench_results *r, size_t v, size_t c, size_t w, size_t k, double iops, double p99_ms,
                     double neighbour_rate) {
  struct placer_bench_run *run = placer_bench_results_run(r, v, c, w, k);
  const struct placer_bench_workload *wl = &r->workloads[w];
  struct placer_bench_op io = { 0 };
  double duration = 15.0;
  io.iops = iops;
  io.total_ios = (uint64_t)(iops * duration);
  io.io_bytes = io.total_ios * wl->block_size_bytes;
  io.bw_bytes = (uint64_t)(iops * (double)wl->block_size_bytes);
  io.runtime_ms = 15000;
  io.clat_mean_ns = p99_ms * 1e6 / 4;
  io.clat_p50_ns = p99_ms * 1e6 / 3;
  io.clat_p99_ns = p99_ms * 1e6;
  io.clat_p999_ns = p99_ms * 1e6 * 2;
  bool reads = placer_bench_pattern_direction(wl->pattern) == PLACER_BENCH_READ;
  char path[256];
  snprintf(path, sizeof(path), "fio/%s/%s/%s/%zu.json", r->variants[v], r->conditions[c].name, wl->name, k);
  struct placer_error *err = NULL;
  set_ops(run, reads, &io, path);
  run->duration_s = duration;
  double ms_per_io = reads ? 0.16 : 0.73;
  uint64_t osd_ns = (uint64_t)((double)io.total_ios * ms_per_io * 1e6);
  assert_int_equal(placer_bench_run_add_role(run, "osd.0", "osd", osd_ns / 2, (200 + 10 * k) << 20, &err), 0);
  assert_int_equal(placer_bench_run_add_role(run, "osd.1", "osd", osd_ns - osd_ns / 2, (180 + 20 * v) << 20, &err), 0);
  assert_int_equal(placer_bench_run_add_role(run, "mon.a", "mon", 300000000ull, 43ull << 20, &err), 0);
  assert_int_equal(placer_bench_run_add_role(run, "fio", "fio", (uint64_t)(iops * 15 * 0.1e6), 60ull << 20, &err), 0);
  /* Memory locality: osd.1 unpinned keeps a third of its memory remote; the
   * mon's is unknown ("-"). */
  run->roles[0].local_mem_share = 1.0;
  run->roles[1].local_mem_share = v == 0 ? 0.62 + 0.01 * (double)k : 1.0;
  run->roles[3].local_mem_share = 0.999;
  assert_int_equal(
      placer_bench_run_add_thread(run, "osd.0", reads ? "tp_osd_tp" : "bstore_kv_sync", osd_ns / 2 * 4 / 10, &err), 0);
  assert_int_equal(placer_bench_run_add_thread(run, "osd.1", "msgr-worker-1", osd_ns / 2 * 3 / 10, &err), 0);
  assert_int_equal(placer_bench_run_add_thread(run, "osd.0", "msgr-worker-0", osd_ns / 2 * 2 / 10, &err), 0);
  if (!reads) {
    run->has_device_bytes = true;
    run->device_bytes_written = io.io_bytes * (31 + k) / 10; /* 2 replicas + RocksDB/WAL */
  }
  run->neighbour_rate = neighbour_rate;
  double busy[2] = { 0.93 + 0.01 * (double)k, v ? 0.99 : 0.97 };
  assert_int_equal(placer_bench_run_set_cpu_busy(run, busy, 2, &err), 0);
  run->done = true;
}

static struct placer_bench_results *new_results(const struct placer_bench_workload *workloads, size_t n_workloads,
                                                const struct placer_bench_condition *conditions, size_t n_conditions,
                                                size_t repeats, bool sweep) {
  struct placer_bench_spec spec = {
    .title =
        sweep ? "balance-point sweep, 2 OSDs, fio rbd 4K iodepth 16" : "pinned vs unpinned, 2 OSDs, fio rbd iodepth 16",
    .storage_role = "osd",
    .neighbour_name = "the VMs",
    .neighbour_unit = "bogo ops/s",
    .level_unit = "neighbour cores",
    .variants = variants,
    .n_variants = 2,
    .workloads = workloads,
    .n_workloads = n_workloads,
    .conditions = conditions,
    .n_conditions = n_conditions,
    .repeats = repeats,
    .sweep = sweep,
    .sweep_workload = 0,
    .storage_min_fraction = 0.90,
    .neighbour_min_fraction = 0.85,
  };
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_new(&spec, &r, &err) < 0)
    fail_msg("%s", err->msg);
  return r;
}

static const struct placer_bench_workload ab_workloads[] = {
  { .name = "4k-randwrite", .pattern = "randwrite", .block_size_bytes = 4096 },
  { .name = "4k-randread", .pattern = "randread", .block_size_bytes = 4096 },
  { .name = "128k-write", .pattern = "write", .block_size_bytes = 131072 },
};
static const struct placer_bench_condition ab_conditions[] = { { "alone", 0 }, { "vms", 4 } };

/* MACHINE-NOTES medians: randwrite 2388 / 1903 unpinned, 1436 / 1358 pinned;
 * randread 8251 / 6391, 6064 / 5378; the neighbour keeps ~54% unpinned, ~91%
 * pinned of a solo 1000 bogo ops/s. */
static const double ab_iops[2][2][3] = {
  { { 2388, 8251, 420 }, { 1903, 6391, 350 } },
  { { 1436, 6064, 300 }, { 1358, 5378, 290 } },
};
static const double ab_p99_ms[2][2][3] = {
  { { 37.2, 3.1, 95 }, { 113, 4.4, 140 } },
  { { 48.0, 3.6, 120 }, { 52.5, 3.9, 125 } },
};

/* The A/B results with every pinned rate times SCALE (0.5: pinned to half
 * the cores), for the gate. */
static struct placer_bench_results *build_ab_scaled(size_t repeats, double scale) {
  struct placer_bench_results *r = new_results(ab_workloads, 3, ab_conditions, 2, repeats, false);
  for (size_t v = 0; v < 2; v++)
    for (size_t c = 0; c < 2; c++) {
      for (size_t w = 0; w < 3; w++)
        for (size_t k = 0; k < repeats; k++) {
          double rate = c == 0 ? NAN : (v == 0 ? 540 : 910) * (1 + jitter[(k + w) % 5]);
          fill_run(r, v, c, w, k, ab_iops[v][c][w] * (1 + jitter[k]) * (v ? scale : 1.0),
                   ab_p99_ms[v][c][w] * (1 - jitter[k]), rate);
        }
      for (size_t k = 0; c == 1 && k < repeats; k++)
        placer_bench_results_set_solo(r, v, c, k, 1000 * (1 + jitter[k]));
    }
  return r;
}

static struct placer_bench_results *build_ab(size_t repeats) {
  struct placer_bench_results *r = new_results(ab_workloads, 3, ab_conditions, 2, repeats, false);
  for (size_t v = 0; v < 2; v++)
    for (size_t c = 0; c < 2; c++) {
      for (size_t w = 0; w < 3; w++)
        for (size_t k = 0; k < repeats; k++) {
          double rate = c == 0 ? NAN : (v == 0 ? 540 : 910) * (1 + jitter[(k + w) % 5]);
          fill_run(r, v, c, w, k, ab_iops[v][c][w] * (1 + jitter[k]), ab_p99_ms[v][c][w] * (1 - jitter[k]), rate);
        }
      for (size_t k = 0; c == 1 && k < repeats; k++)
        placer_bench_results_set_solo(r, v, c, k, 1000 * (1 + jitter[k]));
    }
  return r;
}

/* pinned keeps >= 90% up to 6 neighbour cores, unpinned up to 2; the VMs keep
 * >= 85% of their solo rate except unpinned from 4 cores on. */
static const struct placer_bench_condition sweep_conditions[] = {
  { "alone", 0 }, { "vms-1", 1 }, { "vms-2", 2 }, { "vms-4", 4 }, { "vms-6", 6 }, { "vms-8", 8 },
};
static const double sweep_storage[2][6] = {
  { 2388, 2300, 2180, 2000, 1800, 1500 },
  { 1436, 1430, 1420, 1400, 1330, 1200 },
};
static const double sweep_neighbour_share[2][6] = {
  { 0, 0.95, 0.88, 0.70, 0.60, 0.55 },
  { 0, 0.99, 0.97, 0.95, 0.92, 0.90 },
};

static struct placer_bench_results *build_sweep(void) {
  const struct placer_bench_workload w[] = {
    { .name = "4k-randwrite", .pattern = "randwrite", .block_size_bytes = 4096 }
  };
  struct placer_bench_results *r = new_results(w, 1, sweep_conditions, 6, 3, true);
  for (size_t v = 0; v < 2; v++)
    for (size_t c = 0; c < 6; c++)
      for (size_t k = 0; k < 3; k++) {
        double solo = 500 * sweep_conditions[c].neighbour_level;
        if (c > 0)
          placer_bench_results_set_solo(r, v, c, k, solo * (1 + jitter[(k + 1) % 5]));
        fill_run(r, v, c, 0, k, sweep_storage[v][c] * (1 + jitter[k]), 40 + 5.0 * (double)c,
                 c ? solo * sweep_neighbour_share[v][c] * (1 + jitter[k]) : NAN);
      }
  return r;
}

/* Interrupted after part of the study: pinned/vms never ran, pinned/alone
 * 4K randread has one repeat of three, 128K write never ran for anyone. */
static struct placer_bench_results *build_partial(void) {
  struct placer_bench_results *r = new_results(ab_workloads, 3, ab_conditions, 2, 3, false);
  for (size_t v = 0; v < 2; v++)
    for (size_t c = 0; c < 2; c++)
      for (size_t w = 0; w < 2; w++)
        for (size_t k = 0; k < 3; k++) {
          if (v == 1 && (c == 1 || (w == 1 && k > 0)))
            continue;
          fill_run(r, v, c, w, k, ab_iops[v][c][w] * (1 + jitter[k]), ab_p99_ms[v][c][w], c ? 540 : NAN);
        }
  placer_bench_results_set_solo(r, 0, 1, 0, 1000);
  r->interrupted = true;
  return r;
}

/* A quota sweep (placement sweep): the unconstrained base and 4 quota steps
 * on a 2-CPU node; storage follows its quota (constant CPU per I/O), the
 * neighbour gets the rest. */
static struct placer_bench_results *build_split(void) {
  static const char *const names[] = { "free", "quota-0.5", "quota-1", "quota-1.5", "quota-2" };
  static const double knobs[] = { NAN, 0.5, 1.0, 1.5, 2.0 };
  static const double with[] = { 1903, 900, 1500, 1800, 1900 }, nb[] = { 540, 900, 780, 600, 550 };
  const struct placer_bench_workload w[] = {
    { .name = "4k-randwrite", .pattern = "randwrite", .block_size_bytes = 4096 }
  };
  const struct placer_bench_condition c[] = { { "alone", 0 }, { "cpu-hog", 2 } };
  struct placer_bench_spec spec = {
    .title = "quota sweep, 2 OSDs, fio rbd 4K iodepth 16",
    .storage_role = "osd",
    .neighbour_name = "cpu-hog",
    .neighbour_unit = "bogo ops/s",
    .level_unit = "stress-ng workers",
    .neighbour_role = "neighbour",
    .variants = names,
    .n_variants = 5,
    .workloads = w,
    .n_workloads = 1,
    .conditions = c,
    .n_conditions = 2,
    .repeats = 3,
    .storage_min_fraction = 0.90,
    .neighbour_min_fraction = 0.85,
    .split_parameter = "quota",
    .knobs = knobs,
    .node_cpus = 2,
  };
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_new(&spec, &r, &err) < 0)
    fail_msg("%s", err->msg);
  for (size_t v = 0; v < 5; v++)
    for (size_t k = 0; k < 3; k++) {
      double alone = v == 0 ? 2388 : fmin(2388, 2388 * knobs[v] / 1.3);
      fill_run(r, v, 0, 0, k, alone * (1 + jitter[k]), 40, NAN);
      fill_run(r, v, 1, 0, k, with[v] * (1 + jitter[k]), 60, nb[v] * (1 + jitter[k]));
      /* the hog's 2 workers: 2 cores for its solo 1000 bogo ops/s, 2 ms of CPU per op */
      double hog_cores = nb[v] * (1 + jitter[k]) * 0.002;
      assert_int_equal(placer_bench_run_add_role(placer_bench_results_run(r, v, 1, 0, k), "neighbour.0", "neighbour",
                                                 (uint64_t)(hog_cores * 15e9), 10ull << 20, &err),
                       0);
      placer_bench_results_set_solo(r, v, 1, k, 1000 * (1 + jitter[k]));
    }
  return r;
}

static void test_golden_split(void **state) {
  struct placer_bench_results *r = build_split();
  struct placer_bench_split_step steps[PLACER_BENCH_MAX];
  size_t n = placer_bench_split_steps(r, steps);
  assert_int_equal(n, 5);
  assert_true(isnan(steps[0].knob));
  assert_true(steps[1].knob == 0.5 && steps[4].knob == 2.0);
  struct placer_bench_split_balance b;
  placer_bench_split_balance(r, steps, n, &b);
  /* 1800 / 2388 = 0.754 < 0.9 at quota 1.5; 1900 / 2388 = 0.796: no step keeps 90% of the
   * unconstrained alone rate. */
  assert_false(b.found);
  r->storage_min_fraction = 0.75;
  placer_bench_split_balance(r, steps, n, &b);
  assert_true(b.found);
  assert_true(steps[b.step].knob == 1.5);
  assert_true(fabs(steps[b.step].eff.neighbour_kept - 0.6) < 1e-9);
  /* Efficiency of quota-1 (variant 2) by hand: s = 1500 / 2388 = 0.62814; c_alone = osd
   * 2388 x 0.73 ms + mon 0.02 + fio 2388 x 0.1 ms = 1.74324 + 0.02 + 0.2388 = 2.00204 cores;
   * the hog's CPU per op in the cell 2 ms, its unconstrained solo rate 1000/s: d = 2 cores;
   * n_max = (2 - s x c_alone) / d = 0.37122; bound = s + n_max = 0.99936; n = 780 / 1000;
   * efficiency = (s + n) / bound = 1.40904.  These made-up runs use 2.83 cores of 2 CPUs
   * (storage 1.27, the hog 1.56): above the CPU model's bound beyond any noise (the
   * jitter is the same in every cell), and the report says so in those words. */
  struct placer_bench_efficiency e;
  placer_bench_efficiency(r, 2, 1, 0, &e);
  assert_true(fabs(e.storage_kept - 1500.0 / 2388.0) < 1e-9);
  assert_true(fabs(e.storage_cores_alone - 2.00204) < 1e-4);
  assert_true(fabs(e.neighbour_kept - 0.78) < 1e-9);
  assert_true(fabs(e.neighbour_demand_cores - 2.0) < 1e-6);
  assert_true(fabs(e.bound - 0.99936) < 1e-4);
  assert_true(fabs(e.efficiency - 1.40904) < 1e-4);
  assert_true(e.efficiency_ci_low > 1 && e.efficiency_ci_low <= e.efficiency && e.efficiency <= e.efficiency_ci_high);
  assert_true(e.bound_exceeded);
  /* Alone there is no neighbour side: no bound. */
  placer_bench_efficiency(r, 2, 0, 0, &e);
  assert_true(isnan(e.bound) && isnan(e.efficiency));
  r->storage_min_fraction = 0.90;
  golden_case("split", r, false);
}

/* The gate: an A/A comparison passes, a candidate whose pinned variant has
 * half its rate (pinned to half the cores) fails exactly on the pinned cells;
 * 5 repeats each (3 vs 3 can never reach p < 0.05: the smallest p is 0.1).
 * The recorded directories of tests/fixtures/bench-gate (used by
 * tests/integration/bench_gate.sh) are these results' summary.json
 * (PLACER_UPDATE_GOLDEN=1 rewrites them). */
static void test_compare_gate(void **state) {
  struct placer_bench_results *base = build_ab_scaled(5, 1.0), *aa = build_ab_scaled(5, 1.0),
                              *half = build_ab_scaled(5, 0.5);
  struct placer_bench_gate gate = { 0.05, 0.05 };
  char *report = NULL;
  size_t regressed = 0, cells = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_compare_results(base, aa, &gate, &report, &regressed, &cells, &err), 0);
  assert_int_equal(cells, 12);
  assert_int_equal(regressed, 0);
  assert_non_null(strstr(report, "No regression: 12 cells compared."));
  free(report);
  assert_int_equal(placer_bench_compare_results(base, half, &gate, &report, &regressed, &cells, &err), 0);
  assert_int_equal(regressed, 6);
  assert_non_null(strstr(report, "REGRESSION in 6 of 12 cells: pinned / alone / 4k-randwrite"));
  assert_null(strstr(report, "unpinned / alone / 4k-randwrite  REGRESSION"));
  free(report);
  /* A threshold above the drop: no regression. */
  gate.threshold = 0.6;
  assert_int_equal(placer_bench_compare_results(base, half, &gate, &report, &regressed, &cells, &err), 0);
  assert_int_equal(regressed, 0);
  free(report);
  const char *names[] = { "baseline", "aa", "half" };
  struct placer_bench_results *all[] = { base, aa, half };
  for (int i = 0; i < 3; i++) {
    char rel[128];
    snprintf(rel, sizeof(rel), "fixtures/bench-gate/%s/summary.json", names[i]);
    char *json = json_of(all[i]);
    test_compare_golden(rel, json);
    free(json);
    placer_bench_results_free(all[i]);
  }
}

/* A workload judged on a cost (its kind says lower is better): the half is
 * the improvement, and twice as much the regression; the header says so. */
static void test_compare_cost(void **state) {
  struct placer_bench_results *base = build_ab_scaled(5, 1.0), *half = build_ab_scaled(5, 0.5),
                              *twice = build_ab_scaled(5, 2.0);
  struct placer_bench_results *all[] = { base, half, twice };
  for (size_t i = 0; i < 3; i++)
    for (size_t w = 0; w < all[i]->n_workloads; w++)
      all[i]->workloads[w].lower_is_better = true;
  struct placer_bench_gate gate = { 0.05, 0.05 };
  char *report = NULL;
  size_t regressed = 0, cells = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_compare_results(base, half, &gate, &report, &regressed, &cells, &err), 0);
  assert_int_equal(regressed, 0);
  assert_non_null(strstr(report, "(a rise, where lower is better)"));
  assert_non_null(strstr(report, "improved"));
  free(report);
  assert_int_equal(placer_bench_compare_results(base, twice, &gate, &report, &regressed, &cells, &err), 0);
  assert_int_equal(regressed, 6);
  assert_non_null(strstr(report, "REGRESSION in 6 of 12 cells: pinned / alone / 4k-randwrite"));
  free(report);
  /* a throughput in one and a cost in the other: not the same cell */
  base->workloads[0].lower_is_better = false;
  assert_int_equal(placer_bench_compare_results(base, twice, &gate, &report, &regressed, &cells, &err), -1);
  assert_non_null(strstr(err->msg, "not the same cell"));
  placer_error_free(err);
  for (size_t i = 0; i < 3; i++)
    placer_bench_results_free(all[i]);
}

/* compare says how two studies differ (they compared silently): the titles
 * (escaped), the variants and the workloads that are not in both. */
static void test_compare_differences(void **state) {
  struct placer_bench_results *a = build_ab_scaled(3, 1.0), *b = build_ab_scaled(3, 1.0);
  assert_null(placer_bench_compare_differences(a, b));
  free(b->title);
  b->title = strdup("tuned\x1b[2J");
  free(b->variants[1]);
  b->variants[1] = strdup("tuned");
  free(a->workloads[2].name);
  a->workloads[2].name = strdup("1m-write");
  char *d = placer_bench_compare_differences(a, b);
  assert_non_null(d);
  if (strcmp(d,
             "the titles ('pinned vs unpinned, 2 OSDs, fio rbd iodepth 16' and 'tuned\\x1b[2J'); variants only in "
             "the baseline: pinned; variants only in the candidate: tuned; workloads only in the baseline: 1m-write; "
             "workloads only in the candidate: 128k-write") != 0)
    fail_msg("%s", d);
  free(d);
  placer_bench_results_free(a);
  placer_bench_results_free(b);
}

/* #35: cells are matched by name, and a name that is another workload in
 * each (randread against randwrite: "REGRESSION", exit 5; IOPS against
 * MB/s: "+411055%") is refused in one line, exit 2. */
static void test_compare_other_cells(void **state) {
  struct placer_bench_gate gate = { 0.05, 0.05 };
  static const struct {
    const char *pattern;
    uint64_t block_size;
    const char *expected;
  } changed[] = {
    { "randread", 4096,
      "compare: workload '4k-randwrite' is randwrite of 4096 B (IOPS) in the baseline and randread "
      "of 4096 B (IOPS) in the candidate: not the same cell" },
    { "randwrite", 1 << 20, "is randwrite of 4096 B (IOPS) in the baseline and randwrite of 1048576 B (MB/s)" },
    { "randwrite", 8192, "and randwrite of 8192 B (IOPS) in the candidate" },
  };
  for (size_t i = 0; i < sizeof(changed) / sizeof(changed[0]); i++) {
    struct placer_bench_results *a = build_ab_scaled(5, 1.0), *b = build_ab_scaled(5, 0.5);
    int w = placer_bench_results_workload_index(b, "4k-randwrite");
    assert_true(w >= 0);
    free(b->workloads[w].pattern);
    b->workloads[w].pattern = strdup(changed[i].pattern);
    b->workloads[w].block_size_bytes = changed[i].block_size;
    assert_int_equal(placer_bench_workload_block(&b->workloads[w], NULL), 0); /* judged as its kind says */
    char *report = NULL;
    size_t regressed = 0, cells = 0;
    struct placer_error *err = NULL;
    assert_int_equal(placer_bench_compare_results(a, b, &gate, &report, &regressed, &cells, &err), -1);
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    if (strstr(err->msg, changed[i].expected) == NULL)
      fail_msg("got '%s', expected '%s'", err->msg, changed[i].expected);
    placer_error_free(err);
    placer_bench_results_free(a);
    placer_bench_results_free(b);
  }
}

/* The dynamic-repeats stop rule on known results.  build_ab's pinned runs
 * are the unpinned ones times a constant, so their paired CIs have width 0:
 * any ci_width is met.  build_partial's pinned/vms cell has no run: no CI,
 * so only the cap stops it. */
static void test_repeats_decide(void **state) {
  struct placer_bench_results *r = build_ab_scaled(5, 1.0);
  char why[512];
  assert_true(placer_bench_repeats_decide(r, 5, 20, 0.05, why, sizeof(why)));
  assert_non_null(strstr(why, "every change's 95% CI is narrower than 5.0 points after 5 repeats (widest 0.0"));
  placer_bench_results_free(r);
  r = build_partial();
  assert_false(placer_bench_repeats_decide(r, 3, 20, 0.05, why, sizeof(why)));
  assert_true(placer_bench_repeats_decide(r, 20, 20, 0.05, why, sizeof(why)));
  if (strstr(why, "the cap of 20 repeats; pinned, ") == NULL || strstr(why, "has no CI") == NULL)
    fail_msg("%s", why);
  placer_bench_results_free(r);
}

static void test_golden_ab(void **state) {
  golden_case("ab", build_ab(3), true);
}

static void test_golden_sweep(void **state) {
  golden_case("sweep", build_sweep(), false);
}

static void test_golden_partial(void **state) {
  golden_case("partial", build_partial(), false);
}

static void test_json_round_trip(void **state) {
  struct placer_bench_results *builders[] = { build_ab(3), build_sweep(), build_partial() };
  for (size_t i = 0; i < 3; i++) {
    json_t *j = placer_bench_results_to_json(builders[i]);
    struct placer_bench_results *back = NULL;
    struct placer_error *err = NULL;
    if (placer_bench_results_from_json(j, &back, &err) < 0)
      fail_msg("from_json: %s", err->msg);
    json_t *j2 = placer_bench_results_to_json(back);
    assert_true(json_equal(j, j2));
    char *t1 = report_of(builders[i]), *t2 = report_of(back);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    json_decref(j);
    json_decref(j2);
    placer_bench_results_free(back);
    placer_bench_results_free(builders[i]);
  }
}

/* placer bench --report DIR: the report recomputed from DIR/summary.json
 * is the report of the results it was written from. */
static void test_report_dir(void **state) {
  char dir[] = "/tmp/placer-report-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof(path), "%s/summary.json", dir);
  struct placer_bench_results *r = build_ab(3);
  json_t *j = placer_bench_results_to_json(r);
  assert_int_equal(json_dump_file(j, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER), 0);
  json_decref(j);
  char *expected = report_of(r), *got = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_report_dir(dir, &got, &err) < 0)
    fail_msg("report_dir: %s", err->msg);
  assert_string_equal(got, expected);
  free(got);
  free(expected);
  placer_bench_results_free(r);
  /* With a hardware baseline: its lines at the end, the shares of it computed
   * from the runs (unpinned alone 2388 of 4776 IOPS, pinned 1436; 128K: 420
   * and 300 of 840 IOPS' worth of bytes), its path escaped; the same as the
   * text of the results with it (one route, whatever reads the directory). */
  r = build_ab(3);
  j = placer_bench_results_to_json(r);
  json_t *hw = json_pack("{s:s, s:I, s:[{s:s, s:f, s:f, s:I, s:I}, {s:s, s:f, s:f, s:I, s:I}, {s:s, s:f, s:f, s:I, "
                         "s:I}]}",
                         "path", "/var/tmp/hw\x1b.img", "size_bytes", (json_int_t)(1 << 30), "workloads", "workload",
                         "4k-randwrite", "read_iops", 0.0, "write_iops", 4776.0, "read_bw_bytes", (json_int_t)0,
                         "write_bw_bytes", (json_int_t)(4776 * 4096), "workload", "4k-randread", "read_iops", 16502.0,
                         "write_iops", 0.0, "read_bw_bytes", (json_int_t)(16502 * 4096), "write_bw_bytes",
                         (json_int_t)0, "workload", "128k-write", "read_iops", 0.0, "write_iops", 840.0,
                         "read_bw_bytes", (json_int_t)0, "write_bw_bytes", (json_int_t)(840 * 131072));
  assert_non_null(hw);
  json_object_set_new(j, "hardware_baseline", hw);
  assert_int_equal(json_dump_file(j, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER), 0);
  if (placer_bench_report_dir(dir, &got, &err) < 0)
    fail_msg("report_dir: %s", err->msg);
  const char *lines = "\nHardware baseline: fio on /var/tmp/hw\\x1b.img, no Ceph, not placed; share of it each "
                      "variant delivers alone\n"
                      "                           4K randwrite      4K randread       128K write\n"
                      "  hardware                    4776 IOPS       16502 IOPS       110.1 MB/s\n"
                      "  unpinned                        50.0%            50.0%            50.0%\n"
                      "  pinned                          30.1%            36.7%            35.7%\n";
  size_t gl = strlen(got), ll = strlen(lines);
  if (gl < ll || strcmp(got + gl - ll, lines) != 0)
    fail_msg("the report's last lines:\n%s", gl > 600 ? got + gl - 600 : got);
  char *with = NULL;
  assert_int_equal(placer_bench_report_text(r, hw, &with, &err), 0);
  assert_string_equal(got, with);
  json_t *shares = placer_bench_baseline_shares(hw, r);
  assert_true(fabs(json_real_value(json_object_get(json_array_get(shares, 3), "share")) - 1436.0 / 4776) < 1e-12);
  json_decref(shares);
  free(with);
  free(got);
  json_decref(j);
  placer_bench_results_free(r);
  unlink(path);
  rmdir(dir);
  /* Not a results directory: bad input, naming the file. */
  assert_int_equal(placer_bench_report_dir(dir, &got, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "summary.json"));
  placer_error_free(err);
}

static void test_analysis_figures(void **state) {
  struct placer_bench_results *r = build_ab(3);
  /* unpinned alone 4K randwrite: 2388 x (0.98, 1.00, 1.03) -> median 2388. */
  struct placer_bench_cell_stats s;
  placer_bench_cell_stats(r, 0, 0, 0, &s);
  assert_int_equal(s.n_done, 3);
  assert_true(s.main.median == 2388);
  assert_true(fabs(s.main.min - 2388 * 0.98) < 1e-9 && fabs(s.main.max - 2388 * 1.03) < 1e-9);
  assert_true(fabs(s.p99_ns.median - 37.2e6) < 1e-3);
  /* Write amplification (31 + k) / 10 -> median 3.2; OSD CPU per I/O 0.73 ms. */
  assert_true(fabs(s.write_amplification.median - 3.2) < 1e-12);
  assert_true(fabs(s.storage_cpu_ms_per_io.median - 0.73) < 1e-4);
  /* 128K write is reported in bytes/s. */
  placer_bench_cell_stats(r, 0, 0, 2, &s);
  assert_true(s.main.median == 420.0 * 131072);
  /* Interference: storage 1903/2388, neighbours 540/1000 (medians). */
  double storage, neighbour;
  placer_bench_interference(r, 0, 1, 0, &storage, &neighbour);
  assert_true(fabs(storage - 1903.0 / 2388.0) < 1e-12);
  assert_true(fabs(neighbour - 0.54) < 1e-12);
  placer_bench_interference(r, 1, 1, 0, &storage, &neighbour);
  assert_true(fabs(storage - 1358.0 / 1436.0) < 1e-12);
  assert_true(fabs(neighbour - 0.91) < 1e-12);
  placer_bench_interference(r, 1, 0, 0, &storage, &neighbour);
  assert_true(isnan(storage) && isnan(neighbour)); /* alone vs alone: nothing to say */
  /* pinned vs unpinned, alone 4K randwrite: -39.9%, complete separation of
   * 3 vs 3: exact p = 0.1. */
  struct placer_stats_comparison main_metric, p99;
  placer_bench_compare(r, 1, 0, 0, &main_metric, &p99);
  assert_true(fabs(main_metric.change - (1436.0 / 2388.0 - 1)) < 1e-12);
  assert_true(main_metric.exact && fabs(main_metric.p_value - 0.1) < 1e-12);
  assert_true(main_metric.ci_low <= main_metric.change && main_metric.change <= main_metric.ci_high);
  assert_true(fabs(p99.change - (48.0 / 37.2 - 1)) < 1e-9);
  /* Per-role figures of one run. */
  const struct placer_bench_run *run = placer_bench_results_run_const(r, 0, 0, 0, 1);
  assert_true(fabs(placer_bench_run_role_cores(run, "mon") - 0.3 / 15) < 1e-12);
  assert_true(placer_bench_run_role_peak_rss(run, "osd") == (double)(210u << 20));
  assert_true(isnan(placer_bench_run_role_cores(run, "mds")));
  assert_null(placer_bench_results_run(r, 2, 0, 0, 0));
  assert_null(placer_bench_results_run(r, 0, 0, 0, 3));
  placer_bench_results_free(r);
}

static void test_sweep_balance(void **state) {
  struct placer_bench_results *r = build_sweep();
  struct placer_bench_balance b;
  /* Both sides against the unconstrained baseline, unpinned: pinned's 1430
   * IOPS next to one neighbour core are 60% of unpinned's 2388 alone (they
   * were 99.6% of its own 1436, which the sweep used to judge it by). */
  placer_bench_sweep_balance(r, 1, &b);
  assert_false(b.found);
  r->storage_min_fraction = 0.55; /* 1330 / 2388 = 0.557 at 6 cores, 1200 / 2388 = 0.503 at 8 */
  placer_bench_sweep_balance(r, 1, &b);
  assert_true(b.found);
  assert_true(b.level == 6);
  assert_string_equal(r->conditions[b.index].name, "vms-6");
  r->storage_min_fraction = 0.9;
  placer_bench_sweep_balance(r, 0, &b);
  assert_true(b.found && b.level == 2);
  placer_bench_results_free(r);
}

static void test_partial_cells(void **state) {
  struct placer_bench_results *r = build_partial();
  struct placer_bench_cell_stats s;
  placer_bench_cell_stats(r, 1, 1, 0, &s);
  assert_int_equal(s.n_done, 0);
  assert_true(isnan(s.main.median));
  placer_bench_cell_stats(r, 1, 0, 1, &s);
  assert_int_equal(s.n_done, 1);
  struct placer_stats_comparison cmp;
  placer_bench_compare(r, 1, 1, 0, &cmp, NULL);
  assert_true(isnan(cmp.change) && isnan(cmp.p_value));
  /* The JSON keeps only the done runs and says it was interrupted. */
  json_t *j = placer_bench_results_to_json(r);
  assert_true(json_is_true(json_object_get(j, "interrupted")));
  assert_int_equal(json_array_size(json_object_get(j, "runs")), 16);
  assert_int_equal(json_array_size(json_object_get(j, "solo")), 1);
  json_decref(j);
  placer_bench_results_free(r);
}

static void expect_new_error(const struct placer_bench_spec *spec, const char *needle) {
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_results_new(spec, &r, &err), -1);
  assert_null(r);
  if (strstr(err->msg, needle) == NULL)
    fail_msg("'%s' does not mention '%s'", err->msg, needle);
  placer_error_free(err);
}

static void test_bad_shapes(void **state) {
  const char *const twice[] = { "a", "a" };
  struct placer_bench_spec spec = {
    .variants = twice,
    .n_variants = 2,
    .workloads = ab_workloads,
    .n_workloads = 3,
    .conditions = ab_conditions,
    .n_conditions = 2,
    .repeats = 3,
  };
  expect_new_error(&spec, "variant 'a' appears twice");
  spec.variants = variants;
  spec.repeats = 0;
  expect_new_error(&spec, "at least one");
  spec.repeats = 65;
  expect_new_error(&spec, "at most 64");
  spec.repeats = 3;
  spec.sweep = true;
  spec.sweep_workload = 3;
  expect_new_error(&spec, "sweep workload 3 of 3");

  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  json_t *j = json_pack("{s:s, s:i}", "format", "placer-bench-results", "version", 2);
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), -1);
  assert_non_null(strstr(err->msg, "version 2, expected 1"));
  placer_error_free(err);
  err = NULL;
  json_decref(j);
  j = json_pack("{s:s, s:i, s:[s], s:[], s:[], s:i, s:{}}", "format", "placer-bench-results", "version", 1, "variants",
                "a", "workloads", "conditions", "repeats", 1, "neighbour");
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), -1);
  assert_non_null(strstr(err->msg, "at least one"));
  placer_error_free(err);
  json_decref(j);
}

static void test_block_size_labels(void **state) {
  char buf[32];
  placer_bench_format_block_size(4096, buf, sizeof(buf));
  assert_string_equal(buf, "4K");
  placer_bench_format_block_size(131072, buf, sizeof(buf));
  assert_string_equal(buf, "128K");
  placer_bench_format_block_size(4 << 20, buf, sizeof(buf));
  assert_string_equal(buf, "4M");
  placer_bench_format_block_size(1536 << 10, buf, sizeof(buf));
  assert_string_equal(buf, "1536K");
  placer_bench_format_block_size(512, buf, sizeof(buf));
  assert_string_equal(buf, "512B");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden_split),        cmocka_unit_test(test_compare_gate),
    cmocka_unit_test(test_compare_other_cells), cmocka_unit_test(test_compare_cost),
    cmocka_unit_test(test_compare_differences), cmocka_unit_test(test_repeats_decide),
    cmocka_unit_test(test_golden_ab),           cmocka_unit_test(test_golden_sweep),
    cmocka_unit_test(test_golden_partial),      cmocka_unit_test(test_json_round_trip),
    cmocka_unit_test(test_report_dir),          cmocka_unit_test(test_analysis_figures),
    cmocka_unit_test(test_sweep_balance),       cmocka_unit_test(test_partial_cells),
    cmocka_unit_test(test_bad_shapes),          cmocka_unit_test(test_block_size_labels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
