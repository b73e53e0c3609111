/* What placer bench tells and writes while it runs: the progress line (with
 * the estimate of the time left) and warnings, handed to the caller's notify,
 * the CSV files and summary.json of the results directory. */
#include "bench/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench/target.h"
#include "cgroup/cgroup.h"
#include "lib/csv.h"
#include "lib/fsfile.h"
#include "lib/units.h"
#include "proc.h"

static double eta_s(const struct bench *b) {
  double run = b->run_wall_n ? b->run_wall_sum / (double)b->run_wall_n : placer_study_nominal_run_s(b->study);
  double over = b->overhead_n ? b->overhead_sum / (double)b->overhead_n : placer_study_pass_overhead_s(b->study);
  size_t runs_left = b->runs_total > b->runs_started ? b->runs_total - b->runs_started : 0;
  size_t passes_left = b->passes_total > b->passes_done ? b->passes_total - b->passes_done : 0;
  return (double)runs_left * run + (double)passes_left * over;
}

size_t bench_pass_runs(const struct bench *b, size_t v, int repeat) {
  if (repeat < 0)
    return b->n_workloads; /* a warm-up pass runs each workload alone */
  /* the cells, the recovery run and the neighbours' solo rate at each level */
  return b->n_workloads * b->n_conds + (b->study->recovery.enabled ? 1 : 0) +
         (b->vars[v].solo_of_first ? 0 : b->n_conds - 1);
}

void bench_runs_skipped(struct bench *b, size_t n) {
  b->runs_total = b->runs_total > n ? b->runs_total - n : 0;
}

void bench_progress(struct bench *b, const char *fmt, ...) {
  if (!b->opt->progress)
    return;
  char what[256], elapsed[32], left[32];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  placer_format_seconds((double)(bench_now_ms() - b->t0_ms) / 1000.0, elapsed, sizeof(elapsed));
  placer_format_seconds(eta_s(b), left, sizeof(left));
  char line[400];
  snprintf(line, sizeof(line), "[%zu/%zu] %s | %s elapsed, ~%s left",
           b->runs_started < b->runs_total ? b->runs_started : b->runs_total, b->runs_total, what, elapsed, left);
  if (b->opt->notify)
    b->opt->notify(b->opt->notify_ctx, PLACER_BENCH_PROGRESS, line);
  b->line_open = true;
}

void bench_progress_done(struct bench *b) {
  if (b->line_open && b->opt->notify)
    b->opt->notify(b->opt->notify_ctx, PLACER_BENCH_PROGRESS_DONE, "");
  b->line_open = false;
}

void bench_warn(struct bench *b, const char *fmt, ...) {
  if (b->opt->notify == NULL)
    return;
  char *text = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&text, fmt, ap);
  va_end(ap);
  b->opt->notify(b->opt->notify_ctx, PLACER_BENCH_WARNING, n < 0 ? fmt : text);
  free(text);
}

void bench_note_run_wall(struct bench *b, long long start) {
  double wall = (double)(bench_now_ms() - start) / 1000.0;
  b->run_wall_sum += wall;
  b->run_wall_n++;
  b->pass_run_wall += wall;
}

char *bench_path_join(const char *a, const char *b) {
  char *p = NULL;
  return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

void bench_csv_field(FILE *f, const char *s, bool last) {
  placer_csv_write_field(f, s, last);
}

void bench_csv_num(FILE *f, double x, bool last) {
  placer_csv_write_number(f, x, last);
}

void bench_csv_flush(struct bench *b, FILE *f) {
  errno = 0;
  if (fflush(f) == 0 && !ferror(f))
    return;
  int e = errno ? errno : EIO; /* a flush of a full buffer failed before (rare: open_csv's buffer is large) */
  for (size_t i = 0; i < BENCH_N_CSV && b->csv_failed == NULL; i++) {
    const char *name;
    FILE **slot = bench_csv_file(b, i, &name);
    if (*slot == f) {
      b->csv_failed = name;
      b->csv_errno = e;
    }
  }
}

FILE **bench_csv_file(struct bench *b, size_t i, const char **name) {
  static const char *const names[BENCH_N_CSV] = { "runs.csv",      "roles.csv", "threads.csv",  "cores.csv",
                                                  "placement.csv", "solo.csv",  "recovery.csv", "ceph-counters.csv" };
  FILE **slots[BENCH_N_CSV] = { &b->runs_csv,      &b->roles_csv, &b->threads_csv,  &b->cores_csv,
                                &b->placement_csv, &b->solo_csv,  &b->recovery_csv, &b->ceph_csv };
  *name = names[i];
  return slots[i];
}

/* Every CSV file back to its size when summary.json was last written: a
 * row cut by a full disk, and whole rows of runs summary.json does not
 * hold, go (--resume writes them again). */
static void csv_rollback(struct bench *b) {
  for (size_t i = 0; i < BENCH_N_CSV; i++) {
    const char *name;
    FILE *f = *bench_csv_file(b, i, &name);
    if (f == NULL)
      continue;
    fflush(f); /* what is still buffered: gone with the rest */
    if (ftruncate(fileno(f), b->csv_committed[i]) == 0)
      fseeko(f, b->csv_committed[i], SEEK_SET);
    clearerr(f);
  }
  b->csv_failed = NULL;
}

/* Append V to array A (V taken): false when either is missing (out of
 * memory), so that no entry goes missing from summary.json unnoticed. */
static bool append(json_t *a, json_t *v) {
  if (a == NULL || v == NULL) {
    json_decref(v);
    return false;
  }
  return json_array_append_new(a, v) == 0;
}

/* The study's shape, for the record and --resume; NULL out of memory. */
static json_t *study_json(const struct bench *b) {
  const struct placer_study *s = b->study;
  json_t *bs = json_array(), *pats = json_array(), *vars = json_array(), *nbs = json_array();
  bool ok = true;
  for (size_t i = 0; i < s->workloads.n_block_sizes; i++)
    ok &= append(bs, json_integer((json_int_t)s->workloads.block_sizes[i]));
  for (size_t i = 0; i < s->workloads.patterns.n; i++)
    ok &= append(pats, json_string(s->workloads.patterns.items[i]));
  for (size_t i = 0; i < b->n_vars; i++) {
    /* its changes of the profile as placer exec gets them (the study's set:
     * and a sweep step's), so that a reader can plan it as bench did */
    json_t *sets = json_array();
    for (char **kv = b->vars[i].sets; sets && kv && *kv; kv++)
      ok &= append(sets, json_string(*kv));
    ok &= sets != NULL &&
          append(vars, json_pack("{s:s, s:s, s:s, s:o}", "name", b->vars[i].spec->name, "profile",
                                 b->vars[i].profile_path, "profile_name", b->vars[i].profile->name, "set", sets));
  }
  for (size_t i = 0; i < s->n_neighbours; i++) {
    const struct placer_study_neighbour *n = &s->neighbours[i];
    ok &= append(nbs, json_pack("{s:s, s:s, s:s, s:i}", "name", n->name, "role", n->role, "kind", n->kind, "intensity",
                                (int)n->intensity));
  }
  if (!ok) {
    json_decref(bs);
    json_decref(pats);
    json_decref(vars);
    json_decref(nbs);
    return NULL;
  }
  /* json_pack takes the arrays, and drops them when it fails */
  return json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:i, s:i, s:i, s:I, s:b, s:i, s:i, s:o, s:o}", "study", s->path,
                   "cluster", placer_study_cluster_name(s->cluster.type), "target", s->workloads.target->name,
                   "block_sizes", bs, "patterns", pats, "iodepth", (int)s->workloads.iodepth, "numjobs",
                   (int)s->workloads.numjobs, "runtime_s", (int)s->workloads.runtime_s, "ramp_s",
                   (int)s->workloads.ramp_s, "size_bytes", (json_int_t)s->workloads.size_bytes, "prefill",
                   s->workloads.prefill, "warmup", (int)s->warmup, "repeats", (int)s->repeats, "variants", vars,
                   "neighbours", nbs);
}

int bench_write_summary(struct bench *b, struct placer_error **err) {
  /* The rows since the last time: all written, and how long each file is. */
  off_t sizes[BENCH_N_CSV] = { 0 };
  json_t *csv_bytes = json_object();
  for (size_t i = 0; i < BENCH_N_CSV; i++) {
    const char *name;
    FILE *f = *bench_csv_file(b, i, &name);
    if (f == NULL)
      continue;
    bench_csv_flush(b, f);
    struct stat st = { 0 };
    if (b->csv_failed == NULL && fstat(fileno(f), &st) < 0) {
      b->csv_failed = name;
      b->csv_errno = errno;
    }
    sizes[i] = b->csv_failed ? 0 : st.st_size;
    if (csv_bytes)
      json_object_set_new(csv_bytes, name, json_integer((json_int_t)sizes[i]));
  }
  if (b->csv_failed) {
    const char *name = b->csv_failed;
    int e = b->csv_errno;
    json_decref(csv_bytes);
    csv_rollback(b);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "write %s/%s", b->out, name);
  }
  json_t *j = placer_bench_results_to_json(b->results);
  if (j == NULL || csv_bytes == NULL) {
    json_decref(j);
    json_decref(csv_bytes);
    return placer_error_oom(err, "bench results");
  }
  json_t *study = study_json(b);
  if (study == NULL) {
    json_decref(j);
    json_decref(csv_bytes);
    return placer_error_oom(err, "summary.json");
  }
  const char *study_path = b->study_file ? b->study_file : b->study->path;
  char *file = study_path ? realpath(study_path, NULL) : NULL;
  if (study && file)
    json_object_set_new(study, "study_file", json_string(file));
  if (study) { /* what --resume needs to make the same passes */
    json_object_set_new(study, "repeats_max", json_integer((json_int_t)b->study->repeats_max));
    json_object_set_new(study, "ci_width", json_real(b->study->ci_width));
  }
  free(file);
  json_object_set_new(j, "study", study);
  json_object_set_new(j, "stopped_by", b->stopped_by ? json_string(b->stopped_by) : json_null());
  json_object_set(j, "hardware_baseline", b->baseline ? b->baseline : json_null());
  json_object_set_new(j, "csv_bytes", csv_bytes);
  char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(j);
  if (text == NULL)
    return placer_error_oom(err, "bench results");
  int rc = placer_file_replace(b->out, "summary.json", text, err);
  free(text);
  if (rc < 0) {
    csv_rollback(b);
    return -1;
  }
  memcpy(b->csv_committed, sizes, sizeof(sizes));
  return 0;
}

void bench_explain_unwritten(const struct bench *b, const char *path, struct placer_error **err) {
  struct statvfs st;
  if (err == NULL || *err == NULL || statvfs(b->out, &st) < 0)
    return;
  /* After a write that failed for want of room, less than a block or so
   * is left (or no inode; btrfs counts none: f_files 0). */
  if ((uint64_t)st.f_bavail * st.f_frsize >= 64 * 1024 && (st.f_files == 0 || st.f_favail > 0))
    return;
  placer_error_free(*err);
  *err = NULL;
  placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOSPC, "fio could not write %s", path);
}

int bench_write_report_txt(struct bench *b, const char *text, struct placer_error **err) {
  return placer_file_replace_bytes(b->out, "report.txt", text, strlen(text), err);
}

void bench_placement_row(struct bench *b, const struct pass *p, const char *instance, const char *role,
                         const char *what, pid_t pid, const char *group) {
  char *cpus = NULL, *mems = NULL;
  struct placer_error *e = NULL;
  if (pid > 0 && placer_task_read_allowed(pid, 0, &cpus, &mems, &e) < 0) {
    placer_error_free(e);
    cpus = mems = NULL;
  }
  char rep[16], pidtxt[16];
  snprintf(rep, sizeof(rep), "%d", p->repeat);
  snprintf(pidtxt, sizeof(pidtxt), "%d", (int)pid);
  FILE *f = b->placement_csv;
  bench_csv_field(f, p->v->spec->name, false);
  bench_csv_field(f, rep, false);
  bench_csv_field(f, instance, false);
  bench_csv_field(f, role, false);
  bench_csv_field(f, what, false);
  bench_csv_field(f, pidtxt, false);
  bench_csv_field(f, group, false);
  bench_csv_field(f, cpus ? cpus : "", false);
  bench_csv_field(f, mems ? mems : "", true);
  bench_csv_flush(b, f);
  free(cpus);
  free(mems);
}

void bench_csv_run_rows(struct bench *b, const struct pass *p, size_t c, size_t w, const struct placer_bench_run *run) {
  char rep[16];
  snprintf(rep, sizeof(rep), "%d", p->repeat);
  const char *keys[4] = { p->v->spec->name, rep, b->conds[c].name, b->wls[w].name };
  FILE *f = b->runs_csv;
  for (int i = 0; i < 4; i++)
    bench_csv_field(f, keys[i], false);
  bench_csv_num(f, b->conds[c].level, false);
  bench_csv_num(f, run->duration_s, false);
  /* runs.csv's columns are the block workload's reads and writes; a kind
   * without them leaves them empty */
  struct placer_bench_op none = placer_bench_op_none("none");
  const struct placer_bench_op *rd = placer_bench_run_op(run, "read"), *wr = placer_bench_run_op(run, "write");
  rd = rd ? rd : &none;
  wr = wr ? wr : &none;
  bench_csv_num(f, rd->iops, false);
  bench_csv_num(f, wr->iops, false);
  bench_csv_num(f, rd == &none ? NAN : (double)rd->bw_bytes, false);
  bench_csv_num(f, wr == &none ? NAN : (double)wr->bw_bytes, false);
  bench_csv_num(f, rd->clat_p50_ns, false);
  bench_csv_num(f, rd->clat_p99_ns, false);
  bench_csv_num(f, rd->clat_p999_ns, false);
  bench_csv_num(f, wr->clat_p50_ns, false);
  bench_csv_num(f, wr->clat_p99_ns, false);
  bench_csv_num(f, wr->clat_p999_ns, false);
  bench_csv_num(f, run->neighbour_rate, false);
  bench_csv_num(f, run->has_device_bytes ? (double)run->device_bytes_written : NAN, false);
  bench_csv_field(f, run->fio_json, true);
  bench_csv_flush(b, f);
  for (size_t i = 0; i < run->n_roles; i++) {
    const struct placer_bench_role_usage *u = &run->roles[i];
    for (int k = 0; k < 4; k++)
      bench_csv_field(b->roles_csv, keys[k], false);
    bench_csv_field(b->roles_csv, u->instance, false);
    bench_csv_field(b->roles_csv, u->role, false);
    bench_csv_num(b->roles_csv, (double)u->cpu_ns, false);
    bench_csv_num(b->roles_csv, run->duration_s > 0 ? (double)u->cpu_ns / 1e9 / run->duration_s : NAN, false);
    bench_csv_num(b->roles_csv, (double)u->peak_rss_bytes, false);
    bench_csv_num(b->roles_csv, u->local_mem_share, true);
  }
  bench_csv_flush(b, b->roles_csv);
  for (size_t i = 0; i < run->n_threads; i++) {
    const struct placer_bench_thread_usage *t = &run->threads[i];
    for (int k = 0; k < 4; k++)
      bench_csv_field(b->threads_csv, keys[k], false);
    bench_csv_field(b->threads_csv, t->instance, false);
    bench_csv_field(b->threads_csv, t->thread, false);
    bench_csv_num(b->threads_csv, (double)t->cpu_ns, true);
  }
  bench_csv_flush(b, b->threads_csv);
  for (size_t i = 0; i < run->n_cpus; i++) {
    if (isnan(run->cpu_busy[i]))
      continue;
    for (int k = 0; k < 4; k++)
      bench_csv_field(b->cores_csv, keys[k], false);
    fprintf(b->cores_csv, "%zu,", i);
    bench_csv_num(b->cores_csv, run->cpu_busy[i], true);
  }
  bench_csv_flush(b, b->cores_csv);
  if (b->ceph_csv && run->ceph) {
    placer_ceph_csv_write_run(b->ceph_csv, p->v->spec->name, (unsigned)p->repeat, b->conds[c].name, b->wls[w].name,
                              run->ceph);
    bench_csv_flush(b, b->ceph_csv);
  }
}
