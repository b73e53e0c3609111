/* The processes a placement binds, with every check (placement.h): the one
 * resolution both apply backends and the watcher use.  --pid values first
 * (each a running process placer may bind), then what each instance's
 * matcher finds (never a process given with --pid, nor one below it), each
 * bound process with its descendants, one process one instance. */
#include "placement.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pid-list.h"
#include "proc.h"
#include "procmatch.h"

/* PID into P (a descendant of ROOT_PID, or 0 for a bound one); *index (may
 * be NULL) says where it is.  A pid already there is not added twice. */
static int add_proc(struct placer_placed *p, pid_t pid, pid_t root_pid, size_t *index, struct placer_error **err) {
  for (size_t i = 0; i < p->n_procs; i++)
    if (p->procs[i].pid == pid) {
      if (index)
        *index = i;
      return 0;
    }
  uint64_t start_time = 0;
  if (placer_proc_start_time(pid, &start_time, err) < 0)
    return placer_error_prefix(err, "%s", p->inst->name);
  struct placer_placed_proc *bigger = realloc(p->procs, (p->n_procs + 1) * sizeof(*bigger));
  char *comm = placer_proc_comm(pid);
  if (bigger == NULL || (comm == NULL && (comm = strdup("?")) == NULL)) {
    free(comm);
    if (bigger)
      p->procs = bigger;
    return placer_error_oom(err, NULL);
  }
  p->procs = bigger;
  p->procs[p->n_procs] = (struct placer_placed_proc){ pid, start_time, comm, root_pid };
  if (index)
    *index = p->n_procs;
  p->n_procs++;
  return 0;
}

static bool binds(const struct placer_placed *p, pid_t pid) {
  for (size_t i = 0; i < p->n_procs; i++)
    if (p->procs[i].pid == pid)
      return true;
  return false;
}

/* The pids of every instance of PL but P (bound and descendants): where
 * P's trees stop.  Caller frees. */
static int other_pids(const struct placer_placement *pl, const struct placer_placed *p, pid_t **out, size_t *n,
                      struct placer_error **err) {
  size_t total = 0;
  for (size_t i = 0; i < pl->n; i++)
    if (&pl->v[i] != p)
      total += pl->v[i].n_procs;
  pid_t *v = malloc((total ? total : 1) * sizeof(*v));
  if (v == NULL)
    return placer_error_oom(err, NULL);
  size_t k = 0;
  for (size_t i = 0; i < pl->n; i++)
    for (size_t j = 0; &pl->v[i] != p && j < pl->v[i].n_procs; j++)
      v[k++] = pl->v[i].procs[j].pid;
  *out = v;
  *n = k;
  return 0;
}

/* P's bound processes from FIRST on take their descendants along (children,
 * grandchildren, ...; each a whole process), up to the trees of other
 * instances' processes.  One of P's processes found below another becomes
 * its descendant.  (The watcher binds one process at a time: the trees of
 * those bound before were walked when they were, and a child they fork
 * later is born in their group; walking them all again for each new one
 * cost it a read of /proc per process bound, dead or alive.) */
static int expand_trees(const struct placer_placement *pl, struct placer_placed *p, size_t first,
                        struct placer_error **err) {
  cleanup_free pid_t *stop = NULL;
  size_t n_stop = 0;
  if (other_pids(pl, p, &stop, &n_stop, err) < 0)
    return -1;
  size_t n_roots = p->n_procs;
  for (size_t r = first; r < n_roots; r++) {
    if (p->procs[r].root_pid != 0)
      continue; /* below one of P's processes seen earlier */
    pid_t root = p->procs[r].pid;
    cleanup_free pid_t *desc = NULL;
    size_t n = 0;
    if (placer_proc_descendants(root, stop, n_stop, &desc, &n, err) < 0)
      return placer_error_prefix(err, "%s", p->inst->name);
    for (size_t k = 0; k < n; k++) {
      size_t idx = 0;
      struct placer_error *gone = NULL;
      if (add_proc(p, desc[k], root, &idx, &gone) < 0) {
        bool oom = gone && gone->errno_value == ENOMEM;
        placer_error_clear(&gone);
        if (oom)
          return placer_error_oom(err, NULL);
        continue; /* exited since the scan */
      }
      p->procs[idx].root_pid = root;
    }
  }
  return 0;
}

/* PID may be bound: it runs (no zombie) and is none of the processes placer
 * never binds.  WHAT names it in the refusal ("--pid osd.0=4505"). */
static int check_bindable(pid_t pid, const char *what, struct placer_error **err) {
  uint64_t start_time = 0;
  struct placer_error *gone = NULL;
  if (placer_proc_start_time(pid, &start_time, &gone) < 0) {
    placer_error_clear(&gone);
    return placer_error_set(err, PLACER_EXIT_USAGE, ESRCH, "%s: no such process", what);
  }
  char state = placer_proc_state(pid);
  if (!placer_proc_is_same(pid, start_time) || state == 'Z' || state == 'X')
    return placer_error_set(err, PLACER_EXIT_USAGE, ESRCH, "%s: the process is not running (a zombie?)", what);
  const char *never = placer_proc_never_bound(pid);
  if (never)
    return placer_error_set(err, PLACER_EXIT_USAGE, EPERM,
                            "%s: that is %s, which placer never binds (with its descendants it is most of the node)",
                            what, never);
  return 0;
}

/* One --pid INSTANCE=VALUE: a pid that check_bindable() lets through. */
static int pid_arg(const char *instance, const char *value, pid_t *out, struct placer_error **err) {
  pid_t pid;
  char what[160];
  if (placer_parse_pid_text(value, &pid) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: not a pid", instance, value);
  snprintf(what, sizeof(what), "--pid %s=%d", instance, (int)pid);
  if (check_bindable(pid, what, err) < 0)
    return -1;
  *out = pid;
  return 0;
}

/* What P's matcher finds, refused when it is more unrelated process trees
 * than the plan has instances (`cmdline: "*"`); *why: why it found none
 * (caller frees). */
static int find_matched(const struct placer_placement *pl, const struct placer_placed *p, struct placer_pid_list *out,
                        char **why, struct placer_error **err) {
  const struct placer_instance *inst = p->inst;
  size_t n_instances = pl->plan->n_instances;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (placer_procmatch_find(inst->kind, &inst->match, &pids, &n, why, err) < 0)
    return placer_error_prefix(err, "%s", inst->name);
  size_t trees = placer_proc_count_trees(pids, n);
  if (trees > n_instances) {
    char list[128] = "";
    for (size_t k = 0; k < n && k < 5; k++)
      snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", k ? " " : "", (int)pids[k]);
    cleanup_free char *what = placer_match_describe(inst->kind, &inst->match);
    free(*why);
    *why = NULL;
    return placer_error_set(err, PLACER_EXIT_USAGE, E2BIG,
                            "%s: %s finds %zu unrelated processes (pids %s%s), more than the profile's %zu instance%s: "
                            "a match that broad would bind much of the node; narrow it, or bind with --pid",
                            inst->name, what ? what : "its match", trees, list, n > 5 ? " ..." : "", n_instances,
                            n_instances == 1 ? "" : "s");
  }
  for (size_t k = 0; k < n; k++)
    if (placer_pid_list_add_new(out, pids[k]) < 0)
      return placer_error_oom(err, NULL);
  return 0;
}

/* Why P binds nothing: the profile gives no matcher and no --pid was
 * given, or its matcher found none (WHY, may be NULL: what it saw). */
static int no_process_note(struct placer_placed *p, const char *why, struct placer_error **err) {
  const struct placer_instance *inst = p->inst;
  int rc;
  if (inst->match.kind == PLACER_MATCH_NONE) {
    rc = asprintf(&p->note, "no process: the profile gives no matcher and no --pid %s=PID was given", inst->name);
  } else {
    cleanup_free char *desc = placer_match_describe(inst->kind, &inst->match);
    rc = asprintf(&p->note, "no process matches %s%s%s%s", desc ? desc : "?", why ? " (" : "", why ? why : "",
                  why ? ")" : "");
  }
  if (rc < 0) {
    p->note = NULL;
    return placer_error_oom(err, NULL);
  }
  return 0;
}

/* --pid bindings first: one (and its tree) is never taken by another
 * instance's matcher. */
static int bind_given(struct placer_placement *pl, const struct placer_instance_arg *pids, size_t n_pids,
                      struct placer_error **err) {
  for (size_t i = 0; i < n_pids; i++) {
    struct placer_placed *p = (struct placer_placed *)placer_placement_find(pl, pids[i].instance);
    pid_t pid = 0;
    if (p == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: the plan has no instance '%s'",
                              pids[i].instance, pids[i].value, pids[i].instance);
    p->by_pid = true;
    if (pid_arg(p->inst->name, pids[i].value, &pid, err) < 0 || add_proc(p, pid, 0, NULL, err) < 0)
      return -1;
  }
  for (size_t i = 0; i < pl->n; i++)
    if (pl->v[i].by_pid && expand_trees(pl, &pl->v[i], 0, err) < 0)
      return -1;
  return 0;
}

/* What P's matcher finds now but a --pid binding holds (with its tree). */
static bool taken_by_pid(const struct placer_placement *pl, pid_t pid) {
  for (size_t j = 0; j < pl->n; j++)
    if (pl->v[j].by_pid && binds(&pl->v[j], pid))
      return true;
  return false;
}

int placer_placement_bind(struct placer_placement *pl, const struct placer_instance_arg *pids, size_t n_pids,
                          bool strict, struct placer_error **err) {
  if (bind_given(pl, pids, n_pids, err) < 0)
    return -1;
  for (size_t i = 0; i < pl->n; i++) {
    struct placer_placed *p = &pl->v[i];
    if (p->by_pid)
      continue;
    struct placer_pid_list found = { 0 };
    cleanup_free char *why = NULL;
    int rc = p->inst->match.kind == PLACER_MATCH_NONE ? 0 : find_matched(pl, p, &found, &why, err);
    for (size_t k = 0; rc == 0 && k < found.n; k++) {
      struct placer_error *gone = NULL;
      if (!taken_by_pid(pl, found.pids[k]) && add_proc(p, found.pids[k], 0, NULL, &gone) < 0)
        placer_error_clear(&gone); /* exited since the scan: as if never found */
    }
    placer_pid_list_free(&found);
    if (rc == 0 && p->n_procs == 0 && (rc = no_process_note(p, why, err)) == 0 && strict)
      rc = placer_error_set(err, PLACER_EXIT_INFEASIBLE, ESRCH, "%s: %s (--strict)", p->inst->name, p->note);
    if (rc < 0)
      return -1;
  }
  for (size_t i = 0; i < pl->n; i++)
    if (!pl->v[i].by_pid && expand_trees(pl, &pl->v[i], 0, err) < 0)
      return -1;
  /* One process, one instance. */
  for (size_t i = 0; i < pl->n; i++)
    for (size_t k = 0; k < pl->v[i].n_procs; k++)
      for (size_t j = i + 1; j < pl->n; j++)
        if (binds(&pl->v[j], pl->v[i].procs[k].pid))
          return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                                  "pid %d (%s) is matched by both %s and %s; make the matchers (or --pid) unambiguous",
                                  (int)pl->v[i].procs[k].pid, pl->v[i].procs[k].comm, pl->v[i].inst->name,
                                  pl->v[j].inst->name);
  return 0;
}

int placer_placement_bind_pid(struct placer_placement *pl, struct placer_placed *p, pid_t pid,
                              struct placer_error **err) {
  char what[160];
  snprintf(what, sizeof(what), "%s: pid %d", p->inst->name, (int)pid);
  if (check_bindable(pid, what, err) < 0)
    return -1;
  for (size_t i = 0; i < pl->n; i++)
    if (&pl->v[i] != p && binds(&pl->v[i], pid))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: pid %d is bound by %s", p->inst->name, (int)pid,
                              pl->v[i].inst->name);
  size_t before = p->n_procs;
  if (add_proc(p, pid, 0, NULL, err) < 0)
    return -1;
  if (p->n_procs > before && expand_trees(pl, p, before, err) < 0)
    return -1;
  free(p->note);
  p->note = NULL;
  return 0;
}

size_t placer_placement_forget_exited(struct placer_placement *pl) {
  size_t forgotten = 0;
  for (size_t i = 0; i < pl->n; i++) {
    struct placer_placed *p = &pl->v[i];
    size_t kept = 0;
    for (size_t k = 0; k < p->n_procs; k++) {
      if (placer_proc_is_same(p->procs[k].pid, p->procs[k].start_time)) {
        p->procs[kept++] = p->procs[k];
        continue;
      }
      free(p->procs[k].comm);
      forgotten++;
    }
    p->n_procs = kept;
  }
  return forgotten;
}
