/* Cache-aware choice of CPUs for the planner (planner-align.c): which of a
 * set of cores an instance or a pool takes so that it lies in the fewest L3
 * domains (then L2 clusters) its size allows, and shares none with another
 * instance when an unshared choice exists.  Pure, like the planner: it reads
 * the topology and the planner's bookkeeping handed in, nothing else.
 * Internal to planner*.c. */
#ifndef PLACER_PLANNER_ALIGN_H
#define PLACER_PLANNER_ALIGN_H

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>

#include "topology.h"

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

#endif
