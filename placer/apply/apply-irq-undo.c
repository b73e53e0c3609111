/* The IRQ part of reset and of a rolled-back apply: what an irq.json may
 * record (the paths and programs placer uses, only its own files), its
 * journal undone newest first (an IRQ's list before placer written back
 * unless another handler or state has it now, the files under /etc as they
 * were, irqbalance restarted), and placer reset's IRQ part (apply-irq.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "lib/cpulist.h"
#include "lib/fsfile.h"

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
int irq_state_open_checked(const char *dir, bool lock, const struct irq_etc *etc, struct placer_state **out,
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

bool irq_journal_names(const struct placer_state *s, unsigned irq) {
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
      if (!irq_journal_names(s, c.touched[k]))
        irq_owner_release(etc->root, s, c.touched[k]);
  free(c.oldest);
  free(c.touched);
  return failed;
}

/* ------------------------------------------------------------------ reset */

int irq_reset(const char *state_dir, const struct placer_apply_options *opt, struct placer_reset_result *res,
              struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  struct placer_string_list lines = { res->lines, res->n_lines, 0 }, notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  struct irq_etc etc;
  irq_etc_defaults(&etc, opt);
  struct placer_state *s = NULL;
  int rc = 0;
  size_t undone = 0;
  if (placer_state_file_exists(dir, PLACER_STATE_IRQ_FILE)) {
    if (irq_state_open_checked(dir, true, &etc, &s, err) < 0)
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
