/* The planner's IRQ part: from the profile's irqs: keys and the placed
 * instances, which device's IRQs go to which CPUs (the rules), and on a live
 * node every IRQ of those devices with where apply puts it.  Pure: it reads
 * the topology, the profile and the plan (the node's IRQs come with the
 * topology, irq.h).  docs/profiles.md, "IRQs". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner-internal.h"

struct irq_planner {
  const struct placer_topology *topo;
  const struct placer_profile *profile;
  struct placer_plan *plan;
  struct placer_error **err;
  hwloc_bitmap_t usable; /* online PUs this process may use */
};

static int oom(struct irq_planner *ip) {
  return placer_error_oom(ip->err, "plan irqs");
}

static int warn(struct irq_planner *ip, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct irq_planner *ip, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = planner_vappend(&ip->plan->warnings, &ip->plan->n_warnings, fmt, ap);
  va_end(ap);
  return rc < 0 ? oom(ip) : 0;
}

/* ------------------------------------------------------------------ devices */

/* What the node calls NAME: a block device, a NIC or a PCI function.  Live, the sysfs
 * inventory decides; from XML, hwloc's devices. *IS_NIC, *BUSID (NULL when unknown, not
 * owned) and its NUMA nodes into NODES (left empty when unknown). */
static bool find_device(const struct placer_topology *topo, const char *name, bool *is_nic, const char **busid,
                        hwloc_bitmap_t nodes) {
  *is_nic = false;
  *busid = NULL;
  for (size_t i = 0; i < topo->n_blockdevs; i++)
    if (strcmp(topo->blockdevs[i].name, name) == 0 ||
        (topo->blockdevs[i].pci_busid && !topo->irqs && strcmp(topo->blockdevs[i].pci_busid, name) == 0)) {
      hwloc_bitmap_copy(nodes, topo->blockdevs[i].numa_nodes);
      *busid = topo->blockdevs[i].pci_busid;
      break;
    }
  for (size_t i = 0; i < topo->n_nics && hwloc_bitmap_iszero(nodes); i++)
    if (strcmp(topo->nics[i].name, name) == 0 ||
        (topo->nics[i].pci_busid && !topo->irqs && strcmp(topo->nics[i].pci_busid, name) == 0)) {
      hwloc_bitmap_copy(nodes, topo->nics[i].numa_nodes);
      *busid = topo->nics[i].pci_busid;
      *is_nic = strcmp(topo->nics[i].name, name) == 0;
      break;
    }
  if (topo->irqs) {
    const struct placer_irq_dev *dev = placer_irq_inventory_device(topo->irqs, name);
    if (dev == NULL)
      return false;
    *is_nic = dev->kind == PLACER_IRQ_DEV_NET;
    *busid = dev->pci_busid;
    if (hwloc_bitmap_iszero(nodes) && dev->numa_node >= 0)
      hwloc_bitmap_set(nodes, (unsigned)dev->numa_node);
    return true;
  }
  if (*busid)
    return true;
  hwloc_obj_t pci = topo->hw ? hwloc_get_pcidev_by_busidstring(topo->hw, name) : NULL;
  if (pci == NULL)
    return false;
  *busid = name;
  hwloc_obj_t parent = hwloc_get_non_io_ancestor_obj(topo->hw, pci);
  if (parent && parent->nodeset)
    hwloc_bitmap_copy(nodes, parent->nodeset);
  return true;
}

/* "vda, eth0": the block devices and NICs here, for messages. */
static char *device_names(const struct placer_topology *topo) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (f == NULL)
    return NULL;
  size_t n = 0;
  if (topo->irqs) {
    for (size_t i = 0; i < topo->irqs->n_devs; i++)
      if (topo->irqs->devs[i].kind != PLACER_IRQ_DEV_PCI)
        fprintf(f, "%s%s", n++ ? ", " : "", topo->irqs->devs[i].name);
  } else {
    for (size_t i = 0; i < topo->n_blockdevs; i++)
      fprintf(f, "%s%s", n++ ? ", " : "", topo->blockdevs[i].name);
    for (size_t i = 0; i < topo->n_nics; i++)
      fprintf(f, "%s%s", n++ ? ", " : "", topo->nics[i].name);
  }
  if (n == 0)
    fputs("none", f);
  return fclose(f) == 0 ? text : NULL;
}

/* The cpus of the NUMA nodes in NODES. */
static void cpus_of_nodes(const struct placer_topology *topo, hwloc_const_bitmap_t nodes, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  for (size_t i = 0; i < topo->n_numa_nodes; i++)
    if (hwloc_bitmap_isset(nodes, topo->numa_nodes[i].os_index))
      hwloc_bitmap_or(out, out, topo->numa_nodes[i].cpus);
}

/* SET, or its part near NODES when that part is not empty. */
static void prefer_near(const struct placer_topology *topo, hwloc_bitmap_t set, hwloc_const_bitmap_t nodes) {
  hwloc_bitmap_t near = hwloc_bitmap_alloc();
  if (near == NULL)
    return;
  cpus_of_nodes(topo, nodes, near);
  hwloc_bitmap_and(near, near, set);
  if (!hwloc_bitmap_iszero(near))
    hwloc_bitmap_copy(set, near);
  hwloc_bitmap_free(near);
}

/* ------------------------------------------------------------------ rules */

/* Where TO sends the IRQs of DEVICE (a NIC when IS_NIC, on NODES), for INST (roles):
 * into OUT.  WHERE names the value in messages. */
static int target_cpus(struct irq_planner *ip, const struct placer_irq_to *to, const char *where, const char *device,
                       bool is_nic, hwloc_const_bitmap_t nodes, const struct placer_instance *inst,
                       hwloc_bitmap_t out) {
  const struct placer_plan *plan = ip->plan;
  hwloc_bitmap_zero(out);
  switch (to->target) {
  case PLACER_IRQ_TO_NONE: return 0;
  case PLACER_IRQ_TO_OWN: hwloc_bitmap_copy(out, inst->cpus); return 0;
  case PLACER_IRQ_TO_RESERVE:
    /* the host's own cores: the reserve without the cores given to NICs */
    hwloc_bitmap_copy(out, plan->reserved_cpus);
    for (size_t i = 0; i < plan->n_nic_cores; i++)
      hwloc_bitmap_andnot(out, out, plan->nic_cores[i].cpus);
    if (hwloc_bitmap_iszero(out))
      return placer_error_set(ip->err, PLACER_EXIT_INFEASIBLE, 0,
                              "%s: reserve, but no core is reserved for the host on this node (reserve.cores)", where);
    prefer_near(ip->topo, out, nodes);
    return 0;
  case PLACER_IRQ_TO_NIC_CORES:
    for (size_t i = 0; is_nic && i < plan->n_nic_cores; i++)
      if (strcmp(plan->nic_cores[i].nic, device) == 0)
        hwloc_bitmap_copy(out, plan->nic_cores[i].cpus);
    if (hwloc_bitmap_iszero(out)) {
      for (size_t i = 0; i < plan->n_nic_cores; i++)
        hwloc_bitmap_or(out, out, plan->nic_cores[i].cpus);
      prefer_near(ip->topo, out, nodes);
    }
    if (hwloc_bitmap_iszero(out))
      return placer_error_set(ip->err, PLACER_EXIT_INFEASIBLE, 0,
                              "%s: nic_cores, but no core is reserved for NIC interrupts on this node "
                              "(reserve.nics matches no NIC here)",
                              where);
    return 0;
  case PLACER_IRQ_TO_CPUS: {
    if (placer_cpulist_parse(to->cpus, out) < 0)
      return placer_error_set(ip->err, PLACER_EXIT_USAGE, 0, "%s: bad cpu list '%s'", where, to->cpus);
    if (hwloc_bitmap_isincluded(out, ip->usable))
      return 0;
    hwloc_bitmap_t off = hwloc_bitmap_dup(out);
    if (off == NULL)
      return oom(ip);
    hwloc_bitmap_andnot(off, off, ip->usable);
    cleanup_free char *off_text = placer_cpulist_format(off), *here = placer_cpulist_format(ip->usable);
    hwloc_bitmap_free(off);
    return placer_error_set(ip->err, PLACER_EXIT_USAGE, 0, "%s: cpus %s %s not on this node (cpus here: %s)", where,
                            off_text ? off_text : "?", off_text && strpbrk(off_text, ",-") ? "are" : "is",
                            here ? here : "?");
  }
  }
  return 0;
}

static struct placer_plan_irq_rule *new_rule(struct irq_planner *ip) {
  struct placer_plan *plan = ip->plan;
  struct placer_plan_irq_rule *bigger = realloc(plan->irq_rules, (plan->n_irq_rules + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return NULL;
  plan->irq_rules = bigger;
  struct placer_plan_irq_rule *r = &plan->irq_rules[plan->n_irq_rules];
  memset(r, 0, sizeof(*r));
  if ((r->cpus = hwloc_bitmap_alloc()) == NULL)
    return NULL;
  plan->n_irq_rules++;
  return r;
}

/* The rule (of an earlier entry) whose device is NAME or the same PCI function BUSID. */
static const struct placer_plan_irq_rule *rule_of_device(const struct irq_planner *ip, const char *name,
                                                         const char *busid, size_t before) {
  for (size_t i = 0; i < before; i++) {
    const struct placer_plan_irq_rule *r = &ip->plan->irq_rules[i];
    if (strcmp(r->device, name) == 0)
      return r;
    bool nic;
    const char *other = NULL;
    hwloc_bitmap_t scratch = hwloc_bitmap_alloc();
    if (scratch && busid && find_device(ip->topo, r->device, &nic, &other, scratch) && other &&
        strcmp(other, busid) == 0) {
      hwloc_bitmap_free(scratch);
      return r;
    }
    hwloc_bitmap_free(scratch);
  }
  return NULL;
}

/* "FILE:LINE:COL: irqs[I]SUFFIX" at the entry's device (its value with TO), or for an
 * entry set with --set: "--set irqs.DEVICE: irqs[I]SUFFIX". */
static void entry_where(const struct placer_profile *profile, size_t i, bool to, const char *suffix, char *buf,
                        size_t len) {
  const struct placer_irq_spec *spec = &profile->irqs[i];
  unsigned line = to ? spec->to.line : spec->line, col = to ? spec->to.col : spec->col;
  if (line == 0)
    snprintf(buf, len, "--set irqs.%s: irqs[%zu]%s", spec->device, i, suffix);
  else
    snprintf(buf, len, "%s:%u:%u: irqs[%zu]%s", profile->path, line, col, i, suffix);
}

/* One top-level entry for DEVICE (its own name, or one of the NICs `auto` stands for). */
static int top_level_rule(struct irq_planner *ip, size_t i, const char *device) {
  const struct placer_profile *profile = ip->profile;
  const struct placer_irq_spec *spec = &profile->irqs[i];
  char where_dev[600], where_to[600];
  entry_where(profile, i, false, ".device", where_dev, sizeof(where_dev));
  entry_where(profile, i, true, ".to", where_to, sizeof(where_to));
  bool is_nic;
  const char *busid;
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (nodes == NULL)
    return oom(ip);
  /* absent and optional: a pending rule with no IRQ, said once, its target checked all the same */
  bool found = find_device(ip->topo, device, &is_nic, &busid, nodes);
  if (!found && !spec->optional) {
    hwloc_bitmap_free(nodes);
    cleanup_free char *here = device_names(ip->topo);
    return placer_error_set(ip->err, PLACER_EXIT_USAGE, 0, "%s: no block device, NIC or PCI device '%s' (here: %s)",
                            where_dev, device, here ? here : "?");
  }
  const struct placer_plan_irq_rule *same = found ? rule_of_device(ip, device, busid, ip->plan->n_irq_rules) : NULL;
  if (same) {
    hwloc_bitmap_free(nodes);
    return placer_error_set(ip->err, PLACER_EXIT_USAGE, 0, "%s: '%s' is the device of %s already (%s)", where_dev,
                            device, same->device, same->where);
  }
  struct placer_plan_irq_rule *r = new_rule(ip);
  char where[700];
  entry_where(profile, i, false, "", where, sizeof(where));
  if (r == NULL || (r->device = strdup(device)) == NULL || (r->where = strdup(where)) == NULL) {
    hwloc_bitmap_free(nodes);
    return oom(ip);
  }
  r->target = spec->to.target;
  r->spread = is_nic;
  r->optional = spec->optional;
  r->pending = !found;
  int rc = target_cpus(ip, &spec->to, where_to, device, is_nic, nodes, NULL, r->cpus);
  hwloc_bitmap_free(nodes);
  if (rc < 0 || found)
    return rc;
  cleanup_free char *said = placer_plan_irq_pending_text(r);
  return said ? warn(ip, "%s", said) : oom(ip);
}

static int top_level_rules(struct irq_planner *ip) {
  const struct placer_profile *profile = ip->profile;
  for (size_t i = 0; i < profile->n_irqs; i++) {
    const struct placer_irq_spec *spec = &profile->irqs[i];
    if (strcmp(spec->device, "auto") != 0) {
      if (top_level_rule(ip, i, spec->device) < 0)
        return -1;
      continue;
    }
    /* auto: every NIC that reserve.nics gave cores to (with nics: [auto], the storage NICs) */
    char where[700];
    entry_where(profile, i, false, ".device", where, sizeof(where));
    if (ip->plan->n_nic_cores == 0)
      return placer_error_set(ip->err, PLACER_EXIT_INFEASIBLE, 0,
                              "%s: auto stands for the NICs reserve.nics gives cores to, and it gives none here",
                              where);
    for (size_t k = 0; k < ip->plan->n_nic_cores; k++)
      if (top_level_rule(ip, i, ip->plan->nic_cores[k].nic) < 0)
        return -1;
  }
  return 0;
}

/* The role-level rules: each instance's device or NIC; two instances on one device
 * share one rule with both their cpus. */
static int role_rules(struct irq_planner *ip) {
  const struct placer_profile *profile = ip->profile;
  size_t n_top = ip->plan->n_irq_rules;
  for (size_t k = 0; k < ip->plan->n_instances; k++) {
    const struct placer_instance *inst = &ip->plan->instances[k];
    const struct placer_role_spec *role = placer_profile_role(profile, inst->role);
    if (role == NULL || !role->has_irqs)
      continue;
    size_t role_pos = (size_t)(role - profile->roles);
    const char *device = inst->device ? inst->device : inst->nic;
    if (device == NULL)
      continue; /* no NIC to be near: the planner said so */
    char where[600];
    snprintf(where, sizeof(where), "%s:%u:%u: roles[%zu].irqs", profile->path, role->irqs.line, role->irqs.col,
             role_pos);
    bool is_nic;
    const char *busid;
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc(), cpus = hwloc_bitmap_alloc();
    if (nodes == NULL || cpus == NULL) {
      hwloc_bitmap_free(nodes);
      hwloc_bitmap_free(cpus);
      return oom(ip);
    }
    bool found = find_device(ip->topo, device, &is_nic, &busid, nodes);
    int rc = target_cpus(ip, &role->irqs, where, device, is_nic, nodes, inst, cpus);
    hwloc_bitmap_free(nodes);
    if (rc < 0) {
      hwloc_bitmap_free(cpus);
      return -1;
    }
    if (!found) {
      hwloc_bitmap_free(cpus);
      if (warn(ip, "%s: no IRQs known for %s; its interrupts are left where they are", inst->name, device) < 0)
        return -1;
      continue;
    }
    const struct placer_plan_irq_rule *top = rule_of_device(ip, device, busid, n_top);
    if (top) {
      hwloc_bitmap_free(cpus);
      return placer_error_set(ip->err, PLACER_EXIT_USAGE, 0,
                              "%s.device: '%s' is %s's %s, whose IRQs roles[%zu].irqs places; list it in one place",
                              top->where, top->device, inst->name, inst->device ? "device" : "NIC", role_pos);
    }
    struct placer_plan_irq_rule *shared = NULL;
    for (size_t i = n_top; i < ip->plan->n_irq_rules; i++)
      if (strcmp(ip->plan->irq_rules[i].device, device) == 0)
        shared = &ip->plan->irq_rules[i];
    if (shared) {
      char *both = NULL;
      hwloc_bitmap_or(shared->cpus, shared->cpus, cpus);
      hwloc_bitmap_free(cpus);
      if (asprintf(&both, "%s+%s", shared->instance, inst->name) < 0)
        return oom(ip);
      free(shared->instance);
      shared->instance = both;
      continue;
    }
    struct placer_plan_irq_rule *r = new_rule(ip);
    if (r == NULL) {
      hwloc_bitmap_free(cpus);
      return oom(ip);
    }
    hwloc_bitmap_copy(r->cpus, cpus);
    hwloc_bitmap_free(cpus);
    r->target = role->irqs.target;
    r->spread = is_nic;
    if ((r->device = strdup(device)) == NULL || (r->instance = strdup(inst->name)) == NULL ||
        (r->where = strdup(where)) == NULL)
      return oom(ip);
  }
  return 0;
}

/* ------------------------------------------------------------------ this node's IRQs */

static int resolve_rule(struct irq_planner *ip, const struct placer_plan_irq_rule *r) {
  const struct placer_irq_inventory *inv = ip->topo->irqs;
  const struct placer_irq_dev *dev = r->pending ? NULL : placer_irq_inventory_device(inv, r->device);
  if (dev == NULL || r->target == PLACER_IRQ_TO_NONE)
    return 0;
  if (dev->n_irqs == 0)
    return warn(ip, "irqs: %s raises no interrupt of its own (no MSI and no line: no driver, or not on PCI)",
                r->device);
  const struct placer_instance *inst = NULL;
  if (r->instance) {
    char first[256];
    snprintf(first, sizeof(first), "%.*s", (int)strcspn(r->instance, "+"), r->instance);
    inst = placer_plan_find(ip->plan, first);
  }
  size_t steered = 0;
  for (size_t i = 0; i < dev->n_irqs; i++) {
    const struct placer_irq *q = placer_irq_inventory_irq(inv, dev->irqs[i]);
    if (q == NULL)
      continue; /* gone since the device was read */
    for (size_t k = 0; k < ip->plan->n_irqs; k++)
      if (ip->plan->irqs[k].irq == q->irq)
        return placer_error_set(ip->err, PLACER_EXIT_USAGE, 0, "%s: IRQ %u (%s) of %s is placed by the rule of %s too",
                                r->where, q->irq, q->name, r->device, ip->plan->irqs[k].device);
    struct placer_plan_irq *bigger = realloc(ip->plan->irqs, (ip->plan->n_irqs + 1) * sizeof(*bigger));
    if (bigger == NULL)
      return oom(ip);
    ip->plan->irqs = bigger;
    struct placer_plan_irq *e = &bigger[ip->plan->n_irqs++];
    memset(e, 0, sizeof(*e));
    e->irq = q->irq;
    e->managed = q->managed;
    e->optional = r->optional;
    if ((e->name = strdup(q->name)) == NULL || (e->device = strdup(r->device)) == NULL ||
        (r->instance && (e->instance = strdup(r->instance)) == NULL) ||
        (q->affinity && (e->from = strdup(q->affinity)) == NULL) ||
        (q->effective && (e->effective = strdup(q->effective)) == NULL))
      return oom(ip);
    if (q->managed) {
      hwloc_bitmap_t eff = hwloc_bitmap_alloc();
      if (eff == NULL)
        return oom(ip);
      e->on_own_cpus = inst && q->effective && placer_cpulist_parse(q->effective, eff) == 0 &&
                       !hwloc_bitmap_iszero(eff) && hwloc_bitmap_isincluded(eff, inst->cpus);
      hwloc_bitmap_free(eff);
      continue;
    }
    if (r->spread) {
      char pu[16];
      snprintf(pu, sizeof(pu), "%d", placer_cpulist_nth(r->cpus, steered));
      e->to = strdup(pu);
    } else {
      e->to = placer_cpulist_format(r->cpus);
    }
    if (e->to == NULL)
      return oom(ip);
    steered++;
    if (dev->legacy && strchr(q->name, ',') &&
        warn(ip, "irqs: IRQ %u of %s is a line shared by %s: placing it moves them all", q->irq, r->device, q->name) <
            0)
      return -1;
  }
  return 0;
}

int placer_plan_irqs(const struct placer_topology *topo, const struct placer_profile *profile, struct placer_plan *plan,
                     struct placer_error **err) {
  struct irq_planner ip = { .topo = topo, .profile = profile, .plan = plan, .err = err };
  bool any_role = false;
  for (size_t i = 0; i < profile->n_roles; i++)
    any_role |= profile->roles[i].has_irqs;
  if (profile->n_irqs == 0 && !any_role)
    return 0;
  if ((ip.usable = hwloc_bitmap_dup(topo->online_cpus)) == NULL)
    return oom(&ip);
  if (topo->allowed_cpus && !hwloc_bitmap_iszero(topo->allowed_cpus))
    hwloc_bitmap_and(ip.usable, ip.usable, topo->allowed_cpus);
  int rc = top_level_rules(&ip) < 0 || role_rules(&ip) < 0 ? -1 : 0;
  plan->irqs_known = topo->irqs != NULL;
  for (size_t i = 0; rc == 0 && plan->irqs_known && i < plan->n_irq_rules; i++)
    rc = resolve_rule(&ip, &plan->irq_rules[i]);
  hwloc_bitmap_free(ip.usable);
  return rc;
}

void placer_plan_irq_queue_cpus(const struct placer_topology *topo, const char *device, hwloc_bitmap_t out) {
  hwloc_bitmap_zero(out);
  const struct placer_irq_dev *dev = topo->irqs ? placer_irq_inventory_device(topo->irqs, device) : NULL;
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  for (size_t i = 0; dev && one && i < dev->n_irqs; i++) {
    const struct placer_irq *q = placer_irq_inventory_irq(topo->irqs, dev->irqs[i]);
    if (q && q->managed && q->effective && placer_cpulist_parse(q->effective, one) == 0)
      hwloc_bitmap_or(out, out, one);
  }
  hwloc_bitmap_free(one);
}

char *placer_plan_irq_pending_text(const struct placer_plan_irq_rule *r) {
  char *text = NULL;
  if (asprintf(&text, "%s: %s not present: its IRQs are steered when it appears (placer watch, or the next apply)",
               r->where, r->device) < 0)
    return NULL;
  return text;
}

void placer_plan_irq_own_share(const struct placer_plan *plan, const char *instance, size_t *on_own, size_t *managed) {
  *on_own = *managed = 0;
  for (size_t i = 0; i < plan->n_irqs; i++) {
    const struct placer_plan_irq *q = &plan->irqs[i];
    if (!q->managed || q->instance == NULL || strcmp(q->instance, instance) != 0)
      continue;
    (*managed)++;
    *on_own += q->on_own_cpus;
  }
}
