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

#include "lib/error.h"
#include "role.h"
#include "topology.h"

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

struct placer_plan {
  char *profile_name;
  char *profile_path;
  char *topology_source;
  unsigned topo_numa_nodes, topo_cores, topo_pus;
  hwloc_bitmap_t reserved_cpus;
  hwloc_bitmap_t reserved_mems;
  uint64_t reserved_memory_bytes;
  struct placer_instance *instances;
  size_t n_instances;       /* profile order */
  hwloc_bitmap_t free_cpus; /* usable PUs neither reserved nor held by an instance or a shared pool */
  char **warnings;
  size_t n_warnings;
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

const char *placer_locality_name(enum placer_locality loc);

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

#define PLACER_PLAN_JSON_SCHEMA 1
json_t *placer_plan_to_json(const struct placer_plan *plan);
int placer_plan_print_text(const struct placer_plan *plan, FILE *out);

/* The run-template placeholders of INST (lib/substitute.h): id, index, name,
 * role, device, nic, cpus, mems.  The values point into INST and OUT. */
struct placer_subst_vars;
void placer_subst_vars_from_instance(const struct placer_instance *inst, struct placer_subst_vars *out);
#endif
