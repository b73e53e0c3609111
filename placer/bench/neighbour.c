/* The colocated load of a bench study: every neighbour started placed in
 * each instance of its profile role, waited for until it works, and its
 * work rate over the measured window.  What a neighbour runs as (stress-ng,
 * in podman, a qemu guest) is its kind's ops table (neighbour.h,
 * neighbour-*.c), looked up in bench_neighbours[] below. */
#include "bench/neighbour.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply.h"
#include "lib/array.h"
#include "lib/substitute.h"

/* The first is the default kind (stress-ng); a kind's exec backend first. */
const struct bench_neighbour_ops *const bench_neighbours[] = {
  &bench_neighbour_stress_ng,
  &bench_neighbour_podman,
  &bench_neighbour_vm,
  NULL,
};

const struct bench_neighbour_ops *bench_neighbour(const char *kind, enum placer_study_backend backend) {
  for (size_t i = 0; kind && bench_neighbours[i]; i++)
    if (strcmp(bench_neighbours[i]->kind, kind) == 0 && bench_neighbours[i]->backend == backend)
      return bench_neighbours[i];
  return NULL;
}

bool bench_neighbour_takes(const struct bench_neighbour_ops *ops, const char *key) {
  static const char *const every[] = { "name", "role", "kind", "intensity", NULL };
  for (size_t i = 0; every[i]; i++)
    if (strcmp(every[i], key) == 0)
      return true;
  for (size_t i = 0; ops->keys && ops->keys[i]; i++)
    if (strcmp(ops->keys[i], key) == 0)
      return true;
  return false;
}

const char *bench_neighbour_ops_check(const struct bench_neighbour_ops *ops) {
  if (ops->name == NULL || ops->name[0] == '\0' || ops->kind == NULL || ops->kind[0] == '\0')
    return "no name or kind";
  if (ops->launch == NULL || ops->prepare == NULL || ops->start == NULL || ops->working == NULL || ops->rate == NULL)
    return "no launch, prepare, start, working or rate";
  if (ops->program == NULL || ops->unit == NULL || ops->rate_unit == NULL || ops->late == NULL ||
      ops->start_limit_ms == 0)
    return "no program, unit, rate_unit, late or start_limit_ms";
  if ((ops->flags & BENCH_NEIGHBOUR_GUEST) && (ops->flags & BENCH_NEIGHBOUR_RSS))
    return "a guest's workers are not processes in its group";
  if (bench_neighbour(ops->kind, ops->backend) != ops)
    return "not in bench_neighbours[] under its kind and backend";
  if (bench_neighbour(ops->kind, PLACER_STUDY_BACKEND_EXEC) == NULL)
    return "its kind does not run in the exec backend (the default)";
  return NULL;
}

/* ------------------------------------------------------------------ processes */

static void proc_clear(struct placer_bench_neighbour_proc *p) {
  free(p->group);
  free(p->log);
  free(p->console);
  free(p->container);
  free(p->conf);
  placer_argv_free(p->argv);
  placer_launch_record_clear(&p->rec);
  memset(p, 0, sizeof(*p));
}

int bench_neighbour_start_placed(const struct placer_bench_neighbour_env *env, struct placer_bench_neighbour_proc *p,
                                 const struct placer_launch_spec *spec, struct placer_error **err) {
  (void)spec;
  /* Through `placer exec`: placed and accounted (cpuacct) with its children
   * from its first instruction. */
  struct placer_bench_exec x = { env->exe, env->prefix, env->topology_xml, env->profile_path, env->sets };
  if (placer_bench_start_placed(&x, p->inst->name, p->group, p->argv, NULL, p->log, &p->rec, err) < 0)
    return placer_error_prefix(err, "neighbour '%s'", p->spec->name);
  return 0;
}

static int start_one(const struct placer_bench_neighbour_env *env, unsigned intensity,
                     struct placer_bench_neighbour_proc *p, struct placer_error **err) {
  const struct placer_study_neighbour *nb = p->spec;
  const struct placer_instance *inst = p->inst;
  if ((p->kind = bench_neighbour(nb->kind, nb->backend)) == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "neighbour '%s': kind %s does not run in that backend", nb->name,
                            nb->kind);
  if (placer_instance_group(env->prefix, inst->role, inst->name, &p->group, err) < 0)
    return -1;
  if (asprintf(&p->log, "%s/%s.%s.%s.log", env->log_dir, env->tag, nb->name, inst->name) < 0)
    return placer_error_oom(err, NULL);
  unlink(p->log);
  cleanup_free char *cpus = placer_cpulist_format(inst->cpus);
  cleanup_free char *mems = placer_cpulist_format(inst->mems);
  if (cpus == NULL || mems == NULL)
    return placer_error_oom(err, NULL);
  struct placer_launch_spec spec = {
    .instance = inst->name,
    .role = inst->role,
    .profile = "placer-bench",
    .group = p->group,
    .pinned = inst->pinned,
    .cpus = inst->pinned ? cpus : "",
    .mems = inst->pinned ? mems : "",
    .has_memory_limit = inst->has_memory_limit,
    .memory_bytes = inst->memory_bytes,
    .network = PLACER_NETWORK_NONE,
    .log_path = p->log,
    .stop_timeout_s = 10,
  };
  if (p->kind->prepare(env, intensity, p, &spec, err) < 0)
    return -1;
  spec.argv = p->argv;
  if (placer_instance_place_group(env->cg, inst, p->group, err) < 0)
    return placer_error_prefix(err, "neighbour %s", inst->name);
  if (p->kind->start(env, p, &spec, err) < 0)
    return -1;
  if (p->rec.stop_timeout_s == 0)
    p->rec.stop_timeout_s = 10;
  if (p->rec.instance == NULL)
    p->rec.instance = strdup(inst->name);
  p->running = true;
  if (p->kind->started && p->kind->started(p, cpus, intensity, err) < 0)
    return placer_error_prefix(err, "neighbour %s", inst->name);
  return 0;
}

/* Wait until every neighbour works: stress-ng has started (under load
 * `placer exec` can take seconds to plan before it execs it); a guest has
 * booted and printed progress. */
static int wait_working(struct placer_bench_neighbours *nb, struct placer_error **err) {
  for (size_t i = 0; i < nb->n; i++) {
    struct placer_bench_neighbour_proc *p = &nb->procs[i];
    unsigned limit_ms = p->kind->start_limit_ms;
    const char *see = p->console ? p->console : p->log;
    for (unsigned waited = 0;; waited += 100) {
      if (!p->kind->launch->is_running(&p->rec))
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "neighbour '%s' in %s exited at once; see %s",
                                p->spec->name, p->inst->name, see);
      if (p->kind->working(p, waited))
        break;
      if (waited >= limit_ms)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT, "neighbour '%s' in %s: %s within %u s; see %s",
                                p->spec->name, p->inst->name, p->kind->late, limit_ms / 1000, see);
      if (!placer_bench_sleep_ms(100))
        return placer_error_set(err, PLACER_EXIT_SYSTEM, EINTR, "interrupted");
    }
  }
  return 0;
}

int placer_bench_neighbours_start(const struct placer_study *study, const struct placer_bench_neighbour_env *env,
                                  unsigned intensity, struct placer_bench_neighbours *out, struct placer_error **err) {
  memset(out, 0, sizeof(*out));
  size_t total = 0;
  for (size_t k = 0; k < study->n_neighbours; k++)
    for (size_t i = 0; i < env->plan->n_instances; i++)
      total += strcmp(env->plan->instances[i].role, study->neighbours[k].role) == 0;
  out->procs = calloc(total ? total : 1, sizeof(*out->procs));
  if (out->procs == NULL)
    return placer_error_oom(err, NULL);
  int rc = 0;
  for (size_t k = 0; rc == 0 && k < study->n_neighbours; k++)
    for (size_t i = 0; rc == 0 && i < env->plan->n_instances; i++) {
      if (strcmp(env->plan->instances[i].role, study->neighbours[k].role) != 0)
        continue;
      struct placer_bench_neighbour_proc *p = &out->procs[out->n++];
      p->spec = &study->neighbours[k];
      p->inst = &env->plan->instances[i];
      rc = start_one(env, intensity, p, err);
    }
  if (rc == 0)
    rc = wait_working(out, err);
  if (rc < 0) {
    double ignored;
    struct placer_error *e2 = NULL;
    placer_bench_neighbours_stop(out, env->cg, &ignored, &e2);
    placer_error_free(e2);
    return -1;
  }
  return 0;
}

int placer_bench_neighbours_mark(struct placer_bench_neighbours *nb, struct placer_error **err) {
  for (size_t i = 0; i < nb->n; i++)
    if (nb->procs[i].kind->mark)
      nb->procs[i].kind->mark(&nb->procs[i]);
  (void)err;
  return 0;
}

void bench_neighbour_wait_ended(struct placer_bench_neighbour_proc *p, bool reap) {
  for (int i = 0; i < 100 && p->kind->launch->is_running(&p->rec); i++) {
    if (reap)
      waitpid(p->rec.pid, NULL, WNOHANG);
    struct timespec ts = { 0, 50 * 1000000L };
    nanosleep(&ts, NULL);
  }
}

int bench_neighbour_reap(struct placer_cgroup *cg, struct placer_bench_neighbour_proc *p, struct placer_error **err) {
  (void)cg, (void)err;
  if (p->rec.pid > 0)
    waitpid(p->rec.pid, NULL, WNOHANG);
  return 0;
}

/* Keep the first error of several. */
static void keep_first(int *rc, struct placer_error **err, struct placer_error *e) {
  if (*rc == 0) {
    *rc = -1;
    placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
  }
  placer_error_free(e);
}

int placer_bench_neighbours_stop(struct placer_bench_neighbours *nb, struct placer_cgroup *cg, double *rate,
                                 struct placer_error **err) {
  double sum = 0;
  bool all = nb->n > 0;
  int rc = 0;
  for (size_t i = 0; i < nb->n; i++) {
    struct placer_bench_neighbour_proc *p = &nb->procs[i];
    double r = p->running ? p->kind->rate(p) : NAN;
    if (isnan(r))
      all = false;
    else
      sum += r;
    if (p->running) {
      struct placer_error *e = NULL;
      if (p->kind->launch->stop(cg, &p->rec, &e) < 0)
        keep_first(&rc, err, e);
      else
        placer_error_free(e);
      e = NULL;
      if (p->kind->cleanup && p->kind->cleanup(cg, p, &e) < 0)
        keep_first(&rc, err, e);
      else
        placer_error_free(e);
      p->running = false;
    }
    proc_clear(p);
  }
  free(nb->procs);
  nb->procs = NULL;
  nb->n = 0;
  *rate = all ? sum : NAN;
  return rc;
}
