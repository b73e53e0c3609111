/* Cache- and distance-aware placement (planner-align.c, docs/profiles.md
 * "cpu.align", "cpu.spread"): the two cases measured on EPYC topologies,
 * L2 clusters, sharing, pools cut per L3, spread over NUMA nodes, a node
 * passed over for its memory, and a property over every fixture: no
 * instance straddles L3 domains it could have avoided, and every invariant
 * of test_planner.c still holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* ---- oracles, from the topology alone ---- */

static char *cpus_text(hwloc_const_bitmap_t set) {
  return placer_cpulist_format(set);
}

static void assert_cpus(const struct placer_plan *plan, const char *name, const char *expected) {
  const struct placer_instance *inst = placer_plan_find(plan, name);
  if (inst == NULL)
    fail_msg("no instance %s", name);
  char *got = cpus_text(inst->cpus);
  if (strcmp(got, expected) != 0)
    fail_msg("%s: cpus %s, expected %s", name, got, expected);
  free(got);
}

/* The L3 domains (indexes) CPUS touch, computed here. */
static unsigned l3s_touched(const struct placer_topology *topo, hwloc_const_bitmap_t cpus) {
  unsigned n = 0;
  for (size_t i = 0; i < topo->n_l3_groups; i++)
    n += hwloc_bitmap_intersects(topo->l3_groups[i].cpus, cpus);
  return n;
}

static bool several_l3_per_node(const struct placer_topology *topo) {
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    int seen = -1;
    for (size_t c = 0; c < topo->n_cores; c++) {
      const struct placer_core *core = &topo->cores[c];
      if (!hwloc_bitmap_isincluded(core->pus, topo->numa_nodes[i].cpus) || core->l3_group < 0)
        continue;
      if (seen >= 0 && seen != core->l3_group)
        return true;
      seen = core->l3_group;
    }
  }
  return false;
}

static bool aligned_to_cache(const struct placer_topology *topo, const struct placer_role_spec *role) {
  return role->cpu.align == PLACER_ALIGN_CACHE || (role->cpu.align == PLACER_ALIGN_AUTO && several_l3_per_node(topo));
}

/* Units of ROLE's kind that AVAIL holds within CPUS (an L3's): whole
 * cores (as cores, or as their threads), or threads; FREE_CORES: single
 * threads of whole free cores only (the planner takes those first). */
static unsigned units(const struct placer_topology *topo, const struct placer_role_spec *role,
                      hwloc_const_bitmap_t within, hwloc_const_bitmap_t avail, bool free_cores) {
  unsigned n = 0;
  for (size_t c = 0; c < topo->n_cores; c++) {
    hwloc_const_bitmap_t pus = topo->cores[c].pus;
    if (!hwloc_bitmap_isincluded(pus, within))
      continue;
    bool whole = hwloc_bitmap_isincluded(pus, avail);
    if (role->cpu.cores)
      n += whole;
    else if (role->cpu.whole_cores || free_cores)
      n += whole ? (unsigned)hwloc_bitmap_weight(pus) : 0;
    else
      for (int pu = hwloc_bitmap_first(pus); pu >= 0; pu = hwloc_bitmap_next(pus, pu))
        n += hwloc_bitmap_isset(avail, (unsigned)pu);
  }
  return n;
}

/* The fewest L3 domains among those in NODES_CPUS whose AVAIL units add up
 * to SIZE (taking the roomiest first is optimal); UINT32_MAX when they do
 * not. */
static unsigned fewest_l3s(const struct placer_topology *topo, const struct placer_role_spec *role,
                           hwloc_const_bitmap_t nodes_cpus, hwloc_const_bitmap_t avail, unsigned size) {
  unsigned caps[256], n = 0;
  hwloc_bitmap_t in = hwloc_bitmap_alloc();
  bool free_cores = false;
  if (!role->cpu.cores && !role->cpu.whole_cores) {
    unsigned total = 0;
    for (size_t i = 0; i < topo->n_l3_groups; i++) {
      hwloc_bitmap_and(in, topo->l3_groups[i].cpus, nodes_cpus);
      total += units(topo, role, in, avail, true);
    }
    free_cores = total >= size;
  }
  for (size_t i = 0; i < topo->n_l3_groups && n < N(caps); i++) {
    hwloc_bitmap_and(in, topo->l3_groups[i].cpus, nodes_cpus);
    caps[n++] = units(topo, role, in, avail, free_cores);
  }
  hwloc_bitmap_free(in);
  for (unsigned k = 0, got = 0; k < n; k++) {
    unsigned best = 0;
    for (unsigned i = 1; i < n; i++)
      if (caps[i] > caps[best])
        best = i;
    got += caps[best];
    caps[best] = 0;
    if (got >= size)
      return k + 1;
  }
  return UINT32_MAX;
}

static void cpus_of_nodes(const struct placer_topology *topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < topo->n_numa_nodes; i++)
    if (hwloc_bitmap_intersects(topo->numa_nodes[i].cpus, cpus))
      hwloc_bitmap_or(out, out, topo->numa_nodes[i].cpus);
}

/* Placement order: roles with a locality, then without, then count: fill. */
static int phase(const struct placer_role_spec *role) {
  if (role->count_mode == PLACER_COUNT_FILL)
    return 2;
  return role->near == PLACER_NEAR_NONE ? 1 : 0;
}

static size_t role_pos(const struct placer_profile *profile, const char *name) {
  for (size_t r = 0; r < profile->n_roles; r++)
    if (strcmp(profile->roles[r].name, name) == 0)
      return r;
  return SIZE_MAX;
}

static bool placed_before(const struct placer_profile *profile, const struct placer_instance *a,
                          const struct placer_instance *b) {
  size_t ra = role_pos(profile, a->role), rb = role_pos(profile, b->role);
  int pa = phase(&profile->roles[ra]), pb = phase(&profile->roles[rb]);
  if (pa != pb)
    return pa < pb;
  if (ra != rb)
    return ra < rb;
  return a->index < b->index;
}

/* No instance aligned to caches straddles L3 domains it could have kept to
 * fewer of, and none shares an L3 with an earlier one while an L3 nobody
 * holds had room for it; a split the size alone forces is no warning, one
 * that the plan's other instances forced is.  Sound on the final plan:
 * what is free at the end was free when each instance was placed. */
static void check_alignment(const struct placer_topology *topo, const struct placer_profile *profile,
                            const struct placer_plan *plan) {
  if (!profile->pin || topo->n_l3_groups == 0)
    return;
  hwloc_bitmap_t avail = hwloc_bitmap_alloc(), scope = hwloc_bitmap_alloc(), clean = hwloc_bitmap_alloc();
  hwloc_bitmap_t held = hwloc_bitmap_alloc();
  hwloc_bitmap_andnot(clean, topo->allowed_cpus, plan->reserved_cpus);
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    const struct placer_role_spec *role = placer_profile_role(profile, inst->role);
    if (!inst->exclusive || !aligned_to_cache(topo, role))
      continue;
    unsigned k = l3s_touched(topo, inst->cpus);
    unsigned size = units(topo, role, inst->cpus, inst->cpus, false);
    hwloc_bitmap_or(avail, plan->free_cpus, inst->cpus);
    cpus_of_nodes(topo, inst->cpus, scope);
    unsigned could = fewest_l3s(topo, role, scope, avail, size);
    if (role->near == PLACER_NEAR_NONE && inst->numa_node >= 0)
      for (size_t n = 0; n < topo->n_numa_nodes; n++) {
        unsigned other = fewest_l3s(topo, role, topo->numa_nodes[n].cpus, avail, size);
        could = other < could ? other : could;
      }
    if (k > could)
      fail_msg("%s: %s spans %u L3 domains, %u would hold it (avoidable split)", topo->source, inst->name, k, could);
    /* a split the size does not force has a warning saying why */
    char prefix[160];
    snprintf(prefix, sizeof(prefix), "%s: ", inst->name);
    bool warned = false;
    for (size_t w = 0; w < plan->n_warnings; w++)
      warned |= strncmp(plan->warnings[w], prefix, strlen(prefix)) == 0 && strstr(plan->warnings[w], " span ");
    unsigned needs = fewest_l3s(topo, role, scope, clean, size);
    if ((k > needs) != warned)
      fail_msg("%s: %s spans %u L3 domains, its size needs %u, but %s", topo->source, inst->name, k, needs,
               warned ? "it warns of a split" : "no warning says why");
    if (k != 1)
      continue;
    /* sharing: an earlier holder in its L3 while an unheld L3 had room */
    size_t l3 = 0;
    while (!hwloc_bitmap_intersects(topo->l3_groups[l3].cpus, inst->cpus))
      l3++;
    bool shares = false;
    for (size_t j = 0; j < plan->n_instances && !shares; j++)
      shares = j != i && hwloc_bitmap_intersects(plan->instances[j].cpus, topo->l3_groups[l3].cpus) &&
               placed_before(profile, &plan->instances[j], inst);
    if (!shares)
      continue;
    hwloc_bitmap_zero(held);
    for (size_t j = 0; j < plan->n_instances; j++)
      hwloc_bitmap_or(held, held, plan->instances[j].cpus);
    for (size_t g = 0; g < topo->n_l3_groups; g++) {
      hwloc_const_bitmap_t cpus = topo->l3_groups[g].cpus;
      if (g == l3 || hwloc_bitmap_intersects(cpus, held) ||
          (role->near != PLACER_NEAR_NONE && !hwloc_bitmap_isincluded(cpus, scope)))
        continue;
      if (units(topo, role, cpus, plan->free_cpus, false) >= size)
        fail_msg("%s: %s shares L3 #%zu though L3 #%zu, held by nobody, had room", topo->source, inst->name, l3, g);
    }
  }
  hwloc_bitmap_free(avail);
  hwloc_bitmap_free(scope);
  hwloc_bitmap_free(clean);
  hwloc_bitmap_free(held);
}

/* ---- the property over every fixture ---- */

/* Roles of many sizes, with and without locality, exclusive, in pools and
 * filling; %s is added to every cpu mapping (an align or nothing). */
static const char *const property_profiles[] = {
  "reserve: { cores: 1 }\nroles:\n  - name: big\n    kind: generic\n    count: 6\n    cpu: { cores: 6%s }\n",
  "reserve: { cores_per_numa: 1 }\nroles:\n  - name: osd\n    kind: ceph-osd\n    per_numa: 1\n"
  "    cpu: { cores: 3%s }\n  - name: vm\n    kind: vm\n    count: fill\n    cpu: { threads: 2, pool: vms%s }\n",
  "roles:\n  - name: a\n    kind: generic\n    count: 3\n    cpu: { cores: 2%s }\n"
  "  - name: b\n    kind: generic\n    count: 2\n    cpu: { cores: 5%s }\n"
  "  - name: c\n    kind: generic\n    count: 3\n    cpu: { threads: 3%s }\n",
  "roles:\n  - name: near\n    kind: generic\n    count: 4\n    cpu: { cores: 3%s }\n"
  "    locality: { near: numa, numa: 0 }\n"
  "  - name: whole\n    kind: generic\n    count: 3\n    cpu: { threads: 6, whole_cores: true%s }\n",
  "reserve: { cores: 2 }\nroles:\n  - name: f\n    kind: fio\n    count: fill\n    cpu: { cores: 3%s }\n",
  "roles:\n  - name: wide\n    kind: generic\n    count: 2\n    cpu: { cores: 10%s }\n"
  "  - name: s\n    kind: generic\n    count: 4\n    cpu: { threads: 1%s }\n"
  "  - name: p\n    kind: generic\n    count: 2\n    cpu: { cores: 4, pool: shared%s }\n",
};

static char *property_profile(const char *fmt, const char *extra) {
  char *text = NULL;
  /* every %s gets EXTRA (at most three per profile) */
  assert_true(asprintf(&text, fmt, extra, extra, extra) > 0);
  return text;
}

static void test_property_every_fixture(void **state) {
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  assert_true(n_fixtures >= 11);
  static const char *const extras[] = { "", ", align: cache" };
  static const char *const shipped[] = { "demo-local", "hci-hdd", "hci-nvme", "unpinned" };
  unsigned planned = 0;
  for (size_t f = 0; f < n_fixtures; f++) {
    struct placer_topology *topo = test_topo_load(fixtures[f]);
    for (size_t p = 0; p < N(shipped) + N(property_profiles) * N(extras); p++) {
      struct placer_profile *profile;
      if (p < N(shipped)) {
        profile = test_profile_load(shipped[p]);
      } else {
        size_t q = p - N(shipped);
        char *text = property_profile(property_profiles[q / N(extras)], extras[q % N(extras)]);
        profile = test_profile_text(text);
        free(text);
      }
      struct placer_plan *plan = NULL;
      struct placer_error *err = NULL;
      if (placer_plan_compute(topo, profile, &plan, &err) < 0) {
        /* too small a node for the profile: the one allowed failure */
        assert_int_equal(err->exit_code, PLACER_EXIT_INFEASIBLE);
        placer_error_free(err);
      } else {
        test_plan_invariants(topo, profile, plan);
        check_alignment(topo, profile, plan);
        planned++;
        placer_plan_free(plan);
      }
      placer_profile_free(profile);
    }
    placer_topology_free(topo);
  }
  assert_true(planned > n_fixtures * 8);
}

/* ---- the two measured cases ---- */

/* 4 NUMA nodes x 2 L3 x 8 cores (a 64-core EPYC in NPS4): 6 instances of 6
 * cores, one core reserved.  Before cache alignment big.4 got 22-27 (L3 #2
 * and #3) and big.5 38-43 (L3 #4 and #5). */
static void test_measured_epyc_8_cores_per_l3(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text("reserve: { cores: 1 }\nroles:\n  - name: big\n    kind: generic\n"
                                                     "    count: 6\n    cpu: { cores: 6 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  check_alignment(topo, profile, plan);
  for (size_t i = 0; i < plan->n_instances; i++)
    if (l3s_touched(topo, plan->instances[i].cpus) != 1)
      fail_msg("%s straddles L3 domains", plan->instances[i].name);
  assert_cpus(plan, "big.3", "1-6,65-70"); /* beside the reserved core, in its L3 */
  assert_cpus(plan, "big.4", "24-29,88-93");
  assert_cpus(plan, "big.5", "40-45,104-109");
  assert_int_equal(plan->n_warnings, 0);
  placer_plan_free(plan);
  placer_profile_free(profile);
  /* align: numa is the placement of before */
  profile = test_profile_text("reserve: { cores: 1 }\nroles:\n  - name: big\n    kind: generic\n"
                              "    count: 6\n    cpu: { cores: 6, align: numa }\n");
  plan = test_plan_ok(topo, profile);
  assert_cpus(plan, "big.4", "22-27,86-91");
  assert_cpus(plan, "big.5", "38-43,102-107");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* 2 sockets x 4 NUMA nodes x 2 L3 x 3 cores (EPYC 7401): 3-core instances
 * beside the reserved core 0 of each node got 1-3 (two L3s) while 3-5 was
 * free. */
static void test_measured_epyc_3_cores_per_l3(void **state) {
  struct placer_topology *topo = test_topo_load("mpibind-epyc-corona.xml");
  struct placer_profile *profile = test_profile_text("reserve: { cores_per_numa: 1 }\nroles:\n  - name: osd\n"
                                                     "    kind: ceph-osd\n    per_numa: 1\n    cpu: { cores: 3 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  check_alignment(topo, profile, plan);
  assert_cpus(plan, "osd.0", "3-5,51-53");
  for (size_t i = 0; i < plan->n_instances; i++) {
    assert_int_equal(l3s_touched(topo, plan->instances[i].cpus), 1);
    assert_int_equal(hwloc_bitmap_weight(plan->instances[i].l3s), 1);
  }
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* ---- the rules one by one ---- */

/* Two small instances on one node: an L3 each while there are L3s to
 * spare; a third shares, with the tightest fit. */
static void test_unshared_first(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text("roles:\n  - name: a\n    kind: generic\n    count: 3\n"
                                                     "    cpu: { cores: 2 }\n    locality: { near: numa, numa: 0 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_cpus(plan, "a.0", "0-1,64-65");
  assert_cpus(plan, "a.1", "8-9,72-73");
  assert_cpus(plan, "a.2", "2-3,66-67");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* Larger than one L3: whole L3s first, the rest in the tightest one, and no
 * warning (the size forces it); the JSON lists both. */
static void test_larger_than_l3(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text(
      "roles:\n  - name: a\n    kind: generic\n    cpu: { cores: 3 }\n    locality: { near: numa, numa: 1 }\n"
      "  - name: b\n    kind: generic\n    cpu: { cores: 12 }\n    locality: { near: numa, numa: 1 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_cpus(plan, "a.0", "16-18,80-82");
  /* L3 #3 whole, then 4 of the 5 left in L3 #2 */
  assert_cpus(plan, "b.0", "19-22,24-31,83-86,88-95");
  char *json = test_plan_json(plan);
  assert_non_null(strstr(json, "\"l3\": [\n        2,\n        3\n      ]"));
  free(json);
  assert_int_equal(plan->n_warnings, 0);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* A split that earlier instances force: a warning naming the L3s and why. */
static void test_unavoidable_split_warns(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text(
      "roles:\n  - name: a\n    kind: generic\n    count: 2\n    cpu: { cores: 5 }\n"
      "    locality: { near: numa, numa: 0 }\n"
      "  - name: b\n    kind: generic\n    cpu: { cores: 6 }\n    locality: { near: numa, numa: 0, policy: strict }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_cpus(plan, "a.0", "0-4,64-68");
  assert_cpus(plan, "a.1", "8-12,72-76");
  assert_cpus(plan, "b.0", "5-7,13-15,69-71,77-79");
  assert_int_equal(plan->n_warnings, 1);
  assert_string_equal(plan->warnings[0], "b.0: 6 cores span 2 L3 domains (L3 0-1): no L3 of NUMA node 0 had 6 cores "
                                         "free (the most: 3, in L3 0)");
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_int_equal(placer_plan_print_text(plan, f), 0);
  fclose(f);
  assert_non_null(strstr(text, "b.0       b (generic)  -           0     0-1"));
  free(text);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* L2 clusters (pairs of cores sharing an L2, OS indexes interleaved): a
 * 2-core instance lies in one cluster, a 6-core one in one L3. */
static void test_l2_clusters(void **state) {
  struct placer_topology *topo = test_topo_load("96em64t-4n4d3ca2co-pci.xml");
  assert_int_equal(topo->n_l2_clusters, 48);
  struct placer_profile *profile = test_profile_text(
      "roles:\n  - name: pair\n    kind: generic\n    count: 3\n    cpu: { cores: 2, align: cache }\n"
      "    locality: { near: numa, numa: 1 }\n"
      "  - name: six\n    kind: generic\n    cpu: { cores: 6 }\n    locality: { near: numa, numa: 1 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  check_alignment(topo, profile, plan);
  for (size_t i = 0; i < 3; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    bool in_one = false;
    for (size_t g = 0; g < topo->n_l2_clusters; g++)
      in_one |= hwloc_bitmap_isincluded(inst->cpus, topo->l2_clusters[g].cpus);
    if (!in_one)
      fail_msg("%s straddles L2 clusters", inst->name);
  }
  assert_cpus(plan, "pair.0", "24,28");
  assert_cpus(plan, "pair.1", "25,29");
  assert_int_equal(l3s_touched(topo, placer_plan_find(plan, "six.0")->cpus), 1);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* align: none: the lowest-numbered free cores, across nodes. */
static void test_align_none(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text("roles:\n  - name: a\n    kind: generic\n"
                                                     "    cpu: { cores: 20, align: none }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_cpus(plan, "a.0", "0-19,64-83");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* A topology with no shared cache: align: cache is a note, and the plan is
 * align: numa's. */
static void test_no_caches_note(void **state) {
  struct placer_topology *topo = test_topo_load("28intel64-2p2g7c-CoDgroups.v1tov2.xml");
  assert_int_equal(topo->n_l3_groups + topo->n_l2_clusters, 0);
  struct placer_profile *cache = test_profile_text("roles:\n  - name: a\n    kind: generic\n    count: 3\n"
                                                   "    cpu: { cores: 4, align: cache }\n");
  struct placer_profile *numa = test_profile_text("roles:\n  - name: a\n    kind: generic\n    count: 3\n"
                                                  "    cpu: { cores: 4, align: numa }\n");
  struct placer_plan *a = test_plan_ok(topo, cache), *b = test_plan_ok(topo, numa);
  assert_int_equal(a->n_warnings, 1);
  assert_string_equal(a->warnings[0], "role 'a': align: cache, but the topology knows no cache shared by cores (no "
                                      "L3, no L2 cluster): aligned to cores and NUMA nodes");
  for (size_t i = 0; i < a->n_instances; i++)
    assert_true(hwloc_bitmap_isequal(a->instances[i].cpus, b->instances[i].cpus));
  placer_plan_free(a);
  placer_plan_free(b);
  placer_profile_free(cache);
  placer_profile_free(numa);
  placer_topology_free(topo);
}

/* spread: numa: larger than a node, evenly over the fewest nodes (12 + 12,
 * not 16 + 8); under a locality, from its node, with a warning. */
static void test_spread_numa(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text("roles:\n  - name: a\n    kind: generic\n"
                                                     "    cpu: { cores: 24, spread: numa }\n"
                                                     "  - name: b\n    kind: generic\n"
                                                     "    cpu: { cores: 24 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  assert_cpus(plan, "a.0", "0-11,16-27,64-75,80-91");
  /* without spread: the nodes in order, as much as each holds */
  assert_cpus(plan, "b.0", "12-15,28-47,76-79,92-111");
  placer_plan_free(plan);
  placer_profile_free(profile);
  profile = test_profile_text("roles:\n  - name: a\n    kind: generic\n    cpu: { cores: 21, spread: numa }\n"
                              "    locality: { near: numa, numa: 2 }\n");
  plan = test_plan_ok(topo, profile);
  test_plan_invariants(topo, profile, plan);
  /* 11 on node 2, 10 on the nearest (all at 12: the first) */
  assert_cpus(plan, "a.0", "0-9,32-42,64-73,96-106");
  assert_int_equal(placer_plan_find(plan, "a.0")->locality, PLACER_LOCALITY_REMOTE);
  assert_string_equal(plan->warnings[0], "a.0: wants 21 cores on NUMA node 2, only 16 free there; spread evenly "
                                         "over NUMA nodes 0,2");
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* preferred: a node as near as the one taken (and first in order) that has
 * the CPUs but not the memory is passed over, and the warning says so
 * (test_planner.c checks the nearest node by distance). */
static void test_spill_passes_node_without_memory(void **state) {
  /* corona: node 1 is as near to node 0 as 2 and 3 (and first), but has no
   * memory left */
  struct placer_topology *topo = test_topo_load("mpibind-epyc-corona.xml");
  struct placer_profile *profile =
      test_profile_text("roles:\n  - name: hog\n    kind: generic\n    cpu: { cores: 1 }\n    memory: 30GiB\n"
                        "    locality: { near: numa, numa: 1 }\n"
                        "  - name: big\n    kind: generic\n    count: 2\n    cpu: { cores: 5 }\n    memory: 4GiB\n"
                        "    locality: { near: numa, numa: 0 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_int_equal(placer_plan_find(plan, "big.1")->numa_node, 2);
  assert_true(test_plan_has_warning(plan,
                                    "big.1: wants 5 cores on NUMA node 0, only 1 free there; placed on NUMA node "
                                    "2 (distance 16); NUMA node 1 (distance 16) has the CPUs but no memory left"));
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* A pool sized to an L3 takes a whole free one; a count: fill pool is cut
 * per L3, each guest in one, and holds as many guests as before. */
static void test_pools(void **state) {
  struct placer_topology *topo = test_topo_load("crafted-epyc-1s4n-2l3x8c.xml");
  struct placer_profile *profile = test_profile_text(
      "roles:\n  - name: a\n    kind: generic\n    cpu: { cores: 2 }\n    locality: { near: numa, numa: 0 }\n"
      "  - name: p\n    kind: generic\n    count: 2\n    cpu: { cores: 8, pool: eight }\n"
      "    locality: { near: numa, numa: 0 }\n");
  struct placer_plan *plan = test_plan_ok(topo, profile);
  assert_cpus(plan, "p.0", "8-15,72-79");
  assert_cpus(plan, "p.1", "8-15,72-79");
  placer_plan_free(plan);
  placer_profile_free(profile);
  static const char vms[] = "roles:\n  - name: osd\n    kind: ceph-osd\n    per_numa: 1\n    cpu: { cores: 3 }\n"
                            "  - name: vm\n    kind: vm\n    count: fill\n    cpu: { threads: 2, pool: vms%s }\n";
  char text[512];
  snprintf(text, sizeof(text), vms, "");
  profile = test_profile_text(text);
  plan = test_plan_ok(topo, profile);
  snprintf(text, sizeof(text), vms, ", align: numa");
  struct placer_profile *whole = test_profile_text(text);
  struct placer_plan *before = test_plan_ok(topo, whole);
  assert_int_equal(plan->n_instances, before->n_instances);
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_VM)
      assert_int_equal(l3s_touched(topo, plan->instances[i].cpus), 1);
  assert_cpus(plan, "vm.0", "3-7,67-71");
  assert_cpus(plan, "vm.5", "8-15,72-79");
  assert_cpus(before, "vm.0", "3-15,67-79");
  placer_plan_free(plan);
  placer_plan_free(before);
  placer_profile_free(profile);
  placer_profile_free(whole);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_property_every_fixture),
    cmocka_unit_test(test_measured_epyc_8_cores_per_l3),
    cmocka_unit_test(test_measured_epyc_3_cores_per_l3),
    cmocka_unit_test(test_unshared_first),
    cmocka_unit_test(test_larger_than_l3),
    cmocka_unit_test(test_unavoidable_split_warns),
    cmocka_unit_test(test_l2_clusters),
    cmocka_unit_test(test_align_none),
    cmocka_unit_test(test_no_caches_note),
    cmocka_unit_test(test_spread_numa),
    cmocka_unit_test(test_spill_passes_node_without_memory),
    cmocka_unit_test(test_pools),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
