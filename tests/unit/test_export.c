/* placer export beyond the goldens: --map files, what each format refuses
 * (one line, nothing written), Crimson's CPU sets, the profile keys export
 * reads (proxmox_vmid, {N+index}, crimson), the KubeletConfiguration against
 * the upstream field names and types (tests/fixtures/export/), and --out. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "export/export.h"
#include "export_check.h"
#include "lib/cpulist.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "export_support.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static const char hci[] = "reserve: { cores_per_numa: 1, memory: 1GiB }\n"
                          "roles:\n"
                          "  - { name: osd, kind: ceph-osd, count: 2, cpu: { cores: 2 }, memory: 4GiB }\n"
                          "  - name: vm\n    kind: vm\n    count: 2\n    cpu: { cores: 1 }\n    memory: 1GiB\n";

static void test_map_file(void **state) {
  struct placer_export_map *m = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_export_map_parse("m", "# VMIDs\n vm.0 = 100\n\nvm.1=101\n", &m, &err), 0);
  assert_int_equal(m->n, 2);
  assert_string_equal(placer_export_map_get(m, "vm.0"), "100");
  assert_string_equal(placer_export_map_get(m, "vm.1"), "101");
  assert_null(placer_export_map_get(m, "vm.2"));
  assert_int_equal(m->entries[1].line, 4);
  placer_export_map_free(m);
  static const struct {
    const char *text, *says;
  } bad[] = {
    { "vm.0\n", "m:1: expected INSTANCE=VALUE, got 'vm.0'" },
    { "vm.0=1\n=2\n", "m:2: expected INSTANCE=VALUE, got '=2'" },
    { "vm.0=\n", "m:1: expected INSTANCE=VALUE" },
    { "vm.0=1\nvm.0=2\n", "m:2: 'vm.0' is mapped twice" },
    { "vm.0=a\tb\n", "m:1: a control character" },
  };
  for (size_t i = 0; i < N(bad); i++) {
    m = NULL;
    assert_int_equal(placer_export_map_parse("m", bad[i].text, &m, &err), -1);
    assert_null(m);
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    if (strstr(err->msg, bad[i].says) == NULL)
      fail_msg("'%s' does not say '%s'", err->msg, bad[i].says);
    placer_error_clear(&err);
  }
}

/* --map names VMIDs, domains, units and Ceph ids; an instance it names
 * must be in the plan. */
static void test_map_names(void **state) {
  struct loaded l, l2;
  load_text("crafted-hci-2s16c-8nvme.xml", hci, &l);
  struct placer_error *err = NULL;
  expect_refusal(&l, "proxmox", "vm.0 has no Proxmox VMID");
  expect_refusal(&l, "virsh", "vm.0 has no libvirt domain name");
  assert_int_equal(placer_export_map_parse("m", "vm.0=120\nvm.1=121\n", &l.map, &err), 0);
  char *text = rendered(&l, "proxmox");
  assert_non_null(strstr(text, "qm set 120 --affinity "));
  assert_non_null(strstr(text, "qm set 121 --affinity "));
  free(text);
  placer_export_map_free(l.map);
  l.map = NULL;

  assert_int_equal(placer_export_map_parse("m", "vm.0=99\nvm.1=121\n", &l.map, &err), 0);
  expect_refusal(&l, "proxmox", "vm.0: VMID '99' is not a number 100..999999999");
  placer_export_map_free(l.map);
  assert_int_equal(placer_export_map_parse("m", "vm.0=121\nvm.1=121\n", &l.map, &err), 0);
  expect_refusal(&l, "proxmox", "vm.0 and vm.1 both have VMID 121");
  placer_export_map_free(l.map);

  /* a domain name with a blank is quoted for the shell */
  assert_int_equal(placer_export_map_parse("m", "vm.0=guest one\nvm.1=it's\n", &l.map, &err), 0);
  text = rendered(&l, "virsh");
  assert_non_null(strstr(text, "pin_vcpus 'guest one' "));
  assert_non_null(strstr(text, "virsh numatune 'it'\\''s' --mode strict"));
  char why[256];
  assert_null(export_check_syntax(PLACER_EXPORT_SCRIPT, text, why, sizeof(why)));
  free(text);
  placer_export_map_free(l.map);
  /* --map names each instance in the system of the format at hand: here units */
  assert_int_equal(placer_export_map_parse("m", "osd.1=ceph-x@osd.1.service\n", &l.map, &err), 0);
  text = rendered(&l, "systemd");
  assert_non_null(strstr(text, "install as /etc/systemd/system/ceph-osd@0.service.d/50-placer.conf"));
  assert_non_null(strstr(text, "install as /etc/systemd/system/ceph-x@osd.1.service.d/50-placer.conf"));
  free(text);
  placer_export_map_free(l.map);

  assert_int_equal(placer_export_map_parse("m", "osd.0=x.scope\n", &l.map, &err), 0);
  expect_refusal(&l, "systemd", "osd.0: 'x.scope' is not a .service unit");
  placer_export_map_free(l.map);
  assert_int_equal(placer_export_map_parse("m", "osd.0=abc\n", &l.map, &err), 0);
  expect_refusal(&l, "ceph", "osd.0: 'abc' is not a Ceph OSD id: an OSD id is a number");
  placer_export_map_free(l.map);
  /* --map's MDS ids follow ceph-mds's rule, as the profile's do */
  load_text("crafted-hci-2s16c-8nvme.xml",
            "roles:\n  - { name: m, kind: ceph-mds, count: 2, cpu: { cores: 1 }, memory: 1GiB, match: { ceph_id: "
            "\"m{index}\" } "
            "}\n",
            &l2);
  for (const char *const *bad = (const char *const[]){ "m.0=1abc\n", "m.0=a;b\n", "m.0=a b\n", NULL }; *bad; bad++) {
    assert_int_equal(placer_export_map_parse("m", *bad, &l2.map, &err), 0);
    expect_refusal(&l2, "ceph", "m.0: '");
    expect_refusal(&l2, "ceph", "is not a Ceph MDS id");
    placer_export_map_free(l2.map);
    l2.map = NULL;
  }
  assert_int_equal(placer_export_map_parse("m", "m.0=b\n", &l2.map, &err), 0);
  text = rendered(&l2, "ceph");
  assert_non_null(strstr(text, "ceph config set mds.b "));
  assert_non_null(strstr(text, "ceph config set mds.m1 "));
  free(text);
  unload(&l2);
  assert_int_equal(placer_export_map_parse("m.txt", "vm.7=100\n", &l.map, &err), 0);
  expect_refusal(&l, "nova", "m.txt:1: no instance 'vm.7' in the plan");
  unload(&l);
}

/* Formats the profile cannot express: one line naming what is missing. */
static void test_refusals(void **state) {
  struct loaded l;
  /* VMs in a pool with the OSDs */
  load_text("crafted-hci-2s16c-8nvme.xml",
            "roles:\n  - { name: osd, kind: ceph-osd, count: 1, cpu: { threads: 2, pool: shared } }\n"
            "  - { name: vm, kind: vm, count: 1, cpu: { threads: 2, pool: shared, span_numa: true }, match: { "
            "qemu_name: v } }\n",
            &l);
  for (const char *const *f = (const char *const[]){ "libvirt", "virsh", "nova", "proxmox", NULL }; *f; f++)
    expect_refusal(&l, *f, "vm.0 shares CPUs 0-1 with osd.0: a VM manager cannot keep them apart");
  unload(&l);
  /* VMs on the host reserve cannot happen (the planner keeps it), pods
   * without any CPU can: every CPU held by something that is not a vm */
  load_text("24em64t-2n6c2t-pci.xml",
            "reserve: { cores: 1 }\nroles:\n  - { name: db, kind: generic, count: fill, cpu: { cores: 1 } }\n", &l);
  expect_refusal(&l, "kubelet",
                 "kubelet: pods would get no CPU: the host reserve and the roles that are not vm hold all 24");
  expect_refusal(&l, "libvirt", "has no vm instance");
  expect_refusal(&l, "ceph", "has no Ceph OSD or MDS instance");
  expect_refusal(&l, "tuned", "isolates no CPU");
  expect_refusal(&l, "systemd", "no instance runs in a known systemd service");
  unload(&l);
  /* two roles on the same Ceph daemons (found by fuzz_export) */
  load_text("24em64t-2n6c2t-pci.xml",
            "roles:\n  - { name: osd, kind: ceph-osd, cpu: { cores: 1 } }\n  - { name: b, kind: ceph-osd, cpu: { "
            "cores: 1 } }\n",
            &l);
  expect_refusal(&l, "ceph", "ceph: osd.0 and b.0 are both Ceph daemon osd.0");
  expect_refusal(&l, "systemd", "systemd: osd.0 and b.0 are both in ceph-osd@0.service");
  unload(&l);
  /* names from templates with a newline (found by fuzz_export); a Ceph id's is refused by the profile */
  load_text("24em64t-2n6c2t-pci.xml",
            "roles:\n  - { name: vm, kind: vm, cpu: { cores: 1 }, match: { qemu_name: \"a\\nb\" } }\n", &l);
  expect_refusal(&l, "virsh", "virsh: vm.0: libvirt domain name 'a\\nb' holds a control character");
  unload(&l);
  expect_profile_error(
      "roles:\n  - { name: m, kind: ceph-mds, cpu: { cores: 1 }, match: { ceph_id: \"a\\nb\" } }\n",
      "p.yaml:2:69: roles[0].match.ceph_id: 'a\\nb' gives MDS id 'a\\nb' for m.0: only letters, digits");
  /* interrupts with nowhere to go */
  load_text("24em64t-2n6c2t-pci.xml", "roles:\n  - { name: osd, kind: ceph-osd, count: fill, cpu: { cores: 1 } }\n",
            &l);
  expect_refusal(&l, "irqbalance", "interrupts would have no CPU");
  unload(&l);
}

/* Crimson: a reactor per whole core, BlueStore on the siblings; without
 * SMT the last third of the cores; never on one PU. */
static void test_crimson(void **state) {
  struct loaded l;
  const char *yaml = "roles:\n  - { name: osd, kind: ceph-osd, count: 1, cpu: { cores: 3 }, crimson: true }\n";
  load_text("crafted-hci-2s16c-8nvme.xml", yaml, &l); /* SMT-2: PUs n and n+1 share a core */
  char *text = rendered(&l, "ceph");
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_cpu_num 3\n"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_cpu_set 0,2,4\n"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_bluestore_cpu_set 1,3,5\n"));
  assert_non_null(strstr(text, "ceph config set osd.0 crimson_bluestore_num_threads 3\n"));
  free(text);
  unload(&l);
  load_text("mpibind-cts1-quartz-smt1.xml", yaml, &l); /* no SMT */
  text = rendered(&l, "ceph");
  assert_non_null(strstr(text, "crimson_cpu_num 2\n"));
  assert_non_null(strstr(text, "crimson_cpu_set 0-1\n"));
  assert_non_null(strstr(text, "crimson_bluestore_cpu_set 2\n"));
  free(text);
  unload(&l);
  load_text("mpibind-cts1-quartz-smt1.xml",
            "roles:\n  - { name: osd, kind: ceph-osd, count: 1, cpu: { threads: 1 }, crimson: true }\n", &l);
  expect_refusal(&l, "ceph",
                 "osd.0: a Crimson OSD needs at least 2 PUs (its reactors and BlueStore's threads apart), "
                 "the plan gives it 0");
  unload(&l);
}

/* osd_memory_target is 0.8 x the limit, never under Ceph's minimum of 896 MiB;
 * the MDS's cache is half its limit. */
static void test_ceph_memory(void **state) {
  struct loaded l;
  load_text("24em64t-2n6c2t-pci.xml",
            "roles:\n  - { name: osd, kind: ceph-osd, count: 2, cpu: { cores: 1 }, memory: 1GiB }\n"
            "  - { name: mds, kind: ceph-mds, cpu: { cores: 1 }, memory: 3GiB, match: { ceph_id: b } }\n",
            &l);
  l.plan->instances[1].memory_bytes = 2ULL << 30; /* osd.1: 2 GiB */
  char *msg = NULL;
  struct placer_export_output *out = render(&l, "ceph", &msg);
  assert_non_null(out);
  const char *text = out->units[0].text;
  assert_non_null(strstr(text, "# (osd_memory_target left as it is: 0.8 x the limit is 858993459, below Ceph's "
                               "minimum 939524096)\n"));
  assert_non_null(strstr(text, "ceph config set osd.1 osd_memory_target 1717986918\n"));
  assert_non_null(strstr(text, "ceph config set mds.b mds_cache_memory_limit 1610612736\n"));
  assert_int_equal(out->notes.n, 3); /* and two: no device, so no cephadm spec */
  assert_string_equal(
      out->notes.items[0],
      "osd.0: osd_memory_target not written: 0.8 x its memory limit is below Ceph's minimum of 896 MiB");
  placer_export_output_free(out);
  unload(&l);
}

static void test_profile_keys(void **state) {
  char *v = placer_match_expand("{100+index}", "vm.3", "vm", 3, NULL);
  assert_string_equal(v, "103");
  free(v);
  v = placer_match_expand("g{7+index}-{index}", "vm.3", "vm", 3, NULL);
  assert_string_equal(v, "g10-3");
  free(v);
  expect_profile_error("roles:\n  - { name: vm, kind: vm, count: 2, match: { proxmox_vmid: \"vm{index}\" } }\n",
                       "p.yaml:2:60: roles[0].match.proxmox_vmid: a Proxmox VMID is a number: digits, {index} or "
                       "{N+index} (\"{100+index}\"), got 'vm{index}'");
  expect_profile_error(
      "roles:\n  - { name: vm, kind: vm, count: 2, cpu: { threads: 1 }, match: { proxmox_vmid: \"100\" } }\n",
      "would find the same process for every instance");
  expect_profile_error("roles:\n  - { name: vm, kind: vm, count: 2, match: { qemu_name: \"{x+index}\" } }\n",
                       "unknown placeholder '{x+index}'");
  expect_profile_error("roles:\n  - { name: m, kind: ceph-mds, crimson: true }\n",
                       "p.yaml:2:32: roles[0].crimson: only a ceph-osd role can be a Crimson OSD");
  struct loaded l;
  load_text(
      "crafted-hci-2s16c-8nvme.xml",
      "roles:\n  - { name: vm, kind: vm, count: 2, cpu: { threads: 1 }, match: { proxmox_vmid: \"{100+index}\" } }\n",
      &l);
  assert_int_equal(l.plan->instances[1].match.kind, PLACER_MATCH_PROXMOX_VMID);
  assert_string_equal(l.plan->instances[1].match.value, "101");
  unload(&l);
}

/* Ceph daemon ids as the daemons take them, checked at the profile
 * (file:line:col, exit 2): an MDS id never starts with a digit (ceph-mds
 * exits: hci-nvme's MDS was '0'), every id in cephadm's characters, an OSD's
 * a number; a ceph-mds role without a match gets '{role}-{index}'. */
static void test_ceph_ids(void **state) {
  expect_profile_error(
      "roles:\n  - { name: m, kind: ceph-mds, cpu: { cores: 1 }, match: { ceph_id: \"{index}\" } }\n",
      "p.yaml:2:69: roles[0].match.ceph_id: '{index}' gives MDS id '0' for m.0: ceph-mds exits on an id "
      "that starts with a digit (\"MDS names may not start with a numeric digit\")");
  expect_profile_error("roles:\n  - { name: m, kind: ceph-mds, cpu: { cores: 1 }, match: { ceph_id: \"1abc\" } }\n",
                       "p.yaml:2:69: roles[0].match.ceph_id: '1abc' gives MDS id '1abc' for m.0: ceph-mds exits");
  expect_profile_error("roles:\n  - { name: m, kind: ceph-mds, cpu: { cores: 1 }, match: { ceph_id: \"a;b\" } }\n",
                       "roles[0].match.ceph_id: 'a;b' gives MDS id 'a;b' for m.0: only letters, digits, '_', '.' and "
                       "'-' (cephadm's ServiceSpec.validate)");
  expect_profile_error("roles:\n  - { name: 2m, kind: ceph-mds, cpu: { cores: 1 } }\n",
                       "p.yaml:2:13: roles[0].name: ceph-mds role '2m' has no match, so its ids are '{role}-{index}' "
                       "(2m-0): ceph-mds exits");
  expect_profile_error("roles:\n  - { name: o, kind: ceph-osd, count: 2, cpu: { cores: 1 }, match: { ceph_id: "
                       "\"osd{index}\" } }\n",
                       "roles[0].match.ceph_id: 'osd{index}' gives OSD id 'osd0' for o.0: an OSD id is a number");
  struct loaded l;
  load_text("crafted-hci-2s16c-8nvme.xml",
            "roles:\n  - { name: mds, kind: ceph-mds, count: 2, cpu: { cores: 1 } }\n"
            "  - { name: m, kind: ceph-mds, cpu: { cores: 1 }, match: { ceph_id: \"{role}{index}\" } }\n",
            &l);
  assert_string_equal(l.plan->instances[0].match.value, "mds-0");
  assert_string_equal(l.plan->instances[1].match.value, "mds-1");
  assert_string_equal(l.plan->instances[2].match.value, "m0");
  unload(&l);
  /* the shipped profile's MDS, as ceph-mds takes it */
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_load(test_data_path("../profiles/hci-nvme.yaml"), &p, &err), 0);
  const struct placer_role_spec *mds = placer_profile_role(p, "mds");
  assert_string_equal(mds->match_template, "a");
  assert_null(placer_ceph_id_problem(PLACER_KIND_CEPH_MDS, mds->match_template));
  placer_profile_free(p);
}

/* virsh (issue #36, finding 7): --live only where the domain runs (libvirt
 * refuses it on a shut-off one, and set -e stopped the script there), every
 * vCPU of the definition's maximum pinned (not only the planned count), the
 * emulator and the IOThreads with it; the script runs in
 * tests/integration/export_libvirt.sh on running and shut-off domains. */
static void test_virsh(void **state) {
  struct loaded l;
  load_file("crafted-hci-2s16c-8nvme.xml", "profiles/export-hci.yaml", &l);
  char *text = rendered(&l, "virsh");
  assert_non_null(strstr(text, "\npin_vcpus pinned-0 38 39\npin_threads pinned-0 0-1,32-33\n"));
  assert_non_null(strstr(text, "\npin_vcpus vm-0 10-31\npin_threads vm-0 10-31\n"));
  assert_non_null(strstr(text, "  max=$(virsh vcpucount \"$domain\" --maximum --config)\n"));
  assert_non_null(
      strstr(text, "  if live \"$domain\"; then online=$(virsh vcpucount \"$domain\" --active --live); fi\n"));
  assert_non_null(strstr(text, "    running | paused | idle | 'in shutdown') return 0 ;;\n"));
  assert_non_null(strstr(text, "virsh iothreadpin \"$1\" \"$id\" \"$2\" ${live:+\"$live\"} --config"));
  /* --live only inside placer's shell code, behind the domain's state */
  const char *code_end = strstr(text, PLACER_EXPORT_SH_CODE_END);
  assert_non_null(code_end);
  assert_null(strstr(code_end, "--live"));
  free(text);
  unload(&l);
}

/* proxmox (issue #36, finding 10): --numa 1 alone binds no host memory, so
 * one guest node holds every vCPU and the guest's memory bound to the plan's
 * nodes (numa0 ...,hostnodes=,policy=bind), the memory and vCPUs said so
 * that qemu-server's totals agree (the guest's memory without overhead); the
 * cold restart named; a role without memory binds nothing and says so. */
static void test_proxmox(void **state) {
  struct loaded l;
  load_text("crafted-hci-2s16c-8nvme.xml",
            "roles:\n  - { name: vm, kind: vm, count: 2, cpu: { threads: 40, pool: g, span_numa: true }, memory: 3GiB, "
            "memory_overhead: 256MiB, match: { proxmox_vmid: \"{200+index}\" } }\n"
            "  - { name: small, kind: vm, cpu: { cores: 1 }, match: { proxmox_vmid: \"300\" } }\n",
            &l);
  char *msg = NULL;
  struct placer_export_output *out = render(&l, "proxmox", &msg);
  const char *text = out->units[0].text;
  assert_non_null(strstr(text, "pending until the guest's next cold start (qm shutdown VMID, then qm start VMID"));
  assert_non_null(strstr(text, "qm set 200 --affinity 0-39 --sockets 1 --cores 40 --memory 3072 --numa 1 --numa0 "
                               "cpus=0-39,hostnodes=0-1,memory=3072,policy=bind\n"));
  assert_non_null(strstr(text, "# small.0 (role small): 2 vCPUs on CPUs "));
  assert_non_null(strstr(text, "; memory not bound: the plan gives role small no memory\n"));
  assert_int_equal(out->notes.n, 1);
  char why[256];
  assert_null(export_check_syntax(PLACER_EXPORT_SCRIPT, text, why, sizeof(why)));
  /* the check reads hostnodes: another node fails it */
  expect_check_reads(out, l.plan, "proxmox", 0, "hostnodes=0-1", "hostnodes=1-1");
  placer_export_output_free(out);
  unload(&l);
}

/* ---- the KubeletConfiguration against the upstream field names and types */

static bool looks_numeric(const char *s) {
  char *end;
  strtod(s, &end);
  return *s && *end == '\0';
}

static bool quantity(const char *s) {
  size_t digits = strspn(s, "0123456789");
  static const char *const suffixes[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "k", "M", "G", "T", "P", "E" };
  for (size_t i = 0; digits && i < N(suffixes); i++)
    if (strcmp(s + digits, suffixes[i]) == 0)
      return true;
  return false;
}

static void check_value(yaml_document_t *doc, yaml_node_t *node, const char *type, json_t *schema, const char *key);

static void check_mapping(yaml_document_t *doc, yaml_node_t *node, json_t *fields, json_t *schema) {
  assert_int_equal(node->type, YAML_MAPPING_NODE);
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    const char *key = (const char *)k->data.scalar.value;
    const char *type = json_string_value(json_object_get(fields, key));
    if (type == NULL)
      fail_msg("KubeletConfiguration has no field '%s' (upstream names are case-sensitive)", key);
    check_value(doc, yaml_document_get_node(doc, p->value), type, schema, key);
  }
}

static void check_value(yaml_document_t *doc, yaml_node_t *node, const char *type, json_t *schema, const char *key) {
  json_t *allowed = json_object_get(json_object_get(schema, "values"), key);
  if (strcmp(type, "bool") == 0) {
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        (strcmp((const char *)node->data.scalar.value, "true") &&
         strcmp((const char *)node->data.scalar.value, "false")))
      fail_msg("%s: not a plain true or false", key);
    return;
  }
  if (strcmp(type, "string") == 0 || strcmp(type, "int32") == 0) {
    if (node->type != YAML_SCALAR_NODE)
      fail_msg("%s: a %s, not a collection", key, type);
    const char *v = (const char *)node->data.scalar.value;
    bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (strcmp(type, "int32") == 0 && (!plain || !looks_numeric(v)))
      fail_msg("%s: '%s' is not an integer", key, v);
    /* a plain 5 or true would decode as a number or a bool, not a string */
    if (strcmp(type, "string") == 0 && plain && (looks_numeric(v) || !strcmp(v, "true") || !strcmp(v, "false")))
      fail_msg("%s: '%s' would not decode as a string", key, v);
    bool ok = allowed == NULL;
    for (size_t i = 0; i < json_array_size(allowed); i++)
      ok |= strcmp(json_string_value(json_array_get(allowed, i)), v) == 0;
    if (!ok)
      fail_msg("%s: '%s' is not one of the upstream values", key, v);
    return;
  }
  if (strncmp(type, "map[string]", 11) == 0) {
    assert_int_equal(node->type, YAML_MAPPING_NODE);
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(doc, p->key);
      yaml_node_t *v = yaml_document_get_node(doc, p->value);
      const char *name = (const char *)k->data.scalar.value;
      bool known = allowed == NULL;
      for (size_t i = 0; i < json_array_size(allowed); i++)
        known |= strcmp(json_string_value(json_array_get(allowed, i)), name) == 0;
      if (!known)
        fail_msg("%s: unknown key '%s'", key, name);
      if (strcmp(type + 11, "quantity") == 0) {
        if (!quantity((const char *)v->data.scalar.value))
          fail_msg("%s.%s: '%s' is not a quantity", key, name, v->data.scalar.value);
      } else {
        check_value(doc, v, type + 11, schema, name);
      }
    }
    return;
  }
  if (strncmp(type, "[]", 2) == 0) {
    assert_int_equal(node->type, YAML_SEQUENCE_NODE);
    json_t *fields = json_object_get(json_object_get(schema, "types"), type + 2);
    assert_non_null(fields);
    for (yaml_node_item_t *i = node->data.sequence.items.start; i < node->data.sequence.items.top; i++)
      check_mapping(doc, yaml_document_get_node(doc, *i), fields, schema);
    return;
  }
  fail_msg("%s: unknown type %s in the schema", key, type);
}

static void test_kubelet_schema(void **state) {
  json_error_t jerr;
  json_t *schema = json_load_file(test_data_path("fixtures/export/kubelet-config-v1beta1.json"), 0, &jerr);
  assert_non_null(schema);
  json_t *top = json_object_get(json_object_get(schema, "types"), "KubeletConfiguration");
  const char *fixtures[] = { "crafted-hci-2s16c-8nvme.xml", "mpibind-cts1-quartz-smt1.xml", "192em64t-24n8c2t.xml" };
  const char *profiles[] = { "../profiles/hci-nvme.yaml", "../profiles/demo-local.yaml", "profiles/export-hci.yaml",
                             "profiles/export-proxmox.yaml" };
  size_t checked = 0;
  for (size_t f = 0; f < N(fixtures); f++)
    for (size_t p = 0; p < N(profiles); p++) {
      struct loaded l = { 0 };
      struct placer_error *err = NULL;
      char rel[256];
      snprintf(rel, sizeof(rel), "fixtures/%s", fixtures[f]);
      assert_int_equal(placer_topology_load(test_data_path(rel), &l.topo, &err), 0);
      assert_int_equal(placer_profile_load(test_data_path(profiles[p]), &l.profile, &err), 0);
      if (placer_plan_compute(l.topo, l.profile, &l.plan, &err) < 0) {
        placer_error_free(err);
        unload(&l);
        continue;
      }
      /* the newest release, and 1.32 where the options are alpha (a feature gate) */
      l.target = checked % 2 ? "1.32" : NULL;
      char *text = rendered(&l, "kubelet");
      yaml_parser_t parser;
      yaml_document_t doc;
      yaml_parser_initialize(&parser);
      yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
      assert_true(yaml_parser_load(&parser, &doc));
      check_mapping(&doc, yaml_document_get_root_node(&doc), top, schema);
      /* the Memory Manager's rule: reservedMemory sums to systemReserved + the 100Mi eviction threshold */
      unsigned long long sys = 0, sum = 0;
      const char *s = strstr(text, "systemReserved:\n  memory: ");
      if (s)
        sys = strtoull(s + 26, NULL, 10);
      for (const char *m = strstr(text, "      memory: "); m; m = strstr(m + 1, "      memory: "))
        sum += strtoull(m + 14, NULL, 10);
      assert_int_equal(sum, sys + 100);
      yaml_document_delete(&doc);
      yaml_parser_delete(&parser);
      free(text);
      unload(&l);
      checked++;
    }
  assert_true(checked >= 8);
  json_decref(schema);
}

/* stdout: several units each after its own "==> NAME <==" line, apart by an
 * empty line (head(1)'s format): split there, each part is its unit and one
 * well-formed document (libvirt's XML was several documents back to back). */
static void test_stdout_units(void **state) {
  struct loaded l = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(placer_topology_load(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"), &l.topo, &err), 0);
  assert_int_equal(placer_profile_load(test_data_path("profiles/export-hci.yaml"), &l.profile, &err), 0);
  assert_int_equal(placer_plan_compute(l.topo, l.profile, &l.plan, &err), 0);
  char *msg = NULL;
  struct placer_export_output *out = render(&l, "libvirt", &msg);
  assert_non_null(out);
  assert_true(out->n_units >= 6);
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_int_equal(placer_export_print(out, f), 0);
  fclose(f);
  const char *p = text;
  for (size_t u = 0; u < out->n_units; u++) {
    char head[256];
    snprintf(head, sizeof(head), "%s==> %s <==\n", u ? "\n" : "", out->units[u].name);
    if (strncmp(p, head, strlen(head)) != 0)
      fail_msg("unit %zu: expected '%s' at '%.40s'", u, head, p);
    p += strlen(head);
    size_t len = strlen(out->units[u].text);
    assert_memory_equal(p, out->units[u].text, len);
    char *part = strndup(p, len), why[256];
    if (export_check_syntax(PLACER_EXPORT_XML, part, why, sizeof(why)))
      fail_msg("%s: %s", out->units[u].name, why);
    free(part);
    p += len;
  }
  assert_int_equal(*p, '\0');
  free(text);
  placer_export_output_free(out);
  /* one unit: its bytes alone, as --out writes it */
  out = render(&l, "nova", &msg);
  f = open_memstream(&text, &size);
  assert_int_equal(placer_export_print(out, f), 0);
  fclose(f);
  assert_string_equal(text, out->units[0].text);
  free(text);
  placer_export_output_free(out);
  unload(&l);
}

/* ---- the command line: --out */

static int run(const char *cmd) {
  int status = system(cmd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_cli_out(void **state) {
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  char dir[] = "/tmp/placer-test-export-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *tests = strdup(test_data_path(""));
  char cmd[8192];
  const char *common = "--topology fixtures/crafted-hci-2s16c-8nvme.xml ../profiles/hci-nvme.yaml";
  /* a missing directory, a file, and (as another user when root) one that cannot be written: one line, exit 2, no output */
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && out=$('%s' export --format systemd --out %s/missing %s 2>%s/err) ; rc=$?; [ $rc = 2 ] && [ -z "
           "\"$out\" ] && "
           "[ \"$(cat %s/err)\" = 'placer: --out %s/missing: No such file or directory' ]",
           tests, bin, dir, common, dir, dir, dir);
  assert_int_equal(run(cmd), 0);
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && : >%s/file && '%s' export --format systemd --out %s/file %s 2>%s/err; rc=$?; [ $rc = 2 ] && "
           "[ \"$(cat %s/err)\" = 'placer: --out %s/file: not a directory' ]",
           tests, dir, bin, dir, common, dir, dir, dir);
  assert_int_equal(run(cmd), 0);
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && mkdir %s/ro && chmod 0555 %s/ro && chmod 0755 %s && "
           "as=''; [ \"$(id -u)\" = 0 ] && as='setpriv --reuid=65534 --regid=65534 --clear-groups'; "
           "$as '%s' export --format nova --out %s/ro %s 2>%s/err; rc=$?; [ $rc = 2 ] && "
           "[ \"$(cat %s/err)\" = 'placer: --out %s/ro: cannot write into it: Permission denied' ] && "
           "[ -z \"$(ls %s/ro)\" ]",
           tests, dir, dir, dir, bin, dir, common, dir, dir, dir, dir);
  assert_int_equal(run(cmd), 0);
  /* one file per unit, the same bytes as stdout (units in plan order, each after "==> NAME <==" and apart by an
   * empty line, as head(1) prints files), the notes on stderr */
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && mkdir %s/out && '%s' export --format systemd --out %s/out %s 2>%s/err && "
           "[ $(ls %s/out | wc -l) = 9 ] && grep -q 'placer export: note: vm.0: no systemd service known' %s/err && "
           "'%s' export --format systemd %s 2>/dev/null >%s/all && "
           "for u in osd@0 osd@1 osd@2 osd@3 osd@4 osd@5 osd@6 osd@7 mds@a; do [ $u = osd@0 ] || echo; "
           "echo \"==> ceph-$u.service.d/50-placer.conf <==\"; "
           "cat %s/out/ceph-$u.service.d/50-placer.conf || exit 1; done | cmp - %s/all",
           tests, dir, bin, dir, common, dir, dir, dir, bin, common, dir, dir, dir);
  assert_int_equal(run(cmd), 0);
  snprintf(cmd, sizeof(cmd), "chmod -R u+w %s; rm -rf %s", dir, dir);
  assert_int_equal(run(cmd), 0);
  free(tests);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_map_file), cmocka_unit_test(test_map_names),    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_crimson),  cmocka_unit_test(test_ceph_memory),  cmocka_unit_test(test_profile_keys),
    cmocka_unit_test(test_ceph_ids), cmocka_unit_test(test_stdout_units), cmocka_unit_test(test_kubelet_schema),
    cmocka_unit_test(test_proxmox),  cmocka_unit_test(test_virsh),        cmocka_unit_test(test_cli_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
