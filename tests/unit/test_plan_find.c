/* Finding an instance in a plan (plan.c): by its name, and a Ceph daemon by
 * Ceph's name for it (placer_plan_find_daemon: what `placer exec` and bench's
 * cluster place "mon.a" by), on the demo profile's plan of a fixture node. */
#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"
#include "topology/topology.h"

static void test_find_daemon(void **state) {
  (void)state;
  struct placer_topology *topo = test_topo_load("24em64t-2n6c2t-pci.xml");
  struct placer_profile *profile = test_profile_load("demo-local");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  /* by the role's ceph_id: mon.a is placed by instance mon.0 */
  const struct placer_instance *i = placer_plan_find_daemon(plan, "mon.a");
  assert_non_null(i);
  assert_string_equal(i->name, "mon.0");
  assert_ptr_equal(placer_plan_find(plan, "mon.0"), i);
  assert_null(placer_plan_find(plan, "mon.a"));
  i = placer_plan_find_daemon(plan, "mgr.x");
  assert_non_null(i);
  assert_string_equal(i->name, "mgr.0");
  i = placer_plan_find_daemon(plan, "osd.1");
  assert_non_null(i);
  assert_string_equal(i->name, "osd.1");
  assert_int_equal(i->kind, PLACER_KIND_CEPH_OSD);
  i = placer_plan_find_daemon(plan, "fio.0"); /* not a Ceph name: the instance itself */
  assert_non_null(i);
  assert_int_equal(i->kind, PLACER_KIND_FIO);
  assert_null(placer_plan_find_daemon(plan, "mds.a")); /* no mds role */
  assert_null(placer_plan_find_daemon(plan, "osd.7"));
  assert_null(placer_plan_find_daemon(plan, "ceph-osd.1")); /* Ceph's type, not the kind's name */
  assert_null(placer_plan_find_daemon(plan, "mon."));
  assert_null(placer_plan_find_daemon(plan, ".a"));
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_find_daemon),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
