/* Helpers shared by the unit tests. */
#include "test_support.h"
#include "lib/statedir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cpulist.h"
#include "lib/textfile.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "topology/topology.h"

const char *test_data_path(const char *relative) {
  static char path[4096];
  const char *root = getenv("PLACER_TEST_DATA");
  snprintf(path, sizeof(path), "%s/%s", root ? root : "tests", relative);
  return path;
}

char *test_read_file(const char *path) {
  char *text = NULL;
  return placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0 ? NULL : text;
}

void test_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    fail_msg("cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* The fixtures: every .xml file under tests/fixtures, sorted. */
size_t test_list_fixtures(char names[][128], size_t cap) {
  DIR *dir = opendir(test_data_path("fixtures"));
  assert_non_null(dir);
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL && n < cap) {
    size_t len = strlen(de->d_name);
    if (len > 4 && len < 128 && strcmp(de->d_name + len - 4, ".xml") == 0)
      memcpy(names[n++], de->d_name, len + 1);
  }
  closedir(dir);
  qsort(names, n, 128, (int (*)(const void *, const void *))strcmp);
  return n;
}

bool test_updating_golden(void) {
  const char *v = getenv("PLACER_UPDATE_GOLDEN");
  return v && *v && strcmp(v, "0") != 0;
}

void test_compare_golden(const char *golden_relative, const char *actual) {
  char path[4096];
  snprintf(path, sizeof(path), "%s", test_data_path(golden_relative));
  if (test_updating_golden()) {
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
      *slash = '\0';
      mkdir(path, 0755); /* EEXIST for all but a new golden directory */
      *slash = '/';
    }
    test_write_file(path, actual);
    return;
  }
  char *expected = test_read_file(path);
  if (expected == NULL)
    fail_msg("missing %s (PLACER_UPDATE_GOLDEN=1 writes it; review it before committing)", golden_relative);
  if (strcmp(expected, actual) != 0) {
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.actual", path);
    test_write_file(tmp, actual);
    fail_msg("%s differs; see diff -u %s %s", golden_relative, path, tmp);
  }
  free(expected);
}

const struct placer_numa_node *placer_topology_numa_by_os(const struct placer_topology *topo, unsigned os_index) {
  int pos = placer_topology_numa_pos(topo, os_index);
  return pos < 0 ? NULL : &topo->numa_nodes[pos];
}

const struct placer_core *placer_topology_core_of_pu(const struct placer_topology *topo, unsigned pu_os_index) {
  for (size_t i = 0; i < topo->n_cores; i++)
    if (hwloc_bitmap_isset(topo->cores[i].pus, pu_os_index))
      return &topo->cores[i];
  return NULL;
}

/* ---- planner tests (test_planner*.c) ---- */

struct placer_topology *test_topo_load(const char *fixture) {
  char relative[256];
  snprintf(relative, sizeof(relative), "fixtures/%s", fixture);
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(fixture ? test_data_path(relative) : NULL, &topo, &err) < 0)
    fail_msg("topology %s: %s", fixture ? fixture : "live", err ? err->msg : "?");
  return topo;
}

struct placer_profile *test_profile_load(const char *name) {
  char relative[256];
  snprintf(relative, sizeof(relative), "../profiles/%s.yaml", name);
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_load(test_data_path(relative), &profile, &err) < 0)
    fail_msg("profile %s: %s", name, err ? err->msg : "?");
  return profile;
}

struct placer_profile *test_profile_text(const char *text) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("inline.yaml", text, strlen(text), &profile, &err) < 0)
    fail_msg("inline profile: %s", err ? err->msg : "?");
  return profile;
}

struct placer_plan *test_plan_ok(const struct placer_topology *topo, const struct placer_profile *profile) {
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  if (placer_plan_compute(topo, profile, &plan, &err) < 0)
    fail_msg("plan %s on %s: %s", profile->name, topo->source, err ? err->msg : "?");
  return plan;
}

/* Compute a plan that must fail with exit 3; returns the message (caller frees). */
char *test_plan_infeasible(const struct placer_topology *topo, const struct placer_profile *profile) {
  struct placer_plan *plan = (struct placer_plan *)0x1; /* must stay untouched */
  struct placer_error *err = NULL;
  int rc = placer_plan_compute(topo, profile, &plan, &err);
  if (rc == 0)
    fail_msg("plan %s on %s: fits, expected exit 3", profile->name, topo->source);
  assert_true(plan == (struct placer_plan *)0x1);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_INFEASIBLE);
  char *msg = strdup(err->msg);
  placer_error_free(err);
  return msg;
}

bool test_plan_has_warning(const struct placer_plan *plan, const char *prefix) {
  for (size_t i = 0; i < plan->n_warnings; i++)
    if (strncmp(plan->warnings[i], prefix, strlen(prefix)) == 0)
      return true;
  return false;
}

static void nodes_of(const struct placer_topology *topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < topo->n_numa_nodes; i++)
    if (hwloc_bitmap_intersects(topo->numa_nodes[i].cpus, cpus))
      hwloc_bitmap_set(out, topo->numa_nodes[i].os_index);
}

static void cpus_of_nodes(const struct placer_topology *topo, hwloc_const_bitmap_t nodes, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < topo->n_numa_nodes; i++)
    if (hwloc_bitmap_isset(nodes, topo->numa_nodes[i].os_index))
      hwloc_bitmap_or(out, out, topo->numa_nodes[i].cpus);
}

char *test_plan_json(const struct placer_plan *plan) {
  json_t *j = placer_plan_to_json(plan);
  char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(j);
  return s;
}

char *test_plan_text(const struct placer_plan *plan) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  assert_int_equal(placer_plan_print_text(plan, f), 0);
  fclose(f);
  return text;
}

/* docs/profiles.md, "The MDS": the cores of MDS instance INDEX (pinned,
 * exclusive) are its own, whole; plan->mds says so, with its cache limit. */
static void mds_invariants(const struct placer_topology *topo, const struct placer_plan *plan, size_t index) {
  const struct placer_instance *inst = &plan->instances[index];
  hwloc_bitmap_t cores = hwloc_bitmap_alloc();
  unsigned n_cores = 0;
  for (size_t c = 0; c < topo->n_cores; c++)
    if (hwloc_bitmap_intersects(topo->cores[c].pus, inst->cpus)) {
      hwloc_bitmap_or(cores, cores, topo->cores[c].pus);
      n_cores++;
    }
  if (!hwloc_bitmap_isequal(cores, inst->cpus))
    fail_msg("%s: %s (an MDS) holds part of a core", topo->source, inst->name);
  for (size_t j = 0; j < plan->n_instances; j++)
    if (j != index && hwloc_bitmap_intersects(plan->instances[j].cpus, cores))
      fail_msg("%s: %s holds a PU of a core of %s (an MDS)", topo->source, plan->instances[j].name, inst->name);
  assert_false(hwloc_bitmap_intersects(plan->reserved_cpus, cores));
  assert_true(inst->whole_cores);
  const struct placer_plan_mds *m = placer_plan_mds_of(plan, index);
  assert_non_null(m);
  assert_int_equal(m->n_cores, n_cores);
  assert_int_equal(m->n_shared_with, 0);
  assert_true(hwloc_bitmap_iszero(m->not_held));
  assert_int_equal(hwloc_bitmap_weight(m->first_pus) + hwloc_bitmap_weight(m->siblings), hwloc_bitmap_weight(cores));
  assert_int_equal(m->has_cache_limit, inst->has_memory_limit);
  if (inst->has_memory_limit)
    assert_true(m->cache_limit_bytes == inst->memory_bytes / 2);
  hwloc_bitmap_free(cores);
}

/* The invariants every plan keeps (docs/profiles.md, "What a plan
 * guarantees"). */
void test_plan_invariants(const struct placer_topology *topo, const struct placer_profile *profile,
                          const struct placer_plan *plan) {
  const char *where = topo->source;
  hwloc_bitmap_t exclusive = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc(), local = hwloc_bitmap_alloc();
  hwloc_bitmap_t all_nodes = hwloc_bitmap_alloc();
  for (size_t n = 0; n < topo->n_numa_nodes; n++)
    hwloc_bitmap_set(all_nodes, topo->numa_nodes[n].os_index);
  assert_false(hwloc_bitmap_intersects(plan->free_cpus, plan->reserved_cpus));
  assert_true(hwloc_bitmap_isincluded(plan->reserved_cpus, topo->online_cpus));
  uint64_t *charged = calloc(topo->n_numa_nodes, sizeof(uint64_t));

  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    const struct placer_role_spec *role = placer_profile_role(profile, inst->role);
    assert_non_null(role);
    /* names unique */
    for (size_t j = 0; j < i; j++)
      if (strcmp(plan->instances[j].name, inst->name) == 0)
        fail_msg("%s: %s twice", where, inst->name);
    /* cpus: online PUs of the topology, never empty */
    if (hwloc_bitmap_iszero(inst->cpus) || !hwloc_bitmap_isincluded(inst->cpus, topo->online_cpus))
      fail_msg("%s: %s: cpus not a non-empty set of online PUs", where, inst->name);
    assert_int_equal(inst->pinned, profile->pin);
    if (!inst->pinned) {
      assert_true(hwloc_bitmap_isequal(inst->cpus, topo->allowed_cpus));
      assert_true(hwloc_bitmap_isequal(inst->mems, all_nodes));
      assert_int_equal(inst->locality, PLACER_LOCALITY_NONE);
    } else {
      /* not on the reserve, not on what the plan calls free */
      if (hwloc_bitmap_intersects(inst->cpus, plan->reserved_cpus) ||
          hwloc_bitmap_intersects(inst->cpus, plan->free_cpus))
        fail_msg("%s: %s overlaps the reserve or the free set", where, inst->name);
      /* exclusive instances pairwise disjoint, and from every pool */
      for (size_t j = 0; j < plan->n_instances; j++) {
        const struct placer_instance *other = &plan->instances[j];
        if (j == i || !(inst->exclusive || other->exclusive))
          continue;
        if (hwloc_bitmap_intersects(inst->cpus, other->cpus))
          fail_msg("%s: %s (exclusive) overlaps %s", where, inst->exclusive ? inst->name : other->name,
                   inst->exclusive ? other->name : inst->name);
      }
      assert_int_equal(inst->exclusive, role->cpu.exclusive);
      /* whole cores: every PU of every core it touches */
      if (inst->whole_cores)
        for (size_t c = 0; c < topo->n_cores; c++)
          if (hwloc_bitmap_intersects(topo->cores[c].pus, inst->cpus) &&
              !hwloc_bitmap_isincluded(topo->cores[c].pus, inst->cpus))
            fail_msg("%s: %s holds part of core L#%zu", where, inst->name, c);
      /* an MDS of its own CPUs: no PU of a core it holds a PU of is held by
       * another instance (its SMT siblings are its own or nobody's), and
       * what the plan says of it agrees */
      if (inst->kind == PLACER_KIND_CEPH_MDS && inst->exclusive)
        mds_invariants(topo, plan, i);
      /* mems: the nodes of its cpus (unless mems: all) */
      nodes_of(topo, inst->cpus, nodes);
      if (role->mems == PLACER_MEMS_LOCAL && !hwloc_bitmap_isequal(nodes, inst->mems))
        fail_msg("%s: %s: mems are not the nodes of its cpus", where, inst->name);
      assert_int_equal(inst->numa_node, hwloc_bitmap_weight(nodes) == 1 ? hwloc_bitmap_first(nodes) : -1);
      /* locality: local means inside the device's / NIC's nodes; remote has a warning saying why */
      char prefix[128];
      snprintf(prefix, sizeof(prefix), "%s: ", inst->name);
      if (role->near == PLACER_NEAR_NONE) {
        assert_int_equal(inst->locality, PLACER_LOCALITY_NONE);
      } else if (inst->locality == PLACER_LOCALITY_REMOTE) {
        if (!test_plan_has_warning(plan, prefix))
          fail_msg("%s: %s is remote without a warning", where, inst->name);
      } else {
        assert_int_equal(inst->locality, PLACER_LOCALITY_LOCAL);
        hwloc_bitmap_zero(local);
        if (inst->device)
          for (size_t d = 0; d < topo->n_blockdevs; d++)
            if (strcmp(topo->blockdevs[d].name, inst->device) == 0)
              cpus_of_nodes(topo, topo->blockdevs[d].numa_nodes, local);
        if (inst->nic)
          for (size_t d = 0; d < topo->n_nics; d++)
            if (strcmp(topo->nics[d].name, inst->nic) == 0)
              cpus_of_nodes(topo, topo->nics[d].numa_nodes, local);
        if ((inst->device || inst->nic) && !hwloc_bitmap_iszero(local) && !hwloc_bitmap_isincluded(inst->cpus, local))
          fail_msg("%s: %s is 'local' but not on its device's / NIC's nodes", where, inst->name);
      }
      if (inst->exclusive)
        hwloc_bitmap_or(exclusive, exclusive, inst->cpus);
    }
    /* memory: the role's memory plus overhead, charged evenly to its mems */
    assert_int_equal(inst->has_memory_limit, role->has_memory);
    if (inst->has_memory_limit) {
      assert_true(inst->memory_bytes == role->memory_bytes + role->memory_overhead_bytes);
      unsigned k = (unsigned)hwloc_bitmap_weight(inst->mems), nth = 0;
      for (size_t n = 0; n < topo->n_numa_nodes; n++)
        if (hwloc_bitmap_isset(inst->mems, topo->numa_nodes[n].os_index))
          charged[n] += inst->memory_bytes / k + (nth++ < inst->memory_bytes % k ? 1 : 0);
    }
  }
  /* free = usable minus reserve minus everything placed: reserved + held +
   * free is every usable PU, free apart from both */
  hwloc_bitmap_t usable = hwloc_bitmap_dup(topo->online_cpus), expect = hwloc_bitmap_alloc();
  hwloc_bitmap_and(usable, usable, topo->allowed_cpus);
  hwloc_bitmap_andnot(expect, usable, plan->reserved_cpus);
  for (size_t i = 0; i < plan->n_instances; i++)
    hwloc_bitmap_andnot(expect, expect, plan->instances[i].cpus);
  if (!hwloc_bitmap_isequal(expect, plan->free_cpus)) {
    char *want = placer_cpulist_format(expect), *got = placer_cpulist_format(plan->free_cpus);
    fail_msg("%s: %s: free cpus %s, but no instance and no reserve holds %s", where, plan->profile_name,
             *got ? got : "none", want);
  }
  hwloc_bitmap_or(expect, expect, plan->reserved_cpus);
  for (size_t i = 0; i < plan->n_instances; i++)
    hwloc_bitmap_or(expect, expect, plan->instances[i].cpus);
  assert_true(hwloc_bitmap_isequal(expect, usable));
  hwloc_bitmap_free(expect);
  hwloc_bitmap_free(usable);
  /* per-node memory: within budget, or a warning (strict roles fail instead) */
  for (size_t n = 0; n < topo->n_numa_nodes; n++) {
    const struct placer_numa_node *node = &topo->numa_nodes[n];
    if (node->memory_bytes == 0)
      continue;
    uint64_t host = profile->reserve.memory_per_numa_bytes;
    if (profile->reserve.memory_bytes)
      host =
          profile->reserve.memory_bytes / topo->n_numa_nodes + (n < profile->reserve.memory_bytes % topo->n_numa_nodes);
    uint64_t budget = node->memory_bytes > host ? node->memory_bytes - host : 0;
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "NUMA node %u: memory over-committed", node->os_index);
    if (charged[n] > budget && !test_plan_has_warning(plan, prefix))
      fail_msg("%s: NUMA node %u over-committed without a warning", where, node->os_index);
    if (charged[n] <= budget && test_plan_has_warning(plan, prefix))
      fail_msg("%s: NUMA node %u warned but within budget", where, node->os_index);
  }
  free(charged);
  hwloc_bitmap_free(exclusive);
  hwloc_bitmap_free(nodes);
  hwloc_bitmap_free(local);
  hwloc_bitmap_free(all_nodes);
}

const char *test_state_binding(const char *dir) {
  static char text[256];
  struct placer_statedir d;
  struct placer_error *err = NULL;
  if (placer_statedir_open(dir, false, &d, &err) < 0 || d.fd < 0)
    fail_msg("open %s: %s", dir, err ? err->msg : "missing");
  snprintf(text, sizeof(text), "\"boot_id\": \"%s\", \"state_id\": \"%s\", ", placer_boot_id(), d.id);
  placer_statedir_close(&d);
  return text;
}

static char captured_root[512];

struct placer_topology *test_topo_captured(const char *name) {
  snprintf(captured_root, sizeof(captured_root), "/tmp/test-captured-irq-%d", (int)getpid());
  char cmd[8192], fixture[256], xml[256];
  snprintf(fixture, sizeof(fixture), "fixtures/irq/%s", name);
  snprintf(xml, sizeof(xml), "fixtures/irq/%s/topology.xml", name);
  snprintf(cmd, sizeof(cmd),
           "rm -rf '%s' && cp -a '%s' '%s' && cd '%s' && while read -r p m; do chmod \"$m\" \"$p\"; done <modes",
           captured_root, test_data_path(fixture), captured_root, captured_root);
  assert_int_equal(system(cmd), 0);
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path(xml), &topo, &err) < 0 ||
      placer_topology_load_irqs(topo, captured_root, &err) < 0)
    fail_msg("%s: %s", name, err->msg);
  return topo;
}

void test_topo_captured_done(struct placer_topology *topo) {
  placer_topology_free(topo);
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", captured_root);
  assert_int_equal(system(cmd), 0);
}
