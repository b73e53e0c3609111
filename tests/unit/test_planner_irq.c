/* The planner's IRQ part (planner-irq.c): the irqs: keys of a profile turned into rules
 * on a topology, and into this node's IRQs with where each goes, on the tree captured
 * from this project's VM (tests/fixtures/irq/hostvm: its hwloc XML and its sysfs/proc);
 * the bad inputs with their one line and exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

/* This project's VM: one NUMA node, vda and eth0 on virtio. */
static struct placer_topology *hostvm(void) {
  return test_topo_captured("hostvm");
}

static void hostvm_done(struct placer_topology *topo) {
  test_topo_captured_done(topo);
}

static struct placer_topology *xml(const char *fixture) {
  char relative[256];
  snprintf(relative, sizeof(relative), "fixtures/%s", fixture);
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path(relative), &topo, &err) < 0)
    fail_msg("%s: %s", fixture, err->msg);
  return topo;
}

static struct placer_profile *profile(const char *text) {
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("p.yaml", text, strlen(text), &p, &err) < 0)
    fail_msg("profile: %s", err->msg);
  return p;
}

static struct placer_plan *plan_ok(const struct placer_topology *topo, const char *text) {
  struct placer_profile *p = profile(text);
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  if (placer_plan_compute(topo, p, &plan, &err) < 0)
    fail_msg("plan: %s", err->msg);
  placer_profile_free(p);
  return plan;
}

/* The plan fails with EXIT and exactly MESSAGE. */
static void plan_fails(const struct placer_topology *topo, const char *text, int exit_code, const char *message) {
  struct placer_profile *p = profile(text);
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_plan_compute(topo, p, &plan, &err), -1);
  assert_null(plan);
  assert_string_equal(err->msg, message);
  assert_int_equal(err->exit_code, exit_code);
  placer_error_free(err);
  placer_profile_free(p);
}

static void profile_fails(const char *text, const char *message) {
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_parse("p.yaml", text, strlen(text), &p, &err), -1);
  assert_string_equal(err->msg, message);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
}

static const struct placer_plan_irq *irq_of(const struct placer_plan *plan, unsigned irq) {
  for (size_t i = 0; i < plan->n_irqs; i++)
    if (plan->irqs[i].irq == irq)
      return &plan->irqs[i];
  fail_msg("IRQ %u is not in the plan", irq);
  return NULL;
}

#define ONE_ROLE "roles:\n  - name: a\n    kind: generic\n    cpu: { threads: 1 }\n"

/* vda to the host's reserve (CPU 0): its config IRQ goes there, its request queue is
 * managed (read-only smp_affinity_list) and reported on CPU 1; the virtio-rng function
 * named by its PCI address goes to a cpu list. */
static void vm_devices(void **state) {
  (void)state;
  struct placer_topology *topo = hostvm();
  struct placer_plan *plan = plan_ok(topo, "reserve: { cores: 1 }\n"
                                           "irqs:\n"
                                           "  - { device: vda, to: reserve }\n"
                                           "  - { device: \"0000:00:05.0\", to: \"1\" }\n" ONE_ROLE);
  assert_true(plan->irqs_known);
  assert_int_equal(plan->n_irq_rules, 2);
  assert_int_equal(plan->n_irqs, 4);
  const struct placer_plan_irq *config = irq_of(plan, 35), *req = irq_of(plan, 36), *rng = irq_of(plan, 34);
  assert_string_equal(config->name, "virtio1-config");
  assert_string_equal(config->to, "0");
  assert_string_equal(config->from, "0-1");
  assert_false(config->managed);
  assert_true(req->managed);
  assert_null(req->to);
  assert_string_equal(req->effective, "1");
  assert_string_equal(rng->device, "0000:00:05.0");
  assert_string_equal(rng->to, "1");
  assert_null(rng->instance);

  /* printed: one row per IRQ, the managed one with where it completes */
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, "irqs: 3 steered, 1 managed by the kernel"));
  assert_non_null(strstr(text, "   35  virtio1-config  vda           -    0-1   0\n"));
  assert_non_null(strstr(text, "   36  virtio1-req.0   vda           -    0-1   managed: completes on cpu 1\n"));
  free(text);
  json_t *j = placer_plan_to_json(plan);
  assert_int_equal(json_array_size(json_object_get(j, "irqs")), 4);
  assert_true(json_is_true(json_object_get(json_array_get(json_object_get(j, "irqs"), 1), "managed")));
  json_decref(j);
  placer_plan_free(plan);
  hostvm_done(topo);
}

/* A NIC's IRQs one per CPU of the target, round robin in IRQ order; the role's own
 * device (near: nic) with "own"; its managed queues reported against its cpus. */
static void nic_spread_and_own(void **state) {
  (void)state;
  struct placer_topology *topo = hostvm();
  struct placer_plan *plan = plan_ok(topo, "irqs:\n  - { device: eth0, to: \"0-1\" }\n"
                                           "roles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n"
                                           "    devices: [vda]\n    cpu: { threads: 1 }\n    irqs: own\n");
  assert_string_equal(irq_of(plan, 37)->to, "0");
  assert_string_equal(irq_of(plan, 38)->to, "1");
  assert_string_equal(irq_of(plan, 39)->to, "0");
  const struct placer_plan_irq *config = irq_of(plan, 35), *req = irq_of(plan, 36);
  assert_string_equal(config->instance, "osd.0");
  assert_string_equal(req->instance, "osd.0");
  const struct placer_instance *osd = placer_plan_find(plan, "osd.0");
  char *cpus = placer_cpulist_format(osd->cpus);
  assert_string_equal(config->to, cpus);
  /* the managed queue completes on CPU 1: its own when the OSD got CPU 1 */
  assert_int_equal(req->on_own_cpus, strcmp(cpus, "1") == 0);
  size_t own, managed;
  placer_plan_irq_own_share(plan, "osd.0", &own, &managed);
  assert_int_equal(managed, 1);
  assert_int_equal(own, req->on_own_cpus);
  free(cpus);
  placer_plan_free(plan);
  hostvm_done(topo);
}

/* reserve.nics cores: a NIC's to its own, nic_cores for another device to all of them. */
static void nic_cores_target(void **state) {
  (void)state;
  struct placer_topology *topo = xml("crafted-hci-2s16c-8nvme.xml");
  struct placer_plan *plan = plan_ok(topo, "reserve: { cores_per_numa: 1, nics: [ens1f1], nic_cores: 1 }\n"
                                           "irqs:\n  - { device: ens1f1, to: nic_cores }\n"
                                           "  - { device: nvme5n1, to: reserve }\n"
                                           "  - { device: nvme6n1, to: none }\n" ONE_ROLE);
  assert_false(plan->irqs_known);
  assert_int_equal(plan->n_irqs, 0);
  assert_int_equal(plan->n_nic_cores, 1);
  assert_string_equal(plan->nic_cores[0].nic, "ens1f1");
  char *nic = placer_cpulist_format(plan->nic_cores[0].cpus);
  char *rule0 = placer_cpulist_format(plan->irq_rules[0].cpus);
  char *rule1 = placer_cpulist_format(plan->irq_rules[1].cpus);
  assert_string_equal(rule0, nic);
  assert_true(plan->irq_rules[0].spread);
  /* nvme5n1 is on NUMA node 1: the host's reserved core there (PUs 32-33) */
  assert_string_equal(rule1, "32-33");
  assert_false(plan->irq_rules[1].spread);
  assert_int_equal(plan->irq_rules[2].target, PLACER_IRQ_TO_NONE);
  assert_true(hwloc_bitmap_iszero(plan->irq_rules[2].cpus));
  free(nic);
  free(rule0);
  free(rule1);
  placer_plan_free(plan);

  /* device: auto: every NIC reserve.nics gave cores to, each to its own */
  plan = plan_ok(topo, "reserve: { cores_per_numa: 1, nics: [auto], nic_cores: 1 }\n"
                       "irqs:\n  - { device: auto, to: nic_cores }\n" ONE_ROLE);
  assert_int_equal(plan->n_irq_rules, 2);
  assert_int_equal(plan->n_nic_cores, 2);
  for (size_t i = 0; i < 2; i++) {
    assert_string_equal(plan->irq_rules[i].device, plan->nic_cores[i].nic);
    assert_true(hwloc_bitmap_isequal(plan->irq_rules[i].cpus, plan->nic_cores[i].cpus));
  }
  placer_plan_free(plan);
  plan_fails(topo, "irqs:\n  - { device: auto, to: reserve }\n" ONE_ROLE, PLACER_EXIT_INFEASIBLE,
             "p.yaml:2:15: irqs[0].device: auto stands for the NICs reserve.nics gives cores to, and it gives none "
             "here");
  placer_topology_free(topo);
}

static void bad_input(void **state) {
  (void)state;
  struct placer_topology *topo = hostvm();
  plan_fails(topo, "irqs:\n  - device: nvme9n1\n    to: reserve\n" ONE_ROLE, PLACER_EXIT_USAGE,
             "p.yaml:2:13: irqs[0].device: no block device, NIC or PCI device 'nvme9n1' (here: vda, eth0)");
  plan_fails(topo, "irqs:\n  - device: vda\n    to: \"1-3\"\n" ONE_ROLE, PLACER_EXIT_USAGE,
             "p.yaml:3:9: irqs[0].to: cpus 2-3 are not on this node (cpus here: 0-1)");
  plan_fails(topo, "irqs:\n  - { device: vda, to: reserve }\n" ONE_ROLE, PLACER_EXIT_INFEASIBLE,
             "p.yaml:2:24: irqs[0].to: reserve, but no core is reserved for the host on this node (reserve.cores)");
  plan_fails(topo, "irqs:\n  - { device: eth0, to: nic_cores }\n" ONE_ROLE, PLACER_EXIT_INFEASIBLE,
             "p.yaml:2:25: irqs[0].to: nic_cores, but no core is reserved for NIC interrupts on this node "
             "(reserve.nics matches no NIC here)");
  /* one PCI function named twice */
  plan_fails(topo, "irqs:\n  - { device: vda, to: \"0\" }\n  - { device: \"0000:00:02.0\", to: \"1\" }\n" ONE_ROLE,
             PLACER_EXIT_USAGE,
             "p.yaml:3:15: irqs[1].device: '0000:00:02.0' is the device of vda already (p.yaml:2:15: irqs[0])");
  /* a device an instance is near, also at the top level */
  plan_fails(
      topo,
      "irqs:\n  - { device: vda, to: \"0\" }\nroles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n"
      "    devices: [vda]\n    cpu: { threads: 1 }\n    irqs: own\n",
      PLACER_EXIT_USAGE,
      "p.yaml:2:15: irqs[0].device: 'vda' is osd.0's device, whose IRQs roles[0].irqs places; list it in one place");
  hostvm_done(topo);

  profile_fails("irqs:\n  - { device: vda, to: own }\n" ONE_ROLE,
                "p.yaml:2:24: irqs[0].to: 'own' is for a role (its instance's cpus); a device no instance is near "
                "takes reserve, nic_cores, none or a cpu list such as \"0-3\"");
  profile_fails("irqs:\n  - { device: vda, to: somewhere }\n" ONE_ROLE,
                "p.yaml:2:24: irqs[0].to: expected reserve, nic_cores, none or a cpu list such as \"0-3\", got "
                "'somewhere'");
  profile_fails("irqs:\n  - { device: vda }\n" ONE_ROLE,
                "p.yaml:2:5: irqs[0]: missing key 'to' (reserve, nic_cores, none or a cpu list)");
  profile_fails("irqs:\n  - { device: vda, to: \"0\" }\n  - { device: vda, to: \"1\" }\n" ONE_ROLE,
                "p.yaml:3:15: irqs[1].device: 'vda' is listed twice (first at line 2)");
  profile_fails(ONE_ROLE "    irqs: own\n",
                "p.yaml:5:5: roles[0].irqs: the IRQs of the device or NIC an instance is near: the role needs "
                "per_device or locality near: nic (list other devices under the top-level irqs:)");
}

/* The 2-node q35 guest of tests/integration/irq_numa_guest.sh (fixtures/irq/guest-2numa:
 * cpus 0-1 on node 0, 2-3 on node 1, an emulated NVMe drive and an e1000e NIC behind a
 * pxb-pcie expander on node 1): the OSD near its NVMe and the MDS near the NIC both on node
 * 1; the NVMe's admin queue steered to the OSD, its four I/O queues managed (the 6.1 kernel
 * leaves them writable: the names say so) and reported, one completing on the OSD's cpu;
 * the NIC's three IRQs to the MDS. */
static const char guest_profile[] = "roles:\n"
                                    "  - name: osd\n    kind: ceph-osd\n    per_device: 1\n    devices: [nvme0n1]\n"
                                    "    cpu: { threads: 1 }\n    irqs: own\n"
                                    "  - name: mds\n    kind: ceph-mds\n    cpu: { threads: 1 }\n"
                                    "    locality: { near: nic, nic: eth0 }\n    irqs: own\n"
                                    "  - name: client\n    kind: generic\n    cpu: { threads: 1 }\n";

static void guest_locality(void **state) {
  (void)state;
  struct placer_topology *topo = test_topo_captured("guest-2numa");
  const struct placer_irq_dev *nvme = placer_irq_inventory_device(topo->irqs, "nvme0n1");
  assert_non_null(nvme);
  assert_string_equal(nvme->pci_busid, "0000:81:00.0");
  assert_int_equal(nvme->numa_node, 1);
  assert_int_equal(nvme->n_irqs, 5);
  assert_false(placer_irq_inventory_irq(topo->irqs, 26)->managed); /* nvme0q0, the admin queue */
  for (unsigned irq = 27; irq <= 30; irq++)
    assert_true(placer_irq_inventory_irq(topo->irqs, irq)->managed);
  struct placer_plan *plan = plan_ok(topo, guest_profile);
  const struct placer_instance *osd = placer_plan_find(plan, "osd.0"), *mds = placer_plan_find(plan, "mds.0");
  assert_int_equal(osd->numa_node, 1);
  assert_int_equal(osd->locality, PLACER_LOCALITY_LOCAL);
  assert_int_equal(mds->numa_node, 1);
  assert_int_equal(mds->locality, PLACER_LOCALITY_LOCAL);
  assert_string_equal(mds->nic, "eth0");
  char *osd_cpus = placer_cpulist_format(osd->cpus), *mds_cpus = placer_cpulist_format(mds->cpus);
  assert_string_equal(osd_cpus, "2"); /* nvme0q1 completes on 2, nvme0q2 on 3: equivalent, the first */
  assert_string_equal(mds_cpus, "3");
  assert_int_equal(plan->n_irqs, 8);
  assert_string_equal(irq_of(plan, 26)->to, osd_cpus);
  assert_true(irq_of(plan, 27)->on_own_cpus);  /* nvme0q1 on cpu 2 */
  assert_false(irq_of(plan, 28)->on_own_cpus); /* nvme0q2 on cpu 3 */
  size_t own, managed;
  placer_plan_irq_own_share(plan, "osd.0", &own, &managed);
  assert_int_equal(managed, 4);
  assert_int_equal(own, 1);
  for (unsigned irq = 31; irq <= 33; irq++) {
    assert_string_equal(irq_of(plan, irq)->to, mds_cpus);
    assert_string_equal(irq_of(plan, irq)->instance, "mds.0");
  }
  free(osd_cpus);
  free(mds_cpus);
  placer_plan_free(plan);

  /* Among node 1's equivalent cpus the OSD takes the one its queues complete on: with every
   * I/O queue moved to cpu 3, cpu 3; without irqs: the first, cpu 2. */
  for (size_t i = 0; i < topo->irqs->n_irqs; i++)
    if (topo->irqs->irqs[i].managed) {
      free(topo->irqs->irqs[i].effective);
      topo->irqs->irqs[i].effective = strdup("3");
    }
  plan = plan_ok(topo, guest_profile);
  osd_cpus = placer_cpulist_format(placer_plan_find(plan, "osd.0")->cpus);
  assert_string_equal(osd_cpus, "3");
  placer_plan_irq_own_share(plan, "osd.0", &own, &managed);
  assert_int_equal(own, 4);
  free(osd_cpus);
  placer_plan_free(plan);
  plan = plan_ok(topo, "roles:\n  - name: osd\n    kind: ceph-osd\n    per_device: 1\n    devices: [nvme0n1]\n"
                       "    cpu: { threads: 1 }\n");
  osd_cpus = placer_cpulist_format(placer_plan_find(plan, "osd.0")->cpus);
  assert_string_equal(osd_cpus, "2");
  assert_int_equal(plan->n_irq_rules, 0);
  free(osd_cpus);
  placer_plan_free(plan);
  hostvm_done(topo);
}

/* --set irqs.DEVICE=TO: sets or adds the top-level entry; bad values are one line. */
static void set_irqs(void **state) {
  (void)state;
  struct placer_profile *p = profile("irqs:\n  - { device: vda, to: reserve }\n" ONE_ROLE);
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_set(p, "irqs.vda=0", &err), 0);
  assert_int_equal(p->n_irqs, 1);
  assert_int_equal(p->irqs[0].to.target, PLACER_IRQ_TO_CPUS);
  assert_string_equal(p->irqs[0].to.cpus, "0");
  assert_int_equal(placer_profile_set(p, "irqs.eth0=none", &err), 0);
  assert_int_equal(p->n_irqs, 2);
  assert_string_equal(p->irqs[1].device, "eth0");
  assert_int_equal(p->irqs[1].to.target, PLACER_IRQ_TO_NONE);
  assert_int_equal(placer_profile_set(p, "irqs.vda=own", &err), -1);
  assert_string_equal(err->msg, "--set 'irqs.vda=own': 'own' is for a role (its instance's cpus); a device no "
                                "instance is near takes reserve, nic_cores, none or a cpu list such as \"0-3\"");
  placer_error_clear(&err);
  assert_int_equal(placer_profile_set(p, "irqs.vda=x", &err), -1);
  assert_string_equal(err->msg, "--set 'irqs.vda=x': expected reserve, nic_cores, none or a cpu list such as \"0-3\"");
  placer_error_clear(&err);
  /* planned: a message names the --set */
  struct placer_topology *topo = hostvm();
  assert_int_equal(placer_profile_set(p, "irqs.vda=7", &err), 0);
  struct placer_plan *plan = NULL;
  assert_int_equal(placer_plan_compute(topo, p, &plan, &err), -1);
  assert_string_equal(err->msg, "--set irqs.vda: irqs[0].to: cpus 7 is not on this node (cpus here: 0-1)");
  placer_error_clear(&err);
  hostvm_done(topo);
  placer_profile_free(p);
}

/* optional: true: a device that is not there (yet) is a pending rule with no IRQ, said once
 * as a warning and in the plan's text and JSON; by NIC name and by PCI address (the slot
 * where a card will appear); a device that is there is planned as without the key. */
static void optional_absent(void **state) {
  (void)state;
  struct placer_topology *topo = hostvm();
  struct placer_plan *plan =
      plan_ok(topo, "irqs:\n"
                    "  - { device: vda, to: \"0\" }\n"
                    "  - { device: eth1, to: \"1\", optional: true }\n"
                    "  - device: \"0000:01:00.0\"\n    to: \"0-1\"\n    optional: true\n" ONE_ROLE);
  assert_int_equal(plan->n_irq_rules, 3);
  assert_false(plan->irq_rules[0].pending);
  assert_true(plan->irq_rules[1].pending);
  assert_true(plan->irq_rules[2].pending);
  for (size_t i = 0; i < plan->n_irqs; i++)
    assert_string_equal(plan->irqs[i].device, "vda"); /* nothing of the absent two */
  assert_int_equal(plan->n_warnings, 2);
  assert_string_equal(plan->warnings[0], "p.yaml:3:15: irqs[1]: eth1 not present: its IRQs are steered when it appears "
                                         "(placer watch, or the next apply)");
  assert_string_equal(plan->warnings[1], "p.yaml:4:13: irqs[2]: 0000:01:00.0 not present: its IRQs are steered when it "
                                         "appears (placer watch, or the next apply)");
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, "  eth1 (-): not present: its IRQs go to cpus 1 when it appears\n"));
  assert_non_null(strstr(text, "  0000:01:00.0 (-): not present: its IRQs go to cpus 0-1 when it appears\n"));
  free(text);
  json_t *j = placer_plan_to_json(plan);
  json_t *rules = json_object_get(j, "irq_rules");
  assert_true(json_is_false(json_object_get(json_array_get(rules, 0), "pending")));
  assert_true(json_is_true(json_object_get(json_array_get(rules, 1), "pending")));
  assert_string_equal(json_string_value(json_object_get(json_array_get(rules, 2), "cpus")), "0-1");
  json_decref(j);
  placer_plan_free(plan);

  /* there: as without the key (eth0's three IRQs spread) */
  plan = plan_ok(topo, "irqs:\n  - { device: eth0, to: \"0-1\", optional: true }\n" ONE_ROLE);
  assert_false(plan->irq_rules[0].pending);
  assert_int_equal(plan->n_warnings, 0);
  assert_string_equal(irq_of(plan, 37)->to, "0");
  assert_string_equal(irq_of(plan, 38)->to, "1");
  placer_plan_free(plan);

  /* absent, its target still checked against the node; without the key, absent is bad input */
  plan_fails(topo, "irqs:\n  - { device: eth1, to: \"5\", optional: true }\n" ONE_ROLE, PLACER_EXIT_USAGE,
             "p.yaml:2:25: irqs[0].to: cpus 5 is not on this node (cpus here: 0-1)");
  plan_fails(topo, "irqs:\n  - { device: eth1, to: \"1\", optional: false }\n" ONE_ROLE, PLACER_EXIT_USAGE,
             "p.yaml:2:15: irqs[0].device: no block device, NIC or PCI device 'eth1' (here: vda, eth0)");
  profile_fails("irqs:\n  - { device: eth1, to: \"1\", optional: yes }\n" ONE_ROLE,
                "p.yaml:2:40: irqs[0].optional: expected true or false, got 'yes'");
  profile_fails("irqs:\n  - { device: auto, to: nic_cores, optional: true }\n" ONE_ROLE,
                "p.yaml:2:46: irqs[0].optional: auto stands for the NICs reserve.nics gives cores to, which are "
                "there: name the device that may be absent (a NIC or a PCI address)");

  /* --set on an optional entry keeps it optional; a new absent one is bad input, named by its --set */
  struct placer_profile *p = profile("irqs:\n  - { device: eth1, to: \"1\", optional: true }\n" ONE_ROLE);
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_set(p, "irqs.eth1=0", &err), 0);
  assert_int_equal(placer_plan_compute(topo, p, &plan, &err), 0);
  assert_true(plan->irq_rules[0].pending);
  char *cpus = placer_cpulist_format(plan->irq_rules[0].cpus);
  assert_string_equal(cpus, "0");
  free(cpus);
  placer_plan_free(plan);
  assert_int_equal(placer_profile_set(p, "irqs.eth2=0", &err), 0);
  assert_int_equal(placer_plan_compute(topo, p, &plan, &err), -1);
  assert_string_equal(err->msg,
                      "--set irqs.eth2: irqs[1].device: no block device, NIC or PCI device 'eth2' (here: vda, eth0)");
  placer_error_clear(&err);
  placer_profile_free(p);
  hostvm_done(topo);
}

/* From another machine's XML (no IRQ numbers): an absent optional NIC is a pending rule
 * in the rules table, a NIC that is there a rule as before. */
static void optional_from_xml(void **state) {
  (void)state;
  struct placer_topology *topo = xml("crafted-hci-2s16c-8nvme.xml");
  struct placer_plan *plan = plan_ok(
      topo, "irqs:\n  - { device: eth9, to: \"0\", optional: true }\n  - { device: nvme0n1, to: \"1\" }\n" ONE_ROLE);
  assert_false(plan->irqs_known);
  assert_int_equal(plan->n_irq_rules, 2);
  assert_true(plan->irq_rules[0].pending);
  assert_false(plan->irq_rules[1].pending);
  char *text = test_plan_text(plan);
  assert_non_null(strstr(text, "eth9"));
  assert_non_null(strstr(text, "not present: cpus 0 when it appears (cpus)"));
  free(text);
  placer_plan_free(plan);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(vm_devices),      cmocka_unit_test(nic_spread_and_own), cmocka_unit_test(nic_cores_target),
    cmocka_unit_test(bad_input),       cmocka_unit_test(guest_locality),     cmocka_unit_test(set_irqs),
    cmocka_unit_test(optional_absent), cmocka_unit_test(optional_from_xml),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
