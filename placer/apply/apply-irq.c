/* The IRQ part of apply, status and reset (apply-irq.h), the same for both
 * backends: each IRQ's smp_affinity_list journaled in STATE_DIR/irq.json
 * before it is written, rolled back with the rest of apply on any failure;
 * managed IRQs (the kernel refuses, EIO) reported, never failed on. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "lib/cpulist.h"
#include "lib/fsfile.h"
#include "lib/textfile.h"
#include "systemd-unit.h"

struct irq_txn {
  const struct placer_plan *plan;
  const struct placer_apply_options *opt;
  bool dry_run;
  const char *root;
  struct irq_etc etc;
  struct placer_state *state;
  unsigned txn;
  unsigned steps;
  struct placer_string_list actions;
  struct placer_string_list notes;
  struct placer_apply_irq_report *irqs; /* one per plan IRQ */
  bool *gone;                           /* per plan IRQ: not there any more */
};

/* ------------------------------------------------------------------ apply */

static void txn_free(struct irq_txn *t) {
  if (t == NULL)
    return;
  for (size_t i = 0; t->irqs && i < t->plan->n_irqs; i++) {
    struct placer_apply_irq_report *r = &t->irqs[i];
    free(r->name);
    free(r->device);
    free(r->instance);
    free(r->from);
    free(r->to);
    free(r->effective);
    free(r->note);
  }
  free(t->irqs);
  free(t->gone);
  placer_string_list_free(&t->actions);
  placer_string_list_free(&t->notes);
  placer_state_free(t->state);
  free(t);
}

/* Journal and write one IRQ's list (not in a dry run); LINE says what. */
static int set_affinity(struct irq_txn *t, unsigned irq, const char *name, const char *now, const char *want,
                        const char *line, bool *managed, bool *gone, struct placer_error **err) {
  *managed = *gone = false;
  if (t->dry_run) {
    char *original = NULL;
    enum irq_owner_claimed how;
    if (irq_owner_claim(t->root, t->state, irq, name, now, true, &original, &how, err) < 0)
      return -1; /* a dry run refuses what apply would */
    free(original);
    t->steps++;
    return placer_string_list_addf(&t->actions, "%s", line);
  }
  /* one state steers an IRQ at a time; a stale owner's recorded list is the true one */
  char *original = NULL;
  enum irq_owner_claimed how;
  if (irq_owner_claim(t->root, t->state, irq, name, now, false, &original, &how, err) < 0)
    return -1;
  bool fresh = how == IRQ_OWNER_FRESH;
  struct placer_journal_entry e = {
    .txn = t->txn, .op = PLACER_JOURNAL_IRQ, .irq = irq, .name = strdup(name), .previous = original
  };
  if (e.name == NULL || e.previous == NULL) {
    placer_journal_entry_clear(&e);
    if (fresh)
      irq_owner_release(t->root, t->state, irq);
    return placer_error_oom(err, NULL);
  }
  if (placer_state_journal_add(t->state, &e, err) < 0) {
    if (fresh)
      irq_owner_release(t->root, t->state, irq);
    return -1;
  }
  if (irq_write_affinity(t->root, irq, want, err) < 0) {
    /* A refused write changes nothing: its record goes, so that the rollback does not
     * write where the kernel just refused. */
    struct placer_state *s = t->state;
    placer_journal_entry_clear(&s->journal[--s->n_journal]);
    if (fresh && !irq_journal_names(s, irq)) /* a taken-over record keeps its original list */
      irq_owner_release(t->root, s, irq);
    int why = (*err)->errno_value;
    struct placer_error *save_err = NULL;
    if (placer_state_save(s, &save_err) < 0) {
      placer_error_free(*err);
      *err = save_err;
      return -1;
    }
    if (why != EIO && why != ENOENT)
      return -1;
    /* the kernel refused (a managed IRQ), or it is gone */
    placer_error_clear(err);
    *managed = why == EIO;
    *gone = why == ENOENT;
    return 0;
  }
  int saved = 0;
  cleanup_free char *after = irq_read_line(t->root, irq, "smp_affinity_list", &saved);
  if (after == NULL || !placer_cpulist_equal(after, want))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                            "IRQ %u (%s): smp_affinity_list reads '%s' after writing '%s'", irq, name,
                            after ? after : strerror(saved), want);
  t->steps++;
  return placer_string_list_addf(&t->actions, "%s", line);
}

/* An IRQ on its planned cpus already is still one state's at a time: another
 * live state's refuses (as a write would); a gone owner's is taken over and
 * its recorded list journaled (nothing to write), so that reset puts it
 * back; no owner: nothing to own, nothing changes. */
static int keep_owner(struct irq_txn *t, unsigned irq, const char *name, const char *now, struct placer_error **err) {
  char *original = NULL;
  enum irq_owner_claimed how;
  if (irq_owner_claim(t->root, t->state, irq, name, now, t->dry_run, &original, &how, err) < 0)
    return placer_error_prefix(err, "irqs");
  if (t->dry_run || how != IRQ_OWNER_TAKEN) {
    free(original);
    if (!t->dry_run && how == IRQ_OWNER_FRESH)
      irq_owner_release(t->root, t->state, irq);
    return 0;
  }
  struct placer_journal_entry e = {
    .txn = t->txn, .op = PLACER_JOURNAL_IRQ, .irq = irq, .name = strdup(name), .previous = original
  };
  if (e.name == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_oom(err, NULL);
  }
  return placer_state_journal_add(t->state, &e, err);
}

static int steer_one(struct irq_txn *t, size_t i, struct placer_error **err) {
  const struct placer_plan_irq *q = &t->plan->irqs[i];
  struct placer_apply_irq_report *r = &t->irqs[i];
  r->irq = q->irq;
  r->managed = q->managed;
  if ((r->name = strdup(q->name)) == NULL || (r->device = strdup(q->device)) == NULL ||
      (q->instance && (r->instance = strdup(q->instance)) == NULL) || (q->to && (r->to = strdup(q->to)) == NULL) ||
      (q->effective && (r->effective = strdup(q->effective)) == NULL))
    return placer_error_oom(err, NULL);
  int saved = 0;
  r->from = irq_read_line(t->root, q->irq, "smp_affinity_list", &saved);
  if (q->managed)
    return 0;
  if (r->from == NULL) {
    if (saved != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "read /proc/irq/%u/smp_affinity_list", q->irq);
    t->gone[i] = true;
    if (asprintf(&r->note, "IRQ %u (%s) of %s is gone since the plan was made: left out", q->irq, q->name, q->device) <
        0)
      return placer_error_oom(err, NULL);
    return placer_string_list_addf(&t->notes, "%s", r->note);
  }
  if (placer_cpulist_equal(r->from, q->to))
    return keep_owner(t, q->irq, q->name, r->from, err);
  cleanup_free char *line = NULL;
  if (asprintf(&line, "IRQ %u (%s) of %s%s%s: cpus %s (was %s)", q->irq, q->name, q->device, q->instance ? ", " : "",
               q->instance ? q->instance : "", q->to, r->from) < 0)
    return placer_error_oom(err, NULL);
  bool managed, gone;
  if (set_affinity(t, q->irq, q->name, r->from, q->to, line, &managed, &gone, err) < 0)
    return placer_error_prefix(err, "irqs");
  r->changed = !managed && !gone;
  t->gone[i] = gone;
  if (managed) {
    r->managed = true;
    free(r->to);
    r->to = NULL;
    if (asprintf(&r->note, "IRQ %u (%s) of %s is managed by the kernel (it refused the write): left on cpu %s", q->irq,
                 q->name, q->device, q->effective ? q->effective : "?") < 0)
      return placer_error_oom(err, NULL);
    return placer_string_list_addf(&t->notes, "%s", r->note);
  }
  if (gone) {
    if (asprintf(&r->note, "IRQ %u (%s) of %s is gone since the plan was made: left out", q->irq, q->name, q->device) <
        0)
      return placer_error_oom(err, NULL);
    return placer_string_list_addf(&t->notes, "%s", r->note);
  }
  return 0;
}

/* The records of IRQs whose device went away since they were journaled (a NIC removed,
 * hot-unplugged, its driver unbound): /proc/irq/N gone, or N another handler's now (the
 * number given to another device).  Nothing of placer's is left to put back there, and a
 * record kept would write its list onto the other device's IRQ, or (the oldest record of
 * N) outrank the one journaled when N's new device is steered.  An IRQ with no handler
 * now (a NIC down keeps its vectors, and their lists) keeps its records. */
static int forget_gone(struct irq_txn *t, struct placer_error **err) {
  struct placer_state *s = t->state;
  bool dropped = false;
  for (size_t j = s->n_journal; j-- > 0;) {
    const struct placer_journal_entry *e = &s->journal[j];
    if (e->op != PLACER_JOURNAL_IRQ)
      continue;
    cleanup_free char *name = placer_irq_read_name(t->root, e->irq);
    if (name && (*name == '\0' || e->name == NULL || strcmp(name, e->name) == 0))
      continue;
    unsigned irq = e->irq;
    if (placer_string_list_addf(&t->notes, "IRQ %u (%s) is %s%s: its record dropped, nothing to put back", irq,
                                e->name ? e->name : "?", name ? "now " : "gone", name ? name : "") < 0)
      return placer_error_oom(err, NULL);
    if (t->dry_run)
      continue;
    placer_state_journal_remove(s, j);
    dropped = true;
    if (!irq_journal_names(s, irq))
      irq_owner_release(t->root, s, irq);
  }
  return dropped ? placer_state_save(s, err) : 0;
}

/* IRQs an earlier apply steered that this plan no longer names: back to where they were
 * before placer (the oldest journal record of each). */
static int unsteer_dropped(struct irq_txn *t, struct placer_error **err) {
  for (size_t k = 0; k < t->state->n_irqs; k++) {
    const struct placer_state_irq *old = &t->state->irqs[k];
    bool planned = false;
    for (size_t i = 0; i < t->plan->n_irqs; i++)
      planned |= t->plan->irqs[i].irq == old->irq;
    const char *original = NULL;
    for (size_t j = 0; j < t->state->n_journal && original == NULL; j++)
      if (t->state->journal[j].op == PLACER_JOURNAL_IRQ && t->state->journal[j].irq == old->irq)
        original = t->state->journal[j].previous;
    if (planned || old->planned == NULL || original == NULL)
      continue;
    int saved = 0;
    cleanup_free char *now = irq_read_line(t->root, old->irq, "smp_affinity_list", &saved);
    cleanup_free char *orig = strdup(original); /* the journal may grow (realloc) */
    if (orig == NULL)
      return placer_error_oom(err, NULL);
    if (now == NULL || placer_cpulist_equal(now, orig))
      continue;
    cleanup_free char *line = NULL;
    if (asprintf(&line, "IRQ %u (%s) of %s: no longer in the profile, cpus %s as before placer (was %s)", old->irq,
                 old->name, old->device, orig, now) < 0)
      return placer_error_oom(err, NULL);
    bool managed, gone;
    if (set_affinity(t, old->irq, old->name, now, orig, line, &managed, &gone, err) < 0)
      return -1;
  }
  return 0;
}

/* The cpus irqbalance is kept off: every pinned instance's, less the host's reserve. */
static char *banned_cpus(const struct placer_plan *plan) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL)
    return NULL;
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].pinned)
      hwloc_bitmap_or(set, set, plan->instances[i].cpus);
  hwloc_bitmap_andnot(set, set, plan->reserved_cpus);
  char *text = placer_cpulist_format(set);
  hwloc_bitmap_free(set);
  return text;
}

static const char *irqbalance_mode_name(enum placer_irqbalance_mode m) {
  return m == PLACER_IRQBALANCE_BAN ? "ban" : m == PLACER_IRQBALANCE_IGNORE ? "ignore" : "refuse";
}

static int irqbalance_refusal(const struct placer_plan *plan, pid_t pid, struct placer_error **err) {
  char list[512] = "";
  size_t n = 0;
  for (size_t i = 0; i < plan->n_irqs; i++) {
    if (plan->irqs[i].managed)
      continue;
    if (n < 4)
      snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u %s", n ? ", " : "", plan->irqs[i].irq,
               plan->irqs[i].name);
    n++;
  }
  cleanup_free char *banned = banned_cpus(plan);
  return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                          "irqbalance is running (pid %d): it rebalances every 10 s and would move the %zu IRQ%s "
                          "placer steers (%s%s) where it sees fit; --irqbalance ban keeps it off them%s%s and "
                          "restarts it, --irqbalance ignore goes on anyway",
                          (int)pid, n, n == 1 ? "" : "s", list, n > 4 ? ", ..." : "",
                          banned && *banned ? " and off the instances' cpus " : "", banned ? banned : "");
}

static int record_paths(struct placer_state *s, const struct irq_etc *etc) {
  char **slots[] = { &s->root, &s->systemctl, &s->etc_dir, &s->defaults, &s->initd };
  const char *values[] = { etc->root, etc->systemctl, etc->etc_dir, etc->defaults, etc->initd };
  for (size_t i = 0; i < 5; i++) {
    free(*slots[i]);
    if ((*slots[i] = strdup(values[i])) == NULL)
      return -1;
  }
  return 0;
}

static void roll_back(struct irq_txn *t, struct placer_error **err) {
  if (t->dry_run || t->state == NULL || t->txn == 0)
    return;
  struct placer_string_list notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  size_t failed = irq_undo(t->state, &t->etc, t->txn, &notes, &failures, NULL, NULL);
  t->state->pending_txn = 0;
  t->state->pending_pid = 0;
  if (t->steps == 0 && t->state->last_txn == t->txn)
    t->state->last_txn--;
  struct placer_error *save_err = NULL;
  if (placer_state_save(t->state, &save_err) < 0) {
    placer_string_list_addf(&failures, "%s", save_err->msg);
    placer_error_free(save_err);
    failed++;
  }
  cleanup_free char *why = placer_string_list_join(&failures, "; "), *said = placer_string_list_join(&notes, "; ");
  if (*err == NULL)
    return;
  char *msg = NULL;
  int n = failed     ? asprintf(&msg, "%s (and the IRQs' rollback is incomplete: %s; run 'placer reset')", (*err)->msg,
                            why ? why : "?")
          : t->steps ? asprintf(&msg, "%s (the %u IRQ change%s rolled back too%s%s)", (*err)->msg, t->steps,
                                t->steps == 1 ? "" : "s", notes.n ? ": " : "", notes.n && said ? said : "")
                     : 0;
  if (n > 0 && msg) {
    free((*err)->msg);
    (*err)->msg = msg;
  }
  placer_string_list_free(&notes);
  placer_string_list_free(&failures);
}

int irq_apply_begin(const struct placer_plan *plan, const struct placer_apply_options *opt,
                    const struct placer_apply_backend_ops *backend, struct irq_txn **out, struct placer_error **err) {
  *out = NULL;
  const char *dir = opt->state_dir ? opt->state_dir : placer_state_default_dir();
  if (plan->n_irq_rules == 0 && !placer_state_file_exists(dir, PLACER_STATE_IRQ_FILE))
    return 0;
  if (plan->n_irq_rules && !plan->irqs_known)
    return placer_error_set(err, PLACER_EXIT_INFEASIBLE, 0,
                            "irqs: the plan does not know this node's IRQs (made from --topology '%s'?): apply reads "
                            "them on the node itself",
                            plan->topology_source);
  struct irq_txn *t = calloc(1, sizeof(*t));
  if (t == NULL)
    return placer_error_oom(err, NULL);
  t->plan = plan;
  t->opt = opt;
  t->dry_run = opt->dry_run;
  irq_etc_defaults(&t->etc, opt);
  t->root = t->etc.root;
  t->irqs = calloc(plan->n_irqs ? plan->n_irqs : 1, sizeof(*t->irqs));
  t->gone = calloc(plan->n_irqs ? plan->n_irqs : 1, sizeof(*t->gone));
  if (t->irqs == NULL || t->gone == NULL) {
    txn_free(t);
    return placer_error_oom(err, NULL);
  }
  size_t n_steer = 0;
  for (size_t i = 0; i < plan->n_irqs; i++)
    n_steer += !plan->irqs[i].managed;
  pid_t irqbalance = n_steer ? irq_irqbalance_pid(t->root) : 0;
  if (irqbalance && opt->irqbalance == PLACER_IRQBALANCE_REFUSE) {
    txn_free(t);
    return irqbalance_refusal(plan, irqbalance, err);
  }
  if (irqbalance && opt->irqbalance == PLACER_IRQBALANCE_IGNORE)
    placer_string_list_addf(&t->notes,
                            "irqbalance is running (pid %d) and may move the steered IRQs again (--irqbalance ignore)",
                            (int)irqbalance);
  if (irq_state_open_checked(dir, !t->dry_run, &t->etc, &t->state, err) < 0) {
    txn_free(t);
    return -1;
  }
  struct placer_state *s = t->state;
  if (s->pending_txn) {
    if (t->dry_run) {
      placer_string_list_addf(&t->notes, "an interrupted IRQ apply (pid %d) would be rolled back first",
                              (int)s->pending_pid);
    } else {
      struct placer_string_list notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
      size_t failed = irq_undo(s, &t->etc, s->pending_txn, &notes, &failures, NULL, NULL);
      if (failed)
        placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                         "an interrupted IRQ apply (pid %d) could not be rolled back (%s); run 'placer reset'",
                         (int)s->pending_pid, failures.items[0]);
      else
        placer_string_list_addf(&t->notes, "rolled back an interrupted IRQ apply (pid %d)", (int)s->pending_pid);
      placer_string_list_free(&notes);
      placer_string_list_free(&failures);
      s->pending_txn = 0;
      if (failed || placer_state_save(s, err) < 0) {
        txn_free(t);
        return -1;
      }
    }
  }
  if (!placer_state_is_empty(s) && s->profile_name && strcmp(s->profile_name, plan->profile_name) != 0) {
    placer_error_set(err, PLACER_EXIT_USAGE, 0,
                     "the IRQs of profile '%s' are applied (state %s): run 'placer reset' before applying '%s'",
                     s->profile_name, dir, plan->profile_name);
    txn_free(t);
    return -1;
  }
  if (!t->dry_run) {
    if (record_paths(s, &t->etc) < 0) {
      txn_free(t);
      return placer_error_oom(err, NULL);
    }
    t->txn = ++s->last_txn;
    s->pending_txn = t->txn;
    s->pending_pid = getpid();
    if (placer_state_save(s, err) < 0) {
      txn_free(t);
      return -1;
    }
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < plan->n_irq_rules; i++)
    if (plan->irq_rules[i].pending) {
      cleanup_free char *said = placer_plan_irq_pending_text(&plan->irq_rules[i]);
      rc = said && placer_string_list_addf(&t->notes, "%s", said) == 0 ? 0 : placer_error_oom(err, NULL);
    }
  if (rc == 0)
    rc = forget_gone(t, err);
  if (rc == 0)
    rc = unsteer_dropped(t, err);
  for (size_t i = 0; rc == 0 && i < plan->n_irqs; i++)
    rc = steer_one(t, i, err);
  if (rc == 0 && irqbalance && opt->irqbalance == PLACER_IRQBALANCE_BAN) {
    unsigned *irqs = calloc(plan->n_irqs ? plan->n_irqs : 1, sizeof(*irqs));
    size_t n = 0;
    for (size_t i = 0; irqs && i < plan->n_irqs; i++)
      if (!t->irqs[i].managed && !t->gone[i])
        irqs[n++] = plan->irqs[i].irq;
    cleanup_free char *banned = banned_cpus(plan);
    if (irqs == NULL || banned == NULL)
      rc = placer_error_oom(err, NULL);
    else if (t->dry_run && irq_irqbalance_ban_check(&t->etc, &(bool){ false }, err) < 0)
      rc = -1; /* what the apply itself would refuse */
    else if (t->dry_run)
      rc = placer_string_list_addf(&t->actions, "irqbalance (pid %d): keep it off %zu IRQs and cpus %s, and restart it",
                                   (int)irqbalance, n, *banned ? banned : "none");
    else
      rc = irq_irqbalance_ban(&t->etc, s, t->txn, irqs, n, banned, &t->actions, err);
    free(irqs);
  }
  /* --persist (which only a backend placing units takes): the IRQs again at boot */
  if (rc == 0 && apply_setting(opt, "persist") && !opt->irqs_only && backend && plan->n_irq_rules) {
    char exe[PATH_MAX] = "";
    ssize_t len = opt->placer_exe ? 0 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0)
      exe[len] = '\0';
    const char *self = opt->placer_exe ? opt->placer_exe : exe;
    if (t->dry_run)
      rc = placer_string_list_addf(&t->actions, "boot unit %s/%s, enabled", t->etc.etc_dir, IRQ_UNIT_NAME);
    else if (plan->profile_path == NULL || *self == '\0')
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "--persist: no profile file or placer executable to run at boot");
    else
      rc = irq_persist_unit(&t->etc, s, t->txn, self, plan->profile_path, plan->profile_name,
                            irqbalance_mode_name(opt->irqbalance), &t->actions, err);
  }
  if (rc < 0) {
    roll_back(t, err);
    txn_free(t);
    return -1;
  }
  *out = t;
  return 0;
}

void irq_apply_abort(struct irq_txn *t, struct placer_error **err) {
  if (t == NULL)
    return;
  roll_back(t, err);
  txn_free(t);
}

/* Each IRQ's counts now, for the status's "since apply". */
static int record_irqs(struct irq_txn *t, struct placer_error **err) {
  struct placer_state *s = t->state;
  struct placer_interrupts in;
  if (placer_interrupts_read(t->root, &in, err) < 0)
    return -1;
  placer_state_clear_irqs(s);
  s->irqs = calloc(t->plan->n_irqs ? t->plan->n_irqs : 1, sizeof(*s->irqs));
  int rc = s->irqs ? 0 : placer_error_oom(err, NULL);
  for (size_t i = 0; rc == 0 && i < t->plan->n_irqs; i++) {
    if (t->gone[i])
      continue;
    const struct placer_apply_irq_report *r = &t->irqs[i];
    struct placer_state_irq *q = &s->irqs[s->n_irqs++];
    q->irq = r->irq;
    q->managed = r->managed;
    q->optional = t->plan->irqs[i].optional;
    if ((q->name = strdup(r->name)) == NULL || (q->device = strdup(r->device)) == NULL ||
        (r->instance && (q->instance = strdup(r->instance)) == NULL) || (r->to && (q->planned = strdup(r->to)) == NULL))
      rc = placer_error_oom(err, NULL);
    if (rc == 0 && placer_interrupts_counts(&in, r->irq, &q->counts, &q->n_cpus) < 0 &&
        (q->counts = calloc(1, sizeof(*q->counts))) == NULL)
      rc = placer_error_oom(err, NULL);
  }
  placer_interrupts_clear(&in);
  return rc;
}

int irq_apply_commit(struct irq_txn *t, struct placer_apply_report *report, struct placer_error **err) {
  if (t == NULL)
    return 0;
  if (!t->dry_run) {
    struct placer_state *s = t->state;
    char *profile = strdup(t->plan->profile_name);
    if (profile == NULL || record_irqs(t, err) < 0) {
      free(profile);
      if (*err == NULL)
        placer_error_oom(err, NULL);
      irq_apply_abort(t, err);
      return -1;
    }
    free(s->profile_name);
    s->profile_name = profile;
    if (t->steps > 0 || s->applied_at == NULL) {
      free(s->applied_at);
      s->applied_at = apply_now_rfc3339();
    }
    if (t->steps == 0 && s->last_txn == t->txn)
      s->last_txn--;
    s->pending_txn = 0;
    s->pending_pid = 0;
    if (placer_state_save(s, err) < 0) {
      irq_apply_abort(t, err);
      return -1;
    }
  }
  struct placer_string_list actions = { report->actions, report->n_actions, 0 },
                            notes = { report->notes, report->n_notes, 0 };
  for (size_t i = 0; i < t->actions.n; i++)
    placer_string_list_addf(&actions, "irqs: %s", t->actions.items[i]);
  for (size_t i = 0; i < t->notes.n; i++)
    placer_string_list_addf(&notes, "irqs: %s", t->notes.items[i]);
  report->actions = placer_string_list_release(&actions, &report->n_actions);
  report->notes = placer_string_list_release(&notes, &report->n_notes);
  report->steps += t->steps;
  report->irqs = TAKE_PTR(t->irqs);
  report->n_irqs = t->plan->n_irqs;
  txn_free(t);
  return 0;
}
