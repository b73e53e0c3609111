/* A results directory's ceph-counters.csv, read back against its
 * summary.json: the file is data (a CI job's artifact, a directory copied
 * from a node), so `placer report` and `compare` refuse one that is damaged
 * (cut, edited, another study's) as they refuse a damaged summary.json. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/textfile.h"
#include "results/results.h"

/* "unpinned-r0 alone metadata": a run in messages. */
static void run_name(const struct placer_ceph_csv_run *c, char *buf, size_t len) {
  snprintf(buf, len, "%s-r%u %s %s", c->variant, c->repeat, c->condition, c->workload);
}

/* What differs between a daemon's counters in the two files, or NULL. */
static const char *daemon_differs(const struct placer_ceph_delta *a, const struct placer_ceph_delta *b, char *buf,
                                  size_t len) {
  if (strcmp(a->daemon, b->daemon) != 0 || a->state != b->state || strcmp(a->why, b->why) != 0) {
    snprintf(buf, len, "%s %s here, %s %s in summary.json", a->daemon, placer_ceph_delta_state_names[a->state],
             b->daemon, placer_ceph_delta_state_names[b->state]);
    return buf;
  }
  if (a->n != b->n) {
    snprintf(buf, len, "%s has %zu counters here, %zu in summary.json", a->daemon, a->n, b->n);
    return buf;
  }
  for (size_t k = 0; k < a->n; k++) {
    const struct placer_ceph_counter *x = &a->counters[k], *y = &b->counters[k];
    if (strcmp(x->name, y->name) != 0 || x->count != y->count || x->sum_ns != y->sum_ns) {
      snprintf(buf, len, "%s's %s is %llu (%llu ns) here and %s %llu (%llu ns) in summary.json", a->daemon, x->name,
               (unsigned long long)x->count, (unsigned long long)x->sum_ns, y->name, (unsigned long long)y->count,
               (unsigned long long)y->sum_ns);
      return buf;
    }
  }
  return NULL;
}

/* Each run of the file is a run of R with the same counters, and R has no
 * other run with counters. */
static int compare_runs(const char *path, const struct placer_ceph_csv_run *runs, size_t n,
                        const struct placer_bench_results *r, struct placer_error **err) {
  char name[600], why[400];
  size_t with = 0;
  for (size_t i = 0; i < r->n_variants * r->n_conditions * r->n_workloads * r->repeats; i++)
    with += r->runs[i].done && r->runs[i].ceph;
  for (size_t i = 0; i < n; i++) {
    const struct placer_ceph_csv_run *c = &runs[i];
    int v = placer_bench_results_variant_index(r, c->variant),
        k = placer_bench_results_condition_index(r, c->condition),
        w = placer_bench_results_workload_index(r, c->workload);
    const struct placer_bench_run *run =
        v < 0 || k < 0 || w < 0 ? NULL : placer_bench_results_run_const(r, (size_t)v, (size_t)k, (size_t)w, c->repeat);
    run_name(c, name, sizeof(name));
    if (run == NULL || !run->done || run->ceph == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: run %s: summary.json has no counters of it", path, name);
    if (run->ceph->n != c->counters.n)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: run %s: %zu daemons here, %zu in summary.json", path,
                              name, c->counters.n, run->ceph->n);
    for (size_t d = 0; d < run->ceph->n; d++)
      if (daemon_differs(&c->counters.daemons[d], &run->ceph->daemons[d], why, sizeof(why)))
        return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: run %s: %s", path, name, why);
  }
  if (n != with)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "%s: the counters of %zu runs, but summary.json holds the counters of %zu", path, n, with);
  return 0;
}

int placer_bench_results_check_ceph_csv(const char *dir, const json_t *summary, const struct placer_bench_results *r,
                                        struct placer_error **err) {
  cleanup_free char *path = NULL, *text = NULL;
  if (asprintf(&path, "%s/ceph-counters.csv", dir) < 0)
    return placer_error_oom(err, "results");
  struct stat st;
  if (lstat(path, &st) < 0 && errno == ENOENT) {
    bool any = false;
    for (size_t i = 0; !any && i < r->n_variants * r->n_conditions * r->n_workloads * r->repeats; i++)
      any = r->runs[i].done && r->runs[i].ceph;
    return any ? placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                                  "%s: missing, but summary.json holds Ceph's counters of its runs", path)
               : 0;
  }
  size_t len = 0;
  if (placer_textfile_read_input("counters file", path, PLACER_CEPH_CSV_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  /* The rows of the runs summary.json holds: a study stopped after a row
   * and before summary.json may have written more (--resume cuts them). */
  const json_t *committed = json_object_get(json_object_get(summary, "csv_bytes"), "ceph-counters.csv");
  if (json_is_integer(committed)) {
    json_int_t want = json_integer_value(committed);
    if (want < 0 || (size_t)want > len)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: %zu bytes, but summary.json recorded %lld", path, len,
                              (long long)want);
    len = (size_t)want;
  }
  struct placer_ceph_csv_run *runs = NULL;
  size_t n = 0;
  if (placer_ceph_csv_parse(path, text, len, &runs, &n, err) < 0)
    return -1;
  int rc = compare_runs(path, runs, n, r, err);
  placer_ceph_csv_runs_free(runs, n);
  return rc;
}
