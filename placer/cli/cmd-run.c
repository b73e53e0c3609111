/* placer run PROFILE / placer stop PROFILE: start every instance of the
 * profile's roles that have a run: section, already placed (launch.h), record
 * what was started (runstate.h); stop it all again and leave nothing behind. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "cgroup.h"
#include "cli/commands.h"
#include "launch.h"
#include "plan.h"
#include "podman-argv.h"
#include "profile-run.h"
#include "profile.h"
#include "runstate.h"
#include "state.h"
#include "lib/substitute.h"
#include "topology.h"
#include "lib/units.h"
#include "vm.h"

static const char run_usage[] =
    "usage: placer run [--topology FILE.xml] [--state-dir DIR] [--dry-run] PROFILE\n"
    "Start every instance of the roles that have a 'run:' section and is not running yet,\n"
    "already placed: a plain process (backend exec) joins its cgroup before its first\n"
    "instruction; a container (backend podman) gets --cpuset-cpus/--cpuset-mems/--memory\n"
    "under placer's cgroup subtree; a vm role boots a qemu guest (TCG when KVM can't run)\n"
    "with its vCPU threads pinned.  Records what it started in STATE_DIR/run/PROFILE\n"
    "(default /run/placer, or $PLACER_STATE_DIR), with each instance's log.  If one\n"
    "instance fails to start, what this run started is stopped again (exit 4).\n"
    "--dry-run prints the command lines and groups and changes nothing.\n";

static const char stop_usage[] =
    "usage: placer stop [--state-dir DIR] [--timeout SECONDS] PROFILE|PROFILE-NAME\n"
    "Stop what 'placer run PROFILE' started, in reverse order: SIGTERM (podman stop),\n"
    "SIGKILL after the role's stop_timeout (or --timeout), then remove the containers,\n"
    "every process left in the instances' groups and the groups themselves.  Works from\n"
    "the records alone: a profile file that is gone can be named by its profile name.\n";

/* After getopt: exactly one operand, the profile; else one line on stderr. */
static int check_one_operand(const char *command, int argc, char **argv) {
  if (optind == argc - 1)
    return 0;
  if (optind < argc)
    fprintf(stderr, "placer %s: unexpected argument '%s'\n", command, argv[optind + 1]);
  else
    fprintf(stderr, "placer %s: missing PROFILE (see 'placer %s --help')\n", command, command);
  return -1;
}

/* ------------------------------------------------------------------ one instance */

/* A launch spec with the storage it points into. */
struct prepared {
  const struct placer_instance *inst;
  const struct placer_launch_ops *ops;
  struct placer_launch_spec spec;
  char **argv, **env, **volumes, **extra;
  char *image, *group, *cpus, *mems, *container_name, *log_path, *conf, *console;
  bool is_vm;
  unsigned vcpus;
  enum placer_vm_accel accel;
  const char *accel_why;
  /* after start */
  struct placer_launch_record rec;
  const char *state;   /* "started", "running", "-" */
  char *note;
};

static void prepared_clear(struct prepared *p) {
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
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  int rc = placer_substitute_argv(tmpl, vars->vars, vars->n, out, err);
  free(tmpl);
  return rc;
}

static int subst_one(const char *tmpl, const struct placer_subst_vars *vars, char **out, struct placer_error **err) {
  *out = NULL;
  return tmpl ? placer_substitute(tmpl, vars->vars, vars->n, out, err) : 0;
}

static int prepare_vm(const struct placer_run_config *run, const struct placer_subst_vars *vars, const char *rundir,
                      struct prepared *p, struct placer_error **err) {
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
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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

static int prepare(const struct placer_profile *profile, const struct placer_instance *inst, const char *prefix,
                   const char *rundir, struct prepared *p, struct placer_error **err) {
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
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  if (run->backend == PLACER_RUN_PODMAN) {
    p->container_name = placer_podman_container_name(inst->name);
    p->conf = placer_containers_conf_path();
    if (p->container_name == NULL)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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

/* The instance's group with the plan's values, before anything runs in it. */
static int place_group(struct placer_cgroup *cg, const struct prepared *p, struct placer_error **err) {
  const struct placer_instance *inst = p->inst;
  if (placer_cgroup_create(cg, p->group, err) < 0)
    return -1;
  if (inst->pinned) {
    if (placer_cgroup_set_mems(cg, p->group, p->mems, err) < 0 || placer_cgroup_set_cpus(cg, p->group, p->cpus, err) < 0)
      return -1;
  }
  if (placer_cgroup_set_memory_limit(cg, p->group, inst->has_memory_limit ? inst->memory_bytes : PLACER_CGROUP_UNLIMITED,
                                     err) < 0)
    return -1;
  if (inst->cpu_weight && placer_cgroup_set_cpu_weight(cg, p->group, inst->cpu_weight, err) < 0)
    return -1;
  return 0;
}

static int fill_record(struct prepared *p, const char *profile, unsigned seq) {
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

static int start_one(struct placer_cgroup *cg, const char *profile, const char *rundir, unsigned seq, struct prepared *p,
                     struct placer_error **err) {
  /* Written before the start: if placer dies half way, stop still finds
   * the group (and the container name) to clean up. */
  if (fill_record(p, profile, seq) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  if (placer_runstate_save(rundir, &p->rec, err) < 0)
    return -1;
  if (place_group(cg, p, err) < 0)
    return placer_error_prefix(err, "%s", p->inst->name);
  struct placer_launch_record started = { 0 };
  if (p->ops->start(cg, &p->spec, &started, err) < 0)
    return -1;
  placer_launch_record_clear(&p->rec);
  p->rec = started;
  if (fill_record(p, profile, seq) < 0 || placer_runstate_save(rundir, &p->rec, err) < 0) {
    placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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

/* Stop and clean up one recorded instance; errors are collected, not fatal. */
static int stop_record(struct placer_cgroup *cg, const char *rundir, const struct placer_launch_record *rec,
                       bool *was_running, struct placer_error **err) {
  const struct placer_launch_ops *ops = placer_launch_find(rec->backend);
  if (ops == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: unknown backend '%s' in its run record", rec->instance,
                            rec->backend);
  *was_running = rec->pid > 0 && ops->is_running(rec);
  if (ops->stop(cg, rec, err) < 0 || ops->cleanup(cg, rec, err) < 0)
    return -1;
  return placer_runstate_remove(rundir, rec->instance, err);
}

/* ------------------------------------------------------------------ output */

static void print_memory(const struct placer_instance *inst, char *buf, size_t len) {
  if (inst && inst->has_memory_limit)
    placer_format_bytes(inst->memory_bytes, buf, len);
  else
    snprintf(buf, len, "-");
}

static void print_run_table(const struct prepared *ps, size_t n, FILE *out) {
  fprintf(out, "%-14s %-7s %-8s %8s %-10s %-6s %-10s %s\n", "INSTANCE", "BACKEND", "STATE", "PID", "CPUS", "MEMS",
          "MEMORY", "WHAT");
  for (size_t i = 0; i < n; i++) {
    const struct prepared *p = &ps[i];
    char mem[32], pid[16];
    print_memory(p->inst, mem, sizeof(mem));
    if (p->rec.pid > 0)
      snprintf(pid, sizeof(pid), "%d", (int)p->rec.pid);
    else
      snprintf(pid, sizeof(pid), "-");
    fprintf(out, "%-14s %-7s %-8s %8s %-10s %-6s %-10s %s\n", p->inst->name, p->ops ? p->ops->name : "-", p->state,
            pid, p->cpus && p->inst->pinned ? p->cpus : "-", p->mems && p->inst->pinned ? p->mems : "-", mem,
            p->note ? p->note : (p->ops ? "" : "no run: section (placer apply places it)"));
  }
}

/* ------------------------------------------------------------------ commands */

static int load_plan(const char *xml, const char *path, struct placer_profile **profile, struct placer_plan **plan,
                     struct placer_error **err) {
  struct placer_topology *topo = NULL;
  if (placer_profile_load(path, profile, err) < 0)
    return -1;
  if (placer_topology_load(xml, &topo, err) < 0)
    return -1;
  int rc = placer_plan_compute(topo, *profile, plan, err);
  placer_topology_free(topo);
  return rc;
}

static void dry_run_print(const struct prepared *ps, size_t n, FILE *out) {
  for (size_t i = 0; i < n; i++) {
    const struct prepared *p = &ps[i];
    if (p->ops == NULL) {
      fprintf(out, "%s: not run (no run: section)\n", p->inst->name);
      continue;
    }
    char **argv = NULL;
    struct placer_error *e = NULL;
    if (strcmp(p->ops->name, "podman") == 0) {
      if (placer_podman_run_argv(&p->spec, &argv, &e) < 0) {
        placer_error_free(e);
        argv = NULL;
      }
    }
    cleanup_free char *cmd = placer_argv_quote(argv ? argv : p->argv);
    fprintf(out, "%s: backend %s, group %s, cpus %s, mems %s\n", p->inst->name, p->ops->name, p->group,
            p->inst->pinned ? p->cpus : "(not pinned)", p->inst->pinned ? p->mems : "(not pinned)");
    for (size_t j = 0; p->env && p->env[j] && !argv; j++) {
      cleanup_free char *q = placer_argv_quote((char *const[]){ p->env[j], NULL });
      fprintf(out, "  env %s\n", q ? q : "?");
    }
    if (p->container_name)
      fprintf(out, "  CONTAINERS_CONF=%s\n", p->conf ? p->conf : "(none found: podman's own configuration)");
    if (p->is_vm)
      fprintf(out, "  accel %s (%s)%s\n", placer_vm_accel_name(p->accel), p->accel_why,
              p->inst->pin_vcpus ? ", vCPU threads pinned one per PU" : "");
    fprintf(out, "  %s\n", cmd ? cmd : "?");
    placer_argv_free(argv);
  }
}

int cmd_run(int argc, char **argv) {
  static const struct option options[] = {
    { "topology", required_argument, NULL, 't' },
    { "state-dir", required_argument, NULL, 's' },
    { "dry-run", no_argument, NULL, 'n' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *xml = NULL, *state_dir = NULL;
  bool dry_run = false;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml = optarg; break;
    case 's': state_dir = optarg; break;
    case 'n': dry_run = true; break;
    case 'h': fputs(run_usage, stdout); return PLACER_EXIT_OK;
    default: return placer_usage_error("run", opt, argc, argv);
    }
  }
  if (check_one_operand("run", argc, argv) < 0)
    return PLACER_EXIT_USAGE;
  if (state_dir == NULL)
    state_dir = placer_state_default_dir();

  struct placer_error *err = NULL;
  struct placer_profile *profile = NULL;
  struct placer_plan *plan = NULL;
  struct placer_cgroup *cg = NULL;
  struct prepared *ps = NULL;
  char *rundir = NULL;
  int lock_fd = -1;
  size_t n = 0, n_started = 0;
  int rc = PLACER_EXIT_OK;

  if (load_plan(xml, argv[optind], &profile, &plan, &err) < 0)
    goto fail;
  if (placer_runstate_dir(state_dir, profile->name, &rundir, &err) < 0)
    goto fail;
  const char *prefix = placer_apply_prefix(NULL);
  n = plan->n_instances;
  ps = calloc(n ? n : 1, sizeof(*ps));
  if (ps == NULL) {
    placer_error_errno(&err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    goto fail;
  }
  /* Everything is checked and substituted before anything starts. */
  for (size_t i = 0; i < n; i++)
    if (prepare(profile, &plan->instances[i], prefix, rundir, &ps[i], &err) < 0) {
      placer_error_prefix(&err, "%s", plan->instances[i].name);
      goto fail;
    }
  if (dry_run) {
    dry_run_print(ps, n, stdout);
    goto out;
  }
  if (placer_runstate_lock(state_dir, &lock_fd, &err) < 0 || placer_cgroup_open(NULL, &cg, &err) < 0)
    goto fail;

  for (size_t i = 0; i < n; i++) {
    struct prepared *p = &ps[i];
    if (p->ops == NULL)
      continue;
    struct placer_launch_record old = { 0 };
    bool found = false;
    if (placer_runstate_load(rundir, p->inst->name, &old, &found, &err) < 0)
      goto rollback;
    if (found) {
      const struct placer_launch_ops *ops = placer_launch_find(old.backend);
      if (ops && old.pid > 0 && ops->is_running(&old)) {
        p->rec = old; /* already running: leave it alone */
        p->state = "running";
        p->note = strdup("started earlier");
        continue;
      }
      /* A record of something that died: clear what it left first. */
      if (ops && (ops->stop(cg, &old, &err) < 0 || ops->cleanup(cg, &old, &err) < 0)) {
        placer_launch_record_clear(&old);
        placer_error_prefix(&err, "%s: clean up after the previous run", p->inst->name);
        goto rollback;
      }
      placer_launch_record_clear(&old);
    }
    if (start_one(cg, profile->name, rundir, (unsigned)i, p, &err) < 0) {
      /* The failed one too: its group, its record, a container half made. */
      struct placer_error *e2 = NULL;
      bool ignored;
      stop_record(cg, rundir, &p->rec, &ignored, &e2);
      placer_error_free(e2);
      p->state = "failed";
      goto rollback;
    }
    n_started = i + 1;
  }
  print_run_table(ps, n, stdout);
  goto out;

rollback:
  /* Undo what this run started, newest first; keep what ran before. */
  for (size_t i = n_started; i-- > 0;) {
    struct prepared *p = &ps[i];
    if (p->ops == NULL || strcmp(p->state, "started") != 0)
      continue;
    struct placer_error *e2 = NULL;
    bool ignored;
    if (stop_record(cg, rundir, &p->rec, &ignored, &e2) < 0) {
      fprintf(stderr, "placer run: rollback of %s: %s\n", p->inst->name, e2->msg);
      placer_error_free(e2);
    } else {
      fprintf(stderr, "placer run: rolled back: stopped %s\n", p->inst->name);
    }
  }
fail:
  rc = placer_error_report(err);
  err = NULL;
out:
  for (size_t i = 0; ps && i < n; i++)
    prepared_clear(&ps[i]);
  free(ps);
  if (lock_fd >= 0)
    close(lock_fd);
  free(rundir);
  placer_cgroup_close(cg);
  placer_plan_free(plan);
  placer_profile_free(profile);
  return rc;
}

static int compare_seq_desc(const void *a, const void *b) {
  const struct placer_launch_record *x = a, *y = b;
  if (x->seq != y->seq)
    return x->seq < y->seq ? 1 : -1;
  return strcmp(y->instance, x->instance);
}

int cmd_stop(int argc, char **argv) {
  static const struct option options[] = {
    { "state-dir", required_argument, NULL, 's' },
    { "timeout", required_argument, NULL, 'T' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *state_dir = NULL;
  long timeout = -1;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 's': state_dir = optarg; break;
    case 'T': {
      char *end;
      errno = 0;
      timeout = strtol(optarg, &end, 10);
      if (errno || *end || end == optarg || timeout < 0 || timeout > PLACER_RUN_STOP_TIMEOUT_MAX) {
        fprintf(stderr, "placer stop: --timeout wants seconds 0..%d, got '%s'\n", PLACER_RUN_STOP_TIMEOUT_MAX, optarg);
        return PLACER_EXIT_USAGE;
      }
      break;
    }
    case 'h': fputs(stop_usage, stdout); return PLACER_EXIT_OK;
    default: return placer_usage_error("stop", opt, argc, argv);
    }
  }
  if (check_one_operand("stop", argc, argv) < 0)
    return PLACER_EXIT_USAGE;
  if (state_dir == NULL)
    state_dir = placer_state_default_dir();

  struct placer_error *err = NULL;
  struct placer_profile *profile = NULL;
  struct placer_cgroup *cg = NULL;
  struct placer_launch_record *recs = NULL;
  size_t n = 0;
  char *rundir = NULL;
  int lock_fd = -1;
  int rc = PLACER_EXIT_OK;
  /* The records are enough: a profile that is gone (or no longer parses)
   * can still be stopped by its name. */
  const char *profile_name = argv[optind];
  bool by_name = false;
  if (access(argv[optind], F_OK) < 0 && placer_cgroup_name_is_valid(argv[optind])) {
    cleanup_free char *dir = NULL;
    struct placer_error *e = NULL;
    by_name = placer_runstate_dir(state_dir, argv[optind], &dir, &e) == 0 && access(dir, F_OK) == 0;
    placer_error_free(e);
  }
  if (!by_name) {
    if (placer_profile_load(argv[optind], &profile, &err) < 0) {
      rc = placer_error_report(err);
      goto out;
    }
    profile_name = profile->name;
  }
  if (placer_runstate_dir(state_dir, profile_name, &rundir, &err) < 0 ||
      placer_runstate_lock(state_dir, &lock_fd, &err) < 0 || placer_cgroup_open(NULL, &cg, &err) < 0 ||
      placer_runstate_list(rundir, &recs, &n, &err) < 0) {
    rc = placer_error_report(err);
    goto out;
  }
  if (n == 0) {
    printf("nothing of profile '%s' is running (no records in %s)\n", profile_name, rundir);
    goto out;
  }
  qsort(recs, n, sizeof(*recs), compare_seq_desc);
  printf("%-14s %-7s %8s %s\n", "INSTANCE", "BACKEND", "PID", "STATE");
  for (size_t i = 0; i < n; i++) {
    struct placer_launch_record *rec = &recs[i];
    if (timeout >= 0)
      rec->stop_timeout_s = (unsigned)timeout;
    bool was_running = false;
    struct placer_error *e = NULL;
    char pid[16];
    snprintf(pid, sizeof(pid), rec->pid > 0 ? "%d" : "-", (int)rec->pid);
    if (stop_record(cg, rundir, rec, &was_running, &e) < 0) {
      printf("%-14s %-7s %8s %s\n", rec->instance, rec->backend, pid, "FAILED");
      fprintf(stderr, "placer stop: %s\n", e->msg);
      placer_error_free(e);
      rc = PLACER_EXIT_SYSTEM;
      continue;
    }
    printf("%-14s %-7s %8s %s\n", rec->instance, rec->backend, pid,
           was_running ? "stopped" : "was not running; cleaned up");
  }
out:
  placer_runstate_free_list(recs, n);
  if (lock_fd >= 0)
    close(lock_fd);
  free(rundir);
  placer_cgroup_close(cg);
  placer_profile_free(profile);
  return rc;
}
