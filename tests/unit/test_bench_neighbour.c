/* The neighbour kinds' ops tables (bench/neighbour*.c): every table whole
 * and in bench_neighbours[] under its own kind and backend (the check fio
 * runs on its engines), a broken one caught, what each kind needs installed
 * and counts, and stress-ng's command line. */
#include <string.h>

#include "bench/neighbour.h"
#include "lib/array.h"
#include "lib/substitute.h"
#include "test_support.h"

static void test_every_table_whole(void **state) {
  (void)state;
  size_t n = 0;
  for (; bench_neighbours[n]; n++) {
    const struct bench_neighbour_ops *ops = bench_neighbours[n];
    const char *wrong = bench_neighbour_ops_check(ops);
    if (wrong)
      fail_msg("neighbour %s: %s", ops->name, wrong);
    assert_ptr_equal(bench_neighbour(ops->kind, ops->backend), ops);
    /* a kind's keys are every backend's of it */
    const struct bench_neighbour_ops *first = bench_neighbour(ops->kind, PLACER_STUDY_BACKEND_EXEC);
    for (size_t k = 0; ops->keys && ops->keys[k]; k++)
      assert_true(bench_neighbour_takes(first, ops->keys[k]));
  }
  assert_true(n >= 3);
  assert_string_equal(bench_neighbours[0]->kind, "stress-ng"); /* the default kind */
  /* what each kind needs installed, counts and takes */
  static const struct {
    const char *name;
    const char *program;
    unsigned flags;
    const char *key;
  } want[] = {
    { "stress-ng", "stress-ng", BENCH_NEIGHBOUR_RSS, "stressor" },
    { "stress-ng in podman", "podman", 0, "image" },
    { "vm", "qemu-system-x86_64", BENCH_NEIGHBOUR_GUEST, "kernel" },
  };
  for (size_t k = 0; bench_neighbours[k]; k++) {
    size_t i = 0;
    while (i < N_OF(want) && strcmp(want[i].name, bench_neighbours[k]->name) != 0)
      i++;
    if (i == N_OF(want))
      fail_msg("neighbour %s: add what it needs and counts to want[]", bench_neighbours[k]->name);
    assert_string_equal(bench_neighbours[k]->program, want[i].program);
    assert_int_equal(bench_neighbours[k]->flags, want[i].flags);
    assert_true(bench_neighbour_takes(bench_neighbours[k], want[i].key));
  }
  /* a guest has no container backend (the study refuses it), nor does an unknown kind */
  assert_null(bench_neighbour("vm", PLACER_STUDY_BACKEND_PODMAN));
  assert_null(bench_neighbour("qemu", PLACER_STUDY_BACKEND_EXEC));
  assert_false(bench_neighbour_takes(&bench_neighbour_vm, "stressor"));
  assert_string_equal(bench_neighbour_vm.unit, "guest vCPUs");
  assert_string_equal(bench_neighbour_vm.rate_unit, "work units/s");
  assert_string_equal(bench_neighbour_podman.rate_unit, "bogo ops/s");
}

static void test_broken_tables_caught(void **state) {
  (void)state;
  struct bench_neighbour_ops copy = bench_neighbour_stress_ng;
  assert_string_equal(bench_neighbour_ops_check(&copy), "not in bench_neighbours[] under its kind and backend");
  copy = bench_neighbour_vm;
  copy.name = NULL;
  assert_string_equal(bench_neighbour_ops_check(&copy), "no name or kind");
  copy = bench_neighbour_podman;
  copy.rate = NULL;
  assert_string_equal(bench_neighbour_ops_check(&copy), "no launch, prepare, start, working or rate");
  copy = bench_neighbour_podman;
  copy.start_limit_ms = 0;
  assert_string_equal(bench_neighbour_ops_check(&copy), "no program, unit, rate_unit, late or start_limit_ms");
  copy = bench_neighbour_vm;
  copy.flags |= BENCH_NEIGHBOUR_RSS;
  assert_string_equal(bench_neighbour_ops_check(&copy), "a guest's workers are not processes in its group");
}

/* stress-ng's command line from the study's neighbour. */
static void test_stress_argv(void **state) {
  (void)state;
  struct placer_study_neighbour nb = { .stressor = (char *)"cpu", .intensity = 2 };
  static const struct {
    const char *method;
    unsigned load;
    const char *argv;
  } want[] = {
    { NULL, 0, "stress-ng --cpu=3 --metrics-brief --timeout=40" },
    { "matrixprod", 100, "stress-ng --cpu=3 --cpu-method=matrixprod --metrics-brief --timeout=40" },
    { NULL, 50, "stress-ng --cpu=3 --cpu-load=50 --metrics-brief --timeout=40" },
  };
  for (size_t i = 0; i < N_OF(want); i++) {
    nb.method = (char *)want[i].method;
    nb.load_percent = want[i].load;
    char **argv = NULL;
    assert_int_equal(bench_neighbour_stress_argv(&nb, 3, 40, &argv), 0);
    char *joined = placer_argv_quote(argv);
    assert_string_equal(joined, want[i].argv);
    free(joined);
    placer_argv_free(argv);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_table_whole),
    cmocka_unit_test(test_broken_tables_caught),
    cmocka_unit_test(test_stress_argv),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
