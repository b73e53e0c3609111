/* The response curves of a study's results (results/curve-results.c), on
 * hand-built results whose every figure is worked out below: each step's
 * medians over its repeats, the knee, the SLO point interpolated between
 * the steps around it, the figures per core there, the neighbours' share at
 * every step and at the target load, and the balance point read off the
 * curves (found, and the nearest miss when none qualifies).  summary.json
 * keeps the steps, the SLO and the CPU each variant gives storage (read back
 * checked: damaged keys refused in one line); compare judges the load steps
 * two studies share and says which it skipped. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftw.h>
#include <unistd.h>

#include "report/report-html.h"
#include "report/report.h"
#include "results/compare.h"
#include "results/curve-results.h"
#include "results/results.h"
#include "size/size.h"
#include "test_support.h"

#define NV 3
#define NC 2
#define NS 3
#define NR 3

static const char *const variants[NV] = { "unpinned", "pinned", "quota-1" };
static const double cpus[NV] = { NAN, 1, 1 };
static const double loads[NS] = { 1, 4, 16 };
/* [variant][condition][step]: the medians each cell's repeats spread around */
static const double iops[NV][NC][NS] = {
  { { 400, 1050, 1200 }, { 300, 900, 1000 } },
  { { 420, 1100, 1250 }, { 350, 950, 1000 } },
  { { 380, 1000, 1100 }, { 250, 700, 800 } },
};
static const double p99_ms[NV][NC][NS] = {
  { { 9, 13, 45 }, { 10, 18, 60 } },
  { { 8, 12, 40 }, { 8, 15, 50 } },
  { { 10, 14, 50 }, { 12, 25, 70 } },
};
static const double osd_cores[NS] = { 0.3, 0.8, 0.9 };
/* the neighbours' rate next to storage; alone, none; their solo rate is 1000 */
static const double nb_rate[NV][NS] = { { 700, 600, 500 }, { 950, 920, 880 }, { 900, 850, 800 } };
static const double spread[NR] = { 0.95, 1.0, 1.05 }, lat_spread[NR] = { 0.9, 1.0, 1.1 };

/* The results, with the first N_STEPS steps (and the SLO, p99 <= 20 ms, the
 * neighbours keeping 90%, at the unconstrained variant's knee). */
static struct placer_bench_results *build(size_t n_steps) {
  struct placer_bench_workload ws[NS];
  char names[NS][48];
  for (size_t s = 0; s < n_steps; s++) {
    snprintf(names[s], sizeof(names[s]), "4k-randwrite@iodepth%.0f", loads[s]);
    ws[s] = (struct placer_bench_workload){
      .name = names[s], .pattern = "randwrite", .block_size_bytes = 4096, .curve = "4k-randwrite", .load = loads[s]
    };
    snprintf(ws[s].load_name, sizeof(ws[s].load_name), "iodepth");
  }
  struct placer_bench_condition conds[NC] = { { "alone", 0 }, { "neighbour", 1 } };
  struct placer_slo slo;
  placer_slo_init(&slo);
  slo.storage_ns[PLACER_SLO_P99] = 20e6;
  slo.keep = 0.9;
  struct placer_bench_spec spec = {
    .title = "curves",
    .storage_role = "osd",
    .neighbour_name = "neighbour",
    .neighbour_unit = "bogo ops/s",
    .level_unit = "workers",
    .neighbour_role = "neighbour",
    .variants = variants,
    .n_variants = NV,
    .workloads = ws,
    .n_workloads = n_steps,
    .conditions = conds,
    .n_conditions = NC,
    .repeats = NR,
    .node_cpus = 2,
    .slo = &slo,
    .storage_cpus = cpus,
  };
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_new(&spec, &r, &err) < 0)
    fail_msg("%s", err->msg);
  for (size_t v = 0; v < NV; v++)
    for (size_t c = 0; c < NC; c++)
      for (size_t s = 0; s < n_steps; s++)
        for (size_t k = 0; k < NR; k++) {
          struct placer_bench_run *run = placer_bench_results_run(r, v, c, s, k);
          struct placer_bench_op ops[2] = { placer_bench_op_none("read"), placer_bench_op_none("write") };
          ops[0].iops = 0;
          ops[1].iops = iops[v][c][s] * spread[k];
          ops[1].total_ios = (uint64_t)(ops[1].iops * 2);
          ops[1].clat_p50_ns = p99_ms[v][c][s] * 1e6 / 4;
          ops[1].clat_p99_ns = p99_ms[v][c][s] * 1e6 * lat_spread[k];
          ops[1].clat_p999_ns = p99_ms[v][c][s] * 2e6;
          struct placer_bench_result res = { .ops = ops, .n_ops = 2 };
          assert_int_equal(placer_bench_run_set_result(run, &res, NULL, NULL), 0);
          run->duration_s = 2;
          assert_int_equal(
              placer_bench_run_add_role(run, "osd.0", "osd", (uint64_t)(osd_cores[s] * 2e9 * spread[k]), 1 << 20, NULL),
              0);
          run->neighbour_rate = c ? nb_rate[v][s] * (0.98 + 0.02 * (double)k) : NAN;
          run->done = true;
          if (c)
            assert_int_equal(placer_bench_results_set_solo(r, v, c, k, 1000), 0);
        }
  return r;
}

static void near(double x, double want, double tolerance) {
  if (!(fabs(x - want) <= tolerance))
    fail_msg("%.9g, expected %.9g (within %g)", x, want, tolerance);
}

static void test_curves(void **state) {
  (void)state;
  struct placer_bench_results *r = build(NS);
  const char *names[4];
  assert_int_equal(placer_bench_curve_names(r, names, 4), 1);
  assert_string_equal(names[0], "4k-randwrite");
  assert_int_equal(placer_bench_curve_last_workload(r, "4k-randwrite"), 2);
  assert_int_equal(placer_bench_curve_last_workload(r, "4k-randread"), -1);

  struct placer_bench_curve c;
  assert_int_equal(placer_bench_curve_get(r, "4k-randwrite", 0, 0, &c, NULL), 0);
  assert_true(c.built && c.has_slo);
  assert_int_equal(c.curve.n, NS);
  for (size_t s = 0; s < NS; s++) {
    const struct placer_curve_step *st = &c.curve.steps[s];
    near(st->load, loads[s], 0);
    near(st->throughput.median, iops[0][0][s], 1e-9);
    near(st->latency_ns[PLACER_SLO_P99].median, p99_ms[0][0][s] * 1e6, 1e-3);
    near(st->storage_cores.median, osd_cores[s], 1e-9);
    assert_true(st->throughput.ci_low <= st->throughput.median && st->throughput.median <= st->throughput.ci_high);
    assert_true(isnan(c.kept[s].median)); /* alone: no neighbours */
  }
  /* the knee: 1 -> 4 is not saturated (p99 +44% against IOPS x2.6), 4 -> 16 is (p99 x3.5 for IOPS +14%) */
  assert_true(c.knee.found);
  assert_int_equal(c.knee.step, 1);
  near(c.knee.throughput, 1050, 1e-9);
  /* the SLO point: p99 crosses 20 ms between iodepth 4 (13 ms) and 16 (45 ms), 7/32 of the way */
  assert_int_equal(c.slo.status, PLACER_CURVE_SLO_MET);
  assert_true(c.slo.interpolated);
  near(c.slo.fraction, 7.0 / 32, 1e-9);
  near(c.slo.throughput, 1050 + 7.0 / 32 * 150, 1e-6);
  near(c.slo.storage_cores, 0.8 + 7.0 / 32 * 0.1, 1e-9);
  assert_string_equal(c.slo_text, "1083 IOPS at p99 <= 20 ms (interpolated between iodepth 4 and 16; 95% CI "
                                  "1039 to 1128)");
  near(c.per_core.per_core_used, (1050 + 7.0 / 32 * 150) / (0.8 + 7.0 / 32 * 0.1), 1e-6);
  assert_true(isnan(c.per_core.per_core_allocated)); /* unpinned: no allocation */
  placer_bench_curve_clear(&c);

  /* pinned next to the neighbour: the SLO point between 4 (15 ms) and 16 (50 ms); 1 core allocated */
  assert_int_equal(placer_bench_curve_get(r, "4k-randwrite", 1, 1, &c, NULL), 0);
  near(c.slo.throughput, 950 + 5.0 / 35 * 50, 1e-6);
  near(c.per_core.allocated_cores, 1, 0);
  near(c.per_core.per_core_allocated, 950 + 5.0 / 35 * 50, 1e-6);
  for (size_t s = 0; s < NS; s++) {
    near(c.kept[s].median, nb_rate[1][s] / 1000, 1e-9);
    assert_true(c.kept[s].ci_low <= c.kept[s].median && c.kept[s].median <= c.kept[s].ci_high);
  }
  placer_bench_curve_clear(&c);
  placer_bench_results_free(r);
}

static void test_balance(void **state) {
  (void)state;
  struct placer_bench_results *r = build(NS);
  struct placer_bench_curve_balance b;
  assert_int_equal(placer_bench_curve_balance(r, &b, NULL), 0);
  assert_true(b.computed);
  assert_string_equal(b.curve, "4k-randwrite");
  assert_int_equal(b.condition, 1);
  /* the target: unpinned's knee next to the neighbour (p99 18 -> 60 ms for IOPS +11%: at iodepth 4) */
  assert_true(b.balance.target_from_knee);
  assert_int_equal(b.balance.knee_variant, 0);
  near(b.balance.target, 900, 1e-9);
  /* the neighbours' share where each curve reaches 900 IOPS: unpinned at its step (60%); pinned 11/12
   * of the way from iodepth 1 (350 IOPS, 95%) to 4 (950 IOPS, 92%) */
  near(b.kept_at_target[0].median, 0.6, 1e-9);
  near(b.kept_at_target[1].median, 0.95 + 550.0 / 600 * (0.92 - 0.95), 1e-9);
  /* quota-1 reaches p99 20 ms at 527 IOPS (8/13 of the way from 1 to 4): 41% short */
  const struct placer_curve_verdict *q = &b.balance.verdicts[2];
  assert_false(q->meets_slo);
  near(q->slo.throughput, 250 + 8.0 / 13 * 450, 1e-6);
  assert_non_null(strstr(q->why, "41% short of 900 IOPS: 527 IOPS at p99 <= 20 ms (interpolated between iodepth 1 "
                                 "and 4"));
  /* unpinned meets it but is no step of the split (unconstrained); pinned, 1 core, is the answer */
  assert_true(b.balance.found);
  assert_int_equal(b.balance.variant, 1);
  assert_true(b.balance.verdicts[1].meets_slo && b.balance.verdicts[1].keeps_neighbours);
  assert_non_null(strstr(b.balance.summary, "pinned: the least storage CPU (1 core) with p99 <= 20 ms at 900 IOPS, "
                                            "the knee of unpinned, the neighbours keeping 90%"));
  placer_bench_curve_balance_clear(&b);

  /* none qualifies when the neighbours must keep 95%: the nearest is said with its miss */
  r->slo.keep = 0.95;
  assert_int_equal(placer_bench_curve_balance(r, &b, NULL), 0);
  assert_false(b.balance.found);
  assert_string_equal(b.balance.summary,
                      "none meets p99 <= 20 ms at 900 IOPS, the knee of unpinned, the neighbours keeping 95%; the "
                      "nearest, pinned: the neighbours keep 92%, below 95%");
  placer_bench_curve_balance_clear(&b);
  /* without an SLO: nothing to read off */
  placer_slo_init(&r->slo);
  assert_int_equal(placer_bench_curve_balance(r, &b, NULL), 0);
  assert_false(b.computed);
  placer_bench_curve_balance_clear(&b);
  placer_bench_results_free(r);
}

static json_t *as_json(const struct placer_bench_results *r) {
  json_t *j = placer_bench_results_to_json(r);
  assert_non_null(j);
  return j;
}

/* summary.json keeps what the curves need, and reads it back the same. */
static void test_summary_json(void **state) {
  (void)state;
  struct placer_bench_results *r = build(NS);
  json_t *j = as_json(r);
  const json_t *w = json_array_get(json_object_get(j, "workloads"), 1);
  assert_string_equal(json_string_value(json_object_get(w, "curve")), "4k-randwrite");
  assert_string_equal(json_string_value(json_object_get(json_object_get(w, "load"), "name")), "iodepth");
  near(json_number_value(json_object_get(json_object_get(w, "load"), "value")), 4, 0);
  near(json_number_value(json_object_get(json_object_get(j, "slo"), "p99_ns")), 20e6, 0);
  assert_true(json_is_null(json_array_get(json_object_get(j, "storage_cpus"), 0)));
  near(json_number_value(json_array_get(json_object_get(j, "storage_cpus"), 1)), 1, 0);
  const json_t *curves = json_object_get(json_object_get(j, "summary"), "curves");
  assert_int_equal(json_array_size(curves), NV * NC);
  const json_t *c0 = json_array_get(curves, 0);
  assert_string_equal(json_string_value(json_object_get(c0, "variant")), "unpinned");
  assert_string_equal(json_string_value(json_object_get(json_object_get(c0, "slo_point"), "status")), "met");
  near(json_number_value(json_object_get(json_object_get(c0, "slo_point"), "throughput")), 1050 + 7.0 / 32 * 150, 1e-6);
  const json_t *bal = json_object_get(json_object_get(j, "summary"), "curve_balance");
  assert_string_equal(json_string_value(json_object_get(bal, "variant")), "pinned");
  struct placer_bench_results *back = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_from_json(j, &back, &err) < 0)
    fail_msg("%s", err->msg);
  assert_string_equal(back->workloads[2].curve, "4k-randwrite");
  assert_string_equal(back->workloads[2].load_name, "iodepth");
  near(back->workloads[2].load, 16, 0);
  near(back->slo.storage_ns[PLACER_SLO_P99], 20e6, 0);
  near(back->slo.keep, 0.9, 0);
  assert_true(isnan(back->storage_cpus[0]) && back->storage_cpus[1] == 1 && back->storage_cpus[2] == 1);
  json_t *again = as_json(back);
  char *a = json_dumps(j, JSON_SORT_KEYS), *b = json_dumps(again, JSON_SORT_KEYS);
  assert_string_equal(a, b);
  free(a);
  free(b);
  json_decref(again);
  placer_bench_results_free(back);
  json_decref(j);
  placer_bench_results_free(r);
}

/* J is refused, one line naming the key. */
static void refused(json_t *j, const char *want) {
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_bench_results_from_json(j, &r, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strcmp(err->msg, want) != 0)
    fail_msg("'%s', expected '%s'", err->msg, want);
  placer_error_free(err);
  json_decref(j);
}

static json_t *workload(json_t *j, size_t i) {
  return json_array_get(json_object_get(j, "workloads"), i);
}

static void test_summary_refused(void **state) {
  (void)state;
  struct placer_bench_results *r = build(NS);
  json_t *j = as_json(r);
  json_object_set_new(json_object_get(workload(j, 1), "load"), "value", json_integer(-4));
  refused(j, "workloads[1].load.value: -4 is less than 1");
  j = as_json(r);
  json_object_set_new(json_object_get(workload(j, 1), "load"), "name", json_string("queue"));
  refused(j, "workloads[1].load.name: 'queue' is not what a load step sets (iodepth, numjobs, rate_iops)");
  j = as_json(r);
  json_object_del(workload(j, 0), "load");
  refused(j, "workloads[0]: a load step has both \"curve\" and \"load\"");
  j = as_json(r);
  json_object_set_new(json_object_get(workload(j, 2), "load"), "value", json_integer(4));
  refused(j, "workloads[2].load: curve '4k-randwrite' has the step 4 twice (workloads[1])");
  j = as_json(r);
  json_object_set_new(json_object_get(workload(j, 2), "load"), "name", json_string("numjobs"));
  refused(j, "workloads[2].load: curve '4k-randwrite' steps by numjobs here and by iodepth at workloads[0]");
  j = as_json(r);
  json_object_set_new(json_object_get(j, "slo"), "p99_ns", json_integer(-2));
  refused(j, "slo.p99_ns: -2 is less than 1e-09");
  j = as_json(r);
  json_object_set_new(json_object_get(j, "slo"), "keep", json_real(1.5));
  refused(j, "slo.keep: 1.5 is more than 1");
  j = as_json(r);
  json_object_set_new(json_object_get(j, "slo"), "at", json_string("somewhere"));
  refused(j, "slo.at: 'somewhere' is not where an SLO holds (knee, iops, bytes_per_s)");
  j = as_json(r);
  json_object_set_new(json_object_get(j, "slo"), "at", json_string("iops"));
  refused(j, "slo: \"at_rate\" goes with \"at\" iops or bytes_per_s, and only with them");
  j = as_json(r);
  json_array_set_new(json_object_get(j, "storage_cpus"), 1, json_string("one"));
  refused(j, "storage_cpus[1]: expected a number or null, got a string");
  j = as_json(r);
  json_array_set_new(json_object_get(j, "storage_cpus"), 1, json_real(-1));
  refused(j, "storage_cpus[1]: -1 is less than 1e-09");
  j = as_json(r);
  json_array_remove(json_object_get(j, "storage_cpus"), 2);
  refused(j, "storage_cpus: 2 entries, but the study has 3 variants");
  placer_bench_results_free(r);
}

/* Two studies with other load steps: the steps both have are compared, the
 * others said; a name that is another step in each is no cell of both. */
static void test_compare_steps(void **state) {
  (void)state;
  struct placer_bench_results *a = build(NS), *b = build(NS - 1);
  struct placer_bench_gate gate = { 0.05, 0.05 };
  char *report = NULL;
  size_t regressed, cells;
  struct placer_error *err = NULL;
  if (placer_bench_compare_results(a, b, &gate, &report, &regressed, &cells, &err) < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(cells, NV * NC * (NS - 1));
  assert_int_equal(regressed, 0);
  assert_non_null(strstr(report, "Load steps skipped, not in both: 4k-randwrite iodepth 16 (only in the baseline); "
                                 "the 2 steps both have compared.\n"));
  assert_null(strstr(report, "@iodepth16"));
  free(report);
  /* the other way round */
  assert_int_equal(placer_bench_compare_results(b, a, &gate, &report, &regressed, &cells, &err), 0);
  assert_non_null(strstr(report, "4k-randwrite iodepth 16 (only in the candidate)"));
  free(report);
  /* the same name for another step */
  b->workloads[1].load = 8;
  assert_int_equal(placer_bench_compare_results(a, b, &gate, &report, &regressed, &cells, &err), -1);
  assert_string_equal(err->msg, "compare: workload '4k-randwrite@iodepth4' is iodepth 4 in the baseline and iodepth 8 "
                                "in the candidate: not the same cell");
  placer_error_free(err);
  placer_bench_results_free(a);
  placer_bench_results_free(b);
}

/* placer size reads the curves: the OSDs' cost is the CPU the balance point's
 * variant is given per client I/O at its SLO point, not the CPU used flat
 * out, and the VMs per NUMA node follow from it. */
static void test_size_at_slo(void **state) {
  (void)state;
  struct placer_bench_results *r = build(NS);
  struct placer_topology *topo = NULL;
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"), &topo, &err) < 0 ||
      placer_profile_load(test_data_path("../profiles/hci-nvme.yaml"), &profile, &err) < 0)
    fail_msg("%s", err->msg);
  struct placer_size_options opt;
  placer_size_options_default(&opt);
  opt.target_iops = 3000;
  struct placer_size_result *res = NULL;
  if (placer_size_compute(&r, 1, topo, profile, &opt, &res, &err) < 0)
    fail_msg("%s", err->msg);
  /* the SLO row: pinned (the curves' balance point), 1 core for 957 IOPS at p99 <= 20 ms next to the neighbour */
  const struct placer_size_workload *w = &res->workloads[res->sizing];
  assert_true(w->at_slo);
  assert_string_equal(w->name, "4k-randwrite at p99 <= 20 ms");
  assert_string_equal(w->slo_variant, "pinned");
  assert_string_equal(w->slo_condition, "neighbour");
  double slo_iops = 950 + 5.0 / 35 * 50;
  near(w->slo_iops, slo_iops, 1e-6);
  near(w->cpu_ms_per_io, 1000.0 / slo_iops, 1e-9);
  near(w->cpu_ms_per_io_target, 1.5 * 1000.0 / slo_iops, 1e-9); /* a write, 3 replicas for the measured 2 */
  unsigned need = (unsigned)ceil(3000 * 1.5 / slo_iops);
  assert_int_equal(w->threads_needed, need);
  assert_int_equal(res->osd_threads, need + need % 2); /* whole cores of 2 threads */
  /* the steps' own rows (storage alone, flat out) cost less: sized by them, more VMs would fit */
  unsigned vms_at_slo = res->vms;
  for (size_t i = 0; i < res->n_workloads; i++)
    if (!res->workloads[i].at_slo)
      assert_true(res->workloads[i].cpu_ms_per_io_target < w->cpu_ms_per_io_target);
  char *printed = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&printed, &len);
  assert_int_equal(placer_size_print_text(res, m), 0);
  fclose(m);
  assert_non_null(strstr(printed, "4k-randwrite at p99 <= 20 ms: pinned next to neighbour, storage given 1 core: 957 "
                                  "IOPS at p99 <= 20 ms (interpolated between iodepth 4 and 16;"));
  free(printed);
  json_t *j = placer_size_to_json(res);
  const json_t *row = json_array_get(json_object_get(j, "workloads"), res->sizing);
  assert_string_equal(json_string_value(json_object_get(json_object_get(row, "at_slo"), "variant")), "pinned");
  json_decref(j);
  placer_size_result_free(res);
  placer_profile_free(profile);
  profile = NULL;
  placer_profile_load(test_data_path("../profiles/hci-nvme.yaml"), &profile, NULL);
  opt.workload = "4k-randwrite@iodepth16"; /* the cost flat out, as before */
  if (placer_size_compute(&r, 1, topo, profile, &opt, &res, &err) < 0)
    fail_msg("%s", err->msg);
  assert_false(res->workloads[res->sizing].at_slo);
  assert_true(res->vms > vms_at_slo);
  placer_size_result_free(res);
  placer_profile_free(profile);
  placer_topology_free(topo);
  placer_bench_results_free(r);
}

/* ---- a recorded study: tests/fixtures/results/curves-2osd -------------------------------- */

/* HTML text back to text: the entities page_html_text writes. */
static void unescape(char *s) {
  static const struct {
    const char *entity, *ch;
  } map[] = { { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" } };
  char *out = s;
  while (*s) {
    bool done = false;
    for (size_t i = 0; i < 4 && !done; i++)
      if (strncmp(s, map[i].entity, strlen(map[i].entity)) == 0) {
        *out++ = map[i].ch[0];
        s += strlen(map[i].entity);
        done = true;
      }
    if (!done)
      *out++ = *s++;
  }
  *out = '\0';
}

/* The text between OPEN (its end) and CLOSE after *AT, unescaped; NULL when none. */
static char *between(const char **at, const char *open, const char *close) {
  const char *a = strstr(*at, open);
  if (a == NULL)
    return NULL;
  a = strchr(a, '>') + 1;
  const char *b = strstr(a, close);
  assert_non_null(b);
  char *t = strndup(a, (size_t)(b - a));
  unescape(t);
  *at = b + strlen(close);
  return t;
}

/* Every row of every curve table of the page is a line of the text report
 * with the same cells in the same order, and every sentence of the page's
 * curve section is one of the text's: the same figures, made once. */
static void same_figures(const char *html, const char *text) {
  size_t tables = 0, rows = 0, sentences = 0;
  for (const char *t = strstr(html, "<table class=\"curve\""); t; t = strstr(t + 1, "<table class=\"curve\"")) {
    tables++;
    const char *end = strstr(t, "</table>");
    const char *row = strstr(t, "<tr>"); /* the head */
    for (row = strstr(row + 1, "<tr>"); row && row < end; row = strstr(row + 1, "<tr>")) {
      const char *at = row, *row_end = strstr(row, "</tr>");
      const char *line = NULL; /* the text's line of this row: the first with its cells in order */
      char *cells[16];
      size_t n = 0;
      char *cell;
      while (n < 16 && (cell = between(&at, "<td", "</td>")) != NULL) {
        if (at > row_end + 5) { /* the next row's */
          free(cell);
          break;
        }
        cells[n++] = cell;
      }
      for (const char *l = text; l && *l && line == NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *nl = strchr(l, '\n'), *p = l;
        bool all = true;
        for (size_t k = 0; k < n && all; k++) {
          if (cells[k][0] == '\0')
            continue;
          const char *f = strstr(p, cells[k]);
          all = f && (nl == NULL || f < nl);
          p = f ? f + strlen(cells[k]) : p;
        }
        if (all)
          line = l;
      }
      if (line == NULL)
        fail_msg("no line of the text report has the row of %zu cells starting '%s' '%s' '%s'", n, cells[0], cells[1],
                 cells[2]);
      for (size_t k = 0; k < n; k++)
        free(cells[k]);
      rows++;
    }
  }
  static const char *const kinds[] = { "<li class=\"slo\"", "<li class=\"per-core\"", "<p id=\"curve-balance\"" };
  for (size_t k = 0; k < 3; k++) {
    const char *at = html;
    char *sentence;
    while ((sentence = between(&at, kinds[k], k == 2 ? "</p>" : "</li>")) != NULL) {
      if (strstr(text, sentence) == NULL)
        fail_msg("the page says '%s', the text report does not", sentence);
      free(sentence);
      sentences++;
    }
  }
  assert_int_equal(tables, 2); /* alone, next to the neighbour */
  assert_int_equal(rows, 2 * 4 * 4);
  assert_true(sentences >= 2 * 4 + 1);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* The report of a recorded run of studies/curves.yaml: its text (golden),
 * the data files of its curve plots and of its split plot (golden), and
 * report.html saying the same figures as the text. */
static void test_recorded(void **state) {
  (void)state;
  char fixture[4096]; /* test_data_path's buffer is the next call's */
  snprintf(fixture, sizeof(fixture), "%s", test_data_path("fixtures/results/curves-2osd"));
  char *text = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_report_dir(fixture, &text, &err) < 0)
    fail_msg("%s", err->msg);
  test_compare_golden("golden/bench/curves.txt", text);

  char dir[] = "/tmp/placer-test-curves-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[4200], src[4200];
  snprintf(src, sizeof(src), "%s/summary.json", fixture);
  snprintf(path, sizeof(path), "%s/summary.json", dir);
  char *summary = test_read_file(src);
  test_write_file(path, summary);
  free(summary);
  char *page = NULL;
  int rc = placer_report_html_dir(dir, NULL, &page, &err);
  bool no_gnuplot = rc < 0 && strstr(err->msg, "gnuplot not found") != NULL;
  if (rc < 0 && !no_gnuplot)
    fail_msg("%s", err->msg);
  if (rc == 0) {
    static const char *const plots[] = { "curve-0-0.dat", "curve-0-1.dat", "split.dat" };
    for (size_t i = 0; i < 3; i++) {
      char golden[128];
      snprintf(path, sizeof(path), "%s/report/%s", dir, plots[i]);
      snprintf(golden, sizeof(golden), "golden/bench/curves/%s", plots[i]);
      char *dat = test_read_file(path);
      assert_non_null(dat);
      test_compare_golden(golden, dat);
      free(dat);
      snprintf(path, sizeof(path), "%s/report/%.*s.svg", dir, (int)(strlen(plots[i]) - 4), plots[i]);
      assert_int_equal(access(path, R_OK), 0);
    }
    char *html = test_read_file(page);
    snprintf(path, sizeof(path), "%s/report/report.txt", dir);
    char *page_text = test_read_file(path);
    assert_string_equal(page_text, text); /* one route */
    same_figures(html, page_text);
    free(html);
    free(page_text);
  }
  free(page);
  placer_error_free(err);
  nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
  free(text);
  if (no_gnuplot)
    skip();
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_curves),          cmocka_unit_test(test_balance),       cmocka_unit_test(test_summary_json),
    cmocka_unit_test(test_summary_refused), cmocka_unit_test(test_compare_steps), cmocka_unit_test(test_size_at_slo),
    cmocka_unit_test(test_recorded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
