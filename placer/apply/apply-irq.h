/* The IRQ part of apply, status and reset, whatever the backend: its state
 * file (STATE_DIR/irq.json, state.h's kind placer_state_irqs: an undo
 * journal written before every change, as state.json is), the changes
 * themselves (apply-irq.c) and what placer writes under /etc for them
 * (apply-irq-etc.c: irqbalance's ban, the boot unit of --persist).  Shared
 * by those files and apply-backend.c only. */
#ifndef PLACER_APPLY_IRQ_H
#define PLACER_APPLY_IRQ_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "apply/apply-internal.h"
#include "state.h"

#define IRQ_UNIT_NAME "placer-irqs.service"

/* STATE_DIR/irq.json (state.h's kind placer_state_irqs): open it (locked
 * with irq.lock when LOCK), refused (apply-irq.c) when it names what placer
 * would not (irq_state_check). */
int irq_state_open(const char *dir, bool lock, struct placer_state **out, struct placer_error **err);
/* What an IRQ state may record, for ETC (the paths and programs this placer
 * uses): the same root, systemctl, init script, defaults file and systemd
 * directory, or none; FILE records only of irqbalance's defaults file, its
 * drop-in or the boot unit (and only their own directory made), LINK records
 * only of the boot unit's link; every IRQ record an IRQ's name and a cpu
 * list.  Else an error, and nothing is done. */
struct irq_etc;
int irq_state_check(const struct placer_state *s, const struct irq_etc *etc, struct placer_error **err);
/* irq_state_open, and refused (the error naming the file) when it names what
 * ETC's placer would not. */
int irq_state_open_checked(const char *dir, bool lock, const struct irq_etc *etc, struct placer_state **out,
                           struct placer_error **err);

/* apply-irq.c: the IRQ part of placer_apply, around the backend's apply.  begin checks
 * irqbalance, takes STATE_DIR/irq.lock and steers the plan's IRQs, journaled (rolled
 * back itself on a failure); then either commit (the IRQs recorded for status, the report
 * completed) or abort (this transaction undone, ERR says so).  *OUT is NULL when there is
 * no IRQ part (no irqs: in the plan, none applied before).  BACKEND (NULL with
 * --irqs-only): a backend that places units gets the boot unit of --persist. */
struct irq_txn;
int irq_apply_begin(const struct placer_plan *plan, const struct placer_apply_options *opt,
                    const struct placer_apply_backend_ops *backend, struct irq_txn **out, struct placer_error **err);
int irq_apply_commit(struct irq_txn *t, struct placer_apply_report *report, struct placer_error **err);
void irq_apply_abort(struct irq_txn *t, struct placer_error **err);
/* status: the applied IRQs into DOC ("irqs", "irq_problems"; drift adds to *DRIFT and
 * "drift"); nothing when none is applied. */
int irq_status(const char *state_dir, const struct placer_apply_options *opt, json_t *doc, bool *drift,
               struct placer_error **err);
int irq_status_print_text(json_t *doc, FILE *out);
/* reset: every IRQ change undone (and what a reboot left under /etc); added to RES.  OPT
 * (NULL in the CLI: this machine) only for the test hooks (irq_root, the irqbalance and
 * systemd paths): the state's own record of them is never used. */
int irq_reset(const char *state_dir, const struct placer_apply_options *opt, struct placer_reset_result *res,
              struct placer_error **err);

/* apply-irq-undo.c: undo the entries of TXN (0: all), newest first, with ETC's paths and
 * programs; the journal saved once at the end (replaying is idempotent); an IRQ another
 * state owns now is left to it; the IRQs no record names any more are released
 * (apply-irq-owner.c).  Returns the number that could not be undone (left in the journal). */
size_t irq_undo(struct placer_state *s, const struct irq_etc *etc, unsigned txn, struct placer_string_list *notes,
                struct placer_string_list *failures, unsigned **restored, size_t *n_restored);
/* Does S journal IRQ (an affinity record)? */
bool irq_journal_names(const struct placer_state *s, unsigned irq);
/* apply-irq.c: write LIST to /proc/irq/IRQ/smp_affinity_list below ROOT; errno kept. */
int irq_write_affinity(const char *root, unsigned irq, const char *list, struct placer_error **err);
/* The first line of /proc/irq/IRQ/FILE below ROOT; NULL (and *saved_errno) when unreadable. */
char *irq_read_line(const char *root, unsigned irq, const char *file, int *saved_errno);
/* Where IRQ Q that apply placed is now, below ROOT (status and the watcher's
 * check: one rule): GONE when no handler has its number or another one does
 * (its device removed, its driver unloaded; an optional device's is no
 * drift), MOVED when it is steered and its smp_affinity_list is not the
 * planned one.  *now: that list, *name: the handlers now (NULL when
 * unreadable or gone; caller frees both). */
enum irq_now { IRQ_NOW_AS_PLANNED, IRQ_NOW_MOVED, IRQ_NOW_GONE };
enum irq_now irq_now(const char *root, const struct placer_state_irq *q, char **now, char **name);
/* The paths and programs this placer uses (OPT's test hooks, else this machine's). */
void irq_etc_defaults(struct irq_etc *etc, const struct placer_apply_options *opt);

/* apply-irq-etc.c */
struct irq_etc {
  const char *systemctl;
  const char *etc_dir;  /* /etc/systemd/system */
  const char *defaults; /* /etc/default/irqbalance */
  const char *initd;    /* /etc/init.d/irqbalance */
  const char *root;     /* before /proc */
};
/* The pid of a running irqbalance (below ROOT's /proc), 0 when none. */
pid_t irq_irqbalance_pid(const char *root);
/* Ban: keep irqbalance off the IRQs IRQS (N of them) and off the cpus BANNED, journaled
 * in S (txn TXN), then restart it.  *what says how ("drop-in ...", "/etc/default/...") */
int irq_irqbalance_ban(const struct irq_etc *etc, struct placer_state *s, unsigned txn, const unsigned *irqs, size_t n,
                       const char *banned, struct placer_string_list *actions, struct placer_error **err);
/* --persist: the boot unit that applies the IRQs again at boot (ExecStart: EXE apply
 * --irqs-only ... PROFILE), enabled; journaled in S. */
int irq_persist_unit(const struct irq_etc *etc, struct placer_state *s, unsigned txn, const char *exe,
                     const char *profile_path, const char *profile_name, const char *irqbalance_mode,
                     struct placer_string_list *actions, struct placer_error **err);
/* Reset after a reboot forgot the journal: remove the boot unit and the ban placer left
 * for STATE_DIR (found by the marks placer writes in them). */
int irq_etc_forget(const struct irq_etc *etc, const char *state_dir, struct placer_string_list *lines,
                   struct placer_error **err);
/* Could --irqbalance ban keep irqbalance off (it runs through systemd, *through_systemd, or
 * has an init script to restart it with)?  Else the refusal both apply and its dry run give. */
int irq_irqbalance_ban_check(const struct irq_etc *etc, bool *through_systemd, struct placer_error **err);
/* Run an undo action. */
int irq_run_action(const struct irq_etc *etc, enum placer_journal_action action, struct placer_error **err);
/* The paths placer writes for ETC: irqbalance's drop-in, the boot unit, its link (PATH_MAX). */
void irq_etc_paths(const struct irq_etc *etc, char *dropin, char *unit, char *link, size_t len);

/* apply-irq-owner.c: the node's IRQ owners, one state directory per steered IRQ
 * (ROOT/run/placer-irq-owners/N.json, with the IRQ's list before placer steered it).
 * claim: S may steer IRQ (named NAME, on NOW): 0, *original (the list to journal as
 * the one before placer: NOW, or the recorded one of an owner whose state is gone) and
 * *how; refused (PLACER_EXIT_USAGE, one line) while another state that still records the
 * IRQ owns it.  DRY_RUN: only that check. */
enum irq_owner_claimed {
  IRQ_OWNER_FRESH, /* no owner: the record is made, *original is NOW */
  IRQ_OWNER_OURS,  /* S owned it already */
  IRQ_OWNER_TAKEN, /* its owner's state is gone: S owns it now, with its recorded list */
};
int irq_owner_claim(const char *root, const struct placer_state *s, unsigned irq, const char *name, const char *now,
                    bool dry_run, char **original, enum irq_owner_claimed *how, struct placer_error **err);
/* The state directory that owns IRQ now when it is not S (caller frees), else NULL. */
char *irq_owner_other(const char *root, const struct placer_state *s, unsigned irq);
/* S gives IRQ up (when it owns it); the directory goes with its last record. */
void irq_owner_release(const char *root, const struct placer_state *s, unsigned irq);

#endif
