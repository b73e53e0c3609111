/* Neighbour kind stress-ng (backend exec): stress-ng started through
 * `placer exec`, its rate stress-ng's bogo ops/s (real time) over its run,
 * printed when SIGINT ends it.  neighbour-podman.c runs it in a container. */
#include "bench/neighbour.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "lib/substitute.h"
#include "lib/textfile.h"

static bool is_number(const char *s) {
  char *end;
  if (*s == '\0')
    return false;
  strtod(s, &end);
  return *end == '\0';
}

int placer_bench_parse_stress_ng(const char *text, double *rate) {
  double sum = 0;
  bool found = false;
  const char *line = text;
  while (line && *line) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    char buf[1024];
    if (len >= sizeof(buf))
      len = sizeof(buf) - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    line = nl ? nl + 1 : NULL;
    /* "stress-ng: metrc: [PID] cpu   5362  3.00  2.29  0.03  1788.31  2309.04"
     * (older versions say "info:"; a podman log adds a prefix). */
    char *tag = strstr(buf, "stress-ng:");
    char *close = tag ? strchr(tag, ']') : NULL;
    if (close == NULL)
      continue;
    char *tok[16];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(close + 1, " \t\r", &save); t && n < 16; t = strtok_r(NULL, " \t\r", &save))
      tok[n++] = t;
    /* stressor, bogo ops, real, usr, sys, ops/s real, ops/s usr+sys[, more] */
    if (n < 7)
      continue;
    bool numeric = true;
    for (size_t i = 1; i < 7 && numeric; i++)
      numeric = is_number(tok[i]);
    if (!numeric || isdigit((unsigned char)tok[0][0]))
      continue;
    sum += strtod(tok[5], NULL);
    found = true;
  }
  if (!found)
    return -1;
  *rate = sum;
  return 0;
}

int bench_neighbour_stress_argv(const struct placer_study_neighbour *nb, unsigned intensity, unsigned seconds,
                                char ***out) {
  char **argv = NULL;
  char buf[128];
  int rc = placer_argv_push(&argv, "stress-ng");
  snprintf(buf, sizeof(buf), "--%s=%u", nb->stressor, intensity);
  rc |= placer_argv_push(&argv, buf);
  if (nb->method) {
    snprintf(buf, sizeof(buf), "--%s-method=%s", nb->stressor, nb->method);
    rc |= placer_argv_push(&argv, buf);
  }
  if (nb->load_percent && nb->load_percent < 100) {
    snprintf(buf, sizeof(buf), "--%s-load=%u", nb->stressor, nb->load_percent);
    rc |= placer_argv_push(&argv, buf);
  }
  rc |= placer_argv_push(&argv, "--metrics-brief");
  snprintf(buf, sizeof(buf), "--timeout=%u", seconds);
  rc |= placer_argv_push(&argv, buf);
  if (rc != 0) {
    placer_argv_free(argv);
    return -1;
  }
  *out = argv;
  return 0;
}

double bench_neighbour_stress_rate(const struct placer_bench_neighbour_proc *p) {
  double r = NAN;
  char *text = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read(p->log, &text, &e) == 0 && placer_bench_parse_stress_ng(text, &r) < 0)
    r = NAN;
  placer_error_free(e);
  free(text);
  return r;
}

static int stress_prepare(const struct placer_bench_neighbour_env *env, unsigned intensity,
                          struct placer_bench_neighbour_proc *p, struct placer_launch_spec *spec,
                          struct placer_error **err) {
  (void)spec;
  if (bench_neighbour_stress_argv(p->spec, intensity, env->max_seconds, &p->argv) < 0)
    return placer_error_oom(err, NULL);
  return 0;
}

/* `placer exec` has become stress-ng (or is gone: is_running says so);
 * under load it can take seconds to plan before it execs it. */
static bool stress_working(struct placer_bench_neighbour_proc *p, unsigned waited_ms) {
  if (waited_ms < 300)
    return false;
  char *comm = placer_proc_comm(p->rec.pid);
  bool yes = comm == NULL || strncmp(comm, "stress-ng", 9) == 0;
  free(comm);
  return yes;
}

static double stress_rate(struct placer_bench_neighbour_proc *p) {
  /* Only the process we started: its PID may have been reused by now. */
  placer_proc_signal(p->rec.pid, p->rec.start_time, SIGINT);
  bench_neighbour_wait_ended(p, true);
  return bench_neighbour_stress_rate(p);
}

const char *const bench_neighbour_stress_keys[] = { "backend", "image", "stressor", "method", "load", NULL };

static int set_default(char **slot, const char *value) {
  if (*slot == NULL)
    *slot = strdup(value);
  return *slot ? 0 : -1;
}

/* stressor cpu by default; an image only for a container (podman's own by
 * default); a duty cycle only for the cpu stressor. */
int bench_neighbour_stress_settle(struct placer_study_neighbour *nb, const char **key, const char **why) {
  *why = NULL;
  if (nb->image && nb->backend != PLACER_STUDY_BACKEND_PODMAN) {
    *key = "image";
    *why = "only goes with backend podman";
    return -1;
  }
  if (set_default(&nb->stressor, "cpu") < 0)
    return -1;
  if (nb->load_percent && strcmp(nb->stressor, "cpu") != 0) {
    *key = "load";
    *why = "only goes with stressor cpu (stress-ng --cpu-load)";
    return -1;
  }
  if (nb->backend == PLACER_STUDY_BACKEND_PODMAN && set_default(&nb->image, "localhost/placer/stress-ng:latest") < 0)
    return -1;
  return 0;
}

const struct bench_neighbour_ops bench_neighbour_stress_ng = {
  .name = "stress-ng",
  .kind = "stress-ng",
  .keys = bench_neighbour_stress_keys,
  .settle = bench_neighbour_stress_settle,
  .backend = PLACER_STUDY_BACKEND_EXEC,
  .flags = BENCH_NEIGHBOUR_RSS,
  .program = "stress-ng",
  .unit = "stress-ng workers",
  .rate_unit = "bogo ops/s",
  .start_limit_ms = 10000,
  .late = "stress-ng did not start",
  .launch = &placer_launch_exec,
  .prepare = stress_prepare,
  .start = bench_neighbour_start_placed,
  .working = stress_working,
  .rate = stress_rate,
  .cleanup = bench_neighbour_reap,
};
