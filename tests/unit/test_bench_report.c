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

#include "bench/compare.h"
#include "bench/report.h"
#include "bench/results.h"
#include "test_support.h"

static const char *const variants[] = { "unpinned", "pinned" };
static const double jitter[] = { -0.02, 0.0, 0.03, 0.01, -0.01 };

/* One finished run: IOPS (or bytes/s) `rate` in the workload's direction, p99
 * latency in ms, OSD CPU of `ms_per_io` per I/O over two OSDs, 15 s long. */
static void fill_run(struct placer_bench_results *r, size_t v, size_t c, size_t w, size_t k, double iops, double p99_ms,
                     double neighbour_rate) {
  struct placer_bench_run *run = placer_bench_results_run(r, v, c, w, k);
  const struct placer_bench_workload *wl = &r->workloads[w];
  struct placer_fio_io io = { 0 };
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
  struct placer_fio_result fio = { 0 };
  struct placer_fio_io idle = { .clat_mean_ns = NAN, .clat_p50_ns = NAN, .clat_p99_ns = NAN, .clat_p999_ns = NAN };
  bool reads = placer_bench_pattern_direction(wl->pattern) == PLACER_BENCH_READ;
  fio.total.read = reads ? io : idle;
  fio.total.write = reads ? idle : io;
  char path[256];
  snprintf(path, sizeof(path), "fio/%s/%s/%s/%zu.json", r->variants[v], r->conditions[c].name, wl->name, k);
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_run_set_fio(run, &fio, path, &err), 0);
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
  { "4k-randwrite", "randwrite", 4096 },
  { "4k-randread", "randread", 4096 },
  { "128k-write", "write", 131072 },
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
  const struct placer_bench_workload w[] = { { "4k-randwrite", "randwrite", 4096 } };
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

static void check_golden_path(const char *rel, const char *text);

static void check_golden(const char *name, const char *text) {
  char rel[256];
  snprintf(rel, sizeof(rel), "golden/bench/%s", name);
  check_golden_path(rel, text);
}

static void check_golden_path(const char *rel, const char *text) {
  if (getenv("PLACER_UPDATE_GOLDEN")) {
    FILE *f = fopen(test_data_path(rel), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
  }
  char *golden = test_read_file(test_data_path(rel));
  if (golden == NULL)
    fail_msg("missing golden file %s (run with PLACER_UPDATE_GOLDEN=1)", rel);
  if (strcmp(golden, text) != 0) {
    fprintf(stderr, "--- %s\n%s--- got\n%s", rel, golden, text);
    fail_msg("%s differs from the output", rel);
  }
  free(golden);
}

static char *report_of(const struct placer_bench_results *r) {
  char *text = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_report(r, &text, &err) < 0)
    fail_msg("%s", err->msg);
  return text;
}

static char *json_of(const struct placer_bench_results *r) {
  json_t *j = placer_bench_results_to_json(r);
  assert_non_null(j);
  char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
  json_decref(j);
  char *with_newline = NULL;
  assert_true(asprintf(&with_newline, "%s\n", s) > 0);
  free(s);
  return with_newline;
}

/* The text report always; the JSON only where json_golden (one is enough to pin
 * the schema down; the round trip covers the others). */
static void golden_case(const char *name, struct placer_bench_results *r, bool json_golden) {
  char file[128];
  char *text = report_of(r);
  snprintf(file, sizeof(file), "%s.txt", name);
  check_golden(file, text);
  /* Byte-identical on a second rendering (seeded bootstrap). */
  char *again = report_of(r);
  assert_string_equal(text, again);
  free(again);
  free(text);
  if (json_golden) {
    char *json = json_of(r);
    snprintf(file, sizeof(file), "%s.json", name);
    check_golden(file, json);
    free(json);
  }
  placer_bench_results_free(r);
}

/* A quota sweep (placement sweep): the unconstrained base and 4 quota steps
 * on a 2-CPU node; storage follows its quota (constant CPU per I/O), the
 * neighbour gets the rest. */
static struct placer_bench_results *build_split(void) {
  static const char *const names[] = { "free", "quota-0.5", "quota-1", "quota-1.5", "quota-2" };
  static const double knobs[] = { NAN, 0.5, 1.0, 1.5, 2.0 };
  static const double with[] = { 1903, 900, 1500, 1800, 1900 }, nb[] = { 540, 900, 780, 600, 550 };
  const struct placer_bench_workload w[] = { { "4k-randwrite", "randwrite", 4096 } };
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
   * n_max = (2 - s x c_alone) / min(2 workers, 2 cpus) = 0.37122; bound = s + n_max = 0.99936;
   * n = 780 / 1000; efficiency = (s + n) / bound = 1.40904. */
  struct placer_bench_efficiency e;
  placer_bench_efficiency(r, 2, 1, 0, &e);
  assert_true(fabs(e.storage_kept - 1500.0 / 2388.0) < 1e-9);
  assert_true(fabs(e.storage_cores_alone - 2.00204) < 1e-4);
  assert_true(fabs(e.neighbour_kept - 0.78) < 1e-9);
  assert_true(fabs(e.bound - 0.99936) < 1e-4);
  assert_true(fabs(e.efficiency - 1.40904) < 1e-4);
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
    if (getenv("PLACER_UPDATE_GOLDEN")) {
      char dir[4200];
      snprintf(dir, sizeof(dir), "mkdir -p %s/fixtures/bench-gate/%s", getenv("PLACER_TEST_DATA"), names[i]);
      assert_int_equal(system(dir), 0);
    }
    check_golden_path(rel, json);
    free(json);
    placer_bench_results_free(all[i]);
  }
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
  placer_bench_sweep_balance(r, 1, &b);
  assert_true(b.found);
  assert_true(b.level == 6);
  assert_string_equal(r->conditions[b.index].name, "vms-6");
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
    cmocka_unit_test(test_compare_differences), cmocka_unit_test(test_repeats_decide),
    cmocka_unit_test(test_golden_ab),           cmocka_unit_test(test_golden_sweep),
    cmocka_unit_test(test_golden_partial),      cmocka_unit_test(test_json_round_trip),
    cmocka_unit_test(test_report_dir),          cmocka_unit_test(test_analysis_figures),
    cmocka_unit_test(test_sweep_balance),       cmocka_unit_test(test_partial_cells),
    cmocka_unit_test(test_bad_shapes),          cmocka_unit_test(test_block_size_labels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
