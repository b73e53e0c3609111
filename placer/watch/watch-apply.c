/* placer watch's life (watch-apply.h): the options checked and the metrics
 * listener opened, the state lock taken and held, the profile applied
 * through apply's transaction (cgroupfs, or systemd where PID 1 is
 * systemd), then the core's loop with the hooks that bind each new process
 * through the model (journaled, so that reset puts it back) or place its
 * unit, and re-apply the profile on SIGHUP. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply.h"
#include "watch/watch-apply-internal.h"

/* ------------------------------------------------------------------ the plan */

struct loaded {
  struct placer_profile *profile;
  struct placer_topology *topo;
  struct placer_plan *plan;
  struct placer_placement *pl;
  uint64_t irq_signature; /* the node's IRQs and devices just before topo was read */
};

static void loaded_free(struct loaded *l) {
  placer_placement_free(l->pl);
  placer_plan_free(l->plan);
  placer_topology_free(l->topo);
  placer_profile_free(l->profile);
  memset(l, 0, sizeof(*l));
}

static int load_plan(struct keeper *k, struct loaded *l, struct placer_error **err) {
  memset(l, 0, sizeof(*l));
  /* taken before the node is read, so that a change while it is read or applied (a
   * device's sysfs entry going after its IRQs) is a change at the next check */
  l->irq_signature = keeper_irq_signature();
  if (placer_profile_load(k->opt->profile_path, &l->profile, err) < 0 ||
      placer_topology_load(NULL, &l->topo, err) < 0 || placer_plan_compute(l->topo, l->profile, &l->plan, err) < 0 ||
      placer_placement_compute(l->plan, placer_apply_prefix(k->opt->prefix), NULL, 0, &l->pl, err) < 0) {
    loaded_free(l);
    return -1;
  }
  return 0;
}

/* The watcher's rules and IRQs from the plan in force. */
static int set_rules(struct keeper *k, const struct placer_apply_report *report, struct placer_error **err) {
  const struct placer_placement *pl = k->pl;
  struct placer_watch_rule *rules = calloc(pl->n ? pl->n : 1, sizeof(*rules));
  struct placer_watch_irq *irqs = calloc(report->n_irqs ? report->n_irqs : 1, sizeof(*irqs));
  if (rules == NULL || irqs == NULL) {
    free(rules);
    free(irqs);
    return placer_error_oom(err, NULL);
  }
  for (size_t i = 0; i < pl->n; i++) {
    const struct placer_placed *p = &pl->v[i];
    rules[i] = (struct placer_watch_rule){ .instance = p->inst->name,
                                           .role = p->inst->role,
                                           .kind = p->inst->kind,
                                           .match = p->inst->match,
                                           .group = p->group,
                                           .cpus = p->inst->pinned ? p->values.cpus : NULL };
    /* through systemd, an instance's processes are in its unit's group, once it has one */
    for (size_t u = 0; k->by_units && u < k->state->n_units; u++)
      if (strcmp(k->state->units[u].name, p->inst->name) == 0 && k->state->units[u].cgroup &&
          placer_cgroup_group_is_valid(k->state->units[u].cgroup + 1))
        rules[i].group = k->state->units[u].cgroup + 1;
  }
  size_t n_irqs = 0;
  for (size_t i = 0; i < report->n_irqs; i++)
    if (report->irqs[i].to != NULL) /* steered; a managed one is the kernel's */
      irqs[n_irqs++] = (struct placer_watch_irq){ report->irqs[i].irq, report->irqs[i].name };
  int rc = placer_watch_set_rules(k->w, rules, pl->n, err) < 0 || placer_watch_set_irqs(k->w, irqs, n_irqs, err) < 0
               ? -1
               : 0;
  free(rules);
  free(irqs);
  return rc;
}

/* Each device pending in the plan in force (OLD) that NEW finds: said with its IRQs,
 * which the apply just steered. */
static void say_appeared(struct keeper *k, const struct placer_plan *old, const struct placer_plan *new) {
  for (size_t i = 0; old && i < new->n_irq_rules; i++) {
    const struct placer_plan_irq_rule *r = &new->irq_rules[i];
    bool was_pending = false;
    for (size_t j = 0; !r->pending && j < old->n_irq_rules; j++)
      was_pending |= old->irq_rules[j].pending && strcmp(old->irq_rules[j].device, r->device) == 0;
    if (!was_pending)
      continue;
    char list[256] = "";
    size_t n = 0;
    for (size_t q = 0; q < new->n_irqs; q++)
      if (strcmp(new->irqs[q].device, r->device) == 0 && new->irqs[q].to) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof(list) - used, "%s%u on %s", n ? ", " : "", new->irqs[q].irq, new->irqs[q].to);
        n++;
      }
    if (n)
      keeper_say(k, "%s: %s appeared: %zu IRQ%s steered as planned (%s)", r->where, r->device, n, n == 1 ? "" : "s",
                 list);
    else
      keeper_say(k, "%s: %s appeared, no IRQ requested yet: steered when its driver requests them", r->where,
                 r->device);
  }
}

/* L applied as `placer apply` applies it, under the lock this watcher
 * holds; on success it becomes the plan in force (L emptied). */
static int apply_loaded(struct keeper *k, struct loaded *l, struct placer_error **err) {
  struct placer_apply_options opt = {
    .state_dir = k->state_dir,
    .state = k->state,
    .processes_by_watcher = !k->by_units, /* systemd: apply places the units of what runs */
    .prefix = k->opt->prefix,
    .backend = k->by_units ? "systemd" : "cgroupfs",
  };
  struct placer_apply_report *report = NULL;
  if (placer_apply(l->plan, &opt, &report, err) < 0)
    return -1;
  keeper_say(k, "applied profile %s: %zu instance%s, %u change%s (%s, state %s); %s",
             l->plan->profile_name ? l->plan->profile_name : "?", report->n_instances,
             report->n_instances == 1 ? "" : "s", report->steps, report->steps == 1 ? "" : "s", report->where,
             report->state_dir, k->by_units ? "the units of new processes follow" : "their processes follow");
  for (size_t i = 0; i < report->n_notes; i++)
    keeper_say(k, "note: %s", report->notes[i]);
  say_appeared(k, k->plan, l->plan);
  /* The model in force binds no process yet: the watcher's rescan binds
   * what runs, one process at a time, right after. */
  struct loaded old = { k->profile, k->topo, k->plan, k->pl, 0 };
  k->profile = l->profile, k->topo = l->topo, k->plan = l->plan, k->pl = l->pl;
  k->irq_signature = k->plan->n_irq_rules ? l->irq_signature : 0;
  memset(l, 0, sizeof(*l));
  int rc = set_rules(k, report, err);
  placer_apply_report_free(report);
  loaded_free(&old);
  return rc;
}

static int keeper_reapply(struct keeper *k, const char *why, struct placer_error **err) {
  struct loaded l;
  if (load_plan(k, &l, err) < 0 || apply_loaded(k, &l, err) < 0) {
    loaded_free(&l);
    return placer_error_prefix(err, "%s", why);
  }
  return 0;
}

/* ------------------------------------------------------------------ hooks */

/* Through systemd: the unit PID runs in placed when it is not yet (its
 * processes then have its properties: none is moved), and the rule's group
 * made the unit's, where its processes are counted. */
static int place_unit(struct keeper *k, struct placer_placed *p, pid_t pid, enum placer_watch_placed *out,
                      struct placer_error **err) {
  cleanup_free char *unit_cgroup = NULL;
  bool placed = false, gone = false;
  if (placer_apply_systemd_bind_pid(k->state, k->pl, p, pid, &unit_cgroup, &placed, &gone, err) < 0)
    return -1;
  *out = gone ? PLACER_WATCH_GONE : placed ? PLACER_WATCH_PLACED : PLACER_WATCH_ALREADY;
  if (unit_cgroup && placer_cgroup_group_is_valid(unit_cgroup + 1) &&
      placer_watch_set_rule_group(k->w, p->inst->name, unit_cgroup + 1, err) < 0)
    return -1;
  return 0;
}

static int place_hook(void *ctx, const struct placer_watch_rule *rule, pid_t pid, enum placer_watch_placed *out,
                      struct placer_error **err) {
  struct keeper *k = ctx;
  struct placer_placed *p = (struct placer_placed *)placer_placement_find(k->pl, rule->instance);
  if (p == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT, "%s is not in the plan in force", rule->instance);
  if (k->by_units)
    return place_unit(k, p, pid, out, err);
  size_t moved = 0;
  bool gone = false;
  if (placer_apply_bind_pid(k->state, k->cg, k->pl, p, pid, &moved, &gone, err) < 0)
    return -1;
  *out = gone ? PLACER_WATCH_GONE : moved ? PLACER_WATCH_PLACED : PLACER_WATCH_ALREADY;
  return 0;
}

/* Every interval: the node's IRQs, PCI devices or NICs changed
 * (keeper_irq_signature), the profile planned again (a new IRQ of its
 * devices gets steered); then the values and IRQs checked. */
static int check_hook(void *ctx, struct placer_watch *w, struct placer_error **err) {
  struct keeper *k = ctx;
  if (k->irq_signature) {
    uint64_t now = keeper_irq_signature();
    if (now != k->irq_signature) {
      k->irq_signature = now;
      struct placer_error *e = NULL;
      if (keeper_reapply(k, "the node's IRQs or devices changed", &e) < 0)
        keeper_say(k, "%s; the running plan stays", e->msg);
      else
        keeper_say(k, "the node's IRQs or devices changed: the profile planned and applied again");
      placer_error_free(e);
    }
  }
  return keeper_check(k, w, err);
}

static int reload_hook(void *ctx, struct placer_watch *w, struct placer_error **err) {
  (void)w;
  struct keeper *k = ctx;
  return keeper_reapply(k, k->opt->profile_path, err);
}

/* ------------------------------------------------------------------ life */

static void keeper_free(struct keeper *k) {
  placer_watch_free(k->w);
  struct loaded in_force = { k->profile, k->topo, k->plan, k->pl, 0 };
  loaded_free(&in_force);
  placer_state_free(k->state); /* the lock goes with it */
  placer_cgroup_close(k->cg);
  placer_string_list_free(&k->early);
}

int placer_watch_apply(const struct placer_watch_apply_options *opt, int *signo, struct placer_error **err) {
  struct keeper k = { .opt = opt, .state_dir = opt->state_dir ? opt->state_dir : placer_state_default_dir() };
  struct placer_watch_hooks hooks = {
    .ctx = &k,
    .place = place_hook,
    .thread_named = keeper_vcpu_named,
    .check = check_hook,
    .reload = reload_hook,
    .log = keeper_log,
  };
  struct loaded l = { 0 };
  /* What bad input can fail on first, before anything changes. */
  if (placer_cgroup_open(NULL, &k.cg, err) < 0 || placer_watch_new(&opt->watch, &hooks, k.cg, &k.w, err) < 0)
    goto fail;
  const char *backend = placer_apply_backend_resolve(opt->backend);
  if (backend == NULL) {
    placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--backend wants one of %s, got '%s'", PLACER_APPLY_BACKEND_NAMES,
                     opt->backend);
    goto fail;
  }
  k.by_units = strcmp(backend, "systemd") == 0;
  if (load_plan(&k, &l, err) < 0)
    goto fail;
  if (geteuid() != 0) {
    placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                     k.by_units ? "placer watch must run as root: it sets units' properties through systemd"
                                : "placer watch must run as root: it moves processes between cgroups and writes their "
                                  "files");
    goto fail;
  }
  if (placer_state_open_kind(k.state_dir, k.by_units ? &placer_state_units : &placer_state_groups,
                             PLACER_STATE_LOCK_EXCLUSIVE, &k.state, NULL, err) < 0) {
    placer_error_prefix(err, "the state lock");
    goto fail;
  }
  /* cgroupfs: a move recorded per process placed, not fsynced (state.h) and appended to state.log, not
   * state.json rewritten each time; systemd: a record per unit, saved as apply saves it */
  k.state->volatile_saves = !k.by_units;
  k.state->journal_appends = !k.by_units;
  keeper_say(&k, "holding the state lock of %s: no apply, reset or other watcher until this one ends", k.state_dir);
  if (apply_loaded(&k, &l, err) < 0)
    goto fail;
  keeper_started(&k);
  int rc = placer_watch_run(k.w, signo, err);
  keeper_free(&k);
  return rc;
fail:;
  bool held = k.state != NULL;
  loaded_free(&l);
  keeper_free(&k);
  if (held) /* a refused first apply leaves no state directory behind, as apply's own */
    placer_state_dir_tidy(k.state_dir);
  return -1;
}
