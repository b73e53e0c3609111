/* placer apply: validate a plan against this node and its running
 * processes, then put it in force one journaled step at a time (create a
 * group, set a value, move a process, pin a thread); any failure undoes the
 * steps done so far, newest first (apply-undo.c). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply-internal.h"
#include "procmatch.h"
#include "topology.h"
#include "lib/units.h"
#include "vcpu.h"

/* Threads born while we pin are fixed in the next round. */
#define AFFINITY_ROUNDS 5

const char *placer_apply_prefix(const char *opt_prefix) {
  if (opt_prefix && *opt_prefix)
    return opt_prefix;
  const char *env = getenv("PLACER_CGROUP_PREFIX");
  return env && *env ? env : PLACER_DEFAULT_CGROUP_PREFIX;
}

int placer_instance_group(const char *prefix, const char *role, const char *name, char **out,
                          struct placer_error **err) {
  cleanup_free char *role_s = NULL, *name_s = NULL, *mid = NULL;
  if (placer_cgroup_sanitize_name(role, &role_s, err) < 0 || placer_cgroup_sanitize_name(name, &name_s, err) < 0 ||
      placer_cgroup_path_join(prefix, role_s, &mid, err) < 0 || placer_cgroup_path_join(mid, name_s, out, err) < 0)
    return -1;
  return 0;
}

/* ------------------------------------------------------------------ what to apply */

struct bound_proc {
  pid_t pid;
  uint64_t start_time;
  char *comm;
  struct placer_vcpu *vcpus;
  size_t n_vcpus;
  char **vcpu_cpus; /* the PU each vCPU is pinned to, "3" */
  const char *vcpu_source;
  bool moved;       /* dry run: would be moved */
};

struct target {
  const struct placer_instance *inst;
  char *group;
  char *cpus;
  char *mems;
  uint64_t memory_limit; /* PLACER_CGROUP_UNLIMITED when the plan sets none */
  unsigned weight;       /* in force: the plan's, or the default */
  const char *qmp_socket;
  struct bound_proc *procs;
  size_t n_procs;
  char *note;
  unsigned changes;
};

struct applier {
  struct placer_cgroup *cg;
  struct placer_state *state;
  const struct placer_plan *plan;
  const struct placer_apply_options *opt;
  const char *prefix;
  bool dry_run;
  unsigned txn;
  unsigned steps;
  long fault_after; /* -1: no fault injection */
  bool fault_kill;
  long delay_ms;
  struct target *targets;
  size_t n_targets;
  struct strv actions;
  struct strv notes;
  struct strv would_create; /* dry run: groups that would exist by now */
};

static void target_clear(struct target *t) {
  free(t->group);
  free(t->cpus);
  free(t->mems);
  free(t->note);
  for (size_t i = 0; i < t->n_procs; i++) {
    struct bound_proc *p = &t->procs[i];
    free(p->comm);
    free(p->vcpus);
    for (size_t k = 0; k < p->n_vcpus; k++)
      free(p->vcpu_cpus ? p->vcpu_cpus[k] : NULL);
    free(p->vcpu_cpus);
  }
  free(t->procs);
}

static long env_long(const char *name, long fallback) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0')
    return fallback;
  char *end;
  long n = strtol(v, &end, 10);
  return *end == '\0' && n >= 0 ? n : fallback;
}

static char *existing_parent(const struct placer_cgroup *cg, const char *group);

/* ------------------------------------------------------------------ steps */

/* Record ENTRY (not in a dry run) and say what the step does.  After this,
 * the caller carries the step out and calls step_done(). */
static int step_begin(struct applier *a, struct target *t, struct placer_journal_entry *entry,
                      struct placer_error **err, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int step_begin(struct applier *a, struct target *t, struct placer_journal_entry *entry,
                      struct placer_error **err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *line = apply_vformat(fmt, ap);
  va_end(ap);
  strv_add(&a->actions, "%s: %s", t->inst->name, line ? line : "?");
  free(line);
  if (a->dry_run) {
    placer_journal_entry_clear(entry);
    a->steps++;
    t->changes++;
    return 0;
  }
  entry->txn = a->txn;
  if (placer_state_journal_add(a->state, entry, err) < 0)
    return -1;
  /* Test hook (docs/apply.md): fail, or die as if killed, just before
   * carrying out step N+1, its undo record already written. */
  if (a->fault_after >= 0 && a->steps == (unsigned long)a->fault_after) {
    if (a->fault_kill)
      raise(SIGKILL);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "fault injected before step %u (test hook PLACER_FAULT_AFTER_STEPS=%ld)", a->steps + 1,
                            a->fault_after);
  }
  return 0;
}

static void step_done(struct applier *a, struct target *t) {
  if (a->dry_run)
    return;
  a->steps++;
  t->changes++;
  if (a->delay_ms > 0) {
    struct timespec ts = { a->delay_ms / 1000, (a->delay_ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
  }
}

static bool strv_has(const struct strv *s, const char *text) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i], text) == 0)
      return true;
  return false;
}

static bool would_exist(struct applier *a, const char *group) {
  return placer_cgroup_exists(a->cg, group) || (a->dry_run && strv_has(&a->would_create, group));
}

static bool is_new_in_dry_run(struct applier *a, const char *group) {
  return a->dry_run && !placer_cgroup_exists(a->cg, group);
}

static int ensure_groups(struct applier *a, struct target *t, struct placer_error **err) {
  cleanup_free char *path = strdup(t->group);
  if (path == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  for (char *slash = path;; slash++) {
    slash = strchr(slash, '/');
    if (slash)
      *slash = '\0';
    if (!would_exist(a, path)) {
      struct placer_journal_entry e = { .op = PLACER_JOURNAL_CREATE, .group = strdup(path) };
      if (e.group == NULL)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
      if (step_begin(a, t, &e, err, "create group %s", path) < 0)
        return -1;
      if (a->dry_run)
        strv_add(&a->would_create, "%s", path);
      else if (placer_cgroup_create(a->cg, path, err) < 0)
        return -1;
      step_done(a, t);
    }
    if (slash == NULL)
      break;
    *slash = '/';
  }
  return 0;
}

static int set_value(struct applier *a, struct target *t, enum placer_setting setting, const char *previous,
                     const char *shown_previous, const char *shown_value, struct placer_error **err) {
  struct placer_journal_entry e = { .op = PLACER_JOURNAL_SET, .setting = setting, .group = strdup(t->group),
                                    .previous = strdup(previous) };
  if (e.group == NULL || e.previous == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  if (step_begin(a, t, &e, err, "set %s %s = %s (was %s)", t->group, placer_setting_name(setting), shown_value,
                 *shown_previous ? shown_previous : "empty") < 0)
    return -1;
  if (!a->dry_run) {
    int ret = 0;
    switch (setting) {
    case PLACER_SETTING_CPUS: ret = placer_cgroup_set_cpus(a->cg, t->group, t->cpus, err); break;
    case PLACER_SETTING_MEMS: ret = placer_cgroup_set_mems(a->cg, t->group, t->mems, err); break;
    case PLACER_SETTING_MEMORY_LIMIT: ret = placer_cgroup_set_memory_limit(a->cg, t->group, t->memory_limit, err); break;
    case PLACER_SETTING_CPU_WEIGHT: ret = placer_cgroup_set_cpu_weight(a->cg, t->group, t->weight, err); break;
    }
    if (ret < 0)
      return -1;
  }
  step_done(a, t);
  return 0;
}

static void format_limit(uint64_t bytes, char *raw, size_t raw_len, char *shown, size_t shown_len) {
  if (bytes == PLACER_CGROUP_UNLIMITED) {
    snprintf(raw, raw_len, "max");
    snprintf(shown, shown_len, "max");
  } else {
    snprintf(raw, raw_len, "%llu", (unsigned long long)bytes);
    placer_format_bytes(bytes, shown, shown_len);
  }
}

static int ensure_values(struct applier *a, struct target *t, struct placer_error **err) {
  bool fresh = is_new_in_dry_run(a, t->group);
  cleanup_free char *cpus = NULL, *mems = NULL;
  if (fresh) {
    /* What a new group will hold: v1 copies its parent's cpus/mems, v2
     * starts empty. */
    if (placer_cgroup_get_mode(a->cg) == PLACER_CGROUP_V1) {
      cleanup_free char *parent = existing_parent(a->cg, t->group);
      if (parent == NULL)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
      if (placer_cgroup_read_effective(a->cg, parent, &cpus, &mems, err) < 0)
        return -1;
    } else {
      cpus = strdup("");
      mems = strdup("");
    }
  } else if (placer_cgroup_read_cpus(a->cg, t->group, &cpus, err) < 0 ||
             placer_cgroup_read_mems(a->cg, t->group, &mems, err) < 0) {
    return -1;
  }
  if (cpus == NULL || mems == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  if (!apply_cpulist_equal(cpus, t->cpus) && set_value(a, t, PLACER_SETTING_CPUS, cpus, cpus, t->cpus, err) < 0)
    return -1;
  if (!apply_cpulist_equal(mems, t->mems) && set_value(a, t, PLACER_SETTING_MEMS, mems, mems, t->mems, err) < 0)
    return -1;

  uint64_t limit = PLACER_CGROUP_UNLIMITED;
  if (!fresh && placer_cgroup_read_memory_limit(a->cg, t->group, &limit, err) < 0)
    return -1;
  if (!apply_memory_limit_equal(limit, t->memory_limit)) {
    char raw[32], shown[32], want_raw[32], want_shown[32];
    format_limit(limit, raw, sizeof(raw), shown, sizeof(shown));
    format_limit(t->memory_limit, want_raw, sizeof(want_raw), want_shown, sizeof(want_shown));
    if (set_value(a, t, PLACER_SETTING_MEMORY_LIMIT, raw, shown, want_shown, err) < 0)
      return -1;
  }

  unsigned weight = PLACER_CGROUP_WEIGHT_DEFAULT;
  if (!fresh && placer_cgroup_read_cpu_weight(a->cg, t->group, &weight, err) < 0)
    return -1;
  if (weight != t->weight) {
    /* The undo record keeps the file's raw value: v1 shares do not survive
     * a trip through the weight scale. */
    cleanup_free char *raw = NULL;
    char shown[16], want[16];
    if (fresh)
      raw = strdup(placer_cgroup_get_mode(a->cg) == PLACER_CGROUP_V2 ? "100" : "1024");
    else if (placer_cgroup_read_cpu_raw(a->cg, t->group, &raw, err) < 0)
      return -1;
    if (raw == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    snprintf(shown, sizeof(shown), "%u", weight);
    snprintf(want, sizeof(want), "%u", t->weight);
    if (set_value(a, t, PLACER_SETTING_CPU_WEIGHT, raw, shown, want, err) < 0)
      return -1;
  }
  return 0;
}

/* Each thread's Cpus_allowed_list now. */
static int snapshot_threads(pid_t pid, struct placer_thread_affinity **out, size_t *n, struct placer_error **err) {
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (placer_task_list(pid, &tids, &n_tids, err) < 0)
    return -1;
  struct placer_thread_affinity *t = calloc(n_tids ? n_tids : 1, sizeof(*t));
  if (t == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  size_t count = 0;
  for (size_t i = 0; i < n_tids; i++) {
    struct placer_error *gone = NULL;
    char *cpus = NULL;
    if (placer_task_read_allowed(pid, tids[i], &cpus, NULL, &gone) < 0) {
      placer_error_free(gone);
      continue;
    }
    t[count].tid = tids[i];
    t[count++].cpus = cpus;
  }
  *out = t;
  *n = count;
  return 0;
}

static int move_process(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  struct placer_cgroup_membership m = { { 0 } };
  if (!placer_proc_is_same(p->pid, p->start_time))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ESRCH, "pid %d (%s) exited during apply", (int)p->pid, p->comm);
  if (placer_cgroup_pid_membership(a->cg, p->pid, &m, err) < 0)
    return placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
  pid_t stray = 0;
  if (placer_cgroup_membership_is(a->cg, &m, t->group) && (stray = apply_stray_thread(p->pid)) == 0) {
    placer_cgroup_membership_clear(&m);
    return 0;
  }
  struct placer_journal_entry e = { .op = PLACER_JOURNAL_MOVE, .pid = p->pid, .start_time = p->start_time,
                                    .group = strdup(t->group), .instance = strdup(t->inst->name), .original = m };
  if (e.group == NULL || e.instance == NULL) {
    placer_journal_entry_clear(&e);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  if (snapshot_threads(p->pid, &e.threads, &e.n_threads, err) < 0) {
    placer_journal_entry_clear(&e);
    return placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
  }
  size_t n_threads = e.n_threads;
  const char *from = m.path[PLACER_CGROUP_CPUSET];
  int ret = stray ? step_begin(a, t, &e, err, "move pid %d (%s, %zu thread%s) to %s again: thread %d is elsewhere",
                               (int)p->pid, p->comm, n_threads, n_threads == 1 ? "" : "s", t->group, (int)stray)
                  : step_begin(a, t, &e, err, "move pid %d (%s, %zu thread%s) from %s to %s", (int)p->pid,
                               p->comm, n_threads, n_threads == 1 ? "" : "s", from && *from ? from : "the root", t->group);
  if (ret < 0)
    return -1;
  if (a->dry_run)
    p->moved = true;
  else if (placer_cgroup_attach_pid(a->cg, t->group, p->pid, err) < 0)
    return -1;
  step_done(a, t);
  return 0;
}

static const char *desired_cpus(const struct target *t, const struct bound_proc *p, pid_t tid) {
  for (size_t k = 0; k < p->n_vcpus; k++)
    if (p->vcpus[k].tid == tid && p->vcpu_cpus && p->vcpu_cpus[k])
      return p->vcpu_cpus[k];
  return t->cpus;
}

/* Set every thread whose affinity differs from the plan; *fixed counts them. */
static int pin_threads(struct applier *a, struct target *t, struct bound_proc *p, unsigned *fixed,
                       struct placer_error **err) {
  *fixed = 0;
  if (a->dry_run && p->moved) {
    /* The move resets every thread to the group's cpus; only vCPU pins follow. */
    for (size_t k = 0; k < p->n_vcpus; k++) {
      if (apply_cpulist_equal(p->vcpu_cpus[k], t->cpus))
        continue;
      struct placer_journal_entry e = { 0 };
      step_begin(a, t, &e, err, "pin vCPU %u (thread %d) of pid %d to cpu %s", p->vcpus[k].cpu_index,
                 (int)p->vcpus[k].tid, (int)p->pid, p->vcpu_cpus[k]);
      (*fixed)++;
    }
    return 0;
  }
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (placer_task_list(p->pid, &tids, &n_tids, err) < 0)
    return placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
  for (size_t i = 0; i < n_tids; i++) {
    cleanup_free char *now = NULL;
    struct placer_error *gone = NULL;
    if (placer_task_read_allowed(p->pid, tids[i], &now, NULL, &gone) < 0) {
      placer_error_free(gone);
      continue;
    }
    const char *want = desired_cpus(t, p, tids[i]);
    if (apply_cpulist_equal(now, want))
      continue;
    struct placer_journal_entry e = { .op = PLACER_JOURNAL_AFFINITY, .pid = p->pid, .start_time = p->start_time,
                                      .tid = tids[i], .previous = strdup(now) };
    if (e.previous == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    cleanup_free char *name = placer_task_comm(p->pid, tids[i]);
    if (step_begin(a, t, &e, err, "set thread %d (%s) of pid %d to cpus %s (was %s)", (int)tids[i],
                   name ? name : "?", (int)p->pid, want, now) < 0)
      return -1;
    if (!a->dry_run && placer_task_set_affinity(tids[i], want, err) < 0) {
      /* A thread that has just exited is no failure. */
      struct placer_error *gone2 = NULL;
      if (placer_task_read_allowed(p->pid, tids[i], NULL, NULL, &gone2) < 0) {
        placer_error_free(gone2);
        placer_error_free(*err);
        *err = NULL;
      } else {
        return placer_error_prefix(err, "pid %d (%s)", (int)p->pid, p->comm);
      }
    }
    step_done(a, t);
    (*fixed)++;
  }
  return 0;
}

/* Every thread in the group in every hierarchy, with the planned mems. */
static int verify_process(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  struct placer_cgroup_membership m = { { 0 } };
  if (placer_cgroup_pid_membership(a->cg, p->pid, &m, err) < 0)
    return placer_error_prefix(err, "verify pid %d (%s)", (int)p->pid, p->comm);
  bool ok = placer_cgroup_membership_is(a->cg, &m, t->group);
  placer_cgroup_membership_clear(&m);
  if (!ok)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "verify pid %d (%s): not in %s in every hierarchy",
                            (int)p->pid, p->comm, t->group);
  pid_t stray = apply_stray_thread(p->pid);
  if (stray)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "verify pid %d (%s): thread %d is not in %s",
                            (int)p->pid, p->comm, (int)stray, t->group);
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (placer_task_list(p->pid, &tids, &n_tids, err) < 0)
    return -1;
  for (size_t i = 0; i < n_tids; i++) {
    cleanup_free char *mems = NULL;
    struct placer_error *gone = NULL;
    if (placer_task_read_allowed(p->pid, tids[i], NULL, &mems, &gone) < 0) {
      placer_error_free(gone);
      continue;
    }
    if (!apply_cpulist_equal(mems, t->mems))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                              "verify pid %d (%s): thread %d has Mems_allowed_list %s, planned %s", (int)p->pid,
                              p->comm, (int)tids[i], mems, t->mems);
  }
  return 0;
}

static int apply_target(struct applier *a, struct target *t, struct placer_error **err) {
  if (ensure_groups(a, t, err) < 0 || ensure_values(a, t, err) < 0)
    return -1;
  for (size_t i = 0; i < t->n_procs; i++)
    if (move_process(a, t, &t->procs[i], err) < 0)
      return -1;
  for (size_t i = 0; i < t->n_procs; i++) {
    struct bound_proc *p = &t->procs[i];
    unsigned fixed = 1;
    for (int round = 0; fixed > 0; round++) {
      if (round == AFFINITY_ROUNDS)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN,
                                "pid %d (%s): threads keep changing affinity after %d rounds", (int)p->pid, p->comm,
                                AFFINITY_ROUNDS);
      if (pin_threads(a, t, p, &fixed, err) < 0)
        return -1;
      if (a->dry_run)
        break;
    }
    if (!a->dry_run && verify_process(a, t, p, err) < 0)
      return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ validation */

static const struct placer_instance_arg *find_arg(const struct placer_instance_arg *args, size_t n, const char *inst,
                                                  size_t *from) {
  for (size_t i = *from; i < n; i++)
    if (strcmp(args[i].instance, inst) == 0) {
      *from = i + 1;
      return &args[i];
    }
  return NULL;
}

static int add_proc(struct target *t, pid_t pid, struct placer_error **err) {
  for (size_t i = 0; i < t->n_procs; i++)
    if (t->procs[i].pid == pid)
      return 0;
  struct bound_proc *bigger = realloc(t->procs, (t->n_procs + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  t->procs = bigger;
  struct bound_proc *p = &t->procs[t->n_procs];
  memset(p, 0, sizeof(*p));
  if (placer_proc_start_time(pid, &p->start_time, err) < 0)
    return placer_error_prefix(err, "%s", t->inst->name);
  char *comm = placer_proc_comm(pid);
  p->comm = comm ? comm : strdup("?");
  p->pid = pid;
  t->n_procs++;
  return 0;
}

static int check_pid_arg(const char *instance, const char *value, pid_t *out, struct placer_error **err) {
  pid_t pid;
  if (placer_parse_pid_text(value, &pid) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: not a pid", instance, value);
  struct placer_cmdline cl;
  struct placer_error *gone = NULL;
  if (placer_proc_read_cmdline(pid, &cl, &gone) < 0) {
    placer_error_free(gone);
    return placer_error_set(err, PLACER_EXIT_USAGE, ESRCH, "--pid %s=%d: no such process", instance, (int)pid);
  }
  bool kernel_thread = cl.argc == 0;
  placer_cmdline_clear(&cl);
  uint64_t start_time = 0;
  if (placer_proc_start_time(pid, &start_time, &gone) < 0 || !placer_proc_is_same(pid, start_time)) {
    placer_error_free(gone);
    return placer_error_set(err, PLACER_EXIT_USAGE, ESRCH, "--pid %s=%d: the process is not running (a zombie?)",
                            instance, (int)pid);
  }
  if (kernel_thread)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%d: a kernel thread cannot be bound", instance,
                            (int)pid);
  if (pid == getpid())
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%d: that is placer itself", instance, (int)pid);
  *out = pid;
  return 0;
}

/* The vCPUs of P and the PU each goes to: the k-th vCPU (by cpu-index) on
 * the k-th PU of the instance's cpus. */
static int plan_vcpus(struct applier *a, struct target *t, struct bound_proc *p, struct placer_error **err) {
  if (placer_vcpu_find(p->pid, t->qmp_socket, &p->vcpus, &p->n_vcpus, &p->vcpu_source, err) < 0)
    return placer_error_prefix(err, "%s: vCPUs of pid %d", t->inst->name, (int)p->pid);
  if (p->n_vcpus == 0) {
    strv_add(&a->notes, "%s: pid %d (%s): no vCPU threads found (no QMP answer, no 'CPU n/KVM' or 'CPU n/TCG' "
             "threads): vCPUs not pinned one by one", t->inst->name, (int)p->pid, p->comm);
    return 0;
  }
  unsigned n_pus = (unsigned)hwloc_bitmap_weight(t->inst->cpus);
  if ((p->vcpu_cpus = calloc(p->n_vcpus, sizeof(*p->vcpu_cpus))) == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  if (n_pus < p->n_vcpus)
    strv_add(&a->notes, "%s: pid %d has %zu vCPUs on %u PUs: some vCPUs share a PU", t->inst->name, (int)p->pid,
             p->n_vcpus, n_pus);
  for (size_t k = 0; k < p->n_vcpus; k++)
    if ((p->vcpu_cpus[k] = apply_vcpu_pu(t->inst->cpus, k)) == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  return 0;
}

/* The nearest existing ancestor of GROUP (the root: ""). */
static char *existing_parent(const struct placer_cgroup *cg, const char *group) {
  char *path = strdup(group);
  if (path == NULL)
    return NULL;
  char *slash;
  while ((slash = strrchr(path, '/')) != NULL) {
    *slash = '\0';
    if (placer_cgroup_exists(cg, path))
      return path;
  }
  *path = '\0';
  return path;
}

static int check_subset(const char *inst, const char *what, const char *want, const char *where,
                        const char *allowed, struct placer_error **err) {
  hwloc_bitmap_t w = hwloc_bitmap_alloc(), al = hwloc_bitmap_alloc();
  int ret = 0;
  if (w == NULL || al == NULL) {
    ret = placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  } else if (placer_cpulist_parse(allowed, al) < 0) {
    ret = placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: cannot parse %s '%s'", where, what, allowed);
  } else if (placer_cpulist_parse(want, w) < 0 || hwloc_bitmap_iszero(w)) {
    ret = placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL, "%s: planned %s '%s' is empty or invalid", inst, what,
                           want);
  } else if (!hwloc_bitmap_isincluded(w, al)) {
    hwloc_bitmap_andnot(w, w, al);
    cleanup_free char *missing = placer_cpulist_format(w);
    ret = placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL,
                           "%s: planned %s %s, but %s has only %s (%s missing); was the plan made for another "
                           "machine (--topology)?",
                           inst, what, want, where, allowed, missing ? missing : "?");
  }
  hwloc_bitmap_free(w);
  hwloc_bitmap_free(al);
  return ret;
}

static int build_targets(struct applier *a, struct placer_error **err) {
  const struct placer_plan *plan = a->plan;
  const struct placer_apply_options *opt = a->opt;
  for (size_t i = 0; i < opt->n_pids; i++)
    if (placer_plan_find(plan, opt->pids[i].instance) == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: the plan has no instance '%s'",
                              opt->pids[i].instance, opt->pids[i].value, opt->pids[i].instance);
  for (size_t i = 0; i < opt->n_qmps; i++)
    if (placer_plan_find(plan, opt->qmps[i].instance) == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--qmp %s=%s: the plan has no instance '%s'",
                              opt->qmps[i].instance, opt->qmps[i].value, opt->qmps[i].instance);
  if (plan->n_instances == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "the plan has no instances: nothing to apply");

  a->targets = calloc(plan->n_instances, sizeof(*a->targets));
  if (a->targets == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  a->n_targets = plan->n_instances;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    struct target *t = &a->targets[i];
    t->inst = inst;
    if (placer_instance_group(a->prefix, inst->role, inst->name, &t->group, err) < 0)
      return placer_error_prefix(err, "%s", inst->name);
    t->cpus = placer_cpulist_format(inst->cpus);
    t->mems = placer_cpulist_format(inst->mems);
    if (t->cpus == NULL || t->mems == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    t->memory_limit = inst->has_memory_limit ? inst->memory_bytes : PLACER_CGROUP_UNLIMITED;
    if (inst->cpu_weight > PLACER_CGROUP_WEIGHT_MAX)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: cpu weight %u is outside 1..10000", inst->name,
                              inst->cpu_weight);
    t->weight = apply_effective_weight(inst->cpu_weight);
    size_t from = 0;
    const struct placer_instance_arg *q = find_arg(opt->qmps, opt->n_qmps, inst->name, &from);
    t->qmp_socket = q ? q->value : NULL;
    for (size_t j = 0; j < i; j++)
      if (strcmp(a->targets[j].group, t->group) == 0)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s and %s would share the group %s",
                                a->targets[j].inst->name, inst->name, t->group);
  }
  return 0;
}

static int check_targets_fit(struct applier *a, struct placer_error **err) {
  for (size_t i = 0; i < a->n_targets; i++) {
    struct target *t = &a->targets[i];
    cleanup_free char *parent = existing_parent(a->cg, t->group);
    cleanup_free char *cpus = NULL, *mems = NULL;
    if (parent == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    if (placer_cgroup_read_effective(a->cg, parent, &cpus, &mems, err) < 0)
      return placer_error_prefix(err, "%s", t->inst->name);
    char where[512];
    snprintf(where, sizeof(where), "cgroup %s", *parent ? parent : "root");
    if (check_subset(t->inst->name, "cpus", t->cpus, where, cpus, err) < 0 ||
        check_subset(t->inst->name, "mems", t->mems, where, mems, err) < 0)
      return -1;
  }
  return 0;
}

static int resolve_processes(struct applier *a, struct placer_error **err) {
  const struct placer_apply_options *opt = a->opt;
  for (size_t i = 0; i < a->n_targets; i++) {
    struct target *t = &a->targets[i];
    const struct placer_instance *inst = t->inst;
    size_t from = 0;
    const struct placer_instance_arg *arg;
    bool explicit = false;
    while ((arg = find_arg(opt->pids, opt->n_pids, inst->name, &from)) != NULL) {
      pid_t pid = 0;
      explicit = true;
      if (check_pid_arg(inst->name, arg->value, &pid, err) < 0 || add_proc(t, pid, err) < 0)
        return -1;
    }
    if (!explicit) {
      cleanup_free pid_t *pids = NULL;
      cleanup_free char *why = NULL;
      size_t n = 0;
      if (placer_procmatch_find(inst->kind, &inst->match, &pids, &n, &why, err) < 0)
        return placer_error_prefix(err, "%s", inst->name);
      for (size_t k = 0; k < n; k++) {
        struct placer_error *gone = NULL;
        if (add_proc(t, pids[k], &gone) < 0)
          placer_error_free(gone); /* exited since the scan: as if never found */
      }
      if (t->n_procs == 0) {
        cleanup_free char *desc = placer_match_describe(inst->kind, &inst->match);
        if (inst->match.kind == PLACER_MATCH_NONE) {
          if (asprintf(&t->note, "no process: the profile gives no matcher and no --pid %s=PID was given", inst->name) < 0)
            t->note = NULL;
        } else if (asprintf(&t->note, "no process matches %s%s%s%s", desc ? desc : "?", why ? " (" : "", why ? why : "",
                            why ? ")" : "") < 0) {
          t->note = NULL;
        }
        if (opt->strict)
          return placer_error_set(err, PLACER_EXIT_INFEASIBLE, ESRCH, "%s: %s (--strict)", inst->name,
                                  t->note ? t->note : "no process");
      }
    }
    if (inst->pin_vcpus)
      for (size_t k = 0; k < t->n_procs; k++)
        if (plan_vcpus(a, t, &t->procs[k], err) < 0)
          return -1;
  }
  /* One process, one instance. */
  for (size_t i = 0; i < a->n_targets; i++)
    for (size_t k = 0; k < a->targets[i].n_procs; k++)
      for (size_t j = i + 1; j < a->n_targets; j++)
        for (size_t l = 0; l < a->targets[j].n_procs; l++)
          if (a->targets[i].procs[k].pid == a->targets[j].procs[l].pid)
            return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                                    "pid %d (%s) is matched by both %s and %s; make the matchers (or --pid) unambiguous",
                                    (int)a->targets[i].procs[k].pid, a->targets[i].procs[k].comm,
                                    a->targets[i].inst->name, a->targets[j].inst->name);
  return 0;
}

/* The state directory must describe the same subtree and profile. */
static int check_state(struct applier *a, const char *cgroup_root, struct placer_error **err) {
  struct placer_state *s = a->state;
  if (placer_state_is_empty(s))
    return 0;
  const char *mode = placer_cgroup_mode_name(placer_cgroup_get_mode(a->cg));
  if (s->prefix && strcmp(s->prefix, a->prefix) != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s holds placer groups under '%s', not '%s': use the same prefix, or run 'placer reset' "
                            "first",
                            s->dir, s->prefix, a->prefix);
  if ((s->cgroup_mode && strcmp(s->cgroup_mode, mode) != 0) ||
      (s->cgroup_root && strcmp(s->cgroup_root, cgroup_root) != 0))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s was applied to cgroup %s at %s, this is cgroup %s at %s: run 'placer reset' first", s->dir,
                            s->cgroup_mode ? s->cgroup_mode : "?", s->cgroup_root ? s->cgroup_root : "?", mode,
                            cgroup_root);
  if (s->n_instances > 0) {
    if (s->profile_name && a->plan->profile_name && strcmp(s->profile_name, a->plan->profile_name) != 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "profile '%s' is applied (state %s); run 'placer reset' before applying '%s'",
                              s->profile_name, s->dir, a->plan->profile_name);
    for (size_t i = 0; i < s->n_instances; i++)
      if (placer_plan_find(a->plan, s->instances[i].name) == NULL)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                                "%s is applied but no longer in the plan of '%s'; run 'placer reset' first",
                                s->instances[i].name, a->plan->profile_name ? a->plan->profile_name : "?");
  }
  return 0;
}

/* ------------------------------------------------------------------ state summary */

static int record_instances(struct applier *a, struct placer_error **err) {
  struct placer_state *s = a->state;
  struct placer_state_instance *list = calloc(a->n_targets, sizeof(*list));
  if (list == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  bool oom = false;
  for (size_t i = 0; i < a->n_targets; i++) {
    const struct target *t = &a->targets[i];
    const struct placer_instance *inst = t->inst;
    struct placer_state_instance *si = &list[i];
    si->name = strdup(inst->name);
    si->role = strdup(inst->role);
    si->kind = inst->kind;
    si->group = strdup(t->group);
    si->pinned = inst->pinned;
    si->cpus = strdup(t->cpus);
    si->mems = strdup(t->mems);
    si->has_memory_limit = inst->has_memory_limit;
    si->memory_bytes = inst->memory_bytes;
    si->cpu_weight = inst->cpu_weight;
    si->pin_vcpus = inst->pin_vcpus;
    si->match.kind = inst->match.kind;
    si->match.value = inst->match.value ? strdup(inst->match.value) : NULL;
    si->qmp_socket = t->qmp_socket ? strdup(t->qmp_socket) : NULL;
    si->procs = calloc(t->n_procs ? t->n_procs : 1, sizeof(*si->procs));
    if (!si->name || !si->role || !si->group || !si->cpus || !si->mems || !si->procs ||
        (inst->match.value && !si->match.value) || (t->qmp_socket && !si->qmp_socket))
      oom = true;
    for (size_t k = 0; si->procs && k < t->n_procs; k++)
      si->procs[k] = (struct placer_state_process){ t->procs[k].pid, t->procs[k].start_time };
    si->n_procs = si->procs ? t->n_procs : 0;
  }
  if (oom) {
    for (size_t i = 0; i < a->n_targets; i++)
      placer_state_instance_clear(&list[i]);
    free(list);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  placer_state_clear_instances(s);
  s->instances = list;
  s->n_instances = a->n_targets;
  return 0;
}

static char *now_rfc3339(void) {
  time_t now = time(NULL);
  struct tm tm;
  char buf[32];
  gmtime_r(&now, &tm);
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return strdup(buf);
}

static int replace_str(char **slot, const char *value) {
  char *copy = value ? strdup(value) : NULL;
  if (value && copy == NULL)
    return -1;
  free(*slot);
  *slot = copy;
  return 0;
}

/* ------------------------------------------------------------------ report */

static int build_report(struct applier *a, struct placer_apply_report **out, struct placer_error **err) {
  struct placer_apply_report *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  r->profile_name = a->plan->profile_name ? strdup(a->plan->profile_name) : NULL;
  r->cgroup_mode = placer_cgroup_mode_name(placer_cgroup_get_mode(a->cg));
  r->state_dir = strdup(a->state->dir);
  r->dry_run = a->dry_run;
  r->steps = a->steps;
  r->actions = a->actions.v;
  r->n_actions = a->actions.n;
  a->actions = (struct strv){ NULL, 0 };
  r->notes = a->notes.v;
  r->n_notes = a->notes.n;
  a->notes = (struct strv){ NULL, 0 };
  r->instances = calloc(a->n_targets, sizeof(*r->instances));
  if (r->instances == NULL) {
    placer_apply_report_free(r);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  r->n_instances = a->n_targets;
  for (size_t i = 0; i < a->n_targets; i++) {
    struct target *t = &a->targets[i];
    struct placer_apply_instance_report *ri = &r->instances[i];
    ri->name = strdup(t->inst->name);
    ri->group = TAKE_PTR(t->group);
    ri->cpus = TAKE_PTR(t->cpus);
    ri->mems = TAKE_PTR(t->mems);
    ri->has_memory_limit = t->inst->has_memory_limit;
    ri->memory_bytes = t->inst->memory_bytes;
    ri->note = TAKE_PTR(t->note);
    ri->changes = t->changes;
    ri->bound = calloc(t->n_procs ? t->n_procs : 1, sizeof(*ri->bound));
    if (ri->bound == NULL)
      continue;
    ri->n_bound = t->n_procs;
    for (size_t k = 0; k < t->n_procs; k++) {
      struct bound_proc *p = &t->procs[k];
      ri->bound[k].pid = p->pid;
      ri->bound[k].comm = TAKE_PTR(p->comm);
      pid_t *tids = NULL;
      size_t n = 0;
      struct placer_error *gone = NULL;
      if (placer_task_list(p->pid, &tids, &n, &gone) < 0)
        placer_error_free(gone);
      free(tids);
      ri->bound[k].n_threads = n;
      ri->n_vcpus_pinned += p->n_vcpus;
      if (p->n_vcpus)
        ri->vcpu_source = p->vcpu_source;
    }
  }
  *out = r;
  return 0;
}

void placer_apply_report_free(struct placer_apply_report *r) {
  if (r == NULL)
    return;
  free(r->profile_name);
  free(r->state_dir);
  for (size_t i = 0; i < r->n_instances; i++) {
    struct placer_apply_instance_report *ri = &r->instances[i];
    free(ri->name);
    free(ri->group);
    free(ri->cpus);
    free(ri->mems);
    free(ri->note);
    for (size_t k = 0; k < ri->n_bound; k++)
      free(ri->bound[k].comm);
    free(ri->bound);
  }
  free(r->instances);
  struct strv actions = { r->actions, r->n_actions }, notes = { r->notes, r->n_notes };
  strv_free(&actions);
  strv_free(&notes);
  free(r);
}

/* ------------------------------------------------------------------ apply */

static void applier_clear(struct applier *a) {
  for (size_t i = 0; i < a->n_targets; i++)
    target_clear(&a->targets[i]);
  free(a->targets);
  strv_free(&a->actions);
  strv_free(&a->notes);
  strv_free(&a->would_create);
  placer_state_free(a->state);
  placer_cgroup_close(a->cg);
}

/* Roll the current transaction back and turn ERR into "... rolled back". */
static int roll_back(struct applier *a, struct placer_error **err) {
  struct strv notes = { NULL, 0 }, failures = { NULL, 0 };
  size_t failed = apply_undo(a->cg, a->state, a->txn, &notes, &failures);
  a->state->pending_txn = 0;
  a->state->pending_pid = 0;
  struct placer_error *save_err = NULL;
  if (placer_state_save(a->state, &save_err) < 0) {
    strv_add(&failures, "%s", save_err->msg);
    placer_error_free(save_err);
    failed++;
  }
  if (failed == 0) {
    placer_error_prefix(err, "apply failed; the %u steps done are rolled back", a->steps);
  } else {
    char all[2048] = "";
    for (size_t i = 0; i < failures.n; i++)
      snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? "; " : "", failures.v[i]);
    placer_error_prefix(err, "apply failed after %u steps and the rollback is incomplete (%s); run 'placer reset'",
                        a->steps, all);
  }
  if (notes.n && *err) {
    char all[2048] = "";
    for (size_t i = 0; i < notes.n; i++)
      snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? "; " : "", notes.v[i]);
    char *msg = NULL;
    if (asprintf(&msg, "%s (rollback: %s)", (*err)->msg, all) >= 0) {
      free((*err)->msg);
      (*err)->msg = msg;
    }
  }
  strv_free(&notes);
  strv_free(&failures);
  return -1;
}

int placer_apply(const struct placer_plan *plan, const struct placer_apply_options *opt,
                 struct placer_apply_report **report, struct placer_error **err) {
  struct applier a = { 0 };
  a.plan = plan;
  a.opt = opt;
  a.dry_run = opt->dry_run;
  a.prefix = placer_apply_prefix(opt->prefix);
  a.fault_after = env_long("PLACER_FAULT_AFTER_STEPS", -1);
  const char *mode = getenv("PLACER_FAULT_MODE");
  a.fault_kill = mode && strcmp(mode, "sigkill") == 0;
  a.delay_ms = env_long("PLACER_STEP_DELAY_MS", 0);
  const char *state_dir = opt->state_dir ? opt->state_dir : placer_state_default_dir();
  const char *cgroup_root = opt->cgroup_root;
  if (cgroup_root == NULL || *cgroup_root == '\0')
    cgroup_root = getenv("PLACER_CGROUP_ROOT");
  if (cgroup_root == NULL || *cgroup_root == '\0')
    cgroup_root = "/sys/fs/cgroup";

  if (!placer_cgroup_group_is_valid(a.prefix))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "cgroup prefix '%s' is not a relative path of names made of [A-Za-z0-9._-]", a.prefix);
  if (placer_state_open(state_dir, a.dry_run ? PLACER_STATE_NO_LOCK : PLACER_STATE_LOCK_EXCLUSIVE, &a.state, NULL,
                        err) < 0)
    return -1;
  if (placer_cgroup_open(cgroup_root, &a.cg, err) < 0 || check_state(&a, cgroup_root, err) < 0) {
    applier_clear(&a);
    return -1;
  }

  /* An apply that was killed part-way: take it back first. */
  if (a.state->pending_txn) {
    if (a.dry_run) {
      strv_add(&a.notes, "an interrupted apply (pid %d) would be rolled back first", (int)a.state->pending_pid);
    } else {
      struct strv notes = { NULL, 0 }, failures = { NULL, 0 };
      size_t failed = apply_undo(a.cg, a.state, a.state->pending_txn, &notes, &failures);
      if (failed) {
        placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                         "an interrupted apply (pid %d) could not be rolled back (%s); run 'placer reset'",
                         (int)a.state->pending_pid, failures.v[0]);
        strv_free(&notes);
        strv_free(&failures);
        applier_clear(&a);
        return -1;
      }
      strv_add(&a.notes, "rolled back an interrupted apply (pid %d)", (int)a.state->pending_pid);
      for (size_t i = 0; i < notes.n; i++)
        strv_add(&a.notes, "%s", notes.v[i]);
      strv_free(&notes);
      strv_free(&failures);
      a.state->pending_txn = 0;
      if (placer_state_save(a.state, err) < 0) {
        applier_clear(&a);
        return -1;
      }
    }
  }

  /* Validate everything before the first change. */
  if (build_targets(&a, err) < 0 || check_targets_fit(&a, err) < 0 || resolve_processes(&a, err) < 0) {
    applier_clear(&a);
    return -1;
  }

  if (!a.dry_run) {
    struct placer_state *s = a.state;
    if (replace_str(&s->cgroup_mode, placer_cgroup_mode_name(placer_cgroup_get_mode(a.cg))) < 0 ||
        replace_str(&s->cgroup_root, cgroup_root) < 0 || replace_str(&s->prefix, a.prefix) < 0) {
      applier_clear(&a);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    }
    a.txn = ++s->last_txn;
    s->pending_txn = a.txn;
    s->pending_pid = getpid();
    if (placer_state_save(s, err) < 0) {
      applier_clear(&a);
      return -1;
    }
  }

  for (size_t i = 0; i < a.n_targets; i++) {
    if (apply_target(&a, &a.targets[i], err) < 0) {
      placer_error_prefix(err, "%s", a.targets[i].inst->name);
      if (!a.dry_run)
        roll_back(&a, err);
      applier_clear(&a);
      return -1;
    }
  }

  if (!a.dry_run) {
    struct placer_state *s = a.state;
    if (a.steps == 0)
      s->last_txn--; /* nothing was journaled under it */
    s->pending_txn = 0;
    s->pending_pid = 0;
    if (record_instances(&a, err) < 0 || replace_str(&s->profile_name, plan->profile_name) < 0 ||
        replace_str(&s->profile_path, plan->profile_path) < 0 ||
        replace_str(&s->topology_source, plan->topology_source) < 0) {
      if (*err == NULL)
        placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
      roll_back(&a, err);
      applier_clear(&a);
      return -1;
    }
    if (a.steps > 0 || s->applied_at == NULL) {
      free(s->applied_at);
      s->applied_at = now_rfc3339();
    }
    if (placer_state_save(s, err) < 0) {
      roll_back(&a, err);
      applier_clear(&a);
      return -1;
    }
  }
  int ret = build_report(&a, report, err);
  applier_clear(&a);
  return ret;
}
