/* Neighbour kind stress-ng, backend podman: stress-ng in a container
 * (localhost/placer/stress-ng) started by the podman launch backend in the
 * instance's group; its rate as neighbour-stress-ng.c reads it. */
#include "bench/neighbour.h"

#include <stdio.h>
#include <stdlib.h>

#include "podman-argv.h"

static int podman_prepare(const struct placer_bench_neighbour_env *env, unsigned intensity,
                          struct placer_bench_neighbour_proc *p, struct placer_launch_spec *spec,
                          struct placer_error **err) {
  if (bench_neighbour_stress_argv(p->spec, intensity, env->max_seconds, &p->argv) < 0)
    return placer_error_oom(err, NULL);
  cleanup_free char *name = NULL;
  if (asprintf(&name, "bench-%s", p->inst->name) < 0 || (p->container = placer_podman_container_name(name)) == NULL)
    return placer_error_oom(err, NULL);
  p->conf = placer_containers_conf_path();
  spec->image = p->spec->image;
  spec->container_name = p->container;
  spec->containers_conf = p->conf;
  return 0;
}

static int podman_start(const struct placer_bench_neighbour_env *env, struct placer_bench_neighbour_proc *p,
                        const struct placer_launch_spec *spec, struct placer_error **err) {
  if (placer_launch_podman.start(env->cg, spec, &p->rec, err) < 0)
    return placer_error_prefix(err, "neighbour '%s' in %s", p->spec->name, p->inst->name);
  return 0;
}

static bool podman_working(struct placer_bench_neighbour_proc *p, unsigned waited_ms) {
  (void)p;
  return waited_ms >= 300;
}

/* stress-ng prints its metrics when SIGINT ends it early. */
static double podman_rate(struct placer_bench_neighbour_proc *p) {
  char *argv[] = { "podman", "kill", "--signal=INT", p->container, NULL };
  char *env[2] = { NULL, NULL };
  cleanup_free char *conf_env = NULL;
  if (p->conf && asprintf(&conf_env, "CONTAINERS_CONF=%s", p->conf) >= 0)
    env[0] = conf_env;
  struct placer_error *e = NULL;
  placer_bench_run_command(argv, env, NULL, 30, false, &e);
  placer_error_free(e);
  bench_neighbour_wait_ended(p, false);
  return bench_neighbour_stress_rate(p);
}

static int podman_cleanup(struct placer_cgroup *cg, struct placer_bench_neighbour_proc *p, struct placer_error **err) {
  return placer_launch_podman.cleanup(cg, &p->rec, err);
}

const struct bench_neighbour_ops bench_neighbour_podman = {
  .name = "stress-ng in podman",
  .kind = "stress-ng",
  .keys = bench_neighbour_stress_keys,
  .settle = bench_neighbour_stress_settle,
  .backend = PLACER_STUDY_BACKEND_PODMAN,
  .program = "podman",
  .unit = "stress-ng workers",
  .rate_unit = "bogo ops/s",
  .start_limit_ms = 10000,
  .late = "stress-ng did not start",
  .launch = &placer_launch_podman,
  .prepare = podman_prepare,
  .start = podman_start,
  .working = podman_working,
  .rate = podman_rate,
  .cleanup = podman_cleanup,
};
