/* Topology discovery on hwloc XML fixtures of real machines: concrete facts,
 * golden JSON per fixture, and bad input. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"
#include "topology/topology.h"

static struct placer_topology *load_fixture(const char *name) {
  char rel[256];
  snprintf(rel, sizeof(rel), "fixtures/%s", name);
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path(rel), &topo, &err) < 0)
    fail_msg("load %s: %s", name, err->msg);
  return topo;
}

static const struct placer_blockdev *find_blockdev(const struct placer_topology *topo, const char *name) {
  for (size_t i = 0; i < topo->n_blockdevs; i++)
    if (strcmp(topo->blockdevs[i].name, name) == 0)
      return &topo->blockdevs[i];
  fail_msg("no block device %s", name);
  return NULL;
}

static const struct placer_nic *find_nic(const struct placer_topology *topo, const char *name) {
  for (size_t i = 0; i < topo->n_nics; i++)
    if (strcmp(topo->nics[i].name, name) == 0)
      return &topo->nics[i];
  fail_msg("no NIC %s", name);
  return NULL;
}

static void assert_nodes(hwloc_const_bitmap_t nodes, const char *expected) {
  char *s = placer_cpulist_format(nodes);
  assert_string_equal(s, expected);
  free(s);
}

static void test_crafted_hci(void **state) {
  struct placer_topology *topo = load_fixture("crafted-hci-2s16c-8nvme.xml");
  assert_int_equal(topo->n_packages, 2);
  assert_int_equal(topo->n_numa_nodes, 2);
  assert_int_equal(topo->n_cores, 32);
  for (unsigned p = 0; p < 2; p++) {
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PACKAGE, p);
    assert_int_equal(hwloc_bitmap_weight(pkg->cpuset), 32);
  }
  for (int i = 0; i < 8; i++) {
    char name[16];
    snprintf(name, sizeof(name), "nvme%dn1", i);
    const struct placer_blockdev *bd = find_blockdev(topo, name);
    assert_int_equal(bd->kind, PLACER_DEVICE_NVME);
    assert_nodes(bd->numa_nodes, i < 4 ? "0" : "1");
    assert_true(bd->size_bytes > 3ull << 40);
  }
  assert_nodes(find_nic(topo, "ens1f0")->numa_nodes, "0");
  assert_nodes(find_nic(topo, "ens1f1")->numa_nodes, "0");
  /* SMT siblings stay together in one core. */
  for (size_t i = 0; i < topo->n_cores; i++)
    assert_int_equal(hwloc_bitmap_weight(topo->cores[i].pus), 2);
  assert_int_equal(topo->cores[0].numa_node, 0);
  assert_int_equal(topo->cores[31].numa_node, 1);
  placer_topology_free(topo);
}

static void test_epyc_corona(void **state) {
  struct placer_topology *topo = load_fixture("mpibind-epyc-corona.xml");
  assert_int_equal(topo->n_numa_nodes, 8);
  assert_int_equal(topo->n_cores, 48);
  assert_int_equal(hwloc_bitmap_weight(topo->online_cpus), 96);
  assert_nodes(find_blockdev(topo, "nvme0n1")->numa_nodes, "0");
  /* sda has no PCI parent in this file: its locality is unknown, not guessed. */
  const struct placer_blockdev *sda = find_blockdev(topo, "sda");
  assert_true(hwloc_bitmap_iszero(sda->numa_nodes));
  assert_null(sda->pci_busid);
  /* Distances: local 10, same socket 16, other socket 32. */
  assert_non_null(topo->distances);
  assert_int_equal(placer_topology_distance(topo, 0, 0), 10);
  assert_int_equal(placer_topology_distance(topo, 0, 3), 16);
  assert_int_equal(placer_topology_distance(topo, 0, 4), 32);
  /* One L3 per 3 cores (CCX). */
  assert_int_equal(topo->n_l3_groups, 16);
  assert_int_equal(topo->cores[0].l3_group, topo->cores[2].l3_group);
  assert_true(topo->cores[0].l3_group != topo->cores[3].l3_group);
  placer_topology_free(topo);
}

static void test_normalio_nics_on_node1(void **state) {
  struct placer_topology *topo = load_fixture("32em64t-2n8c2t-pci-normalio.xml");
  assert_int_equal(topo->n_numa_nodes, 2);
  assert_int_equal(topo->n_cores, 16);
  assert_int_equal(topo->n_nics, 3);
  for (size_t i = 0; i < topo->n_nics; i++)
    assert_nodes(topo->nics[i].numa_nodes, "1");
  assert_nodes(find_blockdev(topo, "sda")->numa_nodes, "0");
  assert_nodes(topo->numa_nodes[0].cpus, "0-7,16-23");
  const struct placer_core *c = placer_topology_core_of_pu(topo, 16);
  assert_non_null(c);
  assert_true(hwloc_bitmap_isset(c->pus, 0));
  placer_topology_free(topo);
}

static void test_smt_off_and_cod(void **state) {
  struct placer_topology *topo = load_fixture("mpibind-cts1-quartz-smt1.xml");
  assert_int_equal(topo->n_cores, 36);
  assert_int_equal(hwloc_bitmap_weight(topo->online_cpus), 36);
  placer_topology_free(topo);
  topo = load_fixture("28intel64-2p2g7c-CoDgroups.v1tov2.xml");
  assert_int_equal(topo->n_numa_nodes, 4);
  assert_int_equal(topo->n_cores, 28);
  placer_topology_free(topo);
}

/* Golden JSON: tests/golden/topo/FIXTURE.json; PLACER_UPDATE_GOLDEN=1
 * rewrites them (review the diff by eye before committing). */
static void check_golden(const char *fixture) {
  struct placer_topology *topo = load_fixture(fixture);
  json_t *j = placer_topology_to_json(topo);
  json_object_set_new(j, "source", json_string(fixture));
  char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(j);
  placer_topology_free(topo);
  char rel[256];
  snprintf(rel, sizeof(rel), "golden/topo/%s.json", fixture);
  if (getenv("PLACER_UPDATE_GOLDEN")) {
    FILE *f = fopen(test_data_path(rel), "w");
    assert_non_null(f);
    fprintf(f, "%s\n", text);
    fclose(f);
  }
  char *golden = test_read_file(test_data_path(rel));
  if (golden == NULL)
    fail_msg("missing golden file %s (run with PLACER_UPDATE_GOLDEN=1)", rel);
  golden[strcspn(golden, "\0")] = '\0';
  size_t len = strlen(golden);
  if (len && golden[len - 1] == '\n')
    golden[len - 1] = '\0';
  if (strcmp(golden, text) != 0)
    fail_msg("%s differs from placer_topology_to_json output", rel);
  free(golden);
  free(text);
}

static void test_golden_all_fixtures(void **state) {
  char fixtures[32][128];
  size_t n = test_list_fixtures(fixtures, 32);
  assert_true(n >= 11);
  for (size_t i = 0; i < n; i++)
    check_golden(fixtures[i]);
}

static void expect_load_error(const char *path, const char *needle) {
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_topology_load(path, &topo, &err), -1);
  assert_null(topo);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, needle) == NULL || strstr(err->msg, path) == NULL)
    fail_msg("error '%s' should name '%s' and say '%s'", err->msg, path, needle);
  placer_error_free(err);
}

static void test_bad_input(void **state) {
  char dir[] = "/tmp/placer-topo-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char missing[300], garbage[300], truncated[300], newer[300], empty[300];
  snprintf(missing, sizeof(missing), "%s/missing.xml", dir);
  snprintf(garbage, sizeof(garbage), "%s/garbage.xml", dir);
  snprintf(truncated, sizeof(truncated), "%s/truncated.xml", dir);
  snprintf(newer, sizeof(newer), "%s/newer.xml", dir);
  snprintf(empty, sizeof(empty), "%s/empty.xml", dir);
  FILE *f = fopen(garbage, "w");
  fputs("this is not xml\n", f);
  fclose(f);
  f = fopen(empty, "w");
  fclose(f);
  char *full = test_read_file(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"));
  assert_non_null(full);
  f = fopen(truncated, "w");
  fwrite(full, 1, strlen(full) / 3, f);
  fclose(f);
  char *v = strstr(full, "<topology version=\"2.0\"");
  assert_non_null(v);
  v[19] = '3';
  f = fopen(newer, "w");
  fputs(full, f);
  fclose(f);
  free(full);

  expect_load_error(missing, "No such file");
  expect_load_error(garbage, "not an hwloc XML topology");
  expect_load_error(empty, "empty file");
  expect_load_error(truncated, "corrupt or truncated: it does not end with </topology>");
  expect_load_error(newer, "newer hwloc");
  unlink(missing);
  unlink(garbage);
  unlink(truncated);
  unlink(newer);
  unlink(empty);
  rmdir(dir);
}

/* The guard around hwloc's importer (topology.h): entered and left once per
 * XML load, in this process; no child is forked and the file is read once
 * (a fork-and-read-twice probe made every load 3x slower). */
static unsigned guard_entered, guard_left, forks;
static char guard_name[512];

static void count_enter(const char *name) {
  guard_entered++;
  snprintf(guard_name, sizeof(guard_name), "%s", name);
}

static void count_leave(void) {
  guard_left++;
}

static void count_fork(void) {
  forks++;
}

static void test_xml_guard_once_no_fork(void **state) {
  static const struct placer_topology_xml_guard counting = { count_enter, count_leave };
  assert_int_equal(pthread_atfork(count_fork, NULL, NULL), 0);
  placer_topology_set_xml_guard(&counting);
  char *path = strdup(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"));
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_topology_load(path, &topo, &err), 0);
  assert_int_equal(guard_entered, 1);
  assert_int_equal(guard_left, 1);
  assert_string_equal(guard_name, path);
  assert_int_equal(forks, 0);
  placer_topology_free(topo);
  /* a file refused before hwloc sees it never reaches the importer */
  assert_int_equal(placer_topology_load(test_data_path("fixtures/corrupt/missing.xml"), &topo, &err), -1);
  placer_error_free(err);
  assert_int_equal(guard_entered, 1);
  placer_topology_set_xml_guard(NULL);
  free(path);
}

/* hwloc 2.9 itself (and lstopo) dies with SIGSEGV on this file (a fuzz
 * finding): the crash happens between the guard's enter and leave, so a
 * guard's handler sees it (in a child here: the crash is real). */
static void crash_enter(const char *name) {
  signal(SIGSEGV, _exit);
}

static void test_xml_guard_sees_hwloc_crash(void **state) {
  static const struct placer_topology_xml_guard crashing = { crash_enter, count_leave };
  char *path = strdup(test_data_path("fixtures/corrupt/hwloc-import-segv.xml"));
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    placer_topology_set_xml_guard(&crashing);
    struct placer_topology *topo = NULL;
    struct placer_error *err = NULL;
    placer_topology_load(path, &topo, &err);
    _exit(0); /* hwloc did not crash: the test fails below */
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  /* the handler is _exit itself: the exit code is the signal's number */
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), SIGSEGV);
  free(path);
}

/* The command line's guard: one line naming the file, exit 2, nothing on
 * stdout, for topo and plan alike. */
static void test_cli_hwloc_crash_one_line(void **state) {
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  char *tests = strdup(test_data_path(""));
  static const char *const commands[] = { "topo --json", "plan ../profiles/demo-local.yaml" };
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
    char cmd[8192];
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && out=$('%s' %s --topology fixtures/corrupt/hwloc-import-segv.xml 2>/tmp/placer-guard-err.$$);"
             " rc=$?; err=$(cat /tmp/placer-guard-err.$$); rm -f /tmp/placer-guard-err.$$;"
             " [ $rc = 2 ] && [ -z \"$out\" ] && [ \"$err\" = \"placer: topology "
             "'fixtures/corrupt/hwloc-import-segv.xml': hwloc's XML import crashed on it (Segmentation fault): "
             "a corrupt file\" ]",
             tests, bin, commands[i]);
    if (system(cmd) != 0)
      fail_msg("placer %s on the crashing file: not one line and exit 2", commands[i]);
  }
  free(tests);
}

static void test_cpulist_roundtrip(void **state) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  assert_int_equal(placer_cpulist_parse("0-7, 16-23", set), 0);
  char *s = placer_cpulist_format(set);
  assert_string_equal(s, "0-7,16-23");
  free(s);
  assert_int_equal(placer_cpulist_parse("3", set), 0);
  assert_true(hwloc_bitmap_isset(set, 3) && hwloc_bitmap_weight(set) == 1);
  assert_int_equal(placer_cpulist_parse("", set), 0);
  assert_true(hwloc_bitmap_iszero(set));
  assert_int_equal(placer_cpulist_parse("5-2", set), -1);
  assert_int_equal(placer_cpulist_parse("a", set), -1);
  assert_int_equal(placer_cpulist_parse("1,,x", set), -1);
  hwloc_bitmap_free(set);
}

/* The K-th PU of a set, wrapping: where vCPU K goes (apply, run and export
 * --format libvirt all call it). */
static void test_cpulist_nth(void **state) {
  (void)state;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  assert_int_equal(placer_cpulist_parse("4-5,8", set), 0);
  const int want[] = { 4, 5, 8, 4, 5 }; /* the 4th vCPU wraps around */
  for (size_t k = 0; k < 5; k++)
    assert_int_equal(placer_cpulist_nth(set, k), want[k]);
  assert_int_equal(placer_cpulist_nth(set, 3000000001u), 5); /* 3000000001 % 3 */
  hwloc_bitmap_zero(set);
  assert_int_equal(placer_cpulist_nth(set, 0), -1);
  hwloc_bitmap_free(set);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_crafted_hci),
    cmocka_unit_test(test_epyc_corona),
    cmocka_unit_test(test_normalio_nics_on_node1),
    cmocka_unit_test(test_smt_off_and_cod),
    cmocka_unit_test(test_golden_all_fixtures),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_xml_guard_once_no_fork),
    cmocka_unit_test(test_xml_guard_sees_hwloc_crash),
    cmocka_unit_test(test_cli_hwloc_crash_one_line),
    cmocka_unit_test(test_cpulist_roundtrip),
    cmocka_unit_test(test_cpulist_nth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
