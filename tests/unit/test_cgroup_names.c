/* The pure parts of the cgroup layer: names and paths, /proc/PID/cgroup
 * and mountinfo parsing, shares <-> weight.  No cgroup is touched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup-internal.h"
#include "test_support.h"

static void expect_sanitized(const char *in, const char *want) {
  struct placer_error *err = NULL;
  char *out = NULL;
  assert_int_equal(placer_cgroup_sanitize_name(in, &out, &err), 0);
  assert_null(err);
  assert_string_equal(out, want);
  assert_true(placer_cgroup_name_is_valid(out));
  free(out);
}

static void expect_refused(const char *in) {
  struct placer_error *err = NULL;
  char *out = NULL;
  assert_int_equal(placer_cgroup_sanitize_name(in, &out, &err), -1);
  assert_null(out);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
}

static void test_sanitize(void **state) {
  (void)state;
  expect_sanitized("osd.0", "osd.0");
  expect_sanitized("ceph-mon_a", "ceph-mon_a");
  expect_sanitized("my vm/1", "my_vm_1");
  expect_sanitized("../../etc", ".._.._etc");
  expect_sanitized("a:b*c\n", "a_b_c_");
  expect_sanitized("\xc3\xa9t\xc3\xa9", "__t__"); /* every byte of UTF-8 */
  expect_sanitized("...", "...");                 /* only "." and ".." are special */
  expect_refused("");
  expect_refused(".");
  expect_refused("..");
  expect_refused(NULL);
}

static void test_name_and_group_validity(void **state) {
  (void)state;
  assert_true(placer_cgroup_name_is_valid("osd.12"));
  assert_false(placer_cgroup_name_is_valid("osd 12"));
  assert_false(placer_cgroup_name_is_valid("a/b"));
  assert_false(placer_cgroup_name_is_valid(".."));

  assert_true(placer_cgroup_group_is_valid("placer"));
  assert_true(placer_cgroup_group_is_valid("placer/osd/osd.0"));
  assert_false(placer_cgroup_group_is_valid(""));
  assert_false(placer_cgroup_group_is_valid("/placer"));
  assert_false(placer_cgroup_group_is_valid("placer/"));
  assert_false(placer_cgroup_group_is_valid("placer//osd"));
  assert_false(placer_cgroup_group_is_valid("placer/../etc"));
  assert_false(placer_cgroup_group_is_valid("placer/./osd"));
  assert_false(placer_cgroup_group_is_valid("placer/os d"));
  assert_false(placer_cgroup_group_is_valid(NULL));
}

static void test_path_join(void **state) {
  (void)state;
  struct placer_error *err = NULL;
  char *out = NULL;
  assert_int_equal(placer_cgroup_path_join("placer/osd", "osd.0", &out, &err), 0);
  assert_string_equal(out, "placer/osd/osd.0");
  free(out);
  assert_int_equal(placer_cgroup_path_join("", "placer", &out, &err), 0);
  assert_string_equal(out, "placer");
  free(out);
  assert_int_equal(placer_cgroup_path_join(NULL, "placer", &out, &err), 0);
  assert_string_equal(out, "placer");
  free(out);
  assert_null(err);

  out = NULL;
  assert_int_equal(placer_cgroup_path_join("placer", "osd/osd.0", &out, &err), -1);
  assert_null(out);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "'osd/osd.0'"));
  assert_non_null(strstr(err->msg, "'/'"));
  placer_error_free(err);
  err = NULL;

  assert_int_equal(placer_cgroup_path_join("placer", "..", &out, &err), -1);
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_cgroup_path_join("placer", "a b", &out, &err), -1);
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_cgroup_path_join("../x", "osd", &out, &err), -1);
  placer_error_free(err);
}

static void expect_lookup(const char *content, const char *controller, const char *want) {
  char *path = NULL;
  if (want == NULL) {
    assert_int_equal(placer_cgroup_proc_lookup(content, controller, &path), -1);
    assert_null(path);
    return;
  }
  assert_int_equal(placer_cgroup_proc_lookup(content, controller, &path), 0);
  assert_string_equal(path, want);
  free(path);
}

static void test_proc_cgroup_lines(void **state) {
  (void)state;
  /* A hybrid host with cpu and cpuacct mounted together. */
  const char *v1 = "12:pids:/user.slice/user-0.slice\n"
                   "4:cpu,cpuacct:/placer/osd/osd.0\n"
                   "3:cpuset:/placer/osd\n"
                   "2:memory:/process_api/abb6\n"
                   "1:name=systemd:/init.scope\n"
                   "0::/\n";
  expect_lookup(v1, "cpuset", "/placer/osd");
  expect_lookup(v1, "cpu", "/placer/osd/osd.0");
  expect_lookup(v1, "cpuacct", "/placer/osd/osd.0");
  expect_lookup(v1, "memory", "/process_api/abb6");
  expect_lookup(v1, "blkio", NULL);
  expect_lookup(v1, "systemd", NULL); /* named hierarchies are not controllers */
  expect_lookup(v1, NULL, "/");

  /* "cpu" must not match "cpuset" or "cpuacct" on their own. */
  expect_lookup("5:cpuset:/a\n6:cpuacct:/b\n", "cpu", NULL);

  /* Pure v2; a path may hold ':' and the last line may lack '\n'. */
  expect_lookup("0::/placer/vm/vm.0\n", NULL, "/placer/vm/vm.0");
  expect_lookup("0::/a:b/c", NULL, "/a:b/c");
  expect_lookup("0::/placer\n", "cpuset", NULL);
  expect_lookup("", NULL, NULL);
  expect_lookup("garbage\n", NULL, NULL);
}

static const char *mountinfo_hybrid =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "50 23 0:31 / /mnt/other\\040place/cpuset rw - cgroup cgroup rw,cpuset\n";

static void expect_mount(const char *mountinfo, const char *root, const char *controller, const char *want_point,
                         const char *want_root) {
  char *point = NULL, *mroot = NULL;
  if (want_point == NULL) {
    assert_int_equal(cg_mountinfo_lookup(mountinfo, root, controller, &point, &mroot), -1);
    return;
  }
  assert_int_equal(cg_mountinfo_lookup(mountinfo, root, controller, &point, &mroot), 0);
  assert_string_equal(point, want_point);
  assert_string_equal(mroot, want_root);
  free(point);
  free(mroot);
}

static void test_mountinfo(void **state) {
  (void)state;
  expect_mount(mountinfo_hybrid, "/sys/fs/cgroup", "cpu", "/sys/fs/cgroup/cpu,cpuacct", "/");
  expect_mount(mountinfo_hybrid, "/sys/fs/cgroup", "cpuacct", "/sys/fs/cgroup/cpu,cpuacct", "/");
  expect_mount(mountinfo_hybrid, "/sys/fs/cgroup/", "cpuset", "/sys/fs/cgroup/cpuset", "/");
  expect_mount(mountinfo_hybrid, "/sys/fs/cgroup", "memory", "/sys/fs/cgroup/memory", "/docker/abc");
  expect_mount(mountinfo_hybrid, "/sys/fs/cgroup", "pids", NULL, NULL);
  /* The hybrid layout's cgroup2 lives below the root, not at it. */
  expect_mount(mountinfo_hybrid, "/sys/fs/cgroup", NULL, NULL, NULL);
  /* Another root (a test mount), with an escaped blank in its path. */
  expect_mount(mountinfo_hybrid, "/mnt/other place", "cpuset", "/mnt/other place/cpuset", "/");

  const char *v2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev - cgroup2 cgroup2 rw,nsdelegate\n";
  expect_mount(v2, "/sys/fs/cgroup", NULL, "/sys/fs/cgroup", "/");
  /* A delegated subtree as the root: its hierarchy path is below the mount. */
  expect_mount(v2, "/sys/fs/cgroup/placer.slice/", NULL, "/sys/fs/cgroup/placer.slice", "/placer.slice");
  expect_mount(v2, "/sys/fs/cgroupx", NULL, NULL, NULL);
  expect_mount(v2, "/sys/fs/cgroup", "cpuset", NULL, NULL);
}

/* Debian 12's hybrid layout: cpu and cpuacct are hierarchies of their own. */
static const char *mountinfo_apart = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
                                     "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
                                     "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
                                     "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
                                     "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
                                     "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* cpuset, memory and cpu only (a test root). */
static const char *mountinfo_no_cpuacct = "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
                                          "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
                                          "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n";

static struct placer_cgroup *fake_cgroup(enum placer_cgroup_mode mode, const char *root) {
  struct placer_cgroup *cg = calloc(1, sizeof(*cg));
  assert_non_null(cg);
  cg->mode = mode;
  cg->ops = mode == PLACER_CGROUP_V2 ? &placer_cgroup_ops_v2 : &placer_cgroup_ops_v1;
  cg->root = strdup(root);
  return cg;
}

static void expect_v1_hierarchies(const char *mountinfo, const char *cpuacct_point, bool cpuacct_shared) {
  struct placer_cgroup *cg = fake_cgroup(PLACER_CGROUP_V1, "/sys/fs/cgroup");
  struct placer_error *err = NULL;
  assert_int_equal(placer_cgroup_ops_v1.init(cg, mountinfo, &err), 0);
  assert_false(cg->hier[PLACER_CGROUP_CPUSET].shared);
  assert_false(cg->hier[PLACER_CGROUP_MEMORY].shared);
  assert_false(cg->hier[PLACER_CGROUP_CPU].shared);
  assert_string_equal(cg->hier[PLACER_CGROUP_CPUACCT].mount_point, cpuacct_point);
  assert_int_equal(cg->hier[PLACER_CGROUP_CPUACCT].shared, cpuacct_shared);
  assert_int_equal(cg->hier[PLACER_CGROUP_CPUACCT].same_as, cpuacct_shared ? PLACER_CGROUP_CPU : PLACER_CGROUP_CPUACCT);
  placer_cgroup_close(cg);
}

static void test_v1_cpuacct_hierarchy(void **state) {
  (void)state;
  /* Mounted together: one hierarchy, walked once, found under cpu's line. */
  expect_v1_hierarchies(mountinfo_hybrid, "/sys/fs/cgroup/cpu,cpuacct", true);
  /* Mounted apart: a hierarchy of its own that groups are made and entered in. */
  expect_v1_hierarchies(mountinfo_apart, "/sys/fs/cgroup/cpuacct", false);
  /* Not mounted: cpu's hierarchy stands in. */
  expect_v1_hierarchies(mountinfo_no_cpuacct, "/sys/fs/cgroup/cpu", true);
  assert_string_equal(placer_cgroup_controller_name(PLACER_CGROUP_CPUACCT), "cpuacct");

  /* v2: every controller is the unified group. */
  struct placer_cgroup *cg = fake_cgroup(PLACER_CGROUP_V2, "/sys/fs/cgroup");
  struct placer_error *err = NULL;
  const char *v2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev - cgroup2 cgroup2 rw,nsdelegate\n";
  assert_int_equal(placer_cgroup_ops_v2.init(cg, v2, &err), 0);
  assert_true(cg->hier[PLACER_CGROUP_CPUACCT].shared);
  assert_int_equal(cg->hier[PLACER_CGROUP_CPUACCT].same_as, 0);
  placer_cgroup_close(cg);
}

/* Point every controller of CG at DIR (fixture groups below it). */
static void fake_hierarchies(struct placer_cgroup *cg, const char *dir) {
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cg->hier[c].mount_point = strdup(dir);
    cg->hier[c].mount_root = strdup("/");
    cg->hier[c].shared = c > 0;
  }
}

static void test_read_cpu_usage(void **state) {
  (void)state;
  const char *dir = test_data_path("fixtures/cgroup-cpu");
  struct placer_error *err = NULL;
  uint64_t ns = 0;
  struct placer_cgroup *v1 = fake_cgroup(PLACER_CGROUP_V1, dir);
  fake_hierarchies(v1, dir);
  assert_int_equal(placer_cgroup_read_cpu_usage_ns(v1, "v1-cpuacct", &ns, &err), 0);
  assert_true(ns > 0);
  uint64_t merged = 0;
  /* cpu,cpuacct: cpuacct.usage, not v1's cpu.stat (throttling only). */
  assert_int_equal(placer_cgroup_read_cpu_usage_ns(v1, "v1-cpu-cpuacct", &merged, &err), 0);
  assert_true(merged > 0);
  assert_int_equal(placer_cgroup_read_cpu_usage_ns(v1, "v1-cpu-only", &ns, &err), -1);
  assert_non_null(strstr(err->msg, "cpuacct.usage"));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_cgroup_read_cpu_usage_ns(v1, "../v2", &ns, &err), -1);
  placer_error_free(err);
  err = NULL;
  placer_cgroup_close(v1);

  struct placer_cgroup *v2 = fake_cgroup(PLACER_CGROUP_V2, dir);
  fake_hierarchies(v2, dir);
  assert_int_equal(placer_cgroup_read_cpu_usage_ns(v2, "v2", &ns, &err), 0);
  assert_int_equal(ns, UINT64_C(797486247) * 1000);
  placer_cgroup_close(v2);
}

/* A separate cpuacct where a group was made without it (by hand, or by an
 * older placer): the group exists, does not account, and a process in it
 * everywhere else is in it. */
static void test_group_without_cpuacct(void **state) {
  (void)state;
  char tmp[] = "/tmp/placer-test-cpuacct.XXXXXX";
  assert_non_null(mkdtemp(tmp));
  static const char *const dirs[] = { "cpuset", "memory",   "cpu",      "cpuacct", "cpuset/g", "memory/g",
                                      "cpu/g",  "cpuset/h", "memory/h", "cpu/h",   "cpuacct/h" };
  char path[512];
  for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", tmp, dirs[i]);
    assert_int_equal(mkdir(path, 0755), 0);
  }
  struct placer_cgroup *cg = fake_cgroup(PLACER_CGROUP_V1, tmp);
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    snprintf(path, sizeof(path), "%s/%s", tmp, placer_cgroup_controller_name(c));
    cg->hier[c].mount_point = strdup(path);
    cg->hier[c].mount_root = strdup("/");
    cg->hier[c].same_as = c;
  }
  assert_true(placer_cgroup_exists(cg, "g"));
  assert_false(placer_cgroup_accounts(cg, "g"));
  assert_true(placer_cgroup_exists(cg, "h"));
  assert_true(placer_cgroup_accounts(cg, "h"));
  assert_false(placer_cgroup_exists(cg, "x"));

  struct placer_cgroup_membership m = { { strdup("g"), strdup("g"), strdup("g"), strdup("") } };
  assert_true(placer_cgroup_membership_is(cg, &m, "g"));
  free(m.path[3]);
  m.path[3] = strdup("h");
  free(m.path[0]);
  m.path[0] = strdup("h");
  assert_false(placer_cgroup_membership_is(cg, &m, "h")); /* memory and cpu are g */
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    free(m.path[c]);
    m.path[c] = strdup(c == PLACER_CGROUP_CPUACCT ? "" : "h");
  }
  assert_false(placer_cgroup_membership_is(cg, &m, "h")); /* h accounts: cpuacct counts */
  placer_cgroup_membership_clear(&m);

  /* cpuacct mounted with cpu: every group accounts. */
  cg->hier[PLACER_CGROUP_CPUACCT].shared = true;
  cg->hier[PLACER_CGROUP_CPUACCT].same_as = PLACER_CGROUP_CPU;
  assert_true(placer_cgroup_accounts(cg, "g"));
  placer_cgroup_close(cg);
  for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
    snprintf(path, sizeof(path), "%s/%s", tmp, dirs[i]);
    assert_int_equal(rmdir(path), 0);
  }
  assert_int_equal(rmdir(tmp), 0);
}

static void test_proc_path_translation(void **state) {
  (void)state;
  char *s;
  assert_string_equal(s = cg_path_from_proc("/", "/placer/osd"), "placer/osd");
  free(s);
  assert_string_equal(s = cg_path_from_proc("/", "/"), "");
  free(s);
  assert_string_equal(s = cg_path_from_proc("/docker/abc", "/docker/abc/placer"), "placer");
  free(s);
  assert_string_equal(s = cg_path_from_proc("/docker/abc", "/docker/abc"), "");
  free(s);
  assert_null(cg_path_from_proc("/docker/abc", "/docker/abcd"));
  assert_null(cg_path_from_proc("/docker/abc", "/other"));

  assert_string_equal(s = cg_path_to_proc("/", "placer/osd"), "/placer/osd");
  free(s);
  assert_string_equal(s = cg_path_to_proc("/", ""), "/");
  free(s);
  assert_string_equal(s = cg_path_to_proc("/docker/abc", "placer"), "/docker/abc/placer");
  free(s);
  assert_string_equal(s = cg_path_to_proc("/docker/abc/", NULL), "/docker/abc");
  free(s);
}

/* "QUOTA PERIOD" as v2 cpu.max holds it (and placer records v1's two
 * files), to millicores. */
static void test_cpu_max(void **state) {
  (void)state;
  uint64_t q = 0, p = 0;
  assert_int_equal(placer_cgroup_parse_cpu_max("150000 100000", &q, &p), 0);
  assert_true(q == 150000 && p == 100000);
  assert_int_equal(placer_cgroup_cpu_max_mcores(q, p), 1500);
  assert_int_equal(placer_cgroup_parse_cpu_max("max 100000", &q, &p), 0);
  assert_true(q == PLACER_CGROUP_UNLIMITED && p == 100000);
  assert_int_equal(placer_cgroup_cpu_max_mcores(q, p), 0);
  assert_int_equal(placer_cgroup_parse_cpu_max("-1 50000\n", &q, &p), 0);
  assert_true(q == PLACER_CGROUP_UNLIMITED && p == 50000);
  assert_int_equal(placer_cgroup_parse_cpu_max("20000 50000", &q, &p), 0);
  assert_int_equal(placer_cgroup_cpu_max_mcores(q, p), 400);
  assert_int_equal(placer_cgroup_cpu_max_mcores(33333, 100000), 333);
  assert_int_equal(placer_cgroup_cpu_max_mcores(1, 1000000), 1); /* a quota is never read as none */
  const char *bad[] = { "", "max", "150000", "150000 0", "0 100000", "x 100000", "1 2 3", "150000 100000 x" };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    if (placer_cgroup_parse_cpu_max(bad[i], &q, &p) == 0)
      fail_msg("'%s' accepted", bad[i]);
  assert_int_equal(placer_cgroup_parse_cpu_max(NULL, &q, &p), -1);
}

static void test_shares_weight(void **state) {
  (void)state;
  /* Linear: weight 100 is the default 1024 shares, and ratios stay ratios. */
  assert_int_equal(placer_cgroup_weight_to_shares(100), 1024);
  assert_int_equal(placer_cgroup_weight_to_shares(900), 9216);
  assert_int_equal(placer_cgroup_weight_to_shares(1), 10);
  assert_int_equal(placer_cgroup_weight_to_shares(50), 512);
  assert_int_equal(placer_cgroup_weight_to_shares(10000), 102400);
  assert_int_equal(placer_cgroup_shares_to_weight(1024), 100);
  assert_int_equal(placer_cgroup_shares_to_weight(512), 50);
  assert_int_equal(placer_cgroup_shares_to_weight(2048), 200);
  assert_int_equal(placer_cgroup_shares_to_weight(1000), 98);
  /* Every weight survives the trip through shares. */
  for (unsigned w = 1; w <= 10000; w++)
    assert_int_equal(placer_cgroup_shares_to_weight(placer_cgroup_weight_to_shares(w)), w);
  /* Out of range is clamped. */
  assert_int_equal(placer_cgroup_shares_to_weight(2), 1);
  assert_int_equal(placer_cgroup_shares_to_weight(0), 1);
  assert_int_equal(placer_cgroup_shares_to_weight(262144), 10000);
  assert_int_equal(placer_cgroup_shares_to_weight(1u << 20), 10000);
  assert_int_equal(placer_cgroup_weight_to_shares(0), 10);
  assert_int_equal(placer_cgroup_weight_to_shares(20000), 102400);
}

static void test_open_bad_root(void **state) {
  (void)state;
  struct placer_cgroup *cg = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_cgroup_open("/nonexistent/placer-cgroup", &cg, &err), -1);
  assert_null(cg);
  assert_non_null(strstr(err->msg, "/nonexistent/placer-cgroup"));
  assert_int_equal(err->errno_value, ENOENT);
  placer_error_free(err);
  err = NULL;

  /* The environment names the root when the argument does not. */
  setenv("PLACER_CGROUP_ROOT", "/nonexistent/from-env", 1);
  assert_int_equal(placer_cgroup_open(NULL, &cg, &err), -1);
  assert_non_null(strstr(err->msg, "/nonexistent/from-env"));
  placer_error_free(err);
  err = NULL;

  /* A directory without v1 mounts below it is not a cgroup root. */
  assert_int_equal(placer_cgroup_open("/proc/self", &cg, &err), -1);
  assert_non_null(strstr(err->msg, "no cgroup v1 'cpuset' hierarchy mounted under /proc/self"));
  placer_error_free(err);
  unsetenv("PLACER_CGROUP_ROOT");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sanitize),
    cmocka_unit_test(test_name_and_group_validity),
    cmocka_unit_test(test_path_join),
    cmocka_unit_test(test_proc_cgroup_lines),
    cmocka_unit_test(test_mountinfo),
    cmocka_unit_test(test_v1_cpuacct_hierarchy),
    cmocka_unit_test(test_read_cpu_usage),
    cmocka_unit_test(test_group_without_cpuacct),
    cmocka_unit_test(test_proc_path_translation),
    cmocka_unit_test(test_shares_weight),
    cmocka_unit_test(test_cpu_max),
    cmocka_unit_test(test_open_bad_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
