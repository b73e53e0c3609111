/* Snapshots around a benchmark run; see probe.h. */
#include "bench/probe.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/sample.h"
#include "numa-locality.h"

struct target_state {
  char *instance, *role, *group;
  pid_t pid;
  uint64_t cpu_ns; /* at start: the cgroup's usage, or the process's CPU time */
  struct placer_sample_task *threads;
  size_t n_threads;
};

struct placer_bench_probe {
  struct placer_cgroup *cg;
  struct timespec started;
  long ticks_per_second;
  size_t n_targets;
  struct target_state *targets;
  size_t n_devices;
  char **devices;
  struct placer_sample_cpu_times *cpus;
  size_t n_cpus;
  struct placer_sample_disk *disks;
  size_t n_disks;
};

static int target_cpu_ns(const struct placer_cgroup *cg, const char *proc_root, const struct target_state *t, long hz,
                         uint64_t *out, struct placer_error **err) {
  if (t->group)
    return placer_cgroup_read_cpu_usage_ns(cg, t->group, out, err);
  struct placer_sample_task task;
  if (placer_sample_process(proc_root, t->pid, &task, NULL, err) < 0)
    return -1;
  *out = placer_sample_task_cpu_ns(&task, hz);
  return 0;
}

void placer_bench_probe_free(struct placer_bench_probe *p) {
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->n_targets; i++) {
    free(p->targets[i].instance);
    free(p->targets[i].role);
    free(p->targets[i].group);
    free(p->targets[i].threads);
  }
  free(p->targets);
  for (size_t i = 0; i < p->n_devices; i++)
    free(p->devices[i]);
  free(p->devices);
  free(p->cpus);
  free(p->disks);
  free(p);
}

static int copy_targets(struct placer_bench_probe *p, const struct placer_bench_target *targets, size_t n,
                        struct placer_error **err) {
  for (size_t i = 0; i < n; i++)
    if (targets[i].group && p->cg == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bench probe: '%s' has a group but no cgroup layer to read it",
                              targets[i].instance ? targets[i].instance : "?");
  p->targets = calloc(n ? n : 1, sizeof(*p->targets));
  if (p->targets == NULL)
    return placer_error_oom(err, "bench probe");
  for (size_t i = 0; i < n; i++, p->n_targets++) {
    struct target_state *t = &p->targets[i];
    if (targets[i].instance == NULL || targets[i].role == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bench probe: target %zu has no instance or role", i);
    if (targets[i].group == NULL && targets[i].pid <= 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bench probe: '%s' has neither a cgroup nor a pid",
                              targets[i].instance);
    t->instance = strdup(targets[i].instance);
    t->role = strdup(targets[i].role);
    t->group = targets[i].group ? strdup(targets[i].group) : NULL;
    t->pid = targets[i].pid;
    if (t->instance == NULL || t->role == NULL || (targets[i].group && t->group == NULL))
      return placer_error_oom(err, "bench probe");
  }
  return 0;
}

int placer_bench_probe_start(struct placer_cgroup *cg, const char *proc_root, const struct placer_bench_target *targets,
                             size_t n_targets, const char *const *devices, size_t n_devices,
                             struct placer_bench_probe **out, struct placer_error **err) {
  struct placer_bench_probe *p = calloc(1, sizeof(*p));
  if (p == NULL)
    return placer_error_oom(err, "bench probe");
  p->cg = cg;
  p->ticks_per_second = sysconf(_SC_CLK_TCK);
  int rc = copy_targets(p, targets, n_targets, err);
  p->devices = calloc(n_devices ? n_devices : 1, sizeof(*p->devices));
  if (rc == 0 && p->devices == NULL)
    rc = placer_error_oom(err, "bench probe");
  for (size_t i = 0; rc == 0 && i < n_devices; i++, p->n_devices++)
    if ((p->devices[i] = strdup(devices[i])) == NULL)
      rc = placer_error_oom(err, "bench probe");
  for (size_t i = 0; rc == 0 && i < p->n_targets; i++) {
    struct target_state *t = &p->targets[i];
    if (target_cpu_ns(p->cg, proc_root, t, p->ticks_per_second, &t->cpu_ns, err) < 0 ||
        (t->pid > 0 && placer_sample_threads(proc_root, t->pid, &t->threads, &t->n_threads, err) < 0))
      rc = placer_error_prefix(err, "bench probe: %s", t->instance);
  }
  if (rc == 0)
    rc = placer_sample_read_proc_stat(proc_root, &p->cpus, &p->n_cpus, err);
  if (rc == 0 && p->n_devices > 0)
    rc = placer_sample_read_diskstats(proc_root, &p->disks, &p->n_disks, err);
  if (rc == 0 && p->n_devices > 0) { /* a wrong device name fails now, not after the run */
    uint64_t zero;
    rc = placer_sample_disk_written_bytes(p->disks, p->n_disks, p->disks, p->n_disks, (const char *const *)p->devices,
                                          p->n_devices, &zero, err);
    if (rc < 0)
      placer_error_prefix(err, "bench probe");
  }
  if (rc < 0) {
    placer_bench_probe_free(p);
    return -1;
  }
  clock_gettime(CLOCK_MONOTONIC, &p->started);
  *out = p;
  return 0;
}

static int add_threads(const struct placer_bench_probe *p, const struct target_state *t,
                       const struct placer_sample_task *after, size_t n_after, size_t top, struct placer_bench_run *run,
                       struct placer_error **err) {
  struct placer_sample_thread_cpu *d = NULL;
  size_t n = 0;
  if (placer_sample_thread_deltas(t->threads, t->n_threads, after, n_after, &d, &n, err) < 0)
    return -1;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n && i < top; i++)
    rc = placer_bench_run_add_thread(run, t->instance, d[i].comm,
                                     placer_sample_ticks_to_ns(d[i].cpu_ticks, p->ticks_per_second), err);
  free(d);
  return rc;
}

static int set_cpu_busy(const struct placer_bench_probe *p, const struct placer_sample_cpu_times *after, size_t n_after,
                        struct placer_bench_run *run, struct placer_error **err) {
  int max_cpu = -1;
  for (size_t i = 0; i < n_after; i++)
    if (after[i].cpu > max_cpu)
      max_cpu = after[i].cpu;
  double *busy = malloc((size_t)(max_cpu + 1 > 0 ? max_cpu + 1 : 1) * sizeof(*busy));
  if (busy == NULL)
    return placer_error_oom(err, "bench probe");
  for (int c = 0; c <= max_cpu; c++)
    busy[c] = NAN;
  for (size_t i = 0; i < n_after; i++)
    for (size_t j = 0; after[i].cpu >= 0 && j < p->n_cpus; j++)
      if (p->cpus[j].cpu == after[i].cpu)
        busy[after[i].cpu] = placer_sample_cpu_busy(&p->cpus[j], &after[i]);
  int rc = placer_bench_run_set_cpu_busy(run, busy, (size_t)(max_cpu + 1), err);
  free(busy);
  return rc;
}

/* See probe.h.  The group's effective nodes are what the plan put in force (an
 * unpinned v2 group's empty cpuset.mems means all of its parent's). */
double placer_bench_group_local_mem_share(struct placer_cgroup *cg, const char *proc_root, const char *group,
                                          pid_t pid) {
  if (group == NULL || cg == NULL)
    return NAN;
  struct placer_error *e = NULL;
  cleanup_free char *mems = NULL;
  pid_t *pids = NULL;
  size_t n = 0;
  if (placer_cgroup_read_effective(cg, group, NULL, &mems, &e) < 0 ||
      placer_cgroup_list_pids(cg, group, &pids, &n, &e) < 0) {
    placer_error_free(e);
    return NAN;
  }
  struct placer_numa_usage u = { 0 };
  for (size_t i = 0; i < n; i++)
    if (placer_numa_usage_add_pid(proc_root, pids[i], &u, &e) < 0) {
      placer_error_free(e);
      e = NULL;
    }
  if (n == 0 && pid > 0 && placer_numa_usage_add_pid(proc_root, pid, &u, &e) < 0)
    placer_error_free(e);
  free(pids);
  struct placer_numa_locality l = { 0, 0, NAN };
  e = NULL;
  if (u.n_processes > 0 && placer_numa_locality(&u, mems, &l, &e) < 0) {
    placer_error_free(e);
    l.local_share = NAN;
  }
  placer_numa_usage_clear(&u);
  return l.local_share;
}

int placer_bench_probe_finish(struct placer_bench_probe *p, const char *proc_root, size_t top_threads,
                              struct placer_bench_run *run, struct placer_error **err) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  run->duration_s = (double)(now.tv_sec - p->started.tv_sec) + (double)(now.tv_nsec - p->started.tv_nsec) / 1e9;
  for (size_t i = 0; i < p->n_targets; i++) {
    const struct target_state *t = &p->targets[i];
    uint64_t cpu_ns;
    struct placer_sample_mem mem = { 0 };
    struct placer_sample_task *threads = NULL;
    size_t n_threads = 0;
    if (target_cpu_ns(p->cg, proc_root, t, p->ticks_per_second, &cpu_ns, err) < 0 ||
        (t->pid > 0 && placer_sample_process(proc_root, t->pid, NULL, &mem, err) < 0) ||
        (t->pid > 0 && placer_sample_threads(proc_root, t->pid, &threads, &n_threads, err) < 0))
      return placer_error_prefix(err, "bench probe: %s", t->instance);
    int rc = placer_bench_run_add_role(run, t->instance, t->role, cpu_ns > t->cpu_ns ? cpu_ns - t->cpu_ns : 0,
                                       mem.hwm_bytes, err);
    if (rc == 0)
      run->roles[run->n_roles - 1].local_mem_share =
          placer_bench_group_local_mem_share(p->cg, proc_root, t->group, t->pid);
    if (rc == 0 && t->pid > 0)
      rc = add_threads(p, t, threads, n_threads, top_threads, run, err);
    free(threads);
    if (rc < 0)
      return -1;
  }
  struct placer_sample_cpu_times *cpus = NULL;
  size_t n_cpus = 0;
  if (placer_sample_read_proc_stat(proc_root, &cpus, &n_cpus, err) < 0)
    return -1;
  int rc = set_cpu_busy(p, cpus, n_cpus, run, err);
  free(cpus);
  if (rc < 0 || p->n_devices == 0)
    return rc;
  struct placer_sample_disk *disks = NULL;
  size_t n_disks = 0;
  if (placer_sample_read_diskstats(proc_root, &disks, &n_disks, err) < 0)
    return -1;
  rc = placer_sample_disk_written_bytes(p->disks, p->n_disks, disks, n_disks, (const char *const *)p->devices,
                                        p->n_devices, &run->device_bytes_written, err);
  free(disks);
  if (rc < 0)
    return placer_error_prefix(err, "bench probe");
  run->has_device_bytes = true;
  return 0;
}
