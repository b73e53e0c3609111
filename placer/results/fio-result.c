/* Reading fio's JSON output (fio 3.x, --output-format=json); see fio-result.h. */
#include "results/fio-result.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textfile.h"

static double num(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : 0.0;
}

/* A count: negative is 0, a real past 2^64 is UINT64_MAX (converting it is undefined). */
static uint64_t u64(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  if (json_is_integer(v))
    return json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
  if (json_is_real(v) && json_real_value(v) > 0)
    return json_real_value(v) < 18446744073709551616.0 ? (uint64_t)json_real_value(v) : UINT64_MAX;
  return 0;
}

/* fio's job "error" is an errno. Any other value that is not 0 (too large for an int, not
 * whole) still marks the job failed: INT_MAX. */
static int job_error(const json_t *job) {
  double v = num(job, "error");
  if (v == 0)
    return 0;
  if (v > -2147483649.0 && v < 2147483648.0 && (double)(int)v == v)
    return (int)v;
  return INT_MAX;
}

static double percentile(const json_t *lat, const char *key) {
  const json_t *v = json_object_get(json_object_get(lat, "percentile"), key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static int parse_io(const json_t *job, const char *dir, struct placer_fio_io *io, struct placer_error **err) {
  const json_t *d = json_object_get(job, dir);
  if (!json_is_object(d))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "no \"%s\" object", dir);
  io->iops = num(d, "iops");
  io->bw_bytes = u64(d, "bw_bytes");
  io->io_bytes = u64(d, "io_bytes");
  io->total_ios = u64(d, "total_ios");
  io->runtime_ms = u64(d, "runtime");
  const json_t *clat = json_object_get(d, "clat_ns");
  /* With lat_percentiles=1 fio reports the percentiles under lat_ns instead. */
  const json_t *pct = json_object_get(clat, "percentile") ? clat : json_object_get(d, "lat_ns");
  io->clat_mean_ns = u64(clat, "N") > 0 ? num(clat, "mean") : NAN;
  io->clat_p50_ns = percentile(pct, "50.000000");
  io->clat_p99_ns = percentile(pct, "99.000000");
  io->clat_p999_ns = percentile(pct, "99.900000");
  return 0;
}

static char *option(const json_t *job, const json_t *global, const char *key) {
  const json_t *v = json_object_get(json_object_get(job, "job options"), key);
  if (!json_is_string(v))
    v = json_object_get(global, key);
  return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static int parse_job(const json_t *j, const json_t *global, struct placer_fio_job *job, struct placer_error **err) {
  const json_t *name = json_object_get(j, "jobname");
  if (!json_is_string(name))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "no \"jobname\"");
  job->name = strdup(json_string_value(name));
  job->rw = option(j, global, "rw");
  job->bs = option(j, global, "bs");
  job->error = job_error(j);
  job->job_runtime_ms = u64(j, "job_runtime");
  job->usr_cpu = num(j, "usr_cpu");
  job->sys_cpu = num(j, "sys_cpu");
  if (parse_io(j, "read", &job->read, err) < 0 || parse_io(j, "write", &job->write, err) < 0)
    return placer_error_prefix(err, "job '%s'", job->name);
  return 0;
}

static double nan_max(double a, double b) {
  if (isnan(a))
    return b;
  return isnan(b) || a >= b ? a : b;
}

static void add_io(struct placer_fio_io *sum, const struct placer_fio_io *io) {
  double weighted = 0;
  if (sum->total_ios > 0 && !isnan(sum->clat_mean_ns))
    weighted += sum->clat_mean_ns * (double)sum->total_ios;
  if (io->total_ios > 0 && !isnan(io->clat_mean_ns))
    weighted += io->clat_mean_ns * (double)io->total_ios;
  sum->iops += io->iops;
  sum->bw_bytes += io->bw_bytes;
  sum->io_bytes += io->io_bytes;
  sum->total_ios += io->total_ios;
  sum->clat_mean_ns = sum->total_ios > 0 ? weighted / (double)sum->total_ios : NAN;
  if (io->runtime_ms > sum->runtime_ms)
    sum->runtime_ms = io->runtime_ms;
  sum->clat_p50_ns = nan_max(sum->clat_p50_ns, io->clat_p50_ns);
  sum->clat_p99_ns = nan_max(sum->clat_p99_ns, io->clat_p99_ns);
  sum->clat_p999_ns = nan_max(sum->clat_p999_ns, io->clat_p999_ns);
}

static void sum_jobs(struct placer_fio_result *r) {
  struct placer_fio_job *t = &r->total;
  t->name = strdup("total");
  t->read.clat_mean_ns = t->write.clat_mean_ns = NAN;
  t->read.clat_p50_ns = t->read.clat_p99_ns = t->read.clat_p999_ns = NAN;
  t->write.clat_p50_ns = t->write.clat_p99_ns = t->write.clat_p999_ns = NAN;
  for (size_t i = 0; i < r->n_jobs; i++) {
    const struct placer_fio_job *j = &r->jobs[i];
    add_io(&t->read, &j->read);
    add_io(&t->write, &j->write);
    t->usr_cpu += j->usr_cpu;
    t->sys_cpu += j->sys_cpu;
    if (j->job_runtime_ms > t->job_runtime_ms)
      t->job_runtime_ms = j->job_runtime_ms;
    if (j->error != 0 && r->n_failed_jobs++ == 0)
      t->error = j->error;
  }
}

int placer_fio_result_parse(const char *text, struct placer_fio_result **out, struct placer_error **err) {
  const char *start = text;
  while (*start && *start != '{') {
    const char *nl = strchr(start, '\n');
    start = nl ? nl + 1 : start + strlen(start);
  }
  json_error_t jerr;
  json_t *root = json_loads(start, JSON_DISABLE_EOF_CHECK, &jerr);
  if (root == NULL) {
    int skipped = 0;
    for (const char *c = text; c < start; c++)
      skipped += *c == '\n';
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "not fio JSON output: line %d: %s", jerr.line + skipped,
                            jerr.text);
  }
  struct placer_fio_result *r = calloc(1, sizeof(*r));
  const json_t *jobs = json_object_get(root, "jobs");
  int rc = 0;
  if (r == NULL) {
    rc = placer_error_oom(err, "fio JSON");
    goto out;
  }
  if (!json_is_array(jobs)) {
    rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "not fio JSON output: no \"jobs\" array");
    goto out;
  }
  const json_t *version = json_object_get(root, "fio version");
  r->fio_version = strdup(json_is_string(version) ? json_string_value(version) : "");
  r->timestamp = (int64_t)num(root, "timestamp");
  r->jobs = calloc(json_array_size(jobs) + 1, sizeof(*r->jobs));
  if (r->jobs == NULL) {
    rc = placer_error_oom(err, "fio JSON");
    goto out;
  }
  const json_t *global = json_object_get(root, "global options");
  for (size_t i = 0; i < json_array_size(jobs); i++) {
    r->n_jobs++;
    if ((rc = parse_job(json_array_get(jobs, i), global, &r->jobs[i], err)) < 0) {
      placer_error_prefix(err, "fio JSON: jobs[%zu]", i);
      goto out;
    }
  }
  sum_jobs(r);
  *out = TAKE_PTR(r);
out:
  placer_fio_result_free(r);
  json_decref(root);
  return rc;
}

int placer_fio_result_load(const char *path, struct placer_fio_result **out, struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (placer_textfile_read(path, &text, err) < 0)
    return -1;
  if (placer_fio_result_parse(text, out, err) < 0)
    return placer_error_prefix(err, "'%s'", path);
  return 0;
}

static void job_clear(struct placer_fio_job *j) {
  free(j->name);
  free(j->rw);
  free(j->bs);
}

void placer_fio_result_free(struct placer_fio_result *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_jobs; i++)
    job_clear(&r->jobs[i]);
  job_clear(&r->total);
  free(r->jobs);
  free(r->fio_version);
  free(r);
}
