/* placer apply and reset through systemd: each instance's settings go on
 * the unit that runs its daemon (found from the process's cgroup), with
 * `systemctl set-property --runtime`, and with --persist also in a drop-in
 * /etc/systemd/system/UNIT.d/50-placer.conf; nothing is written inside
 * systemd's cgroup tree and no process leaves its unit.  vCPU threads are
 * pinned with sched_setaffinity.  State: STATE_DIR/systemd.json, written
 * before every change so that reset can always take it back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-systemd-internal.h"
#include "lib/cpulist.h"
#include "lib/fsfile.h"
#include "lib/pid-list.h"
#include "lib/subprocess.h"
#include "lib/substitute.h"
#include "proc.h"
#include "procmatch.h"
#include "state.h"

#define VERIFY_ROUNDS 5

struct sd_target {
  const struct placer_placed *pd; /* the model: its values, the processes it binds */
  const struct placer_instance *inst;
  struct placer_state_unit rec; /* what the state will hold */
  bool needs_set;               /* a property differs from the plan */
  bool known;                   /* already in the state from an earlier apply */
  bool kept;                    /* no process now: the earlier record is kept, nothing done */
  char *note;
  unsigned changes;
  size_t n_vcpus_pinned;
  const char *vcpu_source;
};

/* What only this backend takes (apply_setting): --persist, --restart
 * rolling, --health-cmd CMD, --health-timeout S. */
static const struct placer_apply_setting_spec settings[] = {
  { "persist", false }, { "restart", true }, { "health-cmd", true }, { "health-timeout", true }, { NULL, false },
};
struct sd_settings {
  bool persist;           /* drop-ins in /etc/systemd/system/UNIT.d/ too (survive restart and reboot) */
  bool restart_rolling;   /* restart the units one at a time, healthy in between, then verify */
  const char *health_cmd; /* sh -c CMD: exit 0 = healthy (before and after each restart); NULL: none */
  unsigned health_timeout_s;
};

static int read_settings(const struct placer_apply_options *opt, struct sd_settings *out, struct placer_error **err) {
  const char *restart = apply_setting(opt, "restart"), *timeout = apply_setting(opt, "health-timeout");
  *out = (struct sd_settings){ .persist = apply_setting(opt, "persist") != NULL,
                               .restart_rolling = restart != NULL,
                               .health_cmd = apply_setting(opt, "health-cmd"),
                               .health_timeout_s = 300 };
  if (restart && strcmp(restart, "rolling") != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--restart wants 'rolling', got '%s'", restart);
  if (timeout) {
    char *end = NULL;
    unsigned long s = strtoul(timeout, &end, 10);
    if (end == timeout || *end || s == 0 || s > 86400)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--health-timeout wants seconds (1..86400), got '%s'",
                              timeout);
    out->health_timeout_s = (unsigned)s;
  }
  if ((out->health_cmd || timeout) && !out->restart_rolling)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "--health-cmd and --health-timeout go with --restart rolling");
  return 0;
}

struct sd_applier {
  struct sd_ctx ctx;
  struct sd_settings set;
  const struct placer_plan *plan;
  const struct placer_apply_options *opt;
  struct placer_placement *placement; /* the model of every instance; t[i].pd is its v[i] */
  struct placer_state *state;         /* systemd.json, holding the state directory's lock */
  struct sd_target *t;
  size_t n;
  struct placer_string_list actions, notes;
  unsigned steps;
};

static void applier_clear(struct sd_applier *a) {
  for (size_t i = 0; i < a->n; i++) {
    placer_state_unit_clear(&a->t[i].rec);
    free(a->t[i].note);
  }
  free(a->t);
  placer_placement_free(a->placement);
  if (a->state != a->opt->state)
    placer_state_free(a->state); /* the caller's stays open, and locked */
  placer_string_list_free(&a->actions);
  placer_string_list_free(&a->notes);
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static const struct placer_state_unit *state_find(const struct placer_state *s, const char *name) {
  for (size_t i = 0; i < s->n_units; i++)
    if (strcmp(s->units[i].name, name) == 0)
      return &s->units[i];
  return NULL;
}

/* ------------------------------------------------------------------ find the units */

/* The one unit that holds every process T binds (its descendants are the
 * unit's too: systemd places whole units). */
static int find_unit(struct sd_applier *a, struct sd_target *t, struct placer_error **err) {
  (void)a;
  for (size_t i = 0; i < t->pd->n_procs; i++) {
    const struct placer_placed_proc *pp = &t->pd->procs[i];
    if (pp->root_pid != 0)
      continue;
    cleanup_free char *path = NULL, *unit = NULL, *ucg = NULL;
    if (sd_pid_cgroup(pp->pid, &path, err) < 0 || placer_systemd_unit_from_cgroup(path, &unit, &ucg, err) < 0)
      return placer_error_prefix(err,
                                 "%s: pid %d (%s) cannot be placed through systemd (run it as a unit, or use "
                                 "--backend cgroupfs)",
                                 t->inst->name, (int)pp->pid, pp->comm);
    if (t->rec.unit == NULL) {
      t->rec.unit = TAKE_PTR(unit);
      t->rec.cgroup = TAKE_PTR(ucg);
    } else if (strcmp(t->rec.unit, unit) != 0) {
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "%s: its processes run in two units, %s and %s (pid %d): systemd places whole units; "
                              "make the matcher (or --pid) pick one",
                              t->inst->name, t->rec.unit, unit, (int)pp->pid);
    }
  }
  return 0;
}

/* What the unit gets (the model's planned values) and what it had, recorded
 * (sd_record_unit: an earlier record's originals win); a target with no
 * process keeps the record of an earlier apply so that reset can undo it. */
static int fill_record(struct sd_applier *a, struct sd_target *t, struct placer_error **err) {
  const struct placer_instance *inst = t->inst;
  struct placer_state_unit *r = &t->rec;
  if (sd_record_model(t->pd, r, err) < 0)
    return -1;
  const struct placer_state_unit *old = state_find(a->state, inst->name);
  if (r->unit == NULL) {
    if (old) {
      /* applied before, no process now: keep the record so reset can undo it */
      placer_state_unit_clear(r);
      if (placer_state_unit_copy(r, old) < 0)
        return placer_error_oom(err, NULL);
      t->kept = t->known = true;
      placer_string_list_addf(&a->notes, "%s: no process now; %s keeps the placement applied earlier", inst->name,
                              r->unit);
    }
    return 0; /* no process: nothing to place */
  }

  if (old && strcmp(old->unit, r->unit) != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s: now runs in %s but was applied to %s; run 'placer reset' first", inst->name, r->unit,
                            old->unit);
  if (sd_record_unit(&a->ctx, t->pd, old, r, &t->needs_set, err) < 0)
    return -1;
  t->known = old != NULL;
  if (old && old->dropin) {
    r->dropin = strdup(old->dropin);
    r->dropin_dir_created = old->dropin_dir_created;
  }
  size_t ulen = strlen(r->unit);
  if (a->set.persist && !(ulen > 8 && strcmp(r->unit + ulen - 8, ".service") == 0))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "%s: --persist: %s is a %s, which systemd makes at run time: no drop-in can make its "
                            "placement outlive it (apply without --persist)",
                            inst->name, r->unit, strrchr(r->unit, '.') + 1);
  if (a->set.restart_rolling && !(ulen > 8 && strcmp(r->unit + ulen - 8, ".service") == 0))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: --restart: %s is not a service systemd can restart",
                            inst->name, r->unit);
  return 0;
}

static int build_targets(struct sd_applier *a, struct placer_error **err) {
  const struct placer_plan *plan = a->plan;
  if (plan->n_instances == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "the plan has no instances: nothing to apply");
  for (size_t i = 0; i < a->opt->n_pids; i++)
    if (placer_plan_find(plan, a->opt->pids[i].instance) == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: the plan has no instance '%s'",
                              a->opt->pids[i].instance, a->opt->pids[i].value, a->opt->pids[i].instance);
  /* the model, and the processes it binds: the same checks as the cgroupfs backend's */
  if (placer_placement_compute(plan, a->opt->prefix, a->opt->qmps, a->opt->n_qmps, &a->placement, err) < 0 ||
      placer_placement_bind(a->placement, a->opt->pids, a->opt->n_pids, a->opt->strict, err) < 0)
    return -1;
  if ((a->t = calloc(plan->n_instances, sizeof(*a->t))) == NULL)
    return placer_error_oom(err, NULL);
  a->n = plan->n_instances;
  for (size_t i = 0; i < a->n; i++) {
    struct sd_target *t = &a->t[i];
    t->pd = &a->placement->v[i];
    t->inst = t->pd->inst;
    if (t->pd->note && (t->note = strdup(t->pd->note)) == NULL)
      return placer_error_oom(err, NULL);
    if (find_unit(a, t, err) < 0 || fill_record(a, t, err) < 0)
      return -1;
    for (size_t j = 0; j < i; j++)
      if (t->rec.unit && a->t[j].rec.unit && strcmp(t->rec.unit, a->t[j].rec.unit) == 0)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                                "%s and %s both run in %s: systemd places whole units; make the matchers (or --pid) "
                                "unambiguous",
                                a->t[j].inst->name, t->inst->name, t->rec.unit);
  }
  for (size_t i = 0; i < a->state->n_units; i++)
    if (placer_plan_find(plan, a->state->units[i].name) == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "%s is applied but no longer in the plan of '%s'; run 'placer reset' first",
                              a->state->units[i].name, plan->profile_name ? plan->profile_name : "?");
  return 0;
}

/* ------------------------------------------------------------------ state */

/* The state holds every target with a unit, as it is now. */
static int save_state(struct sd_applier *a, struct placer_error **err) {
  struct placer_state *s = a->state;
  for (size_t i = 0; i < s->n_units; i++)
    placer_state_unit_clear(&s->units[i]);
  free(s->units);
  s->units = calloc(a->n + 1, sizeof(*s->units));
  s->n_units = 0;
  if (s->units == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < a->n; i++) {
    if (a->t[i].rec.unit == NULL)
      continue;
    if (placer_state_unit_copy(&s->units[s->n_units], &a->t[i].rec) < 0)
      return placer_error_oom(err, NULL);
    s->n_units++;
  }
  free(s->profile_name);
  free(s->profile_path);
  s->profile_name = a->plan->profile_name ? strdup(a->plan->profile_name) : NULL;
  s->profile_path = a->plan->profile_path ? strdup(a->plan->profile_path) : NULL;
  s->persist = s->persist || a->set.persist;
  return placer_state_save(s, err);
}

/* ------------------------------------------------------------------ changes */

static int write_dropin(struct sd_applier *a, struct sd_target *t, bool *reload, struct placer_error **err) {
  struct placer_state_unit *r = &t->rec;
  struct placer_systemd_props props = sd_instance_props(r);
  cleanup_free char *text = placer_systemd_dropin_text(r->unit, a->plan->profile_name, r->name, &props);
  cleanup_free char *dir = NULL, *path = NULL;
  if (text == NULL || asprintf(&dir, "%s/%s.d", a->ctx.etc_dir, r->unit) < 0 ||
      asprintf(&path, "%s/%s", dir, PLACER_SYSTEMD_DROPIN_NAME) < 0)
    return placer_error_oom(err, NULL);
  size_t len = strlen(text);
  if (len && text[len - 1] == '\n')
    text[len - 1] = '\0'; /* placer_file_replace adds it */
  cleanup_free char *now = NULL;
  FILE *f = fopen(path, "re");
  if (f) {
    char buf[4096];
    size_t got = fread(buf, 1, sizeof(buf) - 1, f);
    buf[got] = '\0';
    fclose(f);
    now = strdup(buf);
  }
  char want[4096];
  snprintf(want, sizeof(want), "%s\n", text);
  if (now && strcmp(now, want) == 0 && r->dropin)
    return 0;
  placer_string_list_addf(&a->actions, "%s: write %s", r->name, path);
  if (a->opt->dry_run) {
    a->steps++;
    t->changes++;
    return 0;
  }
  struct stat st;
  if (r->dropin == NULL) {
    r->dropin = strdup(path);
    r->dropin_dir_created = stat(dir, &st) != 0;
    if (r->dropin == NULL)
      return placer_error_oom(err, NULL);
    if (save_state(a, err) < 0) /* recorded before it exists */
      return -1;
  }
  if (placer_mkdir_p(dir, err) < 0 || placer_file_replace(dir, PLACER_SYSTEMD_DROPIN_NAME, text, err) < 0)
    return placer_error_prefix(err, "%s", r->name);
  *reload = true;
  a->steps++;
  t->changes++;
  return 0;
}

/* Before each property the writer sets: the command said; a dry run
 * only says it.  (What the unit had before is in its record already.) */
static int before_set(void *ctx, const struct placer_placed *p, enum placer_write_step step, const char *where,
                      enum placer_setting s, const struct placer_group_values *now,
                      const struct placer_group_values *want, struct placer_error **err) {
  (void)step, (void)now;
  struct sd_applier *a = ctx;
  char **argv = sd_setting_argv(&a->ctx, where, s, want);
  cleanup_free char *line = argv ? placer_argv_join(argv) : NULL;
  placer_systemd_argv_free(argv);
  if (line == NULL)
    return placer_error_oom(err, NULL);
  placer_string_list_addf(&a->actions, "%s: %s", p->inst->name, line);
  struct sd_target *t = &a->t[p - a->placement->v];
  if (a->opt->dry_run) {
    a->steps++;
    t->changes++;
  }
  return a->opt->dry_run ? 1 : 0;
}

static int after_set(void *ctx, const struct placer_placed *p, enum placer_write_step step, bool unmarked,
                     struct placer_error **err) {
  (void)step, (void)unmarked, (void)err;
  struct sd_applier *a = ctx;
  a->steps++;
  a->t[p - a->placement->v].changes++;
  return 0;
}

/* The model's values on the unit, through the backend's writer: each
 * property that differs set once. */
static int set_properties(struct sd_applier *a, struct sd_target *t, struct placer_error **err) {
  struct placer_writer w = { &sd_writer_ops, &a->ctx };
  struct placer_write_hooks hooks = { a, before_set, after_set };
  if (placer_placed_write_values(&w, t->pd, t->rec.unit, sd_unit_settings(t->pd), &hooks, err) < 0)
    return placer_error_prefix(err, "%s", t->rec.name);
  return 0;
}

struct problems {
  struct placer_string_list lines;
};

static void collect_problem(void *ctx, const char *msg) {
  placer_string_list_addf(&((struct problems *)ctx)->lines, "%s", msg);
}

/* The unit's group files and every thread, retried while threads settle. */
static int verify_target(struct sd_applier *a, struct sd_target *t, const char *when, struct placer_error **err) {
  for (int round = 0;; round++) {
    struct problems pr = { { NULL, 0, 0 } };
    size_t n = sd_check_unit(&a->ctx, &t->rec, collect_problem, &pr, NULL, NULL);
    if (n == 0) {
      placer_string_list_free(&pr.lines);
      return 0;
    }
    if (round + 1 == VERIFY_ROUNDS) {
      placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "%s: verify %s: %s%s", t->rec.name, when, pr.lines.items[0],
                       n > 1 ? " (and more)" : "");
      placer_string_list_free(&pr.lines);
      return -1;
    }
    placer_string_list_free(&pr.lines);
    sleep_ms(200);
  }
}

int sd_reset_result_add(struct placer_reset_result *res, const struct placer_state_unit *si,
                        const struct sd_undone *done) {
  static const char *const keys[] = { "units_restored", "dropins_removed", NULL };
  int ret = apply_reset_details(res, keys);
  if (ret == 0 && done->unit_set_back && apply_reset_detail(res, keys[0], json_string(si->unit)) < 0)
    ret = -1;
  if (ret == 0 && done->dropin_removed && si->dropin && apply_reset_detail(res, keys[1], json_string(si->dropin)) < 0)
    ret = -1;
  res->n_undone = apply_reset_detail_count(res, keys[0]) + apply_reset_detail_count(res, keys[1]);
  return ret;
}

/* Undo every instance the state holds, newest first; the state keeps what
 * failed.  RES (may be NULL) gets what was undone; *oom when it could not. */
static size_t undo_all(const struct sd_ctx *c, struct placer_state *s, struct placer_string_list *notes,
                       struct placer_string_list *failures, struct placer_reset_result *res, bool *oom) {
  bool reload = false;
  size_t failed = 0;
  for (size_t i = s->n_units; i-- > 0;) {
    struct placer_error *e = NULL;
    struct sd_undone done;
    if (sd_undo_instance(c, &s->units[i], &reload, notes, &done, &e) < 0) {
      placer_string_list_addf(failures, "%s", e->msg);
      placer_error_free(e);
      failed++;
      continue;
    }
    if (res && sd_reset_result_add(res, &s->units[i], &done) < 0)
      *oom = true;
    placer_state_unit_clear(&s->units[i]);
    memmove(&s->units[i], &s->units[i + 1], (s->n_units - i - 1) * sizeof(*s->units));
    s->n_units--;
    struct placer_error *save_err = NULL;
    if (placer_state_save(s, &save_err) < 0) {
      placer_string_list_addf(failures, "%s", save_err->msg);
      placer_error_free(save_err);
      failed++;
    }
  }
  if (reload) {
    struct placer_error *e = NULL;
    if (sd_daemon_reload(c, &e) < 0) {
      placer_string_list_addf(failures, "%s", e->msg);
      placer_error_free(e);
      failed++;
    }
  }
  return failed;
}

static int roll_back(struct sd_applier *a, struct placer_error **err) {
  struct placer_string_list notes = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  /* only what this apply added: instances known before keep their record */
  size_t failed = undo_all(&a->ctx, a->state, &notes, &failures, NULL, NULL);
  if (failed == 0)
    placer_error_prefix(err, "apply failed; the placement through systemd is taken back (every unit as before placer)");
  else
    placer_error_prefix(err, "apply failed and the rollback is incomplete (%s); run 'placer reset'", failures.items[0]);
  placer_string_list_free(&notes);
  placer_string_list_free(&failures);
  return -1;
}

/* ------------------------------------------------------------------ rolling restart */

static int wait_healthy(struct sd_applier *a, const char *when, struct placer_error **err) {
  if (a->set.health_cmd == NULL)
    return 0;
  unsigned limit_s = a->set.health_timeout_s;
  time_t end = time(NULL) + limit_s;
  char *argv[] = { "/bin/sh", "-c", (char *)a->set.health_cmd, NULL };
  for (;;) {
    cleanup_free char *out = NULL, *errout = NULL;
    int status = 0;
    if (placer_subprocess_capture(argv, NULL, limit_s * 1000u, &out, &errout, &status, err) < 0)
      return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      return 0;
    if (time(NULL) >= end)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT, "%s: not healthy after %u s ('%s' exits %d)", when,
                              limit_s, a->set.health_cmd, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    sleep_ms(1000);
  }
}

static int wait_active(struct sd_applier *a, const char *unit, struct placer_error **err) {
  unsigned limit_s = a->set.health_timeout_s;
  time_t end = time(NULL) + limit_s;
  for (;;) {
    cleanup_free char *show = NULL;
    if (sd_show(&a->ctx, unit, &show, err) < 0)
      return -1;
    cleanup_free char *state = placer_systemd_show_value(show, "ActiveState");
    if (state && strcmp(state, "active") == 0)
      return 0;
    if (state && strcmp(state, "failed") == 0)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EIO, "%s failed after the restart", unit);
    if (time(NULL) >= end)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT, "%s not active %u s after the restart (%s)", unit,
                              limit_s, state ? state : "?");
    sleep_ms(200);
  }
}

static int restart_rolling(struct sd_applier *a, struct placer_error **err) {
  for (size_t i = 0; i < a->n; i++) {
    struct sd_target *t = &a->t[i];
    if (t->rec.unit == NULL || t->kept)
      continue;
    char when[512];
    snprintf(when, sizeof(when), "before restarting %s", t->rec.unit);
    if (wait_healthy(a, when, err) < 0)
      return -1;
    char *argv[] = { (char *)a->ctx.systemctl, "restart", t->rec.unit, NULL };
    placer_string_list_addf(&a->actions, "%s: systemctl restart %s", t->rec.name, t->rec.unit);
    if (sd_systemctl(&a->ctx, argv, NULL, err) < 0 || wait_active(a, t->rec.unit, err) < 0)
      return placer_error_prefix(err, "%s: rolling restart", t->rec.name);
    snprintf(when, sizeof(when), "after restarting %s", t->rec.unit);
    if (wait_healthy(a, when, err) < 0)
      return -1;
    if (sd_pin_vcpus(&a->ctx, &t->rec, &t->n_vcpus_pinned, &t->vcpu_source, err) < 0 ||
        verify_target(a, t, "after the restart", err) < 0 || sd_record_procs(&a->ctx, &t->rec, err) < 0)
      return -1;
    placer_string_list_addf(&a->notes, "%s: %s restarted; the placement holds on every thread", t->rec.name,
                            t->rec.unit);
  }
  return save_state(a, err);
}

/* ------------------------------------------------------------------ report */

static int build_report(struct sd_applier *a, struct placer_apply_report **out, struct placer_error **err) {
  struct placer_apply_report *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return placer_error_oom(err, NULL);
  r->profile_name = a->plan->profile_name ? strdup(a->plan->profile_name) : NULL;
  r->cgroup_mode = "v2";
  snprintf(r->where, sizeof(r->where), "systemd units");
  r->placed_in = "unit";
  r->shows_actions = true; /* what was done is a handful of systemctl commands */
  r->state_dir = strdup(a->state->dir);
  r->dry_run = a->opt->dry_run;
  r->steps = a->steps;
  r->instances = calloc(a->n, sizeof(*r->instances));
  r->n_instances = a->n;
  bool oom = r->instances == NULL || r->state_dir == NULL;
  for (size_t i = 0; !oom && i < a->n; i++) {
    struct sd_target *t = &a->t[i];
    struct placer_apply_instance_report *ri = &r->instances[i];
    ri->name = strdup(t->inst->name);
    ri->group = t->rec.unit ? strdup(t->rec.unit) : NULL;
    ri->cpus = placer_cpulist_format(t->inst->cpus);
    ri->mems = placer_cpulist_format(t->inst->mems);
    ri->has_memory_limit = t->inst->has_memory_limit;
    ri->memory_bytes = t->inst->memory_bytes;
    ri->note = t->note ? strdup(t->note) : NULL;
    ri->changes = t->changes;
    ri->n_vcpus_pinned = t->n_vcpus_pinned;
    ri->vcpu_source = t->vcpu_source;
    cleanup_free pid_t *pids = NULL;
    size_t n = 0;
    struct placer_error *e = NULL;
    if (t->rec.cgroup && sd_cgroup_pids(&a->ctx, t->rec.cgroup, &pids, &n, &e) < 0) {
      placer_error_free(e);
      n = 0;
    }
    if (t->rec.cgroup == NULL) {
      pids = calloc(1, sizeof(*pids));
      n = 0;
    }
    ri->bound = calloc(n ? n : 1, sizeof(*ri->bound));
    oom |= ri->name == NULL || ri->cpus == NULL || ri->mems == NULL || ri->bound == NULL;
    for (size_t k = 0; ri->bound && k < n; k++) {
      cleanup_free pid_t *tids = NULL;
      size_t n_tids = 0;
      if (placer_task_list(pids[k], &tids, &n_tids, &e) < 0) {
        placer_error_free(e);
        e = NULL;
        continue;
      }
      ri->bound[ri->n_bound].pid = pids[k];
      ri->bound[ri->n_bound].comm = placer_proc_comm(pids[k]);
      ri->bound[ri->n_bound++].n_threads = n_tids;
    }
  }
  r->actions = placer_string_list_release(&a->actions, &r->n_actions);
  r->notes = placer_string_list_release(&a->notes, &r->n_notes);
  if (oom) {
    placer_apply_report_free(r);
    return placer_error_oom(err, NULL);
  }
  *out = r;
  return 0;
}

/* ------------------------------------------------------------------ apply */

/* systemd.json of DIR (with the state directory's lock, LOCK; HELD when
 * the caller holds it open and locked: placer watch), refused while the
 * directory holds the cgroupfs backend's placement. */
static int open_state(const char *dir, enum placer_state_lock lock, struct placer_state *held,
                      struct placer_state **out, struct placer_error **err) {
  struct placer_state *groups = NULL;
  if (held && held->kind != &placer_state_units)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "the systemd backend applies under systemd.json's state");
  *out = held;
  if ((held == NULL && placer_state_open_kind(dir, &placer_state_units, lock, out, NULL, err) < 0) ||
      placer_state_open(dir, PLACER_STATE_NO_LOCK, &groups, NULL, err) < 0)
    return -1;
  int rc = 0;
  if (!placer_state_is_empty(groups))
    rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                          "%s holds a placement of the cgroupfs backend (groups under %s/): run 'placer reset' "
                          "before applying through systemd",
                          dir, groups->prefix ? groups->prefix : "?");
  placer_state_free(groups);
  if (rc == 0 && (*out)->backend == NULL && ((*out)->backend = strdup(placer_apply_backend_systemd.name)) == NULL)
    rc = placer_error_oom(err, NULL); /* the record status and reset are dispatched on (apply-backend.c) */
  return rc;
}

static int systemd_apply(const struct placer_plan *plan, const struct placer_apply_options *opt,
                         struct placer_apply_report **report, struct placer_error **err) {
  struct sd_applier a = { .plan = plan, .opt = opt };
  sd_ctx_init(&a.ctx, opt);
  const char *dir = opt->state_dir ? opt->state_dir : placer_state_default_dir();
  int ret = -1;
  if (read_settings(opt, &a.set, err) < 0 ||
      open_state(dir, opt->dry_run ? PLACER_STATE_NO_LOCK : PLACER_STATE_LOCK_EXCLUSIVE, opt->state, &a.state, err) < 0)
    goto out;
  if (a.state->n_units > 0 && a.state->profile_name && plan->profile_name &&
      strcmp(a.state->profile_name, plan->profile_name)) {
    placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                     "profile '%s' is applied (state %s); run 'placer reset' before applying '%s'",
                     a.state->profile_name, dir, plan->profile_name);
    goto out;
  }
  if (a.state->n_units > 0 && a.state->persist && !a.set.persist)
    placer_string_list_addf(&a.notes,
                            "the drop-ins of an earlier 'apply --persist' stay in place; 'placer reset' removes them");
  if (build_targets(&a, err) < 0)
    goto out;
  /* after the processes were found and checked (the same checks as cgroupfs), before any change */
  if (access("/run/systemd/system", F_OK) != 0) {
    placer_error_set(err, PLACER_EXIT_INFEASIBLE, ENOENT,
                     "--backend systemd: PID 1 is not systemd here (no /run/systemd/system): there is no unit to "
                     "place through; use --backend cgroupfs");
    goto out;
  }

  /* Changes: drop-ins first (recorded before they are written), then the
   * properties, then the vCPU threads. */
  bool reload = false;
  if (!opt->dry_run && save_state(&a, err) < 0)
    goto out;
  for (size_t i = 0; a.set.persist && i < a.n; i++)
    if (a.t[i].rec.unit && !a.t[i].kept && write_dropin(&a, &a.t[i], &reload, err) < 0)
      goto fail;
  if (reload && !opt->dry_run && sd_daemon_reload(&a.ctx, err) < 0)
    goto fail;
  for (size_t i = 0; i < a.n; i++)
    if (a.t[i].rec.unit && a.t[i].needs_set && set_properties(&a, &a.t[i], err) < 0)
      goto fail;
  if (!opt->dry_run) {
    for (size_t i = 0; i < a.n; i++) {
      struct sd_target *t = &a.t[i];
      if (t->rec.unit == NULL || t->kept)
        continue;
      if (sd_pin_vcpus(&a.ctx, &t->rec, &t->n_vcpus_pinned, &t->vcpu_source, err) < 0 ||
          verify_target(&a, t, "after apply", err) < 0 || sd_record_procs(&a.ctx, &t->rec, err) < 0)
        goto fail;
    }
    if (a.steps > 0 || a.state->applied_at == NULL) {
      free(a.state->applied_at);
      a.state->applied_at = apply_now_rfc3339();
    }
    if (save_state(&a, err) < 0)
      goto fail;
    if (a.set.restart_rolling && restart_rolling(&a, err) < 0) {
      placer_error_prefix(err, "the placement is applied, but the rolling restart stopped");
      goto out;
    }
  }
  ret = build_report(&a, report, err);
  goto out;
fail:
  if (!opt->dry_run)
    roll_back(&a, err);
out:
  applier_clear(&a);
  return ret;
}

/* ------------------------------------------------------------------ reset */

static int systemd_reset_run(const char *state_dir, struct placer_reset_result *res, struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  *res = (struct placer_reset_result){ .backend = placer_apply_backend_systemd.name };
  static const char *const keys[] = { "units_restored", "dropins_removed", NULL };
  if ((res->state_dir = strdup(dir)) == NULL || apply_reset_details(res, keys) < 0) {
    placer_reset_result_clear(res);
    return placer_error_oom(err, NULL);
  }
  struct sd_ctx c;
  sd_ctx_init(&c, NULL);
  struct placer_state *s = NULL;
  struct placer_string_list out = { NULL, 0, 0 }, failures = { NULL, 0, 0 };
  int ret = -1;
  if (placer_state_open_kind(dir, &placer_state_units, PLACER_STATE_LOCK_EXCLUSIVE, &s, NULL, err) < 0)
    goto done;
  size_t before = s->n_units;
  if (before == 0) {
    /* a state file without instances: nothing to undo, and it goes too */
    placer_string_list_addf(&out, "nothing to reset (no placer state in %s)", dir);
    ret = placer_state_save(s, err);
    goto done;
  }
  res->changed = true;
  bool oom = false;
  size_t failed = undo_all(&c, s, &out, &failures, res, &oom);
  if (failed) {
    placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                     "reset incomplete: %zu of %zu units could not be set back (%s); they stay recorded in %s/%s: fix "
                     "the cause and run 'placer reset' again",
                     failed, before, failures.items[0], dir, SD_STATE_FILE);
    goto done;
  }
  if (oom) {
    placer_error_oom(err, NULL);
    goto done;
  }
  size_t n_units = apply_reset_detail_count(res, keys[0]), n_dropins = apply_reset_detail_count(res, keys[1]);
  placer_string_list_addf(
      &out, "reset: %zu unit%s set back through systemd, %zu drop-in%s removed; no placer state left in %s", n_units,
      n_units == 1 ? "" : "s", n_dropins, n_dropins == 1 ? "" : "s", dir);
  ret = 0;
done:
  placer_string_list_free(&failures);
  placer_state_free(s);
  res->lines = placer_string_list_release(&out, &res->n_lines);
  if (ret < 0) {
    placer_reset_result_clear(res);
    return -1;
  }
  return 0;
}

static int systemd_reset(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err) {
  struct placer_reset_result res;
  if (systemd_reset_run(state_dir, &res, err) < 0)
    return -1;
  *lines = res.lines;
  *n_lines = res.n_lines;
  res.lines = NULL;
  res.n_lines = 0;
  placer_reset_result_clear(&res);
  return 0;
}

const struct placer_apply_backend_ops placer_apply_backend_systemd = {
  .name = "systemd",
  .settings = settings,
  .state_file = SD_STATE_FILE,
  .apply = systemd_apply,
  .status = sd_status,
  .reset = systemd_reset,
  .reset_run = systemd_reset_run,
  .print_status = sd_status_print_text,
};
