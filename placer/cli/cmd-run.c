/* placer run PROFILE / placer stop PROFILE: start every instance of the
 * profile's roles that have a run: section, already placed, and record what
 * was started (the transaction: run-roles.c); stop it all again and leave
 * nothing behind.  Here: parsing and printing. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cli/commands.h"
#include "launch-prepare.h"
#include "launch.h"
#include "plan/plan.h"
#include "podman-argv.h"
#include "profile/profile-run.h"
#include "profile/profile.h"
#include "run-roles.h"
#include "runstate.h"
#include "state.h"
#include "lib/substitute.h"
#include "topology/topology.h"
#include "lib/units.h"
#include "vm.h"

static const struct placer_cli_option run_options[] = {
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Plan on the topology an hwloc XML file describes instead of asking hwloc (the instances still start "
    "here)." },
  { "state-dir", 's', "DIR", PLACER_CLI_DIR,
    "Where the records of what was started are kept (default $PLACER_STATE_DIR, else /run/placer)." },
  { "dry-run", 'n', NULL, PLACER_CLI_TEXT, "Print the command lines and groups; start and change nothing." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_run = {
  .name = "run",
  .run = cmd_run,
  .summary = "start a profile's daemons, containers and VMs already placed",
  .synopsis = { "[--topology FILE.xml] [--state-dir DIR] [--dry-run] PROFILE" },
  .description =
      "Start every instance of the roles of PROFILE that have a run: section and that is not running yet, "
      "already placed: a plain process (backend exec) joins its cgroup before its first instruction; a "
      "container (backend podman) gets --cpuset-cpus, --cpuset-mems and --memory under placer's cgroup subtree; "
      "a vm role boots a qemu guest (TCG when KVM cannot run) with its vCPU threads pinned. Roles without run: "
      "are listed and left alone (placer apply places them).\n\n"
      "Everything is checked before anything starts. What was started is recorded in STATE_DIR/run/PROFILE, "
      "with each instance's log. If one instance fails to start, what this run started is stopped again.",
  .options = run_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 started (or already running)\n"
                 "2 bad command line, profile, topology or run: section; nothing started\n"
                 "3 the profile does not fit the node\n"
                 "4 an instance failed to start: what this run started is stopped again",
  .examples = "Show what would be started, start it, and stop it again:\n"
              "$ placer run --dry-run profile.yaml\n"
              "$ placer run profile.yaml\n"
              "$ placer stop profile.yaml",
  .environment = "PLACER_STATE_DIR the state directory when --state-dir is not given\n"
                 "PLACER_CGROUP_PREFIX the top group of the instances' groups (default placer)\n"
                 "PLACER_CONTAINERS_CONF podman's containers.conf (default the shipped one)\n"
                 "PLACER_VM_KERNEL the guest kernel of a vm role that names none\n"
                 "PLACER_VM_INITRD the guest initramfs of a vm role that names none",
  .see_also = "placer-stop(1), placer-plan(1), placer-exec(1), podman-run(1), qemu-system-x86_64(1)",
};

static const struct placer_cli_option stop_options[] = {
  { "state-dir", 's', "DIR", PLACER_CLI_DIR,
    "Where placer run recorded what it started (default $PLACER_STATE_DIR, else /run/placer)." },
  { "timeout", 'T', "SECONDS", PLACER_CLI_TEXT,
    "How long to wait after SIGTERM before SIGKILL, for every instance (default: each role's stop_timeout)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_stop = {
  .name = "stop",
  .run = cmd_stop,
  .summary = "stop what 'placer run' started and remove its groups",
  .synopsis = { "[--state-dir DIR] [--timeout SECONDS] PROFILE|PROFILE-NAME" },
  .description =
      "Stop what placer run PROFILE started, newest first: SIGTERM (podman stop for containers), SIGKILL after "
      "the role's stop_timeout (or --timeout), then remove the containers, every process left in the "
      "instances' groups and the groups themselves. Something that already exited is cleaned up, not an "
      "error. Works from the records alone: a profile file that is gone can be named by its profile name.",
  .options = stop_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 stopped, or nothing was running\n"
                 "2 bad command line or profile; a run record or state directory placer may not trust (a link, a "
                 "FIFO, writable by others)\n"
                 "4 an instance could not be stopped or cleaned up (the others are); a record that names what placer "
                 "run did not make (nothing stopped)",
  .examples = "$ placer stop --timeout 10 profile.yaml",
  .environment = "PLACER_STATE_DIR the state directory when --state-dir is not given",
  .see_also = "placer-run(1)",
};

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

/* ------------------------------------------------------------------ output */

static void print_memory(const struct placer_instance *inst, char *buf, size_t len) {
  if (inst && inst->has_memory_limit)
    placer_format_bytes(inst->memory_bytes, buf, len);
  else
    snprintf(buf, len, "-");
}

static void print_run_table(const struct placer_launch_prepared *ps, size_t n, FILE *out) {
  fprintf(out, "%-14s %-7s %-8s %8s %-10s %-6s %-10s %s\n", "INSTANCE", "BACKEND", "STATE", "PID", "CPUS", "MEMS",
          "MEMORY", "WHAT");
  for (size_t i = 0; i < n; i++) {
    const struct placer_launch_prepared *p = &ps[i];
    char mem[32], pid[16];
    print_memory(p->inst, mem, sizeof(mem));
    if (p->rec.pid > 0)
      snprintf(pid, sizeof(pid), "%d", (int)p->rec.pid);
    else
      snprintf(pid, sizeof(pid), "-");
    fprintf(out, "%-14s %-7s %-8s %8s %-10s %-6s %-10s %s\n", p->inst->name, p->ops ? p->ops->name : "-", p->state, pid,
            p->cpus && p->inst->pinned ? p->cpus : "-", p->mems && p->inst->pinned ? p->mems : "-", mem,
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

static void dry_run_print(const struct placer_launch_prepared *ps, size_t n, FILE *out) {
  for (size_t i = 0; i < n; i++) {
    const struct placer_launch_prepared *p = &ps[i];
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
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_run, table);
  const char *xml = NULL, *state_dir = NULL;
  bool dry_run = false;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml = optarg; break;
    case 's': state_dir = optarg; break;
    case 'n': dry_run = true; break;
    case 'h': return placer_cli_print_help(&placer_cli_run);
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
  struct placer_run run = { 0 };
  int rc = PLACER_EXIT_OK;
  if (load_plan(xml, argv[optind], &profile, &plan, &err) < 0 ||
      placer_run(profile, plan, state_dir, dry_run, &run, &err) < 0) {
    for (size_t i = 0; i < run.n_rollback; i++)
      fprintf(stderr, "placer run: %s\n", run.rollback[i]);
    rc = placer_error_report(err);
  } else if (dry_run) {
    dry_run_print(run.instances, run.n, stdout);
  } else {
    print_run_table(run.instances, run.n, stdout);
  }
  placer_run_clear(&run);
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
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_stop, table);
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
    case 'h': return placer_cli_print_help(&placer_cli_stop);
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
  char mark[PLACER_STATEDIR_ID_MAX] = "", *lock_made = NULL;
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
      placer_runstate_lock(state_dir, false, &lock_fd, mark, &lock_made, &err) < 0 ||
      placer_cgroup_open(NULL, &cg, &err) < 0 || placer_runstate_list(rundir, &recs, &n, &err) < 0) {
    rc = placer_error_report(err);
    goto out;
  }
  if (n == 0) {
    printf("nothing of profile '%s' is running (no records in %s)\n", profile_name, rundir);
    goto out;
  }
  /* every record first: one that names what run did not make stops nothing at all */
  for (size_t i = 0; i < n; i++)
    if (placer_launch_check_recorded(cg, mark, &recs[i], &err) < 0) {
      rc = placer_error_report(err);
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
    if (placer_launch_stop_recorded(cg, rundir, mark, rec, &was_running, &e) < 0) {
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
  placer_runstate_unlock(lock_fd, lock_made);
  if (rc == PLACER_EXIT_OK)
    placer_runstate_tidy(state_dir); /* nothing recorded left: no state directory either */
  free(rundir);
  placer_cgroup_close(cg);
  placer_profile_free(profile);
  return rc;
}
