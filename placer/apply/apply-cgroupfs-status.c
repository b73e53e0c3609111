/* placer status, cgroupfs backend: for every applied instance, what the plan
 * says against what the kernel holds now (group values, each process's
 * groups, every thread's Cpus_allowed_list / Mems_allowed_list), flagging
 * drift. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply-cgroupfs-internal.h"
#include "lib/cpulist.h"
#include "plan/plan.h"
#include "lib/textfile.h"
#include "numa-locality.h"
#include "proc.h"
#include "procmatch.h"
#include "topology/topology.h"
#include "lib/units.h"
#include "vcpu.h"
#include "lib/json-str.h"

static json_t *limit_json(uint64_t bytes) {
  return bytes == PLACER_CGROUP_UNLIMITED ? json_null() : json_integer((json_int_t)bytes);
}

/* Append a formatted line to INST's list KEY ("drift" or "notes"). */
static void add_line(json_t *inst, const char *key, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static void add_line(json_t *inst, const char *key, const char *fmt, va_list ap) {
  char *msg = apply_vformat(fmt, ap);
  json_array_append_new(json_object_get(inst, key), json_string(msg ? msg : "?"));
  free(msg);
}

static void drift(json_t *inst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void drift(json_t *inst, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(inst, "drift", fmt, ap);
  va_end(ap);
}

static void note(json_t *inst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(json_t *inst, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_line(inst, "notes", fmt, ap);
  va_end(ap);
}

/* Processes to look at; root[i]: the bound process that V[i] descends
 * from, 0 for the others. */
struct pids {
  pid_t *v;
  pid_t *root;
  size_t n;
};

static bool pids_has(const struct pids *p, pid_t pid) {
  for (size_t i = 0; i < p->n; i++)
    if (p->v[i] == pid)
      return true;
  return false;
}

static void pids_add_below(struct pids *p, pid_t pid, pid_t root) {
  if (pids_has(p, pid))
    return;
  pid_t *bigger = realloc(p->v, (p->n + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return;
  p->v = bigger;
  bigger = realloc(p->root, (p->n + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return;
  p->root = bigger;
  p->root[p->n] = root;
  p->v[p->n++] = pid;
}

static void pids_add(struct pids *p, pid_t pid) {
  pids_add_below(p, pid, 0);
}

static void pids_free(struct pids *p) {
  free(p->v);
  free(p->root);
}

/* The tree of every instance of STATE: its live bound processes and their
 * descendants now, each tagged with the bound process it is below.  A
 * tree ends where another instance's bound process is.  Found once for
 * all instances: each instance's check needs the others' too. */
static struct pids *instance_trees(const struct placer_state *state) {
  struct pids *trees = calloc(state->n_instances ? state->n_instances : 1, sizeof(*trees));
  struct pids all_roots = { NULL, NULL, 0 };
  if (trees == NULL)
    return NULL;
  for (size_t i = 0; i < state->n_instances; i++) {
    const struct placer_state_instance *si = &state->instances[i];
    for (size_t k = 0; k < si->n_procs; k++)
      if (placer_proc_is_same(si->procs[k].pid, si->procs[k].start_time)) {
        pids_add(&trees[i], si->procs[k].pid);
        pids_add(&all_roots, si->procs[k].pid);
      }
  }
  for (size_t i = 0; i < state->n_instances; i++) {
    size_t n_roots = trees[i].n;
    for (size_t r = 0; r < n_roots; r++) {
      pid_t root = trees[i].v[r];
      pid_t *desc = NULL;
      size_t n = 0;
      struct placer_error *e = NULL;
      if (placer_proc_descendants(root, all_roots.v, all_roots.n, &desc, &n, &e) < 0) {
        placer_error_free(e);
        continue;
      }
      for (size_t k = 0; k < n; k++)
        pids_add_below(&trees[i], desc[k], root);
      free(desc);
    }
  }
  pids_free(&all_roots);
  return trees;
}

static void instance_trees_free(struct pids *trees, size_t n) {
  for (size_t i = 0; trees && i < n; i++)
    pids_free(&trees[i]);
  free(trees);
}

/* PIDs in GROUP in each hierarchy (v1 may differ per controller). */
static void group_pids(struct placer_cgroup *cg, const char *group, struct pids *out) {
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cleanup_free char *dir = placer_cgroup_dir(cg, c, group);
    cleanup_free char *path = NULL;
    if (dir == NULL || asprintf(&path, "%s/cgroup.procs", dir) < 0)
      continue;
    cleanup_free char *text = NULL;
    if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
      continue;
    for (char *p = text, *end; *p; p = end) {
      long pid = strtol(p, &end, 10);
      if (end == p)
        break;
      if (pid > 0)
        pids_add(out, (pid_t)pid);
    }
  }
}

static const struct placer_state_process *bound_entry(const struct placer_state_instance *si, pid_t pid) {
  for (size_t i = 0; i < si->n_procs; i++)
    if (si->procs[i].pid == pid)
      return &si->procs[i];
  return NULL;
}

/* One process: its groups and every thread against the plan.  Returns
 * whether it is in the instance's group in every hierarchy. */
static bool check_process(struct placer_cgroup *cg, const struct placer_state_instance *si, hwloc_const_bitmap_t cpus,
                          pid_t pid, bool bound, pid_t below, bool matched, json_t *inst, json_t *procs) {
  cleanup_free char *comm = placer_proc_comm(pid);
  struct placer_cgroup_membership m = { { 0 } };
  struct placer_error *gone = NULL;
  if (placer_cgroup_pid_membership(cg, pid, &m, &gone) < 0) {
    placer_error_clear(&gone);
    return false; /* exited while we looked */
  }
  json_t *jp = json_object();
  json_object_set_new(jp, "pid", json_integer(pid));
  json_object_set_new(jp, "comm", placer_json_str_or_null(comm));
  json_object_set_new(jp, "bound", json_boolean(bound || below));
  if (below)
    json_object_set_new(jp, "descendant_of", json_integer(below));
  json_object_set_new(jp, "matched", json_boolean(matched));
  json_t *groups = json_object();
  bool in_group = true;
  char elsewhere[512] = "";
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    json_object_set_new(groups, placer_cgroup_controller_name(c), placer_json_str_or_null(m.path[c]));
    if (c == PLACER_CGROUP_CPUACCT && !placer_cgroup_accounts(cg, si->group))
      continue; /* a group made without it: not accounted, not misplaced */
    if (m.path[c] == NULL || strcmp(m.path[c], si->group) != 0) {
      in_group = false;
      snprintf(elsewhere + strlen(elsewhere), sizeof(elsewhere) - strlen(elsewhere), "%s%s:/%s", *elsewhere ? " " : "",
               placer_cgroup_controller_name(c), m.path[c] ? m.path[c] : "?");
    }
  }
  placer_cgroup_membership_clear(&m);
  /* A process in do_exit() (v1 shows it in the root) or a zombie is on its
   * way out, not misplaced. */
  if (!in_group && placer_task_exiting(pid, pid)) {
    json_decref(jp);
    json_decref(groups);
    return false;
  }
  pid_t stray = in_group ? apply_stray_thread(pid) : 0;
  if (stray) {
    cleanup_free char *tcomm = placer_task_comm(pid, stray);
    drift(inst, "thread %d (%s) of pid %d is not in %s (moved alone)", (int)stray, tcomm ? tcomm : "?", (int)pid,
          si->group);
  }
  json_object_set_new(jp, "groups", groups);
  json_object_set_new(jp, "in_group", json_boolean(in_group));
  bool ok = in_group && stray == 0;
  if (!in_group) {
    if (bound)
      drift(inst, "pid %d (%s) is no longer in %s: it is in %s", (int)pid, comm ? comm : "?", si->group, elsewhere);
    else if (below)
      drift(inst, "pid %d (%s), below bound pid %d, is not in %s: it is in %s", (int)pid, comm ? comm : "?", (int)below,
            si->group, elsewhere);
    else if (matched) {
      cleanup_free char *desc = placer_match_describe(si->kind, &si->match);
      drift(inst, "pid %d (%s) matches %s but runs outside %s, in %s (restarted?)", (int)pid, comm ? comm : "?",
            desc ? desc : "?", si->group, elsewhere);
    } else
      drift(inst, "pid %d (%s) is only partly in %s: %s", (int)pid, comm ? comm : "?", si->group, elsewhere);
  }

  /* vCPU pins, as apply made them. */
  struct placer_vcpu *vcpus = NULL;
  size_t n_vcpus = 0;
  const char *source = NULL;
  if (si->pin_vcpus) {
    struct placer_error *verr = NULL;
    if (placer_vcpu_find(pid, si->qmp_socket, &vcpus, &n_vcpus, &source, &verr) < 0)
      placer_error_free(verr);
  }

  json_t *threads = json_array();
  pid_t *tids = NULL;
  size_t n_tids = 0;
  if (placer_task_list(pid, &tids, &n_tids, &gone) < 0)
    placer_error_clear(&gone);
  size_t bad = 0;
  for (size_t i = 0; i < n_tids; i++) {
    cleanup_free char *tcpus = NULL, *tmems = NULL, *tcomm = NULL;
    char pin[16] = "";
    if (placer_task_read_allowed(pid, tids[i], &tcpus, &tmems, &gone) < 0) {
      placer_error_clear(&gone);
      continue;
    }
    /* A thread in do_exit() keeps the masks of the group it was in when
     * the process moved (the kernel does not migrate it): not drift. */
    if (placer_task_exiting(pid, tids[i]))
      continue;
    for (size_t k = 0; k < n_vcpus; k++)
      if (vcpus[k].tid == tids[i])
        snprintf(pin, sizeof(pin), "%d", placer_cpulist_nth(cpus, vcpus[k].cpu_index));
    const char *want = *pin ? pin : si->cpus;
    bool cpus_ok = placer_cpulist_equal(tcpus, want), mems_ok = placer_cpulist_equal(tmems, si->mems);
    tcomm = placer_task_comm(pid, tids[i]);
    json_t *jt = json_object();
    json_object_set_new(jt, "tid", json_integer(tids[i]));
    json_object_set_new(jt, "comm", placer_json_str_or_null(tcomm));
    json_object_set_new(jt, "cpus", placer_json_str_or_null(tcpus));
    json_object_set_new(jt, "mems", placer_json_str_or_null(tmems));
    json_object_set_new(jt, "planned_cpus", json_string(want));
    json_object_set_new(jt, "planned_mems", json_string(si->mems));
    if (*pin)
      json_object_set_new(jt, "vcpu", json_true());
    json_object_set_new(jt, "ok", json_boolean(cpus_ok && mems_ok));
    json_array_append_new(threads, jt);
    if (in_group && !cpus_ok) {
      drift(inst, "thread %d (%s) of pid %d: Cpus_allowed_list %s, planned %s", (int)tids[i], tcomm ? tcomm : "?",
            (int)pid, tcpus, want);
      bad++;
    }
    if (in_group && !mems_ok) {
      drift(inst, "thread %d (%s) of pid %d: Mems_allowed_list %s, planned %s", (int)tids[i], tcomm ? tcomm : "?",
            (int)pid, tmems, si->mems);
      bad++;
    }
  }
  free(tids);
  free(vcpus);
  json_object_set_new(jp, "n_threads", json_integer((json_int_t)json_array_size(threads)));
  if (source)
    json_object_set_new(jp, "vcpu_source", json_string(source));
  json_object_set_new(jp, "threads", threads);
  json_object_set_new(jp, "ok", json_boolean(ok && bad == 0));
  json_array_append_new(procs, jp);
  return in_group;
}

/* Memory locality: the resident pages of the instance's processes, per NUMA
 * node (/proc/PID/numa_maps), against its planned nodes.  Not drift: a
 * process keeps pages it had before it was moved (v1 cpusets do not migrate
 * them unless cpuset.memory_migrate is set), and that is what this shows.
 * NULL when it cannot be known (no NUMA in the kernel, nothing readable). */
static json_t *memory_locality(const struct placer_numa_host *host, const struct placer_state_instance *si,
                               const struct pids *all, json_t *inst) {
  if (!host->available) {
    note(inst, "memory locality unknown: the kernel has no NUMA support (numa_available() < 0)");
    return json_null();
  }
  struct placer_numa_usage u = { 0 };
  for (size_t i = 0; i < all->n; i++) {
    struct placer_error *e = NULL;
    if (placer_numa_usage_add_pid("/proc", all->v[i], &u, &e) < 0) {
      note(inst, "memory locality of pid %d unknown: %s", (int)all->v[i], e->msg);
      placer_error_free(e);
    }
  }
  struct placer_numa_locality l;
  struct placer_error *e = NULL;
  if (u.n_processes == 0 || placer_numa_locality(&u, si->mems, &l, &e) < 0) {
    placer_error_free(e);
    placer_numa_usage_clear(&u);
    return json_null();
  }
  json_t *loc = json_object();
  json_object_set_new(loc, "planned_mems", json_string(si->mems));
  json_object_set_new(loc, "resident_bytes", json_integer((json_int_t)l.resident_bytes));
  json_object_set_new(loc, "local_bytes", json_integer((json_int_t)l.local_bytes));
  json_object_set_new(loc, "local_share", isnan(l.local_share) ? json_null() : json_real(l.local_share));
  json_t *nodes = json_object();
  for (size_t n = 0; n < u.n_nodes; n++)
    if (u.node_bytes[n]) {
      char key[24];
      snprintf(key, sizeof(key), "%zu", n);
      json_object_set_new(nodes, key, json_integer((json_int_t)u.node_bytes[n]));
    }
  json_object_set_new(loc, "node_bytes", nodes);
  json_object_set_new(loc, "n_processes", json_integer((json_int_t)u.n_processes));
  cleanup_free char *shown = placer_numa_locality_format(&u, si->mems);
  json_object_set_new(loc, "shown", placer_json_str_or_null(shown));
  placer_numa_usage_clear(&u);
  return loc;
}

/* The weight ROLE's group should have: the sum of its instances'
 * (plan-weight.c); 0 when it cannot be told. */
static unsigned role_weight(const struct placer_state *state, const char *role) {
  size_t n = state->n_instances;
  cleanup_free const char **roles = calloc(n ? n : 1, sizeof(*roles));
  cleanup_free unsigned *planned = calloc(n ? n : 1, sizeof(*planned));
  if (roles == NULL || planned == NULL || role == NULL)
    return 0;
  for (size_t i = 0; i < n; i++) {
    roles[i] = state->instances[i].role;
    planned[i] = state->instances[i].cpu_weight;
  }
  return placer_weight_role(roles, planned, n, role);
}

static void limit_text(uint64_t bytes, char *buf, size_t len) {
  if (bytes == PLACER_CGROUP_UNLIMITED)
    snprintf(buf, len, "none");
  else
    placer_format_bytes(bytes, buf, len);
}

static void quota_text(unsigned mcores, char *buf, size_t len) {
  if (mcores)
    snprintf(buf, len, "%g cores", mcores / 1000.0);
  else
    snprintf(buf, len, "none");
}

/* The values GROUP holds now (the writer's read) against PLANNED's: the
 * instance group's own, or its role group's weight (WANT_WEIGHT: 0, unknown
 * and not checked) and quota. */
static void check_values(struct placer_cgroup *cg, const char *group, bool role, const struct placer_group_values *want,
                         json_t *inst, json_t *planned, json_t *actual) {
  struct placer_writer w = placer_writer_cgroupfs(cg);
  struct placer_group_values now = { 0 };
  struct placer_error *e = NULL;
  if (w.ops->read(w.ctx, group, role ? PLACER_ROLE_SETTINGS : PLACER_GROUP_SETTINGS, &now, &e) < 0) {
    drift(inst, "cannot read %s: %s", group, e->msg);
    placer_error_free(e);
    return;
  }
  if (!role) {
    json_object_set_new(actual, "cpus", json_string(now.cpus));
    if (!placer_group_value_equal(PLACER_SETTING_CPUS, &now, want))
      drift(inst, "%s cpus %s, planned %s", group, now.cpus, want->cpus);
    json_object_set_new(actual, "mems", json_string(now.mems));
    if (!placer_group_value_equal(PLACER_SETTING_MEMS, &now, want))
      drift(inst, "%s mems %s, planned %s", group, now.mems, want->mems);
    json_object_set_new(actual, "memory_bytes", limit_json(now.memory_limit));
    if (!placer_group_value_equal(PLACER_SETTING_MEMORY_LIMIT, &now, want)) {
      char have[32], planned_text[32];
      limit_text(now.memory_limit, have, sizeof(have));
      limit_text(want->memory_limit, planned_text, sizeof(planned_text));
      drift(inst, "%s memory limit %s, planned %s", group, have, planned_text);
    }
    json_object_set_new(actual, "cpu_weight", json_integer(now.cpu_weight));
    if (!placer_group_value_equal(PLACER_SETTING_CPU_WEIGHT, &now, want))
      drift(inst, "%s cpu weight %u, planned %u", group, now.cpu_weight, want->cpu_weight);
    placer_group_values_clear(&now);
    return;
  }
  if (want->cpu_weight) {
    json_object_set_new(actual, "role_cpu_weight", json_integer(now.cpu_weight));
    if (!placer_group_value_equal(PLACER_SETTING_CPU_WEIGHT, &now, want))
      drift(inst, "%s cpu weight %u, planned %u (the sum of its instances')", group, now.cpu_weight, want->cpu_weight);
  }
  /* The keys only where a quota is planned or found: as before otherwise. */
  if (want->cpu_quota)
    json_object_set_new(planned, "cpu_quota_cores", json_real(want->cpu_quota / 1000.0));
  if (want->cpu_quota || now.cpu_quota)
    json_object_set_new(actual, "cpu_quota_cores", now.cpu_quota ? json_real(now.cpu_quota / 1000.0) : json_null());
  if (!placer_group_value_equal(PLACER_SETTING_CPU_QUOTA, &now, want)) {
    char have[32], planned_text[32];
    quota_text(now.cpu_quota, have, sizeof(have));
    quota_text(want->cpu_quota, planned_text, sizeof(planned_text));
    drift(inst, "%s cpu quota %s, planned %s", group, have, planned_text);
  }
  placer_group_values_clear(&now);
}

static json_t *check_instance(struct placer_cgroup *cg, const struct placer_state *state, const struct pids *trees,
                              size_t self, unsigned planned_role_weight, const struct placer_numa_host *host) {
  const struct placer_state_instance *si = &state->instances[self];
  json_t *inst = json_object();
  json_object_set_new(inst, "name", placer_json_str_or_null(si->name));
  json_object_set_new(inst, "role", placer_json_str_or_null(si->role));
  json_object_set_new(inst, "kind", json_string(placer_role_kind_name(si->kind)));
  json_object_set_new(inst, "group", json_string(si->group));
  json_object_set_new(inst, "drift", json_array());
  json_object_set_new(inst, "notes", json_array());
  cleanup_free char *desc = placer_match_describe(si->kind, &si->match);
  json_object_set_new(inst, "match", placer_json_str_or_null(desc));

  /* What the state recorded of the model's values (borrowed: not cleared). */
  struct placer_group_values want = { .cpus = si->cpus,
                                      .mems = si->mems,
                                      .memory_limit = si->has_memory_limit ? si->memory_bytes : PLACER_CGROUP_UNLIMITED,
                                      .cpu_weight = placer_weight_effective(si->cpu_weight) };
  struct placer_group_values want_role = { .cpu_weight = planned_role_weight, .cpu_quota = si->cpu_quota };
  json_t *planned = json_object();
  json_object_set_new(planned, "cpus", json_string(si->cpus));
  json_object_set_new(planned, "mems", json_string(si->mems));
  json_object_set_new(planned, "memory_bytes", limit_json(want.memory_limit));
  json_object_set_new(planned, "cpu_weight", json_integer(want.cpu_weight));
  json_object_set_new(planned, "role_cpu_weight", json_integer(planned_role_weight));
  json_object_set_new(planned, "pin_vcpus", json_boolean(si->pin_vcpus));
  json_object_set_new(inst, "planned", planned);

  json_t *actual = json_object();
  bool exists = placer_cgroup_exists(cg, si->group);
  json_object_set_new(actual, "exists", json_boolean(exists));
  cleanup_free char *role_group = NULL;
  struct placer_error *e = NULL;
  if (!exists) {
    drift(inst, "group %s is missing", si->group);
  } else if (placer_role_group(state->prefix, si->role, &role_group, &e) < 0) {
    drift(inst, "role %s: %s", si->role, e->msg);
    placer_error_free(e);
  } else {
    check_values(cg, si->group, false, &want, inst, planned, actual);
    check_values(cg, role_group, true, &want_role, inst, planned, actual);
  }
  json_object_set_new(inst, "actual", actual);

  /* Which processes to look at: those bound and their descendants, those
   * in the group, and unless the processes were given with --pid, those
   * the matcher finds now (a restarted daemon).  A process bound to
   * another instance, or below one, is that instance's. */
  struct pids all = { NULL, NULL, 0 };
  for (size_t i = 0; i < si->n_procs; i++)
    if (!placer_proc_is_same(si->procs[i].pid, si->procs[i].start_time))
      note(inst, "pid %d, bound by apply, has exited", (int)si->procs[i].pid);
  for (size_t i = 0; trees && i < trees[self].n; i++)
    pids_add_below(&all, trees[self].v[i], trees[self].root[i]);
  if (exists)
    group_pids(cg, si->group, &all);
  cleanup_free pid_t *matched = NULL;
  size_t n_matched = 0;
  if (si->match.kind != PLACER_MATCH_NONE && !si->by_pid) {
    cleanup_free char *why = NULL;
    if (placer_procmatch_find(si->kind, &si->match, &matched, &n_matched, &why, &e) < 0) {
      note(inst, "cannot look for %s: %s", desc ? desc : "?", e->msg);
      placer_error_clear(&e);
    }
  }
  for (size_t i = 0; i < n_matched; i++) {
    bool elsewhere = false;
    for (size_t j = 0; trees && j < state->n_instances; j++)
      elsewhere |= j != self && pids_has(&trees[j], matched[i]);
    if (!elsewhere)
      pids_add(&all, matched[i]);
  }

  hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
  if (cpus)
    placer_cpulist_parse(si->cpus, cpus);
  json_t *procs = json_array();
  size_t in_group = 0;
  for (size_t i = 0; i < all.n; i++) {
    pid_t pid = all.v[i];
    const struct placer_state_process *b = bound_entry(si, pid);
    bool bound = b && placer_proc_is_same(pid, b->start_time);
    bool is_matched = false;
    for (size_t k = 0; k < n_matched; k++)
      is_matched |= matched[k] == pid;
    if (check_process(cg, si, cpus, pid, bound, bound ? 0 : all.root[i], is_matched, inst, procs))
      in_group++;
  }
  hwloc_bitmap_free(cpus);
  json_object_set_new(inst, "memory_locality", memory_locality(host, si, &all, inst));
  pids_free(&all);
  json_object_set_new(inst, "processes", procs);
  if (si->n_procs > 0 && in_group == 0)
    drift(inst, "no process runs in %s any more (bound at apply: %zu)", si->group, si->n_procs);
  else if (si->n_procs == 0 && in_group == 0)
    note(inst, "no process bound (none matched at apply)");
  json_object_set_new(inst, "ok", json_boolean(json_array_size(json_object_get(inst, "drift")) == 0));
  return inst;
}

int cgroupfs_status(const char *state_dir, json_t **out, bool *drift_found, struct placer_error **err) {
  if (state_dir == NULL)
    state_dir = placer_state_default_dir();
  struct placer_state *state = NULL;
  bool busy = false;
  if (placer_state_open(state_dir, PLACER_STATE_LOCK_SHARED, &state, &busy, err) < 0)
    return -1;
  json_t *doc =
      apply_status_doc_new("cgroupfs", state_dir, state->n_instances > 0, state->profile_name, state->profile_path);
  if (doc == NULL) {
    placer_state_free(state);
    return placer_error_oom(err, NULL);
  }
  json_object_set_new(doc, "topology", placer_json_str_or_null(state->topology_source));
  json_object_set_new(doc, "applied_at", placer_json_str_or_null(state->applied_at));
  json_object_set_new(doc, "cgroup_mode", placer_json_str_or_null(state->cgroup_mode));
  json_object_set_new(doc, "cgroup_root", placer_json_str_or_null(state->cgroup_root));
  json_object_set_new(doc, "prefix", placer_json_str_or_null(state->prefix));
  json_object_set_new(doc, "busy", json_boolean(busy));
  json_object_set_new(doc, "interrupted", json_boolean(state->pending_txn != 0 && !busy));
  json_t *problems = json_array();
  bool any = false;
  if (state->pending_txn && !busy) {
    json_array_append_new(problems, json_string("an apply was interrupted part-way (its changes are still in force): "
                                                "run 'placer reset', or apply again"));
    any = true;
  }
  if (state->n_instances == 0 && state->n_journal > 0 && !state->pending_txn) {
    json_array_append_new(problems,
                          json_string("changes from a failed rollback are still in force: run 'placer reset'"));
    any = true;
  }
  struct placer_numa_host host;
  placer_numa_host_read(&host);
  json_t *numa = json_object();
  json_object_set_new(numa, "available", json_boolean(host.available));
  json_object_set_new(numa, "nodes", json_integer(host.n_nodes));
  json_t *sizes = json_array();
  for (int n = 0; host.node_bytes && n < host.n_nodes; n++)
    json_array_append_new(sizes, json_integer((json_int_t)host.node_bytes[n]));
  json_object_set_new(numa, "node_bytes", sizes);
  json_object_set_new(doc, "numa", numa);
  json_t *insts = json_array();
  if (state->n_instances > 0) {
    struct placer_cgroup *cg = NULL;
    if (apply_open_cgroup(state, NULL, &cg, err) < 0) {
      json_decref(insts);
      json_decref(problems);
      json_decref(doc);
      placer_state_free(state);
      placer_numa_host_clear(&host);
      return -1;
    }
    struct pids *trees = instance_trees(state);
    for (size_t i = 0; i < state->n_instances; i++) {
      const struct placer_state_instance *si = &state->instances[i];
      json_t *inst = check_instance(cg, state, trees, i, role_weight(state, si->role), &host);
      if (!json_is_true(json_object_get(inst, "ok")))
        any = true;
      json_array_append_new(insts, inst);
    }
    instance_trees_free(trees, state->n_instances);
    placer_cgroup_close(cg);
  }
  json_object_set_new(doc, "instances", insts);
  json_object_set_new(doc, "problems", problems);
  json_object_set_new(doc, "drift", json_boolean(any));
  placer_state_free(state);
  placer_numa_host_clear(&host);
  *out = doc;
  *drift_found = any;
  return 0;
}

/* ------------------------------------------------------------------ text */

static const char *jstr(json_t *obj, const char *key) {
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? s : "";
}

static void print_limit(FILE *out, json_t *v) {
  char buf[32];
  if (json_is_integer(v)) {
    placer_format_bytes((uint64_t)json_integer_value(v), buf, sizeof(buf));
    fprintf(out, "%s", buf);
  } else {
    fprintf(out, "none");
  }
}

int cgroupfs_status_print_text(json_t *doc, FILE *out) {
  const char *dir = jstr(doc, "state_dir");
  if (json_is_true(json_object_get(doc, "busy")))
    fprintf(out, "note: an apply or reset is running now; what follows may be mid-change\n");
  json_t *problem;
  size_t i;
  json_array_foreach(json_object_get(doc, "problems"), i, problem) {
    fputs("DRIFT: ", out);
    placer_text_put(out, json_string_value(problem));
    fputc('\n', out);
  }
  if (!json_is_true(json_object_get(doc, "applied"))) {
    if (json_array_size(json_object_get(doc, "problems")))
      fprintf(out, "no completed apply recorded in %s\n", dir);
    else if (json_array_size(json_object_get(doc, "irqs")))
      fprintf(out, "no groups applied (state %s): only IRQs\n", dir); /* an --irqs-only apply */
    else
      fprintf(out, "nothing applied (no placer state in %s)\n", dir);
    return 0;
  }
  fprintf(out, "profile %s applied %s (cgroup %s, groups under %s/, state %s)\n", jstr(doc, "profile"),
          jstr(doc, "applied_at"), jstr(doc, "cgroup_mode"), jstr(doc, "prefix"), dir);
  json_t *numa = json_object_get(doc, "numa");
  long long n_nodes = (long long)json_integer_value(json_object_get(numa, "nodes"));
  if (!json_is_true(json_object_get(numa, "available")))
    fprintf(out, "local mem: unknown (the kernel has no NUMA support)\n");
  else if (n_nodes == 1)
    fprintf(out, "local mem: share of resident memory on the planned nodes (1 NUMA node here: always 100%%)\n");
  else
    fprintf(out, "local mem: share of resident memory on the planned nodes (other nodes in parentheses)\n");
  json_t *inst;
  size_t n_drift = 0, n = 0;
  json_array_foreach(json_object_get(doc, "instances"), i, inst) {
    n++;
    bool ok = json_is_true(json_object_get(inst, "ok"));
    if (!ok)
      n_drift++;
    json_t *planned = json_object_get(inst, "planned");
    json_t *actual = json_object_get(inst, "actual");
    fprintf(out, "%-10s %-5s %s  cpus %s", jstr(inst, "name"), ok ? "ok" : "DRIFT", jstr(inst, "group"),
            jstr(planned, "cpus"));
    if (json_object_get(actual, "cpus") && !placer_cpulist_equal(jstr(actual, "cpus"), jstr(planned, "cpus")))
      fprintf(out, " (actual %s)", jstr(actual, "cpus"));
    fprintf(out, "  mems %s", jstr(planned, "mems"));
    if (json_object_get(actual, "mems") && !placer_cpulist_equal(jstr(actual, "mems"), jstr(planned, "mems")))
      fprintf(out, " (actual %s)", jstr(actual, "mems"));
    fprintf(out, "  mem ");
    print_limit(out, json_object_get(planned, "memory_bytes"));
    json_t *loc = json_object_get(inst, "memory_locality");
    json_t *procs = json_object_get(inst, "processes");
    fprintf(out, "  local mem %s", json_is_object(loc) ? jstr(loc, "shown") : json_array_size(procs) ? "?" : "-");
    json_t *p;
    size_t k;
    json_array_foreach(procs, k, p) {
      long long n_threads = (long long)json_integer_value(json_object_get(p, "n_threads"));
      fprintf(out, "%s pid %lld ", k ? "," : " ", (long long)json_integer_value(json_object_get(p, "pid")));
      placer_text_put(out, jstr(p, "comm")); /* any 15 bytes */
      fprintf(out, " (%lld thread%s%s)", n_threads, n_threads == 1 ? "" : "s",
              json_is_true(json_object_get(p, "in_group")) ? "" : ", outside its group");
    }
    if (json_array_size(procs) == 0)
      fprintf(out, "  no process");
    fputc('\n', out);
    apply_print_instance_lines(inst, out);
  }
  size_t n_problems = json_array_size(json_object_get(doc, "problems"));
  fprintf(out, "%zu instance%s, %zu with drift%s\n", n, n == 1 ? "" : "s", n_drift,
          n_problems ? ", and the state reports problems (above)" : "");
  return ferror(out) ? -1 : 0;
}
