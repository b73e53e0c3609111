/* Recovery as a workload: the figures of each run, their JSON, the report's
 * section, and the parsers of what the measuring reads (fio's status stream,
 * the PG states followed).  Pure. */
#include "results/recovery.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/stats.h"
#include "lib/text-table.h"
#include "lib/units.h"
#include "lib/json-str.h"

#define DASH "-"

int placer_bench_recovery_new(const char *action, const char *daemon, const char *workload, double at_s, double down_s,
                              size_t n_variants, size_t repeats, struct placer_bench_recovery **out,
                              struct placer_error **err) {
  if (n_variants == 0 || repeats == 0 || !action || !daemon || !workload)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "recovery: no variants, repeats or daemon");
  struct placer_bench_recovery *r = calloc(1, sizeof(*r));
  if (r == NULL || (r->runs = calloc(n_variants * repeats, sizeof(*r->runs))) == NULL ||
      (r->action = strdup(action)) == NULL || (r->daemon = strdup(daemon)) == NULL ||
      (r->workload = strdup(workload)) == NULL) {
    placer_bench_recovery_free(r);
    return placer_error_oom(err, "recovery results");
  }
  r->at_s = at_s;
  r->down_s = down_s;
  r->n_variants = n_variants;
  r->repeats = repeats;
  for (size_t i = 0; i < n_variants * repeats; i++)
    placer_bench_recovery_run_init(&r->runs[i]);
  *out = r;
  return 0;
}

static void run_clear(struct placer_bench_recovery_run *run) {
  free(run->fio_json);
  free(run->watch_log);
  for (size_t i = 0; i < run->n_roles; i++) {
    free(run->roles[i].instance);
    free(run->roles[i].role);
  }
  free(run->roles);
}

void placer_bench_recovery_free(struct placer_bench_recovery *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; r->runs && i < r->n_variants * r->repeats; i++)
    run_clear(&r->runs[i]);
  free(r->runs);
  free(r->action);
  free(r->daemon);
  free(r->workload);
  free(r);
}

void placer_bench_recovery_run_init(struct placer_bench_recovery_run *run) {
  run_clear(run);
  *run = (struct placer_bench_recovery_run){
    .detect_s = NAN,
    .down_s = NAN,
    .recovery_s = NAN,
    .total_s = NAN,
    .iops_before = NAN,
    .iops_during = NAN,
    .iops_min = NAN,
    .degraded_peak = NAN,
  };
}

struct placer_bench_recovery_run *placer_bench_recovery_run(struct placer_bench_recovery *r, size_t variant,
                                                            size_t repeat) {
  if (r == NULL || variant >= r->n_variants || repeat >= r->repeats)
    return NULL;
  return &r->runs[variant * r->repeats + repeat];
}

const struct placer_bench_recovery_run *placer_bench_recovery_run_const(const struct placer_bench_recovery *r,
                                                                        size_t variant, size_t repeat) {
  return placer_bench_recovery_run((struct placer_bench_recovery *)r, variant, repeat);
}

int placer_bench_recovery_run_add_role(struct placer_bench_recovery_run *run, const char *instance, const char *role,
                                       uint64_t rss_before_bytes, uint64_t rss_peak_bytes, struct placer_error **err) {
  struct placer_bench_recovery_role *roles = realloc(run->roles, (run->n_roles + 1) * sizeof(*roles));
  if (roles == NULL)
    return placer_error_oom(err, "recovery results");
  run->roles = roles;
  struct placer_bench_recovery_role *x = &roles[run->n_roles];
  *x = (struct placer_bench_recovery_role){ strdup(instance), strdup(role), rss_before_bytes, rss_peak_bytes };
  if (x->instance == NULL || x->role == NULL) {
    free(x->instance);
    free(x->role);
    return placer_error_oom(err, "recovery results");
  }
  run->n_roles++;
  return 0;
}

/* ------------------------------------------------------------------ JSON */

static json_t *num_or_null(double x) {
  return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static double num_or_nan(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint64_t u64(const json_t *obj, const char *key) {
  const json_t *v = json_object_get(obj, key);
  return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

json_t *placer_bench_recovery_to_json(const struct placer_bench_recovery *r, char *const *variants) {
  if (r == NULL)
    return json_null();
  json_t *runs = json_array();
  for (size_t v = 0; v < r->n_variants; v++)
    for (size_t k = 0; k < r->repeats; k++) {
      const struct placer_bench_recovery_run *run = placer_bench_recovery_run_const(r, v, k);
      if (!run->done)
        continue;
      json_t *roles = json_array();
      for (size_t i = 0; i < run->n_roles; i++)
        json_array_append_new(roles, json_pack("{s:s, s:s, s:I, s:I}", "instance", run->roles[i].instance, "role",
                                               run->roles[i].role, "rss_before_bytes",
                                               (json_int_t)run->roles[i].rss_before_bytes, "rss_peak_bytes",
                                               (json_int_t)run->roles[i].rss_peak_bytes));
      json_array_append_new(
          runs, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "variant", variants[v],
                          "repeat", (json_int_t)k, "fio_json", placer_json_str_or_null(run->fio_json), "watch_log",
                          placer_json_str_or_null(run->watch_log), "detect_s", num_or_null(run->detect_s), "down_s",
                          num_or_null(run->down_s), "recovery_s", num_or_null(run->recovery_s), "total_s",
                          num_or_null(run->total_s), "iops_before", num_or_null(run->iops_before), "iops_during",
                          num_or_null(run->iops_during), "iops_min", num_or_null(run->iops_min), "degraded_peak",
                          num_or_null(run->degraded_peak), "roles", roles));
    }
  return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "action", r->action, "daemon", r->daemon, "workload", r->workload,
                   "at_s", num_or_null(r->at_s), "down_s", num_or_null(r->down_s), "runs", runs);
}

int placer_bench_recovery_from_json(const json_t *j, char *const *variants, size_t n_variants, size_t repeats,
                                    struct placer_bench_recovery **out, struct placer_error **err) {
  *out = NULL;
  if (j == NULL || json_is_null(j))
    return 0;
  if (!json_is_object(j) || !str(j, "action") || !str(j, "daemon") || !str(j, "workload"))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "recovery: no action, daemon or workload");
  struct placer_bench_recovery *r = NULL;
  if (placer_bench_recovery_new(str(j, "action"), str(j, "daemon"), str(j, "workload"), num_or_nan(j, "at_s"),
                                num_or_nan(j, "down_s"), n_variants, repeats, &r, err) < 0)
    return -1;
  const json_t *e;
  size_t i;
  json_array_foreach(json_object_get(j, "runs"), i, e) {
    const char *name = str(e, "variant");
    const json_t *rep = json_object_get(e, "repeat");
    size_t v = 0;
    while (name && v < n_variants && strcmp(variants[v], name) != 0)
      v++;
    struct placer_bench_recovery_run *run =
        name && v < n_variants && json_is_integer(rep) && json_integer_value(rep) >= 0
            ? placer_bench_recovery_run(r, v, (size_t)json_integer_value(rep))
            : NULL;
    if (run == NULL || run->done) {
      placer_bench_recovery_free(r);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "recovery.runs[%zu]: unknown variant or repeat, or twice", i);
    }
    run->detect_s = num_or_nan(e, "detect_s");
    run->down_s = num_or_nan(e, "down_s");
    run->recovery_s = num_or_nan(e, "recovery_s");
    run->total_s = num_or_nan(e, "total_s");
    run->iops_before = num_or_nan(e, "iops_before");
    run->iops_during = num_or_nan(e, "iops_during");
    run->iops_min = num_or_nan(e, "iops_min");
    run->degraded_peak = num_or_nan(e, "degraded_peak");
    if ((str(e, "fio_json") && (run->fio_json = strdup(str(e, "fio_json"))) == NULL) ||
        (str(e, "watch_log") && (run->watch_log = strdup(str(e, "watch_log"))) == NULL)) {
      placer_bench_recovery_free(r);
      return placer_error_oom(err, "bench results JSON");
    }
    const json_t *x;
    size_t k;
    json_array_foreach(json_object_get(e, "roles"), k, x) {
      if (!str(x, "instance") || !str(x, "role")) {
        placer_bench_recovery_free(r);
        return placer_error_set(err, PLACER_EXIT_USAGE, 0, "recovery.runs[%zu]: roles[%zu]: no instance/role", i, k);
      }
      if (placer_bench_recovery_run_add_role(run, str(x, "instance"), str(x, "role"), u64(x, "rss_before_bytes"),
                                             u64(x, "rss_peak_bytes"), err) < 0) {
        placer_bench_recovery_free(r);
        return -1;
      }
    }
    run->done = true;
  }
  *out = r;
  return 0;
}

/* ------------------------------------------------------------------ report */

/* Median over the done repeats of one figure of VARIANT, and its range. */
static void summarize(const struct placer_bench_recovery *r, size_t variant,
                      double (*figure)(const struct placer_bench_recovery_run *, const void *), const void *arg,
                      struct placer_stats_summary *out) {
  double x[256];
  size_t n = 0;
  for (size_t k = 0; k < r->repeats && n < 256; k++) {
    const struct placer_bench_recovery_run *run = placer_bench_recovery_run_const(r, variant, k);
    double v = run->done ? figure(run, arg) : NAN;
    if (!isnan(v))
      x[n++] = v;
  }
  placer_stats_summarize(x, n, out);
}

#define FIGURE(name)                                                                       \
  static double fig_##name(const struct placer_bench_recovery_run *run, const void *arg) { \
    (void)arg;                                                                             \
    return run->name;                                                                      \
  }
FIGURE(detect_s)
FIGURE(recovery_s)
FIGURE(total_s)
FIGURE(iops_before)
FIGURE(iops_during)
FIGURE(iops_min)
FIGURE(degraded_peak)

static double fig_kept(const struct placer_bench_recovery_run *run, const void *arg) {
  (void)arg;
  return run->iops_before > 0 ? run->iops_during / run->iops_before : NAN;
}

/* The largest instance of ROLE (arg): its peak, or its growth over before. */
static double role_peak(const struct placer_bench_recovery_run *run, const char *role, bool growth) {
  double best = NAN, grow = NAN;
  for (size_t i = 0; i < run->n_roles; i++)
    if (strcmp(run->roles[i].role, role) == 0 && (isnan(best) || run->roles[i].rss_peak_bytes > best)) {
      best = (double)run->roles[i].rss_peak_bytes;
      grow = run->roles[i].rss_before_bytes ? best / (double)run->roles[i].rss_before_bytes - 1 : NAN;
    }
  return growth ? grow : best;
}
static double fig_role_peak(const struct placer_bench_recovery_run *run, const void *arg) {
  return role_peak(run, arg, false);
}
static double fig_role_growth(const struct placer_bench_recovery_run *run, const void *arg) {
  return role_peak(run, arg, true);
}

static void fmt_s(const struct placer_stats_summary *s, bool range, char *buf, size_t len) {
  if (s->n == 0)
    snprintf(buf, len, DASH);
  else if (range && s->n > 1)
    snprintf(buf, len, "%.1f (%.1f-%.1f)", s->median, s->min, s->max);
  else
    snprintf(buf, len, "%.1f", s->median);
}

static void fmt_rate(const struct placer_stats_summary *s, char *buf, size_t len) {
  if (s->n == 0)
    snprintf(buf, len, DASH);
  else
    snprintf(buf, len, s->median >= 99.5 ? "%.0f" : "%.1f", s->median);
}

/* The roles in the order of the first done run's instances, each once. */
static size_t report_roles(const struct placer_bench_recovery *r, const char **roles, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_variants * r->repeats; i++) {
    const struct placer_bench_recovery_run *run = &r->runs[i];
    for (size_t k = 0; run->done && k < run->n_roles; k++) {
      bool seen = false;
      for (size_t j = 0; j < n && !seen; j++)
        seen = strcmp(roles[j], run->roles[k].role) == 0;
      if (!seen && n < max)
        roles[n++] = run->roles[k].role;
    }
  }
  return n;
}

void placer_bench_recovery_report(const struct placer_bench_recovery *r, char *const *variants, FILE *out) {
  if (r == NULL)
    return;
  size_t done = 0;
  for (size_t i = 0; i < r->n_variants * r->repeats; i++)
    done += r->runs[i].done;
  bool kill = strcmp(r->action, "kill") == 0;
  fprintf(out, "\nRecovery: %s %s after %.0f s of %s, %s %.0f s later; medians over the repeats (min-max), %zu run%s\n",
          r->daemon, kill ? "killed" : "marked out", r->at_s, r->workload, kill ? "started again" : "marked in",
          r->down_s, done, done == 1 ? "" : "s");
  if (done == 0) {
    fprintf(out, "  (no recovery run finished)\n");
    return;
  }
  const char *roles[16];
  size_t n_roles = report_roles(r, roles, 16);
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "variant");
  placer_table_cell_r(&t, "detected s");
  placer_table_cell_r(&t, "back -> clean s");
  placer_table_cell_r(&t, "fault -> clean s");
  placer_table_cell_r(&t, "IOPS before");
  placer_table_cell_r(&t, "during");
  placer_table_cell_r(&t, "kept");
  placer_table_cell_r(&t, "worst 1 s");
  placer_table_cell_r(&t, "degraded objs");
  for (size_t i = 0; i < n_roles; i++)
    placer_table_cell_r(&t, "peak RSS %s", roles[i]);
  for (size_t v = 0; v < r->n_variants; v++) {
    struct placer_stats_summary s;
    char buf[64];
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "%s", variants[v]);
    summarize(r, v, fig_detect_s, NULL, &s);
    fmt_s(&s, false, buf, sizeof(buf));
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_recovery_s, NULL, &s);
    fmt_s(&s, true, buf, sizeof(buf));
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_total_s, NULL, &s);
    fmt_s(&s, true, buf, sizeof(buf));
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_iops_before, NULL, &s);
    fmt_rate(&s, buf, sizeof(buf));
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_iops_during, NULL, &s);
    fmt_rate(&s, buf, sizeof(buf));
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_kept, NULL, &s);
    if (s.n)
      snprintf(buf, sizeof(buf), "%.0f%%", 100 * s.median);
    else
      snprintf(buf, sizeof(buf), DASH);
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_iops_min, NULL, &s);
    fmt_rate(&s, buf, sizeof(buf));
    placer_table_cell_r(&t, "%s", buf);
    summarize(r, v, fig_degraded_peak, NULL, &s);
    if (s.n)
      snprintf(buf, sizeof(buf), "%.0f", s.median);
    else
      snprintf(buf, sizeof(buf), DASH);
    placer_table_cell_r(&t, "%s", buf);
    for (size_t i = 0; i < n_roles; i++) {
      struct placer_stats_summary g;
      summarize(r, v, fig_role_peak, roles[i], &s);
      summarize(r, v, fig_role_growth, roles[i], &g);
      if (s.n == 0) {
        placer_table_cell_r(&t, DASH);
        continue;
      }
      placer_format_bytes((uint64_t)s.median, buf, sizeof(buf));
      if (g.n)
        placer_table_cell_r(&t, "%s (%+.0f%%)", buf, 100 * g.median);
      else
        placer_table_cell_r(&t, "%s", buf);
    }
  }
  placer_table_print(&t, out);
  fprintf(out,
          "  detected: the fault -> the PGs left active+clean; back: the OSD %s; kept: IOPS during / before;\n"
          "  peak RSS: the largest instance of the role from the fault to active+clean (its growth over\n"
          "  its RSS when the fault hit)\n",
          kill ? "started again" : "marked in");
}

/* ------------------------------------------------------------------ parsers */

static double job_ios(const json_t *job, const char *dir) {
  return num_or_nan(json_object_get(job, dir), "total_ios");
}

int placer_bench_fio_status_points(const char *text, size_t len, struct placer_bench_io_point **out, size_t *n,
                                   struct placer_error **err) {
  struct placer_bench_io_point *p = NULL;
  size_t np = 0, cap = 0;
  size_t pos = 0;
  while (pos < len) {
    /* the next document starts with '{' at the beginning of a line */
    while (pos < len && !(text[pos] == '{' && (pos == 0 || text[pos - 1] == '\n')))
      pos++;
    if (pos >= len)
      break;
    json_error_t jerr;
    json_t *doc = json_loadb(text + pos, len - pos, JSON_DISABLE_EOF_CHECK, &jerr);
    if (doc == NULL) {
      pos++; /* a truncated last document (fio killed) or noise: look further */
      continue;
    }
    pos += jerr.position > 0 ? (size_t)jerr.position : 1;
    double t = num_or_nan(doc, "timestamp_ms"), ios = 0;
    const json_t *job;
    size_t i;
    bool any = false;
    json_array_foreach(json_object_get(doc, "jobs"), i, job) {
      double r = job_ios(job, "read"), w = job_ios(job, "write"), tr = job_ios(job, "trim");
      if (!isnan(r) || !isnan(w)) {
        ios += (isnan(r) ? 0 : r) + (isnan(w) ? 0 : w) + (isnan(tr) ? 0 : tr);
        any = true;
      }
    }
    json_decref(doc);
    if (isnan(t) || !any)
      continue;
    if (np == cap) {
      cap = cap ? cap * 2 : 64;
      struct placer_bench_io_point *q = realloc(p, cap * sizeof(*p));
      if (q == NULL) {
        free(p);
        return placer_error_oom(err, "fio status");
      }
      p = q;
    }
    p[np++] = (struct placer_bench_io_point){ t, ios };
  }
  *out = p;
  *n = np;
  return 0;
}

double placer_bench_io_rate(const struct placer_bench_io_point *p, size_t n, double from_ms, double to_ms,
                            double *min_iops) {
  size_t first = n, last = n;
  double lowest = NAN;
  for (size_t i = 0; i < n; i++) {
    if (p[i].t_ms < from_ms || p[i].t_ms > to_ms)
      continue;
    if (first == n)
      first = i;
    else {
      double dt = (p[i].t_ms - p[last].t_ms) / 1000.0;
      double rate = dt > 0 ? (p[i].ios - p[last].ios) / dt : NAN;
      if (!isnan(rate) && (isnan(lowest) || rate < lowest))
        lowest = rate;
    }
    last = i;
  }
  if (min_iops)
    *min_iops = lowest;
  if (first == n || last == first)
    return NAN;
  double dt = (p[last].t_ms - p[first].t_ms) / 1000.0;
  return dt > 0 ? (p[last].ios - p[first].ios) / dt : NAN;
}

void placer_bench_parse_watch(const char *text, double *unclean_s, double *clean_s, double *degraded_peak) {
  *unclean_s = *clean_s = *degraded_peak = NAN;
  for (const char *line = text; line && *line;) {
    const char *eol = strchr(line, '\n');
    double x;
    if (sscanf(line, "UNCLEAN %lf", &x) == 1)
      *unclean_s = x;
    else if (sscanf(line, "CLEAN %lf", &x) == 1)
      *clean_s = x;
    else if (strncmp(line, "t=", 2) == 0) {
      const char *d = strstr(line, " degraded=");
      if (d && (!eol || d < eol) && sscanf(d, " degraded=%lf", &x) == 1 &&
          (isnan(*degraded_peak) || x > *degraded_peak))
        *degraded_peak = x;
    }
    line = eol ? eol + 1 : NULL;
  }
}
