/* The MDS as the planner places it (docs/profiles.md, "The MDS"): whole
 * cores whose SMT siblings no other role gets, next to the storage NIC by
 * default, what `placer plan` says of it (text and JSON), its cache from its
 * memory, the message when only split cores are left (exit 3), and an MDS
 * that a profile puts in a shared pool on purpose. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

static const struct placer_instance *find(const struct placer_plan *plan, const char *name, size_t *index) {
  for (size_t i = 0; i < plan->n_instances; i++)
    if (strcmp(plan->instances[i].name, name) == 0) {
      *index = i;
      return &plan->instances[i];
    }
  fail_msg("no instance %s", name);
  return NULL;
}

static void assert_cpus(hwloc_const_bitmap_t set, const char *want) {
  char *got = placer_cpulist_format(set);
  if (strcmp(got, want) != 0)
    fail_msg("cpus %s, expected %s", got, want);
  free(got);
}

/* The crafted SMT-2 node (PUs 2n and 2n+1 share a core): OSDs of 3 threads
 * leave a spare sibling each, fio clients and guests take single threads;
 * the MDS of one thread still gets a whole core, near ens1f0 on node 0, and
 * the guests' pool holds the OSD's spare PU 5, never the MDS's 7. */
static void test_whole_core_beside_single_threads(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_load(test_data_path("profiles/mds-beside-threads.yaml"), &profile, &err) < 0)
    fail_msg("%s", err->msg);
  struct placer_plan *plan = test_plan_ok(topo, profile);
  size_t i;
  const struct placer_instance *mds = find(plan, "mds.0", &i);
  assert_cpus(mds->cpus, "6-7");
  assert_true(mds->whole_cores);
  assert_string_equal(mds->nic, "ens1f0");
  assert_int_equal(mds->locality, PLACER_LOCALITY_LOCAL);
  size_t k;
  assert_true(hwloc_bitmap_isset(find(plan, "vm.0", &k)->cpus, 5)); /* the OSD's spare sibling */
  for (size_t j = 0; j < plan->n_instances; j++)
    if (j != i)
      assert_false(hwloc_bitmap_intersects(plan->instances[j].cpus, mds->cpus));
  const struct placer_plan_mds *m = placer_plan_mds_of(plan, i);
  assert_non_null(m);
  assert_int_equal(m->n_cores, 1);
  assert_cpus(m->first_pus, "6");
  assert_cpus(m->siblings, "7");
  assert_cpus(m->nic_nodes, "0");
  assert_true(m->has_cache_limit);
  assert_true(m->cache_limit_bytes == 1536ULL << 20); /* 3 GiB / 2 */
  assert_null(placer_plan_mds_of(plan, k));
  assert_false(test_plan_has_warning(plan, "mds.")); /* 3 GiB: no warning */
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, "\n  mds.0 (mds.mds-0): core 6 whole (SMT sibling 7 kept), near NIC ens1f0 on NUMA "
                               "node 0; mds_cache_memory_limit 1.5 GiB (its 3.0 GiB / 2)\n"));
  free(text);
  json_t *doc = placer_plan_to_json(plan);
  json_t *jm = json_object_get(json_array_get(json_object_get(doc, "instances"), i), "mds");
  assert_int_equal(json_integer_value(json_object_get(jm, "cores")), 1);
  assert_string_equal(json_string_value(json_object_get(jm, "first_pus")), "6");
  assert_string_equal(json_string_value(json_object_get(jm, "smt_siblings")), "7");
  assert_string_equal(json_string_value(json_object_get(jm, "not_held")), "");
  assert_int_equal(json_array_size(json_object_get(jm, "shared_with")), 0);
  assert_string_equal(json_string_value(json_object_get(jm, "nic_numa_nodes")), "0");
  assert_true(json_integer_value(json_object_get(jm, "cache_memory_limit_bytes")) == 1610612736);
  assert_null(json_object_get(json_array_get(json_object_get(doc, "instances"), k), "mds"));
  json_decref(doc);
  test_plan_invariants(topo, profile, plan);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* Two whole cores of their own without SMT; with SMT siblings listed. */
static void test_text_forms(void **state) {
  struct placer_topology *topo = test_topo_load("mpibind-cts1-quartz-smt1.xml"); /* no SMT, ens786f0 on node 1 */
  struct placer_profile *profile =
      test_profile_text("roles:\n  - { name: mds, kind: ceph-mds, cpu: { cores: 2 }, match: { ceph_id: b } }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, "\n  mds.0 (mds.b): cores 18-19 whole (no SMT), near NIC ens786f0 on NUMA node 1; no "
                               "memory limit, so no mds_cache_memory_limit\n"));
  free(text);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* No NIC on the node: the default locality finds none, says so once, and
 * the MDS is placed without it (still on whole cores). */
static void test_no_nic(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile =
      test_profile_text("roles:\n  - { name: mds, kind: ceph-mds, cpu: { threads: 1 } }\n");
  assert_int_equal(profile->roles[0].near, PLACER_NEAR_NIC);
  assert_string_equal(profile->roles[0].nic, "auto");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_int_equal(plan->instances[0].locality, PLACER_LOCALITY_REMOTE);
  assert_true(test_plan_has_warning(plan, "mds.0: nic: auto found no storage NIC"));
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, ", near no NIC (see the warnings); no memory limit"));
  free(text);
  test_plan_invariants(topo, profile, plan);
  placer_plan_free(plan);
  placer_profile_free(profile);
  /* near: none, given, stays none */
  profile =
      test_profile_text("roles:\n  - { name: mds, kind: ceph-mds, cpu: { threads: 1 }, locality: { near: none } }\n");
  assert_int_equal(profile->roles[0].near, PLACER_NEAR_NONE);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* Every free core split by roles of single threads placed first: the MDS
 * finds no whole core, and the message says what is free and why it may
 * not take it (exit 3). */
static void test_only_split_cores(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  static const char *const mds[] = { "cpu: { threads: 1 }", "cpu: { cores: 1 }" };
  static const char *const says[] = {
    "role 'mds': mds needs 1 thread (whole cores), only 0 threads left in whole free cores (64 threads, 4 reserved "
    "for the host, 60 taken by earlier roles); 30 threads are free, each the SMT sibling of a core another role "
    "holds a thread of: an MDS takes whole cores that no other role shares",
    "role 'mds': mds needs 1 core, only 0 cores left (32 cores, 2 reserved for the host, 30 taken by earlier roles); "
    "30 threads are free, each the SMT sibling of a core another role holds a thread of: an MDS takes whole cores "
    "that no other role shares",
  };
  for (size_t i = 0; i < 2; i++) {
    char yaml[512];
    snprintf(yaml, sizeof(yaml),
             "reserve: { cores_per_numa: 1 }\nroles:\n  - { name: fio, kind: fio, per_numa: 15, cpu: { threads: 1 } }\n"
             "  - { name: mds, kind: ceph-mds, %s, memory: 2GiB, match: { ceph_id: a } }\n",
             mds[i]);
    struct placer_profile *profile = test_profile_text(yaml);
    char *msg = test_plan_infeasible(topo, profile);
    if (strcmp(msg, says[i]) != 0)
      fail_msg("\n  got      %s\n  expected %s", msg, says[i]);
    free(msg);
    placer_profile_free(profile);
  }
  placer_topology_free(topo);
}

/* A profile that puts the MDS in a pool with the OSDs asks for sharing (a
 * study's "MDS on an OSD's cores"): it shares, and the plan says with whom;
 * with 1 GiB of memory, a warning. */
static void test_pool_on_purpose(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile = test_profile_text(
      "roles:\n  - { name: osd, kind: ceph-osd, count: 2, cpu: { threads: 1, pool: ceph } }\n"
      "  - { name: mds, kind: ceph-mds, cpu: { threads: 1, pool: ceph }, memory: 1GiB, match: { ceph_id: a } }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  size_t i;
  const struct placer_instance *mds = find(plan, "mds.0", &i);
  assert_false(mds->exclusive);
  const struct placer_plan_mds *m = placer_plan_mds_of(plan, i);
  assert_int_equal(m->n_shared_with, 2);
  assert_string_equal(m->shared_with[0], "osd.0");
  assert_string_equal(m->shared_with[1], "osd.1");
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, "\n  mds.0 (mds.a): core 0 shared with osd.0, osd.1 (its pool), near NIC ens1f0 on NUMA "
                               "node 0; mds_cache_memory_limit 512 MiB (its 1.0 GiB / 2)\n"));
  /* 1 GiB: under the least an MDS is given */
  assert_int_equal(plan->n_warnings, 1);
  assert_string_equal(plan->warnings[0],
                      "mds.0: 1.0 GiB of memory, under the 2 GiB an MDS needs at least (Red Hat's hardware guide): its "
                      "cache gets 512 MiB, and a small MDS's resident memory runs past twice its cache "
                      "(docs/profiles.md, \"The MDS\"), so its memory limit may kill it");
  free(text);
  test_plan_invariants(topo, profile, plan);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* The cache: half the memory (Ceph provisions 8 GB for the default 4 GB
 * cache); unpinned, the MDS still has its memory and so its cache. */
static void test_cache_limit(void **state) {
  assert_true(placer_mds_cache_limit(8ULL << 30) == 4ULL << 30);
  assert_true(placer_mds_cache_limit(3) == 1);
  struct placer_topology *topo = test_topo_load("crafted-hci-2s16c-8nvme.xml");
  struct placer_profile *profile =
      test_profile_text("pin: false\nroles:\n  - { name: mds, kind: ceph-mds, memory: 6GiB, match: { ceph_id: a } }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  const struct placer_plan_mds *m = placer_plan_mds_of(plan, 0);
  assert_true(m->cache_limit_bytes == 3ULL << 30);
  assert_int_equal(m->n_cores, 0);
  char *text = test_plan_text(plan);
  assert_non_null(
      strstr(text, "\n  mds.0 (mds.a): unpinned (pin: false); mds_cache_memory_limit 3.0 GiB (its 6.0 GiB / 2)\n"));
  free(text);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_whole_core_beside_single_threads),
    cmocka_unit_test(test_text_forms),
    cmocka_unit_test(test_no_nic),
    cmocka_unit_test(test_only_split_cores),
    cmocka_unit_test(test_pool_on_purpose),
    cmocka_unit_test(test_cache_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
