/* The planner: topology + profile -> plan.  Pure and deterministic: it reads
 * only its two inputs, iterates in topology order and never looks at the
 * clock, the environment or pointer values.
 *
 * Order of work: the host reserve; then roles with a locality (device, NIC,
 * NUMA node, spread) in profile order; then roles without one; then the
 * roles with count: fill, which take what is left.  Instances are listed in
 * profile order whatever the order they were placed in. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan-internal.h"
#include "planner-align.h"
#include "profile.h"
#include "lib/cidr.h"
#include "lib/units.h"

struct node_info {
  unsigned os;
  size_t *cores; /* indexes into topo->cores, topology order */
  size_t n_cores;
  bool memory_known;
  uint64_t memory_total, memory_reserved, memory_used;
  char *first_over; /* the instance that first over-committed it (preferred policy) */
};

struct pool_state {
  const char *name;
  struct cpu_need need;
  bool placed;
  bool fill;
  hwloc_bitmap_t cpus;
  hwloc_bitmap_t *node_cpus; /* fill without span_numa: one pool per node (by node position) */
};

struct role_state {
  const struct placer_role_spec *spec;
  size_t pos;
  struct placer_instance *inst;
  size_t n, cap;
  struct pool_state *pool;
};

struct warning {
  int group;    /* 0: reserve, 1: an instance, 2: a NUMA node's memory */
  size_t role;  /* profile position (group 1) or node position (group 2) */
  size_t index; /* instance within its role */
  size_t seq;
  char *text;
};

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
  unsigned n_holders;     /* instances and pools placed so far: the last holder's id */
  bool several_l3;        /* some NUMA node holds more than one L3: align: auto means cache */
  struct align_ctx align; /* the alignment's view of the above (planner-align.h) */

  /* IRQs (planner-irq.c) */
  struct placer_plan_nic_cores *nic_cores; /* reserve.nics: each NIC's cores (for irqs: nic_cores) */
  size_t n_nic_cores;
  hwloc_bitmap_t prefer; /* taken first among equivalent cores: where the instance's device's
                          * managed queues complete (irqs:, planner-irq.c); empty: none */
};

enum choice { CHOSE_LOCAL, CHOSE_REMOTE, CHOSE_ANY, NO_ROOM_THERE, NO_ROOM };

static int oom(struct planner *p) {
  return placer_error_oom(p->err, "plan");
}

static int infeasible(struct planner *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int infeasible(struct planner *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0)
    msg = NULL;
  va_end(ap);
  placer_error_set(p->err, PLACER_EXIT_INFEASIBLE, 0, "%s", msg ? msg : "out of memory");
  free(msg);
  return -1;
}

static int warn(struct planner *p, int group, size_t role, size_t index, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int warn(struct planner *p, int group, size_t role, size_t index, const char *fmt, ...) {
  struct warning *bigger = realloc(p->warnings, (p->n_warnings + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return oom(p);
  p->warnings = bigger;
  va_list ap;
  va_start(ap, fmt);
  char *text = NULL;
  if (vasprintf(&text, fmt, ap) < 0)
    text = NULL;
  va_end(ap);
  if (text == NULL)
    return oom(p);
  p->warnings[p->n_warnings] = (struct warning){ group, role, index, p->n_warnings, text };
  p->n_warnings++;
  return 0;
}

/* ---- the node as the planner sees it ---- */

static const struct placer_core *core_at(const struct planner *p, size_t i) {
  return &p->topo->cores[i];
}

static size_t node_pos_of_os(const struct planner *p, unsigned os) {
  for (size_t i = 0; i < p->n_nodes; i++)
    if (p->nodes[i].os == os)
      return i;
  return SIZE_MAX;
}

static int setup_nodes(struct planner *p) {
  const struct placer_topology *t = p->topo;
  p->n_nodes = t->n_numa_nodes;
  p->nodes = calloc(p->n_nodes ? p->n_nodes : 1, sizeof(*p->nodes));
  size_t *node_of = calloc(t->n_cores ? t->n_cores : 1, sizeof(*node_of));
  if (p->nodes == NULL || node_of == NULL) {
    free(node_of);
    return oom(p);
  }
  /* A core belongs to the node of its first PU (cores never span nodes on
   * real machines; the rule only keeps odd XML files deterministic). */
  for (size_t c = 0; c < t->n_cores; c++) {
    node_of[c] = SIZE_MAX;
    int first = hwloc_bitmap_first(t->cores[c].pus);
    for (size_t i = 0; first >= 0 && i < p->n_nodes; i++)
      if (hwloc_bitmap_isset(t->numa_nodes[i].cpus, (unsigned)first)) {
        node_of[c] = i;
        p->nodes[i].n_cores++;
        break;
      }
  }
  int rc = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    p->nodes[i].os = t->numa_nodes[i].os_index;
    p->nodes[i].memory_total = t->numa_nodes[i].memory_bytes;
    p->nodes[i].memory_known = t->numa_nodes[i].memory_bytes > 0;
    p->nodes[i].cores = calloc(p->nodes[i].n_cores ? p->nodes[i].n_cores : 1, sizeof(size_t));
    p->nodes[i].n_cores = 0;
    if (p->nodes[i].cores == NULL)
      rc = -1;
  }
  for (size_t c = 0; rc == 0 && c < t->n_cores; c++)
    if (node_of[c] != SIZE_MAX) {
      struct node_info *node = &p->nodes[node_of[c]];
      node->cores[node->n_cores++] = c;
    }
  free(node_of);
  return rc < 0 ? oom(p) : 0;
}

static bool node_has_cores(const struct planner *p, size_t pos) {
  for (size_t k = 0; k < p->nodes[pos].n_cores; k++)
    if (align_core_usable(&p->align, core_at(p, p->nodes[pos].cores[k])))
      return true;
  return false;
}

/* Units of need free on one node with `used` taken. */
static unsigned node_capacity(const struct planner *p, hwloc_const_bitmap_t used, size_t pos, enum unit unit) {
  return align_capacity(&p->align, used, p->nodes[pos].cores, p->nodes[pos].n_cores, unit);
}

/* Units in scope (a nodeset, or every node when NULL): all there are, those
 * reserved for the host, and those free with `used` taken. */
static void scope_stats(const struct planner *p, hwloc_const_bitmap_t used, hwloc_const_bitmap_t nodeset,
                        enum unit unit, unsigned *total, unsigned *reserved, unsigned *free_units) {
  *total = *reserved = *free_units = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    if (nodeset && !hwloc_bitmap_isset(nodeset, p->nodes[i].os))
      continue;
    for (size_t k = 0; k < p->nodes[i].n_cores; k++) {
      const struct placer_core *c = core_at(p, p->nodes[i].cores[k]);
      if (unit == UNIT_THREADS) {
        for (int pu = hwloc_bitmap_first(c->pus); pu >= 0; pu = hwloc_bitmap_next(c->pus, pu)) {
          if (!hwloc_bitmap_isset(p->usable, (unsigned)pu))
            continue;
          (*total)++;
          if (hwloc_bitmap_isset(p->reserved, (unsigned)pu))
            (*reserved)++;
          else if (!hwloc_bitmap_isset(used, (unsigned)pu))
            (*free_units)++;
        }
        continue;
      }
      if (!align_core_usable(&p->align, c))
        continue;
      unsigned weight = unit == UNIT_CORES ? 1 : (unsigned)hwloc_bitmap_weight(c->pus);
      *total += weight;
      if (hwloc_bitmap_intersects(c->pus, p->reserved))
        *reserved += weight;
      else if (!hwloc_bitmap_intersects(c->pus, used))
        *free_units += weight;
    }
  }
}

static unsigned order_capacity(const struct planner *p, hwloc_const_bitmap_t used, const size_t *order, size_t n,
                               enum unit unit) {
  unsigned total = 0;
  for (size_t i = 0; i < n; i++)
    total += node_capacity(p, used, order[i], unit);
  return total;
}

/* Take need from the nodes in order into out (not marked used), each node
 * as much as it holds of what is left: the lowest-numbered free cores there
 * (align numa or none; single threads fill free cores first), or the
 * fewest caches (align cache; SCORE, when given, adds up what came out). */
/* NODE's cores, those holding a preferred cpu (irqs: where the instance's
 * device's managed queues complete) first, each group in topology order:
 * into BUF, or NODE's own array when there is no preference. */
static const size_t *preferred_first(const struct planner *p, const struct node_info *node, size_t *buf) {
  if (buf == NULL)
    return node->cores;
  size_t k = 0;
  for (int first = 1; first >= 0; first--)
    for (size_t c = 0; c < node->n_cores; c++)
      if (hwloc_bitmap_intersects(core_at(p, node->cores[c])->pus, p->prefer) == (first == 1))
        buf[k++] = node->cores[c];
  return buf;
}

static bool take(const struct planner *p, const size_t *order, size_t n, struct cpu_need need, enum placer_align align,
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
    unsigned here = node_capacity(p, p->used, order[i], need.unit);
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

/* Ordering distance between two nodes: hwloc's matrix when there is one,
 * else same package before other packages. */
static uint64_t node_distance(const struct planner *p, size_t a, size_t b) {
  if (a == b)
    return 0;
  uint64_t d = placer_topology_distance(p->topo, p->nodes[a].os, p->nodes[b].os);
  if (d)
    return d;
  return p->topo->numa_nodes[a].package == p->topo->numa_nodes[b].package ? 1 : 2;
}

static uint64_t distance_to_set(const struct planner *p, size_t pos, hwloc_const_bitmap_t nodeset) {
  uint64_t best = UINT64_MAX;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (hwloc_bitmap_isset(nodeset, p->nodes[i].os)) {
      uint64_t d = node_distance(p, i, pos);
      if (d < best)
        best = d;
    }
  return best;
}

/* Nodes with cores: those in nodeset first (topology order), then the rest
 * by distance to nodeset, ties by topology order.  Returns the count; *n_local
 * says how many of them lie in nodeset. */
static size_t nodes_by_distance(const struct planner *p, hwloc_const_bitmap_t nodeset, size_t *order, size_t *n_local) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (node_has_cores(p, i) && (nodeset == NULL || hwloc_bitmap_isset(nodeset, p->nodes[i].os)))
      order[n++] = i;
  *n_local = n;
  if (nodeset == NULL)
    return n;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (node_has_cores(p, i) && !hwloc_bitmap_isset(nodeset, p->nodes[i].os))
      order[n++] = i;
  /* insertion sort of the remote part: stable, n is small */
  for (size_t i = *n_local + 1; i < n; i++) {
    size_t v = order[i];
    uint64_t dv = distance_to_set(p, v, nodeset);
    size_t j = i;
    while (j > *n_local && distance_to_set(p, order[j - 1], nodeset) > dv) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = v;
  }
  return n;
}

static uint64_t node_memory_room(const struct node_info *node) {
  uint64_t budget = node->memory_total > node->memory_reserved ? node->memory_total - node->memory_reserved : 0;
  return budget > node->memory_used ? budget - node->memory_used : 0;
}

static bool memory_fits(const struct planner *p, size_t pos, uint64_t bytes) {
  return !p->nodes[pos].memory_known || node_memory_room(&p->nodes[pos]) >= bytes;
}

/* What one instance (or a pool) asks of choose(). */
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
    unsigned cap = node_capacity(p, p->used, pos, req->need.unit);
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
        const struct placer_core *c = core_at(p, p->nodes[order[i]].cores[k]);
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
      if (base > 0 && node_capacity(p, p->used, order[i], need.unit) >= base)
        chosen[m++] = order[i];
    if (m < k)
      continue;
    for (size_t i = 0; i < m; i++) {
      share[i] = base;
      if (extra && node_capacity(p, p->used, chosen[i], need.unit) > base) {
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
      ok = take(p, &chosen[i], 1, (struct cpu_need){ need.unit, share[i] }, req->align, part, &sc);
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
  return take(p, order, n, req->need, req->align, out, &o->score);
}

/* The node with the most room first, then the rest by distance to it: where
 * an instance without locality spreads from. */
static size_t nodes_from_roomiest(const struct planner *p, enum unit unit, size_t *order) {
  size_t seed = SIZE_MAX;
  unsigned best = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    unsigned cap = node_capacity(p, p->used, i, unit);
    if (cap > best) {
      best = cap;
      seed = i;
    }
  }
  size_t n_local;
  if (seed == SIZE_MAX)
    return nodes_by_distance(p, NULL, order, &n_local);
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  if (one == NULL)
    return 0;
  hwloc_bitmap_set(one, p->nodes[seed].os);
  size_t n = nodes_by_distance(p, one, order, &n_local);
  hwloc_bitmap_free(one);
  return n;
}

/* The nodes of ORDER[0..n) with room for the need (and its memory when
 * WITH_MEMORY), in order. */
static size_t nodes_with_room(struct planner *p, const struct request *req, const size_t *order, size_t n,
                              bool with_memory, size_t *cand) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (node_capacity(p, p->used, order[i], req->need.unit) >= req->need.amount &&
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
    if (node_capacity(p, p->used, order[i], req->need.unit) < req->need.amount ||
        (with_memory && !memory_fits(p, order[i], req->memory_bytes)))
      continue;
    uint64_t d = distance_to_set(p, order[i], req->target);
    if (d > at)
      break;
    at = d;
    cand[m++] = order[i];
  }
  return m;
}

/* Choose PUs for a request.  Fills out, marks nothing.  Locality first;
 * under the preferred policy, the nearest node with room (memory too when
 * it can), then several nodes.  Among nodes equally good for locality,
 * align cache takes the one that keeps the instance in the fewest caches;
 * align none takes the lowest-numbered free cores of the whole scope. */
static struct outcome choose(struct planner *p, const struct request *req, hwloc_bitmap_t out) {
  struct outcome o = { .choice = NO_ROOM, .passed_over = SIZE_MAX };
  o.score.best_l3 = -1;
  size_t order[p->n_nodes ? p->n_nodes : 1], cand[p->n_nodes ? p->n_nodes : 1];
  size_t n_local;
  size_t n = nodes_by_distance(p, req->target, order, &n_local);
  struct cpu_need need = req->need;
  hwloc_bitmap_t scratch = hwloc_bitmap_alloc();
  if (scratch == NULL)
    return o;
  bool local_room = req->target && order_capacity(p, p->used, order, n_local, need.unit) >= need.amount;
  if (req->align == PLACER_ALIGN_NONE) {
    if (req->target && !local_room && req->policy == PLACER_POLICY_STRICT)
      o.choice = NO_ROOM_THERE;
    else if (local_room)
      o.choice = take(p, order, n_local, need, req->align, out, NULL) ? CHOSE_LOCAL : NO_ROOM_THERE;
    else
      o.choice = take(p, order, n, need, req->align, out, NULL) ? (req->target ? CHOSE_REMOTE : CHOSE_ANY) : NO_ROOM;
    goto done;
  }
  if (local_room) {
    for (int with_memory = 1; with_memory >= 0; with_memory--) {
      size_t m = nodes_with_room(p, req, order, n_local, with_memory, cand);
      size_t best = pick_node(p, req, cand, m, false, scratch);
      if (best != SIZE_MAX) {
        o.choice = take(p, &best, 1, need, req->align, out, &o.score) ? CHOSE_LOCAL : NO_ROOM_THERE;
        goto done;
      }
    }
    o.choice = take_several(p, req, order, n_local, out, &o) ? CHOSE_LOCAL : NO_ROOM_THERE;
    goto done;
  }
  if (req->target) {
    if (req->policy == PLACER_POLICY_STRICT) {
      o.choice = NO_ROOM_THERE;
      goto done;
    }
    for (int with_memory = 1; with_memory >= 0; with_memory--) {
      size_t m = nearest_with_room(p, req, order, n_local, n, with_memory, cand);
      size_t best = pick_node(p, req, cand, m, false, scratch);
      if (best == SIZE_MAX)
        continue;
      /* a node as near (earlier in order) or nearer had the CPUs but not
       * the memory: the warning says so */
      for (size_t i = n_local; with_memory && i < n && order[i] != best && o.passed_over == SIZE_MAX; i++)
        if (node_capacity(p, p->used, order[i], need.unit) >= need.amount &&
            !memory_fits(p, order[i], req->memory_bytes))
          o.passed_over = order[i];
      o.choice = take(p, &best, 1, need, req->align, out, &o.score) ? CHOSE_REMOTE : NO_ROOM;
      goto done;
    }
    o.choice = take_several(p, req, order, n, out, &o) ? CHOSE_REMOTE : NO_ROOM;
    goto done;
  }
  /* No locality: the node with the most room (memory too when it can),
   * which keeps nodes balanced; several nodes only when no one node fits. */
  for (int with_memory = 1; with_memory >= 0; with_memory--) {
    size_t m = nodes_with_room(p, req, order, n, with_memory, cand);
    size_t best = pick_node(p, req, cand, m, true, scratch);
    if (best != SIZE_MAX) {
      o.choice = take(p, &best, 1, need, req->align, out, &o.score) ? CHOSE_ANY : NO_ROOM;
      goto done;
    }
  }
  if (req->spread)
    n = nodes_from_roomiest(p, need.unit, order);
  o.choice = take_several(p, req, order, n, out, &o) ? CHOSE_ANY : NO_ROOM;
done:
  hwloc_bitmap_free(scratch);
  return o;
}

/* ---- text helpers for messages ---- */

static const char *unit_word(enum unit unit, unsigned n) {
  if (unit == UNIT_CORES)
    return n == 1 ? "core" : "cores";
  return n == 1 ? "thread" : "threads";
}

static void need_text(struct cpu_need need, char *buf, size_t len) {
  snprintf(buf, len, "%u %s%s", need.amount, unit_word(need.unit, need.amount),
           need.unit == UNIT_WHOLE_THREADS ? " (whole cores)" : "");
}

static void nodes_text(hwloc_const_bitmap_t nodeset, char *buf, size_t len) {
  cleanup_free char *list = placer_cpulist_format(nodeset);
  snprintf(buf, len, "NUMA node%s %s", hwloc_bitmap_weight(nodeset) == 1 ? "" : "s", list ? list : "?");
}

static void nodes_of_cpus(const struct planner *p, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < p->n_nodes; i++)
    if (hwloc_bitmap_intersects(p->topo->numa_nodes[i].cpus, cpus))
      hwloc_bitmap_set(out, p->nodes[i].os);
}

static struct cpu_need role_need(const struct placer_role_spec *spec) {
  struct cpu_need need;
  if (spec->cpu.cores) {
    need.unit = UNIT_CORES;
    need.amount = spec->cpu.cores;
  } else {
    need.unit = spec->cpu.whole_cores ? UNIT_WHOLE_THREADS : UNIT_THREADS;
    need.amount = spec->cpu.threads ? spec->cpu.threads : 1;
  }
  return need;
}

/* "(32 cores, 4 reserved for the host, 8 taken by earlier roles)" */
static void scope_text(const struct planner *p, hwloc_const_bitmap_t nodeset, enum unit unit, unsigned *available,
                       char *buf, size_t len) {
  unsigned total, reserved, free_units;
  scope_stats(p, p->snapshot, nodeset, unit, &total, &reserved, &free_units);
  unsigned taken = total - reserved - free_units;
  int n = snprintf(buf, len, "%u %s%s, %u reserved for the host", total, unit_word(unit, total),
                   nodeset ? " there" : "", reserved);
  if (taken && n > 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, ", %u taken by earlier roles", taken);
  *available = free_units;
}

/* ---- reserve ---- */

static unsigned reserve_on_node(struct planner *p, size_t pos, unsigned want) {
  unsigned got = 0;
  const struct node_info *node = &p->nodes[pos];
  for (size_t k = 0; k < node->n_cores && got < want; k++) {
    const struct placer_core *c = core_at(p, node->cores[k]);
    if (!align_core_free(&p->align, p->used, c))
      continue;
    hwloc_bitmap_or(p->reserved, p->reserved, c->pus);
    hwloc_bitmap_or(p->used, p->used, c->pus);
    got++;
  }
  return got;
}

static bool glob_list_match(const struct placer_string_list *globs, const char *name) {
  for (size_t i = 0; i < globs->n; i++)
    if (fnmatch(globs->items[i], name, 0) == 0)
      return true;
  return false;
}

/* ---- the storage NICs (`nic: auto`) ---- */

static bool nic_in_networks(const struct placer_nic *nic, char *const *nets, size_t n_nets) {
  for (size_t k = 0; k < nic->n_ip_addresses; k++)
    for (size_t j = 0; j < n_nets; j++)
      if (placer_cidr_contains(nets[j], nic->ip_addresses[k]))
        return true;
  return false;
}

/* a before b: faster (link speed when the machine told it, then the PCI
 * link), ties in name order (the NIC list is sorted by name) */
static bool nic_faster(const struct placer_nic *a, const struct placer_nic *b) {
  if (a->speed_mbps != b->speed_mbps)
    return a->speed_mbps > b->speed_mbps;
  return a->pci_link_gbps > b->pci_link_gbps;
}

/* Same PCI card: domain:bus:device equal, any function ("0000:15:00.1"). */
static bool same_card(const char *a, const char *b) {
  const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
  size_t la = da ? (size_t)(da - a) : strlen(a), lb = db ? (size_t)(db - b) : strlen(b);
  return la == lb && strncmp(a, b, la) == 0;
}

static bool is_auto(const char *glob) {
  return strcmp(glob, "auto") == 0;
}

static bool profile_uses_auto(const struct placer_profile *profile) {
  for (size_t i = 0; i < profile->reserve.nics.n; i++)
    if (is_auto(profile->reserve.nics.items[i]))
      return true;
  for (size_t i = 0; i < profile->n_roles; i++)
    if (profile->roles[i].near == PLACER_NEAR_NIC && is_auto(profile->roles[i].nic))
      return true;
  return false;
}

/* The NICs that carry the storage network: those holding an address in one
 * of the profile's storage_network CIDRs (else ceph.conf's, from a live
 * topology); when none does, every port of the fastest PCI NIC, Ethernet
 * before InfiniBand/Omni-Path (Ceph speaks IP, almost always on Ethernet). */
static int select_storage_nics(struct planner *p) {
  const struct placer_topology *t = p->topo;
  p->storage_nic = calloc(t->n_nics ? t->n_nics : 1, sizeof(*p->storage_nic));
  if (p->storage_nic == NULL)
    return oom(p);
  char *const *nets = p->profile->storage_networks.items;
  size_t n_nets = p->profile->storage_networks.n;
  const char *from = "storage_network";
  if (n_nets == 0) {
    nets = t->storage_networks;
    n_nets = t->n_storage_networks;
    from = "ceph.conf";
  }
  size_t hits = 0;
  for (size_t i = 0; i < t->n_nics; i++)
    if (nic_in_networks(&t->nics[i], nets, n_nets)) {
      p->storage_nic[i] = true;
      hits++;
    }
  if (hits) {
    snprintf(p->auto_why, sizeof(p->auto_why), "holding an address in the %s network %s", from, nets[0]);
    return 0;
  }
  if (n_nets && profile_uses_auto(p->profile) &&
      warn(p, 0, 0, 0, "nic: auto: no NIC holds an address in the %s network %s%s; taking the fastest NIC", from,
           nets[0], n_nets > 1 ? " (or the others given)" : "") < 0)
    return -1;
  bool any_ethernet = false;
  for (size_t i = 0; i < t->n_nics; i++)
    any_ethernet |= t->nics[i].pci_busid && t->nics[i].ethernet;
  const struct placer_nic *best = NULL;
  for (size_t i = 0; i < t->n_nics; i++) {
    const struct placer_nic *nic = &t->nics[i];
    if (nic->pci_busid == NULL || (any_ethernet && !nic->ethernet))
      continue;
    if (best == NULL || nic_faster(nic, best))
      best = nic;
  }
  if (best == NULL) {
    snprintf(p->auto_why, sizeof(p->auto_why), "no NIC on PCI%s", n_nets ? " and none in the storage network" : "");
    return 0;
  }
  for (size_t i = 0; i < t->n_nics; i++)
    if (t->nics[i].pci_busid && t->nics[i].ethernet == best->ethernet &&
        same_card(t->nics[i].pci_busid, best->pci_busid))
      p->storage_nic[i] = true;
  char link[48] = "";
  if (best->speed_mbps)
    snprintf(link, sizeof(link), ", %llu Mb/s", (unsigned long long)best->speed_mbps);
  else if (best->pci_link_gbps > 0)
    snprintf(link, sizeof(link), ", PCI link %.2f GB/s", best->pci_link_gbps);
  snprintf(p->auto_why, sizeof(p->auto_why), "the fastest %sNIC on PCI (%s%s)%s", best->ethernet ? "Ethernet " : "",
           best->pci_busid, link, n_nets ? "; none holds an address in the storage network" : "");
  return 0;
}

/* NIC i matches a profile's NIC glob, `auto` being the storage NICs. */
static bool nic_matches(const struct planner *p, const char *glob, size_t i) {
  if (is_auto(glob))
    return p->storage_nic[i];
  return fnmatch(glob, p->topo->nics[i].name, 0) == 0;
}

static bool nic_list_matches(const struct planner *p, const struct placer_string_list *globs, size_t i) {
  for (size_t k = 0; k < globs->n; k++)
    if (nic_matches(p, globs->items[k], i))
      return true;
  return false;
}

static char *nic_names(const struct placer_topology *topo) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (f == NULL)
    return NULL;
  for (size_t i = 0; i < topo->n_nics; i++)
    fprintf(f, "%s%s", i ? ", " : "", topo->nics[i].name);
  if (topo->n_nics == 0)
    fputs("none", f);
  fclose(f);
  return buf;
}

static int plan_reserve(struct planner *p) {
  const struct placer_reserve_spec *r = &p->profile->reserve;
  size_t usable_cores = 0;
  for (size_t c = 0; c < p->topo->n_cores; c++)
    usable_cores += align_core_usable(&p->align, core_at(p, c));

  /* memory: split evenly, the remainder on the first nodes */
  for (size_t i = 0; i < p->n_nodes; i++) {
    uint64_t share = r->memory_per_numa_bytes;
    if (r->memory_bytes)
      share = r->memory_bytes / p->n_nodes + (i < r->memory_bytes % p->n_nodes ? 1 : 0);
    p->nodes[i].memory_reserved = share;
  }
  if (!p->profile->pin)
    return 0;

  if (r->cores_per_numa) {
    for (size_t i = 0; i < p->n_nodes; i++) {
      if (!node_has_cores(p, i))
        continue;
      unsigned got = reserve_on_node(p, i, r->cores_per_numa);
      if (got < r->cores_per_numa)
        return infeasible(p, "reserve: cores_per_numa: %u cores on every NUMA node, but NUMA node %u has only %u",
                          r->cores_per_numa, p->nodes[i].os, got);
    }
  }
  unsigned want = r->cores_is_percent ? (unsigned)(usable_cores * r->cores / 100) : r->cores;
  if (want > usable_cores)
    return infeasible(p, "reserve: cores: %u cores for the host, but the node has only %zu", want, usable_cores);
  /* round robin over the nodes: the host's work is spread like its memory */
  for (unsigned got = 0; got < want;) {
    unsigned before = got;
    for (size_t i = 0; i < p->n_nodes && got < want; i++)
      got += reserve_on_node(p, i, 1);
    if (got == before)
      return infeasible(p, "reserve: cores: %u cores for the host, only %u free", want, got);
  }

  if (r->nics.n) {
    size_t matched = 0;
    for (size_t i = 0; i < p->topo->n_nics; i++) {
      const struct placer_nic *nic = &p->topo->nics[i];
      if (!nic_list_matches(p, &r->nics, i))
        continue;
      matched++;
      hwloc_bitmap_t nodes = hwloc_bitmap_dup(nic->numa_nodes);
      if (nodes == NULL)
        return oom(p);
      if (hwloc_bitmap_iszero(nodes) && p->n_nodes == 1)
        hwloc_bitmap_set(nodes, p->nodes[0].os);
      if (hwloc_bitmap_iszero(nodes)) {
        hwloc_bitmap_free(nodes);
        if (warn(p, 0, 0, 0, "reserve: NUMA locality of NIC '%s' is unknown; no cores reserved for its interrupts",
                 nic->name) < 0)
          return -1;
        continue;
      }
      unsigned got = 0;
      hwloc_bitmap_t before = hwloc_bitmap_dup(p->reserved);
      struct placer_plan_nic_cores *more = realloc(p->nic_cores, (p->n_nic_cores + 1) * sizeof(*more));
      if (more)
        p->nic_cores = more;
      if (before == NULL || more == NULL || (more[p->n_nic_cores].nic = strdup(nic->name)) == NULL) {
        hwloc_bitmap_free(before);
        hwloc_bitmap_free(nodes);
        return oom(p);
      }
      for (size_t k = 0; k < p->n_nodes && got < r->nic_cores; k++)
        if (hwloc_bitmap_isset(nodes, p->nodes[k].os))
          got += reserve_on_node(p, k, r->nic_cores - got);
      /* what this NIC got: where irqs: nic_cores sends its interrupts */
      more[p->n_nic_cores].cpus = before;
      hwloc_bitmap_andnot(before, p->reserved, before);
      p->n_nic_cores++;
      char where[64];
      nodes_text(nodes, where, sizeof(where));
      hwloc_bitmap_free(nodes);
      if (got < r->nic_cores)
        return infeasible(p, "reserve: nic_cores: %u cores for NIC '%s' on %s, only %u free there", r->nic_cores,
                          nic->name, where, got);
    }
    if (matched == 0) {
      cleanup_free char *names = nic_names(p->topo);
      cleanup_free char *globs = NULL;
      size_t size = 0;
      FILE *f = open_memstream(&globs, &size);
      if (f == NULL)
        return oom(p);
      for (size_t i = 0; i < r->nics.n; i++)
        fprintf(f, "%s'%s'", i ? ", " : "", r->nics.items[i]);
      fclose(f);
      if (warn(p, 0, 0, 0, "reserve: no NIC matches %s (NICs here: %s); no cores reserved for NIC interrupts",
               globs ? globs : "?", names ? names : "?") < 0)
        return -1;
    }
  }
  return 0;
}

/* ---- instances ---- */

static struct placer_instance *new_instance(struct planner *p, struct role_state *rs, const char *device,
                                            const char *nic) {
  const struct placer_role_spec *spec = rs->spec;
  if (rs->n == rs->cap) {
    size_t cap = rs->cap ? rs->cap * 2 : 4;
    struct placer_instance *bigger = realloc(rs->inst, cap * sizeof(*bigger));
    if (bigger == NULL)
      return oom(p), NULL;
    rs->inst = bigger;
    rs->cap = cap;
  }
  struct placer_instance *inst = &rs->inst[rs->n];
  memset(inst, 0, sizeof(*inst));
  unsigned index = spec->first_index + (unsigned)rs->n;
  if (asprintf(&inst->name, "%s.%u", spec->name, index) < 0)
    inst->name = NULL;
  inst->role = strdup(spec->name);
  inst->kind = spec->kind;
  inst->index = index;
  inst->device = device ? strdup(device) : NULL;
  inst->nic = nic ? strdup(nic) : NULL;
  inst->pinned = p->profile->pin;
  inst->cpus = hwloc_bitmap_alloc();
  inst->mems = hwloc_bitmap_alloc();
  inst->l3s = hwloc_bitmap_alloc();
  inst->has_memory_limit = spec->has_memory;
  inst->memory_bytes = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  inst->cpu_weight = spec->cpu.weight;
  inst->cpu_quota = spec->cpu.quota;
  inst->exclusive = p->profile->pin && spec->has_cpu && spec->cpu.exclusive;
  inst->whole_cores = spec->has_cpu && spec->cpu.whole_cores;
  inst->locality = PLACER_LOCALITY_NONE;
  inst->numa_node = -1;
  inst->match.kind = spec->match_kind;
  inst->pin_vcpus = spec->cpu.pin_vcpus;
  if (spec->match_template)
    inst->match.value =
        placer_match_expand(spec->match_template, inst->name ? inst->name : "", spec->name, index, device);
  rs->n++;
  if (inst->name == NULL || inst->role == NULL || (device && inst->device == NULL) || (nic && inst->nic == NULL) ||
      inst->cpus == NULL || inst->mems == NULL || inst->l3s == NULL ||
      (spec->match_template && inst->match.value == NULL)) {
    oom(p);
    return NULL;
  }
  return inst;
}

/* Fill mems and numa_node from cpus, and charge the instance's memory to
 * its nodes.  Over-commit is an error under strict, a warning otherwise. */
static int settle_memory(struct planner *p, struct role_state *rs, struct placer_instance *inst) {
  if (rs->spec->mems == PLACER_MEMS_ALL || !inst->pinned) {
    hwloc_bitmap_zero(inst->mems);
    for (size_t i = 0; i < p->n_nodes; i++)
      if (hwloc_bitmap_iszero(p->topo->allowed_mems) || hwloc_bitmap_isset(p->topo->allowed_mems, p->nodes[i].os))
        hwloc_bitmap_set(inst->mems, p->nodes[i].os);
  } else {
    nodes_of_cpus(p, inst->cpus, inst->mems);
  }
  hwloc_bitmap_t cpu_nodes = hwloc_bitmap_alloc();
  if (cpu_nodes == NULL)
    return oom(p);
  nodes_of_cpus(p, inst->cpus, cpu_nodes);
  inst->numa_node = hwloc_bitmap_weight(cpu_nodes) == 1 ? hwloc_bitmap_first(cpu_nodes) : -1;
  hwloc_bitmap_free(cpu_nodes);
  if (!inst->has_memory_limit)
    return 0;
  unsigned k = (unsigned)hwloc_bitmap_weight(inst->mems);
  if (k == 0)
    return 0;
  unsigned nth = 0;
  for (size_t i = 0; i < p->n_nodes; i++) {
    struct node_info *node = &p->nodes[i];
    if (!hwloc_bitmap_isset(inst->mems, node->os))
      continue;
    uint64_t share = inst->memory_bytes / k + (nth++ < inst->memory_bytes % k ? 1 : 0);
    uint64_t room = node_memory_room(node);
    node->memory_used += share;
    if (!node->memory_known || share <= room)
      continue;
    if (rs->spec->policy == PLACER_POLICY_STRICT) {
      char need[32], left[32], total[32], host[32];
      placer_format_bytes(share, need, sizeof(need));
      placer_format_bytes(room, left, sizeof(left));
      placer_format_bytes(node->memory_total, total, sizeof(total));
      placer_format_bytes(node->memory_reserved, host, sizeof(host));
      return infeasible(p,
                        "role '%s': %s needs %s of memory on NUMA node %u, only %s left there (%s, %s reserved for "
                        "the host, the rest to earlier instances; strict policy)",
                        rs->spec->name, inst->name, need, node->os, left, total, host);
    }
    if (node->first_over == NULL && (node->first_over = strdup(inst->name)) == NULL)
      return oom(p);
  }
  return 0;
}

/* ---- locality targets ---- */

struct target {
  hwloc_bitmap_t nodes; /* NULL: no locality asked */
  bool unknown;         /* locality asked but not known: reason in why */
  char what[160];       /* "near nvme3n1 (NUMA node 1)" */
  char why[320];
  const char *nic; /* NEAR_NIC: the chosen NIC */
};

static void target_clear(struct target *t) {
  hwloc_bitmap_free(t->nodes);
  memset(t, 0, sizeof(*t));
}

static size_t nth_node_with_cores(const struct planner *p, size_t k) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_nodes; i++)
    n += node_has_cores(p, i);
  if (n == 0)
    return SIZE_MAX;
  k %= n;
  for (size_t i = 0; i < p->n_nodes; i++)
    if (node_has_cores(p, i) && k-- == 0)
      return i;
  return SIZE_MAX;
}

static const struct placer_nic *nic_for(const struct planner *p, const char *glob) {
  for (size_t i = 0; i < p->topo->n_nics; i++)
    if (nic_matches(p, glob, i))
      return &p->topo->nics[i];
  return NULL;
}

/* Where instance k (with its device, per_numa node) should run. */
static int target_for(struct planner *p, const struct placer_role_spec *spec, size_t k,
                      const struct placer_blockdev *dev, size_t numa_pos, struct target *t) {
  memset(t, 0, sizeof(*t));
  if (spec->near == PLACER_NEAR_NONE)
    return 0;
  t->nodes = hwloc_bitmap_alloc();
  if (t->nodes == NULL)
    return oom(p);
  char where[96];
  switch (spec->near) {
  case PLACER_NEAR_DEVICE:
    hwloc_bitmap_copy(t->nodes, dev->numa_nodes);
    if (hwloc_bitmap_iszero(t->nodes) && p->n_nodes == 1)
      hwloc_bitmap_set(t->nodes, p->nodes[0].os);
    if (hwloc_bitmap_iszero(t->nodes)) {
      t->unknown = true;
      snprintf(t->what, sizeof(t->what), "near %s", dev->name);
      snprintf(t->why, sizeof(t->why), "the NUMA locality of %s is unknown", dev->name);
      return 0;
    }
    nodes_text(t->nodes, where, sizeof(where));
    snprintf(t->what, sizeof(t->what), "near %s (%s)", dev->name, where);
    return 0;
  case PLACER_NEAR_NIC: {
    const struct placer_nic *nic = nic_for(p, spec->nic);
    if (nic == NULL) {
      cleanup_free char *names = nic_names(p->topo);
      t->unknown = true;
      snprintf(t->what, sizeof(t->what), "near NIC '%s'", spec->nic);
      if (is_auto(spec->nic))
        snprintf(t->why, sizeof(t->why), "nic: auto found no storage NIC: %s (NICs here: %s)", p->auto_why,
                 names ? names : "?");
      else
        snprintf(t->why, sizeof(t->why), "no NIC matches '%s' (NICs here: %s)", spec->nic, names ? names : "?");
      return 0;
    }
    t->nic = nic->name;
    hwloc_bitmap_copy(t->nodes, nic->numa_nodes);
    if (hwloc_bitmap_iszero(t->nodes) && p->n_nodes == 1)
      hwloc_bitmap_set(t->nodes, p->nodes[0].os);
    if (hwloc_bitmap_iszero(t->nodes)) {
      t->unknown = true;
      snprintf(t->what, sizeof(t->what), "near %s", nic->name);
      snprintf(t->why, sizeof(t->why), "the NUMA locality of NIC %s is unknown", nic->name);
      return 0;
    }
    nodes_text(t->nodes, where, sizeof(where));
    snprintf(t->what, sizeof(t->what), "near %s (%s)", nic->name, where);
    return 0;
  }
  case PLACER_NEAR_NUMA:
    hwloc_bitmap_set(t->nodes, spec->count_mode == PLACER_COUNT_PER_NUMA ? p->nodes[numa_pos].os : spec->numa);
    break;
  case PLACER_NEAR_SPREAD: {
    size_t pos = nth_node_with_cores(p, k);
    if (pos == SIZE_MAX)
      return infeasible(p, "role '%s': no NUMA node has usable cores", spec->name);
    hwloc_bitmap_set(t->nodes, p->nodes[pos].os);
    break;
  }
  default: break;
  }
  nodes_text(t->nodes, where, sizeof(where));
  snprintf(t->what, sizeof(t->what), "on %s", where);
  return 0;
}

static bool same_target(const struct target *a, const struct target *b) {
  if (a->unknown || b->unknown || !a->nodes || !b->nodes)
    return false;
  return hwloc_bitmap_isequal(a->nodes, b->nodes);
}

/* ---- the roles ---- */

/* What one role will place, worked out before placing: per instance its
 * device / NUMA node, so that errors can speak for the whole role. */
struct slot {
  const struct placer_blockdev *dev;
  size_t numa_pos;
};

static int role_slots(struct planner *p, const struct placer_role_spec *spec, struct slot **out, size_t *n_out) {
  size_t n = 0, cap = 0;
  struct slot *slots = NULL;
#define PUSH(d, pos)                                              \
  do {                                                            \
    if (n == cap) {                                               \
      cap = cap ? cap * 2 : 8;                                    \
      struct slot *bigger = realloc(slots, cap * sizeof(*slots)); \
      if (bigger == NULL) {                                       \
        free(slots);                                              \
        return oom(p);                                            \
      }                                                           \
      slots = bigger;                                             \
    }                                                             \
    slots[n++] = (struct slot){ (d), (pos) };                     \
  } while (0)
  switch (spec->count_mode) {
  case PLACER_COUNT_FIXED:
    for (unsigned i = 0; i < spec->count; i++)
      PUSH(NULL, 0);
    break;
  case PLACER_COUNT_PER_DEVICE:
    for (size_t d = 0; d < p->topo->n_blockdevs; d++)
      if (glob_list_match(&spec->devices, p->topo->blockdevs[d].name))
        for (unsigned i = 0; i < spec->count; i++)
          PUSH(&p->topo->blockdevs[d], 0);
    break;
  case PLACER_COUNT_PER_NUMA:
    for (size_t pos = 0; pos < p->n_nodes; pos++)
      if (node_has_cores(p, pos))
        for (unsigned i = 0; i < spec->count; i++)
          PUSH(NULL, pos);
    break;
  case PLACER_COUNT_FILL: break;
  }
#undef PUSH
  *out = slots;
  *n_out = n;
  return 0;
}

static int no_device_error(struct planner *p, const struct placer_role_spec *spec) {
  char *buf = NULL, *have = NULL;
  size_t size = 0, hsize = 0;
  FILE *f = open_memstream(&buf, &size);
  FILE *h = open_memstream(&have, &hsize);
  if (f == NULL || h == NULL) {
    if (f)
      fclose(f);
    if (h)
      fclose(h);
    free(buf);
    free(have);
    return oom(p);
  }
  for (size_t i = 0; i < spec->devices.n; i++)
    fprintf(f, "%s'%s'", i ? ", " : "", spec->devices.items[i]);
  for (size_t i = 0; i < p->topo->n_blockdevs; i++)
    fprintf(h, "%s%s", i ? ", " : "", p->topo->blockdevs[i].name);
  if (p->topo->n_blockdevs == 0)
    fputs("none", h);
  fclose(f);
  fclose(h);
  infeasible(p, "role '%s': no block device matches %s (block devices here: %s)", spec->name, buf ? buf : "?",
             have ? have : "?");
  free(buf);
  free(have);
  return -1;
}

/* The message when an instance finds no room: for the whole role when the
 * role as a whole asks for more than there was, else for the instance. */
static int shortage(struct planner *p, struct role_state *rs, size_t n_slots, const struct target *targets,
                    size_t failed, bool there, struct cpu_need need) {
  const struct placer_role_spec *spec = rs->spec;
  const char *instance = rs->n ? rs->inst[rs->n - 1].name : spec->name;
  hwloc_const_bitmap_t nodes = there ? targets[failed].nodes : NULL;
  char per[64], scope[160];
  need_text(need, per, sizeof(per));
  unsigned available;
  scope_text(p, nodes, need.unit, &available, scope, sizeof(scope));
  /* the instances of this role that want the same place */
  size_t k = there ? 0 : n_slots;
  for (size_t i = 0; there && i < n_slots; i++)
    if (same_target(&targets[i], &targets[failed]))
      k++;
  if (k > 1 && k * need.amount > available) {
    if (!there)
      return infeasible(p, "role '%s': needs %zu x %s = %zu %s, only %u available (%s)", spec->name, k, per,
                        k * need.amount, unit_word(need.unit, 2), available, scope);
    char where[96];
    nodes_text(nodes, where, sizeof(where));
    return infeasible(p, "role '%s': needs %zu x %s = %zu %s on %s (strict locality), only %u available there (%s)",
                      spec->name, k, per, k * need.amount, unit_word(need.unit, 2), where, available, scope);
  }
  unsigned total, reserved, left;
  scope_stats(p, p->used, nodes, need.unit, &total, &reserved, &left);
  const char *whole = need.unit == UNIT_WHOLE_THREADS ? " in whole free cores" : "";
  if (there)
    return infeasible(p, "role '%s': %s needs %s %s (strict locality), only %u %s left there%s (%s)", spec->name,
                      instance, per, targets[failed].what, left, unit_word(need.unit, left), whole, scope);
  return infeasible(p, "role '%s': %s needs %s, only %u %s left%s (%s)", spec->name, instance, per, left,
                    unit_word(need.unit, left), whole, scope);
}

static int locality_of_pool_member(struct planner *p, struct role_state *rs, struct placer_instance *inst,
                                   const struct target *t) {
  if (t->nodes == NULL && !t->unknown) {
    inst->locality = PLACER_LOCALITY_NONE;
    return 0;
  }
  if (t->unknown) {
    if (rs->spec->policy == PLACER_POLICY_STRICT)
      return infeasible(p, "role '%s': %s: %s (strict locality)", rs->spec->name, inst->name, t->why);
    inst->locality = PLACER_LOCALITY_REMOTE;
    return warn(p, 1, rs->pos, rs->n - 1, "%s: %s; placed without locality", inst->name, t->why);
  }
  hwloc_bitmap_t cpu_nodes = hwloc_bitmap_alloc();
  if (cpu_nodes == NULL)
    return oom(p);
  nodes_of_cpus(p, inst->cpus, cpu_nodes);
  bool local = hwloc_bitmap_isincluded(cpu_nodes, t->nodes);
  char where[96];
  nodes_text(cpu_nodes, where, sizeof(where));
  hwloc_bitmap_free(cpu_nodes);
  if (local) {
    inst->locality = PLACER_LOCALITY_LOCAL;
    return 0;
  }
  if (rs->spec->policy == PLACER_POLICY_STRICT)
    return infeasible(p, "role '%s': %s wants to run %s (strict locality), but its pool '%s' is on %s", rs->spec->name,
                      inst->name, t->what, rs->pool->name, where);
  inst->locality = PLACER_LOCALITY_REMOTE;
  return warn(p, 1, rs->pos, rs->n - 1, "%s: wants to run %s, but its pool '%s' is on %s", inst->name, t->what,
              rs->pool->name, where);
}

/* Place one chosen set (an instance's, or a pool's): mark it used, and
 * held by a new holder (whom later instances would share caches with). */
static void commit(struct planner *p, hwloc_const_bitmap_t cpus) {
  hwloc_bitmap_or(p->used, p->used, cpus);
  p->n_holders++;
  for (int pu = hwloc_bitmap_first(cpus); pu >= 0; pu = hwloc_bitmap_next(cpus, pu))
    if ((size_t)pu < p->n_owner)
      p->owner[pu] = p->n_holders;
}

/* A role's alignment on this topology: auto is cache where a NUMA node
 * holds more than one L3, numa elsewhere. */
static enum placer_align role_align(const struct planner *p, const struct placer_role_spec *spec) {
  if (spec->cpu.align == PLACER_ALIGN_AUTO)
    return p->several_l3 ? PLACER_ALIGN_CACHE : PLACER_ALIGN_NUMA;
  return spec->cpu.align;
}

bool placer_plan_aligns_by_cache(const struct placer_topology *topo, const struct placer_role_spec *spec) {
  if (spec->cpu.align == PLACER_ALIGN_AUTO)
    return align_several_l3_per_node(topo);
  return spec->cpu.align == PLACER_ALIGN_CACHE;
}

static struct request role_request(const struct planner *p, const struct placer_role_spec *spec, struct cpu_need need,
                                   hwloc_const_bitmap_t target, uint64_t memory_bytes) {
  return (struct request){
    need, target, spec->policy, memory_bytes, role_align(p, spec), spec->cpu.spread == PLACER_SPREAD_NUMA
  };
}

static void l3_list_text(const struct planner *p, hwloc_const_bitmap_t cpus, char *buf, size_t len) {
  hwloc_bitmap_t l3s = hwloc_bitmap_alloc();
  cleanup_free char *list = NULL;
  if (l3s) {
    align_l3s_of(p->topo, cpus, l3s);
    list = placer_cpulist_format(l3s);
  }
  snprintf(buf, len, "%s", list ? list : "?");
  hwloc_bitmap_free(l3s);
}

/* An instance (or a pool, for its first member SUBJECT) aligned to caches
 * that spans more L3 domains than its size needs: say why. */
static int split_warning(struct planner *p, struct role_state *rs, const char *subject, hwloc_const_bitmap_t cpus,
                         struct cpu_need need, const struct outcome *o) {
  if (o->score.l3s <= o->score.min_l3s || o->score.min_l3s == 0)
    return 0;
  char per[64], l3s[96], where[96];
  need_text(need, per, sizeof(per));
  l3_list_text(p, cpus, l3s, sizeof(l3s));
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL)
    return oom(p);
  nodes_of_cpus(p, cpus, nodes);
  nodes_text(nodes, where, sizeof(where));
  hwloc_bitmap_free(nodes);
  if (o->score.min_l3s == 1)
    return warn(p, 1, rs->pos, rs->n - 1,
                "%s: %s span %u L3 domains (L3 %s): no L3 of %s had %s free (the most: %u, in L3 %d)", subject, per,
                o->score.l3s, l3s, where, per, o->score.best_free, o->score.best_l3);
  return warn(p, 1, rs->pos, rs->n - 1,
              "%s: %s span %u L3 domains (L3 %s) where %u would hold them: the L3s of %s with room were taken in part",
              subject, per, o->score.l3s, l3s, o->score.min_l3s, where);
}

static int remote_warning(struct planner *p, struct role_state *rs, hwloc_const_bitmap_t cpus, const struct target *t,
                          struct cpu_need need, const char *subject, const struct outcome *o) {
  char per[64], where[96], why[160] = "";
  need_text(need, per, sizeof(per));
  hwloc_bitmap_t cpu_nodes = hwloc_bitmap_alloc();
  if (cpu_nodes == NULL)
    return oom(p);
  nodes_of_cpus(p, cpus, cpu_nodes);
  nodes_text(cpu_nodes, where, sizeof(where));
  uint64_t dist = 0;
  if (hwloc_bitmap_weight(cpu_nodes) == 1 && hwloc_bitmap_weight(t->nodes) >= 1)
    dist = placer_topology_distance(p->topo, (unsigned)hwloc_bitmap_first(t->nodes),
                                    (unsigned)hwloc_bitmap_first(cpu_nodes));
  hwloc_bitmap_free(cpu_nodes);
  if (o->passed_over != SIZE_MAX) {
    uint64_t d = placer_topology_distance(p->topo, (unsigned)hwloc_bitmap_first(t->nodes), p->nodes[o->passed_over].os);
    if (d)
      snprintf(why, sizeof(why), "; NUMA node %u (distance %llu) has the CPUs but no memory left",
               p->nodes[o->passed_over].os, (unsigned long long)d);
    else
      snprintf(why, sizeof(why), "; NUMA node %u has the CPUs but no memory left", p->nodes[o->passed_over].os);
  }
  /* what was free there before this instance took its part of it */
  hwloc_bitmap_t before = hwloc_bitmap_dup(p->used);
  if (before == NULL)
    return oom(p);
  hwloc_bitmap_andnot(before, before, cpus);
  unsigned total, reserved, free_units;
  scope_stats(p, before, t->nodes, need.unit, &total, &reserved, &free_units);
  hwloc_bitmap_free(before);
  if (o->spread)
    return warn(p, 1, rs->pos, rs->n - 1, "%s: wants %s %s, only %u free there; spread evenly over %s", subject, per,
                t->what, free_units, where);
  if (dist)
    return warn(p, 1, rs->pos, rs->n - 1, "%s: wants %s %s, only %u free there; placed on %s (distance %llu)%s",
                subject, per, t->what, free_units, where, (unsigned long long)dist, why);
  return warn(p, 1, rs->pos, rs->n - 1, "%s: wants %s %s, only %u free there; placed on %s%s", subject, per, t->what,
              free_units, where, why);
}

/* An instance placed by choose(): its locality, and the warnings of a
 * fallback or of a cache split it could not avoid. */
static int placed_warnings(struct planner *p, struct role_state *rs, struct placer_instance *inst,
                           const struct target *t, struct cpu_need need, const struct request *req,
                           const struct outcome *o) {
  if (t->unknown) {
    inst->locality = PLACER_LOCALITY_REMOTE;
    if (warn(p, 1, rs->pos, rs->n - 1, "%s: %s; placed without locality", inst->name, t->why) < 0)
      return -1;
  } else if (o->choice == CHOSE_LOCAL) {
    inst->locality = PLACER_LOCALITY_LOCAL;
  } else if (o->choice == CHOSE_REMOTE) {
    inst->locality = PLACER_LOCALITY_REMOTE;
    if (remote_warning(p, rs, inst->cpus, t, need, inst->name, o) < 0)
      return -1;
  }
  return req->align == PLACER_ALIGN_CACHE ? split_warning(p, rs, inst->name, inst->cpus, need, o) : 0;
}

/* Place a pool (for its first member): like an instance, without memory. */
static int place_pool(struct planner *p, struct role_state *rs, const struct target *t) {
  struct pool_state *pool = rs->pool;
  hwloc_const_bitmap_t nodes = t->unknown ? NULL : t->nodes;
  struct request req = role_request(p, rs->spec, pool->need, nodes, 0);
  struct outcome o = choose(p, &req, pool->cpus);
  enum choice c = o.choice;
  if (c == NO_ROOM || c == NO_ROOM_THERE) {
    char per[64], scope[160];
    unsigned available;
    need_text(pool->need, per, sizeof(per));
    scope_text(p, c == NO_ROOM_THERE ? nodes : NULL, pool->need.unit, &available, scope, sizeof(scope));
    if (c == NO_ROOM_THERE)
      return infeasible(p, "role '%s': pool '%s' needs %s %s (strict locality), only %u available there (%s)",
                        rs->spec->name, pool->name, per, t->what, available, scope);
    return infeasible(p, "role '%s': pool '%s' needs %s, only %u available (%s)", rs->spec->name, pool->name, per,
                      available, scope);
  }
  commit(p, pool->cpus);
  pool->placed = true;
  char subject[160];
  snprintf(subject, sizeof(subject), "%s: pool '%s'", rs->inst[rs->n - 1].name, pool->name);
  return req.align == PLACER_ALIGN_CACHE ? split_warning(p, rs, subject, pool->cpus, pool->need, &o) : 0;
}

static int place_fixed_role(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct slot *slots = NULL;
  size_t n_slots = 0;
  if (role_slots(p, spec, &slots, &n_slots) < 0)
    return -1;
  if (spec->count_mode == PLACER_COUNT_PER_DEVICE && n_slots == 0) {
    free(slots);
    return no_device_error(p, spec);
  }
  if (n_slots == 0) {
    free(slots);
    return infeasible(p, "role '%s': no NUMA node has usable cores", spec->name);
  }
  struct target *targets = calloc(n_slots, sizeof(*targets));
  if (targets == NULL) {
    free(slots);
    return oom(p);
  }
  int rc = -1;
  for (size_t i = 0; i < n_slots; i++)
    if (target_for(p, spec, i, slots[i].dev, slots[i].numa_pos, &targets[i]) < 0)
      goto out;
  struct cpu_need need = role_need(spec);
  if (p->profile->pin && spec->cpu.exclusive) {
    /* the whole role at once, so the message speaks for all of it */
    unsigned total, reserved, free_units;
    scope_stats(p, p->used, NULL, need.unit, &total, &reserved, &free_units);
    if ((uint64_t)n_slots * need.amount > free_units) {
      shortage(p, rs, n_slots, targets, 0, false, need);
      goto out;
    }
  }
  for (size_t i = 0; i < n_slots; i++) {
    const struct target *t = &targets[i];
    struct placer_instance *inst = new_instance(p, rs, slots[i].dev ? slots[i].dev->name : NULL, t->nic);
    if (inst == NULL)
      goto out;
    if (!p->profile->pin) {
      hwloc_bitmap_copy(inst->cpus, p->usable);
    } else if (rs->pool) {
      if (!rs->pool->placed && place_pool(p, rs, t) < 0)
        goto out;
      hwloc_bitmap_copy(inst->cpus, rs->pool->cpus);
      if (locality_of_pool_member(p, rs, inst, t) < 0)
        goto out;
    } else {
      if (t->unknown && spec->policy == PLACER_POLICY_STRICT) {
        infeasible(p, "role '%s': %s: %s (strict locality)", spec->name, inst->name, t->why);
        goto out;
      }
      hwloc_const_bitmap_t nodes = t->unknown ? NULL : t->nodes;
      struct request req = role_request(p, spec, need, nodes, inst->memory_bytes);
      if (spec->has_irqs && slots[i].dev)
        placer_plan_irq_queue_cpus(p->topo, slots[i].dev->name, p->prefer);
      struct outcome o = choose(p, &req, inst->cpus);
      hwloc_bitmap_zero(p->prefer);
      if (o.choice == NO_ROOM || o.choice == NO_ROOM_THERE) {
        shortage(p, rs, n_slots, targets, i, o.choice == NO_ROOM_THERE, need);
        goto out;
      }
      commit(p, inst->cpus);
      if (placed_warnings(p, rs, inst, t, need, &req, &o) < 0)
        goto out;
    }
    if (settle_memory(p, rs, inst) < 0)
      goto out;
  }
  rc = 0;
out:
  for (size_t i = 0; i < n_slots; i++)
    target_clear(&targets[i]);
  free(targets);
  free(slots);
  return rc;
}

/* How many instances of memory_bytes fit on nodes (evenly split) without
 * over-committing any node whose memory is known; UINT32_MAX: no limit. */
static unsigned memory_fit_count(const struct planner *p, hwloc_const_bitmap_t nodes, uint64_t memory_bytes) {
  unsigned k = (unsigned)hwloc_bitmap_weight(nodes);
  if (memory_bytes == 0 || k == 0)
    return UINT32_MAX;
  uint64_t share = (memory_bytes + k - 1) / k;
  unsigned fit = UINT32_MAX;
  for (size_t i = 0; i < p->n_nodes; i++) {
    if (!hwloc_bitmap_isset(nodes, p->nodes[i].os) || !p->nodes[i].memory_known)
      continue;
    uint64_t n = node_memory_room(&p->nodes[i]) / share;
    if (n < fit)
      fit = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
  }
  return fit;
}

static int fill_empty(struct planner *p, struct role_state *rs, struct cpu_need need, hwloc_const_bitmap_t nodes,
                      const char *memory_note) {
  char per[64], scope[160];
  unsigned available;
  need_text(need, per, sizeof(per));
  scope_text(p, nodes, need.unit, &available, scope, sizeof(scope));
  if (memory_note && *memory_note)
    return infeasible(p, "role '%s': no room left for one instance: %s", rs->spec->name, memory_note);
  return infeasible(p, "role '%s': no room left for one instance: needs %s, only %u available (%s)", rs->spec->name,
                    per, available, scope);
}

/* Units of a unit kind that a set of PUs holds. */
static unsigned units_in(const struct planner *p, hwloc_const_bitmap_t cpus, enum unit unit) {
  if (unit == UNIT_THREADS)
    return (unsigned)hwloc_bitmap_weight(cpus);
  unsigned n = 0;
  for (size_t c = 0; c < p->topo->n_cores; c++) {
    const struct placer_core *core = core_at(p, c);
    if (!hwloc_bitmap_iszero(core->pus) && hwloc_bitmap_isincluded(core->pus, cpus))
      n += unit == UNIT_CORES ? 1 : (unsigned)hwloc_bitmap_weight(core->pus);
  }
  return n;
}

/* COUNT instances of a count: fill pool on CPUS (one node's pool, or a
 * whole span_numa pool).  Aligned to caches, the pool is cut into parts
 * that each lie in one L3 (align_split_pool) and each instance runs on one
 * part, in order, while its part's node has its memory; otherwise all run
 * on CPUS.  How many it placed, or -1. */
static int place_pool_members(struct planner *p, struct role_state *rs, const struct target *t,
                              hwloc_const_bitmap_t cpus, unsigned count, uint64_t memory) {
  const struct placer_role_spec *spec = rs->spec;
  struct cpu_need need = role_need(spec);
  size_t cap = p->topo->n_l3_groups + 1;
  hwloc_bitmap_t *parts = calloc(cap, sizeof(*parts));
  unsigned *counts = calloc(cap, sizeof(*counts));
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  int n_parts = 0, placed = -1;
  if (parts == NULL || counts == NULL || nodes == NULL) {
    oom(p);
    goto out;
  }
  if (role_align(p, spec) == PLACER_ALIGN_CACHE &&
      (n_parts = align_split_pool(&p->align, cpus, need, parts, counts, cap)) < 0) {
    oom(p);
    goto out;
  }
  if (n_parts < 2) {
    for (int i = 0; i < n_parts; i++)
      hwloc_bitmap_free(parts[i]);
    parts[0] = hwloc_bitmap_dup(cpus);
    counts[0] = count;
    n_parts = 1;
    if (parts[0] == NULL) {
      oom(p);
      goto out;
    }
  }
  placed = 0;
  for (int i = 0; i < n_parts && (unsigned)placed < count; i++) {
    nodes_of_cpus(p, parts[i], nodes);
    if (spec->mems == PLACER_MEMS_ALL)
      for (size_t k = 0; k < p->n_nodes; k++)
        hwloc_bitmap_set(nodes, p->nodes[k].os);
    size_t first = rs->n;
    for (unsigned k = 0; k < counts[i] && (unsigned)placed < count; k++) {
      if (n_parts > 1 && memory_fit_count(p, nodes, memory) == 0)
        break;
      struct placer_instance *inst = new_instance(p, rs, NULL, t->nic);
      if (inst == NULL)
        goto fail;
      hwloc_bitmap_copy(inst->cpus, parts[i]);
      if (locality_of_pool_member(p, rs, inst, t) < 0 || settle_memory(p, rs, inst) < 0)
        goto fail;
      placed++;
    }
    /* the part made of what every L3 had left over: its instances span L3s */
    hwloc_bitmap_t l3s = hwloc_bitmap_alloc();
    if (l3s == NULL) {
      oom(p);
      goto fail;
    }
    align_l3s_of(p->topo, parts[i], l3s);
    bool several = hwloc_bitmap_weight(l3s) > 1;
    hwloc_bitmap_free(l3s);
    if (n_parts > 1 && several && rs->n > first) {
      char list[96];
      l3_list_text(p, parts[i], list, sizeof(list));
      unsigned units = units_in(p, parts[i], need.unit);
      if (warn(p, 1, rs->pos, first,
               "%s: with %zu more, on what pool '%s' has left in L3 %s (%u %s) after the instances that each fit "
               "in one L3",
               rs->inst[first].name, rs->n - first - 1, rs->pool->name, list, units, unit_word(need.unit, units)) < 0)
        goto fail;
    }
  }
  goto out;
fail:
  placed = -1;
out:
  for (int i = 0; parts && i < n_parts; i++)
    hwloc_bitmap_free(parts[i]);
  free(parts);
  free(counts);
  hwloc_bitmap_free(nodes);
  return placed;
}

/* count: fill in per-node pools (span_numa: false, the default for VMs):
 * on every node near the role (or every node), a pool of what is left
 * there, and as many instances as that pool and that node's memory hold;
 * each instance lies on one node, as real guests do. */
static int place_fill_pool_per_node(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct pool_state *pool = rs->pool;
  struct cpu_need need = role_need(spec);
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  struct target t;
  if (target_for(p, spec, 0, NULL, 0, &t) < 0)
    return -1;
  int rc = -1;
  size_t *order = calloc(p->n_nodes ? p->n_nodes : 1, sizeof(*order));
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL || order == NULL) {
    oom(p);
    goto out;
  }
  if (t.unknown && spec->policy == PLACER_POLICY_STRICT) {
    infeasible(p, "role '%s': %s (strict locality)", spec->name, t.why);
    goto out;
  }
  size_t n_local;
  size_t n = nodes_by_distance(p, t.unknown ? NULL : t.nodes, order, &n_local);
  size_t use = n_local;
  if (!pool->placed) {
    pool->node_cpus = calloc(p->n_nodes, sizeof(*pool->node_cpus));
    if (pool->node_cpus == NULL) {
      oom(p);
      goto out;
    }
    if (order_capacity(p, p->used, order, n_local, need.unit) == 0 && t.nodes && !t.unknown &&
        spec->policy == PLACER_POLICY_PREFERRED)
      use = n;
    for (size_t i = 0; i < use; i++) {
      unsigned cap = node_capacity(p, p->used, order[i], need.unit);
      if (cap < need.amount)
        continue;
      hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
      if (cpus == NULL) {
        oom(p);
        goto out;
      }
      pool->node_cpus[order[i]] = cpus;
      struct cpu_need all = { need.unit, cap };
      if (!take(p, &order[i], 1, all, PLACER_ALIGN_NUMA, cpus, NULL)) {
        hwloc_bitmap_zero(cpus);
        continue;
      }
      commit(p, cpus);
    }
    pool->placed = true;
  }
  unsigned placed = 0;
  char note[256] = "";
  for (size_t pos = 0; pos < p->n_nodes; pos++) {
    hwloc_bitmap_t cpus = pool->node_cpus[pos];
    if (cpus == NULL || hwloc_bitmap_iszero(cpus))
      continue;
    unsigned count = units_in(p, cpus, need.unit) / need.amount;
    hwloc_bitmap_zero(nodes);
    hwloc_bitmap_set(nodes, p->nodes[pos].os);
    if (spec->mems == PLACER_MEMS_ALL)
      for (size_t i = 0; i < p->n_nodes; i++)
        hwloc_bitmap_set(nodes, p->nodes[i].os);
    unsigned by_memory = memory_fit_count(p, nodes, memory);
    if (by_memory < count)
      count = by_memory;
    if (spec->max_count && spec->max_count - placed < count)
      count = spec->max_count - placed;
    if (by_memory == 0 && note[0] == '\0') {
      char m[32];
      placer_format_bytes(memory, m, sizeof(m));
      snprintf(note, sizeof(note), "needs %s of memory, not that much left on NUMA node %u", m, p->nodes[pos].os);
    }
    int got = place_pool_members(p, rs, &t, cpus, count, memory);
    if (got < 0)
      goto out;
    placed += (unsigned)got;
  }
  if (placed == 0) {
    fill_empty(p, rs, need, t.unknown ? NULL : t.nodes, note);
    goto out;
  }
  rc = 0;
out:
  free(order);
  hwloc_bitmap_free(nodes);
  target_clear(&t);
  return rc;
}

/* count: fill in a shared pool: the pool takes everything left near the
 * role (or anywhere), and as many instances as the pool and memory hold. */
static int place_fill_pool(struct planner *p, struct role_state *rs) {
  if (!rs->spec->cpu.span_numa)
    return place_fill_pool_per_node(p, rs);
  const struct placer_role_spec *spec = rs->spec;
  struct pool_state *pool = rs->pool;
  struct cpu_need need = role_need(spec);
  struct target t;
  if (target_for(p, spec, 0, NULL, 0, &t) < 0)
    return -1;
  int rc = -1;
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL) {
    oom(p);
    goto out;
  }
  if (!pool->placed) {
    size_t order[p->n_nodes ? p->n_nodes : 1];
    size_t n_local;
    size_t n = nodes_by_distance(p, t.unknown ? NULL : t.nodes, order, &n_local);
    if (t.unknown && spec->policy == PLACER_POLICY_STRICT) {
      infeasible(p, "role '%s': %s (strict locality)", spec->name, t.why);
      goto out;
    }
    unsigned local = order_capacity(p, p->used, order, n_local, need.unit);
    size_t use = n_local;
    if (local == 0 && t.nodes && !t.unknown && spec->policy == PLACER_POLICY_PREFERRED)
      use = n;
    struct cpu_need all = { need.unit, order_capacity(p, p->used, order, use, need.unit) };
    if (all.amount == 0 || !take(p, order, use, all, PLACER_ALIGN_NUMA, pool->cpus, NULL)) {
      fill_empty(p, rs, need, t.unknown ? NULL : t.nodes, NULL);
      goto out;
    }
    commit(p, pool->cpus);
    pool->placed = true;
  }
  unsigned count = units_in(p, pool->cpus, need.unit) / need.amount;
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  nodes_of_cpus(p, pool->cpus, nodes);
  if (spec->mems == PLACER_MEMS_ALL) {
    hwloc_bitmap_zero(nodes);
    for (size_t i = 0; i < p->n_nodes; i++)
      hwloc_bitmap_set(nodes, p->nodes[i].os);
  }
  unsigned by_memory = memory_fit_count(p, nodes, memory);
  if (by_memory < count)
    count = by_memory;
  if (spec->max_count && spec->max_count < count)
    count = spec->max_count;
  if (count == 0) {
    char note[256] = "";
    if (by_memory == 0) {
      char m[32];
      placer_format_bytes(memory, m, sizeof(m));
      cleanup_free char *list = placer_cpulist_format(nodes);
      snprintf(note, sizeof(note), "needs %s of memory, not that much left on NUMA node(s) %s", m, list ? list : "?");
    }
    fill_empty(p, rs, need, NULL, note);
    goto out;
  }
  if (place_pool_members(p, rs, &t, pool->cpus, count, memory) < 0)
    goto out;
  rc = 0;
out:
  hwloc_bitmap_free(nodes);
  target_clear(&t);
  return rc;
}

/* count: fill with exclusive CPUs: one instance after another while one
 * more fits, in CPU and in memory. */
static int place_fill_exclusive(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  struct cpu_need need = role_need(spec);
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
  int rc = -1;
  if (cpus == NULL || nodes == NULL) {
    oom(p);
    goto out;
  }
  char memory_note[256] = "";
  for (size_t k = 0; spec->max_count == 0 || k < spec->max_count; k++) {
    struct target t;
    if (target_for(p, spec, k, NULL, 0, &t) < 0)
      goto out;
    if (t.unknown && spec->policy == PLACER_POLICY_STRICT) {
      infeasible(p, "role '%s': %s (strict locality)", spec->name, t.why);
      target_clear(&t);
      goto out;
    }
    hwloc_const_bitmap_t target = t.unknown ? NULL : t.nodes;
    struct request req = role_request(p, spec, need, target, memory);
    struct outcome o = choose(p, &req, cpus);
    if (o.choice == NO_ROOM || o.choice == NO_ROOM_THERE) {
      target_clear(&t);
      break;
    }
    nodes_of_cpus(p, cpus, nodes);
    if (spec->mems == PLACER_MEMS_ALL)
      for (size_t i = 0; i < p->n_nodes; i++)
        hwloc_bitmap_set(nodes, p->nodes[i].os);
    if (memory_fit_count(p, nodes, memory) == 0) {
      char m[32];
      placer_format_bytes(memory, m, sizeof(m));
      cleanup_free char *list = placer_cpulist_format(nodes);
      snprintf(memory_note, sizeof(memory_note), "needs %s of memory, not that much left on NUMA node(s) %s", m,
               list ? list : "?");
      target_clear(&t);
      break;
    }
    struct placer_instance *inst = new_instance(p, rs, NULL, t.nic);
    if (inst == NULL) {
      target_clear(&t);
      goto out;
    }
    hwloc_bitmap_copy(inst->cpus, cpus);
    commit(p, cpus);
    int wrc = placed_warnings(p, rs, inst, &t, need, &req, &o);
    target_clear(&t);
    if (wrc < 0 || settle_memory(p, rs, inst) < 0)
      goto out;
  }
  if (rs->n == 0) {
    fill_empty(p, rs, need, NULL, memory_note);
    goto out;
  }
  rc = 0;
out:
  hwloc_bitmap_free(cpus);
  hwloc_bitmap_free(nodes);
  return rc;
}

/* count: fill when nothing is pinned: as many as the CPUs (one instance's
 * worth each) and the memory of all nodes hold. */
static int place_fill_unpinned(struct planner *p, struct role_state *rs) {
  const struct placer_role_spec *spec = rs->spec;
  unsigned count = UINT32_MAX;
  struct cpu_need need = role_need(spec);
  if (spec->has_cpu) {
    unsigned total = 0;
    for (size_t i = 0; i < p->n_nodes; i++)
      total += node_capacity(p, p->reserved, i, need.unit);
    count = total / need.amount;
  }
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL)
    return oom(p);
  for (size_t i = 0; i < p->n_nodes; i++)
    hwloc_bitmap_set(nodes, p->nodes[i].os);
  uint64_t memory = spec->has_memory ? spec->memory_bytes + spec->memory_overhead_bytes : 0;
  unsigned by_memory = memory_fit_count(p, nodes, memory);
  hwloc_bitmap_free(nodes);
  if (by_memory < count)
    count = by_memory;
  if (spec->max_count && spec->max_count < count)
    count = spec->max_count;
  if (count == UINT32_MAX)
    return infeasible(p,
                      "role '%s': cannot tell how many instances fit: the topology does not give the NUMA "
                      "nodes' memory",
                      spec->name);
  if (count == 0)
    return fill_empty(p, rs, need, NULL, by_memory == 0 ? "not enough memory left" : NULL);
  for (unsigned i = 0; i < count; i++) {
    struct placer_instance *inst = new_instance(p, rs, NULL, NULL);
    if (inst == NULL)
      return -1;
    hwloc_bitmap_copy(inst->cpus, p->usable);
    if (settle_memory(p, rs, inst) < 0)
      return -1;
  }
  return 0;
}

static int place_role(struct planner *p, struct role_state *rs) {
  hwloc_bitmap_copy(p->snapshot, p->used);
  const struct placer_role_spec *spec = rs->spec;
  if (spec->near == PLACER_NEAR_NUMA && spec->count_mode != PLACER_COUNT_PER_NUMA &&
      node_pos_of_os(p, spec->numa) == SIZE_MAX) {
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    for (size_t i = 0; all && i < p->n_nodes; i++)
      hwloc_bitmap_set(all, p->nodes[i].os);
    cleanup_free char *list = all ? placer_cpulist_format(all) : NULL;
    hwloc_bitmap_free(all);
    return infeasible(p, "role '%s': NUMA node %u does not exist (NUMA nodes here: %s)", spec->name, spec->numa,
                      list ? list : "?");
  }
  if (spec->count_mode != PLACER_COUNT_FILL)
    return place_fixed_role(p, rs);
  if (!p->profile->pin)
    return place_fill_unpinned(p, rs);
  if (rs->pool)
    return place_fill_pool(p, rs);
  return place_fill_exclusive(p, rs);
}

static int setup_pools(struct planner *p) {
  const struct placer_profile *profile = p->profile;
  p->pools = calloc(profile->n_roles ? profile->n_roles : 1, sizeof(*p->pools));
  if (p->pools == NULL)
    return oom(p);
  for (size_t i = 0; i < profile->n_roles; i++) {
    const struct placer_role_spec *spec = &profile->roles[i];
    if (!p->profile->pin || spec->cpu.pool == NULL)
      continue;
    struct pool_state *pool = NULL;
    for (size_t j = 0; j < p->n_pools; j++)
      if (strcmp(p->pools[j].name, spec->cpu.pool) == 0)
        pool = &p->pools[j];
    struct cpu_need need = role_need(spec);
    if (pool == NULL) {
      pool = &p->pools[p->n_pools++];
      pool->name = spec->cpu.pool;
      pool->need = need;
      pool->fill = spec->count_mode == PLACER_COUNT_FILL;
      pool->cpus = hwloc_bitmap_alloc();
      if (pool->cpus == NULL)
        return oom(p);
    } else if (need.amount > pool->need.amount) {
      pool->need.amount = need.amount; /* the biggest member sizes the pool */
    }
    p->roles[i].pool = pool;
  }
  return 0;
}

static int compare_warnings(const void *a, const void *b) {
  const struct warning *x = a, *y = b;
  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  if (x->role != y->role)
    return x->role < y->role ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static int memory_warnings(struct planner *p) {
  for (size_t i = 0; i < p->n_nodes; i++) {
    const struct node_info *node = &p->nodes[i];
    if (node->first_over == NULL)
      continue;
    uint64_t budget = node->memory_total > node->memory_reserved ? node->memory_total - node->memory_reserved : 0;
    char used[32], have[32], total[32], host[32];
    placer_format_bytes(node->memory_used, used, sizeof(used));
    placer_format_bytes(budget, have, sizeof(have));
    placer_format_bytes(node->memory_total, total, sizeof(total));
    placer_format_bytes(node->memory_reserved, host, sizeof(host));
    if (warn(p, 2, i, 0,
             "NUMA node %u: memory over-committed: instances need %s, %s available (%s, %s reserved for the host); "
             "from %s on",
             node->os, used, have, total, host, node->first_over) < 0)
      return -1;
  }
  return 0;
}

static int assemble(struct planner *p, struct placer_plan *plan) {
  const struct placer_topology *t = p->topo;
  plan->profile_name = strdup(p->profile->name);
  plan->profile_path = p->profile->path ? strdup(p->profile->path) : NULL;
  plan->topology_source = strdup(t->source ? t->source : "");
  plan->topo_numa_nodes = (unsigned)t->n_numa_nodes;
  plan->topo_cores = (unsigned)t->n_cores;
  plan->topo_pus = (unsigned)hwloc_bitmap_weight(t->online_cpus);
  plan->reserved_cpus = hwloc_bitmap_dup(p->reserved);
  plan->reserved_mems = hwloc_bitmap_alloc();
  plan->free_cpus = hwloc_bitmap_alloc();
  if (!plan->profile_name || !plan->topology_source || !plan->reserved_cpus || !plan->reserved_mems || !plan->free_cpus)
    return oom(p);
  nodes_of_cpus(p, p->reserved, plan->reserved_mems);
  for (size_t i = 0; i < p->n_nodes; i++)
    plan->reserved_memory_bytes += p->nodes[i].memory_reserved;
  hwloc_bitmap_andnot(plan->free_cpus, p->usable, p->used);

  size_t n = 0;
  for (size_t r = 0; r < p->profile->n_roles; r++)
    n += p->roles[r].n;
  plan->instances = calloc(n ? n : 1, sizeof(*plan->instances));
  if (plan->instances == NULL)
    return oom(p);
  for (size_t r = 0; r < p->profile->n_roles; r++) {
    struct role_state *rs = &p->roles[r];
    if (rs->n == 0)
      continue;
    for (size_t i = 0; i < rs->n; i++)
      align_l3s_of(t, rs->inst[i].cpus, rs->inst[i].l3s);
    memcpy(&plan->instances[plan->n_instances], rs->inst, rs->n * sizeof(*rs->inst));
    plan->n_instances += rs->n;
    rs->n = 0; /* moved */
  }

  if (p->n_warnings)
    qsort(p->warnings, p->n_warnings, sizeof(*p->warnings), compare_warnings);
  plan->warnings = calloc(p->n_warnings ? p->n_warnings : 1, sizeof(char *));
  if (plan->warnings == NULL)
    return oom(p);
  for (size_t i = 0; i < p->n_warnings; i++) {
    plan->warnings[plan->n_warnings++] = p->warnings[i].text;
    p->warnings[i].text = NULL;
  }
  plan->nic_cores = TAKE_PTR(p->nic_cores);
  plan->n_nic_cores = p->n_nic_cores;
  p->n_nic_cores = 0;
  return 0;
}

static void planner_release(struct planner *p) {
  hwloc_bitmap_free(p->usable);
  hwloc_bitmap_free(p->used);
  hwloc_bitmap_free(p->reserved);
  hwloc_bitmap_free(p->snapshot);
  hwloc_bitmap_free(p->prefer);
  for (size_t i = 0; i < p->n_nodes; i++) {
    free(p->nodes[i].cores);
    free(p->nodes[i].first_over);
  }
  free(p->nodes);
  if (p->roles)
    for (size_t r = 0; r < p->profile->n_roles; r++) {
      for (size_t i = 0; i < p->roles[r].n; i++)
        placer_instance_clear(&p->roles[r].inst[i]);
      free(p->roles[r].inst);
    }
  free(p->roles);
  for (size_t i = 0; i < p->n_pools; i++) {
    hwloc_bitmap_free(p->pools[i].cpus);
    for (size_t k = 0; p->pools[i].node_cpus && k < p->n_nodes; k++)
      hwloc_bitmap_free(p->pools[i].node_cpus[k]);
    free(p->pools[i].node_cpus);
  }
  free(p->pools);
  for (size_t i = 0; i < p->n_warnings; i++)
    free(p->warnings[i].text);
  free(p->warnings);
  free(p->storage_nic);
  for (size_t i = 0; i < p->n_nic_cores; i++) {
    free(p->nic_cores[i].nic);
    hwloc_bitmap_free(p->nic_cores[i].cpus);
  }
  free(p->nic_cores);
  free(p->owner);
}

/* What the cache alignment reads: who holds each PU, and whether align:
 * auto means cache here.  A role that asks for cache alignment on a
 * topology that knows no shared cache gets a note, not an error. */
static int setup_align(struct planner *p) {
  int last = hwloc_bitmap_last(p->topo->online_cpus);
  p->n_owner = last >= 0 ? (size_t)last + 1 : 0;
  p->owner = calloc(p->n_owner ? p->n_owner : 1, sizeof(*p->owner));
  if (p->owner == NULL)
    return oom(p);
  p->several_l3 = align_several_l3_per_node(p->topo);
  p->align.owner = p->owner;
  p->align.n_owner = p->n_owner;
  if (!p->profile->pin || align_has_caches(p->topo))
    return 0;
  for (size_t r = 0; r < p->profile->n_roles; r++)
    if (p->profile->roles[r].cpu.align == PLACER_ALIGN_CACHE &&
        warn(p, 0, r + 1, 0,
             "role '%s': align: cache, but the topology knows no cache shared by cores (no L3, no L2 "
             "cluster): aligned to cores and NUMA nodes",
             p->profile->roles[r].name) < 0)
      return -1;
  return 0;
}

/* Placement phases: 0 roles with a locality, 1 roles without, 2 count: fill. */
static int phase_of(const struct placer_role_spec *spec) {
  if (spec->count_mode == PLACER_COUNT_FILL)
    return 2;
  return spec->near == PLACER_NEAR_NONE ? 1 : 0;
}

int placer_plan_compute(const struct placer_topology *topo, const struct placer_profile *profile,
                        struct placer_plan **out, struct placer_error **err) {
  struct planner p = { .topo = topo, .profile = profile, .err = err };
  struct placer_plan *plan = NULL;
  int rc = -1;
  p.usable = hwloc_bitmap_alloc();
  p.used = hwloc_bitmap_alloc();
  p.reserved = hwloc_bitmap_alloc();
  p.snapshot = hwloc_bitmap_alloc();
  p.prefer = hwloc_bitmap_alloc();
  p.roles = calloc(profile->n_roles ? profile->n_roles : 1, sizeof(*p.roles));
  if (!p.usable || !p.used || !p.reserved || !p.snapshot || !p.prefer || !p.roles) {
    oom(&p);
    goto out;
  }
  hwloc_bitmap_copy(p.usable, topo->online_cpus);
  if (topo->allowed_cpus)
    hwloc_bitmap_and(p.usable, p.usable, topo->allowed_cpus);
  if (hwloc_bitmap_iszero(p.usable)) { /* an empty allowed cpuset: no plan on CPUs placer may not use */
    infeasible(&p, "topology '%s': no CPU is allowed here (its allowed cpuset has none of its online CPUs)",
               topo->source);
    goto out;
  }
  p.align = (struct align_ctx){ topo, p.usable, p.used, p.reserved, NULL, 0 };
  for (size_t r = 0; r < profile->n_roles; r++) {
    p.roles[r].spec = &profile->roles[r];
    p.roles[r].pos = r;
  }
  if (setup_nodes(&p) < 0 || setup_pools(&p) < 0 || select_storage_nics(&p) < 0 || setup_align(&p) < 0)
    goto out;
  if (p.n_nodes == 0) {
    infeasible(&p, "topology '%s' has no NUMA node", topo->source);
    goto out;
  }
  if (plan_reserve(&p) < 0)
    goto out;
  for (int phase = 0; phase < 3; phase++)
    for (size_t r = 0; r < profile->n_roles; r++)
      if (phase_of(&profile->roles[r]) == phase && place_role(&p, &p.roles[r]) < 0)
        goto out;
  if (memory_warnings(&p) < 0)
    goto out;
  plan = calloc(1, sizeof(*plan));
  if (plan == NULL) {
    oom(&p);
    goto out;
  }
  if (assemble(&p, plan) < 0 || placer_plan_irqs(topo, profile, plan, err) < 0)
    goto out;
  *out = TAKE_PTR(plan);
  rc = 0;
out:
  placer_plan_free(plan);
  planner_release(&p);
  return rc;
}
