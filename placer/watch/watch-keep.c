/* placer watch's check, every interval (watch-apply-internal.h): the
 * journal and the model rid of processes gone, each bound process in its
 * group, each placed instance's group values read through the cgroupfs
 * writer (or, through systemd, each placed unit's properties through apply's
 * systemd writer) and compared with the model's, the steered IRQs compared
 * with the plan (apply-irq-keep.c), each put back or reported; and what
 * tells a change of the node's IRQs or devices (a device added or removed, a
 * driver reloaded, a NIC's queues changed), on which watch-apply.c plans the
 * profile again. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply.h"
#include "proc.h"
#include "topology/irq.h"
#include "watch/watch-apply-internal.h"

/* FNV-1a of the names in DIR into H: which devices of that kind the node has. */
static uint64_t hash_names(uint64_t h, const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *de; d && (de = readdir(d)) != NULL;)
    for (const char *c = de->d_name; *c; c++) {
      h ^= (unsigned char)*c;
      h *= 1099511628211ull;
    }
  if (d)
    closedir(d);
  return h;
}

uint64_t keeper_irq_signature(void) {
  struct placer_interrupts in = { 0 };
  struct placer_error *e = NULL;
  if (placer_interrupts_read("", &in, &e) < 0) {
    placer_error_free(e);
    return 1; /* unreadable: a value that no list gives, so that a readable one after it counts as a change */
  }
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the IRQ numbers */
  for (size_t i = 0; i < in.n_lines; i++) {
    h ^= in.lines[i].irq + 1;
    h *= 1099511628211ull;
  }
  placer_interrupts_clear(&in);
  /* and the PCI functions and NICs: a device removed frees its IRQs before its sysfs entry
   * goes, so a plan made in between still finds it; its entry gone is a change too (and
   * one that appears before requesting an IRQ) */
  h = hash_names(hash_names(h, "/sys/bus/pci/devices"), "/sys/class/net");
  return h ? h : 2;
}

/* ------------------------------------------------------------------ group values */

struct value_check {
  struct keeper *k;
  bool *drifts; /* per instance of k->pl */
};

static void shown(enum placer_setting s, const struct placer_group_values *v, char *buf, size_t len) {
  switch (s) {
  case PLACER_SETTING_CPUS: snprintf(buf, len, "%s", *v->cpus ? v->cpus : "empty"); return;
  case PLACER_SETTING_MEMS: snprintf(buf, len, "%s", *v->mems ? v->mems : "empty"); return;
  case PLACER_SETTING_MEMORY_LIMIT:
    if (v->memory_limit == PLACER_CGROUP_UNLIMITED)
      snprintf(buf, len, "max");
    else
      snprintf(buf, len, "%" PRIu64 " bytes", v->memory_limit);
    return;
  case PLACER_SETTING_CPU_WEIGHT: snprintf(buf, len, "%u", v->cpu_weight); return;
  case PLACER_SETTING_CPU_QUOTA: snprintf(buf, len, "%u/1000 core", v->cpu_quota); return;
  case PLACER_SETTING_N: break;
  }
  snprintf(buf, len, "?");
}

static int value_before(void *ctx, const struct placer_placed *p, enum placer_write_step step, const char *where,
                        enum placer_setting s, const struct placer_group_values *now,
                        const struct placer_group_values *want, struct placer_error **err) {
  (void)err;
  struct value_check *c = ctx;
  c->drifts[p - c->k->pl->v] = true;
  if (step == PLACER_WRITE_CREATE) {
    /* not made again behind the journal's back: apply (or SIGHUP) makes it, journaled */
    placer_watch_count_drift(c->k->w, PLACER_WATCH_DRIFT_GROUP, false);
    keeper_say(c->k, "%s: group %s is gone: left as it is (SIGHUP applies the profile again)", p->inst->name, where);
    return 1;
  }
  char was[64], planned[64];
  shown(s, now, was, sizeof(was));
  shown(s, want, planned, sizeof(planned));
  bool fix = !c->k->opt->report_only;
  if (!fix)
    placer_watch_count_drift(c->k->w, PLACER_WATCH_DRIFT_GROUP, false);
  keeper_say(c->k, "%s: %s %s is %s, planned %s: %s", p->inst->name, where, placer_setting_name(s), was, planned,
             fix ? "put back" : "reported, left as it is");
  return fix ? 0 : 1;
}

static int value_after(void *ctx, const struct placer_placed *p, enum placer_write_step step, bool unmarked,
                       struct placer_error **err) {
  (void)p, (void)step, (void)unmarked, (void)err;
  struct value_check *c = ctx;
  placer_watch_count_drift(c->k->w, PLACER_WATCH_DRIFT_GROUP, true);
  return 0;
}

/* ------------------------------------------------------------------ processes */

/* The processes the model binds for P, each in P's group in every
 * hierarchy: one moved out by someone put back (the record of its first
 * move, with its original groups, is in the journal: reset still puts it
 * there) or reported.  Whether one was found outside. */
static bool check_processes(struct keeper *k, const struct placer_placed *p) {
  bool drift = false;
  for (size_t i = 0; i < p->n_procs; i++) {
    const struct placer_placed_proc *pp = &p->procs[i];
    struct placer_cgroup_membership m = { { 0 } };
    struct placer_error *e = NULL;
    if (placer_cgroup_pid_membership(k->cg, pp->pid, &m, &e) < 0) {
      placer_error_free(e); /* exited since: forgotten at the next check */
      continue;
    }
    bool in = placer_cgroup_membership_is(k->cg, &m, p->group);
    placer_cgroup_membership_clear(&m);
    /* v1 shows a process in do_exit() in the root: not one moved out */
    if (in || !placer_proc_is_same(pp->pid, pp->start_time) || placer_task_exiting(pp->pid, pp->pid))
      continue;
    drift = true;
    bool fix = !k->opt->report_only;
    bool fixed = fix && placer_cgroup_attach_pid(k->cg, p->group, pp->pid, &e) == 0;
    placer_watch_count_drift(k->w, PLACER_WATCH_DRIFT_PROCESS, fixed);
    keeper_say(k, "%s: pid %d (%s) is outside %s: %s", p->inst->name, (int)pp->pid, pp->comm ? pp->comm : "?", p->group,
               fixed ? "put back"
               : fix ? (e && e->msg ? e->msg : "not put back")
                     : "reported, left as it is");
    placer_error_free(e);
  }
  return drift;
}

/* ------------------------------------------------------------------ the check */

static void set_drift(struct keeper *k, const char *instance, bool *drifts) {
  for (size_t i = 0; instance && i < k->pl->n; i++)
    if (strcmp(k->pl->v[i].inst->name, instance) == 0)
      drifts[i] = true;
}

static int check_irqs(struct keeper *k, bool *drifts, struct placer_error **err) {
  struct placer_apply_irq_kept *kept = NULL;
  size_t n = 0;
  if (placer_apply_irqs_keep(k->state_dir, NULL, !k->opt->report_only, &kept, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    if (kept[i].line == NULL)
      continue;
    placer_watch_count_drift(k->w, PLACER_WATCH_DRIFT_IRQ, kept[i].fixed);
    keeper_say(k, "%s%s%s: %s", kept[i].instance ? kept[i].instance : "", kept[i].instance ? ": " : "", kept[i].line,
               kept[i].fixed ? "put back" : "reported, left as it is");
    set_drift(k, kept[i].instance, drifts);
  }
  placer_apply_irqs_kept_free(kept, n);
  return 0;
}

int keeper_check(struct keeper *k, struct placer_watch *w, struct placer_error **err) {
  (void)w;
  placer_placement_forget_exited(k->pl);
  if (!k->by_units && placer_apply_forget_exited(k->state, NULL, err) < 0)
    return -1;
  bool *drifts = calloc(k->pl->n ? k->pl->n : 1, sizeof(*drifts));
  if (drifts == NULL)
    return placer_error_oom(err, NULL);
  struct placer_writer writer = placer_writer_cgroupfs(k->cg);
  struct value_check c = { k, drifts };
  struct placer_write_hooks hooks = { &c, value_before, value_after };
  int rc = 0;
  if (k->by_units) /* the units' properties: a process is where systemd put it, none is moved */
    rc = placer_apply_systemd_keep(k->state, k->pl, &hooks, err);
  for (size_t i = 0; !k->by_units && rc == 0 && i < k->pl->n; i++) {
    const struct placer_placed *p = &k->pl->v[i];
    if (placer_placed_write(&writer, p, PLACER_GROUP_SETTINGS, p->role_writes, NULL, &hooks, NULL, err) < 0)
      rc = placer_error_prefix(err, "%s", p->inst->name);
    drifts[i] = check_processes(k, p) || drifts[i];
  }
  if (rc == 0 && !k->by_units)
    rc = keeper_check_vcpus(k, drifts, err);
  if (rc == 0)
    rc = check_irqs(k, drifts, err);
  for (size_t i = 0; i < k->pl->n; i++)
    placer_watch_set_instance_drift(k->w, k->pl->v[i].inst->name, drifts[i]);
  free(drifts);
  return rc;
}
