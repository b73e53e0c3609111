/* A placement profile: the host reserve and the roles to place, as read from
 * YAML (schema in docs/profiles.md).  Parsing checks everything that can be
 * checked without a topology; the planner (planner.c) does the rest. */
#ifndef PLACER_PROFILE_H
#define PLACER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology/irq.h"
#include "lib/error.h"
#include "lib/string-list.h"
#include "role.h"

#define PLACER_PROFILE_VERSION 1
/* A role's count, per_device, per_numa and max_count, in the YAML as in
 * --set ROLE.count=N; and the instances a role may have in all (per_numa
 * times the nodes), and a plan (docs/profiles.md, "Limits"). */
#define PLACER_PROFILE_MAX_COUNT 4096
#define PLACER_PLAN_MAX_INSTANCES 65536

struct placer_run_config; /* profile-run.h */

enum placer_count_mode {
  PLACER_COUNT_FIXED,      /* count: N */
  PLACER_COUNT_FILL,       /* count: fill -- as many as fit in what is left */
  PLACER_COUNT_PER_DEVICE, /* per_device: N for each block device matching devices */
  PLACER_COUNT_PER_NUMA,   /* per_numa: N on each NUMA node that has CPUs */
};

enum placer_near {
  PLACER_NEAR_NONE,
  PLACER_NEAR_DEVICE, /* the NUMA node(s) of the instance's device */
  PLACER_NEAR_NIC,    /* the NUMA node(s) of the first NIC matching nic */
  PLACER_NEAR_NUMA,   /* a fixed NUMA node (numa: N), or its node for per_numa */
  PLACER_NEAR_SPREAD, /* instance i on the i-th NUMA node (round robin) */
};

enum placer_policy {
  PLACER_POLICY_PREFERRED, /* fall back to the nearest node by distance, with a warning */
  PLACER_POLICY_STRICT,    /* the plan fails (exit 3) */
};

enum placer_mems_mode {
  PLACER_MEMS_LOCAL, /* the NUMA nodes of the instance's cpus */
  PLACER_MEMS_ALL,   /* every NUMA node the topology allows */
};

/* How an instance's CPUs are kept together (cpu.align). */
enum placer_align {
  PLACER_ALIGN_AUTO,  /* cache where a NUMA node holds more than one L3, else numa */
  PLACER_ALIGN_CACHE, /* the fewest L3 domains (then L2 clusters), unshared when it can; NUMA too */
  PLACER_ALIGN_NUMA,  /* one NUMA node when it fits, lowest-numbered cores there */
  PLACER_ALIGN_NONE,  /* the lowest-numbered free cores where the locality says */
};

/* An instance larger than one NUMA node (cpu.spread). */
enum placer_spread {
  PLACER_SPREAD_NONE, /* fills the nearest nodes one after another */
  PLACER_SPREAD_NUMA, /* split evenly over the fewest nodes that hold it */
};

struct placer_cpu_spec {
  unsigned cores;   /* cores: N whole cores, 0 when threads is used */
  unsigned threads; /* threads: N hardware threads, 0 when cores is used */
  bool whole_cores; /* threads rounded up to whole cores (SMT siblings kept together) */
  bool exclusive;   /* false: the instance runs in a shared pool */
  char *pool;       /* shared pool's name (defaults to the role's name); NULL when exclusive */
  unsigned weight;  /* cgroup v2 cpu.weight 1..10000; 0: leave the default */
  unsigned quota;   /* CPU quota of the role's group, thousandths of a core (1500 = 1.5 cores); 0: none */
  bool pin_vcpus;   /* vm: each vCPU thread on its own PU */
  bool span_numa;   /* a count: fill pool may span NUMA nodes (default for all but vm);
                     * false: one pool per NUMA node, each instance on one node */
  enum placer_align align;
  enum placer_spread spread;
};

/* Where a device's IRQs go (irqs[].to, roles[].irqs; docs/profiles.md, "IRQs"). */
struct placer_irq_to {
  enum placer_irq_target target;
  char *cpus;         /* PLACER_IRQ_TO_CPUS: the list as written ("0-3") */
  unsigned line, col; /* of the value: the planner's messages point there */
};

/* One entry of the top-level irqs: list: a device no instance is near. */
struct placer_irq_spec {
  char *device; /* a block device, a NIC, or a PCI address 0000:00:02.0 */
  struct placer_irq_to to;
  unsigned line, col; /* of the device's value */
  bool optional;      /* optional: true: the device may be absent (not there yet, hot-plugged
                       * later): planned as pending, steered when it appears */
};

struct placer_role_spec {
  char *name;
  enum placer_role_kind kind;
  enum placer_count_mode count_mode;
  unsigned count;                    /* FIXED: instances; PER_DEVICE / PER_NUMA: instances per device / node */
  unsigned max_count;                /* FILL: at most this many; 0: no cap */
  unsigned first_index;              /* instance names and {index} start here */
  struct placer_string_list devices; /* PER_DEVICE: block device name globs */
  bool has_cpu;                      /* cpu given (required when the profile pins) */
  struct placer_cpu_spec cpu;
  bool has_memory;
  uint64_t memory_bytes;          /* per instance */
  uint64_t memory_overhead_bytes; /* added to memory_bytes (hypervisor overhead per guest) */
  enum placer_near near;
  char *nic;     /* NEAR_NIC: name glob */
  unsigned numa; /* NEAR_NUMA: OS index of the node (not used with per_numa) */
  enum placer_policy policy;
  enum placer_mems_mode mems;
  enum placer_match_kind match_kind;
  char *match_template;          /* with {index}, {name}, {role}, {device} placeholders */
  struct placer_run_config *run; /* run: section (profile-run.h), NULL when absent */
  bool crimson;                  /* ceph-osd: Crimson OSDs (seastar reactors); `placer export --format ceph` */
  bool has_irqs;                 /* irqs: the IRQs of the device or NIC each instance is near */
  struct placer_irq_to irqs;
  unsigned line; /* where the role starts in the file */
};

struct placer_reserve_spec {
  unsigned cores;                 /* whole cores in total, spread over the NUMA nodes */
  bool cores_is_percent;          /* cores is a percentage of the node's cores (rounded down) */
  unsigned cores_per_numa;        /* whole cores on every NUMA node (instead of cores) */
  struct placer_string_list nics; /* NICs whose interrupts get cores of their own */
  unsigned nic_cores;             /* whole cores per matching NIC, on its NUMA node */
  uint64_t memory_bytes;          /* host memory kept out of every role, split evenly over nodes */
  uint64_t memory_per_numa_bytes; /* ... or this much on every node */
};

struct placer_profile {
  char *path;        /* as given, for messages */
  char *name;        /* name:, or the file name without .yaml */
  char *description; /* NULL when not given */
  bool pin;          /* false: nothing is pinned (the unpinned A/B baseline) */
  /* storage_network: CIDRs whose NICs `nic: auto` picks (before the
   * topology's ceph.conf networks and the fastest-NIC rule) */
  struct placer_string_list storage_networks;
  struct placer_reserve_spec reserve;
  struct placer_role_spec *roles;
  size_t n_roles;
  struct placer_irq_spec *irqs; /* irqs: devices no instance is near, in profile order */
  size_t n_irqs;
};

/* Read and check a profile.  Every error is "FILE:LINE:COL: PATH: message"
 * with PLACER_EXIT_USAGE. */
int placer_profile_load(const char *path, struct placer_profile **out, struct placer_error **err);
/* The same from memory; file names the text in messages. */
int placer_profile_parse(const char *file, const char *text, size_t len, struct placer_profile **out,
                         struct placer_error **err);
void placer_profile_free(struct placer_profile *profile);

/* Change one setting of a loaded profile, "ROLE.KEY=VALUE" (profile-override.c):
 * cpu.quota (cores, "none" removes it), cpu.weight (1..10000, "none"),
 * cpu.cores / cpu.threads (N; the other is cleared), cpu.pool (NAME; the
 * role then shares it), cpu.align (auto, cache, numa, none).  How `placer bench` makes a sweep's variants from one
 * profile and how `placer exec/plan --set` repeat them.  Errors name the
 * assignment (PLACER_EXIT_USAGE). */
int placer_profile_set(struct placer_profile *profile, const char *assignment, struct placer_error **err);

const struct placer_role_spec *placer_profile_role(const struct placer_profile *profile, const char *name);

/* The match value of one instance: template with {index}, {name}, {role} and
 * {device} substituted.  Caller frees; NULL on ENOMEM. */
char *placer_match_expand(const char *tmpl, const char *instance, const char *role, unsigned index, const char *device);

#endif
