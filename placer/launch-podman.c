/* The "podman" launch backend: a container with the planned cpuset and
 * memory (podman --cpuset-cpus/--cpuset-mems/--memory, enforced by runc
 * before the container's first instruction), under the instance's group as
 * its cgroup parent, with placer's containers.conf.  The command lines come
 * from podman-argv.c. */
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "podman-argv.h"
#include "lib/subprocess.h"
#include "lib/substitute.h"

/* The last line of TEXT with content, trimmed; for error messages. */
static const char *last_line(char *text) {
  if (text == NULL)
    return "";
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\r'))
    text[--n] = '\0';
  char *nl = strrchr(text, '\n');
  return nl ? nl + 1 : text;
}

/* Run podman (ARGV[0] looked up in PATH) with CONTAINERS_CONF=CONF, collect
 * its stdout, kill it after TIMEOUT_S.  Fails with podman's last stderr
 * line when it exits non-zero. */
static int run_podman(char **argv, const char *conf, unsigned timeout_s, char **out, struct placer_error **err) {
  cleanup_free char *conf_entry = NULL;
  cleanup_free char **envp = NULL;
  if (conf) {
    if (asprintf(&conf_entry, "CONTAINERS_CONF=%s", conf) < 0 ||
        (envp = placer_env_merge((char *const[]){ conf_entry, NULL })) == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s %s: out of memory", argv[0], argv[1]);
  }
  cleanup_free char *o = NULL, *e = NULL;
  int status = 0;
  if (placer_subprocess_capture(argv, envp, timeout_s * 1000u, &o, &e, &status, err) < 0)
    return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s %s: %s", argv[0], argv[1] ? argv[1] : "",
                            *last_line(e) ? last_line(e) : "failed");
  if (out)
    *out = TAKE_PTR(o);
  return 0;
}

static int podman_start(struct placer_cgroup *cg, const struct placer_launch_spec *spec,
                        struct placer_launch_record *rec, struct placer_error **err) {
  (void)cg;
  char **argv = NULL;
  if (placer_podman_run_argv(spec, &argv, err) < 0)
    return -1;
  cleanup_free char *id_out = NULL;
  if (run_podman(argv, spec->containers_conf, 300, &id_out, err) < 0) {
    placer_argv_free(argv);
    return placer_error_prefix(err, "%s", spec->instance);
  }
  char **inspect = NULL;
  cleanup_free char *info = NULL;
  if (placer_podman_inspect_argv(spec->container_name, &inspect, err) < 0 ||
      run_podman(inspect, spec->containers_conf, 60, &info, err) < 0) {
    placer_argv_free(argv);
    placer_argv_free(inspect);
    return placer_error_prefix(err, "%s", spec->instance);
  }
  placer_argv_free(inspect);
  long pid = 0;
  char cgroup_path[4096] = "", id[129] = "";
  if (sscanf(info, "%ld %4095s %128s", &pid, cgroup_path, id) != 3 || pid <= 0) {
    placer_argv_free(argv);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "%s: container %s does not run (podman inspect says '%s'); see podman logs %s",
                            spec->instance, spec->container_name, last_line(info), spec->container_name);
  }
  memset(rec, 0, sizeof(*rec));
  rec->backend = strdup("podman");
  rec->joined_by = strdup("runc");
  rec->pid = (pid_t)pid;
  rec->start_time = placer_launch_start_time((pid_t)pid);
  rec->group = strdup(spec->group);
  rec->container_name = strdup(spec->container_name);
  rec->container_id = strdup(id);
  /* "/placer/osd/osd.0/libpod-ID" -> a group path relative to the root. */
  rec->container_cgroup = strdup(cgroup_path[0] == '/' ? cgroup_path + 1 : cgroup_path);
  rec->argv = argv;
  rec->stop_timeout_s = spec->stop_timeout_s;
  if (spec->log_path)
    rec->log_path = strdup(spec->log_path);
  if (rec->backend == NULL || rec->group == NULL || rec->container_name == NULL || rec->container_id == NULL ||
      rec->container_cgroup == NULL || rec->joined_by == NULL) {
    placer_launch_record_clear(rec);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s: start", spec->instance);
  }
  return 0;
}

static bool podman_is_running(const struct placer_launch_record *rec) {
  return placer_launch_record_alive(rec);
}

static char *conf_for_podman(void) {
  return placer_containers_conf_path();
}

static int podman_stop(struct placer_cgroup *cg, const struct placer_launch_record *rec, struct placer_error **err) {
  cleanup_free char *conf = conf_for_podman();
  char **argv = NULL;
  if (placer_podman_stop_argv(rec->container_name, rec->stop_timeout_s, &argv, err) < 0)
    return placer_error_prefix(err, "%s", rec->instance);
  struct placer_error *stop_err = NULL;
  int rc = run_podman(argv, conf, rec->stop_timeout_s + 60, NULL, &stop_err);
  placer_argv_free(argv);
  /* podman says "no such container" when it is gone already: not an error
   * as long as nothing of it runs any more. */
  if (rc < 0 && podman_is_running(rec)) {
    *err = stop_err;
    return placer_error_prefix(err, "%s", rec->instance);
  }
  placer_error_free(stop_err);
  (void)cg;
  return 0;
}

static int podman_cleanup(struct placer_cgroup *cg, const struct placer_launch_record *rec, struct placer_error **err) {
  cleanup_free char *conf = conf_for_podman();
  char **argv = NULL;
  if (rec->container_name) {
    if (placer_podman_rm_argv(rec->container_name, &argv, err) < 0)
      return placer_error_prefix(err, "%s", rec->instance);
    int rc = run_podman(argv, conf, rec->stop_timeout_s + 60, NULL, err);
    placer_argv_free(argv);
    if (rc < 0)
      return placer_error_prefix(err, "%s", rec->instance);
  }
  if (rec->group == NULL)
    return 0;
  /* conmon exits with the container; anything else still there is a
   * leftover of this instance. */
  if (placer_cgroup_exists(cg, rec->group) && placer_launch_kill_group(cg, rec->group, 2, err) < 0)
    return placer_error_prefix(err, "%s", rec->instance);
  if (placer_launch_remove_group(cg, rec->group, true, err) < 0)
    return placer_error_prefix(err, "%s", rec->instance);
  return 0;
}

const struct placer_launch_ops placer_launch_podman = {
  .name = "podman",
  .flags = PLACER_LAUNCH_F_CONTAINER | PLACER_LAUNCH_F_OWN_CGROUP,
  .start = podman_start,
  .is_running = podman_is_running,
  .stop = podman_stop,
  .cleanup = podman_cleanup,
};
