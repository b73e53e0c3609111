/* The recovery run of one variant in one pass (a study's `recovery`): fio
 * runs the recovery workload with its status every second; after the ramp
 * and `at` seconds the OSD fails (SIGKILL, or marked out), `down` seconds
 * later it is back (started again through the variant's launcher, so placed
 * before its first instruction, or marked in); the PG states are followed
 * until they are all active+clean again while every instance's RSS is
 * sampled; then fio is stopped.  Recorded: the times, the client's IOPS
 * before and during recovery, each instance's RSS before and at its peak;
 * a restarted daemon is checked to run where the plan says. */
#include "bench/internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/workload.h"
#include "lib/array.h"
#include "results/recovery.h"
#include "bench/sample.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "proc.h"

#define TICK_MS 200
#define AFTER_CLEAN_MS 1000

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One instance whose memory is followed: the daemons and fio. */
struct rss_watch {
  const char *instance, *role, *group;
  uint64_t before, peak;
};

static uint64_t group_rss(struct placer_cgroup *cg, const char *group) {
  pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *e = NULL;
  uint64_t sum = 0;
  if (placer_cgroup_list_pids(cg, group, &pids, &n, &e) < 0) {
    placer_error_free(e);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    struct placer_sample_mem mem;
    if (placer_sample_process("/proc", pids[i], NULL, &mem, &e) == 0)
      sum += mem.rss_bytes;
    else
      placer_error_clear(&e); /* it exited meanwhile */
  }
  free(pids);
  return sum;
}

bool bench_recovery_done(const struct bench *b, size_t v, size_t repeat) {
  const struct placer_bench_recovery_run *run =
      placer_bench_recovery_run_const(b->results ? b->results->recovery : NULL, v, repeat);
  return run && run->done;
}

static size_t workload_index(const struct bench *b, const char *name) {
  for (size_t i = 0; i < b->n_workloads; i++)
    if (strcmp(b->wls[i].name, name) == 0)
      return i;
  return 0;
}

/* A child we started: stop it (its session: placer_bench_spawn and placer
 * exec give it one) and reap it. */
static void stop_child(pid_t pid, int sig) {
  if (pid <= 0)
    return;
  kill(pid, sig);
  int status;
  bool stopped;
  placer_bench_wait(pid, 30000, false, &status, &stopped);
  if (stopped) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
}

static void csv_rows(struct bench *b, const struct pass *p, const struct placer_bench_recovery *rec,
                     const struct placer_bench_recovery_run *run) {
  FILE *f = b->recovery_csv;
  if (f == NULL)
    return;
  char rep[16];
  snprintf(rep, sizeof(rep), "%d", p->repeat);
  for (size_t i = 0; i < run->n_roles; i++) {
    bench_csv_field(f, p->v->spec->name, false);
    bench_csv_field(f, rep, false);
    bench_csv_field(f, rec->action, false);
    bench_csv_field(f, rec->daemon, false);
    double x[] = { run->detect_s,    run->down_s,      run->recovery_s, run->total_s,
                   run->iops_before, run->iops_during, run->iops_min,   run->degraded_peak };
    for (size_t k = 0; k < N_OF(x); k++)
      bench_csv_num(f, x[k], false);
    bench_csv_field(f, run->roles[i].instance, false);
    bench_csv_field(f, run->roles[i].role, false);
    bench_csv_num(f, (double)run->roles[i].rss_before_bytes, false);
    bench_csv_num(f, (double)run->roles[i].rss_peak_bytes, true);
  }
  bench_csv_flush(b, f);
}

int bench_recovery_run(struct bench *b, struct pass *p, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct placer_study_recovery *spec = &s->recovery;
  struct placer_bench_recovery *rec = b->results->recovery;
  struct placer_bench_recovery_run *run = placer_bench_recovery_run(rec, p->vi, (size_t)p->repeat);
  if (run == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: no slot for its recovery run", p->tag);
  placer_bench_recovery_run_init(run);
  size_t w = workload_index(b, rec->workload);
  struct placer_bench_daemon *d = NULL;
  for (size_t i = 0; i < p->cluster.n_daemons && d == NULL; i++)
    if (strcmp(p->cluster.daemons[i].name, rec->daemon) == 0)
      d = &p->cluster.daemons[i];
  if (d == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: the cluster has no %s", p->tag, rec->daemon);
  bool kill_action = spec->action == PLACER_STUDY_RECOVERY_KILL;

  cleanup_free char *rel_watch = NULL, *watch_log = NULL;
  cleanup_fio_run struct bench_fio_run job = { 0 };
  char stem[256];
  snprintf(stem, sizeof(stem), "%s-recovery-%s", p->tag, b->wls[w].name);
  bench_workload_recovery.job(s, &b->wls[w], &job);
  bench_fio_run_target(b, p, &job);
  snprintf(job.what, sizeof(job.what), "fio %s", b->wls[w].name);
  if (bench_fio_run_files(&job, b->out, "fio", stem, err) < 0 ||
      asprintf(&rel_watch, "logs/recovery-%s.log", p->tag) < 0 ||
      (watch_log = bench_path_join(b->out, rel_watch)) == NULL)
    return placer_error_oom(err, "recovery run");
  unsigned ramp = s->workloads.ramp_s;
  b->runs_started++;
  bench_progress(b, "%s: recovery: %s %s during %s", p->tag, rec->daemon, kill_action ? "killed" : "out",
                 b->wls[w].name);
  long long start = bench_now_ms();
  pid_t fio = 0, watcher = 0;
  int rc = bench_fio_run_start(b, p, &job, err);
  fio = job.pid;
  if (rc < 0)
    return -1;

  /* the daemons and fio, whose RSS is followed */
  struct rss_watch watch[64];
  size_t n_watch = 0;
  for (size_t i = 0; i < p->cluster.n_daemons && n_watch < 63; i++)
    watch[n_watch++] = (struct rss_watch){ p->cluster.daemons[i].inst->name, p->cluster.daemons[i].inst->role,
                                           p->cluster.daemons[i].group, 0, 0 };
  watch[n_watch++] = (struct rss_watch){ p->v->fio->name, p->v->fio->role, p->v->fio_group, 0, 0 };

  long long fault_at = start + (long long)(ramp + spec->at_s) * 1000;
  long long back_at = fault_at + (long long)spec->down_s * 1000, stop_at = 0;
  double t_fault = NAN, t_back = NAN;
  bool faulted = false, back = false, clean = false;
  pid_t new_pid = 0;
  while (rc == 0 && !placer_bench_stop) {
    long long now = bench_now_ms();
    int status;
    if (waitpid(fio, &status, WNOHANG) == fio) {
      fio = 0;
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: fio %s exited during the recovery run; see %s", p->tag,
                            b->wls[w].name, job.log);
      break;
    }
    for (size_t i = 0; i < n_watch; i++) {
      uint64_t rss = group_rss(b->cg, watch[i].group);
      if (!faulted)
        watch[i].before = rss;
      else if (!clean && rss > watch[i].peak)
        watch[i].peak = rss;
    }
    if (!faulted && now >= fault_at) {
      /* The watcher first: it must see the PGs leave active+clean. */
      rc = placer_bench_cluster_watch_recovery(&p->cluster, spec->down_s + spec->timeout_s + 30, watch_log, &watcher,
                                               err);
      t_fault = wall_s();
      if (rc == 0)
        rc = kill_action ? placer_bench_cluster_kill(&p->cenv, &p->cluster, rec->daemon, err)
                         : placer_bench_cluster_osd_inout(&p->cenv, &p->cluster, spec->osd, false, err);
      faulted = true;
      for (size_t i = 0; i < n_watch; i++)
        watch[i].peak = watch[i].before;
    } else if (faulted && !back && now >= back_at) {
      t_back = wall_s();
      rc = kill_action ? placer_bench_cluster_start(&p->cenv, &p->cluster, rec->daemon, &new_pid, err)
                       : placer_bench_cluster_osd_inout(&p->cenv, &p->cluster, spec->osd, true, err);
      back = true;
    } else if (back && !clean && watcher > 0 && waitpid(watcher, &status, WNOHANG) == watcher) {
      watcher = 0;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                              "%s: recovery: the PGs were not active+clean again within %u s after %s was back; see %s",
                              p->tag, spec->timeout_s, rec->daemon, watch_log);
        break;
      }
      clean = true;
      stop_at = now + AFTER_CLEAN_MS;
    } else if (clean && now >= stop_at) {
      break;
    }
    placer_bench_sleep_ms(TICK_MS);
  }
  stop_child(watcher, SIGTERM);
  stop_child(fio, SIGINT); /* fio writes its last status, then exits */
  bench_note_run_wall(b, start);
  if (rc < 0 || placer_bench_stop)
    return rc;

  /* What the watcher and fio saw. */
  cleanup_free char *watch_text = NULL;
  if (placer_textfile_read(watch_log, &watch_text, err) < 0)
    return placer_error_prefix(err, "%s: recovery", p->tag);
  double unclean, clean_at, degraded;
  placer_bench_parse_watch(watch_text, &unclean, &clean_at, &degraded);
  char who[200];
  snprintf(who, sizeof(who), "%s: recovery", p->tag);
  struct placer_bench_result result = { 0 };
  if (bench_fio_run_result(b, &job, who, &bench_workload_recovery, &result, err) < 0)
    return -1;
  const struct placer_bench_io_point *points = result.timeline;
  size_t n_points = result.n_timeline;
  run->detect_s = unclean - t_fault;
  run->down_s = t_back - t_fault;
  run->recovery_s = clean_at - t_back;
  run->total_s = clean_at - t_fault;
  run->degraded_peak = isnan(degraded) ? 0 : degraded;
  run->iops_before = placer_bench_io_rate(points, n_points, (t_fault - spec->at_s) * 1000, t_fault * 1000, NULL);
  run->iops_during = placer_bench_io_rate(points, n_points, t_fault * 1000, clean_at * 1000, &run->iops_min);
  placer_bench_result_free(&result);
  if (n_points < 2 || isnan(run->iops_before))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "%s: recovery: fio's status (%s) has no I/O before the fault: is `at` (%u s) too short?",
                            p->tag, job.output, spec->at_s);
  if ((run->fio_json = strdup(job.rel)) == NULL || (run->watch_log = strdup(rel_watch)) == NULL)
    return placer_error_oom(err, "recovery run");
  for (size_t i = 0; i < n_watch; i++)
    if (placer_bench_recovery_run_add_role(run, watch[i].instance, watch[i].role, watch[i].before, watch[i].peak, err) <
        0)
      return -1;

  /* The restarted daemon runs where the plan says, every thread of it; and
   * every other daemon is still there. */
  if (kill_action) {
    cleanup_free char *what = NULL;
    if (asprintf(&what, "%s: %s started again", p->tag, rec->daemon) < 0)
      return placer_error_oom(err, "recovery run");
    if (bench_check_daemon_threads(p, d, what, err) < 0)
      return -1;
    bench_placement_row(b, p, d->inst->name, d->inst->role, d->name, new_pid, d->group);
  }
  for (size_t i = 0; i < p->cluster.n_daemons; i++) {
    const struct placer_bench_daemon *x = &p->cluster.daemons[i];
    char state = x->pid > 0 ? placer_proc_state(x->pid) : '\0';
    if (state == '\0' || state == 'Z' || state == 'X')
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                              "%s: %s (pid %d) is not running after the recovery run; see %s", p->tag, x->name,
                              (int)x->pid, p->cluster_log);
  }
  run->done = true;
  csv_rows(b, p, rec, run);
  if (bench_write_summary(b, err) < 0) {
    run->done = false; /* its rows were cut again: --resume runs it */
    return -1;
  }
  return 0;
}
