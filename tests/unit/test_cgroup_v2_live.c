/* NEEDS ROOT: real cgroup v2 groups, processes and an OOM kill; skipped
 * unless root with a unified hierarchy offering cpuset, memory and cpu (a
 * pure v2 host, or the qemu guest of tests/integration/cgroup_vm.sh).  The
 * scenario is in cgroup_live_tests.h. */
#include "cgroup_live_tests.h"

static int setup(void **state) {
  (void)state;
  return live_setup(PLACER_CGROUP_V2);
}

int main(void) {
  const struct CMUnitTest tests[] = { LIVE_TESTS };
  return cmocka_run_group_tests(tests, setup, live_teardown);
}
