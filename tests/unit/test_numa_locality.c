/* Memory locality from /proc/PID/numa_maps: the parser on captured files
 * (tests/fixtures/proc/numa-maps, a proc root each), the share on the planned
 * nodes and how it is shown.  Expected byte counts were summed from the files
 * with python3 (see tests/fixtures/proc/README.md). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textfile.h"
#include "numa-locality.h"
#include "test_support.h"

static void add_fixture(const char *root, pid_t pid, struct placer_numa_usage *u) {
  struct placer_error *err = NULL;
  int rc = placer_numa_usage_add_pid(test_data_path(root), pid, u, &err);
  if (rc != 0)
    fail_msg("%s", err ? err->msg : "process gone");
}

/* python3 with a 64 MiB buffer touched, on this 1-node machine. */
static void test_one_node(void **state) {
  (void)state;
  struct placer_numa_usage u = { 0 };
  add_fixture("fixtures/proc/numa-maps/one-node", 4242, &u);
  assert_int_equal(u.n_nodes, 1);
  assert_int_equal(u.n_processes, 1);
  assert_int_equal(u.node_bytes[0], 81072128);
  struct placer_numa_locality l;
  struct placer_error *err = NULL;
  assert_int_equal(placer_numa_locality(&u, "0", &l, &err), 0);
  assert_int_equal(l.resident_bytes, 81072128);
  assert_int_equal(l.local_bytes, 81072128);
  assert_true(l.local_share == 1.0);
  char *s = placer_numa_locality_format(&u, "0");
  assert_string_equal(s, "100%");
  free(s);
  /* Planned elsewhere: nothing local. */
  assert_int_equal(placer_numa_locality(&u, "1", &l, &err), 0);
  assert_int_equal(l.local_bytes, 0);
  assert_true(l.local_share == 0.0);
  s = placer_numa_locality_format(&u, "1");
  assert_string_equal(s, "0% (N0 100%)");
  free(s);
  placer_numa_usage_clear(&u);
}

/* The same process with part of its buffer on node 1, a shared tmpfs file on
 * node 1 (bind:1 policy) and huge pages (kernelpagesize_kB=2048) on nodes 1 and 3. */
static void test_two_nodes(void **state) {
  (void)state;
  struct placer_numa_usage u = { 0 };
  add_fixture("fixtures/proc/numa-maps/two-node", 4243, &u);
  assert_int_equal(u.n_nodes, 4);
  assert_int_equal(u.node_bytes[0], 54140928);
  assert_int_equal(u.node_bytes[1], 47902720);
  assert_int_equal(u.node_bytes[2], 0);
  assert_int_equal(u.node_bytes[3], 2097152);
  assert_int_equal(placer_numa_usage_bytes(&u), 104140800);
  struct placer_numa_locality l;
  struct placer_error *err = NULL;
  assert_int_equal(placer_numa_locality(&u, "0", &l, &err), 0);
  assert_int_equal(l.local_bytes, 54140928);
  assert_true(fabs(l.local_share - 54140928.0 / 104140800.0) < 1e-12);
  static const struct {
    const char *mems, *shown;
  } cases[] = {
    { "0", "52% (N1 46%, N3 2%)" },        { "1", "46% (N0 52%, N3 2%)" }, { "0-1", "98% (N3 2%)" }, { "0-3", "100%" },
    { "2", "0% (N0 52%, N1 46%, N3 2%)" },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *s = placer_numa_locality_format(&u, cases[i].mems);
    assert_non_null(s);
    assert_string_equal(s, cases[i].shown);
    free(s);
  }
  /* Summed over processes: the one-node one adds to node 0. */
  add_fixture("fixtures/proc/numa-maps/one-node", 4242, &u);
  assert_int_equal(u.n_processes, 2);
  assert_int_equal(u.node_bytes[0], 54140928 + 81072128);
  placer_numa_usage_clear(&u);
}

/* Rounding never claims all or nothing when it is not so. */
static void test_rounding(void **state) {
  (void)state;
  struct placer_numa_usage u = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_numa_maps_parse("7f0 default anon=1 N0=999 N1=1 kernelpagesize_kB=4\n", &u, &err), 0);
  char *s = placer_numa_locality_format(&u, "0");
  assert_string_equal(s, "99% (N1 <1%)");
  free(s);
  s = placer_numa_locality_format(&u, "1");
  assert_string_equal(s, "<1% (N0 99%)");
  free(s);
  placer_numa_usage_clear(&u);
}

static void test_nothing_resident(void **state) {
  (void)state;
  struct placer_numa_usage u = { 0 };
  struct placer_error *err = NULL;
  /* A mapping without pages, and no kernelpagesize_kB (older kernels: 4 KiB). */
  assert_int_equal(placer_numa_maps_parse("7f0 default file=/x\n7f1 default\n\n", &u, &err), 0);
  assert_int_equal(u.n_nodes, 0);
  struct placer_numa_locality l;
  assert_int_equal(placer_numa_locality(&u, "0", &l, &err), 0);
  assert_int_equal(l.resident_bytes, 0);
  assert_true(isnan(l.local_share));
  char *s = placer_numa_locality_format(&u, "0");
  assert_string_equal(s, "-");
  free(s);
  assert_int_equal(placer_numa_maps_parse("7f0 default anon=2 N2=2", &u, &err), 0);
  assert_int_equal(u.n_nodes, 3);
  assert_int_equal(u.node_bytes[2], 8192);
  placer_numa_usage_clear(&u);
}

static void test_malformed(void **state) {
  (void)state;
  static const char *const bad[] = {
    "7f0 default N0=12x kernelpagesize_kB=4\n",  "7f0 default N0= kernelpagesize_kB=4\n",
    "7f0 default N1024=1 kernelpagesize_kB=4\n", "7f0 default N0=1 kernelpagesize_kB=big\n",
    "7f0 default N0=1 kernelpagesize_kB=0\n",    "7f0 default N0=99999999999999999999999 kernelpagesize_kB=4\n",
  };
  struct placer_numa_usage u = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_numa_maps_parse("7f0 default N0=5 kernelpagesize_kB=4\n", &u, &err), 0);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    assert_int_equal(placer_numa_maps_parse(bad[i], &u, &err), -1);
    assert_non_null(err);
    assert_non_null(strstr(err->msg, "numa_maps line 1"));
    placer_error_free(err);
    err = NULL;
    /* unchanged */
    assert_int_equal(u.n_nodes, 1);
    assert_int_equal(u.node_bytes[0], 5 * 4096);
    assert_int_equal(u.n_processes, 1);
  }
  /* A bad node list is a usage error, not a crash. */
  struct placer_numa_locality l;
  assert_int_equal(placer_numa_locality(&u, "0-", &l, &err), -1);
  assert_non_null(strstr(err->msg, "bad node list"));
  placer_error_free(err);
  assert_null(placer_numa_locality_format(&u, "x"));
  placer_numa_usage_clear(&u);
}

/* Byte counts that would wrap around 2^64 are refused (found by
 * fuzz_numa_maps: the sum of two huge lines went down): pages x page size,
 * a node's sum, the sum over nodes, the usage already there included. */
static void test_too_large(void **state) {
  (void)state;
  static const struct {
    const char *text, *says;
  } cases[] = {
    { "7f0 default N0=18446744073709551 kernelpagesize_kB=4\n", "line 1: N0=18446744073709551 pages of 4 kB" },
    { "7f0 default N0=1 kernelpagesize_kB=18446744073709551\n", "pages of 18446744073709551 kB" },
    { "7f0 default N0=3333333333333350\n7f1 default N0=3333333333333350\n", "line 2: N0=3333333333333350" },
    { "7f0 default N0=2251799813685248 N1=2251799813685248\n", "line 1: N1=2251799813685248 pages of 4 kB" },
    { "7f0 default N3=4503599627370495\n", "line 1: N3=4503599627370495" }, /* with the 5 pages there */
  };
  struct placer_numa_usage u = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_numa_maps_parse("7f0 default N0=5 kernelpagesize_kB=4\n", &u, &err), 0);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    assert_int_equal(placer_numa_maps_parse(cases[i].text, &u, &err), -1);
    if (strstr(err->msg, cases[i].says) == NULL || strstr(err->msg, "more than 2^64 bytes in all") == NULL)
      fail_msg("case %zu: %s", i, err->msg);
    placer_error_free(err);
    err = NULL;
    assert_int_equal(u.n_nodes, 1);
    assert_int_equal(u.node_bytes[0], 5 * 4096);
    assert_int_equal(u.n_processes, 1);
  }
  /* just below: 2^64 - 4096 bytes in all is still a number */
  placer_numa_usage_clear(&u);
  assert_int_equal(placer_numa_maps_parse("7f0 default N0=4503599627370494 N1=1\n", &u, &err), 0);
  assert_true(placer_numa_usage_bytes(&u) == UINT64_C(4503599627370495) * 4096);
  struct placer_numa_locality l;
  assert_int_equal(placer_numa_locality(&u, "1", &l, &err), 0);
  assert_true(l.local_bytes == 4096 && l.local_share > 0 && l.local_share < 1e-15);
  placer_numa_usage_clear(&u);
}

static void test_gone(void **state) {
  (void)state;
  struct placer_numa_usage u = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_numa_usage_add_pid(test_data_path("fixtures/proc/numa-maps/one-node"), 999999, &u, &err), 1);
  assert_null(err);
  assert_int_equal(u.n_processes, 0);
}

/* libnuma on the machine the tests run on: at least one node, sizes known. */
static void test_host(void **state) {
  (void)state;
  struct placer_numa_host h;
  placer_numa_host_read(&h);
  assert_true(h.n_nodes >= 1);
  if (h.available) {
    assert_non_null(h.node_bytes);
    uint64_t sum = 0;
    for (int i = 0; i < h.n_nodes; i++)
      sum += h.node_bytes[i];
    assert_true(sum > 0);
  }
  placer_numa_host_clear(&h);
  placer_numa_host_clear(&h); /* safe twice */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_node),  cmocka_unit_test(test_two_nodes),
    cmocka_unit_test(test_rounding),  cmocka_unit_test(test_nothing_resident),
    cmocka_unit_test(test_malformed), cmocka_unit_test(test_too_large),
    cmocka_unit_test(test_gone),      cmocka_unit_test(test_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
