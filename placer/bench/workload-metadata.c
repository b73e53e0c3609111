/* Workload kind metadata: files created, stat'ed and deleted on CephFS, the
 * load the MDS serves.  One fio run a cell: JOBS clients (fio jobs) at once
 * create FILES files in all, then stat them, then delete them (fio 3.33's
 * filecreate, filestat and filedelete engines, each phase a stonewalled group
 * of its own), over a tree of DIRECTORIES directories below workloads.path in
 * the mount: job J works in directory J mod DIRECTORIES (as many as the jobs:
 * each client its own, as mdtest -u; one: every client in one directory).
 * A run leaves the tree's directories empty, as the next run needs them.
 * Why one fio run and these options (measured on fio 3.33, docs/bench.md,
 * "Workload kind metadata"): fio lays out, before any job starts, the files
 * of every job that reads or deletes them, so without create_on_open=1 the
 * creates happen in that setup, unmeasured, and the create job only opens
 * them again; and a job on a file smaller than its size lays it out anew
 * (unlink and create) before stat'ing it. */
#include "bench/workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/study-internal.h"
#include "bench/target.h"
#include "lib/array.h"
#include "lib/substitute.h"
#include "results/fio-result.h"
#include "results/results.h"

#define WORKLOADS_AT(field) offsetof(struct placer_study_workloads, field)

/* Each phase: its operation's name (the job's in fio's output), its engine,
 * and the direction fio counts it in. */
static const struct {
  const char *op, *engine, *rw;
} phases[] = {
  { "create", "filecreate", "write" },
  { "stat", "filestat", "read" },
  { "delete", "filedelete", "read" },
};

static const struct pyaml_field metadata_keys[] = {
  { .key = "files", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(files), .max = PLACER_BENCH_MAX_FILES },
  { .key = "directories",
    .type = PYAML_FIELD_UINT,
    .offset = WORKLOADS_AT(directories),
    .min = 1,
    .max = PLACER_BENCH_MAX_JOBS },
  { .key = "numjobs",
    .type = PYAML_FIELD_UINT,
    .offset = WORKLOADS_AT(numjobs),
    .min = 1,
    .max = PLACER_BENCH_MAX_JOBS },
};

static size_t metadata_count(const struct placer_study *s) {
  (void)s;
  return 1;
}

/* A name in the mount that fio takes as it is in a file name's format: no
 * '$' (fio's $jobnum), no ':' (its list separator), nothing a shell or a
 * path would read. */
static bool tree_name_ok(const char *s) {
  if (*s == '\0' || *s == '.')
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
          *s == '.'))
      return false;
  return true;
}

/* The study's files, directories and jobs; every run's tree is below
 * workloads.path (default "placer-metadata") in the mount.  A run has no ramp
 * (it is not time-based: each operation is counted once). */
static int metadata_settle(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root, yaml_node_t *section) {
  struct placer_study_workloads *wl = &s->workloads;
  /* keys every kind takes that mean nothing here (the block kind's own are
   * unknown keys in a metadata study's workloads) */
  static const char *const not_here[] = { "ramp", "size", "prefill", NULL };
  for (size_t i = 0; not_here[i]; i++)
    if (pyaml_walk_lookup_key(w, section, not_here[i]))
      return study_key_error(w, root, "workloads", not_here[i],
                             "does not go with kind metadata (a run creates, stats and deletes 'files' files, each "
                             "once, with no ramp)");
  static const char *const sections[] = { "hardware_baseline", "recovery", NULL };
  for (size_t i = 0; sections[i]; i++)
    if (pyaml_walk_lookup_key(w, root, sections[i]))
      return study_key_error(w, root, NULL, sections[i], "does not go with workloads of kind metadata");
  if (!pyaml_walk_lookup_key(w, section, "files"))
    return study_key_error(w, root, "workloads", "kind", "kind metadata needs 'files' (how many a run creates)");
  if (wl->files == 0)
    return study_key_error(w, root, "workloads", "files", "0 files: a run creates at least one file per job");
  if (wl->numjobs == 0)
    wl->numjobs = 1;
  if (wl->directories == 0)
    wl->directories = wl->numjobs;
  if (wl->numjobs > wl->files)
    return study_key_error(w, root, "workloads", "numjobs",
                           "%u jobs for %u files: every job creates at least one file (at most %u jobs)", wl->numjobs,
                           wl->files, wl->files);
  if (wl->files % wl->numjobs)
    return study_key_error(w, root, "workloads", "files",
                           "%u files over %u jobs: give a multiple of numjobs (each job creates as many)", wl->files,
                           wl->numjobs);
  if (wl->directories > wl->numjobs)
    return study_key_error(w, root, "workloads", "directories",
                           "%u directories for %u jobs: each job works in one directory, so at most numjobs",
                           wl->directories, wl->numjobs);
  if (!pyaml_walk_lookup_key(w, section, "path")) {
    free(wl->path);
    if ((wl->path = strdup("placer-metadata")) == NULL)
      return study_oom(w);
  }
  if (!tree_name_ok(wl->path))
    return study_key_error(w, root, "workloads", "path",
                           "'%s': for kind metadata, the tree's directory in the mount: a name of letters, digits, "
                           "'-', '_' and '.'",
                           wl->path);
  wl->ramp_s = 0;
  wl->iodepth = 1;
  wl->prefill = false;
  return 0;
}

static int metadata_workload(const struct placer_study *s, size_t i, struct placer_bench_workload *out,
                             struct placer_error **err) {
  (void)i;
  *out = (struct placer_bench_workload){ .kind = PLACER_BENCH_WORKLOAD_METADATA,
                                         .files = s->workloads.files,
                                         .directories = s->workloads.directories,
                                         .jobs = s->workloads.numjobs };
  out->name = strdup("metadata");
  out->pattern = strdup("");
  if (out->name == NULL || out->pattern == NULL || placer_bench_workload_metadata(out, err) < 0) {
    placer_bench_workload_clear(out);
    return placer_error_oom(err, "workload");
  }
  return 0;
}

/* fio's jobs: for each phase, one job per client ("--name=create", its
 * engine, its files), the first of a phase stonewalled behind the one before
 * and in a reporting group of its own, so that fio reports each phase as one
 * job named after its operation. */
static int metadata_jobs(const struct placer_study *s, char ***jobs) {
  const struct placer_study_workloads *wl = &s->workloads;
  int rc = 0;
  for (size_t p = 0; p < N_OF(phases); p++)
    for (unsigned j = 0; j < wl->numjobs; j++) {
      rc |= placer_argv_pushf(jobs, "--name=%s", phases[p].op);
      if (j == 0 && p > 0) {
        rc |= placer_argv_push(jobs, "--stonewall");
        rc |= placer_argv_push(jobs, "--new_group");
      }
      rc |= placer_argv_pushf(jobs, "--ioengine=%s", phases[p].engine);
      rc |= placer_argv_pushf(jobs, "--rw=%s", phases[p].rw);
      /* the same names in every phase: fio's $filenum, never $jobname */
      rc |= placer_argv_pushf(jobs, "--filename_format=%s/d%u/f%u.$filenum", wl->path, j % wl->directories, j);
    }
  return rc;
}

/* One job per client and phase: the files each job has, each of them once
 * (not time-based: runtime_s 0), no ramp; the files made when their job opens
 * them (create_on_open), laid out by no one. */
static void metadata_job(const struct placer_study *s, const struct placer_bench_workload *w,
                         struct bench_fio_run *run) {
  const struct placer_study_workloads *wl = &s->workloads;
  unsigned per_job = wl->files / wl->numjobs;
  run->name = w->name;
  snprintf(run->rw, sizeof(run->rw), "write");
  snprintf(run->bs, sizeof(run->bs), "4096");
  run->iodepth = 1;
  run->numjobs = 1;
  run->runtime_s = 0;
  run->ramp_s = 0;
  run->size_bytes = (uint64_t)per_job * 4096;
  run->study_options = true;
  run->engine = phases[0].engine;
  run->in_directory = true;
  int rc = placer_argv_pushf(&run->args, "--nrfiles=%u", per_job);
  rc |= placer_argv_push(&run->args, "--filesize=4096");
  rc |= placer_argv_push(&run->args, "--openfiles=1");
  rc |= placer_argv_push(&run->args, "--create_on_open=1");
  rc |= metadata_jobs(s, &run->jobs);
  if (rc != 0) { /* out of memory: a run without its jobs, which fio refuses (no job) */
    placer_argv_free(run->jobs);
    run->jobs = NULL;
  }
}

/* fio's JSON, one job a phase (group_reporting): each operation's figures
 * from its job, in the direction fio counted it. */
static int metadata_parse(const char *text, size_t len, struct placer_bench_result *out, struct placer_error **err) {
  (void)len;
  struct placer_fio_result *fio = NULL;
  if (placer_fio_result_parse(text, &fio, err) < 0)
    return -1;
  int rc = 0;
  for (size_t p = 0; rc == 0 && p < N_OF(phases); p++) {
    const struct placer_fio_job *job = NULL;
    for (size_t k = 0; k < fio->n_jobs && job == NULL; k++)
      if (strcmp(fio->jobs[k].name, phases[p].op) == 0)
        job = &fio->jobs[k];
    if (job == NULL) {
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "no job '%s' in fio's output", phases[p].op);
      break;
    }
    const struct placer_fio_io *io = strcmp(phases[p].rw, "read") == 0 ? &job->read : &job->write;
    struct placer_bench_op op = placer_bench_op_none(phases[p].op);
    op.iops = io->iops;
    op.total_ios = io->total_ios;
    op.runtime_ms = io->runtime_ms;
    op.clat_mean_ns = io->clat_mean_ns;
    op.clat_p50_ns = io->clat_p50_ns;
    op.clat_p99_ns = io->clat_p99_ns;
    op.clat_p999_ns = io->clat_p999_ns;
    rc = placer_bench_result_add_op(out, &op, err);
  }
  out->failed_jobs = fio->n_failed_jobs;
  placer_fio_result_free(fio);
  return rc;
}

const struct bench_workload_ops bench_workload_metadata = {
  .name = "metadata",
  .flags = BENCH_WORKLOAD_CELLS,
  .section = "workloads",
  .keys = metadata_keys,
  .n_keys = N_OF(metadata_keys),
  .target_needs = BENCH_TARGET_MOUNT_PATH,
  .storage = PLACER_KIND_CEPH_MDS,
  .settle = metadata_settle,
  .count = metadata_count,
  .workload = metadata_workload,
  .job = metadata_job,
  .parse = metadata_parse,
};
