/* placer export --format ceph (issue #36, finding 5 and its Deliver): option
 * names per --target release (Crimson's: Squid's or Tentacle's, none before
 * Squid), every option the script sets checked by `ceph config help` first,
 * osd_numa_node only for OSDs in a cgroup cpuset (--osds-in-cpusets) and
 * said so with the node's CPUs, the restart list, and a cephadm spec per OSD
 * group with the group's cpuset.  The script itself runs on a real cluster
 * in tests/integration/export_ceph.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export_check.h"
#include "export_support.h"
#include "lib/cpulist.h"
#include "test_support.h"

/* The option names a script sets (ceph config set and in_cpuset lines),
 * each once, as " a b c ", and those its `known` line checks, the same way. */
static void options_of(const char *script, char *set, char *known, size_t len) {
  snprintf(set, len, " ");
  *known = '\0';
  for (const char *p = script; *p;) {
    size_t n = strcspn(p, "\n");
    char line[1024], who[256], key[256];
    snprintf(line, sizeof(line), "%.*s", (int)n, p);
    if (sscanf(line, "ceph config set %255s %255s", who, key) == 2 ||
        (strncmp(line, "in_cpuset ", 10) == 0 && sscanf(line, "in_cpuset %255s %255s", who, key) == 2)) {
      char word[260];
      snprintf(word, sizeof(word), " %s ", key);
      if (strstr(set, word) == NULL)
        snprintf(set + strlen(set), len - strlen(set), "%s ", key);
    }
    if (strncmp(line, "known ", 6) == 0)
      snprintf(known, len, "%s ", line + 5);
    p += n + (p[n] == '\n');
  }
}

/* Every option set is checked first, and only those. */
static void expect_known(const char *script) {
  char set[2048], known[2048];
  options_of(script, set, known, sizeof(set));
  if (strcmp(set, known) != 0)
    fail_msg("known checks '%s', the script sets '%s'", known, set);
  /* and the check comes before the first set */
  assert_true(strstr(script, "\nknown ") < strstr(script, "\nceph config set "));
}

static void test_targets(void **state) {
  struct loaded l;
  load_file("crafted-hci-2s16c-8nvme.xml", "profiles/export-hci.yaml", &l);
  char *text = rendered(&l, "ceph");
  assert_non_null(strstr(text, "(format ceph, for Ceph 20)"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_cpu_num 2\n"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_bluestore_num_threads 2\n"));
  assert_non_null(strstr(text, "the script is for Ceph 20: placer export --target RELEASE"));
  expect_known(text);
  free(text);
  /* Squid: its names, the reactors' count deduced from their set */
  l.target = "19";
  text = rendered(&l, "ceph");
  assert_non_null(strstr(text, "(format ceph, for Ceph 19)"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_seastar_cpu_cores 2,4\n"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_alien_thread_cpu_cores 3,5\n"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_alien_op_num_threads 2\n"));
  assert_null(strstr(text, "crimson_cpu"));
  expect_known(text);
  free(text);
  for (const char *const *t = (const char *const[]){ "16", "17", "18", NULL }; *t; t++) {
    l.target = *t;
    expect_refusal(&l, "ceph", "osd.0: Ceph ");
    expect_refusal(&l, "ceph", "has no option for a Crimson OSD's CPU sets (Squid, 19, is the first): --target 19");
  }
  l.target = "15";
  expect_refusal(&l, "ceph", "ceph: --target 15: placer writes for Ceph 16, 17, 18, 19, 20");
  unload(&l);
  /* classic OSDs: the same options from Pacific on */
  load_file("crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml", &l);
  l.target = "16";
  text = rendered(&l, "ceph");
  assert_non_null(strstr(text, "(format ceph, for Ceph 16)"));
  assert_non_null(
      strstr(text, "known osd_numa_auto_affinity osd_numa_node osd_memory_target mds_cache_memory_limit\n"));
  expect_known(text);
  free(text);
  unload(&l);
  /* a format whose output is one for every release refuses --target */
  load_file("crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml", &l);
  l.target = "20";
  expect_refusal(&l, "nova", "nova: --target 20: this format's output is the same for every release of its consumer");
  unload(&l);
}

/* osd_numa_node: only through in_cpuset (ceph config set with
 * --osds-in-cpusets), its comment naming the node's CPUs and the OSD's. */
static void test_numa_node(void **state) {
  struct loaded l;
  load_file("crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml", &l);
  char *text = rendered(&l, "ceph");
  size_t checked = 0;
  for (size_t i = 0; i < l.plan->n_instances; i++) {
    const struct placer_instance *inst = &l.plan->instances[i];
    if (inst->kind != PLACER_KIND_CEPH_OSD)
      continue;
    char want[512];
    snprintf(want, sizeof(want), "\nin_cpuset osd.%s osd_numa_node %d\n", inst->match.value, inst->numa_node);
    assert_non_null(strstr(text, want));
    hwloc_bitmap_t node = NULL;
    for (size_t n = 0; n < l.topo->n_numa_nodes; n++)
      if ((int)l.topo->numa_nodes[n].os_index == inst->numa_node)
        node = l.topo->numa_nodes[n].cpus;
    char *node_list = placer_cpulist_format(node), *mine = placer_cpulist_format(inst->cpus);
    snprintf(want, sizeof(want),
             "# osd_numa_node %d: at start the OSD sets every thread's affinity to node %d's CPUs %s "
             "(OSD::set_numa_affinity); in a cgroup cpuset of its CPUs %s that stays %s, without one it widens to "
             "the whole node: set only with --osds-in-cpusets\n",
             inst->numa_node, inst->numa_node, node_list, mine, mine);
    if (strstr(text, want) == NULL)
      fail_msg("no '%s'", want);
    free(node_list);
    free(mine);
    checked++;
  }
  assert_int_equal(checked, 8);
  assert_null(strstr(text, "ceph config set osd.0 osd_numa_node"));
  /* in_cpuset sets only with the flag */
  assert_non_null(strstr(text, "  if [ \"$in_cpusets\" = yes ]; then ceph config set \"$1\" \"$2\" \"$3\"; fi\n"));
  assert_non_null(strstr(text, "  --osds-in-cpusets) in_cpusets=yes ;;\n"));
  /* the restart list: every OSD, and what each reads at start */
  assert_non_null(strstr(text, "echo 'ceph-config.sh: set. Restart osd.0 osd.1 osd.2 osd.3 osd.4 osd.5 osd.6 osd.7: "
                               "an OSD reads osd_numa_auto_affinity, osd_numa_node when it starts only.'\n"));
  free(text);
  unload(&l);
}

/* A cephadm spec per OSD group (the OSDs of a role with the same CPUs and
 * nodes), with their devices and the group's cpuset; none before Quincy or
 * without devices, said in a note. */
static void test_cephadm(void **state) {
  struct loaded l;
  load_file("crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml", &l);
  char *msg = NULL;
  struct placer_export_output *out = render(&l, "ceph", &msg);
  assert_int_equal(out->n_units, 9);
  for (size_t u = 1; u < out->n_units; u++) {
    const struct placer_instance *inst = &l.plan->instances[u - 1];
    char name[64], want[512];
    snprintf(name, sizeof(name), "cephadm-%s.yaml", inst->name);
    assert_string_equal(out->units[u].name, name);
    assert_int_equal(out->units[u].syntax, PLACER_EXPORT_YAML);
    char *cpus = placer_cpulist_format(inst->cpus), *mems = placer_cpulist_format(inst->mems);
    snprintf(want, sizeof(want),
             "service_type: osd\nservice_id: placer-osd-%zu\nplacement:\n  label: placer-hci-nvme\nspec:\n  "
             "data_devices:\n    paths:\n      - /dev/%s\nextra_container_args:\n  - \"--cpuset-cpus=%s\"\n  - "
             "\"--cpuset-mems=%s\"\n",
             u - 1, inst->device, cpus, mems);
    if (strstr(out->units[u].text, want) == NULL)
      fail_msg("%s: no\n%s\nin\n%s", name, want, out->units[u].text);
    free(cpus);
    free(mems);
  }
  /* the check reads the cpuset: a wrong one fails it */
  expect_check_reads(out, l.plan, "ceph", 1, "--cpuset-cpus=6-11", "--cpuset-cpus=7-11");
  placer_export_output_free(out);
  l.target = "16";
  out = render(&l, "ceph", &msg);
  assert_int_equal(out->n_units, 1);
  assert_string_equal(out->notes.items[0],
                      "osd.0: no cephadm spec: extra_container_args needs cephadm of Ceph 17 or later");
  placer_export_output_free(out);
  unload(&l);
  /* OSDs sharing a pool: one spec for the group, every device in it */
  load_text("crafted-hci-2s16c-8nvme.xml",
            "roles:\n  - { name: osd, kind: ceph-osd, per_device: 1, devices: [\"nvme*\"], cpu: { threads: 2, pool: "
            "osds }, memory: 2GiB }\n",
            &l);
  out = render(&l, "ceph", &msg);
  assert_int_equal(out->n_units, 2);
  assert_non_null(strstr(out->units[1].text, "      - /dev/nvme0n1\n      - /dev/nvme1n1\n"));
  assert_non_null(strstr(out->units[1].text, "      - /dev/nvme7n1\nextra_container_args:\n"));
  placer_export_output_free(out);
  unload(&l);
  /* OSDs without a device in the plan: no spec, a note */
  load_file("crafted-hci-2s16c-8nvme.xml", "profiles/export-hci.yaml", &l);
  out = render(&l, "ceph", &msg);
  assert_int_equal(out->n_units, 1);
  assert_string_equal(out->notes.items[0],
                      "osd.0: no cephadm spec: the plan names no device of it (a spec picks an OSD by its device; "
                      "per_device roles have one)");
  placer_export_output_free(out);
  unload(&l);
}

/* The MDS (issue #38): mds_cache_memory_limit is the plan's own figure
 * (placer_plan_mds_of: half the MDS's memory limit), for the daemon on its
 * whole core; without a memory limit none is written and `known` does not
 * check the option.  The running daemon takes it: export_ceph.sh. */
static void test_mds_cache(void **state) {
  struct loaded l;
  load_file("crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml", &l);
  l.target = "16";
  size_t i = 0;
  while (l.plan->instances[i].kind != PLACER_KIND_CEPH_MDS)
    i++;
  const struct placer_plan_mds *m = placer_plan_mds_of(l.plan, i);
  assert_true(m->cache_limit_bytes == 4ULL << 30); /* 8 GiB / 2 */
  char *text = rendered(&l, "ceph"), want[256];
  snprintf(want, sizeof(want), "\nceph config set mds.a mds_cache_memory_limit %llu\n",
           (unsigned long long)m->cache_limit_bytes);
  assert_non_null(strstr(text, want));
  assert_non_null(
      strstr(text, "\n# mds.0 (role mds): CPUs 30-31, memory limit 8589934592 bytes: the cache gets half\n"));
  expect_known(text);
  free(text);
  unload(&l);
  load_text("crafted-hci-2s16c-8nvme.xml",
            "roles:\n  - { name: mds, kind: ceph-mds, cpu: { threads: 1 }, match: { ceph_id: a } }\n", &l);
  text = rendered(&l, "ceph");
  assert_non_null(
      strstr(text, "\n# mds.0 (role mds): CPUs 0-1; no memory limit, mds_cache_memory_limit left as it is\n"));
  assert_non_null(strstr(text, "\nknown\n")); /* neither checked nor set */
  assert_null(strstr(text, "ceph config set mds.a"));
  free(text);
  unload(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_targets),
    cmocka_unit_test(test_numa_node),
    cmocka_unit_test(test_cephadm),
    cmocka_unit_test(test_mds_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
