/* The property every format keeps, on every fixture topology with every
 * profile that fits it: no CPU handed to VMs or pods overlaps an OSD's, the
 * MDS's or the host's.  Read back from the text each format writes
 * (export_check.c), with each unit well-formed in its syntax; a plan whose
 * VMs share CPUs with Ceph is refused by every format that hands CPUs to
 * VMs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export_check.h"
#include "lib/cpulist.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static const char *const profile_files[] = {
  "../profiles/demo-local.yaml", "../profiles/hci-hdd.yaml", "../profiles/hci-nvme.yaml",
  "../profiles/unpinned.yaml",   "profiles/export-hci.yaml", "profiles/export-proxmox.yaml",
};

/* More shapes than the files: guests spanning nodes, guests beside fio in
 * one pool, whole-core guests with pinned vCPUs and no reserve, and guests
 * in a pool with the OSDs (which every VM format must refuse). */
static const char *const inline_profiles[] = {
  "name: span\nreserve: { cores: 2, memory: 1GiB }\nroles:\n"
  "  - { name: osd, kind: ceph-osd, count: 2, cpu: { threads: 3 }, memory: 2GiB }\n"
  "  - { name: mds, kind: ceph-mds, count: 1, cpu: { cores: 1 } }\n"
  "  - { name: vm, kind: vm, count: fill, max_count: 6, cpu: { threads: 4, pool: vms, span_numa: true }, "
  "match: { qemu_name: \"g{index}\" } }\n",
  "name: mixed\nreserve: { cores_per_numa: 1 }\nroles:\n"
  "  - { name: osd, kind: ceph-osd, per_numa: 1, cpu: { threads: 2, whole_cores: true }, memory: 3GiB }\n"
  "  - { name: fio, kind: fio, count: 1, cpu: { threads: 2, pool: clients, span_numa: false } }\n"
  "  - { name: vm, kind: vm, count: 2, cpu: { threads: 2, pool: clients }, match: { proxmox_vmid: \"{200+index}\" } "
  "}\n",
  "name: pinned\nroles:\n"
  "  - { name: osd, kind: ceph-osd, count: 1, cpu: { cores: 2 }, crimson: true }\n"
  "  - { name: vm, kind: vm, count: 3, cpu: { cores: 1, pin_vcpus: true }, match: { qemu_name: \"p-{index}\" } }\n",
  "name: together\nreserve: { cores: 1 }\nroles:\n"
  "  - { name: osd, kind: ceph-osd, count: 1, cpu: { threads: 2, pool: all, span_numa: true } }\n"
  "  - { name: vm, kind: vm, count: 1, cpu: { threads: 2, pool: all, span_numa: true }, match: { qemu_name: v } }\n",
};

/* Do the plan's VMs share a CPU with Ceph or the host? */
static bool vms_with_ceph(const struct placer_plan *plan) {
  hwloc_bitmap_t kept = hwloc_bitmap_alloc();
  export_check_kept(plan, kept);
  bool shared = false;
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_VM && hwloc_bitmap_intersects(plan->instances[i].cpus, kept))
      shared = true;
  hwloc_bitmap_free(kept);
  return shared;
}

struct counts {
  size_t rendered, refused, guest_nonempty;
};

/* Every format on one plan. */
static void check_plan(const char *what, const struct placer_topology *topo, const struct placer_profile *profile,
                       const struct placer_plan *plan, struct counts *c) {
  /* systemd needs units for the guests to say anything about them */
  char *map_text = NULL;
  size_t size = 0;
  FILE *mf = open_memstream(&map_text, &size);
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_VM)
      fprintf(mf, "%s=guest-%s.service\n", plan->instances[i].name, plan->instances[i].name);
  fclose(mf);
  struct placer_export_map *map = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_export_map_parse("units", map_text, &map, &err), 0);
  bool refuse_vms = vms_with_ceph(plan);
  hwloc_bitmap_t guest = hwloc_bitmap_alloc();
  for (size_t f = 0; f < placer_export_n_formats; f++) {
    const struct placer_export_format *fmt = placer_export_formats[f];
    struct placer_export_input in = { .plan = plan, .profile = profile, .topo = topo };
    if (strcmp(fmt->name, "systemd") == 0)
      in.map = map;
    struct placer_export_output *out = NULL;
    if (placer_export_render(fmt, &in, &out, &err) < 0) {
      assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
      assert_null(strchr(err->msg, '\n'));
      placer_error_clear(&err);
      c->refused++;
      continue;
    }
    if (refuse_vms && (fmt->needs & PLACER_EXPORT_GIVES_VM_CPUS))
      fail_msg("%s: %s hands out VMs that share CPUs with Ceph or the host", what, fmt->name);
    char why[1024];
    for (size_t u = 0; u < out->n_units; u++)
      if (export_check_syntax(out->units[u].syntax, out->units[u].text, why, sizeof(why)))
        fail_msg("%s: %s: %s: %s", what, fmt->name, out->units[u].name, why);
    if (export_check_output(fmt->name, out, plan, guest, why, sizeof(why)))
      fail_msg("%s: %s: %s", what, fmt->name, why);
    c->guest_nonempty += !hwloc_bitmap_iszero(guest);
    c->rendered++;
    placer_export_output_free(out);
  }
  hwloc_bitmap_free(guest);
  placer_export_map_free(map);
  free(map_text);
}

static void test_no_guest_on_ceph_or_host(void **state) {
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  struct counts c = { 0 };
  size_t plans = 0, together = 0;
  for (size_t fx = 0; fx < n_fixtures; fx++) {
    char rel[256];
    snprintf(rel, sizeof(rel), "fixtures/%s", fixtures[fx]);
    struct placer_topology *topo = NULL;
    struct placer_error *err = NULL;
    assert_int_equal(placer_topology_load(test_data_path(rel), &topo, &err), 0);
    for (size_t p = 0; p < N(profile_files) + N(inline_profiles); p++) {
      struct placer_profile *profile = NULL;
      int rc = p < N(profile_files)
                   ? placer_profile_load(test_data_path(profile_files[p]), &profile, &err)
                   : placer_profile_parse("inline.yaml", inline_profiles[p - N(profile_files)],
                                          strlen(inline_profiles[p - N(profile_files)]), &profile, &err);
      if (rc < 0)
        fail_msg("%s", err->msg);
      struct placer_plan *plan = NULL;
      if (placer_plan_compute(topo, profile, &plan, &err) == 0) {
        char what[512];
        snprintf(what, sizeof(what), "%s on %s", profile->name, fixtures[fx]);
        together += vms_with_ceph(plan);
        check_plan(what, topo, profile, plan, &c);
        placer_plan_free(plan);
        plans++;
      } else {
        placer_error_clear(&err);
      }
      placer_profile_free(profile);
    }
    placer_topology_free(topo);
  }
  /* the property was tested, not skipped */
  assert_true(plans >= 60);
  assert_true(together >= 8);
  assert_true(c.rendered >= 300);
  assert_true(c.guest_nonempty >= 200);
}

/* The check itself catches a format that hands Ceph's CPUs to guests: a
 * nova.conf whose cpu_shared_set names an OSD's CPU fails it. */
static void test_check_catches_overlap(void **state) {
  struct placer_topology *topo = NULL;
  struct placer_profile *profile = NULL;
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_topology_load(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"), &topo, &err), 0);
  assert_int_equal(placer_profile_load(test_data_path("../profiles/hci-nvme.yaml"), &profile, &err), 0);
  assert_int_equal(placer_plan_compute(topo, profile, &plan, &err), 0);
  struct placer_export_unit unit = { "nova.conf", "[compute]\ncpu_shared_set = 6,58-63\n", PLACER_EXPORT_INI };
  struct placer_export_output out = { .units = &unit, .n_units = 1 };
  hwloc_bitmap_t guest = hwloc_bitmap_alloc();
  char why[512];
  const char *bad = export_check_output("nova", &out, plan, guest, why, sizeof(why));
  assert_non_null(bad);
  assert_string_equal(bad, "nova hands CPUs 6 of Ceph or the host to VMs or pods");
  unit.text = "[compute]\ncpu_shared_set = 58-63\n";
  assert_null(export_check_output("nova", &out, plan, guest, why, sizeof(why)));
  unit.text = "# Generated\nreservedSystemCPUs: \"0-5\"\n";
  assert_non_null(export_check_output("kubelet", &out, plan, guest, why, sizeof(why)));
  hwloc_bitmap_free(guest);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* The syntax checks can fail: broken outputs are caught. */
static void test_syntax_checks_fail(void **state) {
  char why[256];
  assert_non_null(export_check_syntax(PLACER_EXPORT_XML, "<domain><vcpu></domain>", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_XML, "<!-- a -- b --><domain/>", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_XML, "<a/><b/>", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_XML, "<a x=1/>", why, sizeof(why)));
  assert_null(export_check_syntax(PLACER_EXPORT_XML, "<!-- c --><a x='1'><b/>2</a>\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_INI, "[compute\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_INI, "just words\n", why, sizeof(why)));
  assert_null(export_check_syntax(PLACER_EXPORT_INI, "# c\n[s]\nk = v\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_YAML, "a: [\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_YAML, "- a\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_SCRIPT, "virsh vcpupin a;b 0 1\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_SCRIPT, "virsh vcpupin 'a 0 1\n", why, sizeof(why)));
  assert_non_null(export_check_syntax(PLACER_EXPORT_SHELL, "X = 1\n", why, sizeof(why)));
  assert_null(export_check_syntax(PLACER_EXPORT_SHELL, "# c\nX_1=0-3\n", why, sizeof(why)));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_no_guest_on_ceph_or_host),
    cmocka_unit_test(test_check_catches_overlap),
    cmocka_unit_test(test_syntax_checks_fail),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
