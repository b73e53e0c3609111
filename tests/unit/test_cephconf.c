/* A Ceph OSD's own affinity settings (cephconf.c): ceph.conf sections and
 * key spellings, the command line over the file, and the warning. */
#include <stdlib.h>
#include <string.h>

#include "cephconf.h"
#include "test_support.h"

static const char conf[] = "[global]\n"
                           "  fsid = 1234\n"
                           "  osd numa auto affinity = true   # Ceph's default anyway\n"
                           "[osd]\n"
                           "osd-numa-auto-affinity = false\n"
                           "[osd.3]\n"
                           "osd_numa_node = 1\n"
                           "[osd.30]\n"
                           "osd_numa_node = 0\n";

static void test_conf_sections(void **state) {
  (void)state;
  struct placer_ceph_numa n;
  placer_ceph_numa_init(&n);
  placer_ceph_numa_from_conf(&n, conf, "/etc/ceph/ceph.conf", "osd.3");
  assert_int_equal(n.auto_affinity, 0);
  assert_string_equal(n.auto_source, "/etc/ceph/ceph.conf [osd]");
  assert_int_equal(n.numa_node, 1);
  assert_string_equal(n.node_source, "/etc/ceph/ceph.conf [osd.3]");

  placer_ceph_numa_init(&n);
  placer_ceph_numa_from_conf(&n, "[osd]\nosd_numa_node=0\n[global]\nosd_numa_auto_affinity = yes\n", "c", "osd.7");
  assert_int_equal(n.auto_affinity, 1);
  assert_int_equal(n.numa_node, 0);
  assert_string_equal(n.node_source, "c [osd]");

  placer_ceph_numa_init(&n);
  placer_ceph_numa_from_conf(&n, "[global]\nfsid=1\n[mon]\nosd numa auto affinity = false\n", "c", "osd.0");
  assert_int_equal(n.auto_affinity, -1); /* [mon] is not read by an OSD */
  assert_int_equal(n.numa_node, -1);
}

static void test_cmdline(void **state) {
  (void)state;
  char *argv1[] = { "/usr/bin/ceph-osd", "-f", "--cluster", "test", "--id", "3", "--osd_numa_auto_affinity=true",
                    "--osd-numa-node",   "0" };
  struct placer_cmdline cl = { argv1, 9 };
  struct placer_ceph_numa n;
  placer_ceph_numa_init(&n);
  placer_ceph_numa_from_conf(&n, conf, "/etc/ceph/test.conf", "osd.3");
  placer_ceph_numa_from_cmdline(&n, &cl);
  assert_int_equal(n.auto_affinity, 1);
  assert_string_equal(n.auto_source, "the command line");
  assert_int_equal(n.numa_node, 0);
  char *c = NULL, *id = NULL;
  placer_ceph_cmdline_conf(&cl, &c, &id);
  assert_string_equal(c, "/etc/ceph/test.conf");
  assert_string_equal(id, "3");
  free(c);
  free(id);
  char *argv2[] = { "ceph-osd", "-i", "0", "-c", "/tmp/x/ceph.conf" };
  struct placer_cmdline cl2 = { argv2, 5 };
  placer_ceph_cmdline_conf(&cl2, &c, &id);
  assert_string_equal(c, "/tmp/x/ceph.conf");
  assert_string_equal(id, "0");
  free(c);
  free(id);
}

static void test_warning(void **state) {
  (void)state;
  struct placer_ceph_numa n;
  placer_ceph_numa_init(&n);
  char *w = placer_ceph_numa_warning(&n, "osd.0", "1");
  assert_non_null(w);
  assert_non_null(strstr(w, "osd.0: osd_numa_auto_affinity is true (Ceph's default"));
  assert_non_null(strstr(w, "ceph config set osd osd_numa_auto_affinity false"));
  free(w);

  placer_ceph_numa_from_conf(&n, "[osd]\nosd numa auto affinity = false\n", "/etc/ceph/ceph.conf", "osd.0");
  assert_null(placer_ceph_numa_warning(&n, "osd.0", "1"));

  placer_ceph_numa_from_conf(&n, "[osd.0]\nosd numa node = 0\n", "/etc/ceph/ceph.conf", "osd.0");
  w = placer_ceph_numa_warning(&n, "osd.0", "1");
  assert_non_null(w);
  assert_non_null(strstr(w, "osd_numa_auto_affinity is off (/etc/ceph/ceph.conf [osd])"));
  assert_non_null(strstr(w, "osd_numa_node = 0 (/etc/ceph/ceph.conf [osd.0])"));
  assert_non_null(strstr(w, "the plan puts it on node 1"));
  free(w);
  /* the node it binds to is the planned one: nothing fights the plan */
  assert_null(placer_ceph_numa_warning(&n, "osd.0", "0"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_conf_sections),
    cmocka_unit_test(test_cmdline),
    cmocka_unit_test(test_warning),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
