/* The loop of placer bench: for each pass (warm-up passes first, then the
 * repeats), for each variant in turn (A B A B ...): place the variant's
 * groups, bring the cluster up with its daemons placed, prefill, measure the
 * neighbours alone (first repeat), run every workload cell alone and with the
 * neighbours while sampling CPU, memory, threads, cores and device writes,
 * then tear everything down.  Results go to the results directory as they
 * come, so a Ctrl-C or a failure keeps what was measured. */
#include "bench/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/neighbour.h"
#include "bench/target.h"
#include "bench/workload.h"
#include "lib/array.h"
#include "apply/apply.h"
#include "bench/probe.h"
#include "report/report.h"
#include "results/hardware-baseline.h"
#include "bench/sample.h"
#include "lib/cpulist.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "proc.h"
#include "topology/topology.h"

/* ------------------------------------------------------------------ one pass */

/* Every instance group of the variant with its values, and each role group
 * with the role's weight and quota, as apply would put them (the model,
 * placement.h).  The Ceph daemons of a cluster bench does not start are
 * placed by apply (existing) or run nowhere (none). */
static int place_all_groups(struct bench *b, struct pass *p, struct placer_error **err) {
  struct placer_placement *pl = NULL;
  if (placer_placement_compute(p->v->plan, b->prefix, NULL, 0, &pl, err) < 0)
    return -1;
  struct placer_writer w = placer_writer_cgroupfs(b->cg);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < pl->n; i++) {
    const struct placer_placed *placed = &pl->v[i];
    if (placer_role_kind_is_ceph(placed->inst->kind) && b->study->cluster.type != PLACER_STUDY_CLUSTER_LOCAL)
      continue;
    if (placer_placed_write(&w, placed, PLACER_GROUP_SETTINGS, placed->role_writes, NULL, NULL, NULL, err) < 0)
      rc = placer_error_prefix(err, "%s", placed->inst->name);
  }
  placer_placement_free(pl);
  return rc;
}

/* Live re-placement: variant P->v's values on every instance group and
 * role group, each that differs written once (also what an earlier variant
 * set and this one leaves at its default: all cpus, the default weight, no
 * quota), then a check that every thread of every daemon runs on the CPUs
 * and nodes the plan gives it. */
static int switch_placement(struct bench *b, struct pass *p, struct placer_error **err) {
  const struct placer_plan *plan = p->v->plan;
  struct placer_placement *pl = NULL;
  struct placer_writer w = placer_writer_cgroupfs(b->cg);
  if (placer_placement_compute(plan, b->prefix, NULL, 0, &pl, err) < 0 || placer_placement_write(&w, pl, err) < 0) {
    placer_placement_free(pl);
    return placer_error_prefix(err, "switch to %s", p->v->spec->name);
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < p->cluster.n_daemons; i++) {
    struct placer_bench_daemon *d = &p->cluster.daemons[i];
    const struct placer_instance *inst = placer_plan_find_daemon(plan, d->name);
    const struct placer_placed *placed = inst ? placer_placement_find(pl, inst->name) : NULL;
    if (placed == NULL) {
      rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "variant '%s' does not place daemon %s", p->v->spec->name,
                            d->name);
      break;
    }
    if (strcmp(placed->group, d->group) != 0) {
      rc = placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "variant '%s' puts daemon %s in %s, not %s where it runs: use cluster.rebuild: "
                            "per-variant",
                            p->v->spec->name, d->name, placed->group, d->group);
      break;
    }
    d->inst = inst;
    cleanup_free char *what = NULL;
    if (asprintf(&what, "switch to %s", p->v->spec->name) < 0)
      rc = placer_error_oom(err, "bench run");
    else
      rc = bench_check_daemon_threads(p, d, what, err);
  }
  placer_placement_free(pl);
  return rc;
}

static int remove_all_groups(struct bench *b, struct placer_error **err) {
  if (!placer_cgroup_exists(b->cg, b->prefix))
    return 0;
  /* What is left in there is ours (existing daemons went back with reset). */
  if (b->study->cluster.type != PLACER_STUDY_CLUSTER_EXISTING && placer_launch_kill_group(b->cg, b->prefix, 5, err) < 0)
    return -1;
  return placer_launch_remove_group(b->cg, b->prefix, false, err);
}

static char *neighbour_tag(const struct pass *p, const char *what) {
  char *t = NULL;
  return asprintf(&t, "%s-%s", p->tag, what) < 0 ? NULL : t;
}

static struct placer_bench_neighbour_env neighbour_env(struct bench *b, struct pass *p, const char *tag,
                                                       const char *log_dir) {
  return (struct placer_bench_neighbour_env){
    .cg = b->cg,
    .prefix = b->prefix,
    .plan = p->v->plan,
    .log_dir = log_dir,
    .tag = tag,
    .vm_kernel = b->vm_kernel,
    .vm_initrd = b->vm_initrd,
    .max_seconds = b->study->workloads.runtime_s + b->study->workloads.ramp_s + 300,
    .exe = b->exe,
    .topology_xml = b->topology_xml,
    .profile_path = p->v->profile_path,
    .sets = p->v->sets,
  };
}

/* The workloads' kind readies the target once per cluster (block: the
 * region written once), when the study asks for it. */
static int prefill(struct bench *b, struct pass *p, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct bench_workload_ops *kind = s->workloads.kind;
  if (!s->workloads.prefill || kind->prepare == NULL)
    return 0;
  struct bench_fio_run run = { 0 };
  char stem[200];
  snprintf(stem, sizeof(stem), "prefill-%s", p->tag);
  kind->prepare(s, &run);
  bench_fio_run_target(b, p, &run);
  snprintf(run.what, sizeof(run.what), "prefill");
  int rc = bench_fio_run_files(&run, b->out, "logs", stem, err);
  if (rc == 0) {
    bench_progress(b, "%s: prefill %s", p->tag, s->workloads.target->name);
    rc = bench_fio_run_start(b, p, &run, err);
  }
  if (rc == 0)
    rc = bench_fio_run_wait(b, &run, p->tag, 600, NULL, 0, err);
  bench_fio_run_clear(&run);
  return rc;
}

/* The neighbours alone (storage idle) at each intensity: their solo rate,
 * in every measured pass before its cells, so that each share of it (the
 * neighbours' rate next to storage over it) divides two figures of one pass,
 * measured minutes apart under the same conditions of the machine. */
static int solo(struct bench *b, struct pass *p, struct placer_error **err) {
  if (b->n_conds < 2)
    return 0; /* no neighbours: nothing to measure alone */
  cleanup_free char *log_dir = bench_path_join(b->out, "logs");
  if (log_dir == NULL)
    return placer_error_oom(err, "bench run");
  if (p->v->solo_of_first) { /* not counted in the progress line's total */
    bool all = true;
    for (size_t c = 1; c < b->n_conds; c++) {
      double rate = placer_bench_results_solo(b->results, 0, c, (size_t)p->repeat);
      all &= !isnan(rate);
      if (!isnan(rate))
        placer_bench_results_set_solo(b->results, p->vi, c, (size_t)p->repeat, rate);
    }
    if (all) {
      bench_progress(b, "%s: the neighbours are placed as in %s: its solo rate", p->tag, b->vars[0].spec->name);
      return 0;
    }
    b->runs_total += b->n_conds - 1; /* the first's missing (a pass of it stopped): measured here, as counted below */
  }
  for (size_t c = 1; c < b->n_conds && !placer_bench_stop; c++) {
    if (!isnan(placer_bench_results_solo(b->results, p->vi, c, (size_t)p->repeat))) {
      bench_runs_skipped(b, 1);
      continue; /* --resume: measured before */
    }
    cleanup_free char *tag = NULL;
    if (asprintf(&tag, "%s-solo-%s", p->tag, b->conds[c].name) < 0)
      return placer_error_oom(err, "bench run");
    b->runs_started++;
    bench_progress(b, "%s: %s alone (solo rate)", p->tag, b->conds[c].name);
    long long start = bench_now_ms();
    struct placer_bench_neighbour_env env = neighbour_env(b, p, tag, log_dir);
    struct placer_bench_neighbours nb;
    if (placer_bench_neighbours_start(b->study, &env, b->conds[c].intensity, &nb, err) < 0)
      return -1;
    if (!p->neighbour_placement_recorded) {
      for (size_t i = 0; i < nb.n; i++)
        bench_placement_row(b, p, nb.procs[i].inst->name, nb.procs[i].inst->role, nb.procs[i].spec->name,
                            nb.procs[i].rec.pid, nb.procs[i].group);
      p->neighbour_placement_recorded = true;
    }
    placer_bench_neighbours_mark(&nb, err);
    placer_bench_sleep_ms((b->study->workloads.runtime_s + b->study->workloads.ramp_s) * 1000u);
    double rate;
    double secs = (double)(bench_now_ms() - start) / 1000.0;
    if (placer_bench_neighbours_stop(&nb, b->cg, &rate, err) < 0)
      return -1;
    bench_note_run_wall(b, start);
    if (placer_bench_stop)
      break;
    if (isnan(rate))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: the neighbours reported no work rate; see %s/%s.*", tag,
                              log_dir, tag);
    placer_bench_results_set_solo(b->results, p->vi, c, (size_t)p->repeat, rate);
    FILE *f = b->solo_csv;
    char rep[16];
    snprintf(rep, sizeof(rep), "%d", p->repeat);
    bench_csv_field(f, p->v->spec->name, false);
    bench_csv_field(f, b->conds[c].name, false);
    bench_csv_field(f, rep, false);
    bench_csv_num(f, b->conds[c].level, false);
    bench_csv_num(f, rate, false);
    bench_csv_num(f, secs, true);
    bench_csv_flush(b, f);
  }
  return 0;
}

static bool is_comm(pid_t pid, const char *comm) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
  char *text = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read(path, &text, &e) < 0) {
    placer_error_free(e);
    return true; /* gone: nothing to wait for */
  }
  bool same = strncmp(text, comm, strlen(comm)) == 0;
  free(text);
  return same;
}

/* Every daemon of the pass's cluster still runs: one that died during a run
 * (an OSD killed, the OOM killer) makes the run worthless and stops the
 * study, naming it (before fio's own failure, which it causes). */
static int check_daemons(struct bench *b, struct pass *p, size_t w, size_t c, struct placer_error **err) {
  for (size_t i = 0; i < p->cluster.n_daemons; i++) {
    const struct placer_bench_daemon *d = &p->cluster.daemons[i];
    char state = d->pid > 0 ? placer_proc_state(d->pid) : 'S';
    if (state == '\0' || state == 'Z' || state == 'X')
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: %s (pid %d) exited during %s%s%s; see %s", p->tag,
                              d->name, (int)d->pid, b->wls[w].name, c ? " + " : " alone", c ? b->conds[c].name : "",
                              p->cluster_log);
  }
  return 0;
}

/* One fio run of workload W under condition C. */
static int run_cell(struct bench *b, struct pass *p, size_t w, size_t c, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const char *wname = b->wls[w].name;
  bool warmup = p->repeat < 0;
  struct placer_bench_run *run = warmup ? NULL : placer_bench_results_run(b->results, p->vi, c, w, (size_t)p->repeat);
  cleanup_free char *log_dir = bench_path_join(b->out, "logs");
  struct bench_fio_run fio = { 0 };
  char stem[256];
  snprintf(stem, sizeof(stem), "%s-%s-%s", p->tag, b->conds[c].name, wname);
  s->workloads.kind->job(s, &b->wls[w], &fio);
  bench_fio_run_target(b, p, &fio);
  snprintf(fio.what, sizeof(fio.what), "fio %s", wname);
  if (log_dir == NULL)
    return placer_error_oom(err, "bench run");
  if (bench_fio_run_files(&fio, b->out, "fio", stem, err) < 0) {
    bench_fio_run_clear(&fio);
    return -1;
  }
  b->runs_started++;
  bench_progress(b, "%s: %s%s%s", p->tag, wname, c ? " + " : " alone", c ? b->conds[c].name : "");
  long long start = bench_now_ms();

  struct placer_bench_neighbours nb = { 0 };
  bool nb_running = false;
  int rc = 0;
  if (c > 0) {
    cleanup_free char *tag = neighbour_tag(p, wname);
    struct placer_bench_neighbour_env env = neighbour_env(b, p, tag ? tag : p->tag, log_dir);
    if (placer_bench_neighbours_start(s, &env, b->conds[c].intensity, &nb, err) < 0) {
      bench_fio_run_clear(&fio);
      return -1;
    }
    nb_running = true;
    if (!p->neighbour_placement_recorded) {
      for (size_t i = 0; i < nb.n; i++)
        bench_placement_row(b, p, nb.procs[i].inst->name, nb.procs[i].inst->role, nb.procs[i].spec->name,
                            nb.procs[i].rec.pid, nb.procs[i].group);
      p->neighbour_placement_recorded = true;
    }
  }
  /* Ceph's counters over the measured window: from its start (a kind
   * without a ramp: before fio starts, so that no operation is missed) to
   * fio's exit. */
  struct bench_ceph_watch ceph = { 0 };
  if (!warmup && s->workloads.ramp_s == 0)
    rc = bench_ceph_watch_start(p, &ceph, err);
  if (rc == 0)
    rc = bench_fio_run_start(b, p, &fio, err);
  struct placer_bench_probe *probe = NULL;
  struct bench_hwm_watch watch[1 + 16];
  size_t n_watch = 0;
  struct placer_error *fio_err = NULL; /* reported after a daemon that died, its cause */
  int fio_rc = -1;
  if (rc == 0) {
    placer_bench_sleep_ms(s->workloads.ramp_s * 1000u);
    if (!p->fio_placement_recorded) {
      /* Once `placer exec` has become fio: then it is where it runs.  Under
       * load planning can take more than the ramp (1 s was seen to record
       * placer exec still on every CPU); up to 10 s. */
      for (int i = 0; i < 500 && !is_comm(fio.pid, "fio"); i++)
        placer_bench_sleep_ms(20);
      bench_placement_row(b, p, p->v->fio->name, p->v->fio->role, "fio", fio.pid, p->v->fio_group);
      p->fio_placement_recorded = true;
    }
    if (!warmup && !placer_bench_stop) {
      /* Targets: the daemons, fio (its group: it forks per job), the neighbours. */
      size_t n_targets = p->cluster.n_daemons + 1 + nb.n;
      struct placer_bench_target *targets = calloc(n_targets, sizeof(*targets));
      if (targets == NULL) {
        rc = placer_error_oom(err, "bench run");
      } else {
        size_t k = 0;
        for (size_t i = 0; i < p->cluster.n_daemons; i++, k++) {
          const struct placer_bench_daemon *d = &p->cluster.daemons[i];
          targets[k] = (struct placer_bench_target){ d->inst->name, d->inst->role, d->group, d->pid };
        }
        targets[k++] = (struct placer_bench_target){ p->v->fio->name, p->v->fio->role, p->v->fio_group, 0 };
        for (size_t i = 0; i < nb.n; i++, k++) {
          /* A guest's threads (vCPUs) are worth listing; stress-ng's parent only waits. */
          pid_t tpid = (nb.procs[i].kind->flags & BENCH_NEIGHBOUR_GUEST) ? nb.procs[i].rec.pid : 0;
          targets[k] =
              (struct placer_bench_target){ nb.procs[i].inst->name, nb.procs[i].inst->role, nb.procs[i].group, tpid };
        }
        if (s->workloads.ramp_s > 0)
          rc = bench_ceph_watch_start(p, &ceph, err);
        if (rc == 0)
          rc = placer_bench_probe_start(b->cg, "/proc", targets, n_targets, (const char *const *)p->cluster.devices,
                                        p->cluster.devices ? placer_argv_len(p->cluster.devices) : 0, &probe, err);
        if (rc == 0)
          placer_bench_neighbours_mark(&nb, err);
      }
      free(targets);
    }
    watch[n_watch++] = (struct bench_hwm_watch){ p->v->fio->name, p->v->fio_group, 0, NAN };
    for (size_t i = 0; i < nb.n && n_watch < N_OF(watch); i++)
      if (nb.procs[i].kind->flags & BENCH_NEIGHBOUR_RSS)
        watch[n_watch++] = (struct bench_hwm_watch){ nb.procs[i].inst->name, nb.procs[i].group, 0, NAN };
    /* the runtime and the grace, counted after the ramp */
    fio_rc = bench_fio_run_wait(b, &fio, p->tag, s->workloads.runtime_s + s->workloads.grace_s, watch,
                                run ? n_watch : 0, &fio_err);
    if (rc == 0 && run && !placer_bench_stop)
      rc = bench_ceph_watch_finish(&ceph, run, err);
    /* a daemon that died is the cause of what fails after (its samples) */
    if (rc == 0 && !placer_bench_stop)
      rc = check_daemons(b, p, w, c, err);
    if (rc == 0 && probe && run)
      rc = placer_bench_probe_finish(probe, "/proc", TOP_THREADS, run, err);
  }
  placer_bench_probe_free(probe);
  bench_ceph_watch_free(&ceph);
  double rate = NAN;
  if (nb_running) {
    struct placer_error *e = NULL;
    if (placer_bench_neighbours_stop(&nb, b->cg, &rate, &e) < 0 && rc == 0) {
      rc = placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
    }
    placer_error_free(e);
  }
  bench_note_run_wall(b, start);
  if (rc == 0 && !placer_bench_stop && fio_rc < 0)
    rc = placer_error_set(err, fio_err->exit_code, fio_err->errno_value, "%s", fio_err->msg);
  placer_error_free(fio_err);
  struct placer_bench_result result = { 0 };
  if (rc == 0 && !placer_bench_stop)
    rc = bench_fio_run_result(b, &fio, p->tag, s->workloads.kind, &result, err);
  if (rc == 0 && !placer_bench_stop && !warmup)
    rc = placer_bench_run_set_result(run, &result, fio.rel, err);
  placer_bench_result_free(&result);
  bench_fio_run_clear(&fio);
  if (rc < 0 || placer_bench_stop || warmup)
    return rc;
  for (size_t i = 0; i < run->n_roles; i++)
    for (size_t k = 0; k < n_watch; k++)
      if (strcmp(run->roles[i].instance, watch[k].instance) == 0) {
        if (watch[k].peak > run->roles[i].peak_rss_bytes)
          run->roles[i].peak_rss_bytes = watch[k].peak;
        if (isnan(run->roles[i].local_mem_share))
          run->roles[i].local_mem_share = watch[k].local_mem_share;
      }
  if (c > 0 && isnan(rate))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: the neighbours reported no work rate during %s", p->tag,
                            wname);
  run->neighbour_rate = c > 0 ? rate : NAN;
  run->done = true;
  bench_csv_run_rows(b, p, c, w, run);
  if (bench_write_summary(b, err) < 0) {
    run->done = false; /* its rows were cut again: --resume runs it */
    return placer_error_prefix(err, "%s: %s%s%s not recorded", p->tag, wname, c ? " + " : " alone",
                               c ? b->conds[c].name : "");
  }
  return 0;
}

static int pass_up(struct bench *b, struct pass *p, struct placer_error **err) {
  if (place_all_groups(b, p, err) < 0)
    return -1;
  if (b->study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL)
    bench_progress(b, "%s: building the cluster", p->tag);
  if (placer_bench_cluster_up(b->study, &p->cenv, &p->cluster, err) < 0)
    return -1;
  p->cluster_up = true;
  for (size_t i = 0; i < p->cluster.n_daemons; i++) {
    const struct placer_bench_daemon *d = &p->cluster.daemons[i];
    bench_placement_row(b, p, d->inst->name, d->inst->role, d->name, d->pid, d->group);
  }
  return 0;
}

static int pass_down(struct bench *b, struct pass *p, struct placer_error **err) {
  /* Also after a failed or interrupted bring-up: down cleans a half-built
   * cluster (and does nothing when none was started). */
  if (b->study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL)
    bench_progress(b, "%s: tearing down", p->tag);
  int rc = placer_bench_cluster_down(b->study, &p->cenv, &p->cluster, err);
  p->cluster_up = false;
  struct placer_error *e = NULL;
  if (bench_irqs_reset(b, &e) < 0) {
    if (rc == 0)
      rc = placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
    placer_error_clear(&e);
  }
  if (remove_all_groups(b, &e) < 0) {
    if (rc == 0)
      rc = placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
    placer_error_free(e);
  }
  return rc;
}

/* One variant in one pass.  LIVE (cluster.rebuild: never): the cluster that
 * is up already; its placement is switched to the variant. */
static int run_pass(struct bench *b, size_t vi, int repeat, unsigned warmup_index, struct pass *live,
                    struct placer_error **err) {
  struct pass p = { 0 };
  p.v = &b->vars[vi];
  p.vi = vi;
  p.repeat = repeat;
  if (repeat < 0)
    snprintf(p.tag, sizeof(p.tag), "%s-warmup%u", p.v->spec->name, warmup_index);
  else
    snprintf(p.tag, sizeof(p.tag), "%s-r%d", p.v->spec->name, repeat);
  if (asprintf(&p.cluster_log, "%s/logs/cluster-%s.log", b->out, p.tag) < 0)
    return placer_error_oom(err, "bench run");
  p.cenv = (struct placer_bench_cluster_env){
    .cg = b->cg,
    .prefix = b->prefix,
    .exe = b->exe,
    .topology_xml = b->topology_xml,
    .profile_path = p.v->profile_path,
    .sets = p.v->sets,
    .plan = p.v->plan,
    .variant = p.v->spec,
    .work_dir = b->out,
    .log = p.cluster_log,
    .fio_inst = p.v->fio,
    .target_path = b->target.path,
  };
  long long start = bench_now_ms();
  b->pass_run_wall = 0;
  int rc = 0;
  if (live) {
    p.cluster = live->cluster;
    p.cluster_up = true;
    bench_progress(b, "%s: switching the placement", p.tag);
    rc = switch_placement(b, &p, err);
    live->cluster = p.cluster;
    for (size_t i = 0; rc == 0 && i < p.cluster.n_daemons; i++) {
      const struct placer_bench_daemon *d = &p.cluster.daemons[i];
      bench_placement_row(b, &p, d->inst->name, d->inst->role, d->name, d->pid, d->group);
    }
    b->threads_checked += p.threads_checked;
    b->switches++;
  } else {
    rc = pass_up(b, &p, err);
    if (rc == 0)
      rc = prefill(b, &p, err);
  }
  if (rc == 0)
    rc = bench_irqs_place(b, p.v, err);
  if (rc == 0 && repeat >= 0)
    rc = solo(b, &p, err);
  for (size_t w = 0; rc == 0 && w < b->n_workloads && !placer_bench_stop; w++)
    for (size_t c = 0; rc == 0 && c < b->n_conds && !placer_bench_stop; c++) {
      if (repeat < 0 && c > 0)
        continue; /* a warm-up pass runs each workload alone */
      if (repeat >= 0 && bench_run_done(b, vi, c, w, (size_t)repeat)) {
        bench_runs_skipped(b, 1);
        continue; /* --resume: measured before */
      }
      rc = run_cell(b, &p, w, c, err);
    }
  if (rc == 0 && repeat >= 0 && b->study->recovery.enabled && !placer_bench_stop) {
    if (!bench_recovery_done(b, vi, (size_t)repeat))
      rc = bench_recovery_run(b, &p, err);
    else
      bench_runs_skipped(b, 1); /* --resume: measured before */
  }
  struct placer_error *e = NULL;
  if (!live && pass_down(b, &p, &e) < 0) {
    if (rc == 0)
      rc = placer_error_set(err, e->exit_code, e->errno_value, "teardown of %s: %s", p.tag, e->msg);
    else
      bench_warn(b, "teardown of %s: %s", p.tag, e->msg);
    placer_error_free(e);
  }
  b->passes_done++;
  b->overhead_sum += (double)(bench_now_ms() - start) / 1000.0 - b->pass_run_wall;
  b->overhead_n++;
  free(p.cluster_log);
  return rc;
}

/* ------------------------------------------------------------------ the study */

int placer_bench_run_study(const struct placer_study *study, const struct placer_bench_options *opt, char **report_out,
                           struct placer_bench_results **results, json_t **extra, struct placer_error **err) {
  struct bench b = { .study = study, .opt = opt };
  b.prefix = opt->prefix ? opt->prefix : PLACER_BENCH_DEFAULT_PREFIX;
  b.t0_ms = bench_now_ms();
  int rc = bench_setup(&b, err);
  bool ran = rc == 0;
  if (rc == 0 && !(b.resumed && b.baseline))
    rc = bench_hardware_baseline(&b, err);
  else if (rc == 0 && study->baseline.enabled)
    bench_runs_skipped(&b, b.n_workloads); /* --resume: measured before */
  /* cluster.rebuild: never: one cluster, placed as the first variant, its
   * placement switched before every variant's pass. */
  struct pass live = { 0 };
  bool is_live =
      study->cluster.type == PLACER_STUDY_CLUSTER_LOCAL && study->cluster.rebuild == PLACER_STUDY_REBUILD_NEVER;
  if (rc == 0 && is_live) {
    live.v = &b.vars[0];
    live.repeat = -1;
    snprintf(live.tag, sizeof(live.tag), "live");
    if (asprintf(&live.cluster_log, "%s/logs/cluster-live.log", b.out) < 0)
      rc = placer_error_oom(err, "bench run");
    live.cenv = (struct placer_bench_cluster_env){
      .cg = b.cg,
      .prefix = b.prefix,
      .exe = b.exe,
      .topology_xml = b.topology_xml,
      .profile_path = live.v->profile_path,
      .sets = live.v->sets,
      .plan = live.v->plan,
      .variant = live.v->spec,
      .work_dir = b.out,
      .log = live.cluster_log,
      .fio_inst = live.v->fio,
      .target_path = b.target.path,
    };
    if (rc == 0)
      rc = pass_up(&b, &live, err);
    if (rc == 0)
      rc = prefill(&b, &live, err);
  }
  /* Interleaved: every variant once per pass, warm-up passes first; with
   * dynamic repeats, more passes until the CIs are narrow enough. */
  unsigned passes = study->warmup + study->repeats_max;
  for (unsigned k = 0; rc == 0 && k < passes && !placer_bench_stop; k++) {
    int repeat = (int)k - (int)study->warmup;
    if (repeat >= (int)study->repeats) {
      if (bench_repeats_enough(&b, (size_t)repeat))
        break;
      for (size_t v = 0; v < b.n_vars; v++)
        b.runs_total += bench_pass_runs(&b, v, repeat); /* a dynamic pass: more to run */
      b.passes_total += b.n_vars;
    }
    for (size_t v = 0; rc == 0 && v < b.n_vars && !placer_bench_stop; v++) {
      if (bench_pass_done(&b, v, repeat)) {
        bench_runs_skipped(&b, bench_pass_runs(&b, v, repeat));
        b.passes_total = b.passes_total ? b.passes_total - 1 : 0;
        continue; /* --resume: all of it measured before */
      }
      rc = run_pass(&b, v, repeat, k, is_live ? &live : NULL, err);
    }
  }
  if (!placer_bench_stop && rc == 0 && study->repeats_max > study->repeats && b.results &&
      b.results->stop_reason == NULL)
    bench_repeats_enough(&b, study->repeats_max); /* says why it stopped at the cap */
  if (is_live && live.cluster_up) {
    struct placer_error *e = NULL;
    if (pass_down(&b, &live, &e) < 0) {
      if (rc == 0)
        rc = placer_error_set(err, e->exit_code, e->errno_value, "teardown of the cluster: %s", e->msg);
      else
        bench_warn(&b, "teardown of the cluster: %s", e->msg);
      placer_error_free(e);
    }
  }
  free(live.cluster_log);
  bench_progress_done(&b);
  if (report_out)
    *report_out = NULL;
  if (ran && b.results) {
    b.results->interrupted = placer_bench_stop || rc < 0;
    /* what stopped it, for the record (and for whoever resumes it) */
    if (rc < 0 && err && *err)
      b.stopped_by = strdup((*err)->msg);
    else if (placer_bench_stop)
      b.stopped_by = strdup("interrupted (SIGINT or SIGTERM)");
    struct placer_error *e = NULL;
    /* the hardware baseline's shares, recorded with the results they are of */
    if (b.baseline) {
      json_t *shares = placer_bench_baseline_shares(b.baseline, b.results);
      if (shares == NULL || json_object_set_new(b.baseline, "shares_alone", shares) < 0)
        placer_error_oom(&e, "hardware baseline");
    }
    /* Results that could not all be written (a full disk): summary.json
     * holds what was recorded before and report.txt is not written beside
     * it; a study that ran to its end fails with that (exit 4). */
    bool summary_written = e == NULL && bench_write_summary(&b, &e) == 0;
    /* The report of what the results directory holds, made as `placer
     * report` and `placer bench --report` make it: one route. */
    char *text = NULL;
    struct placer_error *e_report = NULL;
    if (placer_bench_report_dir(b.out, &text, &e_report) < 0) {
      bench_warn(&b, "no report: %s", e_report->msg);
      placer_error_free(e_report);
      text = strdup(""); /* what was measured is in the directory still */
    }
    if (text && summary_written)
      bench_write_report_txt(&b, text, &e);
    if (e && rc == 0)
      rc = placer_error_set(err, e->exit_code, e->errno_value, "%s", e->msg);
    else if (e)
      bench_warn(&b, "%s (results recorded before it are kept)", e->msg);
    placer_error_free(e);
    if (report_out)
      *report_out = text;
    else
      free(text);
  }
  if (results) {
    *results = b.results;
    b.results = NULL;
  }
  if (extra) {
    *extra = json_object();
    if (*extra && b.baseline)
      json_object_set(*extra, "hardware_baseline", b.baseline);
  }
  placer_bench_results_free(b.results);
  json_decref(b.baseline);
  bench_free(&b);
  if (placer_bench_stop) {
    /* Whatever failed on the way out ("interrupted") is the interruption. */
    if (err && *err) {
      placer_error_free(*err);
      *err = NULL;
    }
    return PLACER_BENCH_EXIT_INTERRUPTED;
  }
  return rc < 0 ? -1 : 0;
}
