/* One fio run of a study (fio-run.h): its command line, its files, where it
 * runs, its start, the wait for it within its limit, and its output read
 * back through the workload kind's parser. */
#include "bench/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "bench/probe.h"
#include "bench/sample.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "lib/substitute.h"
#include "lib/textfile.h"

int bench_fio_run_argv(const struct placer_study *study, const struct bench_fio_run *run, char ***out,
                       struct placer_error **err) {
  const struct placer_study_workloads *wl = &study->workloads;
  char **argv = NULL;
  int rc = 0;
  rc |= placer_argv_push(&argv, "fio");
  rc |= placer_argv_pushf(&argv, "--name=%s", run->jobs ? "global" : run->name);
  const char *why = NULL;
  if (run->target->fio_args(&argv, study, run, &why) < 0) {
    if (why == NULL)
      rc = -1; /* out of memory: below */
    else {
      placer_argv_free(argv);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "fio %s: %s", run->name, why);
    }
  }
  rc |= placer_argv_pushf(&argv, "--rw=%s", run->rw);
  rc |= placer_argv_pushf(&argv, "--bs=%s", run->bs);
  rc |= placer_argv_pushf(&argv, "--iodepth=%u", run->iodepth);
  rc |= placer_argv_pushf(&argv, "--numjobs=%u", run->numjobs);
  if (run->rate_iops)
    rc |= placer_argv_pushf(&argv, "--rate_iops=%u", run->rate_iops);
  if (run->runtime_s) {
    rc |= placer_argv_push(&argv, "--time_based");
    rc |= placer_argv_pushf(&argv, "--runtime=%u", run->runtime_s);
    if (run->ramp_s)
      rc |= placer_argv_pushf(&argv, "--ramp_time=%u", run->ramp_s);
    if (run->status_s)
      rc |= placer_argv_pushf(&argv, "--status-interval=%u", run->status_s);
  }
  rc |= placer_argv_pushf(&argv, "--size=%" PRIu64, run->size_bytes);
  rc |= placer_argv_push(&argv, "--group_reporting");
  rc |= placer_argv_push(&argv, "--output-format=json");
  rc |= placer_argv_pushf(&argv, "--output=%s", run->output);
  for (size_t i = 0; run->args && run->args[i]; i++)
    rc |= placer_argv_push(&argv, run->args[i]);
  for (size_t i = 0; run->study_options && i < wl->fio_options.n; i++)
    rc |= placer_argv_push(&argv, wl->fio_options.items[i]);
  for (size_t i = 0; run->jobs && run->jobs[i]; i++)
    rc |= placer_argv_push(&argv, run->jobs[i]);
  if (rc != 0) {
    placer_argv_free(argv);
    return placer_error_oom(err, "fio argv");
  }
  *out = argv;
  return 0;
}

int bench_fio_run_files(struct bench_fio_run *run, const char *out, const char *dir, const char *stem,
                        struct placer_error **err) {
  bool in_fio = strcmp(dir, "fio") == 0;
  char *rel = NULL, *log = NULL, *output = NULL;
  if (asprintf(&rel, "%s/%s.json", dir, stem) < 0)
    rel = NULL;
  if (asprintf(&log, "%s/logs/%s%s.log", out, in_fio ? "fio-" : "", stem) < 0)
    log = NULL;
  output = rel ? bench_path_join(out, rel) : NULL;
  if (rel == NULL || log == NULL || output == NULL) {
    free(rel);
    free(log);
    free(output);
    return placer_error_oom(err, "fio run");
  }
  free(run->output);
  free(run->rel);
  free(run->log);
  run->output = output;
  run->rel = rel;
  run->log = log;
  return 0;
}

void bench_fio_run_clear(struct bench_fio_run *run) {
  placer_argv_free(run->args);
  placer_argv_free(run->jobs);
  free(run->filename);
  free(run->output);
  free(run->rel);
  free(run->log);
  *run = (struct bench_fio_run){ 0 };
}

/* fio's file: the target's (file; cephfs in the mount). */
void bench_fio_run_target(const struct bench *b, const struct pass *p, struct bench_fio_run *run) {
  const struct placer_study *s = b->study;
  run->target = s->workloads.target;
  unsigned flags = run->target->flags;
  free(run->filename);
  run->filename = NULL;
  if (flags & BENCH_TARGET_LOCAL_PATH)
    run->filename = strdup(b->target.path);
  else if ((flags & BENCH_TARGET_MOUNT_PATH) && p && p->cluster.mount)
    run->filename = run->in_directory ? strdup(p->cluster.mount) : bench_path_join(p->cluster.mount, s->workloads.path);
  /* O_DIRECT on a local file and through ceph-fuse: the page cache must
   * not answer for the device or for Ceph */
  run->direct = (flags & BENCH_TARGET_DIRECT) != 0;
  run->ceph_conf = p ? p->cluster.conf : NULL;
}

int bench_fio_run_start(struct bench *b, struct pass *p, struct bench_fio_run *run, struct placer_error **err) {
  char **argv = NULL;
  if (bench_fio_run_argv(b->study, run, &argv, err) < 0)
    return -1;
  int rc;
  if (p) {
    rc = bench_start_fio(b, p, argv, run->output, run->log, &run->pid, err);
  } else { /* the hardware baseline: fio alone, not placed */
    rc = bench_file_fresh(run->output, err);
    if (rc == 0)
      rc = placer_bench_spawn(argv, NULL, run->log, &run->pid, err);
  }
  placer_argv_free(argv);
  return rc;
}

/* Peak RSS over the processes in GROUP now (fio forks one per job). */
static void sample_group_hwm(struct bench *b, const char *group, uint64_t *peak) {
  pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *e = NULL;
  if (placer_cgroup_list_pids(b->cg, group, &pids, &n, &e) < 0) {
    placer_error_free(e);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    struct placer_sample_mem mem;
    if (placer_sample_process("/proc", pids[i], NULL, &mem, &e) == 0) {
      if (mem.hwm_bytes > *peak)
        *peak = mem.hwm_bytes;
    } else {
      placer_error_clear(&e);
    }
  }
  free(pids);
}

int bench_fio_run_wait(struct bench *b, struct bench_fio_run *run, const char *who, unsigned limit_s,
                       struct bench_hwm_watch *watch, size_t n_watch, struct placer_error **err) {
  run->hung = false;
  long long deadline = bench_now_ms() + (long long)limit_s * 1000;
  bool signalled = false, ok = false;
  long long kill_at = 0;
  unsigned ticks = 0;
  for (;;) {
    int wstatus;
    pid_t r = waitpid(run->pid, &wstatus, WNOHANG);
    if (r == run->pid) {
      ok = !signalled && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
      break;
    }
    if (r < 0 && errno != EINTR)
      break;
    for (size_t i = 0; i < n_watch; i++)
      sample_group_hwm(b, watch[i].group, &watch[i].peak);
    /* fio has exited when the run's last snapshot is taken: its memory
     * locality is sampled while it runs, every 2 s (numa_maps are long). */
    if (++ticks % 10 == 1)
      for (size_t i = 0; i < n_watch; i++) {
        double share = placer_bench_group_local_mem_share(b->cg, "/proc", watch[i].group, 0);
        if (!isnan(share))
          watch[i].local_mem_share = share;
      }
    long long now = bench_now_ms();
    if (!signalled && (placer_bench_stop || now >= deadline)) {
      run->hung = !placer_bench_stop;
      kill(-run->pid, SIGTERM);
      kill(run->pid, SIGTERM);
      signalled = true;
      kill_at = now + 10000;
    } else if (signalled && now >= kill_at) {
      kill(-run->pid, SIGKILL);
      kill(run->pid, SIGKILL);
      kill_at = now + 1000000;
    }
    struct timespec ts = { 0, 200 * 1000000L };
    nanosleep(&ts, NULL);
  }
  run->pid = 0;
  if (ok)
    return 0;
  if (placer_bench_stop)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINTR, "interrupted");
  if (run->hung)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: %s did not finish in %u s (hung?), killed; see %s", who,
                            run->what, limit_s, run->log);
  return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: %s failed; see %s", who, run->what, run->log);
}

int bench_fio_run_result(const struct bench *b, const struct bench_fio_run *run, const char *who,
                         const struct bench_workload_ops *kind, struct placer_bench_result *out,
                         struct placer_error **err) {
  cleanup_free char *text = NULL;
  size_t len = 0;
  *out = (struct placer_bench_result){ 0 };
  int rc = placer_textfile_read_path(run->output, PLACER_TEXTFILE_MAX_BYTES, &text, &len);
  if (rc < 0)
    rc = placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read '%s'", run->output);
  else if (kind->parse(text, len, out, err) < 0)
    rc = placer_error_prefix(err, "'%s'", run->output);
  if (rc < 0) {
    bench_explain_unwritten(b, run->output, err); /* a full disk */
    placer_bench_result_free(out);
    return placer_error_prefix(err, "%s", who);
  }
  /* a benchmark with holes is not a result: a job's error, or no I/O at all */
  if (out->n_ops && (out->failed_jobs > 0 || placer_bench_result_total_ios(out->ops, out->n_ops) == 0)) {
    bool failed = out->failed_jobs > 0;
    placer_bench_result_free(out);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: %s reported %s; see %s", who, run->what,
                            failed ? "errors" : "no I/O", run->output);
  }
  return 0;
}
