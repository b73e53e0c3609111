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

#include "apply-irq.h"
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

static void etc_defaults(struct irq_etc *etc, const struct placer_apply_options *opt) {
  etc->systemctl = "systemctl";
  etc->etc_dir = PLACER_SYSTEMD_ETC_DIR;
  etc->defaults = opt && opt->irqbalance_defaults ? opt->irqbalance_defaults : "/etc/default/irqbalance";
  etc->initd = opt && opt->irqbalance_initd ? opt->irqbalance_initd : "/etc/init.d/irqbalance";
  etc->root = opt && opt->irq_root ? opt->irq_root : "";
}

static char *read_line(const char *root, unsigned irq, const char *file, int *saved_errno) {
  char path[PATH_MAX];
  placer_irq_path(path, sizeof(path), root, irq, file);
  char *text = NULL;
  if (placer_textfile_read_path(path, 4096, &text, NULL) < 0) {
    *saved_errno = errno;
    return NULL;
  }
  text[strcspn(text, "\n")] = '\0';
  return text;
}

int irq_write_affinity(const char *root, unsigned irq, const char *list, struct placer_error **err) {
  char path[PATH_MAX];
  placer_irq_path(path, sizeof(path), root, irq, "smp_affinity_list");
  /* never O_CREAT: a missing IRQ is an error, not a new file */
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s", path);
  size_t len = strlen(list);
  ssize_t n = write(fd, list, len);
  int saved = errno;
  if (close(fd) < 0 && n == (ssize_t)len) {
    n = -1;
    saved = errno;
  }
  if (n != (ssize_t)len)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, n < 0 ? saved : EIO, "write '%s' to %s", list, path);
  return 0;
}

/* RECORDED is what the state says apply used for WHAT; placer's is OURS. */
static int same_as_ours(const char *what, const char *recorded, const char *ours, struct placer_error **err) {
  if (recorded == NULL || strcmp(recorded, ours) == 0)
    return 0;
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                          "it names %s '%s', not the one placer uses ('%s'): placer never runs a program or writes a "
                          "path a state file names; nothing done",
                          what, recorded, ours);
}

static bool parent_dir_of(const char *dir, const char *path) {
  const char *slash = strrchr(path, '/');
  return dir && slash && strlen(dir) == (size_t)(slash - path) && strncmp(dir, path, strlen(dir)) == 0;
}

int irq_state_check(const struct placer_state *s, const struct irq_etc *etc, struct placer_error **err) {
  char dropin[PATH_MAX], unit[PATH_MAX], link[PATH_MAX];
  irq_etc_paths(etc, dropin, unit, link, sizeof(dropin));
  if (same_as_ours("the IRQ root", s->root, etc->root, err) < 0 ||
      same_as_ours("systemctl", s->systemctl, etc->systemctl, err) < 0 ||
      same_as_ours("irqbalance's init script", s->initd, etc->initd, err) < 0 ||
      same_as_ours("irqbalance's defaults file", s->defaults, etc->defaults, err) < 0 ||
      same_as_ours("systemd's directory", s->etc_dir, etc->etc_dir, err) < 0 ||
      same_as_ours("the boot unit", s->unit_path, unit, err) < 0 ||
      same_as_ours("the boot unit's link", s->wants_path, link, err) < 0)
    return -1;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL)
    return placer_error_oom(err, NULL);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < s->n_journal; i++) {
    const struct placer_journal_entry *e = &s->journal[i];
    bool ok = true;
    switch (e->op) {
    case PLACER_JOURNAL_IRQ:
      /* its handler's name is checked before writing back: an IRQ whose number went to
       * another device is left alone */
      ok = e->name && *e->name && placer_cpulist_parse(e->previous, set) == 0 && !hwloc_bitmap_iszero(set);
      break;
    case PLACER_JOURNAL_FILE:
      ok = strcmp(e->path, etc->defaults) == 0 || strcmp(e->path, dropin) == 0 || strcmp(e->path, unit) == 0;
      ok = ok && (e->dir_created == NULL || parent_dir_of(e->dir_created, e->path));
      break;
    case PLACER_JOURNAL_LINK:
      ok = strcmp(e->path, link) == 0 && (e->dir_created == NULL || parent_dir_of(e->dir_created, e->path));
      break;
    case PLACER_JOURNAL_ACTION: break;
    default: ok = false; break; /* a group's record: not irq.json's */
    }
    if (!ok && e->op == PLACER_JOURNAL_IRQ)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "journal[%zu]: an affinity record of IRQ %u %s, which placer never writes: nothing done", i,
                            e->irq, e->name && *e->name ? "with a list that is not a cpu list" : "without a name");
    else if (!ok)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "journal[%zu]: a %s record of '%s', which is not a file placer writes: nothing done", i,
                            e->op == PLACER_JOURNAL_LINK ? "link" : "file", e->path);
  }
  hwloc_bitmap_free(set);
  return rc;
}

int irq_state_open(const char *dir, bool lock, struct placer_state **out, struct placer_error **err) {
  return placer_state_open_kind(dir, &placer_state_irqs, lock ? PLACER_STATE_LOCK_EXCLUSIVE : PLACER_STATE_NO_LOCK, out,
                                NULL, err);
}

/* STATE_DIR's IRQ state, refused when it names what placer would not (irq_state_check). */
static int open_checked(const char *dir, bool lock, const struct irq_etc *etc, struct placer_state **out,
                        struct placer_error **err) {
  if (irq_state_open(dir, lock, out, err) < 0)
    return -1;
  if (irq_state_check(*out, etc, err) == 0)
    return 0;
  placer_state_free(*out);
  *out = NULL;
  return placer_error_prefix(err, "%s/%s", dir, PLACER_STATE_IRQ_FILE);
}

/* ------------------------------------------------------------------ undo */

static int undo_affinity(const char *root, const struct placer_journal_entry *e, struct placer_string_list *notes,
                         struct placer_error **err) {
  cleanup_free char *name = placer_irq_read_name(root, e->irq);
  if (name == NULL)
    return placer_string_list_addf(notes, "IRQ %u (%s) is gone: nothing to set back", e->irq, e->name ? e->name : "?");
  if (e->name && *e->name && strcmp(name, e->name) != 0)
    return placer_string_list_addf(notes, "IRQ %u is %s now, not %s: left as it is", e->irq, *name ? name : "unused",
                                   e->name);
  if (irq_write_affinity(root, e->irq, e->previous, err) == 0)
    return 0;
  if ((*err)->errno_value != EIO)
    return -1;
  placer_error_clear(err);
  return placer_string_list_addf(notes, "IRQ %u (%s) is managed by the kernel now: left where it put it", e->irq, name);
}

static int undo_file(const struct placer_journal_entry *e, struct placer_string_list *notes,
                     struct placer_error **err) {
  if (e->op == PLACER_JOURNAL_LINK || e->previous == NULL) {
    if (unlink(e->path) < 0 && errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", e->path);
    if (e->dir_created && rmdir(e->dir_created) < 0 && errno != ENOENT)
      placer_string_list_addf(notes, "%s is not empty any more: left in place", e->dir_created);
    return 0;
  }
  cleanup_free char *dir = strdup(e->path);
  char *slash = dir ? strrchr(dir, '/') : NULL;
  if (slash == NULL)
    return placer_error_oom(err, NULL);
  *slash = '\0';
  return placer_file_replace_bytes(dir, slash + 1, e->previous, strlen(e->previous), err);
}

static bool journal_names(const struct placer_state *s, unsigned irq) {
  for (size_t i = 0; i < s->n_journal; i++)
    if (s->journal[i].op == PLACER_JOURNAL_IRQ && s->journal[i].irq == irq)
      return true;
  return false;
}

struct irq_record {
  unsigned irq;
  size_t index;
};

static int by_irq_then_index(const void *a, const void *b) {
  const struct irq_record *x = a, *y = b;
  if (x->irq != y->irq)
    return x->irq < y->irq ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Per journal index: is it the oldest AFFINITY record of its IRQ among those of TXN (0: all)?
 * Replayed newest first, only that one's list stays: the others need no write at all.  NULL on
 * ENOMEM (then every record is written). */
static bool *oldest_records(const struct placer_state *s, unsigned txn) {
  bool *oldest = calloc(s->n_journal ? s->n_journal : 1, sizeof(*oldest));
  struct irq_record *v = calloc(s->n_journal ? s->n_journal : 1, sizeof(*v));
  size_t n = 0;
  for (size_t i = 0; oldest && v && i < s->n_journal; i++)
    if (s->journal[i].op == PLACER_JOURNAL_IRQ && (txn == 0 || s->journal[i].txn == txn))
      v[n++] = (struct irq_record){ s->journal[i].irq, i };
  if (oldest && v) {
    qsort(v, n, sizeof(*v), by_irq_then_index);
    for (size_t k = 0; k < n; k++)
      oldest[v[k].index] = k == 0 || v[k - 1].irq != v[k].irq;
  } else {
    free(oldest);
    oldest = NULL;
  }
  free(v);
  return oldest;
}

/* What undoing one IRQ state's records needs and finds (irq_undo). */
struct undo_ctx {
  const struct irq_etc *etc;
  struct placer_string_list *notes;
  bool *oldest;      /* by record: the oldest of its IRQ (oldest_records); NULL: every record writes */
  unsigned *touched; /* the IRQs written back, once each */
  size_t n_touched, undo_failures;
  unsigned **restored;
  size_t *n_restored;
};

static bool holds_irq(const unsigned *v, size_t n, unsigned irq) {
  for (size_t k = 0; k < n; k++)
    if (v[k] == irq)
      return true;
  return false;
}

static int undo_irq_record(struct undo_ctx *c, struct placer_state *s, size_t i, struct placer_error **err) {
  const struct placer_journal_entry *e = &s->journal[i];
  if (c->oldest && !c->oldest[i])
    return 0; /* an older record of the same IRQ writes the list that stays */
  cleanup_free char *owner = irq_owner_other(c->etc->root, s, e->irq);
  if (owner) /* taken over since: its owner's reset writes it back */
    return placer_string_list_addf(c->notes, "IRQ %u (%s) is steered by the state in %s now: left to it", e->irq,
                                   e->name, owner);
  bool seen = holds_irq(c->touched, c->n_touched, e->irq);
  if (!seen && c->touched)
    c->touched[c->n_touched++] = e->irq;
  /* an IRQ steered many times says what happened to it once */
  struct placer_string_list again = { NULL, 0, 0 };
  int rc = undo_affinity(c->etc->root, e, seen ? &again : c->notes, err);
  placer_string_list_free(&again);
  if (rc == 0 && c->restored && !holds_irq(*c->restored, *c->n_restored, e->irq)) {
    unsigned *bigger = realloc(*c->restored, (*c->n_restored + 1) * sizeof(*bigger));
    if (bigger) {
      *c->restored = bigger;
      bigger[(*c->n_restored)++] = e->irq;
    }
  }
  return rc;
}

static int undo_record(void *ctx, struct placer_state *s, size_t i, struct placer_error **err) {
  struct undo_ctx *c = ctx;
  const struct placer_journal_entry *e = &s->journal[i];
  int rc = 0;
  switch (e->op) {
  case PLACER_JOURNAL_IRQ: rc = undo_irq_record(c, s, i, err); break;
  case PLACER_JOURNAL_FILE:
  case PLACER_JOURNAL_LINK:
    rc = undo_file(e, c->notes, err);
    if (rc == 0)
      placer_string_list_addf(c->notes, "%s %s", e->path, e->previous ? "as it was before placer" : "removed");
    break;
  case PLACER_JOURNAL_ACTION:
    /* a command that fails (irqbalance gone since) must not keep the journal forever */
    if (irq_run_action(c->etc, e->action, err) < 0) {
      placer_string_list_addf(c->notes, "%s", (*err)->msg);
      placer_error_clear(err);
    }
    break;
  default:
    rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "a %s record in irq.json", placer_journal_op_name(e->op));
  }
  c->undo_failures += rc < 0;
  return rc;
}

size_t irq_undo(struct placer_state *s, const struct irq_etc *etc, unsigned txn, struct placer_string_list *notes,
                struct placer_string_list *failures, unsigned **restored, size_t *n_restored) {
  struct undo_ctx c = { .etc = etc,
                        .notes = notes,
                        .oldest = oldest_records(s, txn),
                        .touched = calloc(s->n_journal ? s->n_journal : 1, sizeof(unsigned)),
                        .restored = restored,
                        .n_restored = n_restored };
  size_t failed = placer_state_journal_undo(s, txn, undo_record, &c, failures);
  if (failed == c.undo_failures) /* saved: an IRQ no record names any more is given up */
    for (size_t k = 0; k < c.n_touched; k++)
      if (!journal_names(s, c.touched[k]))
        irq_owner_release(etc->root, s, c.touched[k]);
  free(c.oldest);
  free(c.touched);
  return failed;
}

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
    if (fresh && !journal_names(s, irq)) /* a taken-over record keeps its original list */
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
  cleanup_free char *after = read_line(t->root, irq, "smp_affinity_list", &saved);
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
  r->from = read_line(t->root, q->irq, "smp_affinity_list", &saved);
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
    cleanup_free char *now = read_line(t->root, old->irq, "smp_affinity_list", &saved);
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
  etc_defaults(&t->etc, opt);
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
  if (open_checked(dir, !t->dry_run, &t->etc, &t->state, err) < 0) {
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
  int rc = unsteer_dropped(t, err);
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
static int read_interrupts(const char *root, struct placer_interrupts *in, struct placer_error **err) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/proc/interrupts", root);
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  return placer_interrupts_parse(text, in, err);
}

static int record_irqs(struct irq_txn *t, struct placer_error **err) {
  struct placer_state *s = t->state;
  struct placer_interrupts in;
  if (read_interrupts(t->root, &in, err) < 0)
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

/* ------------------------------------------------------------------ status */

int irq_status(const char *state_dir, const struct placer_apply_options *opt, json_t *doc, bool *drift,
               struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  if (!placer_state_file_exists(dir, PLACER_STATE_IRQ_FILE))
    return 0;
  struct irq_etc etc;
  etc_defaults(&etc, opt);
  struct placer_state *s = NULL;
  if (open_checked(dir, false, &etc, &s, err) < 0)
    return -1;
  if (placer_state_is_empty(s)) {
    placer_state_free(s);
    return 0;
  }
  const char *root = etc.root;
  struct placer_interrupts in;
  if (read_interrupts(root, &in, err) < 0) {
    placer_state_free(s);
    return -1;
  }
  json_t *irqs = json_array(), *problems = json_array();
  if (s->pending_txn)
    json_array_append_new(problems, json_sprintf("an IRQ apply (pid %d) was interrupted: its changes may be in force; "
                                                 "run 'placer reset' or apply again",
                                                 (int)s->pending_pid));
  for (size_t i = 0; i < s->n_irqs; i++) {
    const struct placer_state_irq *q = &s->irqs[i];
    int saved = 0;
    cleanup_free char *now = read_line(root, q->irq, "smp_affinity_list", &saved);
    cleanup_free char *effective = read_line(root, q->irq, "effective_affinity_list", &saved);
    cleanup_free char *name = placer_irq_read_name(root, q->irq);
    json_t *o = json_object(), *since = json_object();
    json_object_set_new(o, "irq", json_integer(q->irq));
    json_object_set_new(o, "name", json_string(q->name ? q->name : ""));
    json_object_set_new(o, "device", json_string(q->device ? q->device : ""));
    json_object_set_new(o, "instance", q->instance ? json_string(q->instance) : json_null());
    json_object_set_new(o, "managed", json_boolean(q->managed));
    json_object_set_new(o, "planned", q->planned ? json_string(q->planned) : json_null());
    json_object_set_new(o, "actual", now ? json_string(now) : json_null());
    json_object_set_new(o, "effective", effective ? json_string(effective) : json_null());
    uint64_t *counts = NULL;
    unsigned n_cpus = 0;
    if (placer_interrupts_counts(&in, q->irq, &counts, &n_cpus) == 0)
      for (unsigned c = 0; c < n_cpus; c++) {
        uint64_t before = c < q->n_cpus ? q->counts[c] : 0;
        char key[16];
        snprintf(key, sizeof(key), "%u", c);
        json_object_set_new(since, key, json_integer((json_int_t)(counts[c] >= before ? counts[c] - before : 0)));
      }
    free(counts);
    json_object_set_new(o, "interrupts_since_apply", since);
    json_t *problem = NULL;
    if (name == NULL || (q->name && *q->name && strcmp(name, q->name) != 0))
      problem =
          json_sprintf("IRQ %u (%s) of %s is gone%s%s", q->irq, q->name ? q->name : "?", q->device ? q->device : "?",
                       name ? ": it is "
                            : " (its device removed, or its driver "
                              "unloaded)",
                       name ? name : "");
    else if (q->planned && !q->managed && (now == NULL || !placer_cpulist_equal(now, q->planned)))
      problem = json_sprintf("IRQ %u (%s) of %s: smp_affinity_list %s, planned %s (moved by someone else: "
                             "irqbalance, a script?)",
                             q->irq, q->name, q->device, now ? now : "unreadable", q->planned);
    json_object_set_new(o, "ok", json_boolean(problem == NULL));
    if (problem)
      json_array_append_new(problems, problem);
    json_array_append_new(irqs, o);
  }
  placer_interrupts_clear(&in);
  json_object_set_new(doc, "irqs_profile", s->profile_name ? json_string(s->profile_name) : json_null());
  json_object_set_new(doc, "irqs_applied_at", s->applied_at ? json_string(s->applied_at) : json_null());
  json_object_set_new(doc, "irqs", irqs);
  if (json_array_size(problems)) {
    *drift = true;
    json_object_set_new(doc, "drift", json_true());
  }
  json_object_set_new(doc, "irq_problems", problems);
  placer_state_free(s);
  return 0;
}

int irq_status_print_text(json_t *doc, FILE *out) {
  json_t *irqs = json_object_get(doc, "irqs");
  if (!json_is_array(irqs))
    return 0;
  const char *profile = json_string_value(json_object_get(doc, "irqs_profile"));
  const char *applied = json_string_value(json_object_get(doc, "irqs_applied_at"));
  fputs("irqs of profile ", out);
  placer_text_put(out, profile);
  fputs(", applied ", out);
  placer_text_put(out, applied ? applied : "(interrupted)");
  fputs(":\n", out);
  size_t i;
  json_t *o;
  json_array_foreach(irqs, i, o) {
    const char *instance = json_string_value(json_object_get(o, "instance"));
    const char *effective = json_string_value(json_object_get(o, "effective"));
    fprintf(out, "  IRQ %lld ", (long long)json_integer_value(json_object_get(o, "irq")));
    placer_text_put(out, json_string_value(json_object_get(o, "name")));
    fputs(" (", out);
    placer_text_put(out, json_string_value(json_object_get(o, "device")));
    if (instance) {
      fputs(", ", out);
      placer_text_put(out, instance);
    }
    fputs("): ", out);
    if (json_is_true(json_object_get(o, "managed")))
      fprintf(out, "managed by the kernel, completes on cpu %s", effective ? effective : "?");
    else {
      fputs("planned ", out);
      placer_text_put(out, json_string_value(json_object_get(o, "planned")));
      fprintf(out, ", now %s, completes on cpu %s",
              json_is_string(json_object_get(o, "actual")) ? json_string_value(json_object_get(o, "actual")) : "-",
              effective ? effective : "?");
    }
    fprintf(out, "; since apply:");
    const char *cpu;
    json_t *count;
    json_object_foreach(json_object_get(o, "interrupts_since_apply"), cpu, count)
        fprintf(out, " cpu%s %lld", cpu, (long long)json_integer_value(count));
    fprintf(out, "%s\n", json_is_true(json_object_get(o, "ok")) ? "" : "  DRIFT");
  }
  json_array_foreach(json_object_get(doc, "irq_problems"), i, o) {
    fputs("DRIFT: ", out);
    placer_text_put(out, json_string_value(o));
    fputc('\n', out);
  }
  return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------------ reset */

int irq_reset(const char *state_dir, const struct placer_apply_options *opt, struct placer_reset_result *res,
              struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  struct placer_string_list lines = { res->lines, res->n_lines, 0 }, notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  struct irq_etc etc;
  etc_defaults(&etc, opt);
  struct placer_state *s = NULL;
  int rc = 0;
  size_t undone = 0;
  if (placer_state_file_exists(dir, PLACER_STATE_IRQ_FILE)) {
    if (open_checked(dir, true, &etc, &s, err) < 0)
      return -1;
    size_t before = s->n_journal;
    size_t failed = irq_undo(s, &etc, 0, &notes, &failures, &res->irqs_restored, &res->n_irqs_restored);
    undone = before - s->n_journal;
    if (failed) {
      cleanup_free char *why = placer_string_list_join(&failures, "; ");
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "reset: %zu IRQ change%s could not be undone (%s); they stay "
                            "recorded in %s/%s for the next reset",
                            failed, failed == 1 ? "" : "s", why ? why : "?", dir, PLACER_STATE_IRQ_FILE);
    } else {
      placer_state_clear_irqs(s);
      s->pending_txn = 0;
      rc = placer_state_save(s, err);
    }
  }
  size_t n_lines_before = lines.n;
  if (rc == 0)
    rc = irq_etc_forget(&etc, dir, &lines, err);
  for (size_t i = 0; i < notes.n; i++)
    placer_string_list_addf(&lines, "irqs: %s", notes.items[i]);
  if (res->n_irqs_restored) {
    char list[1024] = "";
    for (size_t i = 0; i < res->n_irqs_restored; i++)
      snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%u", i ? ", " : "", res->irqs_restored[i]);
    placer_string_list_addf(&lines, "irqs: %zu IRQ%s set back to their affinity before placer (%s)",
                            res->n_irqs_restored, res->n_irqs_restored == 1 ? "" : "s", list);
  }
  if (undone || lines.n > n_lines_before) {
    res->changed = true;
    res->n_undone += undone;
  }
  res->lines = placer_string_list_release(&lines, &res->n_lines);
  placer_string_list_free(&notes);
  placer_string_list_free(&failures);
  placer_state_free(s);
  return rc;
}
