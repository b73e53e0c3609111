/* The planner: the invariants of docs/profiles.md on every fixture topology
 * with every shipped profile (and on this machine), which pairs must not fit
 * (exit 3), specific placements on the crafted HCI node, the messages of
 * infeasible profiles, the preferred fallback by hwloc distance, memory
 * accounting and determinism. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static const char *const profiles[] = { "demo-local", "hci-hdd", "hci-nvme", "unpinned" };

/* Pairs that must not fit, and why (a substring of the exit-3 message).
 * Every other pair must plan. */
static const struct {
  const char *profile, *fixture, *says;
} infeasible_pairs[] = {
  { "hci-hdd", "16intel64-manyVFs.xml", "role 'osd': no block device matches 'sd*' (block devices here: none)" },
  { "hci-hdd", "crafted-hci-2s16c-8nvme.xml",
    "role 'osd': no block device matches 'sd*' (block devices here: nvme0n1," },
  { "hci-nvme", "16intel64-manyVFs.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-nvme", "192em64t-24n8c2t.xml", "role 'osd': no block device matches 'nvme*' (block devices here: sda, sdb)" },
  { "hci-nvme", "24em64t-2n6c2t-pci.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-nvme", "28intel64-2p2g7c-CoDgroups.v1tov2.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-nvme", "32em64t-2n8c2t-pci-normalio.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-nvme", "mpibind-cts1-quartz-smt1.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-hdd", "crafted-epyc-1s4n-2l3x8c.xml", "role 'osd': no block device matches 'sd*' (block devices here: none)" },
  { "hci-nvme", "crafted-epyc-1s4n-2l3x8c.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-nvme", "mpibind-epyc-dual-sock-hwloc1.xml", "role 'osd': no block device matches 'nvme*'" },
  { "hci-nvme", "96em64t-4n4d3ca2co-pci.xml", "role 'osd': no block device matches 'nvme*'" },
};

static const char *expected_infeasible(const char *profile, const char *fixture) {
  for (size_t i = 0; i < N(infeasible_pairs); i++)
    if (strcmp(infeasible_pairs[i].profile, profile) == 0 && strcmp(infeasible_pairs[i].fixture, fixture) == 0)
      return infeasible_pairs[i].says;
  return NULL;
}

static void test_every_fixture_every_profile(void **state) {
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  assert_true(n_fixtures >= 11);
  for (size_t f = 0; f < n_fixtures; f++) {
    struct placer_topology *topo = test_topo_load(fixtures[f]);
    for (size_t p = 0; p < N(profiles); p++) {
      struct placer_profile *profile = test_profile_load(profiles[p]);
      const char *says = expected_infeasible(profiles[p], fixtures[f]);
      if (says) {
        char *msg = test_plan_infeasible(topo, profile);
        if (strncmp(msg, says, strlen(says)) != 0)
          fail_msg("%s on %s:\n  got      %s\n  expected %s...", profiles[p], fixtures[f], msg, says);
        free(msg);
      } else {
        struct placer_plan *plan = test_plan_ok(topo, profile);
        assert_true(plan->n_instances > 0);
        test_plan_invariants(topo, profile, plan);
        /* deterministic: the same input gives the same bytes */
        struct placer_plan *again = test_plan_ok(topo, profile);
        char *a = test_plan_json(plan), *b = test_plan_json(again);
        assert_string_equal(a, b);
        free(a);
        free(b);
        placer_plan_free(again);
        placer_plan_free(plan);
      }
      placer_profile_free(profile);
    }
    placer_topology_free(topo);
  }
}

/* The test profiles that plan (tests/profiles/ without bad-*), on every
 * fixture: the same invariants, among them that free is every usable PU
 * no reserve and no instance holds (export-hci's count: fill pool stops
 * at max_count and leaves PUs to nobody). */
static void test_every_fixture_test_profiles(void **state) {
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  DIR *dir = opendir(test_data_path("profiles"));
  assert_non_null(dir);
  size_t planned = 0, with_free_pool = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    size_t len = strlen(de->d_name);
    if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0 || strncmp(de->d_name, "bad-", 4) == 0)
      continue;
    char relative[512];
    snprintf(relative, sizeof(relative), "profiles/%s", de->d_name);
    struct placer_profile *profile = NULL;
    struct placer_error *err = NULL;
    if (placer_profile_load(test_data_path(relative), &profile, &err) < 0)
      fail_msg("%s: %s", relative, err->msg);
    for (size_t f = 0; f < n_fixtures; f++) {
      struct placer_topology *topo = test_topo_load(fixtures[f]);
      struct placer_plan *plan = NULL;
      if (placer_plan_compute(topo, profile, &plan, &err) == 0) {
        test_plan_invariants(topo, profile, plan);
        planned++;
        for (size_t r = 0; r < profile->n_roles; r++)
          with_free_pool += profile->roles[r].max_count && !hwloc_bitmap_iszero(plan->free_cpus);
        placer_plan_free(plan);
      } else {
        placer_error_clear(&err);
      }
      placer_topology_free(topo);
    }
    placer_profile_free(profile);
  }
  closedir(dir);
  assert_true(planned >= 20);
  assert_true(with_free_pool >= 3); /* export-hci on the crafted HCI and EPYC fixtures, corona */
}

/* This machine: demo-local fits any machine, unpinned too. */
static void test_live(void **state) {
  struct placer_topology *topo = test_topo_load(NULL);
  for (size_t p = 0; p < N(profiles); p++) {
    struct placer_profile *profile = test_profile_load(profiles[p]);
    struct placer_plan *plan = NULL;
    struct placer_error *err = NULL;
    int rc = placer_plan_compute(topo, profile, &plan, &err);
    if (strcmp(profiles[p], "demo-local") == 0 || strcmp(profiles[p], "unpinned") == 0)
      if (rc < 0)
        fail_msg("%s does not plan on this machine: %s", profiles[p], err->msg);
    if (rc == 0) {
      test_plan_invariants(topo, profile, plan);
      placer_plan_free(plan);
    } else {
      assert_int_equal(err->exit_code, PLACER_EXIT_INFEASIBLE);
      placer_error_free(err);
    }
    placer_profile_free(profile);
  }
  /* On a 2-PU, 1-node machine (the project's CI VMs) the demo is exactly
   * "fio + neighbour on CPU 0, mon + mgr + OSDs on CPU 1". */
  if (hwloc_bitmap_weight(topo->allowed_cpus) == 2 && topo->n_numa_nodes == 1 &&
      hwloc_bitmap_isequal(topo->allowed_cpus, topo->online_cpus)) {
    struct placer_profile *profile = test_profile_load("demo-local");
    struct placer_plan *plan = test_plan_ok(topo, profile);
    int first = hwloc_bitmap_first(topo->allowed_cpus), last = hwloc_bitmap_last(topo->allowed_cpus);
    static const char *const clients[] = { "fio.0", "neighbour.0" };
    static const char *const ceph[] = { "mon.0", "mgr.0", "osd.0", "osd.1" };
    for (size_t i = 0; i < N(clients); i++)
      assert_int_equal(hwloc_bitmap_first(placer_plan_find(plan, clients[i])->cpus), first);
    for (size_t i = 0; i < N(ceph); i++) {
      assert_int_equal(hwloc_bitmap_weight(placer_plan_find(plan, ceph[i])->cpus), 1);
      assert_int_equal(hwloc_bitmap_first(placer_plan_find(plan, ceph[i])->cpus), last);
    }
    placer_plan_free(plan);
    placer_profile_free(profile);
  }
  placer_topology_free(topo);
}

static hwloc_bitmap_t node_cpus(const struct placer_topology *topo, unsigned os) {
  return placer_topology_numa_by_os(topo, os)->cpus;
}

/* The crafted 2 x 16-core node with nvme0-3 on node 0, nvme4-7 on node 1,
 * ens1f0/1 on node 0. */
static void test_crafted_hci_nvme(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile = test_profile_load("hci-nvme");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_int_equal(plan->n_warnings, 0);
  for (unsigned i = 0; i < 8; i++) {
    char name[16], device[16];
    snprintf(name, sizeof(name), "osd.%u", i);
    snprintf(device, sizeof(device), "nvme%un1", i);
    const struct placer_instance *osd = placer_plan_find(plan, name);
    assert_non_null(osd);
    assert_string_equal(osd->device, device);
    unsigned node = i < 4 ? 0 : 1;
    assert_true(hwloc_bitmap_isincluded(osd->cpus, node_cpus(topo, node)));
    assert_int_equal(osd->numa_node, node);
    assert_int_equal(hwloc_bitmap_weight(osd->mems), 1);
    assert_true(hwloc_bitmap_isset(osd->mems, node));
    assert_int_equal(osd->locality, PLACER_LOCALITY_LOCAL);
    assert_true(osd->exclusive && osd->whole_cores);
    /* 6 threads as whole cores: 3 cores, both SMT siblings of each */
    assert_int_equal(hwloc_bitmap_weight(osd->cpus), 6);
    for (int pu = hwloc_bitmap_first(osd->cpus); pu >= 0; pu = hwloc_bitmap_next(osd->cpus, pu))
      assert_true(hwloc_bitmap_isincluded(placer_topology_core_of_pu(topo, (unsigned)pu)->pus, osd->cpus));
    assert_int_equal(osd->match.kind, PLACER_MATCH_CEPH_ID);
    char id[8];
    snprintf(id, sizeof(id), "%u", i);
    assert_string_equal(osd->match.value, id);
  }
  const struct placer_instance *mds = placer_plan_find(plan, "mds.0");
  assert_string_equal(mds->nic, "ens1f0");
  assert_int_equal(mds->numa_node, 0);
  assert_int_equal(mds->locality, PLACER_LOCALITY_LOCAL);
  /* reserve: core 0 of each node, one core per NIC port on node 0 */
  char *reserved = placer_cpulist_format(plan->reserved_cpus);
  assert_string_equal(reserved, "0-5,32-33");
  free(reserved);
  assert_true(plan->reserved_memory_bytes == 4ull << 30);
  /* VMs share what is left: 3 cores on node 1, 2 threads each -> 3 VMs */
  size_t vms = 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    if (inst->kind != PLACER_KIND_VM)
      continue;
    vms++;
    char *cpus = placer_cpulist_format(inst->cpus);
    assert_string_equal(cpus, "58-63");
    free(cpus);
    assert_false(inst->exclusive);
    assert_true(inst->memory_bytes == (4ull << 30) + (512ull << 20));
  }
  assert_int_equal(vms, 3);
  assert_true(hwloc_bitmap_iszero(plan->free_cpus));
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* Threads sharing a pool: the clients' and Ceph's pools sit on different
 * cores, not on SMT siblings of one core. */
static void test_demo_local_on_smt(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile = test_profile_load("demo-local");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  const struct placer_instance *fio = placer_plan_find(plan, "fio.0"), *osd = placer_plan_find(plan, "osd.1");
  assert_int_equal(hwloc_bitmap_weight(fio->cpus), 1);
  assert_int_equal(hwloc_bitmap_weight(osd->cpus), 1);
  assert_true(hwloc_bitmap_isequal(fio->cpus, placer_plan_find(plan, "neighbour.0")->cpus));
  assert_true(hwloc_bitmap_isequal(osd->cpus, placer_plan_find(plan, "mon.0")->cpus));
  assert_ptr_not_equal(placer_topology_core_of_pu(topo, (unsigned)hwloc_bitmap_first(fio->cpus)),
                       placer_topology_core_of_pu(topo, (unsigned)hwloc_bitmap_first(osd->cpus)));
  assert_string_equal(placer_plan_find(plan, "mon.0")->match.value, "a");
  assert_string_equal(placer_plan_find(plan, "mgr.0")->match.value, "x");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void expect_infeasible(const char *fixture, const char *text, const char *message) {
  struct placer_topology *topo = test_topo_load(fixture);
  struct placer_profile *profile = test_profile_text(text);
  char *msg = test_plan_infeasible(topo, profile);
  if (strcmp(msg, message) != 0)
    fail_msg("\n  got      %s\n  expected %s", msg, message);
  free(msg);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_infeasible_messages(void **state) {
  /* 8 OSDs x 6 cores on a 16-core node with 2 reserved */
  expect_infeasible("32em64t-2n8c2t-pci-normalio.xml",
                    "reserve: { cores: 2 }\n"
                    "roles:\n  - name: osd\n    kind: ceph-osd\n    count: 8\n    cpu: { cores: 6 }\n",
                    "role 'osd': needs 8 x 6 cores = 48 cores, only 14 available (16 cores, 2 reserved for the host)");
  /* later roles see what earlier ones took */
  expect_infeasible(
      "32em64t-2n8c2t-pci-normalio.xml",
      "roles:\n  - name: a\n    kind: generic\n    count: 2\n    cpu: { cores: 6 }\n"
      "  - name: b\n    kind: generic\n    count: 5\n    cpu: { threads: 2, whole_cores: true }\n",
      "role 'b': needs 5 x 2 threads (whole cores) = 10 threads, only 8 available (32 threads, 0 reserved "
      "for the host, 24 taken by earlier roles)");
  /* strict locality: 4 OSDs x 5 cores near nvme0-3, all on node 0 (16 cores) */
  expect_infeasible("crafted-hci-2s16c-8nvme.xml",
                    "roles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n"
                    "    devices: [nvme0n1, nvme1n1, nvme2n1, nvme3n1]\n    cpu: { cores: 5 }\n"
                    "    locality: { policy: strict }\n",
                    "role 'osd': needs 4 x 5 cores = 20 cores on NUMA node 0 (strict locality), only 16 available "
                    "there (16 cores there, 0 reserved for the host)");
  /* strict, one instance: what is left there after earlier roles */
  expect_infeasible("crafted-hci-2s16c-8nvme.xml",
                    "roles:\n  - name: big\n    kind: generic\n    cpu: { cores: 9 }\n"
                    "    locality: { near: numa, numa: 0, policy: strict }\n"
                    "  - name: osd\n    kind: ceph-osd\n    per_device: 1\n    devices: [nvme0n1]\n"
                    "    cpu: { cores: 8 }\n    locality: { policy: strict }\n",
                    "role 'osd': osd.0 needs 8 cores near nvme0n1 (NUMA node 0) (strict locality), only 7 cores left "
                    "there (16 cores there, 0 reserved for the host, 9 taken by earlier roles)");
  /* memory over-committed under strict */
  expect_infeasible("crafted-hci-2s16c-8nvme.xml",
                    "roles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n    devices: [\"nvme*\"]\n"
                    "    cpu: { cores: 2 }\n    memory: 50GiB\n    locality: { policy: strict }\n",
                    "role 'osd': osd.3 needs 50.0 GiB of memory on NUMA node 0, only 28.8 GiB left there (179 GiB, 0 B "
                    "reserved for the host, the rest to earlier instances; strict policy)");
  /* the reserve itself */
  expect_infeasible("24em64t-2n6c2t-pci.xml",
                    "reserve: { cores_per_numa: 7 }\nroles:\n  - name: a\n    kind: generic\n    cpu: { cores: 1 }\n",
                    "reserve: cores_per_numa: 7 cores on every NUMA node, but NUMA node 0 has only 6");
  /* a NUMA node that is not there */
  expect_infeasible(
      "24em64t-2n6c2t-pci.xml",
      "roles:\n  - name: a\n    kind: generic\n    cpu: { cores: 1 }\n    locality: { near: numa, numa: 5 }\n",
      "role 'a': NUMA node 5 does not exist (NUMA nodes here: 0-1)");
  /* unknown locality under strict */
  expect_infeasible("mpibind-cts1-quartz-smt1.xml",
                    "roles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n    devices: [\"sd*\"]\n"
                    "    cpu: { cores: 1 }\n    locality: { policy: strict }\n",
                    "role 'osd': osd.1: the NUMA locality of sdb is unknown (strict locality)");
  /* count: fill with nothing left */
  expect_infeasible("24em64t-2n6c2t-pci.xml",
                    "roles:\n  - name: a\n    kind: generic\n    count: 12\n    cpu: { cores: 1 }\n"
                    "  - name: vm\n    kind: vm\n    count: fill\n    cpu: { threads: 1, pool: vms }\n",
                    "role 'vm': no room left for one instance: needs 1 thread, only 0 available (24 threads, 0 "
                    "reserved for the host, 24 taken by earlier roles)");
}

/* Preferred: when the asked node is full, the nearest node by hwloc
 * distance that has room, with a warning; never the lowest-numbered one
 * by accident. */
static void test_preferred_fallback_by_distance(void **state) {
  static const struct {
    const char *fixture;
    unsigned target;
    unsigned cores; /* the cores of one node: the second instance must move */
  } cases[] = {
    { "192em64t-24n8c2t.xml", 2, 8 },
    { "28intel64-2p2g7c-CoDgroups.v1tov2.xml", 2, 7 },
    { "mpibind-epyc-corona.xml", 5, 6 },
    /* where the nearest is not the next index: node 3's is 2, node 1's is 0 */
    { "192em64t-24n8c2t.xml", 3, 8 },
    { "28intel64-2p2g7c-CoDgroups.v1tov2.xml", 1, 7 },
    { "mpibind-epyc-dual-sock-hwloc1.xml", 5, 8 },
  };
  for (size_t c = 0; c < N(cases); c++) {
    struct placer_topology *topo = test_topo_load(cases[c].fixture);
    char text[512];
    snprintf(text, sizeof(text),
             "roles:\n  - name: big\n    kind: generic\n    count: 2\n    cpu: { cores: %u }\n"
             "    locality: { near: numa, numa: %u }\n",
             cases[c].cores, cases[c].target);
    struct placer_profile *profile = test_profile_text(text);
    struct placer_plan *plan = test_plan_ok(topo, profile);
    test_plan_invariants(topo, profile, plan);
    const struct placer_instance *first = placer_plan_find(plan, "big.0"), *second = placer_plan_find(plan, "big.1");
    assert_int_equal(first->numa_node, cases[c].target);
    assert_int_equal(first->locality, PLACER_LOCALITY_LOCAL);
    /* the nearest other node, computed here from the matrix */
    unsigned best = 0;
    uint64_t best_d = UINT64_MAX;
    for (size_t n = 0; n < topo->n_numa_nodes; n++) {
      unsigned os = topo->numa_nodes[n].os_index;
      uint64_t d = placer_topology_distance(topo, cases[c].target, os);
      if (os != cases[c].target && d < best_d) {
        best = os;
        best_d = d;
      }
    }
    assert_true(best_d > 10 && best_d < UINT64_MAX);
    assert_int_equal(second->numa_node, best);
    assert_int_equal(second->locality, PLACER_LOCALITY_REMOTE);
    char expected[256];
    snprintf(expected, sizeof(expected),
             "big.1: wants %u cores on NUMA node %u, only 0 free there; placed on NUMA node %u (distance %llu)",
             cases[c].cores, cases[c].target, best, (unsigned long long)best_d);
    assert_int_equal(plan->n_warnings, 1);
    assert_string_equal(plan->warnings[0], expected);
    placer_plan_free(plan);
    placer_profile_free(profile);
    placer_topology_free(topo);
  }
}

static void test_preferred_fallback_device(void **state) {
  /* 4 OSDs x 5 cores near nvme0-3 (node 0, 16 cores): the fourth moves */
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile = test_profile_text("roles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n"
                                                     "    devices: [nvme0n1, nvme1n1, nvme2n1, nvme3n1]\n"
                                                     "    cpu: { cores: 5 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  for (unsigned i = 0; i < 3; i++)
    assert_int_equal(plan->instances[i].locality, PLACER_LOCALITY_LOCAL);
  assert_int_equal(plan->instances[3].locality, PLACER_LOCALITY_REMOTE);
  assert_int_equal(plan->instances[3].numa_node, 1);
  /* this fixture has no distance matrix: the other package is all there is */
  assert_string_equal(plan->warnings[0], "osd.3: wants 5 cores near nvme3n1 (NUMA node 0), only 1 free there; "
                                         "placed on NUMA node 1");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_unknown_locality_and_missing_nic(void **state) {
  /* quartz: sda on node 0, sdb and sdc with no known locality */
  struct placer_topology *topo = test_topo_load("mpibind-cts1-quartz-smt1.xml");
  struct placer_profile *profile = test_profile_load("hci-hdd");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_int_equal(placer_plan_find(plan, "osd.0")->locality, PLACER_LOCALITY_LOCAL);
  assert_int_equal(placer_plan_find(plan, "osd.1")->locality, PLACER_LOCALITY_REMOTE);
  assert_true(test_plan_has_warning(plan, "osd.1: the NUMA locality of sdb is unknown; placed without locality"));
  assert_true(test_plan_has_warning(plan, "osd.2: the NUMA locality of sdc is unknown; placed without locality"));
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);

  /* corona has no ens1f*: reserve and MDS say so */
  topo = test_topo_load("mpibind-epyc-corona.xml");
  profile = test_profile_text("reserve: { nics: [\"ens1f*\"] }\n"
                              "roles:\n"
                              "  - name: mds\n    kind: ceph-mds\n    cpu: { cores: 1 }\n"
                              "    locality: { near: nic, nic: \"ens1f*\" }\n");
  plan = test_plan_ok(topo, profile);
  assert_string_equal(plan->warnings[0], "reserve: no NIC matches 'ens1f*' (NICs here: enp3s0f0, enp3s0f1, hsi0); no "
                                         "cores reserved for NIC interrupts");
  assert_true(test_plan_has_warning(plan, "mds.0: no NIC matches 'ens1f*'"));
  assert_int_equal(placer_plan_find(plan, "mds.0")->locality, PLACER_LOCALITY_REMOTE);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_spread_and_per_numa(void **state) {
  struct placer_topology *topo = test_topo_load("192em64t-24n8c2t.xml");
  struct placer_profile *profile = test_profile_text("roles:\n"
                                                     "  - name: mds\n    kind: ceph-mds\n    per_numa: 1\n"
                                                     "    cpu: { cores: 1 }\n"
                                                     "  - name: fio\n    kind: fio\n    count: 30\n"
                                                     "    cpu: { threads: 1 }\n    locality: { near: spread }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  assert_int_equal(plan->n_instances, 24 + 30);
  for (unsigned i = 0; i < 24; i++) {
    assert_int_equal(plan->instances[i].numa_node, topo->numa_nodes[i].os_index);
    assert_int_equal(plan->instances[i].locality, PLACER_LOCALITY_LOCAL);
  }
  for (unsigned i = 0; i < 30; i++) {
    const struct placer_instance *fio = &plan->instances[24 + i];
    assert_int_equal(fio->numa_node, topo->numa_nodes[i % 24].os_index);
    assert_int_equal(fio->locality, PLACER_LOCALITY_LOCAL);
  }
  assert_int_equal(plan->n_warnings, 0);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_reserve_forms(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  /* 10% of 32 cores = 3, spread over the nodes round robin */
  struct placer_profile *profile =
      test_profile_text("reserve: { cores: 10%, memory: 3GiB }\n"
                        "roles:\n  - name: a\n    kind: generic\n    cpu: { threads: 1 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  char *reserved = placer_cpulist_format(plan->reserved_cpus);
  assert_string_equal(reserved, "0-3,32-33");
  free(reserved);
  reserved = placer_cpulist_format(plan->reserved_mems);
  assert_string_equal(reserved, "0-1");
  free(reserved);
  assert_true(plan->reserved_memory_bytes == 3ull << 30);
  placer_plan_free(plan);
  placer_profile_free(profile);
  /* NIC cores come on the NIC's node */
  profile = test_profile_text("reserve: { nics: [ens1f1], nic_cores: 2 }\n"
                              "roles:\n  - name: a\n    kind: generic\n    cpu: { threads: 1 }\n");
  plan = test_plan_ok(topo, profile);
  reserved = placer_cpulist_format(plan->reserved_cpus);
  assert_string_equal(reserved, "0-3");
  free(reserved);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_memory_warning_and_fill(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  /* preferred: over-commit is a warning naming the node and the first instance */
  struct placer_profile *profile = test_profile_text("roles:\n  - name: big\n    kind: generic\n    count: 2\n"
                                                     "    cpu: { cores: 1 }\n    memory: 100GiB\n"
                                                     "    locality: { near: numa, numa: 1 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  assert_int_equal(plan->n_warnings, 1);
  assert_string_equal(plan->warnings[0], "NUMA node 1: memory over-committed: instances need 200 GiB, 179 GiB "
                                         "available (179 GiB, 0 B reserved for the host); from big.1 on");
  placer_plan_free(plan);
  placer_profile_free(profile);
  /* fill stops at memory: 179 GiB per node, 60 GiB each -> 2 per node, 4 in all */
  profile = test_profile_text("roles:\n  - name: vm\n    kind: vm\n    count: fill\n"
                              "    cpu: { threads: 2 }\n    memory: 60GiB\n");
  plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  assert_int_equal(plan->n_instances, 4);
  assert_int_equal(plan->n_warnings, 0);
  placer_plan_free(plan);
  placer_profile_free(profile);
  /* fill stops at CPU, and at max_count */
  profile =
      test_profile_text("roles:\n  - name: vm\n    kind: vm\n    count: fill\n    cpu: { cores: 3 }\n"
                        "  - name: fio\n    kind: fio\n    count: fill\n    max_count: 2\n    cpu: { cores: 1 }\n");
  plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  assert_int_equal(plan->n_instances, 10 + 2); /* 5 x 3 cores per node, then 1 core each */
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

static void test_unpinned(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile = test_profile_load("unpinned");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  for (size_t i = 0; i < plan->n_instances; i++) {
    char *cpus = placer_cpulist_format(plan->instances[i].cpus);
    char *mems = placer_cpulist_format(plan->instances[i].mems);
    assert_string_equal(cpus, "0-63");
    assert_string_equal(mems, "0-1");
    free(cpus);
    free(mems);
    assert_false(plan->instances[i].exclusive);
  }
  assert_true(hwloc_bitmap_iszero(plan->reserved_cpus));
  assert_true(plan->reserved_memory_bytes == 512ull << 20);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_fixture_every_profile),
    cmocka_unit_test(test_every_fixture_test_profiles),
    cmocka_unit_test(test_live),
    cmocka_unit_test(test_crafted_hci_nvme),
    cmocka_unit_test(test_demo_local_on_smt),
    cmocka_unit_test(test_infeasible_messages),
    cmocka_unit_test(test_preferred_fallback_by_distance),
    cmocka_unit_test(test_preferred_fallback_device),
    cmocka_unit_test(test_unknown_locality_and_missing_nic),
    cmocka_unit_test(test_spread_and_per_numa),
    cmocka_unit_test(test_reserve_forms),
    cmocka_unit_test(test_memory_warning_and_fill),
    cmocka_unit_test(test_unpinned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
