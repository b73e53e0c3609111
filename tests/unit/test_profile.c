/* The profile parser: the shipped profiles read as documented, defaults are
 * what docs/profiles.md says, and every kind of bad input is refused with
 * FILE:LINE:COL, the key's path and a message naming the problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static struct placer_profile *load_ok(const char *relative) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  int rc = placer_profile_load(test_data_path(relative), &profile, &err);
  if (rc < 0)
    fail_msg("%s: %s", relative, err ? err->msg : "?");
  assert_non_null(profile);
  return profile;
}

static struct placer_profile *parse_ok(const char *text) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("inline.yaml", text, strlen(text), &profile, &err) < 0)
    fail_msg("inline: %s", err ? err->msg : "?");
  return profile;
}

/* The message of a failing parse of text; caller frees. */
static char *parse_error(const char *text) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  int rc = placer_profile_parse("inline.yaml", text, strlen(text), &profile, &err);
  assert_int_equal(rc, -1);
  assert_null(profile);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  char *msg = strdup(err->msg);
  placer_error_free(err);
  return msg;
}

static void test_hci_nvme(void **state) {
  struct placer_profile *p = load_ok("../profiles/hci-nvme.yaml");
  assert_string_equal(p->name, "hci-nvme");
  assert_true(p->pin);
  assert_int_equal(p->reserve.cores_per_numa, 1);
  assert_int_equal(p->reserve.cores, 0);
  assert_int_equal(p->reserve.nics.n, 1);
  assert_string_equal(p->reserve.nics.items[0], "auto");
  assert_int_equal(p->reserve.nic_cores, 1);
  assert_true(p->reserve.memory_bytes == 4ull << 30);
  assert_int_equal(p->n_roles, 3);

  const struct placer_role_spec *osd = placer_profile_role(p, "osd");
  assert_non_null(osd);
  assert_int_equal(osd->kind, PLACER_KIND_CEPH_OSD);
  assert_int_equal(osd->count_mode, PLACER_COUNT_PER_DEVICE);
  assert_int_equal(osd->count, 1);
  assert_int_equal(osd->devices.n, 1);
  assert_string_equal(osd->devices.items[0], "nvme*");
  assert_int_equal(osd->cpu.threads, 6);
  assert_true(osd->cpu.whole_cores && osd->cpu.exclusive);
  assert_null(osd->cpu.pool);
  assert_true(osd->has_memory && osd->memory_bytes == 5ull << 30);
  assert_int_equal(osd->near, PLACER_NEAR_DEVICE);
  assert_int_equal(osd->policy, PLACER_POLICY_PREFERRED);
  assert_int_equal(osd->match_kind, PLACER_MATCH_CEPH_ID);
  assert_string_equal(osd->match_template, "{index}");

  const struct placer_role_spec *mds = placer_profile_role(p, "mds");
  assert_int_equal(mds->near, PLACER_NEAR_NIC);
  assert_string_equal(mds->nic, "auto");
  assert_int_equal(mds->cpu.cores, 1);
  assert_true(mds->cpu.whole_cores);

  const struct placer_role_spec *vm = placer_profile_role(p, "vm");
  assert_int_equal(vm->count_mode, PLACER_COUNT_FILL);
  assert_false(vm->cpu.exclusive);
  assert_string_equal(vm->cpu.pool, "vms");
  assert_false(vm->cpu.span_numa); /* the default for kind vm: one pool per NUMA node */
  assert_true(vm->memory_bytes == 4ull << 30 && vm->memory_overhead_bytes == 512ull << 20);
  assert_int_equal(vm->match_kind, PLACER_MATCH_QEMU_NAME);
  placer_profile_free(p);
}

static void test_other_shipped_profiles(void **state) {
  struct placer_profile *p = load_ok("../profiles/hci-hdd.yaml");
  assert_string_equal(placer_profile_role(p, "osd")->devices.items[0], "sd*");
  assert_int_equal(placer_profile_role(p, "osd")->cpu.cores, 1);
  placer_profile_free(p);

  p = load_ok("../profiles/demo-local.yaml");
  assert_int_equal(p->n_roles, 5);
  assert_int_equal(p->reserve.cores, 0);
  assert_string_equal(placer_profile_role(p, "osd")->cpu.pool, "ceph");
  assert_string_equal(placer_profile_role(p, "mon")->match_template, "a");
  assert_string_equal(placer_profile_role(p, "neighbour")->cpu.pool, "clients");
  assert_int_equal(placer_profile_role(p, "neighbour")->match_kind, PLACER_MATCH_CMDLINE);
  placer_profile_free(p);

  /* unpinned: the same roles and memory as demo-local, nothing pinned */
  struct placer_profile *demo = load_ok("../profiles/demo-local.yaml");
  p = load_ok("../profiles/unpinned.yaml");
  assert_false(p->pin);
  assert_int_equal(p->n_roles, demo->n_roles);
  assert_true(p->reserve.memory_bytes == demo->reserve.memory_bytes);
  for (size_t i = 0; i < p->n_roles; i++) {
    assert_string_equal(p->roles[i].name, demo->roles[i].name);
    assert_int_equal(p->roles[i].kind, demo->roles[i].kind);
    assert_int_equal(p->roles[i].count, demo->roles[i].count);
    assert_true(p->roles[i].memory_bytes == demo->roles[i].memory_bytes);
    assert_string_equal(p->roles[i].match_template, demo->roles[i].match_template);
  }
  placer_profile_free(p);
  placer_profile_free(demo);
}

static void test_defaults(void **state) {
  struct placer_profile *p = parse_ok("roles:\n"
                                      "  - name: osd\n"
                                      "    kind: ceph-osd\n"
                                      "    cpu: { threads: 2 }\n"
                                      "  - name: load\n"
                                      "    kind: generic\n"
                                      "    cpu: { cores: 1, exclusive: false }\n");
  assert_string_equal(p->name, "inline"); /* from the file name */
  assert_null(p->description);
  assert_true(p->pin);
  const struct placer_role_spec *osd = &p->roles[0];
  assert_int_equal(osd->count_mode, PLACER_COUNT_FIXED);
  assert_int_equal(osd->count, 1);
  assert_int_equal(osd->first_index, 0);
  assert_true(osd->cpu.exclusive);
  assert_false(osd->cpu.whole_cores);
  assert_false(osd->has_memory);
  assert_int_equal(osd->near, PLACER_NEAR_NONE);
  assert_int_equal(osd->policy, PLACER_POLICY_PREFERRED);
  assert_int_equal(osd->mems, PLACER_MEMS_LOCAL);
  /* ceph kinds are found by --id INDEX unless match says otherwise */
  assert_int_equal(osd->match_kind, PLACER_MATCH_CEPH_ID);
  assert_string_equal(osd->match_template, "{index}");
  const struct placer_role_spec *load = &p->roles[1];
  assert_false(load->cpu.exclusive);
  assert_string_equal(load->cpu.pool, "load"); /* a shared role's pool is its own */
  assert_int_equal(load->match_kind, PLACER_MATCH_NONE);
  assert_null(load->match_template);
  /* alignment follows the topology (cache where a node holds several L3s) */
  assert_int_equal(osd->cpu.align, PLACER_ALIGN_AUTO);
  assert_int_equal(osd->cpu.spread, PLACER_SPREAD_NONE);
  placer_profile_free(p);
}

/* cpu.quota in cores, kept in thousandths; an unpinned profile's cpu may
 * give only a quota or a weight. */
static void test_quota(void **state) {
  (void)state;
  static const struct {
    const char *text;
    unsigned mcores;
  } ok[] = { { "1.5", 1500 }, { "0.5", 500 }, { "2", 2000 }, { "0.01", 10 }, { "0.125", 125 }, { "65536", 65536000 } };
  for (size_t i = 0; i < N(ok); i++) {
    char text[256];
    snprintf(text, sizeof(text), "roles:\n  - { name: osd, kind: ceph-osd, cpu: { threads: 1, quota: %s } }\n",
             ok[i].text);
    struct placer_profile *p = parse_ok(text);
    assert_int_equal(p->roles[0].cpu.quota, ok[i].mcores);
    placer_profile_free(p);
  }
  static const char *const bad[] = { "0", "0.001", "-1", "1.", "abc", "1.5c", "65536.5", "\"\"" };
  for (size_t i = 0; i < N(bad); i++) {
    char text[256];
    snprintf(text, sizeof(text), "roles:\n  - { name: osd, kind: ceph-osd, cpu: { threads: 1, quota: %s } }\n", bad[i]);
    char *msg = parse_error(text);
    if (strstr(msg, "roles[0].cpu.quota: expected cores as a number") == NULL)
      fail_msg("quota %s: %s", bad[i], msg);
    free(msg);
  }
  struct placer_profile *p = parse_ok("pin: false\nroles:\n  - { name: osd, kind: ceph-osd, cpu: { quota: 0.75 } }\n");
  assert_int_equal(p->roles[0].cpu.quota, 750);
  assert_false(p->roles[0].has_cpu);
  placer_profile_free(p);
  char *msg = parse_error("roles:\n  - { name: osd, kind: ceph-osd, cpu: { quota: 0.75 } }\n");
  assert_non_null(strstr(msg, "give 'cores' (whole cores) or 'threads'"));
  free(msg);
}

/* ROLE.KEY=VALUE on a loaded profile: what bench's sweeps and --set do. */
static void test_profile_set(void **state) {
  (void)state;
  struct placer_profile *p = parse_ok("roles:\n"
                                      "  - { name: osd, kind: ceph-osd, cpu: { threads: 1, pool: ceph } }\n"
                                      "  - { name: fio, kind: fio, cpu: { threads: 1, weight: 300 } }\n");
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_set(p, "osd.cpu.quota=0.75", &err), 0);
  assert_int_equal(p->roles[0].cpu.quota, 750);
  assert_int_equal(placer_profile_set(p, "osd.cpu.quota=none", &err), 0);
  assert_int_equal(p->roles[0].cpu.quota, 0);
  assert_int_equal(placer_profile_set(p, "osd.cpu.cores=2", &err), 0);
  assert_int_equal(p->roles[0].cpu.cores, 2);
  assert_int_equal(p->roles[0].cpu.threads, 0);
  assert_true(p->roles[0].cpu.whole_cores);
  assert_int_equal(placer_profile_set(p, "fio.cpu.weight=none", &err), 0);
  assert_int_equal(p->roles[1].cpu.weight, 0);
  assert_int_equal(placer_profile_set(p, "fio.cpu.pool=clients", &err), 0);
  assert_string_equal(p->roles[1].cpu.pool, "clients");
  assert_false(p->roles[1].cpu.exclusive);
  assert_int_equal(placer_profile_set(p, "osd.cpu.align=numa", &err), 0);
  assert_int_equal(p->roles[0].cpu.align, PLACER_ALIGN_NUMA);
  p->roles[1].cpu.spread = PLACER_SPREAD_NUMA;
  assert_int_equal(placer_profile_set(p, "osd.count=8", &err), 0); /* the default study sized to a node */
  assert_int_equal(p->roles[0].count, 8);
  assert_int_equal(p->roles[0].count_mode, PLACER_COUNT_FIXED);
  static const struct {
    const char *set, *says;
  } bad[] = {
    { "osd.cpu.quota", "expected ROLE.KEY=VALUE" },
    { "nosuch.cpu.quota=1", "has no role 'nosuch'" },
    { "osd.cpu.quota=0.0001", "expected cores 0.01..65536" },
    { "osd.cpu.weight=0", "expected a weight 1..10000" },
    { "osd.cpu.cores=x", "expected a count" },
    { "osd.cpu.pool=a b", "not a valid pool name" },
    { "osd.memory=1GiB", "unknown key 'memory'" },
    { "osd.cpu.align=l3", "expected auto, cache, numa or none" },
    { "fio.cpu.align=none", "role 'fio' spreads over NUMA nodes (spread: numa), which needs alignment" },
    { "osd.count=0", "expected a count 1..4096" },
  };
  for (size_t i = 0; i < N(bad); i++) {
    err = NULL;
    assert_int_equal(placer_profile_set(p, bad[i].set, &err), -1);
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    if (strstr(err->msg, bad[i].says) == NULL)
      fail_msg("%s: %s", bad[i].set, err->msg);
    placer_error_free(err);
  }
  placer_profile_free(p);
  p = parse_ok("roles:\n  - { name: vm, kind: vm, count: fill, cpu: { threads: 2 } }\n");
  err = NULL;
  assert_int_equal(placer_profile_set(p, "vm.count=3", &err), -1);
  assert_non_null(strstr(err->msg, "role 'vm' has no fixed count"));
  placer_error_free(err);
  placer_profile_free(p);
}

static void test_forms(void **state) {
  struct placer_profile *p = parse_ok("version: 1\n"
                                      "reserve: { cores: 10%, nics: [\"eth*\"], memory_per_numa: 1.5GiB }\n"
                                      "roles:\n"
                                      "  - name: mds\n"
                                      "    kind: ceph-mds\n"
                                      "    per_numa: 2\n"
                                      "    first_index: 10\n"
                                      "    cpu: { threads: 3, whole_cores: true, weight: 200 }\n"
                                      "    memory: 512MiB\n"
                                      "    mems: all\n"
                                      "    locality: { policy: strict }\n"
                                      "    match: { pidfile: \"/run/ceph/{name}.pid\" }\n"
                                      "  - name: vm\n"
                                      "    kind: vm\n"
                                      "    count: fill\n"
                                      "    max_count: 4\n"
                                      "    cpu: { threads: 2, pool: guests, pin_vcpus: true }\n"
                                      "    locality: { near: numa, numa: 1 }\n"
                                      "  - name: osd\n"
                                      "    kind: ceph-osd\n"
                                      "    per_device: 2\n"
                                      "    devices: [\"nvme*\", \"sd?\"]\n"
                                      "    cpu: { cores: 1, align: cache }\n"
                                      "    match: { container: \"ceph-osd-{device}-{index}\" }\n"
                                      "  - name: big\n"
                                      "    kind: generic\n"
                                      "    cpu: { cores: 40, spread: numa, align: numa }\n"
                                      "  - name: packed\n"
                                      "    kind: generic\n"
                                      "    cpu: { threads: 2, align: none }\n");
  assert_true(p->reserve.cores_is_percent);
  assert_int_equal(p->reserve.cores, 10);
  assert_int_equal(p->reserve.nic_cores, 1); /* nics alone: one core per NIC */
  assert_true(p->reserve.memory_per_numa_bytes == 3ull << 29);
  const struct placer_role_spec *mds = &p->roles[0];
  assert_int_equal(mds->count_mode, PLACER_COUNT_PER_NUMA);
  assert_int_equal(mds->count, 2);
  assert_int_equal(mds->first_index, 10);
  assert_int_equal(mds->near, PLACER_NEAR_NUMA); /* implied by per_numa */
  assert_int_equal(mds->policy, PLACER_POLICY_STRICT);
  assert_int_equal(mds->mems, PLACER_MEMS_ALL);
  assert_int_equal(mds->cpu.weight, 200);
  assert_int_equal(mds->match_kind, PLACER_MATCH_PIDFILE);
  const struct placer_role_spec *vm = &p->roles[1];
  assert_int_equal(vm->count_mode, PLACER_COUNT_FILL);
  assert_int_equal(vm->max_count, 4);
  assert_true(vm->cpu.pin_vcpus);
  assert_int_equal(vm->near, PLACER_NEAR_NUMA);
  assert_int_equal(vm->numa, 1);
  const struct placer_role_spec *osd = &p->roles[2];
  assert_int_equal(osd->near, PLACER_NEAR_DEVICE); /* implied by per_device */
  assert_int_equal(osd->devices.n, 2);
  assert_int_equal(osd->cpu.align, PLACER_ALIGN_CACHE);
  assert_int_equal(p->roles[3].cpu.spread, PLACER_SPREAD_NUMA);
  assert_int_equal(p->roles[3].cpu.align, PLACER_ALIGN_NUMA);
  assert_int_equal(p->roles[4].cpu.align, PLACER_ALIGN_NONE);
  placer_profile_free(p);
}

static void test_match_expand(void **state) {
  char *s = placer_match_expand("ceph-osd-{index}", "osd.3", "osd", 3, NULL);
  assert_string_equal(s, "ceph-osd-3");
  free(s);
  s = placer_match_expand("{role}/{name}@{device}:{index}{", "vm.12", "vm", 12, "nvme1n1");
  assert_string_equal(s, "vm/vm.12@nvme1n1:12{");
  free(s);
}

/* Bad files under tests/profiles: where the error points and what it says. */
static const struct {
  const char *file;
  unsigned line, col;
  const char *says;
} bad_files[] = {
  { "bad-unknown-key.yaml", 4, 5, "roles[0].cpus: unknown key 'cpus' in role (expected one of: name, kind," },
  { "bad-unknown-top-key.yaml", 2, 1, "role: unknown key 'role' in profile" },
  { "bad-count-type.yaml", 4, 12, "roles[0].count: expected a positive integer or 'fill', got 'three'" },
  { "bad-count-negative.yaml", 4, 12, "roles[0].count: must not be negative, got '-2'" },
  { "bad-count-zero.yaml", 4, 17, "roles[0].per_device: must be at least 1, got 0" },
  { "bad-count-quoted.yaml", 4, 12, "roles[0].count: expected an integer, not a quoted string" },
  { "bad-size-unit.yaml", 5, 13, "roles[0].memory: bad size '6 gigs': unknown unit" },
  { "bad-size-zero.yaml", 5, 13, "roles[0].memory: must be more than 0, got '0GiB'" },
  { "bad-size-negative.yaml", 2, 11, "reserve.memory: bad size '-4GiB': must not be negative" },
  { "bad-syntax.yaml", 5, 9,
    "YAML syntax: did not find expected ',' or '}' while parsing a flow mapping (started at "
    "line 4, column 10)" },
  { "bad-kind.yaml", 3, 11,
    "roles[0].kind: expected one of ceph-osd, ceph-mds, ceph-mon, ceph-mgr, vm, fio, generic, "
    "got 'ceph-rgw'" },
  { "bad-bool.yaml", 6, 20, "roles[0].cpu.whole_cores: expected true or false, got 'yes'" },
  { "bad-duplicate-key.yaml", 6, 5, "roles[0].memory: duplicate key 'memory' (first given at line 5)" },
  { "bad-cores-and-threads.yaml", 6, 7, "roles[0].cpu.threads: conflicts with 'cores'" },
  { "bad-missing-cpu.yaml", 2, 5, "roles[0]: role 'osd': missing key 'cpu'" },
  { "bad-missing-kind.yaml", 2, 5, "roles[0]: role 'osd': missing key 'kind'" },
  { "bad-near-nic-without-nic.yaml", 6, 13, "roles[0].locality.near: 'nic' needs the key 'nic'" },
  { "bad-devices-without-per-device.yaml", 5, 5, "roles[0].devices: only goes with per_device" },
  { "bad-match-two-ways.yaml", 7, 18,
    "roles[0].match.container: give one way to find the process, not both 'ceph_id' "
    "and 'container'" },
  { "bad-placeholder.yaml", 7, 18, "roles[0].match.container: unknown placeholder '{idx}'" },
  { "bad-match-same-process.yaml", 7, 16,
    "roles[0].match.cmdline: 'stress-ng*' would find the same process for every "
    "instance" },
  { "bad-pool-unit.yaml", 7, 28,
    "roles[1].cpu: pool 'ceph' is sized in threads by role 'mon'; role 'osd' must use "
    "the same unit" },
  { "bad-weight.yaml", 6, 15, "roles[0].cpu.weight: '20000' is too large (at most 10000)" },
  { "bad-quota.yaml", 6, 14,
    "roles[0].cpu.quota: expected cores as a number 0.01..65536 with at most 3 decimals (1.5), got '1.2345'" },
  { "bad-duplicate-role.yaml", 5, 11, "roles[1].name: duplicate role name 'osd' (first at line 2)" },
  { "bad-reserve-both.yaml", 3, 3, "reserve.cores_per_numa: conflicts with 'cores'" },
  { "bad-reserve-percent.yaml", 2, 10, "reserve.cores: expected a whole number of cores or a percentage" },
  { "bad-version.yaml", 1, 10, "version: unsupported profile version 2 (this placer reads version 1)" },
  { "bad-devices-string.yaml", 5, 14, "roles[0].devices: expected a list of strings" },
  { "bad-roles-mapping.yaml", 2, 3, "roles: expected a list of roles" },
  { "bad-name.yaml", 2, 11, "roles[0].name: 'osd 0' is not a valid name" },
  { "bad-empty.yaml", 1, 1, "empty profile" },
  { "bad-two-documents.yaml", 6, 1, "only one YAML document is allowed in a profile" },
  { "bad-fill-max-count.yaml", 5, 5, "roles[0].max_count: only goes with count: fill" },
  { "bad-missing-roles.yaml", 1, 1, "missing key 'roles'" },
  { "bad-cpu-scalar.yaml", 4, 10, "roles[0].cpu: expected a mapping (cpu), got a scalar" },
  { "bad-alias.yaml", 8, 10, "YAML aliases (*osdcpu) are not supported" },
  { "bad-billion-laughs.yaml", 4, 8, "YAML aliases (*a) are not supported" },
  { "bad-recursive-alias.yaml", 5, 13, "YAML aliases (*roles) are not supported" },
  { "bad-deep.yaml", 4, 39, "nested deeper than 32 levels" },
  { "bad-align-value.yaml", 6, 14, "roles[0].cpu.align: expected one of auto, cache, numa, none, got 'l3'" },
  { "bad-align-unpinned.yaml", 5, 24,
    "roles[0].cpu.align: only applies when the profile pins (pin: false places nothing)" },
  { "bad-spread-align-none.yaml", 7, 7,
    "roles[0].cpu.spread: 'numa' splits an instance evenly over NUMA nodes; 'align: none' asks for no alignment at "
    "all (give one of them)" },
  { "bad-spread-per-numa.yaml", 5, 22, "roles[0].cpu.spread: a per_numa role keeps each instance on its own node" },
  { "bad-spread-fill-pool.yaml", 5, 35,
    "roles[0].cpu.spread: a count: fill pool takes everything left; it has no instance size to spread" },
  { "bad-spread-strict.yaml", 6, 23,
    "roles[0].cpu.spread: 'numa' spreads an instance that one node cannot hold over several; 'policy: strict' keeps "
    "it on its asked node(s) (give one of them)" },
};

static void test_bad_files(void **state) {
  for (size_t i = 0; i < N(bad_files); i++) {
    char relative[256], path[4096], expected[4400];
    snprintf(relative, sizeof(relative), "profiles/%s", bad_files[i].file);
    snprintf(path, sizeof(path), "%s", test_data_path(relative));
    struct placer_profile *profile = NULL;
    struct placer_error *err = NULL;
    int rc = placer_profile_load(path, &profile, &err);
    if (rc != -1 || err == NULL)
      fail_msg("%s: accepted", bad_files[i].file);
    assert_null(profile);
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    snprintf(expected, sizeof(expected), "%s:%u:%u: %s", path, bad_files[i].line, bad_files[i].col, bad_files[i].says);
    if (strncmp(err->msg, expected, strlen(expected)) != 0)
      fail_msg("%s:\n  got      %s\n  expected %s...", bad_files[i].file, err->msg, expected);
    placer_error_free(err);
  }
}

/* Input over the loader's limits, too big to keep as files: one line, at
 * the position where the limit was crossed. */
static void expect_one_line(const char *text, size_t len, const char *expected) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_parse("big.yaml", text, len, &profile, &err), -1);
  assert_null(profile);
  assert_non_null(err);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strcmp(err->msg, expected) != 0)
    fail_msg("got      %s\nexpected %s", err->msg, expected);
  assert_null(strchr(err->msg, '\n'));
  placer_error_free(err);
}

static void test_limits(void **state) {
  /* 1 MiB + 1 of comment */
  size_t len = ((size_t)1 << 20) + 1;
  char *text = malloc(len + 1);
  assert_non_null(text);
  memset(text, ' ', len);
  text[0] = '#';
  text[len] = '\0';
  expect_one_line(text, len, "big.yaml:1:1: larger than 1 MiB");
  /* 100001 scalars in one flow list, well under 1 MiB */
  size_t n = 0;
  n += (size_t)sprintf(text + n, "roles: [");
  for (unsigned i = 0; i < 100000; i++)
    n += (size_t)sprintf(text + n, "0,");
  n += (size_t)sprintf(text + n, "0]\n");
  expect_one_line(text, n, "big.yaml:1:200003: more than 100000 YAML nodes");
  /* 200000 levels of nesting stop at the 33rd */
  n = 0;
  for (unsigned i = 0; i < 200000; i++)
    text[n++] = '[';
  for (unsigned i = 0; i < 200000; i++)
    text[n++] = ']';
  expect_one_line(text, n, "big.yaml:1:33: nested deeper than 32 levels");
  free(text);
}

/* Every bad-*.yaml under tests/profiles is in the table above. */
static void test_bad_files_all_listed(void **state) {
  char cmd[4200];
  snprintf(cmd, sizeof(cmd), "ls %s", test_data_path("profiles"));
  FILE *ls = popen(cmd, "r");
  assert_non_null(ls);
  char line[512];
  size_t seen = 0;
  while (fgets(line, sizeof(line), ls)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "bad-", 4) != 0)
      continue;
    bool listed = false;
    for (size_t i = 0; i < N(bad_files); i++)
      listed |= strcmp(bad_files[i].file, line) == 0;
    if (!listed)
      fail_msg("tests/profiles/%s has no expectation in test_profile.c", line);
    seen++;
  }
  pclose(ls);
  assert_int_equal(seen, N(bad_files));
}

static void test_bad_inline(void **state) {
  static const struct {
    const char *text;
    const char *says;
  } cases[] = {
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    locality: { nic: \"eth*\", near: numa, numa: 0 "
      "}\n",
      "inline.yaml:5:17: roles[0].locality.nic: only goes with near: nic" },
    { "roles:\n  - name: a\n    kind: vm\n    count: fill\n    pin_vcpus: true\n",
      "inline.yaml:5:5: roles[0].pin_vcpus: unknown key 'pin_vcpus' in role" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { threads: 1, pin_vcpus: true }\n",
      "inline.yaml:4:24: roles[0].cpu.pin_vcpus: only applies to roles of kind vm" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { cores: 1, whole_cores: true }\n",
      "inline.yaml:4:22: roles[0].cpu.whole_cores: only goes with 'threads'" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { cores: 1, exclusive: true, pool: p }\n",
      "inline.yaml:4:39: roles[0].cpu.pool: a pool is shared" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { cores: 1 }\n    memory_overhead: 1GiB\n",
      "inline.yaml:5:5: roles[0].memory_overhead: needs 'memory'" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { cores: 1 }\n    locality: { near: device }\n",
      "inline.yaml:5:23: roles[0].locality.near: 'device' needs per_device" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { cores: 1 }\n    locality: { near: numa }\n",
      "inline.yaml:5:23: roles[0].locality.near: 'numa' needs the key 'numa'" },
    { "roles:\n  - name: a\n    kind: fio\n    per_numa: 1\n    cpu: { cores: 1 }\n    locality: { near: spread }\n",
      "inline.yaml:6:23: roles[0].locality.near: a per_numa role is placed on each node" },
    { "roles:\n  - name: a\n    kind: fio\n    count: 2\n    cpu: { cores: 1 }\n    match: { cmdline: \"fio {device}\" "
      "}\n",
      "inline.yaml:6:23: roles[0].match.cmdline: {device} only has a value in a per_device role" },
    { "roles:\n  - name: a\n    kind: fio\n    cpu: { cores: 1 }\n    locality: { policy: maybe }\n",
      "inline.yaml:5:25: roles[0].locality.policy: expected one of preferred, strict, got 'maybe'" },
    { "pin: false\nroles:\n  - name: a\n    kind: vm\n    count: fill\n",
      "inline.yaml:5:12: roles[0].count: 'fill' needs 'cpu' or 'memory'" },
    { "roles:\n  - name: a\n    kind: vm\n    count: fill\n    cpu: { threads: 1, pool: p }\n  - name: b\n"
      "    kind: vm\n    cpu: { threads: 1, pool: p }\n",
      "inline.yaml:8:30: roles[1].cpu: pool 'p' mixes 'count: fill' (role 'a') with a fixed count (role 'b')" },
    { "reserve: { nic_cores: 2 }\nroles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n",
      "inline.yaml:1:12: reserve.nic_cores: needs 'nics'" },
    { "reserve: { memory: 1GiB, memory_per_numa: 1GiB }\nroles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n",
      "inline.yaml:1:26: reserve.memory_per_numa: conflicts with 'memory'" },
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    count: 1\n    per_numa: 1\n",
      "inline.yaml:6:5: roles[0].per_numa: conflicts with 'count'" },
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 99999999999 }\n",
      "inline.yaml:4:21: roles[0].cpu.threads: '99999999999' is too large" },
    /* #35: one cap on a role's count, as --set has it (count: 100000 never finished planning) */
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    count: 100000\n",
      "inline.yaml:5:12: roles[0].count: '100000' is too large (at most 4096)" },
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    per_numa: 4097\n",
      "inline.yaml:5:15: roles[0].per_numa: '4097' is too large (at most 4096)" },
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    count: fill\n    max_count: 5000\n",
      "inline.yaml:6:16: roles[0].max_count: '5000' is too large (at most 4096)" },
    { "roles:\n  - kind: vm\n    cpu: { threads: 1 }\n", "inline.yaml:2:5: roles[0]: missing key 'name'" },
    { "roles:\n  - name: a\n    kind: [vm]\n", "inline.yaml:3:11: roles[0].kind: expected one of" },
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    memory:\n",
      "inline.yaml:5:12: roles[0].memory: expected a size such as 6GiB, got nothing" },
    { "[1, 2]\n", "inline.yaml:1:1: expected a mapping (profile), got a list" },
    { "roles:\n  - name: a\n    kind: vm\n    cpu: { threads: 1 }\n    ? [x]\n    : 1\n",
      "inline.yaml:5:7: roles[0]: a key must be a plain string, got a list" },
  };
  for (size_t i = 0; i < N(cases); i++) {
    char *msg = parse_error(cases[i].text);
    if (strncmp(msg, cases[i].says, strlen(cases[i].says)) != 0)
      fail_msg("case %zu:\n  got      %s\n  expected %s...", i, msg, cases[i].says);
    free(msg);
  }
}

static void test_missing_file(void **state) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_load("/nonexistent/profile.yaml", &profile, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_string_equal(err->msg, "profile '/nonexistent/profile.yaml': No such file or directory");
  placer_error_free(err);
}

/* The command line: bad profiles exit 2 with one line and nothing on stdout. */
static void test_cli_bad_profile(void **state) {
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  char cmd[8192];
  char *xml = strdup(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"));
  char *bad = strdup(test_data_path("profiles/bad-count-negative.yaml"));
  snprintf(cmd, sizeof(cmd),
           "%s plan --topology %s %s >/tmp/placer-test-profile.$$.out 2>/tmp/placer-test-profile.$$.err;"
           " rc=$?; out=$(wc -c </tmp/placer-test-profile.$$.out); err=$(wc -l </tmp/placer-test-profile.$$.err);"
           " grep -q 'bad-count-negative.yaml:4:12: roles\\[0\\].count: must not be negative' "
           "/tmp/placer-test-profile.$$.err;"
           " found=$?; rm -f /tmp/placer-test-profile.$$.out /tmp/placer-test-profile.$$.err;"
           " [ $rc = 2 ] && [ $out = 0 ] && [ $err = 1 ] && [ $found = 0 ]",
           bin, xml, bad);
  free(xml);
  free(bad);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof(cmd),
           "out=$(%s plan --frobnicate x.yaml 2>&1 >/dev/null); rc=$?;"
           " [ $rc = 2 ] && [ \"$out\" = \"placer plan: unknown option '--frobnicate' (see 'placer plan --help')\" ]",
           bin);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof(cmd), "out=$(%s plan 2>&1 >/dev/null); [ $? = 2 ] && [ -n \"$out\" ]", bin);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hci_nvme),        cmocka_unit_test(test_other_shipped_profiles),
    cmocka_unit_test(test_defaults),        cmocka_unit_test(test_forms),
    cmocka_unit_test(test_match_expand),    cmocka_unit_test(test_bad_files),
    cmocka_unit_test(test_limits),          cmocka_unit_test(test_bad_files_all_listed),
    cmocka_unit_test(test_bad_inline),      cmocka_unit_test(test_missing_file),
    cmocka_unit_test(test_quota),           cmocka_unit_test(test_profile_set),
    cmocka_unit_test(test_cli_bad_profile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
