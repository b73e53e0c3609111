/* podman command lines for the podman launch backend; pure, see podman-argv.h. */
#include "podman-argv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/substitute.h"
#include "runspec.h"

static bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool placer_podman_name_is_valid(const char *name) {
  if (name == NULL || !alnum(name[0]))
    return false;
  for (const char *p = name; *p; p++)
    if (!alnum(*p) && *p != '_' && *p != '.' && *p != '-')
      return false;
  return strlen(name) <= 253;
}

char *placer_podman_container_name(const char *instance) {
  char *name = NULL;
  if (asprintf(&name, "placer-%s", instance) < 0)
    return NULL;
  for (char *p = name + 7; *p; p++)
    if (!alnum(*p) && *p != '_' && *p != '.' && *p != '-')
      *p = '_';
  return name;
}

/* argv under construction; the first failure sticks. */
struct vec {
  char **argv;
  bool failed;
};

static void add(struct vec *v, const char *s) {
  if (!v->failed && placer_argv_push(&v->argv, s) < 0)
    v->failed = true;
}

static void addf(struct vec *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct vec *v, const char *fmt, ...) {
  char *s = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) {
    v->failed = true;
    return;
  }
  add(v, s);
  free(s);
}

static int finish(struct vec *v, char ***out, struct placer_error **err) {
  if (v->failed) {
    placer_argv_free(v->argv);
    return placer_error_oom(err, "podman argv");
  }
  *out = v->argv;
  return 0;
}

int placer_podman_run_argv(const struct placer_launch_spec *spec, char ***out, struct placer_error **err) {
  const char *who = spec->instance ? spec->instance : "podman";
  if (spec->image == NULL || spec->image[0] == '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: the podman backend needs an image", who);
  if (spec->image[0] == '-' || strpbrk(spec->image, " \t\n") != NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: '%s' is not an image name", who, spec->image);
  if (!placer_podman_name_is_valid(spec->container_name))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "%s: '%s' is not a valid container name ([A-Za-z0-9][A-Za-z0-9_.-]*)", who,
                            spec->container_name ? spec->container_name : "");
  if (spec->group == NULL || spec->group[0] == '\0' || spec->group[0] == '/')
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: bad cgroup parent '%s'", who,
                            spec->group ? spec->group : "");
  for (size_t i = 0; spec->env && spec->env[i]; i++)
    if (!placer_env_entry_is_valid(spec->env[i]))
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "%s: environment entry '%s' is not NAME=VALUE with NAME made of [A-Za-z0-9_]", who,
                              spec->env[i]);

  struct vec v = { 0 };
  add(&v, "podman");
  add(&v, "run");
  add(&v, "--detach");
  add(&v, "--replace"); /* a stopped leftover of the same name is replaced */
  add(&v, "--pull=never");
  addf(&v, "--name=%s", spec->container_name);
  addf(&v, "--cgroup-parent=/%s", spec->group);
  if (spec->pinned) {
    if (spec->cpus && *spec->cpus)
      addf(&v, "--cpuset-cpus=%s", spec->cpus);
    if (spec->mems && *spec->mems)
      addf(&v, "--cpuset-mems=%s", spec->mems);
  }
  if (spec->has_memory_limit)
    addf(&v, "--memory=%" PRIu64 "b", spec->memory_bytes);
  addf(&v, "--network=%s", spec->network == PLACER_NETWORK_HOST ? "host" : "none");
  if (spec->stop_timeout_s)
    addf(&v, "--stop-timeout=%u", spec->stop_timeout_s);
  if (spec->instance)
    addf(&v, "--label=placer.instance=%s", spec->instance);
  if (spec->role)
    addf(&v, "--label=placer.role=%s", spec->role);
  if (spec->profile)
    addf(&v, "--label=placer.profile=%s", spec->profile);
  if (spec->log_path)
    addf(&v, "--log-opt=path=%s", spec->log_path);
  for (size_t i = 0; spec->env && spec->env[i]; i++)
    addf(&v, "--env=%s", spec->env[i]);
  for (size_t i = 0; spec->volumes && spec->volumes[i]; i++)
    addf(&v, "--volume=%s", spec->volumes[i]);
  for (size_t i = 0; spec->extra_args && spec->extra_args[i]; i++)
    add(&v, spec->extra_args[i]);
  add(&v, spec->image);
  /* After the image podman parses no options: these are the command's own. */
  for (size_t i = 0; spec->argv && spec->argv[i]; i++)
    add(&v, spec->argv[i]);
  return finish(&v, out, err);
}

static int check_name(const char *name, struct placer_error **err) {
  if (!placer_podman_name_is_valid(name))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "'%s' is not a valid container name", name ? name : "");
  return 0;
}

int placer_podman_stop_argv(const char *name, unsigned timeout_s, char ***out, struct placer_error **err) {
  if (check_name(name, err) < 0)
    return -1;
  struct vec v = { 0 };
  add(&v, "podman");
  add(&v, "stop");
  addf(&v, "--time=%u", timeout_s);
  add(&v, name);
  return finish(&v, out, err);
}

int placer_podman_rm_argv(const char *name, char ***out, struct placer_error **err) {
  if (check_name(name, err) < 0)
    return -1;
  struct vec v = { 0 };
  add(&v, "podman");
  add(&v, "rm");
  add(&v, "--force");
  add(&v, "--ignore");
  add(&v, name);
  return finish(&v, out, err);
}

int placer_podman_inspect_argv(const char *name, char ***out, struct placer_error **err) {
  if (check_name(name, err) < 0)
    return -1;
  struct vec v = { 0 };
  add(&v, "podman");
  add(&v, "inspect");
  add(&v, "--type=container");
  add(&v, "--format={{.State.Pid}} {{.State.CgroupPath}} {{.Id}}");
  add(&v, name);
  return finish(&v, out, err);
}
