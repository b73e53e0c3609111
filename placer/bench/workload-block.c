/* Workload kind block: fio's block I/O, the study's cells.  Its workloads are
 * the matrix block_sizes x patterns ("4k-randwrite"), each run fio at the
 * study's iodepth and numjobs for the runtime after the ramp; its prepare
 * writes the region once (4M sequential), so that reads read data and writes
 * overwrite.  A run's result is fio's sums over its jobs, reads and writes;
 * the main metric IOPS, or MB/s for blocks of 64 KiB and more
 * (placer_bench_workload_block). */
#include "bench/workload.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/study-internal.h"
#include "lib/array.h"
#include "lib/units.h"
#include "report/report.h" /* placer_bench_format_block_size */
#include "results/fio-result.h"

#define MAX_WORKLOADS 64

/* fio rw= values placer knows how to report. */
static const char *const pattern_names[] = {
  "read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite", NULL,
};

static int parse_block_sizes(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  if (v->type != YAML_SEQUENCE_NODE || study_seq_len(v) == 0)
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty list of sizes such as [4K, 128K, 4M]");
  size_t n = study_seq_len(v);
  free(wl->block_sizes);
  wl->n_block_sizes = 0;
  wl->block_sizes = calloc(n, sizeof(*wl->block_sizes));
  if (wl->block_sizes == NULL)
    return study_oom(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = study_seq_item(w, v, i);
    uint64_t bytes;
    const char *why;
    if (!pyaml_walk_is_scalar(item) || placer_parse_bytes(pyaml_walk_scalar(item), &bytes, &why) < 0)
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: expected a size such as 4K or 4M", i);
    if (bytes < 512 || bytes % 512 != 0 || bytes > (UINT64_C(1) << 30))
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: '%s': a block size is a multiple of 512 bytes, at most 1G",
                                  i, pyaml_walk_scalar(item));
    for (size_t j = 0; j < i; j++)
      if (wl->block_sizes[j] == bytes)
        return pyaml_walk_key_error(w, item, f->key, "[%zu]: block size '%s' is listed twice", i,
                                    pyaml_walk_scalar(item));
    wl->block_sizes[wl->n_block_sizes++] = bytes;
  }
  return 0;
}

static int parse_patterns(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_study_workloads *wl = target;
  if (v->type != YAML_SEQUENCE_NODE || study_seq_len(v) == 0)
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty list such as [randwrite, randread]");
  placer_string_list_free(&wl->patterns);
  for (size_t i = 0; i < study_seq_len(v); i++) {
    yaml_node_t *item = study_seq_item(w, v, i);
    const char *s = pyaml_walk_is_scalar(item) ? pyaml_walk_scalar(item) : "";
    bool known = false;
    for (size_t k = 0; pattern_names[k] && !known; k++)
      known = strcmp(pattern_names[k], s) == 0;
    if (!known)
      return pyaml_walk_key_error(w, item, f->key,
                                  "[%zu]: unknown pattern '%s' (read, write, randread, randwrite, rw, randrw, trim, "
                                  "randtrim, trimwrite)",
                                  i, s);
    if (placer_string_list_has(&wl->patterns, s))
      return pyaml_walk_key_error(w, item, f->key, "[%zu]: pattern '%s' is listed twice", i, s);
    if (placer_string_list_add(&wl->patterns, s) < 0)
      return study_oom(w);
  }
  return 0;
}

#define WORKLOADS_AT(field) offsetof(struct placer_study_workloads, field)

static const struct pyaml_field block_keys[] = {
  { .key = "block_sizes", .type = PYAML_FIELD_CUSTOM, .parse = parse_block_sizes },
  { .key = "patterns", .type = PYAML_FIELD_CUSTOM, .parse = parse_patterns },
  { .key = "iodepth", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(iodepth), .min = 1, .max = 4096 },
  { .key = "numjobs", .type = PYAML_FIELD_UINT, .offset = WORKLOADS_AT(numjobs), .min = 1, .max = 256 },
  { .key = "load", .type = PYAML_FIELD_CUSTOM, .parse = study_parse_load },
};

/* Each load step of a response curve is a workload of its own (a cell). */
static size_t steps_of(const struct placer_study *s) {
  return s->workloads.n_load_steps ? s->workloads.n_load_steps : 1;
}

static size_t block_count(const struct placer_study *s) {
  return s->workloads.n_block_sizes * s->workloads.patterns.n * steps_of(s);
}

/* Defaults: 4K, randwrite and randread, iodepth 16, one job. */
static int block_settle(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root, yaml_node_t *section) {
  (void)section;
  struct placer_study_workloads *wl = &s->workloads;
  if (wl->iodepth == 0)
    wl->iodepth = 16;
  if (wl->numjobs == 0)
    wl->numjobs = 1;
  if (wl->n_block_sizes == 0) {
    if ((wl->block_sizes = calloc(1, sizeof(*wl->block_sizes))) == NULL)
      return study_oom(w);
    wl->block_sizes[0] = 4096;
    wl->n_block_sizes = 1;
  }
  if (wl->patterns.n == 0 &&
      (placer_string_list_add(&wl->patterns, "randwrite") < 0 || placer_string_list_add(&wl->patterns, "randread") < 0))
    return study_oom(w);
  for (size_t i = 0; i < wl->n_block_sizes; i++)
    if (wl->block_sizes[i] > wl->size_bytes)
      return study_key_error(w, root, "workloads", "block_sizes", "a block size is larger than 'size'");
  if (block_count(s) > MAX_WORKLOADS)
    return study_key_error(w, root, "workloads", wl->n_load_steps ? "load" : "patterns",
                           "at most 64 workloads (block sizes x patterns%s)", wl->n_load_steps ? " x load steps" : "");
  return 0;
}

/* Block size major: "4k-randwrite", "4k-randread", "128k-randwrite", ... */
static int block_workload(const struct placer_study *s, size_t i, struct placer_bench_workload *out,
                          struct placer_error **err) {
  const struct placer_study_workloads *wl = &s->workloads;
  size_t np = wl->patterns.n, ns = steps_of(s), step = i % ns;
  i /= ns; /* a curve's steps follow each other: "4k-randwrite@iodepth1", "4k-randwrite@iodepth4", ... */
  uint64_t bs = wl->block_sizes[i / np];
  char label[32];
  placer_bench_format_block_size(bs, label, sizeof(label));
  for (char *p = label; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  *out = (struct placer_bench_workload){ .block_size_bytes = bs };
  bool ok = asprintf(&out->curve, "%s-%s", label, wl->patterns.items[i % np]) >= 0;
  if (!ok)
    out->curve = NULL;
  if (ok && wl->n_load_steps) {
    snprintf(out->load_name, sizeof(out->load_name), "%s", placer_study_load_name(wl->load));
    out->load = wl->load_steps[step];
    ok = asprintf(&out->name, "%s@%s%.0f", out->curve, out->load_name, out->load) >= 0;
    if (!ok)
      out->name = NULL;
  } else if (ok) {
    out->name = out->curve; /* no load steps: a workload of its own, no curve */
    out->curve = NULL;
  }
  out->pattern = strdup(wl->patterns.items[i % np]);
  if (!ok || out->name == NULL || out->pattern == NULL || placer_bench_workload_block(out, err) < 0) {
    placer_bench_workload_clear(out);
    return placer_error_oom(err, "workload");
  }
  return 0;
}

static void block_job(const struct placer_study *s, const struct placer_bench_workload *w, struct bench_fio_run *run) {
  const struct placer_study_workloads *wl = &s->workloads;
  run->name = w->name;
  snprintf(run->rw, sizeof(run->rw), "%s", w->pattern);
  snprintf(run->bs, sizeof(run->bs), "%" PRIu64, w->block_size_bytes);
  run->iodepth = wl->iodepth;
  run->numjobs = wl->numjobs;
  /* a load step sets its knob: fio's rate is per job, the step the total */
  if (w->curve && strcmp(w->load_name, "iodepth") == 0)
    run->iodepth = (unsigned)w->load;
  else if (w->curve && strcmp(w->load_name, "numjobs") == 0)
    run->numjobs = (unsigned)w->load;
  else if (w->curve && strcmp(w->load_name, "rate_iops") == 0)
    run->rate_iops = (unsigned)ceil(w->load / run->numjobs);
  run->runtime_s = wl->runtime_s;
  run->ramp_s = wl->ramp_s;
  run->size_bytes = wl->size_bytes;
  run->study_options = true;
}

/* The region written once, sequentially in 4M blocks: reads read data,
 * writes overwrite (a thin image or a new file would answer reads with
 * zeros it never stored). */
static void block_prepare(const struct placer_study *s, struct bench_fio_run *run) {
  run->name = "prefill";
  snprintf(run->rw, sizeof(run->rw), "write");
  snprintf(run->bs, sizeof(run->bs), "4M");
  run->iodepth = 4;
  run->numjobs = 1;
  run->runtime_s = 0;
  run->size_bytes = s->workloads.size_bytes;
  run->study_options = false;
}

/* fio's JSON: its sums over the jobs, reads and writes. */
static int block_parse(const char *text, size_t len, struct placer_bench_result *out, struct placer_error **err) {
  (void)len;
  struct placer_fio_result *fio = NULL;
  if (placer_fio_result_parse(text, &fio, err) < 0)
    return -1;
  const struct placer_fio_io *io[] = { &fio->total.read, &fio->total.write };
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < N_OF(io); i++) {
    struct placer_bench_op op = placer_bench_op_none(placer_bench_block_ops[i]);
    op.iops = io[i]->iops;
    op.bw_bytes = io[i]->bw_bytes;
    op.io_bytes = io[i]->io_bytes;
    op.total_ios = io[i]->total_ios;
    op.runtime_ms = io[i]->runtime_ms;
    op.clat_mean_ns = io[i]->clat_mean_ns;
    op.clat_p50_ns = io[i]->clat_p50_ns;
    op.clat_p99_ns = io[i]->clat_p99_ns;
    op.clat_p999_ns = io[i]->clat_p999_ns;
    rc = placer_bench_result_add_op(out, &op, err);
  }
  out->failed_jobs = fio->n_failed_jobs;
  placer_fio_result_free(fio);
  return rc;
}

const struct bench_workload_ops bench_workload_block = {
  .name = "block",
  .flags = BENCH_WORKLOAD_CELLS,
  .section = "workloads",
  .keys = block_keys,
  .n_keys = N_OF(block_keys),
  .storage = PLACER_KIND_CEPH_OSD,
  .settle = block_settle,
  .count = block_count,
  .workload = block_workload,
  .job = block_job,
  .prepare = block_prepare,
  .parse = block_parse,
};
