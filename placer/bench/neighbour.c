/* The colocated load of a bench study: stress-ng (a plain process or a
 * container) or a small qemu guest in each instance of the neighbour's
 * profile role, started placed, and its work rate: stress-ng's bogo ops/s
 * (real time) over its run, or the guest's PLACER-WORK units per second
 * over the measured window. */
#include "bench/run.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "podman-argv.h"
#include "proc.h"
#include "procmatch.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "topology.h"
#include "vm.h"

/* ------------------------------------------------------------------ parsers */

static bool is_number(const char *s) {
  char *end;
  if (*s == '\0')
    return false;
  strtod(s, &end);
  return *end == '\0';
}

int placer_bench_parse_stress_ng(const char *text, double *rate) {
  double sum = 0;
  bool found = false;
  const char *line = text;
  while (line && *line) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    char buf[1024];
    if (len >= sizeof(buf))
      len = sizeof(buf) - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    line = nl ? nl + 1 : NULL;
    /* "stress-ng: metrc: [PID] cpu   5362  3.00  2.29  0.03  1788.31  2309.04"
     * (older versions say "info:"; a podman log adds a prefix). */
    char *tag = strstr(buf, "stress-ng:");
    char *close = tag ? strchr(tag, ']') : NULL;
    if (close == NULL)
      continue;
    char *tok[16];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(close + 1, " \t\r", &save); t && n < 16; t = strtok_r(NULL, " \t\r", &save))
      tok[n++] = t;
    /* stressor, bogo ops, real, usr, sys, ops/s real, ops/s usr+sys[, more] */
    if (n < 7)
      continue;
    bool numeric = true;
    for (size_t i = 1; i < 7 && numeric; i++)
      numeric = is_number(tok[i]);
    if (!numeric || isdigit((unsigned char)tok[0][0]))
      continue;
    sum += strtod(tok[5], NULL);
    found = true;
  }
  if (!found)
    return -1;
  *rate = sum;
  return 0;
}

int placer_bench_parse_guest_progress(const char *text, bool *started, double *units, double *elapsed_ms) {
  bool have = false;
  *started = strstr(text, "PLACER-WORK-START") != NULL;
  for (const char *p = text; (p = strstr(p, "PLACER-WORK")) != NULL; p++) {
    const char *rest = p + strlen("PLACER-WORK");
    if (strncmp(rest, "-START", 6) == 0)
      continue;
    const char *u = strstr(rest, "units=");
    const char *e = strstr(rest, "elapsed_ms=");
    const char *nl = strchr(rest, '\n');
    if (u == NULL || e == NULL || (nl && (u > nl || e > nl)))
      continue;
    char *end1, *end2;
    double uv = strtod(u + 6, &end1), ev = strtod(e + 11, &end2);
    if (end1 == u + 6 || end2 == e + 11)
      continue; /* a line cut short while the guest writes it */
    if (nl == NULL && (*end2 == '\0'))
      continue; /* the last line may still be being written */
    *units = uv;
    *elapsed_ms = ev;
    have = true;
  }
  return have ? 0 : -1;
}

/* ------------------------------------------------------------------ groups */

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

static int stress_argv(const struct placer_study_neighbour *nb, unsigned intensity, unsigned seconds, char ***out) {
  char **argv = NULL;
  char buf[128];
  int rc = placer_argv_push(&argv, "stress-ng");
  snprintf(buf, sizeof(buf), "--%s=%u", nb->stressor, intensity);
  rc |= placer_argv_push(&argv, buf);
  if (nb->method) {
    snprintf(buf, sizeof(buf), "--%s-method=%s", nb->stressor, nb->method);
    rc |= placer_argv_push(&argv, buf);
  }
  if (nb->load_percent && nb->load_percent < 100) {
    snprintf(buf, sizeof(buf), "--%s-load=%u", nb->stressor, nb->load_percent);
    rc |= placer_argv_push(&argv, buf);
  }
  rc |= placer_argv_push(&argv, "--metrics-brief");
  snprintf(buf, sizeof(buf), "--timeout=%u", seconds);
  rc |= placer_argv_push(&argv, buf);
  if (rc != 0) {
    placer_argv_free(argv);
    return -1;
  }
  *out = argv;
  return 0;
}

static int read_console(const char *path, bool *started, double *units, double *ms) {
  char *text = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read(path, &text, &e) < 0) {
    placer_error_free(e);
    *started = false;
    return -1;
  }
  int rc = placer_bench_parse_guest_progress(text, started, units, ms);
  free(text);
  return rc;
}

static int start_one(const struct placer_study *study, const struct placer_bench_neighbour_env *env, unsigned intensity,
                     struct placer_bench_neighbour_proc *p, struct placer_error **err) {
  const struct placer_study_neighbour *nb = p->spec;
  const struct placer_instance *inst = p->inst;
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
  bool vm = nb->kind == PLACER_STUDY_NEIGHBOUR_VM;
  if (vm) {
    if (env->vm_kernel == NULL || env->vm_initrd == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "neighbour '%s': no guest kernel and initramfs", nb->name);
    if (asprintf(&p->console, "%s/%s.%s.%s.console", env->log_dir, env->tag, nb->name, inst->name) < 0)
      return placer_error_oom(err, NULL);
    unlink(p->console);
    cleanup_free char *guest = NULL;
    if (asprintf(&guest, "bench-%s", inst->name) < 0)
      return placer_error_oom(err, NULL);
    const char *why;
    struct placer_vm_params params = {
      .name = guest,
      .accel = placer_vm_detect_accel(PLACER_VM_ACCEL_AUTO, &why),
      .vcpus = intensity,
      .memory_bytes = nb->memory_bytes,
      .kernel = env->vm_kernel,
      .initrd = env->vm_initrd,
      .work = "cpu",
      .seconds = env->max_seconds,
      .work_memory_bytes = nb->work_memory_bytes,
      .console_path = p->console,
    };
    if (placer_vm_qemu_argv(&params, &p->argv, err) < 0)
      return -1;
    p->ops = &placer_launch_exec;
  } else {
    if (stress_argv(nb, intensity, env->max_seconds, &p->argv) < 0)
      return placer_error_oom(err, NULL);
    if (nb->backend == PLACER_STUDY_BACKEND_PODMAN) {
      cleanup_free char *name = NULL;
      if (asprintf(&name, "bench-%s", inst->name) < 0 || (p->container = placer_podman_container_name(name)) == NULL)
        return placer_error_oom(err, NULL);
      p->conf = placer_containers_conf_path();
      spec.image = nb->image;
      spec.container_name = p->container;
      spec.containers_conf = p->conf;
      p->ops = &placer_launch_podman;
    } else {
      p->ops = &placer_launch_exec;
    }
  }
  spec.argv = p->argv;
  if (placer_instance_place_group(env->cg, inst, p->group, err) < 0)
    return placer_error_prefix(err, "neighbour %s", inst->name);
  if (p->ops == &placer_launch_exec) {
    /* Through `placer exec`: placed and accounted (cpuacct) with its children
     * from its first instruction. */
    struct placer_bench_exec x = { env->exe, env->prefix, env->topology_xml, env->profile_path, env->sets };
    if (placer_bench_start_placed(&x, inst->name, p->group, p->argv, NULL, p->log, &p->rec, err) < 0)
      return placer_error_prefix(err, "neighbour '%s'", nb->name);
  } else if (p->ops->start(env->cg, &spec, &p->rec, err) < 0) {
    return placer_error_prefix(err, "neighbour '%s' in %s", nb->name, inst->name);
  }
  if (p->rec.stop_timeout_s == 0)
    p->rec.stop_timeout_s = 10;
  if (p->rec.instance == NULL)
    p->rec.instance = strdup(inst->name);
  p->running = true;
  if (vm && inst->pin_vcpus) {
    char *summary = NULL;
    if (placer_vm_pin_vcpus(p->rec.pid, cpus, intensity, 15000, &summary, err) < 0)
      return placer_error_prefix(err, "neighbour %s", inst->name);
    free(summary);
  }
  return 0;
}

/* `placer exec` has become stress-ng (or is gone: is_running says so). */
static bool became_stress_ng(pid_t pid) {
  char *comm = placer_proc_comm(pid);
  bool yes = comm == NULL || strncmp(comm, "stress-ng", 9) == 0;
  free(comm);
  return yes;
}

/* Wait until every neighbour works: stress-ng has started (under load
 * `placer exec` can take seconds to plan before it execs it); a guest has
 * booted and printed progress. */
static int wait_working(struct placer_bench_neighbours *nb, struct placer_error **err) {
  for (size_t i = 0; i < nb->n; i++) {
    struct placer_bench_neighbour_proc *p = &nb->procs[i];
    unsigned limit_ms = p->console ? 120000 : 10000;
    for (unsigned waited = 0;; waited += 100) {
      if (!p->ops->is_running(&p->rec))
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "neighbour '%s' in %s exited at once; see %s",
                                p->spec->name, p->inst->name, p->console ? p->console : p->log);
      if (p->console) {
        bool started;
        double u, ms;
        if (read_console(p->console, &started, &u, &ms) == 0 && started)
          break;
      } else if (waited >= 300 && (p->container || became_stress_ng(p->rec.pid))) {
        break;
      }
      if (waited >= limit_ms)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT,
                                p->console
                                    ? "neighbour '%s' in %s: the guest did not report progress within %u s; see %s"
                                    : "neighbour '%s' in %s: stress-ng did not start within %u s; see %s",
                                p->spec->name, p->inst->name, limit_ms / 1000, p->console ? p->console : p->log);
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
      rc = start_one(study, env, intensity, p, err);
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
  for (size_t i = 0; i < nb->n; i++) {
    struct placer_bench_neighbour_proc *p = &nb->procs[i];
    if (p->console == NULL)
      continue;
    bool started;
    if (read_console(p->console, &started, &p->units0, &p->ms0) < 0) {
      p->units0 = 0; /* no progress line yet: the guest just started its work */
      p->ms0 = 0;
    }
  }
  (void)err;
  return 0;
}

/* stress-ng prints its metrics when SIGINT ends it early. */
static void interrupt_stress(struct placer_bench_neighbour_proc *p) {
  if (p->container) {
    char *argv[] = { "podman", "kill", "--signal=INT", p->container, NULL };
    char *env[2] = { NULL, NULL };
    cleanup_free char *conf_env = NULL;
    if (p->conf && asprintf(&conf_env, "CONTAINERS_CONF=%s", p->conf) >= 0)
      env[0] = conf_env;
    struct placer_error *e = NULL;
    placer_bench_run_command(argv, env, NULL, 30, false, &e);
    placer_error_free(e);
  } else {
    /* Only the process we started: its PID may have been reused by now. */
    placer_proc_signal(p->rec.pid, p->rec.start_time, SIGINT);
  }
  for (int i = 0; i < 100 && p->ops->is_running(&p->rec); i++) {
    if (p->container == NULL)
      waitpid(p->rec.pid, NULL, WNOHANG);
    struct timespec ts = { 0, 50 * 1000000L };
    nanosleep(&ts, NULL);
  }
}

int placer_bench_neighbours_stop(struct placer_bench_neighbours *nb, struct placer_cgroup *cg, double *rate,
                                 struct placer_error **err) {
  double sum = 0;
  bool all = nb->n > 0;
  int rc = 0;
  for (size_t i = 0; i < nb->n; i++) {
    struct placer_bench_neighbour_proc *p = &nb->procs[i];
    double r = NAN;
    if (p->running && p->console) {
      bool started;
      double u1, ms1;
      if (read_console(p->console, &started, &u1, &ms1) == 0 && ms1 > p->ms0)
        r = (u1 - p->units0) / ((ms1 - p->ms0) / 1000.0);
    } else if (p->running) {
      interrupt_stress(p);
      char *text = NULL;
      struct placer_error *e = NULL;
      if (placer_textfile_read(p->log, &text, &e) == 0 && placer_bench_parse_stress_ng(text, &r) < 0)
        r = NAN;
      placer_error_free(e);
      free(text);
    }
    if (isnan(r))
      all = false;
    else
      sum += r;
    if (p->running) {
      struct placer_error *e = NULL;
      if (p->ops->stop(cg, &p->rec, &e) < 0 && rc == 0) {
        rc = -1;
        placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
      }
      placer_error_free(e);
      if (p->ops == &placer_launch_podman) {
        e = NULL;
        if (p->ops->cleanup(cg, &p->rec, &e) < 0 && rc == 0) {
          rc = -1;
          placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
        }
        placer_error_free(e);
      } else if (p->rec.pid > 0) {
        waitpid(p->rec.pid, NULL, WNOHANG);
      }
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
