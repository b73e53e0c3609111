/* Cache-aware choice of CPUs (planner-internal.h).  An instance whose threads
 * straddle two L3 domains (AMD's CCXs) pays for it in cross-CCX traffic;
 * two instances in one L3 thrash each other's cache.  So among the cores
 * the planner offers (a NUMA node's, usually) this picks, level by level
 * (L3 domains, then L2 clusters), the fewest domains that hold the need,
 * unshared ones when that costs no extra domain, and within them the
 * lowest-numbered cores as the plain take does. */
#include "plan/planner-internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"

enum level { LEVEL_L3, LEVEL_L2, LEVEL_CORES };

struct domain {
  int key;
  size_t *cores; /* indexes into topo->cores, topology order */
  size_t n;
  unsigned cap;       /* units free */
  unsigned clean_cap; /* units free with only the reserve taken */
  unsigned occupants; /* instances or pools holding a part of it */
  unsigned take;      /* units chosen here */
};

static const struct placer_core *core_at(const struct align_ctx *ctx, size_t i) {
  return &ctx->topo->cores[i];
}

bool align_core_usable(const struct align_ctx *ctx, const struct placer_core *c) {
  return !hwloc_bitmap_iszero(c->pus) && hwloc_bitmap_isincluded(c->pus, ctx->usable);
}

bool align_core_free(const struct align_ctx *ctx, hwloc_const_bitmap_t used, const struct placer_core *c) {
  return align_core_usable(ctx, c) && !hwloc_bitmap_intersects(c->pus, used);
}

void align_score_add(struct align_score *into, const struct align_score *part) {
  into->l3s += part->l3s;
  into->shared_l3s += part->shared_l3s;
  into->min_l3s += part->min_l3s;
  if (part->best_free > into->best_free) {
    into->best_free = part->best_free;
    into->best_l3 = part->best_l3;
  }
}

/* SPARE: single threads may use the spare threads of cores held in part. */
static unsigned capacity(const struct align_ctx *ctx, hwloc_const_bitmap_t used, const size_t *cores, size_t n,
                         enum unit unit, bool spare) {
  unsigned total = 0;
  for (size_t k = 0; k < n; k++) {
    const struct placer_core *c = core_at(ctx, cores[k]);
    if (unit == UNIT_THREADS && spare) {
      for (int pu = hwloc_bitmap_first(c->pus); pu >= 0; pu = hwloc_bitmap_next(c->pus, pu))
        if (hwloc_bitmap_isset(ctx->usable, (unsigned)pu) && !hwloc_bitmap_isset(used, (unsigned)pu))
          total++;
    } else if (align_core_free(ctx, used, c)) {
      total += unit == UNIT_CORES ? 1 : (unsigned)hwloc_bitmap_weight(c->pus);
    }
  }
  return total;
}

unsigned align_capacity(const struct align_ctx *ctx, hwloc_const_bitmap_t used, const size_t *cores, size_t n,
                        enum unit unit) {
  return capacity(ctx, used, cores, n, unit, true);
}

bool align_take_plain(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need,
                      hwloc_bitmap_t out) {
  unsigned got = 0;
  for (int pass = 0; pass < (need.unit == UNIT_THREADS ? 2 : 1) && got < need.amount; pass++) {
    for (size_t k = 0; k < n && got < need.amount; k++) {
      const struct placer_core *c = core_at(ctx, cores[k]);
      if (pass == 0 && !align_core_free(ctx, ctx->used, c))
        continue;
      if (need.unit == UNIT_CORES) {
        hwloc_bitmap_or(out, out, c->pus);
        got++;
        continue;
      }
      if (need.unit == UNIT_WHOLE_THREADS) {
        hwloc_bitmap_or(out, out, c->pus);
        got += (unsigned)hwloc_bitmap_weight(c->pus);
        continue;
      }
      for (int pu = hwloc_bitmap_first(c->pus); pu >= 0 && got < need.amount; pu = hwloc_bitmap_next(c->pus, pu)) {
        if (!hwloc_bitmap_isset(ctx->usable, (unsigned)pu) || hwloc_bitmap_isset(ctx->used, (unsigned)pu) ||
            hwloc_bitmap_isset(out, (unsigned)pu))
          continue;
        hwloc_bitmap_set(out, (unsigned)pu);
        got++;
      }
    }
  }
  return got >= need.amount;
}

/* ---- domains ---- */

static bool level_known(const struct placer_topology *topo, enum level level) {
  return level == LEVEL_L3 ? topo->n_l3_groups > 0 : level == LEVEL_L2 ? topo->n_l2_clusters > 0 : false;
}

/* A core's domain at LEVEL; a core in no L2 cluster (its L2 its own) is a
 * domain of its own, one with no L3 shares "none" with the others. */
static int key_of(const struct placer_core *c, enum level level) {
  if (level == LEVEL_L3)
    return c->l3_group;
  return c->l2_cluster >= 0 ? c->l2_cluster : -2 - (int)c->logical_index;
}

static unsigned occupants_of(const struct align_ctx *ctx, const struct domain *d) {
  unsigned seen[16], n_seen = 0, n = 0;
  for (size_t k = 0; k < d->n; k++) {
    hwloc_const_bitmap_t pus = core_at(ctx, d->cores[k])->pus;
    for (int pu = hwloc_bitmap_first(pus); pu >= 0; pu = hwloc_bitmap_next(pus, pu)) {
      unsigned who = (size_t)pu < ctx->n_owner ? ctx->owner[pu] : 0;
      if (who == 0)
        continue;
      bool known = false;
      for (unsigned i = 0; i < n_seen && !known; i++)
        known = seen[i] == who;
      if (known)
        continue;
      n++;
      if (n_seen < N_OF(seen))
        seen[n_seen++] = who;
    }
  }
  return n;
}

/* Group CORES by their domain at LEVEL, in order of first appearance.
 * STORE holds n core indexes (the domains point into it). */
static size_t build_domains(const struct align_ctx *ctx, const size_t *cores, size_t n, enum level level,
                            enum unit unit, bool spare, struct domain *doms, size_t *store) {
  size_t nd = 0, used_store = 0;
  for (size_t k = 0; k < n; k++) {
    int key = key_of(core_at(ctx, cores[k]), level);
    size_t d = 0;
    while (d < nd && doms[d].key != key)
      d++;
    if (d < nd)
      continue;
    doms[nd] = (struct domain){ .key = key, .cores = &store[used_store] };
    for (size_t j = k; j < n; j++)
      if (key_of(core_at(ctx, cores[j]), level) == key)
        store[used_store + doms[nd].n++] = cores[j];
    used_store += doms[nd].n;
    nd++;
  }
  for (size_t d = 0; d < nd; d++) {
    doms[d].cap = capacity(ctx, ctx->used, doms[d].cores, doms[d].n, unit, spare);
    doms[d].clean_cap = capacity(ctx, ctx->reserved, doms[d].cores, doms[d].n, unit, spare);
    doms[d].occupants = occupants_of(ctx, &doms[d]);
  }
  return nd;
}

/* A domain as one plan of the spread sees it: CLEAN looks at it with only
 * the reserve taken (how many domains the size alone needs). */
static unsigned cap_of(const struct domain *d, bool clean) {
  return clean ? d->clean_cap : d->cap;
}

static unsigned occupants_seen(const struct domain *d, bool clean) {
  return clean ? 0 : d->occupants;
}

/* The domain to take the rest from when one holds it: unshared, then the
 * tightest fit (keeps roomier ones whole), then the fewest neighbours. */
static bool better_fit(const struct domain *a, const struct domain *b, bool clean) {
  unsigned oa = occupants_seen(a, clean), ob = occupants_seen(b, clean);
  if ((oa > 0) != (ob > 0))
    return oa == 0;
  if (cap_of(a, clean) != cap_of(b, clean))
    return cap_of(a, clean) < cap_of(b, clean);
  return oa < ob;
}

/* The domain to take whole when none holds the rest: the roomiest, unshared
 * first among equals. */
static bool better_whole(const struct domain *a, const struct domain *b, bool clean) {
  if (cap_of(a, clean) != cap_of(b, clean))
    return cap_of(a, clean) > cap_of(b, clean);
  return (occupants_seen(a, clean) > 0) < (occupants_seen(b, clean) > 0);
}

/* Spread AMOUNT over the domains, fewest domains first (UNSHARED: only
 * those nobody else holds a part of).  Sets each domain's take; returns how
 * many it uses, 0 when they do not hold AMOUNT.  Taking the roomiest whole
 * until one holds the rest uses the fewest domains there are. */
static unsigned plan_domains(struct domain *doms, size_t nd, unsigned amount, bool clean, bool unshared) {
  for (size_t d = 0; d < nd; d++)
    doms[d].take = 0;
  unsigned left = amount, used = 0;
  while (left > 0) {
    struct domain *fit = NULL, *whole = NULL;
    for (size_t d = 0; d < nd; d++) {
      struct domain *x = &doms[d];
      if (x->take || cap_of(x, clean) == 0 || (unshared && occupants_seen(x, clean) > 0))
        continue;
      if (cap_of(x, clean) >= left) {
        if (fit == NULL || better_fit(x, fit, clean))
          fit = x;
      } else if (whole == NULL || better_whole(x, whole, clean)) {
        whole = x;
      }
    }
    struct domain *pick = fit ? fit : whole;
    if (pick == NULL)
      return 0;
    pick->take = fit ? left : cap_of(pick, clean);
    left -= pick->take;
    used++;
  }
  return used;
}

static unsigned shared_taken(const struct domain *doms, size_t nd) {
  unsigned n = 0;
  for (size_t d = 0; d < nd; d++)
    n += doms[d].take && doms[d].occupants;
  return n;
}

static void floor_of(struct domain *doms, size_t nd, struct cpu_need need, struct align_score *score) {
  score->min_l3s = plan_domains(doms, nd, need.amount, true, false);
  score->best_free = 0;
  score->best_l3 = -1;
  for (size_t d = 0; d < nd; d++)
    if (doms[d].key >= 0 && doms[d].cap > score->best_free) {
      score->best_free = doms[d].cap;
      score->best_l3 = doms[d].key;
    }
}

static bool take_level(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need, bool spare,
                       enum level level, hwloc_bitmap_t out, struct align_score *score) {
  while (level != LEVEL_CORES && !level_known(ctx->topo, level))
    level++;
  if (level == LEVEL_CORES)
    return align_take_plain(ctx, cores, n, need, out);
  struct domain *doms = calloc(n ? n : 1, sizeof(*doms));
  size_t *store = calloc(n ? n : 1, sizeof(*store));
  bool ok = false;
  if (doms == NULL || store == NULL)
    goto out;
  size_t nd = build_domains(ctx, cores, n, level, need.unit, spare, doms, store);
  if (score && level == LEVEL_L3)
    floor_of(doms, nd, need, score);
  /* unshared domains alone, unless that takes more of them */
  unsigned k_all = plan_domains(doms, nd, need.amount, false, false);
  unsigned k_unshared = plan_domains(doms, nd, need.amount, false, true);
  if (k_all == 0)
    goto out;
  if (k_unshared == 0 || k_unshared > k_all)
    plan_domains(doms, nd, need.amount, false, false);
  if (score && level == LEVEL_L3) {
    for (size_t d = 0; d < nd; d++)
      score->l3s += doms[d].take > 0 && doms[d].key >= 0;
    score->shared_l3s = shared_taken(doms, nd);
  }
  ok = true;
  for (size_t d = 0; d < nd && ok; d++)
    if (doms[d].take)
      ok = take_level(ctx, doms[d].cores, doms[d].n, (struct cpu_need){ need.unit, doms[d].take }, spare, level + 1,
                      out, NULL);
out:
  free(doms);
  free(store);
  return ok;
}

bool align_take_cache(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need,
                      hwloc_bitmap_t out, struct align_score *score) {
  if (score)
    *score = (struct align_score){ .best_l3 = -1 };
  /* single threads: free cores while they suffice, as the plain take */
  bool spare = need.unit == UNIT_THREADS && capacity(ctx, ctx->used, cores, n, need.unit, false) < need.amount;
  return take_level(ctx, cores, n, need, spare, LEVEL_L3, out, score);
}

void align_floor(const struct align_ctx *ctx, const size_t *cores, size_t n, struct cpu_need need,
                 struct align_score *score) {
  if (!level_known(ctx->topo, LEVEL_L3))
    return;
  struct domain *doms = calloc(n ? n : 1, sizeof(*doms));
  size_t *store = calloc(n ? n : 1, sizeof(*store));
  if (doms && store) {
    bool spare = need.unit == UNIT_THREADS && capacity(ctx, ctx->used, cores, n, need.unit, false) < need.amount;
    floor_of(doms, build_domains(ctx, cores, n, LEVEL_L3, need.unit, spare, doms, store), need, score);
  }
  free(doms);
  free(store);
}

void align_l3s_of(const struct placer_topology *topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < topo->n_l3_groups; i++)
    if (hwloc_bitmap_intersects(topo->l3_groups[i].cpus, cpus))
      hwloc_bitmap_set(out, (unsigned)i);
}

bool align_several_l3_per_node(const struct placer_topology *topo) {
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    int first = -1;
    for (size_t c = 0; c < topo->n_cores; c++) {
      const struct placer_core *core = &topo->cores[c];
      if (core->numa_node != (int)topo->numa_nodes[i].os_index || core->l3_group < 0)
        continue;
      if (first < 0)
        first = core->l3_group;
      else if (core->l3_group != first)
        return true;
    }
  }
  return false;
}

bool align_has_caches(const struct placer_topology *topo) {
  return topo->n_l3_groups > 0 || topo->n_l2_clusters > 0;
}

/* The L3 of a part (each lies in one, but the rest's part). */
static int l3_of_part(const struct placer_topology *topo, hwloc_const_bitmap_t part) {
  for (size_t g = 0; g < topo->n_l3_groups; g++)
    if (hwloc_bitmap_intersects(topo->l3_groups[g].cpus, part))
      return (int)g;
  return -1;
}

int align_split_pool(const struct align_ctx *ctx, hwloc_const_bitmap_t pool, struct cpu_need need,
                     hwloc_bitmap_t *parts, unsigned *counts, size_t cap) {
  const struct placer_topology *topo = ctx->topo;
  size_t *cores = calloc(topo->n_cores ? topo->n_cores : 1, sizeof(*cores));
  struct domain *doms = calloc(topo->n_cores ? topo->n_cores : 1, sizeof(*doms));
  size_t *store = calloc(topo->n_cores ? topo->n_cores : 1, sizeof(*store));
  hwloc_bitmap_t outside = hwloc_bitmap_alloc(), rest = hwloc_bitmap_dup(pool);
  int n_parts = -1;
  if (cores == NULL || doms == NULL || store == NULL || outside == NULL || rest == NULL)
    goto out;
  size_t n = 0;
  for (size_t c = 0; c < topo->n_cores; c++)
    if (hwloc_bitmap_intersects(topo->cores[c].pus, pool))
      cores[n++] = c;
  /* the pool as the only free CPUs */
  hwloc_bitmap_not(outside, pool);
  struct align_ctx in_pool = *ctx;
  in_pool.used = outside;
  in_pool.reserved = outside;
  size_t nd = build_domains(&in_pool, cores, n, LEVEL_L3, need.unit, true, doms, store);
  n_parts = 0;
  for (size_t d = 0; d < nd && (size_t)n_parts < cap; d++) {
    unsigned count = need.amount ? doms[d].cap / need.amount : 0;
    if (count == 0)
      continue;
    hwloc_bitmap_t part = hwloc_bitmap_alloc();
    if (part == NULL) {
      n_parts = -1;
      goto out;
    }
    parts[n_parts] = part;
    counts[n_parts++] = count;
    align_take_plain(&in_pool, doms[d].cores, doms[d].n, (struct cpu_need){ need.unit, count * need.amount }, part);
    hwloc_bitmap_andnot(rest, rest, part);
  }
  /* what every L3 has left: one more part when it holds an instance, else
   * back to the part of its own L3 (no CPU of the pool left idle) */
  hwloc_bitmap_not(outside, rest);
  unsigned rest_count = need.amount ? align_capacity(&in_pool, outside, cores, n, need.unit) / need.amount : 0;
  if (rest_count > 0 && (size_t)n_parts < cap) {
    parts[n_parts] = hwloc_bitmap_dup(rest);
    if (parts[n_parts] == NULL) {
      n_parts = -1;
      goto out;
    }
    counts[n_parts++] = rest_count;
  } else if (n_parts > 0) {
    /* each L3's rest to its own part, or to the part of the nearest L3 */
    for (size_t g = 0; g < topo->n_l3_groups; g++) {
      if (!hwloc_bitmap_intersects(topo->l3_groups[g].cpus, rest))
        continue;
      int best = 0;
      size_t best_gap = SIZE_MAX;
      for (int i = 0; i < n_parts; i++) {
        int l3 = l3_of_part(topo, parts[i]);
        size_t gap = l3 < 0 ? SIZE_MAX - 1 : (size_t)(l3 > (int)g ? l3 - (int)g : (int)g - l3);
        if (gap < best_gap) {
          best = i;
          best_gap = gap;
        }
      }
      hwloc_bitmap_t mine = hwloc_bitmap_alloc();
      if (mine == NULL) {
        n_parts = -1;
        goto out;
      }
      hwloc_bitmap_and(mine, rest, topo->l3_groups[g].cpus);
      hwloc_bitmap_or(parts[best], parts[best], mine);
      hwloc_bitmap_andnot(rest, rest, mine);
      hwloc_bitmap_free(mine);
    }
    /* cores in no L3: to the last part */
    hwloc_bitmap_or(parts[n_parts - 1], parts[n_parts - 1], rest);
  }
out:
  if (n_parts < 0)
    for (size_t i = 0; i < cap && parts[i]; i++) {
      hwloc_bitmap_free(parts[i]);
      parts[i] = NULL;
    }
  free(cores);
  free(doms);
  free(store);
  hwloc_bitmap_free(outside);
  hwloc_bitmap_free(rest);
  return n_parts;
}
