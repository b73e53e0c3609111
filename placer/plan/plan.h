/* A plan: where every instance of every role runs.  Produced by the pure
 * planner (planner.c) from a topology and a profile; read by the printers,
 * by apply/status/reset and by the launch backends. */
#ifndef PLACER_PLAN_H
#define PLACER_PLAN_H

#include <hwloc.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topology/irq.h"
#include "lib/error.h"
#include "role.h"
#include "topology/topology.h"

enum placer_locality {
  PLACER_LOCALITY_NONE,   /* the role asked for no locality */
  PLACER_LOCALITY_LOCAL,  /* on the device's / NIC's / asked node(s) */
  PLACER_LOCALITY_REMOTE, /* asked for locality, fell back (preferred policy) */
};

struct placer_instance {
  char *name; /* "osd.0": role name, '.', index; unique in the plan */
  char *role; /* the role's name in the profile */
  enum placer_role_kind kind;
  unsigned index;      /* 0.. within the role */
  char *device;        /* block device name it serves, or NULL */
  char *nic;           /* NIC name it is placed near, or NULL */
  bool pinned;         /* false: no cpuset restriction (unpinned baseline) */
  hwloc_bitmap_t cpus; /* OS indexes; all allowed PUs when !pinned */
  hwloc_bitmap_t mems; /* NUMA OS indexes */
  hwloc_bitmap_t l3s;  /* the L3 domains its cpus lie in: indexes of the topology's l3_groups */
  bool has_memory_limit;
  uint64_t memory_bytes; /* limit and per-node budget when has_memory_limit */
  unsigned cpu_weight;   /* 1..10000 as cgroup v2 cpu.weight; 0 = leave default */
  unsigned cpu_quota;    /* the role's CPU quota, thousandths of a core, on the role group PREFIX/ROLE that
                            all its instances share; 0 = none */
  bool exclusive;
  bool whole_cores;
  enum placer_locality locality;
  int numa_node; /* os_index of the node it mostly lies on, -1 if several/none */
  struct placer_match match;
  bool pin_vcpus; /* vm: pin each vCPU thread to its own PU */
};

/* The cores reserve.nics gave one NIC for its interrupts. */
struct placer_plan_nic_cores {
  char *nic;
  hwloc_bitmap_t cpus;
};

/* One device whose IRQs the profile places (planner-irq.c): a top-level irqs: entry, or
 * the device / NIC of an instance whose role has irqs:.  Known from the topology alone,
 * so a plan for another machine (--topology) lists these. */
struct placer_plan_irq_rule {
  char *device;   /* as the profile or the instance names it: "vda", "eth0", "0000:00:02.0" */
  char *instance; /* the instance near it ("osd.0", "osd.0+osd.1" for two on one device); NULL: top level */
  enum placer_irq_target target;
  hwloc_bitmap_t cpus; /* where they go; empty for none */
  bool spread;         /* a NIC: one IRQ per CPU of cpus, round robin, in IRQ order */
  char *where;         /* "FILE:LINE:COL: irqs[0]" / "roles[0].irqs": for messages */
  bool optional;       /* an optional: entry: its device may come and go (hot-plug) */
  bool pending;        /* an optional: entry whose device is not on the node (yet): no IRQ of it
                        * planned; steered when it appears (the next plan on the node) */
};

/* One IRQ of this node the plan steers (or reports), read live (plan->irqs_known). */
struct placer_plan_irq {
  unsigned irq;
  char *name;       /* its handlers, "virtio1-req.0" */
  char *device;     /* the rule's device */
  char *instance;   /* the rule's instance, NULL: top level */
  char *from;       /* smp_affinity_list when planned */
  char *to;         /* what apply writes; NULL for a managed IRQ (the kernel keeps it) */
  bool managed;     /* the kernel manages its affinity (NVMe, virtio-blk queues): reported, not steered */
  char *effective;  /* effective_affinity_list when planned; NULL when unknown */
  bool on_own_cpus; /* managed, of an instance: it completes on the instance's own cpus */
  bool optional;    /* its rule's device is optional: gone with it is no drift */
};

/* An MDS as the plan places it (planner-mds.c; docs/profiles.md, "The MDS"):
 * the cores it holds a PU of, who else holds a PU of them, its NIC and the
 * cache its memory gives. */
struct placer_plan_mds {
  size_t instance;          /* its index in the plan's instances */
  unsigned n_cores;         /* the cores it holds a PU of (0 when unpinned) */
  hwloc_bitmap_t first_pus; /* the first PU of each of those cores */
  hwloc_bitmap_t siblings;  /* their other PUs that it holds too (its SMT siblings) */
  hwloc_bitmap_t not_held;  /* their PUs it does not hold: free, or another instance's */
  char **shared_with;       /* the other instances holding a PU of those cores, in plan order */
  size_t n_shared_with;
  hwloc_bitmap_t nic_nodes; /* its NIC's NUMA nodes; empty without a NIC or when unknown */
  bool has_cache_limit;     /* it has a memory limit, so mds_cache_memory_limit follows from it */
  uint64_t cache_limit_bytes;
};

struct placer_plan {
  char *profile_name;
  char *profile_path;
  char *topology_source;
  unsigned topo_numa_nodes, topo_cores, topo_pus;
  hwloc_bitmap_t reserved_cpus;
  hwloc_bitmap_t reserved_mems;
  uint64_t reserved_memory_bytes;
  struct placer_instance *instances;
  size_t n_instances; /* profile order */
  /* usable PUs neither reserved nor held by an instance (a pool's PUs no instance took are free) */
  hwloc_bitmap_t free_cpus;
  char **warnings;
  size_t n_warnings;
  struct placer_plan_nic_cores *nic_cores; /* reserve.nics, by NIC in topology order */
  size_t n_nic_cores;
  struct placer_plan_irq_rule *irq_rules; /* top-level irqs: first, then the roles', by instance */
  size_t n_irq_rules;
  bool irqs_known;              /* the topology had the node's IRQs (live): irqs below are this node's */
  struct placer_plan_irq *irqs; /* every IRQ of the rules' devices, rule by rule, in IRQ order */
  size_t n_irqs;
  struct placer_plan_mds *mds; /* every ceph-mds instance, in plan order */
  size_t n_mds;
};

struct placer_profile; /* profile.h */

/* The planner: pure, deterministic.  Infeasible profiles fail with
 * PLACER_EXIT_INFEASIBLE and one message naming the role, its need and what
 * is available; no partial plan is returned. */
int placer_plan_compute(const struct placer_topology *topo, const struct placer_profile *profile,
                        struct placer_plan **out, struct placer_error **err);
void placer_plan_free(struct placer_plan *plan);

/* Does the planner keep the instances of role SPEC in the fewest L3 domains
 * on TOPO: cpu.align cache, or auto where a NUMA node holds several L3s? */
struct placer_role_spec;
bool placer_plan_aligns_by_cache(const struct placer_topology *topo, const struct placer_role_spec *spec);

const struct placer_instance *placer_plan_find(const struct placer_plan *plan, const char *name);
/* The instance that places Ceph daemon NAME ("osd.1", "mon.a"): a role of
 * kind ceph-TYPE whose ceph_id matches ID; else the instance named NAME
 * (placer_plan_find).  NULL when none.  What `placer exec` and bench's
 * cluster place a daemon by. */
const struct placer_instance *placer_plan_find_daemon(const struct placer_plan *plan, const char *name);

const char *placer_locality_name(enum placer_locality loc);

/* IRQs (planner-irq.c, docs/profiles.md "IRQs"): the rules of PROFILE's irqs: keys for
 * PLAN (called by placer_plan_compute once the instances are placed), each device checked
 * against TOPO, and with TOPO->irqs (live) every IRQ of those devices with where it goes.
 * A device that is not there or a cpu list off the node is bad input (PLACER_EXIT_USAGE,
 * FILE:LINE:COL); a target with no cores (reserve, nic_cores) does not fit (INFEASIBLE). */
int placer_plan_irqs(const struct placer_topology *topo, const struct placer_profile *profile, struct placer_plan *plan,
                     struct placer_error **err);
/* The instance's managed IRQs and how many complete on its own cpus. */
/* "WHERE: DEVICE not present: its IRQs are steered when it appears (...)" for a pending
 * rule, said by plan, apply and watch alike; NULL on ENOMEM. */
char *placer_plan_irq_pending_text(const struct placer_plan_irq_rule *r);
void placer_plan_irq_own_share(const struct placer_plan *plan, const char *instance, size_t *on_own, size_t *managed);

/* The MDS (planner-mds.c, docs/profiles.md "The MDS").  An MDS's resident
 * memory runs to about twice its cache: Ceph's own guide provisions 8 GB of
 * RAM for the default 4 GB mds_cache_memory_limit (doc/cephfs/add-remove-mds,
 * "Provisioning Hardware for an MDS"), and Red Hat's hardware guide says the
 * RAM an MDS needs is "typically twice" it.  So the cache gets the memory a
 * plan gives the MDS over this: */
#define PLACER_MDS_MEMORY_PER_CACHE 2
/* mds_cache_memory_limit for an MDS given MEMORY_BYTES (its limit). */
uint64_t placer_mds_cache_limit(uint64_t memory_bytes);
/* The plan's MDS facts (plan->mds), from the placed instances and TOPO's
 * cores and NICs; called by placer_plan_compute.  -1 only out of memory. */
int placer_plan_mds(const struct placer_topology *topo, struct placer_plan *plan, struct placer_error **err);
/* The entry of instance INDEX, NULL when it is not an MDS. */
const struct placer_plan_mds *placer_plan_mds_of(const struct placer_plan *plan, size_t index);
/* One line per MDS under the table, nothing without one (plan-mds.c); the
 * "mds" object of an MDS instance's JSON (plan-json.c). */
int placer_plan_mds_print_text(const struct placer_plan *plan, FILE *out);
json_t *placer_plan_mds_to_json(const struct placer_plan_mds *m);

/* CPU weights between instances (plan-weight.c).  The kernel divides CPU
 * among sibling groups, and instances live in PREFIX/ROLE/INSTANCE: so apply
 * gives each role group the sum of its instances' weights, which makes every
 * pair of instances sharing CPUs compete as if they were siblings (a role
 * group's weight is spread over the CPUs its instances are busy on).  When
 * the largest sum exceeds cpu.weight's 10000, every role's is scaled down
 * by the same factor, which keeps the ratios between roles. */

/* The weight in force for a planned weight: 0 (the profile sets none) is
 * the kernel default, 100. */
unsigned placer_weight_effective(unsigned planned);
/* The group weight of role ROLE, given every instance's role name and
 * planned weight (N of them); 0 when ROLE has none. */
unsigned placer_weight_role(const char *const *roles, const unsigned *planned, size_t n, const char *role);
/* The same for ROLE's instances in PLAN. */
unsigned placer_plan_role_weight(const struct placer_plan *plan, const char *role);
/* The share (0..1] of its CPUs that instance INDEX gets when every
 * instance is busy: its weight over the sum of the weights of every instance
 * whose CPUs overlap its own, itself included (weights as the role groups
 * pass them on: scaled when the role weights were). */
double placer_plan_cpu_share(const struct placer_plan *plan, size_t index);
/* Every instance's role group weight (placer_plan_role_weight of its role)
 * and CPU share (placer_plan_cpu_share) at once, in time linear in the
 * instances for a given node, into arrays of plan->n_instances (either may
 * be NULL); -1 when out of memory.  What the printers use. */
int placer_plan_weights(const struct placer_plan *plan, unsigned *role_weights, double *cpu_shares);

#define PLACER_PLAN_JSON_SCHEMA 1
json_t *placer_plan_to_json(const struct placer_plan *plan);
int placer_plan_print_text(const struct placer_plan *plan, FILE *out);
/* plan-irq.c: their IRQ part, nothing when the profile has no irqs: (a table; the keys
 * irq_rules, irqs_known and irqs added to DOC). */
int placer_plan_irqs_print_text(const struct placer_plan *plan, FILE *out);
int placer_plan_irqs_to_json(const struct placer_plan *plan, json_t *doc);

/* The run-template placeholders of INST (lib/substitute.h): id, index, name,
 * role, device, nic, cpus, mems.  The values point into INST and OUT. */
struct placer_subst_vars;
void placer_subst_vars_from_instance(const struct placer_instance *inst, struct placer_subst_vars *out);
#endif
