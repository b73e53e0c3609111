/* What the systemd backend records of a unit before it changes it (apply's
 * and the watcher's) and how a record is undone (reset, a rollback), and
 * placer watch's way in to it (apply.h): the unit
 * of a process that starts after apply placed as apply places it, and the
 * placed units' properties kept to the plan every interval.  No process is
 * moved: a unit's properties place every process systemd starts in it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-systemd-internal.h"
#include "lib/cpulist.h"
#include "proc.h"
#include "procmatch.h"

unsigned sd_unit_settings(const struct placer_placed *pd) {
  return pd->values.planned & PLACER_GROUP_SETTINGS;
}

int sd_record_model(const struct placer_placed *pd, struct placer_state_unit *r, struct placer_error **err) {
  const struct placer_instance *inst = pd->inst;
  const struct placer_group_values *v = &pd->values;
  r->name = strdup(inst->name);
  r->role = strdup(inst->role);
  r->kind = inst->kind;
  r->match = placer_match_describe(inst->kind, &inst->match);
  if ((v->planned & PLACER_SETTING_BIT(PLACER_SETTING_CPUS)) &&
      ((r->cpus = strdup(v->cpus)) == NULL || (r->mems = strdup(v->mems)) == NULL))
    return placer_error_oom(err, NULL);
  r->has_memory_limit = v->planned & PLACER_SETTING_BIT(PLACER_SETTING_MEMORY_LIMIT);
  r->memory_bytes = r->has_memory_limit ? v->memory_limit : 0;
  r->cpu_weight = (v->planned & PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT)) ? v->cpu_weight : 0;
  r->pin_vcpus = inst->pin_vcpus;
  if (pd->qmp_socket && (r->qmp_socket = strdup(pd->qmp_socket)) == NULL)
    return placer_error_oom(err, NULL);
  if (r->name == NULL || r->role == NULL)
    return placer_error_oom(err, NULL);
  return 0;
}

/* The plan's cpus and nodes are on this host's cgroup2 root. */
static int check_fit(const struct sd_ctx *c, const struct placer_state_unit *r, struct placer_error **err) {
  cleanup_free char *root_cpus = sd_cgroup_read(c, "", "cpuset.cpus.effective");
  cleanup_free char *root_mems = sd_cgroup_read(c, "", "cpuset.mems.effective");
  struct {
    const char *what, *want, *have;
  } sets[] = { { "cpus", r->cpus, root_cpus }, { "mems", r->mems, root_mems } };
  for (size_t i = 0; i < 2; i++) {
    if (sets[i].want == NULL || sets[i].have == NULL)
      continue;
    hwloc_bitmap_t w = hwloc_bitmap_alloc(), h = hwloc_bitmap_alloc();
    bool bad = w == NULL || h == NULL || placer_cpulist_parse(sets[i].want, w) < 0 ||
               placer_cpulist_parse(sets[i].have, h) < 0 || !hwloc_bitmap_isincluded(w, h);
    hwloc_bitmap_free(w);
    hwloc_bitmap_free(h);
    if (bad)
      return placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL,
                              "%s: planned %s %s, but this host's cgroup2 root has %s; was the plan made for another "
                              "machine (--topology)?",
                              r->name, sets[i].what, sets[i].want, sets[i].have);
  }
  return 0;
}

/* Does what `systemctl show` says (SHOW) differ from the plan? */
static int shown_differs(const struct placer_placed *pd, const char *show, bool *differs, struct placer_error **err) {
  struct placer_group_values now;
  if (sd_show_values(show, &now, err) < 0)
    return -1;
  *differs = false;
  for (enum placer_setting s = 0; s < PLACER_SETTING_N; s++)
    if ((sd_unit_settings(pd) & PLACER_SETTING_BIT(s)) && !placer_group_value_equal(s, &now, &pd->values))
      *differs = true;
  placer_group_values_clear(&now);
  return 0;
}

int sd_record_unit(const struct sd_ctx *c, const struct placer_placed *pd, const struct placer_state_unit *old,
                   struct placer_state_unit *r, bool *needs_set, struct placer_error **err) {
  const char *name = pd->inst->name;
  cleanup_free char *show = NULL;
  if (sd_show(c, r->unit, &show, err) < 0)
    return placer_error_prefix(err, "%s", name);
  cleanup_free char *load = placer_systemd_show_value(show, "LoadState");
  cleanup_free char *cg = placer_systemd_show_value(show, "ControlGroup");
  if (load == NULL || strcmp(load, "loaded") != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT, "%s: unit %s is %s", name, r->unit,
                            load ? load : "unknown to systemd");
  if (cg && *cg && strcmp(cg, r->cgroup) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: systemd says %s is in %s, /proc says %s", name,
                            r->unit, cg, r->cgroup);
  if (shown_differs(pd, show, needs_set, err) < 0)
    return placer_error_prefix(err, "%s: %s", name, r->unit);
  for (int p = 0; p < SD_N_PROPS; p++) {
    cleanup_free char *shown = placer_systemd_show_value(show, placer_state_unit_props[p]);
    if (old) { /* the first record wins: what the unit had before placer, never a placed value */
      if (old->previous[p] && (r->previous[p] = strdup(old->previous[p])) == NULL)
        return placer_error_oom(err, NULL);
      r->created[p] = old->created[p];
    } else {
      r->previous[p] = TAKE_PTR(shown);
      cleanup_free char *file = sd_control_file(c, r->unit, (enum sd_prop)p);
      r->created[p] = file && access(file, F_OK) != 0;
    }
  }
  return check_fit(c, r, err);
}

int sd_record_procs(const struct sd_ctx *c, struct placer_state_unit *r, struct placer_error **err) {
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (sd_cgroup_pids(c, r->cgroup, &pids, &n, err) < 0)
    return -1;
  free(r->procs);
  r->procs = calloc(n ? n : 1, sizeof(*r->procs));
  if (r->procs == NULL)
    return placer_error_oom(err, NULL);
  r->n_procs = 0;
  for (size_t i = 0; i < n; i++) {
    struct placer_error *gone = NULL;
    uint64_t start;
    if (placer_proc_start_time(pids[i], &start, &gone) < 0) {
      placer_error_clear(&gone);
      continue;
    }
    r->procs[r->n_procs++] = (struct placer_state_process){ pids[i], start };
  }
  return 0;
}

int sd_undo_instance(const struct sd_ctx *c, const struct placer_state_unit *si, bool *reload,
                     struct placer_string_list *notes, struct sd_undone *done, struct placer_error **err) {
  struct sd_undone did = { false, false };
  int ret = 0;
  if (si->dropin) {
    if (unlink(si->dropin) == 0)
      did.dropin_removed = true;
    else if (errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "%s: remove %s", si->name, si->dropin);
    placer_string_list_addf(notes, "%s: removed %s", si->name, si->dropin);
    if (si->dropin_dir_created) {
      char *dir = strdup(si->dropin);
      char *slash = dir ? strrchr(dir, '/') : NULL;
      if (slash) {
        *slash = '\0';
        rmdir(dir); /* only when empty: an admin's drop-in stays */
      }
      free(dir);
    }
    *reload = true;
  }
  cleanup_free char *show = NULL;
  struct placer_error *e = NULL;
  cleanup_free char *load = NULL;
  if (sd_show(c, si->unit, &show, &e) == 0)
    load = placer_systemd_show_value(show, "LoadState");
  placer_error_free(e);
  struct placer_systemd_props props = sd_instance_props(si);
  if (load && strcmp(load, "loaded") == 0) {
    char **argv = placer_systemd_restore_argv(c->systemctl, si->unit, &props, si->previous[SD_ALLOWED_CPUS],
                                              si->previous[SD_ALLOWED_MEMORY_NODES], si->previous[SD_MEMORY_MAX],
                                              si->previous[SD_CPU_WEIGHT]);
    if (argv == NULL)
      return placer_error_oom(err, NULL);
    ret = sd_systemctl(c, argv, NULL, err);
    placer_systemd_argv_free(argv);
    if (ret < 0)
      return placer_error_prefix(err, "%s: set %s back", si->name, si->unit);
    did.unit_set_back = true;
    placer_string_list_addf(notes, "%s: %s properties set back", si->name, si->unit);
  } else {
    placer_string_list_addf(notes, "%s: unit %s is %s: only its drop-ins are removed", si->name, si->unit,
                            load ? load : "unknown");
  }
  for (int p = 0; p < SD_N_PROPS; p++) {
    bool sets = (p == SD_ALLOWED_CPUS && props.allowed_cpus) ||
                (p == SD_ALLOWED_MEMORY_NODES && props.allowed_memory_nodes) ||
                (p == SD_MEMORY_MAX && props.has_memory_max) || (p == SD_CPU_WEIGHT && props.cpu_weight);
    if (!si->created[p] || !sets)
      continue;
    cleanup_free char *file = sd_control_file(c, si->unit, (enum sd_prop)p);
    if (file && unlink(file) == 0)
      *reload = true;
    else if (file && errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "%s: remove %s", si->name, file);
  }
  if (done)
    *done = did;
  return 0;
}

/* ------------------------------------------------------------------ placer watch */

static struct placer_state_unit *record_of(struct placer_state *s, const char *instance) {
  for (size_t i = 0; i < s->n_units; i++)
    if (strcmp(s->units[i].name, instance) == 0)
      return &s->units[i];
  return NULL;
}

static void record_drop(struct placer_state *s, struct placer_state_unit *u) {
  size_t i = (size_t)(u - s->units);
  placer_state_unit_clear(u);
  memmove(&s->units[i], &s->units[i + 1], (s->n_units - i - 1) * sizeof(*s->units));
  s->n_units--;
}

/* The instance's earlier unit OLD, which no process of it runs in any more
 * (a transient unit stopped, the instance started again as another): set
 * back as recorded and forgotten, so that the new one can be recorded. */
static int let_go(const struct sd_ctx *c, struct placer_state *s, struct placer_state_unit *old, const char *unit,
                  struct placer_error **err) {
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *e = NULL;
  if (sd_cgroup_pids(c, old->cgroup, &pids, &n, &e) < 0)
    placer_error_clear(&e); /* the unit's group is gone: nothing runs there */
  if (n > 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s: its processes run in two units, %s (pid %d) and %s: systemd places whole units; make "
                            "the matcher pick one",
                            old->name, old->unit, (int)pids[0], unit);
  bool reload = false;
  struct placer_string_list notes = { NULL, 0, 0 };
  int rc = sd_undo_instance(c, old, &reload, &notes, NULL, err);
  placer_string_list_free(&notes);
  if (rc == 0 && reload)
    rc = sd_daemon_reload(c, err);
  if (rc < 0)
    return placer_error_prefix(err, "%s: set its earlier unit %s back", old->name, old->unit);
  record_drop(s, old);
  return placer_state_save(s, err);
}

int placer_apply_systemd_bind_pid(struct placer_state *state, struct placer_placement *pl, struct placer_placed *p,
                                  pid_t pid, char **unit_cgroup, bool *placed, bool *gone, struct placer_error **err) {
  *unit_cgroup = NULL;
  *placed = *gone = false;
  struct sd_ctx c;
  sd_ctx_init(&c, NULL);
  const char *name = p->inst->name;
  uint64_t start_time = 0;
  struct placer_error *exited = NULL;
  if (placer_proc_start_time(pid, &start_time, &exited) < 0) {
    placer_error_free(exited);
    *gone = true;
    return 0;
  }
  /* the model's checks (PID 1, placer itself, a kernel thread, another instance's) */
  cleanup_free char *path = NULL, *unit = NULL, *ucg = NULL;
  if (placer_placement_bind_pid(pl, p, pid, err) < 0 || sd_pid_cgroup(pid, &path, err) < 0) {
    if (placer_proc_is_same(pid, start_time))
      return -1;
    placer_error_clear(err);
    *gone = true;
    return 0;
  }
  if (placer_systemd_unit_from_cgroup(path, &unit, &ucg, err) < 0)
    return placer_error_prefix(err,
                               "pid %d cannot be placed through systemd (run it as a unit, or use --backend "
                               "cgroupfs)",
                               (int)pid);
  for (size_t i = 0; i < state->n_units; i++)
    if (strcmp(state->units[i].unit, unit) == 0 && strcmp(state->units[i].name, name) != 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "%s and %s both run in %s (pid %d): systemd places whole units; make the matchers "
                              "unambiguous",
                              state->units[i].name, name, unit, (int)pid);
  struct placer_state_unit *old = record_of(state, name);
  if (old && strcmp(old->unit, unit) == 0) {
    *unit_cgroup = TAKE_PTR(ucg); /* placed already: a new process of the unit has its properties */
    return 0;
  }
  if (old && let_go(&c, state, old, unit, err) < 0)
    return -1;

  /* Recorded (what `systemctl show` says now) before the first change, as apply records it. */
  struct placer_state_unit rec = { 0 };
  bool needs_set = false;
  rec.unit = TAKE_PTR(unit);
  rec.cgroup = TAKE_PTR(ucg);
  if (sd_record_model(p, &rec, err) < 0 || sd_record_unit(&c, p, NULL, &rec, &needs_set, err) < 0) {
    placer_state_unit_clear(&rec);
    return -1;
  }
  struct placer_state_unit *grown = realloc(state->units, (state->n_units + 1) * sizeof(*grown));
  if (grown == NULL) {
    placer_state_unit_clear(&rec);
    return placer_error_oom(err, NULL);
  }
  state->units = grown;
  struct placer_state_unit *r = &state->units[state->n_units++];
  *r = rec;
  if (placer_state_save(state, err) < 0)
    return placer_error_prefix(err, "%s: record %s", name, r->unit);
  struct placer_writer w = { &sd_writer_ops, &c };
  if ((needs_set && placer_placed_write_values(&w, p, r->unit, sd_unit_settings(p), NULL, err) < 0) ||
      sd_record_procs(&c, r, err) < 0 || placer_state_save(state, err) < 0) {
    /* taken back: the unit as it was, and its record gone */
    bool reload = false;
    struct placer_string_list notes = { NULL, 0, 0 };
    struct placer_error *undo = NULL;
    if (sd_undo_instance(&c, r, &reload, &notes, NULL, &undo) == 0 && (!reload || sd_daemon_reload(&c, &undo) == 0)) {
      record_drop(state, r);
      placer_state_save(state, &undo);
    }
    placer_string_list_free(&notes);
    placer_error_free(undo);
    return placer_error_prefix(err, "%s: place the unit of pid %d", name, (int)pid);
  }
  if ((*unit_cgroup = strdup(r->cgroup)) == NULL)
    return placer_error_oom(err, NULL);
  *placed = true;
  return 0;
}

/* Do the unit's group files (what systemd made of its properties) hold
 * P's planned values?  Read every interval for every unit, where a
 * systemctl show each would keep PID 1 busy; a file missing or unreadable
 * is a difference: then the properties themselves are read. */
static bool group_files_match(const struct sd_ctx *c, const char *cgroup, const struct placer_placed *p) {
  static const char *const files[PLACER_SETTING_N] = {
    [PLACER_SETTING_CPUS] = "cpuset.cpus",
    [PLACER_SETTING_MEMS] = "cpuset.mems",
    [PLACER_SETTING_MEMORY_LIMIT] = "memory.max",
    [PLACER_SETTING_CPU_WEIGHT] = "cpu.weight",
  };
  for (enum placer_setting s = 0; s < PLACER_SETTING_N; s++) {
    if (!(sd_unit_settings(p) & PLACER_SETTING_BIT(s)))
      continue;
    cleanup_free char *text = files[s] ? sd_cgroup_read(c, cgroup, files[s]) : NULL;
    if (text == NULL)
      return false;
    struct placer_group_values now = { .cpus = text, .mems = text };
    if (s == PLACER_SETTING_MEMORY_LIMIT)
      now.memory_limit = strcmp(text, "max") == 0 ? PLACER_CGROUP_UNLIMITED : strtoull(text, NULL, 10);
    if (s == PLACER_SETTING_CPU_WEIGHT)
      now.cpu_weight = (unsigned)strtoul(text, NULL, 10);
    if (!placer_group_value_equal(s, &now, &p->values))
      return false;
  }
  return true;
}

int placer_apply_systemd_keep(struct placer_state *state, const struct placer_placement *pl,
                              const struct placer_write_hooks *hooks, struct placer_error **err) {
  struct sd_ctx c;
  sd_ctx_init(&c, NULL);
  struct placer_writer w = { &sd_writer_ops, &c };
  int rc = 0;
  for (size_t i = 0; i < state->n_units; i++) {
    const struct placer_state_unit *u = &state->units[i];
    const struct placer_placed *p = placer_placement_find(pl, u->name);
    cleanup_free char *events = p ? sd_cgroup_read(&c, u->cgroup, "cgroup.events") : NULL;
    /* A unit stopped (or gone) has no group, or an empty one: nothing runs
     * there to keep; started again, it has its runtime properties.  (Read
     * from its group, not with one more systemctl per unit and interval: the
     * writer's read is one already.) */
    if (events == NULL || strstr(events, "populated 1") == NULL || group_files_match(&c, u->cgroup, p))
      continue;
    struct placer_error *e = NULL;
    if (placer_placed_write_values(&w, p, u->unit, sd_unit_settings(p), hooks, &e) < 0) {
      if (rc == 0) {
        rc = -1;
        placer_error_prefix(&e, "%s: %s", u->name, u->unit);
        *err = TAKE_PTR(e);
      }
      placer_error_free(e);
    }
  }
  return rc;
}
