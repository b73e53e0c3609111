/* NEEDS ROOT: real cgroup v1 (or hybrid) groups, processes and an OOM kill;
 * skipped unless root on a v1 host.  The scenario is in cgroup_live_tests.h. */
#include "cgroup_live_tests.h"

static int setup(void **state) {
  (void)state;
  return live_setup(PLACER_CGROUP_V1);
}

int main(void) {
  const struct CMUnitTest tests[] = { LIVE_TESTS };
  return cmocka_run_group_tests(tests, setup, live_teardown);
}
