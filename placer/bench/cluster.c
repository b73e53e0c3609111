/* The cluster of a bench study, for one variant and repeat: a local
 * throwaway cluster built by libexec/ceph-cluster.sh with every daemon started
 * through `placer exec` (placed before its first instruction), an existing
 * cluster whose local daemons are placed with apply and put back with
 * reset, or none (fio on a local file). */
#include "bench/run.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply/apply.h"
#include "bench/target.h"
#include "lib/array.h"
#include "lib/datafile.h"
#include "lib/substitute.h"
#include "lib/textfile.h"

/* ------------------------------------------------------------------ lookups */

char *placer_bench_cluster_script(void) {
  return placer_data_file("PLACER_CEPH_CLUSTER_SCRIPT", "libexec/ceph-cluster.sh");
}

char *placer_bench_vm_build_script(void) {
  return placer_data_file("PLACER_VM_BUILD_SCRIPT", "libexec/vm/build-initramfs.sh");
}

int placer_bench_device_of(const char *path, char **name, struct placer_error **err) {
  struct stat st;
  if (stat(path, &st) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "stat '%s'", path);
  dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  cleanup_free char *uevent = NULL, *text = NULL;
  if (asprintf(&uevent, "/sys/dev/block/%u:%u/uevent", major(dev), minor(dev)) < 0)
    return placer_error_oom(err, NULL);
  if (placer_textfile_read(uevent, &text, err) < 0)
    return placer_error_prefix(err, "'%s' is not on a block device (%u:%u)", path, major(dev), minor(dev));
  const char *dn = strstr(text, "DEVNAME=");
  if (dn == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: no DEVNAME", uevent);
  dn += strlen("DEVNAME=");
  char *out = strndup(dn, strcspn(dn, "\n"));
  if (out == NULL)
    return placer_error_oom(err, NULL);
  *name = out;
  return 0;
}

int placer_bench_local_daemons(const struct placer_study *study, const struct placer_plan *plan, const char *variant,
                               char ***names, struct placer_error **err) {
  unsigned osds = study->cluster.osds;
  if (osds == 0)
    for (size_t i = 0; i < plan->n_instances; i++)
      osds += plan->instances[i].kind == PLACER_KIND_CEPH_OSD;
  if (osds == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "variant '%s': profile '%s' places no OSD (no role of kind ceph-osd); a local cluster "
                            "needs its OSDs placed",
                            variant, plan->profile_name);
  char **list = NULL;
  int rc = placer_argv_push(&list, "mon.a") | placer_argv_push(&list, "mgr.x");
  for (unsigned i = 0; i < osds; i++) {
    char buf[32];
    snprintf(buf, sizeof(buf), "osd.%u", i);
    rc |= placer_argv_push(&list, buf);
  }
  if (study->cluster.mds)
    rc |= placer_argv_push(&list, "mds.a");
  if (rc != 0) {
    placer_argv_free(list);
    return placer_error_oom(err, NULL);
  }
  char missing[512] = "";
  for (size_t i = 0; list[i]; i++)
    if (placer_plan_find_daemon(plan, list[i]) == NULL) {
      size_t len = strlen(missing);
      snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? ", " : "", list[i]);
    }
  if (*missing) {
    placer_argv_free(list);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "variant '%s': profile '%s' does not place %s (a role of kind ceph-mon/mgr/osd/mds whose "
                            "ceph_id matches the daemon's id: mon a, mgr x, osd 0.., mds a)",
                            variant, plan->profile_name, missing);
  }
  *names = list;
  return 0;
}

/* ------------------------------------------------------------------ local */

static int read_pid(const char *path, pid_t *pid) {
  char *text = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read(path, &text, &e) < 0) {
    placer_error_free(e);
    return -1;
  }
  long v = strtol(text, NULL, 10);
  free(text);
  if (v <= 0)
    return -1;
  *pid = (pid_t)v;
  return 0;
}

static bool pid_in_group(struct placer_cgroup *cg, const char *group, pid_t pid) {
  pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *e = NULL;
  bool found = false;
  if (placer_cgroup_list_pids(cg, group, &pids, &n, &e) == 0)
    for (size_t i = 0; i < n && !found; i++)
      found = pids[i] == pid;
  placer_error_free(e);
  free(pids);
  return found;
}

/* CEPH_CLUSTER_LAUNCHER for the script: every daemon is started as
 * `placer exec ... PROFILE NAME -- ceph-osd ...` with ENV's profile and
 * changes; the prefix is split on blanks by the script (checked: no value
 * here has one).  Pushed onto *SCRIPT_ENV. */
static int launcher_env(const struct placer_bench_cluster_env *env, char ***script_env) {
  char *launcher = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&launcher, &len);
  if (f == NULL)
    return -1;
  fprintf(f, "CEPH_CLUSTER_LAUNCHER=%s exec --prefix %s", env->exe, env->prefix);
  if (env->topology_xml)
    fprintf(f, " --topology %s", env->topology_xml);
  for (size_t i = 0; i < env->variant->env.n; i++)
    fprintf(f, " --env %s", env->variant->env.items[i]);
  for (size_t i = 0; env->sets && env->sets[i]; i++)
    fprintf(f, " --set %s", env->sets[i]);
  fprintf(f, " %s {name} --", env->profile_path);
  if (fclose(f) != 0) {
    free(launcher);
    return -1;
  }
  int rc = placer_argv_push(script_env, launcher);
  free(launcher);
  return rc;
}

static int local_up(const struct placer_study *study, const struct placer_bench_cluster_env *env,
                    struct placer_bench_cluster *c, struct placer_error **err) {
  const struct placer_study_cluster *sc = &study->cluster;
  cleanup_free char *script = placer_bench_cluster_script();
  if (script == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "libexec/ceph-cluster.sh not found (set PLACER_CEPH_CLUSTER_SCRIPT)");
  char **names = NULL;
  if (placer_bench_local_daemons(study, env->plan, env->variant->name, &names, err) < 0)
    return -1;
  size_t n_names = placer_argv_len(names);
  if (asprintf(&c->dir, "%s/cluster", env->work_dir) < 0 || asprintf(&c->conf, "%s/ceph.conf", c->dir) < 0) {
    placer_argv_free(names);
    return placer_error_oom(err, NULL);
  }

  char **script_env = NULL;
  cleanup_free char *extra_env = NULL, *extra = NULL;
  int rc = 0;
  /* Recovery runs follow the PG states at 1 s (the mgr's default is 5 s). */
  if (asprintf(&extra, "%s%s", sc->extra_conf ? sc->extra_conf : "",
               study->recovery.enabled ? "\n[mgr]\nmgr stats period = 1\n" : "") < 0 ||
      launcher_env(env, &script_env) < 0 ||
      (*extra &&
       (asprintf(&extra_env, "CEPH_CLUSTER_EXTRA_CONF=%s", extra) < 0 || placer_argv_push(&script_env, extra_env) < 0)))
    rc = placer_error_oom(err, NULL);

  char **argv = NULL;
  char osds[16], osd_size[32], image_size[32], timeout[16];
  snprintf(osds, sizeof(osds), "%zu", n_names - 2 - (sc->mds ? 1 : 0));
  snprintf(osd_size, sizeof(osd_size), "%llu", (unsigned long long)(sc->osd_size_bytes >> 30));
  snprintf(image_size, sizeof(image_size), "%llu", (unsigned long long)(sc->image_size_bytes >> 30));
  snprintf(timeout, sizeof(timeout), "%u", sc->timeout_s);
  const char *args[] = { "sh",
                         script,
                         "up",
                         c->dir,
                         "--osds",
                         osds,
                         "--osd-size",
                         osd_size,
                         "--image-size",
                         image_size,
                         "--timeout",
                         timeout,
                         sc->mds ? "--mds" : NULL,
                         NULL };
  for (size_t i = 0; rc == 0 && args[i]; i++)
    if (placer_argv_push(&argv, args[i]) < 0)
      rc = placer_error_oom(err, NULL);
  if (rc == 0)
    rc = placer_bench_run_command(argv, script_env, env->log, sc->timeout_s + 60, true, err);
  placer_argv_free(argv);
  placer_argv_free(script_env);
  if (rc < 0) {
    placer_argv_free(names);
    return placer_error_prefix(err, "local cluster for variant '%s'", env->variant->name);
  }

  /* Which PID is which daemon, and is it where the plan put it? */
  c->daemons = calloc(n_names, sizeof(*c->daemons));
  if (c->daemons == NULL) {
    placer_argv_free(names);
    return placer_error_oom(err, NULL);
  }
  for (size_t i = 0; rc == 0 && i < n_names; i++) {
    struct placer_bench_daemon *d = &c->daemons[c->n_daemons++];
    d->name = strdup(names[i]);
    d->inst = placer_plan_find_daemon(env->plan, names[i]);
    cleanup_free char *pidfile = NULL;
    if (d->name == NULL || asprintf(&pidfile, "%s/run/%s.pid", c->dir, names[i]) < 0) {
      rc = placer_error_oom(err, NULL);
      break;
    }
    if (placer_instance_group(env->prefix, d->inst->role, d->inst->name, &d->group, err) < 0) {
      rc = -1;
      break;
    }
    if (read_pid(pidfile, &d->pid) < 0)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: no PID in %s", names[i], pidfile);
    else if (!pid_in_group(env->cg, d->group, d->pid))
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s (PID %d) is not in its group %s", names[i], (int)d->pid,
                            d->group);
  }
  placer_argv_free(names);
  if (rc < 0)
    return -1;
  cleanup_free char *conf_env = NULL;
  if (asprintf(&conf_env, "CEPH_CONF=%s", c->conf) < 0 || placer_argv_push(&c->fio_env, conf_env) < 0)
    return placer_error_oom(err, NULL);
  /* No write amplification on a filesystem without a block device. */
  struct placer_error *e = NULL;
  cleanup_free char *device = NULL;
  if (placer_bench_device_of(c->dir, &device, &e) == 0 && placer_argv_push(&c->devices, device) < 0)
    return placer_error_oom(err, NULL);
  placer_error_free(e);
  const struct bench_target_ops *target = study->workloads.target;
  if (target->prepare)
    return target->prepare(env, c, err);
  return 0;
}

static int local_down(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                      struct placer_error **err) {
  int rc = 0;
  cleanup_free char *script = placer_bench_cluster_script();
  if (script && c->dir) {
    char *argv[] = { "sh", script, "down", c->dir, NULL };
    rc = placer_bench_run_command(argv, NULL, env->log, 180, false, err);
  }
  if (c->fuse_running) {
    struct placer_error *e = NULL;
    if (placer_launch_exec.stop(env->cg, &c->fuse, &e) < 0 && rc == 0)
      rc = placer_error_set(err, e->exit_code, e->errno_value, "ceph-fuse: %s", e->msg);
    placer_error_free(e);
    waitpid(c->fuse.pid, NULL, WNOHANG);
    c->fuse_running = false;
  }
  return rc;
}

/* ------------------------------------------------------------------ existing */

static int existing_up(const struct placer_study *study, const struct placer_bench_cluster_env *env,
                       struct placer_bench_cluster *c, struct placer_error **err) {
  const struct placer_study_cluster *sc = &study->cluster;
  if ((c->conf = strdup(sc->conf)) == NULL || asprintf(&c->apply_state, "%s/apply-state", env->work_dir) < 0)
    return placer_error_oom(err, NULL);
  cleanup_free char *conf_env = NULL, *args_env = NULL;
  if (asprintf(&conf_env, "CEPH_CONF=%s", c->conf) < 0 || placer_argv_push(&c->fio_env, conf_env) < 0 ||
      (sc->keyring &&
       (asprintf(&args_env, "CEPH_ARGS=--keyring=%s", sc->keyring) < 0 || placer_argv_push(&c->fio_env, args_env) < 0)))
    return placer_error_oom(err, NULL);

  /* Only the Ceph daemons are bound: fio and the neighbours are started by
   * bench itself, and a matcher such as "stress-ng*" must not catch someone
   * else's process. */
  const struct placer_plan *plan = env->plan;
  struct placer_instance *subset = calloc(plan->n_instances ? plan->n_instances : 1, sizeof(*subset));
  if (subset == NULL)
    return placer_error_oom(err, NULL);
  size_t n = 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    enum placer_role_kind k = plan->instances[i].kind;
    if (placer_role_kind_is_ceph(k))
      subset[n++] = plan->instances[i]; /* borrowed: never freed through this copy */
  }
  struct placer_plan sub = *plan;
  sub.instances = subset;
  sub.n_instances = n;
  sub.n_irq_rules = sub.n_irqs = 0; /* the variant's IRQs: switched with it (irqs.c) */
  /* bench places the daemons it started itself, in its own groups: never their units */
  struct placer_apply_options opt = { .state_dir = c->apply_state, .prefix = env->prefix, .backend = "cgroupfs" };
  struct placer_apply_report *report = NULL;
  int rc = n ? placer_apply(&sub, &opt, &report, err) : 0;
  free(subset);
  if (rc < 0)
    return placer_error_prefix(err, "place the daemons of the existing cluster (variant '%s')", env->variant->name);
  c->applied = n > 0;
  for (size_t i = 0; report && i < report->n_instances; i++)
    if (report->instances[i].n_bound > 0)
      c->n_daemons++;
  c->daemons = calloc(c->n_daemons ? c->n_daemons : 1, sizeof(*c->daemons));
  if (c->daemons == NULL) {
    placer_apply_report_free(report);
    return placer_error_oom(err, NULL);
  }
  size_t k = 0;
  for (size_t i = 0; report && i < report->n_instances; i++) {
    const struct placer_apply_instance_report *ir = &report->instances[i];
    if (ir->n_bound == 0)
      continue;
    struct placer_bench_daemon *d = &c->daemons[k++];
    d->inst = placer_plan_find(plan, ir->name);
    d->name = strdup(ir->name);
    d->group = strdup(ir->group);
    d->pid = ir->bound[0].pid;
    if (d->name == NULL || d->group == NULL || d->inst == NULL) {
      rc = placer_error_oom(err, NULL);
      continue;
    }
  }
  c->n_daemons = k;
  placer_apply_report_free(report);
  for (size_t i = 0; rc == 0 && i < sc->devices.n; i++)
    if (placer_argv_push(&c->devices, sc->devices.items[i]) < 0)
      rc = placer_error_oom(err, NULL);
  return rc;
}

static int existing_down(struct placer_bench_cluster *c, struct placer_error **err) {
  if (!c->applied)
    return 0;
  char **lines = NULL;
  size_t n = 0;
  int reset = placer_reset(c->apply_state, &lines, &n, err);
  for (size_t i = 0; i < n; i++)
    free(lines[i]);
  free(lines);
  c->applied = false;
  if (reset < 0)
    return placer_error_prefix(err, "put the existing cluster's daemons back");
  return 0;
}

/* ------------------------------------------------------------------ faults */

static int fault_command(const struct placer_bench_cluster_env *env, const struct placer_bench_cluster *c,
                         const char *what, const char *arg, bool launcher, struct placer_error **err) {
  cleanup_free char *script = placer_bench_cluster_script();
  if (script == NULL || c->dir == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT, "%s %s: no local cluster (libexec/ceph-cluster.sh)", what,
                            arg);
  char **script_env = NULL;
  if (launcher && launcher_env(env, &script_env) < 0)
    return placer_error_oom(err, NULL);
  char *argv[] = { "sh", script, (char *)what, c->dir, (char *)arg, NULL };
  int rc = placer_bench_run_command(argv, script_env, env->log, 60, true, err);
  placer_argv_free(script_env);
  return rc < 0 ? placer_error_prefix(err, "%s %s", what, arg) : 0;
}

static struct placer_bench_daemon *find_daemon(struct placer_bench_cluster *c, const char *name) {
  for (size_t i = 0; i < c->n_daemons; i++)
    if (strcmp(c->daemons[i].name, name) == 0)
      return &c->daemons[i];
  return NULL;
}

int placer_bench_cluster_kill(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                              const char *name, struct placer_error **err) {
  struct placer_bench_daemon *d = find_daemon(c, name);
  if (d == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s is not a daemon of the cluster", name);
  if (fault_command(env, c, "kill", name, false, err) < 0)
    return -1;
  waitpid(d->pid, NULL, WNOHANG); /* ours when placer is the subreaper */
  d->pid = 0;                     /* not running: not watched */
  return 0;
}

int placer_bench_cluster_start(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                               const char *name, pid_t *pid, struct placer_error **err) {
  struct placer_bench_daemon *d = find_daemon(c, name);
  if (d == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s is not a daemon of the cluster", name);
  if (fault_command(env, c, "start", name, true, err) < 0)
    return -1;
  cleanup_free char *pidfile = NULL;
  if (asprintf(&pidfile, "%s/run/%s.pid", c->dir, name) < 0)
    return placer_error_oom(err, NULL);
  if (read_pid(pidfile, &d->pid) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "start %s: no PID in %s", name, pidfile);
  /* `placer exec` moves itself into the group before it execs the daemon */
  for (int i = 0; i < 100 && !pid_in_group(env->cg, d->group, d->pid); i++)
    placer_bench_sleep_ms(20);
  if (!pid_in_group(env->cg, d->group, d->pid))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "start %s: PID %d is not in its group %s", name, (int)d->pid,
                            d->group);
  *pid = d->pid;
  return 0;
}

int placer_bench_cluster_osd_inout(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                                   unsigned id, bool in, struct placer_error **err) {
  char arg[16];
  snprintf(arg, sizeof(arg), "%u", id);
  return fault_command(env, c, in ? "osd-in" : "osd-out", arg, false, err);
}

int placer_bench_cluster_watch_recovery(const struct placer_bench_cluster *c, unsigned timeout_s, const char *log,
                                        pid_t *pid, struct placer_error **err) {
  cleanup_free char *script = placer_bench_cluster_script();
  if (script == NULL || c->dir == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "watch-recovery: no local cluster (libexec/ceph-cluster.sh)");
  char timeout[16];
  snprintf(timeout, sizeof(timeout), "%u", timeout_s);
  char *argv[] = { "sh", script, "watch-recovery", c->dir, "--timeout", timeout, NULL };
  return placer_bench_spawn(argv, NULL, log, pid, err);
}

/* ------------------------------------------------------------------ dispatch */

static void cluster_clear(struct placer_bench_cluster *c) {
  free(c->dir);
  free(c->conf);
  placer_argv_free(c->fio_env);
  free(c->mount);
  placer_launch_record_clear(&c->fuse);
  for (size_t i = 0; i < c->n_daemons; i++) {
    free(c->daemons[i].name);
    free(c->daemons[i].group);
  }
  free(c->daemons);
  placer_argv_free(c->devices);
  free(c->apply_state);
  memset(c, 0, sizeof(*c));
}

int placer_bench_cluster_up(const struct placer_study *study, const struct placer_bench_cluster_env *env,
                            struct placer_bench_cluster *c, struct placer_error **err) {
  memset(c, 0, sizeof(*c));
  c->type = study->cluster.type;
  switch (c->type) {
  case PLACER_STUDY_CLUSTER_LOCAL: return local_up(study, env, c, err);
  case PLACER_STUDY_CLUSTER_EXISTING: return existing_up(study, env, c, err);
  case PLACER_STUDY_CLUSTER_NONE: {
    /* The file may not exist yet (prefill makes it): then its directory's device. */
    struct placer_error *e = NULL;
    cleanup_free char *device = NULL;
    if (placer_bench_device_of(env->target_path, &device, &e) < 0) {
      placer_error_free(e);
      e = NULL;
      cleanup_free char *dir = strdup(env->target_path);
      char *slash = dir ? strrchr(dir, '/') : NULL;
      if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
      if (dir == NULL || placer_bench_device_of(slash ? dir : ".", &device, &e) < 0)
        device = NULL;
    }
    if (device && placer_argv_push(&c->devices, device) < 0) {
      placer_error_free(e);
      return placer_error_oom(err, NULL);
    }
    placer_error_free(e);
    return 0;
  }
  }
  return 0;
}

int placer_bench_cluster_down(const struct placer_study *study, const struct placer_bench_cluster_env *env,
                              struct placer_bench_cluster *c, struct placer_error **err) {
  (void)study;
  int rc = 0;
  if (c->type == PLACER_STUDY_CLUSTER_LOCAL)
    rc = local_down(env, c, err);
  else if (c->type == PLACER_STUDY_CLUSTER_EXISTING)
    rc = existing_down(c, err);
  cluster_clear(c);
  return rc;
}
