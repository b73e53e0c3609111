/* The arithmetic of placer bench on known inputs. */
#include <math.h>

#include "results/metrics.h"
#include "test_support.h"

static void test_write_amplification(void **state) {
  /* 2 replicas of 4 GiB of client writes, plus 1 GiB of RocksDB/WAL traffic. */
  assert_true(placer_bench_write_amplification(9ull << 30, 4ull << 30) == 2.25);
  /* The captured OSD snapshot (tests/fixtures/proc/osd-under-load): vda wrote
   * 510840 sectors = 261550080 bytes while fio wrote 12845 x 4 KiB. */
  assert_true(fabs(placer_bench_write_amplification(510840ull * 512, 12845ull * 4096) - 261550080.0 / 52613120.0) <
              1e-12);
  assert_true(isnan(placer_bench_write_amplification(1000, 0)));
  assert_true(placer_bench_write_amplification(0, 4096) == 0);
}

static void test_cpu_per_io(void **state) {
  /* MACHINE-NOTES: ~0.73 ms of OSD CPU per client write with 2 replicas, e.g.
   * 2 OSDs using 0.55 core each for 15 s at 1506 IOPS -> 16.5 s / 22590 IOs. */
  assert_true(fabs(placer_bench_cpu_ms_per_io(16500000000ull, 22590) - 16500.0 / 22590.0) < 1e-12);
  assert_true(placer_bench_cpu_ms_per_io(730000000ull, 1000) == 0.73);
  assert_true(isnan(placer_bench_cpu_ms_per_io(1, 0)));
}

static void test_ratio(void **state) {
  /* MACHINE-NOTES: unpinned randwrite 1903 with neighbour / 2388 alone. */
  assert_true(placer_bench_ratio(1903, 2388) == 1903.0 / 2388.0);
  assert_true(isnan(placer_bench_ratio(1, 0)));
  assert_true(isnan(placer_bench_ratio(NAN, 1)));
  assert_true(isnan(placer_bench_ratio(1, NAN)));
  assert_true(isnan(placer_bench_ratio(1, -1)));
}

static const struct placer_bench_balance_criteria iops_criteria = {
  .storage_baseline = 1000,
  .storage_min_fraction = 0.90,
  .neighbour_min_fraction = 0.85,
};

static void test_balance_point(void **state) {
  /* pinned: storage 100%, 98%, 95%, 91%, 80%; neighbours always >= 85%. */
  const struct placer_bench_sweep_step pinned[] = {
    { 1, 1000, 200 / 200.0 }, { 2, 980, 195 / 200.0 }, { 4, 950, 190 / 200.0 },
    { 6, 910, 180 / 200.0 },  { 8, 800, 175 / 200.0 },
  };
  struct placer_bench_balance b;
  placer_bench_balance_point(pinned, 5, &iops_criteria, &b);
  assert_true(b.found);
  assert_int_equal(b.index, 3);
  assert_true(b.level == 6);
  assert_false(b.passes_beyond);
  assert_int_equal(b.n_passing, 4);
  /* unpinned: the neighbours fall below 85% (170) from 4 cores on. */
  const struct placer_bench_sweep_step unpinned[] = {
    { 1, 990, 190 / 200.0 },
    { 2, 950, 171 / 200.0 },
    { 4, 940, 169.9 / 200.0 },
    { 6, 700, 110 / 200.0 },
  };
  placer_bench_balance_point(unpinned, 4, &iops_criteria, &b);
  assert_true(b.found && b.level == 2 && b.index == 1);
  /* Exactly 90% and 85% pass. */
  const struct placer_bench_sweep_step edge[] = { { 3, 900, 170 / 200.0 } };
  placer_bench_balance_point(edge, 1, &iops_criteria, &b);
  assert_true(b.found && b.level == 3);
  /* Each step has its own solo rate (more neighbour cores do more work alone):
   * 300 of a solo 400 is 75%. */
  const struct placer_bench_sweep_step grow[] = { { 1, 1000, 95 / 100.0 },
                                                  { 2, 990, 190 / 200.0 },
                                                  { 4, 980, 300 / 400.0 } };
  placer_bench_balance_point(grow, 3, &iops_criteria, &b);
  assert_true(b.found && b.level == 2);
  /* No solo measurement, so no share: the step cannot be judged, so it fails. */
  const struct placer_bench_sweep_step no_solo[] = { { 1, 1000, NAN } };
  placer_bench_balance_point(no_solo, 1, &iops_criteria, &b);
  assert_false(b.found);
}

static void test_balance_none_and_noise(void **state) {
  struct placer_bench_balance b;
  /* Already the first step fails: none. */
  const struct placer_bench_sweep_step none[] = { { 1, 850, 200 / 200.0 }, { 2, 800, 200 / 200.0 } };
  placer_bench_balance_point(none, 2, &iops_criteria, &b);
  assert_false(b.found);
  assert_true(isnan(b.level));
  assert_int_equal(b.n_passing, 0);
  placer_bench_balance_point(NULL, 0, &iops_criteria, &b);
  assert_false(b.found);
  /* Out of order input, a missing measurement (NAN) at 4 and a pass at 6 after
   * it: "up to 2", and the later pass is flagged. */
  const struct placer_bench_sweep_step noisy[] = {
    { 6, 920, 190 / 200.0 },
    { 1, 1000, 200 / 200.0 },
    { 4, NAN, 190 / 200.0 },
    { 2, 990, 199 / 200.0 },
  };
  placer_bench_balance_point(noisy, 4, &iops_criteria, &b);
  assert_true(b.found);
  assert_true(b.level == 2);
  assert_int_equal(b.index, 3);
  assert_true(b.passes_beyond);
  assert_int_equal(b.n_passing, 3);
}

static void test_balance_latency(void **state) {
  /* p99 latency: lower is better; 10 ms baseline, so <= 11.11 ms keeps 90%. */
  const struct placer_bench_balance_criteria c = {
    .storage_baseline = 10,
    .storage_min_fraction = 0.9,
    .neighbour_min_fraction = 0.85,
    .storage_lower_is_better = true,
  };
  const struct placer_bench_sweep_step steps[] = { { 1, 10.5, 100 / 100.0 },
                                                   { 2, 11.1, 90 / 100.0 },
                                                   { 3, 11.2, 95 / 100.0 } };
  struct placer_bench_balance b;
  placer_bench_balance_point(steps, 3, &c, &b);
  assert_true(b.found && b.level == 2);
  assert_true(placer_bench_step_passes(&steps[0], &c));
  assert_false(placer_bench_step_passes(&steps[2], &c));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_write_amplification),
    cmocka_unit_test(test_cpu_per_io),
    cmocka_unit_test(test_ratio),
    cmocka_unit_test(test_balance_point),
    cmocka_unit_test(test_balance_none_and_noise),
    cmocka_unit_test(test_balance_latency),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
