/* Which CPUs an instance or a pool takes (planner_choose): locality first;
 * among nodes as good for it, the one that keeps it in the fewest caches,
 * or the roomiest; several nodes only when one does not hold it.  And
 * marking a choice held.  Part of the pure planner (planner-internal.h). */
#include <stdlib.h>

#include "plan/planner-internal.h"

/* NODE's cores, those holding a preferred cpu (irqs: where the instance's
 * device's managed queues complete) first, each group in topology order:
 * into BUF, or NODE's own array when there is no preference. */
static const size_t *preferred_first(const struct planner *p, const struct node_info *node, size_t *buf) {
  if (buf == NULL)
    return node->cores;
  size_t k = 0;
  for (int first = 1; first >= 0; first--)
    for (size_t c = 0; c < node->n_cores; c++)
      if (hwloc_bitmap_intersects(planner_core(p, node->cores[c])->pus, p->prefer) == (first == 1))
        buf[k++] = node->cores[c];
  return buf;
}

bool planner_take(const struct planner *p, const size_t *order, size_t n, struct cpu_need need, enum placer_align align,
                  hwloc_bitmap_t out, struct align_score *score) {
  hwloc_bitmap_zero(out);
  if (score)
    *score = (struct align_score){ .best_l3 = -1 };
  unsigned left = need.amount;
  hwloc_bitmap_t part = hwloc_bitmap_alloc();
  if (part == NULL)
    return false;
  cleanup_free size_t *reorder = NULL;
  if (!hwloc_bitmap_iszero(p->prefer) && (reorder = calloc(p->topo->n_cores + 1, sizeof(*reorder))) == NULL) {
    hwloc_bitmap_free(part);
    return false;
  }
  for (size_t i = 0; i < n && left > 0; i++) {
    const struct node_info *node = &p->nodes[order[i]];
    unsigned here = planner_node_capacity(p, p->used, order[i], need.unit);
    struct cpu_need chunk = { need.unit, here < left ? here : left };
    if (chunk.amount == 0)
      continue;
    hwloc_bitmap_zero(part);
    struct align_score s;
    const size_t *cores = preferred_first(p, node, reorder);
    bool ok = align == PLACER_ALIGN_CACHE ? align_take_cache(&p->align, cores, node->n_cores, chunk, part, &s)
                                          : align_take_plain(&p->align, cores, node->n_cores, chunk, part);
    if (!ok)
      break;
    hwloc_bitmap_or(out, out, part);
    /* whole cores may hold more threads than were left */
    unsigned got = need.unit == UNIT_THREADS ? (unsigned)hwloc_bitmap_weight(part) : chunk.amount;
    if (need.unit == UNIT_WHOLE_THREADS)
      got = (unsigned)hwloc_bitmap_weight(part);
    left = got >= left ? 0 : left - got;
    if (score && align == PLACER_ALIGN_CACHE)
      align_score_add(score, &s);
  }
  hwloc_bitmap_free(part);
  /* over several nodes: the fewest L3s the size needs among all of them */
  if (score && align == PLACER_ALIGN_CACHE && n > 1 && left == 0) {
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
      total += p->nodes[order[i]].n_cores;
    size_t *cores = calloc(total ? total : 1, sizeof(*cores));
    if (cores == NULL)
      return false;
    for (size_t i = 0; i < n; i++)
      for (size_t c = 0; c < p->nodes[order[i]].n_cores; c++)
        cores[k++] = p->nodes[order[i]].cores[c];
    align_floor(&p->align, cores, total, need, score);
    free(cores);
  }
  return left == 0;
}

static bool memory_fits(const struct planner *p, size_t pos, uint64_t bytes) {
  return !p->nodes[pos].memory_known || planner_node_memory_room(&p->nodes[pos]) >= bytes;
}

/* Among candidate nodes (positions, each with room for need): the one to
 * take.  align cache: the fewest L3 domains, then the fewest shared; then
 * (ROOMIEST) the most room, which keeps nodes balanced; then the first. */
static size_t pick_node(struct planner *p, const struct request *req, const size_t *cand, size_t n, bool roomiest,
                        hwloc_bitmap_t scratch) {
  size_t best = SIZE_MAX;
  struct align_score best_score = { 0 };
  unsigned best_cap = 0;
  for (size_t i = 0; i < n; i++) {
    size_t pos = cand[i];
    unsigned cap = planner_node_capacity(p, p->used, pos, req->need.unit);
    struct align_score sc = { 0 };
    if (req->align == PLACER_ALIGN_CACHE) {
      hwloc_bitmap_zero(scratch);
      align_take_cache(&p->align, p->nodes[pos].cores, p->nodes[pos].n_cores, req->need, scratch, &sc);
    }
    bool better = best == SIZE_MAX;
    if (!better && (sc.l3s != best_score.l3s || sc.shared_l3s != best_score.shared_l3s))
      better = sc.l3s != best_score.l3s ? sc.l3s < best_score.l3s : sc.shared_l3s < best_score.shared_l3s;
    else if (!better && roomiest)
      better = cap > best_cap;
    if (better) {
      best = pos;
      best_score = sc;
      best_cap = cap;
    }
  }
  return best;
}

/* Several nodes, evenly (spread: numa): the fewest nodes k of ORDER (first
 * ones first) that each hold an even share (need / k, the remainder one
 * more on the first that hold it).  Whole cores of several threads are
 * shared out as cores.  false when no k does. */
static bool spread_take(struct planner *p, const struct request *req, const size_t *order, size_t n, hwloc_bitmap_t out,
                        struct align_score *score) {
  struct cpu_need need = req->need;
  unsigned per_core = 1;
  if (need.unit == UNIT_WHOLE_THREADS) {
    for (size_t i = 0; i < n && per_core == 1; i++)
      for (size_t k = 0; k < p->nodes[order[i]].n_cores; k++) {
        const struct placer_core *c = planner_core(p, p->nodes[order[i]].cores[k]);
        if (align_core_usable(&p->align, c)) {
          per_core = (unsigned)hwloc_bitmap_weight(c->pus);
          break;
        }
      }
    need = (struct cpu_need){ UNIT_CORES, (need.amount + per_core - 1) / per_core };
  }
  size_t chosen[n ? n : 1];
  unsigned share[n ? n : 1];
  hwloc_bitmap_t part = hwloc_bitmap_alloc();
  if (part == NULL)
    return false;
  bool ok = false;
  for (size_t k = 2; k <= n && !ok; k++) {
    unsigned base = need.amount / (unsigned)k, extra = need.amount % (unsigned)k;
    size_t m = 0;
    for (size_t i = 0; i < n && m < k; i++)
      if (base > 0 && planner_node_capacity(p, p->used, order[i], need.unit) >= base)
        chosen[m++] = order[i];
    if (m < k)
      continue;
    for (size_t i = 0; i < m; i++) {
      share[i] = base;
      if (extra && planner_node_capacity(p, p->used, chosen[i], need.unit) > base) {
        share[i]++;
        extra--;
      }
    }
    if (extra)
      continue;
    hwloc_bitmap_zero(out);
    if (score)
      *score = (struct align_score){ .best_l3 = -1 };
    ok = true;
    for (size_t i = 0; i < m && ok; i++) {
      struct align_score sc;
      ok = planner_take(p, &chosen[i], 1, (struct cpu_need){ need.unit, share[i] }, req->align, part, &sc);
      hwloc_bitmap_or(out, out, part);
      if (ok && score && req->align == PLACER_ALIGN_CACHE)
        align_score_add(score, &sc);
    }
  }
  hwloc_bitmap_free(part);
  return ok;
}

/* Several nodes in ORDER: evenly when the role asks (and can be), else
 * each node as much as it holds. */
static bool take_several(struct planner *p, const struct request *req, const size_t *order, size_t n,
                         hwloc_bitmap_t out, struct outcome *o) {
  if (req->spread && spread_take(p, req, order, n, out, &o->score)) {
    o->spread = true;
    return true;
  }
  return planner_take(p, order, n, req->need, req->align, out, &o->score);
}

/* The node with the most room first, then the rest by distance to it: where
 * an instance without locality spreads from. */
static size_t nodes_from_roomiest(const struct planner *p, enum unit unit, size_t *order) {
  size_t seed = SIZE_MAX;
  unsigned best = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    unsigned cap = planner_node_capacity(p, p->used, i, unit);
    if (cap > best) {
      best = cap;
      seed = i;
    }
  }
  size_t n_local;
  if (seed == SIZE_MAX)
    return planner_nodes_by_distance(p, NULL, order, &n_local);
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  if (one == NULL)
    return 0;
  hwloc_bitmap_set(one, p->nodes[seed].os);
  size_t n = planner_nodes_by_distance(p, one, order, &n_local);
  hwloc_bitmap_free(one);
  return n;
}

/* The nodes of ORDER[0..n) with room for the need (and its memory when
 * WITH_MEMORY), in order. */
static size_t nodes_with_room(struct planner *p, const struct request *req, const size_t *order, size_t n,
                              bool with_memory, size_t *cand) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (planner_node_capacity(p, p->used, order[i], req->need.unit) >= req->need.amount &&
        (!with_memory || memory_fits(p, order[i], req->memory_bytes)))
      cand[m++] = order[i];
  return m;
}

/* The remote nodes (ORDER[from..n), by distance) with room for need (and
 * the memory when WITH_MEMORY) at the nearest distance any has. */
static size_t nearest_with_room(struct planner *p, const struct request *req, const size_t *order, size_t from,
                                size_t n, bool with_memory, size_t *cand) {
  size_t m = 0;
  uint64_t at = UINT64_MAX;
  for (size_t i = from; i < n; i++) {
    if (planner_node_capacity(p, p->used, order[i], req->need.unit) < req->need.amount ||
        (with_memory && !memory_fits(p, order[i], req->memory_bytes)))
      continue;
    uint64_t d = planner_distance_to_set(p, order[i], req->target);
    if (d > at)
      break;
    at = d;
    cand[m++] = order[i];
  }
  return m;
}

/* The one node to take among ORDER[from..n): of those with room for the
 * need (REMOTE: only those at the nearest distance to the target any has),
 * those with its memory too when any has it (*WITH_MEMORY says whether it
 * did), pick_node() among them: the roomiest when there is no target.
 * SIZE_MAX: no one node has room. */
static size_t node_with_room(struct planner *p, const struct request *req, const size_t *order, size_t from, size_t n,
                             bool remote, size_t *cand, hwloc_bitmap_t scratch, bool *with_memory) {
  for (int mem = 1; mem >= 0; mem--) {
    size_t m = remote ? nearest_with_room(p, req, order, from, n, mem, cand)
                      : nodes_with_room(p, req, order + from, n - from, mem, cand);
    size_t best = pick_node(p, req, cand, m, req->target == NULL, scratch);
    if (best != SIZE_MAX) {
      *with_memory = mem;
      return best;
    }
  }
  return SIZE_MAX;
}

struct outcome planner_choose(struct planner *p, const struct request *req, hwloc_bitmap_t out) {
  struct outcome o = { .choice = NO_ROOM, .passed_over = SIZE_MAX };
  o.score.best_l3 = -1;
  size_t order[p->n_nodes ? p->n_nodes : 1], cand[p->n_nodes ? p->n_nodes : 1];
  size_t n_local;
  size_t n = planner_nodes_by_distance(p, req->target, order, &n_local);
  struct cpu_need need = req->need;
  hwloc_bitmap_t scratch = hwloc_bitmap_alloc();
  if (scratch == NULL)
    return o;
  bool local_room = req->target && planner_order_capacity(p, p->used, order, n_local, need.unit) >= need.amount;
  if (req->align == PLACER_ALIGN_NONE) {
    if (req->target && !local_room && req->policy == PLACER_POLICY_STRICT)
      o.choice = NO_ROOM_THERE;
    else if (local_room)
      o.choice = planner_take(p, order, n_local, need, req->align, out, NULL) ? CHOSE_LOCAL : NO_ROOM_THERE;
    else
      o.choice =
          planner_take(p, order, n, need, req->align, out, NULL) ? (req->target ? CHOSE_REMOTE : CHOSE_ANY) : NO_ROOM;
    goto done;
  }
  bool with_memory = false;
  if (local_room) {
    size_t best = node_with_room(p, req, order, 0, n_local, false, cand, scratch, &with_memory);
    if (best != SIZE_MAX)
      o.choice = planner_take(p, &best, 1, need, req->align, out, &o.score) ? CHOSE_LOCAL : NO_ROOM_THERE;
    else
      o.choice = take_several(p, req, order, n_local, out, &o) ? CHOSE_LOCAL : NO_ROOM_THERE;
    goto done;
  }
  if (req->target) {
    if (req->policy == PLACER_POLICY_STRICT) {
      o.choice = NO_ROOM_THERE;
      goto done;
    }
    size_t best = node_with_room(p, req, order, n_local, n, true, cand, scratch, &with_memory);
    if (best == SIZE_MAX) {
      o.choice = take_several(p, req, order, n, out, &o) ? CHOSE_REMOTE : NO_ROOM;
      goto done;
    }
    /* a node as near (earlier in order) or nearer had the CPUs but not
     * the memory: the warning says so */
    for (size_t i = n_local; with_memory && i < n && order[i] != best && o.passed_over == SIZE_MAX; i++)
      if (planner_node_capacity(p, p->used, order[i], need.unit) >= need.amount &&
          !memory_fits(p, order[i], req->memory_bytes))
        o.passed_over = order[i];
    o.choice = planner_take(p, &best, 1, need, req->align, out, &o.score) ? CHOSE_REMOTE : NO_ROOM;
    goto done;
  }
  /* No locality: the node with the most room (memory too when it can),
   * which keeps nodes balanced; several nodes only when no one node fits. */
  size_t best = node_with_room(p, req, order, 0, n, false, cand, scratch, &with_memory);
  if (best != SIZE_MAX) {
    o.choice = planner_take(p, &best, 1, need, req->align, out, &o.score) ? CHOSE_ANY : NO_ROOM;
    goto done;
  }
  if (req->spread)
    n = nodes_from_roomiest(p, need.unit, order);
  o.choice = take_several(p, req, order, n, out, &o) ? CHOSE_ANY : NO_ROOM;
done:
  hwloc_bitmap_free(scratch);
  return o;
}

void planner_commit(struct planner *p, hwloc_const_bitmap_t cpus) {
  hwloc_bitmap_or(p->used, p->used, cpus);
  p->n_holders++;
  for (int pu = hwloc_bitmap_first(cpus); pu >= 0; pu = hwloc_bitmap_next(cpus, pu))
    if ((size_t)pu < p->n_owner)
      p->owner[pu] = p->n_holders;
}

enum placer_align planner_role_align(const struct planner *p, const struct placer_role_spec *spec) {
  if (spec->cpu.align == PLACER_ALIGN_AUTO)
    return p->several_l3 ? PLACER_ALIGN_CACHE : PLACER_ALIGN_NUMA;
  return spec->cpu.align;
}

struct request planner_role_request(const struct planner *p, const struct placer_role_spec *spec, struct cpu_need need,
                                    hwloc_const_bitmap_t target, uint64_t memory_bytes) {
  return (struct request){
    need, target, spec->policy, memory_bytes, planner_role_align(p, spec), spec->cpu.spread == PLACER_SPREAD_NUMA
  };
}
