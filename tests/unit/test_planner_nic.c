/* Planner defaults for real nodes: `nic: auto` picks the storage NIC(s) on
 * every real topology of tests/fixtures (by address in a storage network,
 * else the fastest Ethernet card on PCI), ceph.conf's networks, CIDR
 * matching, and VMs NUMA-local (one pool per node) unless span_numa. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cidr.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* Reserve one core per storage NIC port and put one MDS near the first:
 * which NICs `auto` took shows in the reserve (its cores, their node) and
 * in the MDS's nic. */
static const char auto_profile[] = "reserve: { nics: [auto], nic_cores: 1 }\n"
                                   "roles:\n"
                                   "  - name: mds\n    kind: ceph-mds\n    cpu: { cores: 1 }\n"
                                   "    locality: { near: nic, nic: auto, policy: strict }\n";

static unsigned cores_in(const struct placer_topology *topo, hwloc_const_bitmap_t cpus) {
  unsigned n = 0;
  for (size_t c = 0; c < topo->n_cores; c++)
    n += hwloc_bitmap_isincluded(topo->cores[c].pus, cpus) && !hwloc_bitmap_iszero(topo->cores[c].pus);
  return n;
}

/* The fixtures and what a person reading their hwloc XML would call the
 * storage NIC: the fastest Ethernet card (all its ports), never the
 * InfiniBand / Omni-Path HCAs (ib0, hsi0), never a name guess. */
static const struct {
  const char *fixture;
  const char *first_nic; /* the MDS's NIC */
  unsigned ports;        /* NICs auto takes: the card's ports */
  unsigned numa;         /* their node */
} expected[] = {
  { "crafted-hci-2s16c-8nvme.xml", "ens1f0", 2, 0 },            /* ConnectX-4 dual port, 7.9 GB/s link */
  { "mpibind-cts1-quartz-smt1.xml", "ens786f0", 2, 1 },         /* Emulex 7.9 GB/s over the i350 eno1/aci0 */
  { "mpibind-epyc-corona.xml", "enp3s0f0", 2, 0 },              /* i350; hsi0 is the IB HCA */
  { "32em64t-2n8c2t-pci-normalio.xml", "eth0", 2, 1 },          /* i350 on node 1; ib0 skipped */
  { "24em64t-2n6c2t-pci.xml", "eth2", 1, 0 },                   /* the ConnectX port in Ethernet mode, 2 GB/s */
  { "28intel64-2p2g7c-CoDgroups.v1tov2.xml", "enp12s0", 1, 0 }, /* two equal VICs: first by name */
  { "16intel64-manyVFs.xml", "eth0", 2, 0 },                    /* no link speeds: first card by name */
  { "192em64t-24n8c2t.xml", "eth0", 2, 0 },
};

static void test_auto_on_every_fixture(void **state) {
  (void)state;
  struct placer_profile *profile = test_profile_text(auto_profile);
  for (size_t i = 0; i < N(expected); i++) {
    struct placer_topology *topo = test_topo_load(expected[i].fixture);
    struct placer_plan *plan = test_plan_ok(topo, profile);
    const struct placer_instance *mds = placer_plan_find(plan, "mds.0");
    assert_non_null(mds);
    if (mds->nic == NULL || strcmp(mds->nic, expected[i].first_nic) != 0)
      fail_msg("%s: nic auto took %s, expected %s", expected[i].fixture, mds->nic ? mds->nic : "none",
               expected[i].first_nic);
    assert_int_equal(mds->locality, PLACER_LOCALITY_LOCAL);
    assert_int_equal(mds->numa_node, (int)expected[i].numa);
    if (cores_in(topo, plan->reserved_cpus) != expected[i].ports)
      fail_msg("%s: %u cores reserved for NIC interrupts, expected %u", expected[i].fixture,
               cores_in(topo, plan->reserved_cpus), expected[i].ports);
    const struct placer_numa_node *node = placer_topology_numa_by_os(topo, expected[i].numa);
    assert_true(hwloc_bitmap_isincluded(plan->reserved_cpus, node->cpus));
    assert_int_equal(plan->n_warnings, 0);
    placer_plan_free(plan);
    placer_topology_free(topo);
  }
  placer_profile_free(profile);
}

/* An address in the profile's storage_network wins over speed: quartz's
 * slow eno1 (node 0) when it holds 10.0.0.5. */
static void test_auto_by_address(void **state) {
  (void)state;
  struct placer_topology *topo = test_topo_load("mpibind-cts1-quartz-smt1.xml");
  struct placer_nic *eno1 = NULL;
  for (size_t i = 0; i < topo->n_nics; i++)
    if (strcmp(topo->nics[i].name, "eno1") == 0)
      eno1 = &topo->nics[i];
  assert_non_null(eno1);
  eno1->ip_addresses = calloc(2, sizeof(char *));
  eno1->ip_addresses[0] = strdup("192.168.1.7");
  eno1->ip_addresses[1] = strdup("10.0.0.5");
  eno1->n_ip_addresses = 2;

  struct placer_profile *profile = test_profile_text("storage_network: [\"10.0.0.0/24\"]\n"
                                                     "reserve: { nics: [auto] }\n"
                                                     "roles:\n"
                                                     "  - name: mds\n    kind: ceph-mds\n    cpu: { cores: 1 }\n"
                                                     "    locality: { near: nic, nic: auto }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_string_equal(placer_plan_find(plan, "mds.0")->nic, "eno1");
  assert_int_equal(placer_plan_find(plan, "mds.0")->numa_node, 0);
  assert_int_equal(cores_in(topo, plan->reserved_cpus), 1);
  assert_int_equal(plan->n_warnings, 0);
  placer_plan_free(plan);
  placer_profile_free(profile);

  /* without storage_network: ceph.conf's networks (as a live topology reads them) */
  profile = test_profile_text(auto_profile);
  topo->storage_networks = calloc(1, sizeof(char *));
  topo->storage_networks[0] = strdup("10.0.0.0/16");
  topo->n_storage_networks = 1;
  plan = test_plan_ok(topo, profile);
  assert_string_equal(placer_plan_find(plan, "mds.0")->nic, "eno1");
  placer_plan_free(plan);
  placer_profile_free(profile);

  /* a network no NIC is in: a warning, then the fastest card */
  profile = test_profile_text("storage_network: [\"172.16.0.0/12\"]\n"
                              "reserve: { nics: [auto] }\n"
                              "roles:\n"
                              "  - name: mds\n    kind: ceph-mds\n    cpu: { cores: 1 }\n"
                              "    locality: { near: nic, nic: auto }\n");
  plan = test_plan_ok(topo, profile);
  assert_string_equal(placer_plan_find(plan, "mds.0")->nic, "ens786f0");
  assert_int_equal(plan->n_warnings, 1);
  assert_string_equal(plan->warnings[0], "nic: auto: no NIC holds an address in the storage_network network "
                                         "172.16.0.0/12; taking the fastest NIC");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_storage_network_syntax(void **state) {
  (void)state;
  const char text[] = "storage_network: [\"10.0.0.0/33\"]\nroles:\n  - name: a\n    kind: vm\n"
                      "    cpu: { threads: 1 }\n";
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_parse("inline.yaml", text, strlen(text), &profile, &err), -1);
  assert_string_equal(err->msg, "inline.yaml:1:19: storage_network: '10.0.0.0/33' is not a network such as "
                                "10.0.0.0/24 or fd00::/64");
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
}

static void test_cidr(void **state) {
  (void)state;
  assert_true(placer_cidr_contains("10.0.0.0/24", "10.0.0.255"));
  assert_false(placer_cidr_contains("10.0.0.0/24", "10.0.1.0"));
  assert_true(placer_cidr_contains("10.0.0.0/23", "10.0.1.9"));
  assert_true(placer_cidr_contains("0.0.0.0/0", "192.0.2.1"));
  assert_true(placer_cidr_contains("192.0.2.1", "192.0.2.1"));
  assert_false(placer_cidr_contains("192.0.2.1", "192.0.2.2"));
  assert_true(placer_cidr_contains("fd00::/64", "fd00::1"));
  assert_false(placer_cidr_contains("fd00::/64", "fd00:0:0:1::1"));
  assert_false(placer_cidr_contains("10.0.0.0/8", "fd00::1"));
  assert_false(placer_cidr_valid("10.0.0.0/"));
  assert_false(placer_cidr_valid("10.0.0/8"));
  assert_false(placer_cidr_valid("fd00::/129"));
  assert_true(placer_cidr_valid("fd00::/128"));
}

static void test_ceph_conf_networks(void **state) {
  (void)state;
  const char conf[] = "[global]\n"
                      "  fsid = 1234\n"
                      "  public network = 10.0.0.0/24, 10.0.1.0/24  # front\n"
                      "cluster_network=192.168.10.0/24\n"
                      "; public network = 1.2.3.0/24\n"
                      "[osd]\n"
                      "  osd memory target = 4294967296\n"
                      "  public_network_interface = ens1f0\n";
  char **nets = NULL;
  size_t n = 0;
  assert_int_equal(placer_ceph_conf_networks(conf, &nets, &n), 0);
  assert_int_equal(n, 3);
  assert_string_equal(nets[0], "10.0.0.0/24");
  assert_string_equal(nets[1], "10.0.1.0/24");
  assert_string_equal(nets[2], "192.168.10.0/24");
  for (size_t i = 0; i < n; i++)
    free(nets[i]);
  free(nets);
}

/* Every VM of the shipped HCI profiles lies on one NUMA node (its CPUs and
 * its memory) on every fixture they plan on; span_numa: true gives back
 * one pool over the nodes. */
static void test_vms_numa_local(void **state) {
  (void)state;
  static const char *const fixtures[] = { "crafted-hci-2s16c-8nvme.xml",  "mpibind-epyc-corona.xml",
                                          "mpibind-cts1-quartz-smt1.xml", "32em64t-2n8c2t-pci-normalio.xml",
                                          "24em64t-2n6c2t-pci.xml",       "28intel64-2p2g7c-CoDgroups.v1tov2.xml",
                                          "192em64t-24n8c2t.xml" };
  static const char *const profiles[] = { "hci-nvme", "hci-hdd" };
  unsigned checked = 0;
  for (size_t p = 0; p < N(profiles); p++) {
    struct placer_profile *profile = test_profile_load(profiles[p]);
    for (size_t f = 0; f < N(fixtures); f++) {
      struct placer_topology *topo = test_topo_load(fixtures[f]);
      struct placer_plan *plan = NULL;
      struct placer_error *err = NULL;
      if (placer_plan_compute(topo, profile, &plan, &err) < 0) { /* hci-nvme needs NVMe, hci-hdd disks */
        placer_error_free(err);
        placer_topology_free(topo);
        continue;
      }
      unsigned nodes_with_vms = 0;
      hwloc_bitmap_t seen = hwloc_bitmap_alloc();
      for (size_t i = 0; i < plan->n_instances; i++) {
        const struct placer_instance *inst = &plan->instances[i];
        if (inst->kind != PLACER_KIND_VM)
          continue;
        if (inst->numa_node < 0 || hwloc_bitmap_weight(inst->mems) != 1 ||
            hwloc_bitmap_first(inst->mems) != inst->numa_node)
          fail_msg("%s on %s: %s is not NUMA-local", profiles[p], fixtures[f], inst->name);
        const struct placer_numa_node *node = placer_topology_numa_by_os(topo, (unsigned)inst->numa_node);
        assert_true(hwloc_bitmap_isincluded(inst->cpus, node->cpus));
        if (!hwloc_bitmap_isset(seen, (unsigned)inst->numa_node))
          nodes_with_vms++;
        hwloc_bitmap_set(seen, (unsigned)inst->numa_node);
        checked++;
      }
      /* no idle node: every node with free cores got guests */
      if (strcmp(fixtures[f], "crafted-hci-2s16c-8nvme.xml") != 0)
        assert_true(nodes_with_vms >= 2);
      hwloc_bitmap_free(seen);
      placer_plan_free(plan);
      placer_topology_free(topo);
    }
    placer_profile_free(profile);
  }
  assert_true(checked > 100);

  struct placer_topology *topo = test_topo_load("32em64t-2n8c2t-pci-normalio.xml");
  struct placer_profile *profile = test_profile_text("roles:\n"
                                                     "  - name: vm\n    kind: vm\n    count: fill\n"
                                                     "    cpu: { threads: 2, pool: vms, span_numa: true }\n"
                                                     "    memory: 4GiB\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_true(plan->n_instances > 0);
  assert_int_equal(plan->instances[0].numa_node, -1);
  assert_int_equal(hwloc_bitmap_weight(plan->instances[0].mems), 2);
  placer_plan_free(plan);
  placer_profile_free(profile);

  /* per node: 16 threads a node in 2-thread guests, 8 a node; max_count caps across nodes */
  profile = test_profile_text("roles:\n"
                              "  - name: vm\n    kind: vm\n    count: fill\n    max_count: 11\n"
                              "    cpu: { threads: 2, pool: vms }\n");
  plan = test_plan_ok(topo, profile);
  assert_int_equal(plan->n_instances, 11);
  assert_int_equal(plan->instances[7].numa_node, 0);
  assert_int_equal(plan->instances[8].numa_node, 1);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_auto_on_every_fixture),  cmocka_unit_test(test_auto_by_address),
    cmocka_unit_test(test_storage_network_syntax), cmocka_unit_test(test_cidr),
    cmocka_unit_test(test_ceph_conf_networks),     cmocka_unit_test(test_vms_numa_local),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
