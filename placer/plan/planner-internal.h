/* What the planner's parts share (planner*.c); private to them.  The
 * planner is split by what each part decides: the node as it sees it and
 * its messages (planner-nodes.c), which CPUs an instance takes
 * (planner-choose.c, with the caches in planner-align.c), the storage NICs
 * (planner-nic.c), the host reserve (planner-reserve.c), instances, their
 * targets and warnings (planner-instance.c), the strategies that place a
 * role (planner-fixed.c, planner-fill.c), the IRQs (planner-irq.c), and
 * the driver with the strategy table (planner.c).  All of it is pure: it
 * reads the topology and the profile, nothing else, and prints nothing. */
#ifndef PLACER_PLANNER_INTERNAL_H
#define PLACER_PLANNER_INTERNAL_H

#include <hwloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/plan-internal.h"
#include "profile/profile.h"
#include "topology/topology.h"

/* ---- cache alignment (planner-align.c): which of a set of cores an
 * instance or a pool takes so that it lies in the fewest L3 domains (then
 * L2 clusters) its size allows, and shares none with another instance when
 * an unshared choice exists ---- */

/* How a role counts CPUs. */
enum unit {
  UNIT_CORES,         /* whole cores, counted as cores */
  UNIT_WHOLE_THREADS, /* threads, taken as whole cores */
  UNIT_THREADS,       /* single hardware threads */
};

struct cpu_need {
  enum unit unit;
  unsigned amount;
};

/* The planner's state as the alignment reads it. */
struct align_ctx {
  const struct placer_topology *topo;
  hwloc_const_bitmap_t usable;   /* PUs the plan may use */
  hwloc_const_bitmap_t used;     /* reserved, or held by an instance or a pool */
  hwloc_const_bitmap_t reserved; /* the host reserve: held, but by no neighbour */
  const unsigned *owner;         /* by PU OS index: who holds it (0: nobody or the reserve) */
  size_t n_owner;
};

/* What a choice looks like at the L3 level. */
struct align_score {
  unsigned l3s;        /* L3 domains it spans (0: the topology knows none) */
  unsigned shared_l3s; /* of those, held in part by another instance or pool */
  unsigned min_l3s;    /* the fewest its size allows, with only the reserve taken */
  unsigned best_free;  /* the most units free in one L3 among the candidate cores */
  int best_l3;         /* that L3's index, -1 when none */
};

/* A core the plan may use (every PU of it), and one nobody holds a PU of
 * with USED taken. */
bool align_core_usable(const struct align_ctx *ctx, const struct placer_core *c);
bool align_core_free(const struct align_ctx *ctx, hwloc_const_bitmap_t used, const struct placer_core *c);

/* Add what a part of an instance came out as (one node's) to the whole's. */
void align_score_add(struct align_score *into, const struct align_score *part);

/* Units of UNIT free among CORES (indexes into topo->cores) with USED
 * taken: whole free cores, or their PUs; single threads count the spare
 * threads of cores held in part too. */
unsigned align_capacity(const struct align_ctx *ctx, hwloc_const_bitmap_t used, const size_t *cores, size_t n,
                        enum unit unit);

/* Take NEED from CORES (topology order) into OUT, lowest-numbered first:
 * whole cores in order; single threads fill free cores first, core by
 * core, and only then the spare threads of cores partly held by others.
 * false when they do not hold that many.  Marks nothing. */
bool align_take_plain(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need,
                      hwloc_bitmap_t out);

/* The same, aligned: in the fewest L3 domains (then L2 clusters), those no
 * other instance or pool holds a part of first when that costs no extra
 * domain, the tightest fit for what does not fill whole domains (which
 * keeps whole ones for later), whole free domains first when it needs
 * several.  SCORE (may be NULL) says what came out. */
bool align_take_cache(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need,
                      hwloc_bitmap_t out, struct align_score *score);

/* Into SCORE: the fewest L3 domains among CORES that NEED's size needs
 * (min_l3s) and the roomiest L3 there (best_free, best_l3), for an
 * instance taken from several nodes. */
void align_floor(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need,
                 struct align_score *score);

/* The indexes (into topo->l3_groups) of the L3 domains CPUS touch. */
void align_l3s_of(const struct placer_topology *topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out);

/* Whether some NUMA node holds cores under more than one L3 (AMD EPYC's
 * CCXs): where `align: auto` means cache. */
bool align_several_l3_per_node(const struct placer_topology *topo);

/* Whether the topology knows any cache shared by cores (an L3, or an L2
 * cluster): where `align: cache` has something to align to. */
bool align_has_caches(const struct placer_topology *topo);

/* Split POOL (a count: fill pool's CPUs) into parts that each lie in one
 * L3 domain, for instances of NEED each: per L3, the largest whole number
 * of instances' worth (lowest-numbered first); what is left over in every
 * L3 together makes one last part, so the split never holds fewer
 * instances than the whole pool.  PARTS gets up to CAP bitmaps (allocated;
 * caller frees), with *COUNTS instances each; returns how many, or -1 on
 * ENOMEM. */
int align_split_pool(const struct align_ctx *ctx, hwloc_const_bitmap_t pool, struct cpu_need need,
                     hwloc_bitmap_t *parts, unsigned *counts, size_t cap);

/* ---- the planner's state ---- */

/* A NUMA node as the planner sees it (by position in topo->numa_nodes). */
struct node_info {
  unsigned os;
  size_t *cores; /* indexes into topo->cores, topology order */
  size_t n_cores;
  bool memory_known;
  uint64_t memory_total, memory_reserved, memory_used;
  char *first_over; /* the instance that first over-committed it (preferred policy) */
};

/* A shared pool (cpu.pool): the CPUs its members share. */
struct pool_state {
  const char *name;
  struct cpu_need need;
  bool placed;
  bool fill;
  hwloc_bitmap_t cpus;
  hwloc_bitmap_t *node_cpus; /* fill without span_numa: one pool per node (by node position) */
};

/* A role being placed: its instances so far, its pool (NULL: exclusive). */
struct role_state {
  const struct placer_role_spec *spec;
  size_t pos;
  struct placer_instance *inst;
  size_t n, cap;
  struct pool_state *pool;
};

/* A warning, with where it sorts in the plan. */
struct warning {
  int group;    /* 0: reserve, 1: an instance, 2: a NUMA node's memory */
  size_t role;  /* profile position (group 1) or node position (group 2) */
  size_t index; /* instance within its role */
  size_t seq;
  char *text;
};

/* The planner's state for one plan (placer_plan_compute()). */
struct planner {
  const struct placer_topology *topo;
  const struct placer_profile *profile;
  struct placer_error **err;
  hwloc_bitmap_t usable;   /* online PUs this process may use */
  hwloc_bitmap_t used;     /* reserved or held by an instance or a pool */
  hwloc_bitmap_t reserved; /* the host reserve */
  hwloc_bitmap_t snapshot; /* used, when the current role started (for messages) */
  struct node_info *nodes;
  size_t n_nodes;
  struct role_state *roles;
  struct pool_state *pools;
  size_t n_pools;
  struct warning *warnings;
  size_t n_warnings;
  bool *storage_nic;  /* per topology NIC: picked by `nic: auto` */
  char auto_why[160]; /* why those, for messages */
  unsigned *owner;    /* by PU OS index: who holds it (0: nobody or the reserve) */
  size_t n_owner;
  unsigned n_holders;      /* instances and pools placed so far: the last holder's id */
  size_t n_instances_made; /* over every role: at most PLACER_PLAN_MAX_INSTANCES */
  bool several_l3;         /* some NUMA node holds more than one L3: align: auto means cache */
  struct align_ctx align;  /* the alignment's view of the above (planner-align.c) */

  /* IRQs (planner-irq.c) */
  struct placer_plan_nic_cores *nic_cores; /* reserve.nics: each NIC's cores (for irqs: nic_cores) */
  size_t n_nic_cores;
  hwloc_bitmap_t prefer; /* taken first among equivalent cores: where the instance's device's
                          * managed queues complete (irqs:, planner-irq.c); empty: none */
};

/* What planner_choose() found. */
enum choice { CHOSE_LOCAL, CHOSE_REMOTE, CHOSE_ANY, NO_ROOM_THERE, NO_ROOM };

/* What one instance (or a pool) asks of planner_choose(). */
struct request {
  struct cpu_need need;
  hwloc_const_bitmap_t target; /* NULL: no locality */
  enum placer_policy policy;
  uint64_t memory_bytes;
  enum placer_align align; /* resolved: cache, numa or none */
  bool spread;             /* over several nodes: evenly, over the fewest */
};

/* How it came out, for the warnings. */
struct outcome {
  enum choice choice;
  bool spread;              /* split evenly over several nodes */
  struct align_score score; /* align: cache */
  size_t passed_over;       /* a nearer node with the CPUs but no memory left; SIZE_MAX: none */
};

/* Where an instance should run. */
struct target {
  hwloc_bitmap_t nodes; /* NULL: no locality asked */
  bool unknown;         /* locality asked but not known: reason in why */
  char what[160];       /* "near nvme3n1 (NUMA node 1)" */
  char why[320];
  const char *nic; /* NEAR_NIC: the chosen NIC */
};

/* The I-th core of the topology. */
static inline const struct placer_core *planner_core(const struct planner *p, size_t i) {
  return &p->topo->cores[i];
}

/* ---- the node and the messages (planner-nodes.c) ---- */

/* FMT formatted (vasprintf); NULL on ENOMEM. */
char *planner_vtext(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* FMT formatted, added to the *N strings of *LIST (the plan's warnings,
 * planner-irq.c); -1 on ENOMEM. */
int planner_vappend(char ***list, size_t *n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* "plan: out of memory" into the error; -1. */
int planner_oom(struct planner *p);
/* The plan does not fit: the one line that says why, exit 3; -1. */
int planner_infeasible(struct planner *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning, sorted into the plan by (GROUP, ROLE, INDEX) then in order of
 * saying (struct warning); -1 on ENOMEM. */
int planner_warn(struct planner *p, int group, size_t role, size_t index, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The position of the node of OS index OS; SIZE_MAX: none. */
size_t planner_node_pos_of_os(const struct planner *p, unsigned os);
/* Each node with its cores (a core in the node of its first PU). */
int planner_setup_nodes(struct planner *p);
/* Whether the node at POS holds a core the plan may use. */
bool planner_node_has_cores(const struct planner *p, size_t pos);
/* Units of need free on one node with `used` taken. */
unsigned planner_node_capacity(const struct planner *p, hwloc_const_bitmap_t used, size_t pos, enum unit unit);
/* Units in scope (a nodeset, or every node when NULL): all there are, those
 * reserved for the host, and those free with `used` taken. */
void planner_scope_stats(const struct planner *p, hwloc_const_bitmap_t used, hwloc_const_bitmap_t nodeset,
                         enum unit unit, unsigned *total, unsigned *reserved, unsigned *free_units);
/* Units free on the nodes ORDER[0..n) together. */
unsigned planner_order_capacity(const struct planner *p, hwloc_const_bitmap_t used, const size_t *order, size_t n,
                                enum unit unit);
/* The distance from the node at POS to the nearest of NODESET. */
uint64_t planner_distance_to_set(const struct planner *p, size_t pos, hwloc_const_bitmap_t nodeset);
/* Nodes with cores: those in nodeset first (topology order), then the rest
 * by distance to nodeset, ties by topology order.  Returns the count; *n_local
 * says how many of them lie in nodeset. */
size_t planner_nodes_by_distance(const struct planner *p, hwloc_const_bitmap_t nodeset, size_t *order, size_t *n_local);
/* The memory left on a node for instances. */
uint64_t planner_node_memory_room(const struct node_info *node);
/* Words for messages: "core(s)"/"thread(s)", "4 cores (whole cores)",
 * "NUMA nodes 0-1", and the nodes a set of CPUs lies on (into OUT). */
const char *planner_unit_word(enum unit unit, unsigned n);
void planner_need_text(struct cpu_need need, char *buf, size_t len);
void planner_nodes_text(hwloc_const_bitmap_t nodeset, char *buf, size_t len);
void planner_nodes_of_cpus(const struct planner *p, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out);
/* Whether a role's instances take whole cores: `cores`, `whole_cores`, and
 * an MDS of its own CPUs, whose SMT siblings no other role may hold (it is
 * single-threaded for most of its work and latency-bound: a sibling's load
 * halves its core; docs/profiles.md, "The MDS"). */
bool planner_role_whole_cores(const struct placer_role_spec *spec);
/* What one instance of a role needs: cores, or threads (whole cores or not). */
struct cpu_need planner_role_need(const struct placer_role_spec *spec);
/* "(32 cores, 4 reserved for the host, 8 taken by earlier roles)" */
/* "32 cores, 4 reserved for the host, 8 taken by earlier roles" (with what
 * was taken when the role started), and *AVAILABLE: what was free then. */
void planner_scope_text(const struct planner *p, hwloc_const_bitmap_t nodeset, enum unit unit, unsigned *available,
                        char *buf, size_t len);

/* ---- choosing CPUs (planner-choose.c) ---- */

/* Take need from the nodes in order into out (not marked used), each node
 * as much as it holds of what is left: the lowest-numbered free cores there
 * (align numa or none; single threads fill free cores first), or the
 * fewest caches (align cache; SCORE, when given, adds up what came out). */
bool planner_take(const struct planner *p, const size_t *order, size_t n, struct cpu_need need, enum placer_align align,
                  hwloc_bitmap_t out, struct align_score *score);
/* Choose PUs for a request.  Fills out, marks nothing.  Locality first;
 * under the preferred policy, the nearest node with room (memory too when
 * it can), then several nodes.  Among nodes equally good for locality,
 * align cache takes the one that keeps the instance in the fewest caches;
 * align none takes the lowest-numbered free cores of the whole scope. */
struct outcome planner_choose(struct planner *p, const struct request *req, hwloc_bitmap_t out);
/* Place one chosen set (an instance's, or a pool's): mark it used, and
 * held by a new holder (whom later instances would share caches with). */
void planner_commit(struct planner *p, hwloc_const_bitmap_t cpus);
/* A role's alignment on this topology: auto is cache where a NUMA node
 * holds more than one L3, numa elsewhere. */
enum placer_align planner_role_align(const struct planner *p, const struct placer_role_spec *spec);
/* What an instance of SPEC asks of planner_choose(). */
struct request planner_role_request(const struct planner *p, const struct placer_role_spec *spec, struct cpu_need need,
                                    hwloc_const_bitmap_t target, uint64_t memory_bytes);

/* ---- NICs (planner-nic.c) ---- */

/* Whether a NIC glob is `auto`: the storage NICs. */
bool planner_nic_is_auto(const char *glob);
/* The NICs that carry the storage network: those holding an address in one
 * of the profile's storage_network CIDRs (else ceph.conf's, from a live
 * topology); when none does, every port of the fastest PCI NIC, Ethernet
 * before InfiniBand/Omni-Path (Ceph speaks IP, almost always on Ethernet). */
int planner_select_storage_nics(struct planner *p);
/* Whether NIC I (of topo->nics) matches one of GLOBS (`auto`: a storage NIC). */
bool planner_nic_list_matches(const struct planner *p, const struct placer_string_list *globs, size_t i);
/* "eth0, eth1" or "none", for messages (allocated; NULL on ENOMEM). */
char *planner_nic_names(const struct placer_topology *topo);
/* The first NIC that GLOB matches; NULL: none. */
const struct placer_nic *planner_nic_for(const struct planner *p, const char *glob);

/* ---- the host reserve (planner-reserve.c) ---- */

/* Reserve what the profile's reserve: asks for the host; infeasible when
 * the node does not hold it. */
int planner_reserve(struct planner *p);

/* ---- instances, targets, warnings (planner-instance.c) ---- */

/* The role's next instance, named and filled from its spec (no CPUs yet). */
struct placer_instance *planner_new_instance(struct planner *p, struct role_state *rs, const char *device,
                                             const char *nic);
/* Fill mems and numa_node from cpus, and charge the instance's memory to
 * its nodes.  Over-commit is an error under strict, a warning otherwise. */
int planner_settle_memory(struct planner *p, struct role_state *rs, struct placer_instance *inst);
/* Free a target and zero it. */
void planner_target_clear(struct target *t);
/* Where instance k (with its device, per_numa node) should run. */
int planner_target_for(struct planner *p, const struct placer_role_spec *spec, size_t k,
                       const struct placer_blockdev *dev, size_t numa_pos, struct target *t);
/* Two known targets on the same nodes. */
bool planner_same_target(const struct target *a, const struct target *b);
/* A pool member's locality: local when its pool lies on its target; a
 * warning (preferred) or the error (strict) when not. */
int planner_locality_of_pool_member(struct planner *p, struct role_state *rs, struct placer_instance *inst,
                                    const struct target *t);
/* The L3 domains CPUS touch, as a list ("0-1,4"). */
void planner_l3_list_text(const struct planner *p, hwloc_const_bitmap_t cpus, char *buf, size_t len);
/* An instance (or a pool, for its first member SUBJECT) aligned to caches
 * that spans more L3 domains than its size needs: say why. */
int planner_split_warning(struct planner *p, struct role_state *rs, const char *subject, hwloc_const_bitmap_t cpus,
                          struct cpu_need need, const struct outcome *o);
/* An instance placed by planner_choose(): its locality, and the warnings of a
 * fallback or of a cache split it could not avoid. */
int planner_placed_warnings(struct planner *p, struct role_state *rs, struct placer_instance *inst,
                            const struct target *t, struct cpu_need need, const struct request *req,
                            const struct outcome *o);

/* ---- strategies: a number of instances (planner-fixed.c) ---- */

/* count: N, per_device, per_numa: every instance, near its target. */
int planner_place_fixed(struct planner *p, struct role_state *rs);

/* ---- strategies: count: fill (planner-fill.c) ---- */

/* count: fill in per-node pools (span_numa: false, the default for VMs):
 * on every node near the role (or every node), a pool of what is left
 * there, and as many instances as that pool and that node's memory hold;
 * each instance lies on one node, as real guests do. */
int planner_place_fill_per_node(struct planner *p, struct role_state *rs);
/* count: fill in a shared pool: the pool takes everything left near the
 * role (or anywhere), and as many instances as the pool and memory hold. */
int planner_place_fill_span(struct planner *p, struct role_state *rs);
/* count: fill with exclusive CPUs: one instance after another while one
 * more fits, in CPU and in memory. */
int planner_place_fill_exclusive(struct planner *p, struct role_state *rs);
/* count: fill when nothing is pinned: as many as the CPUs (one instance's
 * worth each) and the memory of all nodes hold. */
int planner_place_fill_unpinned(struct planner *p, struct role_state *rs);

/* ---- the strategy table (planner.c) ---- */

/* How a role is placed: the first entry of planner_strategies[] that
 * applies to it places it, in its phase (0: roles with a locality, 1:
 * roles without one, 2: count: fill, which takes what is left).  Whether
 * one applies reads only the profile (pin) and the role's spec, so that
 * the phases are known before anything is placed. */
struct planner_strategy {
  const char *name;
  int phase;
  bool (*applies)(const struct placer_profile *profile, const struct placer_role_spec *spec);
  int (*place)(struct planner *p, struct role_state *rs);
};

#define PLANNER_PHASES 3

extern const struct planner_strategy planner_strategies[];
extern const size_t planner_n_strategies;

/* The strategy that places SPEC: the first that applies; NULL: none. */
const struct planner_strategy *planner_strategy_for(const struct placer_profile *profile,
                                                    const struct placer_role_spec *spec);

/* What is wrong with a table of N strategies (an entry without a name, a
 * phase, applies or place; two of one name); NULL: nothing. */
const char *planner_strategies_check(const struct planner_strategy *table, size_t n);

#endif
