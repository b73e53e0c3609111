/* Preparing, starting and stopping the instances of `placer run`, and
 * placing `placer exec` itself; see launch-prepare.h. */
#include "launch-prepare.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cpulist.h"
#include "lib/substitute.h"
#include "placement.h"
#include "podman-argv.h"
#include "runstate.h"
#include "vm.h"

void placer_launch_prepared_clear(struct placer_launch_prepared *p) {
  placer_argv_free(p->argv);
  placer_argv_free(p->env);
  placer_argv_free(p->volumes);
  placer_argv_free(p->extra);
  free(p->image);
  free(p->group);
  free(p->cpus);
  free(p->mems);
  free(p->container_name);
  free(p->log_path);
  free(p->conf);
  free(p->console);
  free(p->note);
  placer_launch_record_clear(&p->rec);
  memset(p, 0, sizeof(*p));
}

static char **list_to_argv(const struct placer_string_list *list) {
  char **argv = calloc(list->n + 1, sizeof(char *));
  if (argv)
    for (size_t i = 0; i < list->n; i++)
      argv[i] = list->items[i]; /* borrowed: only substituted copies are kept */
  return argv;
}

static int subst_list(const struct placer_string_list *list, const struct placer_subst_vars *vars, char ***out,
                      struct placer_error **err) {
  *out = NULL;
  if (list->n == 0)
    return 0;
  char **tmpl = list_to_argv(list);
  if (tmpl == NULL)
    return placer_error_oom(err, NULL);
  int rc = placer_substitute_argv(tmpl, vars->vars, vars->n, out, err);
  free(tmpl);
  return rc;
}

static int subst_one(const char *tmpl, const struct placer_subst_vars *vars, char **out, struct placer_error **err) {
  *out = NULL;
  return tmpl ? placer_substitute(tmpl, vars->vars, vars->n, out, err) : 0;
}

static int prepare_vm(const struct placer_run_config *run, const struct placer_subst_vars *vars, const char *rundir,
                      struct placer_launch_prepared *p, struct placer_error **err) {
  const struct placer_vm_config *vm = &run->vm;
  cleanup_free char *kernel = NULL, *initrd = NULL, *append = NULL;
  const char *kt = vm->kernel ? vm->kernel : getenv("PLACER_VM_KERNEL");
  const char *it = vm->initrd ? vm->initrd : getenv("PLACER_VM_INITRD");
  if (subst_one(kt, vars, &kernel, err) < 0 || subst_one(it, vars, &initrd, err) < 0 ||
      subst_one(vm->append, vars, &append, err) < 0)
    return -1;
  /* A guest that cannot boot is bad input, found before anything starts. */
  const char *const files[][2] = { { "kernel", kernel }, { "initramfs", initrd } };
  for (size_t i = 0; i < 2; i++)
    if (files[i][1] && access(files[i][1], R_OK) < 0)
      return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "guest %s '%s'", files[i][0], files[i][1]);
  if (asprintf(&p->console, "%s/%s.console", rundir, p->inst->name) < 0)
    return placer_error_oom(err, NULL);
  p->accel = placer_vm_detect_accel(vm->accel, &p->accel_why);
  p->vcpus = vm->vcpus;
  struct placer_vm_params params = {
    .name = p->inst->name,
    .accel = p->accel,
    .vcpus = vm->vcpus,
    .memory_bytes = vm->memory_bytes,
    .kernel = kernel,
    .initrd = initrd,
    .work = vm->work,
    .seconds = vm->seconds,
    .work_memory_bytes = vm->work_memory_bytes,
    .append = append,
    .console_path = p->console,
  };
  return placer_vm_qemu_argv(&params, &p->argv, err);
}

int placer_launch_prepare(const struct placer_profile *profile, const struct placer_instance *inst, const char *prefix,
                          const char *rundir, struct placer_launch_prepared *p, struct placer_error **err) {
  const struct placer_role_spec *role = placer_profile_role(profile, inst->role);
  const struct placer_run_config *run = role ? role->run : NULL;
  p->inst = inst;
  p->state = "-";
  if (run == NULL)
    return 0; /* a role placer only places (apply), it does not start it */
  p->ops = placer_launch_find(placer_run_backend_name(run->backend));
  if (p->ops == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "no launch backend '%s'", placer_run_backend_name(run->backend));
  struct placer_subst_vars vars;
  placer_subst_vars_from_instance(inst, &vars);

  p->is_vm = inst->kind == PLACER_KIND_VM && (run->has_vm || run->command.n == 0);
  if (inst->kind != PLACER_KIND_VM && run->has_vm)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "role '%s' (kind %s): 'run.vm' only goes with kind vm",
                            inst->role, placer_role_kind_name(inst->kind));
  if (p->is_vm && run->backend != PLACER_RUN_EXEC)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "role '%s': a vm runs with backend exec", inst->role);
  if (!p->is_vm && run->command.n == 0 && run->backend == PLACER_RUN_EXEC)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "role '%s': run needs 'command' (the program and its arguments)",
                            inst->role);
  if (placer_instance_group(prefix, inst->role, inst->name, &p->group, err) < 0)
    return -1;
  if (asprintf(&p->log_path, "%s/%s.log", rundir, inst->name) < 0)
    return placer_error_oom(err, NULL);
  if (p->is_vm) {
    if (prepare_vm(run, &vars, rundir, p, err) < 0)
      return -1;
  } else if (subst_list(&run->command, &vars, &p->argv, err) < 0) {
    return -1;
  }
  if (subst_list(&run->env, &vars, &p->env, err) < 0 || subst_list(&run->volumes, &vars, &p->volumes, err) < 0 ||
      subst_list(&run->podman_args, &vars, &p->extra, err) < 0 || subst_one(run->image, &vars, &p->image, err) < 0)
    return -1;
  p->cpus = inst->cpus ? placer_cpulist_format(inst->cpus) : strdup("");
  p->mems = inst->mems ? placer_cpulist_format(inst->mems) : strdup("");
  if (p->cpus == NULL || p->mems == NULL)
    return placer_error_oom(err, NULL);
  if (run->backend == PLACER_RUN_PODMAN) {
    p->container_name = placer_podman_container_name(inst->name);
    p->conf = placer_containers_conf_path();
    if (p->container_name == NULL)
      return placer_error_oom(err, NULL);
  }
  p->spec = (struct placer_launch_spec){
    .instance = inst->name,
    .role = inst->role,
    .profile = profile->name,
    .group = p->group,
    .pinned = inst->pinned,
    .cpus = p->cpus,
    .mems = p->mems,
    .has_memory_limit = inst->has_memory_limit,
    .memory_bytes = inst->memory_bytes,
    .argv = p->argv,
    .env = p->env,
    .image = p->image,
    .network = run->network,
    .volumes = p->volumes,
    .extra_args = p->extra,
    .container_name = p->container_name,
    .log_path = p->log_path,
    .containers_conf = p->conf,
    .stop_timeout_s = run->stop_timeout_s,
  };
  if (run->backend == PLACER_RUN_PODMAN) {
    /* Check the podman argv now, before anything starts. */
    char **argv = NULL;
    if (placer_podman_run_argv(&p->spec, &argv, err) < 0)
      return -1;
    placer_argv_free(argv);
  }
  return 0;
}

static int fill_record(struct placer_launch_prepared *p, const char *profile, unsigned seq) {
  struct placer_launch_record *r = &p->rec;
  free(r->profile);
  free(r->instance);
  free(r->role);
  r->profile = strdup(profile);
  r->instance = strdup(p->inst->name);
  r->role = strdup(p->inst->role);
  if (r->backend == NULL)
    r->backend = strdup(p->ops->name);
  if (r->group == NULL)
    r->group = strdup(p->group);
  if (r->container_name == NULL && p->container_name)
    r->container_name = strdup(p->container_name);
  if (r->log_path == NULL)
    r->log_path = strdup(p->log_path);
  if (p->is_vm && r->accel == NULL)
    r->accel = strdup(placer_vm_accel_name(p->accel));
  r->stop_timeout_s = p->spec.stop_timeout_s;
  r->started_at = (long long)time(NULL);
  r->seq = seq;
  return r->profile && r->instance && r->role && r->backend && r->group && r->log_path ? 0 : -1;
}

int placer_launch_start_prepared(struct placer_cgroup *cg, const char *profile, const char *rundir, unsigned seq,
                                 const char *mark, struct placer_launch_prepared *p, struct placer_error **err) {
  /* Written before the start: if placer dies half way, stop still finds
   * the group (and the container name) to clean up. */
  if (fill_record(p, profile, seq) < 0)
    return placer_error_oom(err, NULL);
  if (placer_runstate_save(rundir, &p->rec, err) < 0)
    return -1;
  int unmarked = placer_instance_place_group_marked(cg, p->inst, p->group, mark, err);
  if (unmarked < 0)
    return placer_error_prefix(err, "%s", p->inst->name);
  struct placer_launch_record started = { 0 };
  if (p->ops->start(cg, &p->spec, &started, err) < 0)
    return -1;
  placer_launch_record_clear(&p->rec);
  p->rec = started;
  p->rec.unmarked = unmarked > 0;
  if (fill_record(p, profile, seq) < 0 || placer_runstate_save(rundir, &p->rec, err) < 0) {
    placer_error_oom(err, NULL);
    return placer_error_prefix(err, "%s", p->inst->name);
  }
  if (p->is_vm) {
    if (p->inst->pin_vcpus) {
      char *summary = NULL;
      if (placer_vm_pin_vcpus(p->rec.pid, p->cpus, p->vcpus, 15000, &summary, err) < 0)
        return placer_error_prefix(err, "%s", p->inst->name);
      if (asprintf(&p->note, "qemu %s (%s); %s", placer_vm_accel_name(p->accel), p->accel_why, summary) < 0)
        p->note = NULL;
      free(summary);
    } else if (asprintf(&p->note, "qemu %s (%s)", placer_vm_accel_name(p->accel), p->accel_why) < 0) {
      p->note = NULL;
    }
  } else if (p->container_name) {
    if (asprintf(&p->note, "container %s (%s)", p->container_name, p->image) < 0)
      p->note = NULL;
  } else {
    p->note = placer_argv_quote(p->argv);
  }
  p->state = "started";
  return 0;
}

/* REC names only what run makes for its instance, in a group of ours. */
int placer_launch_check_recorded(struct placer_cgroup *cg, const char *mark, const struct placer_launch_record *rec,
                                 struct placer_error **err) {
  cleanup_free char *group = NULL, *container = NULL;
  if (rec->role == NULL || placer_instance_group(placer_apply_prefix(NULL), rec->role, rec->instance, &group, err) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM, "%s: its run record names no role placer ran",
                            rec->instance);
  if (rec->group == NULL || strcmp(rec->group, group) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s: its run record names group '%s', not %s where placer runs it: nothing stopped",
                            rec->instance, rec->group ? rec->group : "(none)", group);
  if (rec->container_name && ((container = placer_podman_container_name(rec->instance)) == NULL ||
                              strcmp(rec->container_name, container) != 0))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s: its run record names container '%s', not %s: nothing stopped", rec->instance,
                            rec->container_name, container ? container : "?");
  size_t len = strlen(group);
  if (rec->container_cgroup && (strncmp(rec->container_cgroup, group, len) != 0 || rec->container_cgroup[len] != '/'))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s: its run record names container group '%s', outside %s: nothing stopped", rec->instance,
                            rec->container_cgroup, group);
  if (mark && !rec->unmarked && placer_cgroup_mark_check(cg, group, mark) == PLACER_CGROUP_MARK_FOREIGN)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s: group %s does not carry the mark of this state directory (placer run did not make "
                            "it): nothing stopped, its record kept",
                            rec->instance, group);
  return 0;
}

int placer_launch_stop_recorded(struct placer_cgroup *cg, const char *rundir, const char *mark,
                                const struct placer_launch_record *rec, bool *was_running, struct placer_error **err) {
  const struct placer_launch_ops *ops = placer_launch_find(rec->backend);
  if (ops == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: unknown backend '%s' in its run record", rec->instance,
                            rec->backend);
  if (placer_launch_check_recorded(cg, mark, rec, err) < 0)
    return -1;
  *was_running = rec->pid > 0 && ops->is_running(rec);
  if (ops->stop(cg, rec, err) < 0 || ops->cleanup(cg, rec, err) < 0)
    return -1;
  /* the log of what ran to its stop goes too; one that had died keeps it for a post mortem */
  return placer_runstate_remove(rundir, rec->instance, !*was_running, err);
}

int placer_launch_place_self(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                             struct placer_launch_self_undo *undo, struct placer_error **err) {
  memset(undo, 0, sizeof(*undo));
  if (placer_cgroup_pid_membership(cg, getpid(), &undo->original, err) < 0)
    return -1;
  cleanup_free char *path = strdup(group);
  if (path == NULL)
    return placer_error_oom(err, NULL);
  for (char *slash = path;; slash++) { /* the levels missing now are the ones placing makes */
    slash = strchr(slash, '/');
    if (slash)
      *slash = '\0';
    if (!placer_cgroup_exists(cg, path) && undo->n_created < 16 &&
        (undo->created[undo->n_created++] = strdup(path)) == NULL)
      return placer_error_oom(err, NULL);
    if (slash == NULL)
      break;
    *slash = '/';
  }
  if (placer_instance_place_group(cg, inst, group, err) < 0 || placer_cgroup_attach_pid(cg, group, getpid(), err) < 0)
    return -1;
  if (!inst->pinned)
    return 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  int i;
  hwloc_bitmap_foreach_begin(i, inst->cpus) {
    if (i < CPU_SETSIZE)
      CPU_SET(i, &set);
  }
  hwloc_bitmap_foreach_end();
  if (sched_setaffinity(0, sizeof(set), &set) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "%s: sched_setaffinity", inst->name);
  return 0;
}

void placer_launch_unplace_self(struct placer_cgroup *cg, struct placer_launch_self_undo *undo) {
  struct placer_error *e = NULL;
  if (undo->original.path[PLACER_CGROUP_CPUSET] && placer_cgroup_restore_pid(cg, getpid(), &undo->original, &e) < 0)
    placer_error_clear(&e);
  for (size_t i = undo->n_created; i-- > 0;) {
    if (placer_cgroup_remove(cg, undo->created[i], &e) < 0)
      placer_error_clear(&e); /* something else runs in it now: it stays */
    free(undo->created[i]);
  }
  placer_cgroup_membership_clear(&undo->original);
  memset(undo, 0, sizeof(*undo));
}
