/* placer exec PROFILE INSTANCE -- COMMAND...: run COMMAND already placed in
 * an instance's planned group.  placer plans the profile, creates (or
 * reuses) the instance's group with its cpus, mems and memory limit, moves
 * itself in and execs COMMAND, so the command never runs anywhere else.  It
 * is the launcher prefix that places a local cluster's daemons for `placer
 * bench` (libexec/ceph-cluster.sh's CEPH_CLUSTER_LAUNCHER). */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "apply/apply.h"
#include "cgroup/cgroup.h"
#include "cli/commands.h"
#include "launch-prepare.h"
#include "placement.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "lib/substitute.h"
#include "topology/topology.h"

static const struct placer_cli_option exec_options[] = {
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Plan on the topology an hwloc XML file describes instead of asking hwloc." },
  { "prefix", 'p', "NAME", PLACER_CLI_TEXT,
    "The top group of the instance's group (default $PLACER_CGROUP_PREFIX, else placer)." },
  { "env", 'e', "KEY=VALUE", PLACER_CLI_TEXT, "Set a variable for COMMAND (LD_PRELOAD=...). May be repeated." },
  { "set", 's', "ROLE.KEY=VALUE", PLACER_CLI_TEXT,
    "Change one setting of the profile first, as placer plan --set does. May be repeated." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_exec = {
  .name = "exec",
  .run = cmd_exec,
  .summary = "run a command already placed in an instance's planned group",
  .synopsis = { "[--topology FILE.xml] [--prefix NAME] [--env KEY=VALUE]... [--set ROLE.KEY=VALUE]... "
                "PROFILE INSTANCE -- COMMAND [ARG...]" },
  .description =
      "Run COMMAND inside INSTANCE's planned group (CPUs, memory nodes, memory limit) from its first "
      "instruction: placer plans PROFILE, creates the group PREFIX/ROLE/INSTANCE when it is missing, moves "
      "itself in and executes COMMAND, so that COMMAND never runs anywhere else. INSTANCE is a plan instance "
      "(osd.0) or a Ceph daemon name (mon.a, osd.1), found through the ceph_id of the profile's ceph-* roles. "
      "It is how placer bench starts the daemons, fio and the neighbours of a local cluster.\n\n"
      "Nothing is recorded: stop COMMAND as usual and remove the group with placer reset or rmdir. Options "
      "go before PROFILE.",
  .options = exec_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "COMMAND its own exit status, once it runs: placer executes it in its own place\n"
                 "2 bad command line or profile, or no such instance\n"
                 "3 the profile does not fit the node\n"
                 "4 the group could not be made or joined, or COMMAND could not be executed (then no group is "
                 "left)",
  .examples = "A Ceph OSD started inside the group the profile plans for osd.0:\n"
              "$ placer exec profile.yaml osd.0 -- ceph-osd -f -i 0",
  .environment = "PLACER_CGROUP_PREFIX the top group when --prefix is not given",
  .see_also = "placer-run(1), placer-bench(1), placer-plan(1)",
};

/* Can NAME be executed, found as execvp finds it (PATH when it has no '/')?
 * 0, or -1 with errno (ENOENT, EACCES): so that a command that cannot run
 * makes no group at all. */
static int find_program(const char *name) {
  struct stat st;
  if (strchr(name, '/')) {
    if (stat(name, &st) < 0)
      return -1;
    if (!S_ISREG(st.st_mode) || access(name, X_OK) < 0) {
      errno = EACCES;
      return -1;
    }
    return 0;
  }
  const char *path = getenv("PATH");
  cleanup_free char *dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  if (dirs == NULL)
    return -1;
  int why = ENOENT;
  for (char *rest = dirs, *dir; (dir = strsep(&rest, ":")) != NULL;) {
    cleanup_free char *full = NULL;
    if (asprintf(&full, "%s/%s", *dir ? dir : ".", name) < 0)
      return -1;
    if (stat(full, &st) < 0 || !S_ISREG(st.st_mode))
      continue;
    if (access(full, X_OK) == 0)
      return 0;
    why = EACCES;
  }
  errno = why;
  return -1;
}

int cmd_exec(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_exec, table);
  const char *xml = NULL, *prefix_opt = NULL;
  char **env = NULL;
  struct placer_cli_sets sets = { .n = 0 };
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml = optarg; break;
    case 'p':
      if (*optarg == '\0') {
        placer_argv_free(env);
        fprintf(stderr, "placer exec: --prefix is empty; name the top group (the default is placer)\n");
        return PLACER_EXIT_USAGE;
      }
      prefix_opt = optarg;
      break;
    case 'e':
      if (strchr(optarg, '=') == NULL || optarg[0] == '=') {
        placer_argv_free(env);
        fprintf(stderr, "placer exec: --env wants KEY=VALUE, got '%s'\n", optarg);
        return PLACER_EXIT_USAGE;
      }
      if (placer_argv_push(&env, optarg) < 0) {
        placer_argv_free(env);
        fprintf(stderr, "placer exec: out of memory\n");
        return PLACER_EXIT_SYSTEM;
      }
      break;
    case 's':
      if (placer_cli_add_set(&sets, "exec", optarg) < 0) {
        placer_argv_free(env);
        return PLACER_EXIT_USAGE;
      }
      break;
    case 'h': placer_argv_free(env); return placer_cli_print_help(&placer_cli_exec);
    default: placer_argv_free(env); return placer_usage_error("exec", opt, argc, argv);
    }
  }
  /* PROFILE INSTANCE -- COMMAND... (getopt stopped at the first operand, or ate "--") */
  int dashdash = -1;
  for (int i = optind; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) {
      dashdash = i;
      break;
    }
  int n_operands = dashdash >= 0 ? dashdash - optind : argc - optind;
  if (n_operands != 2 || dashdash < 0 || dashdash + 1 >= argc) {
    placer_argv_free(env);
    fprintf(stderr, "placer exec: expected PROFILE INSTANCE -- COMMAND [ARG...] (see 'placer exec --help')\n");
    return PLACER_EXIT_USAGE;
  }
  const char *profile_path = argv[optind], *name = argv[optind + 1];
  char **command = argv + dashdash + 1;

  struct placer_error *err = NULL;
  struct placer_profile *profile = NULL;
  struct placer_topology *topo = NULL;
  struct placer_plan *plan = NULL;
  struct placer_cgroup *cg = NULL;
  struct placer_placement *placement = NULL;
  struct placer_launch_self_undo undo = { .n_created = 0 };
  bool placed = false;
  int rc = -1;
  if (placer_profile_load(profile_path, &profile, &err) < 0)
    goto out;
  for (size_t i = 0; i < sets.n; i++)
    if (placer_profile_set(profile, sets.items[i], &err) < 0)
      goto out;
  if (placer_topology_load(xml, &topo, &err) < 0 || placer_plan_compute(topo, profile, &plan, &err) < 0)
    goto out;
  const struct placer_instance *inst = placer_plan_find_daemon(plan, name);
  if (inst == NULL) {
    placer_error_set(&err, PLACER_EXIT_USAGE, 0,
                     "profile '%s' has no instance '%s' (and no ceph-* role whose ceph_id matches it)", profile->name,
                     name);
    goto out;
  }
  if (find_program(command[0]) < 0) {
    placer_error_errno(&err, PLACER_EXIT_SYSTEM, errno, "exec '%s'", command[0]);
    goto out;
  }
  if (placer_placement_compute(plan, prefix_opt, NULL, 0, &placement, &err) < 0 ||
      placer_cgroup_open(NULL, &cg, &err) < 0)
    goto out;
  placed = true;
  /* its group, then its role's (the role's weight and quota) */
  const struct placer_placed *p = placer_placement_find(placement, inst->name);
  struct placer_writer w = placer_writer_cgroupfs(cg);
  if (placer_launch_place_self(cg, inst, p->group, &undo, &err) < 0 ||
      placer_placed_write(&w, p, 0, PLACER_ROLE_SETTINGS, NULL, NULL, NULL, &err) < 0) {
    placer_error_prefix(&err, "%s", inst->name);
    goto out;
  }
  for (size_t i = 0; env && env[i]; i++) {
    char *eq = strchr(env[i], '=');
    *eq = '\0';
    int r = setenv(env[i], eq + 1, 1);
    *eq = '=';
    if (r < 0) {
      placer_error_errno(&err, PLACER_EXIT_SYSTEM, errno, "setenv '%s'", env[i]);
      goto out;
    }
  }
  placer_placement_free(placement);
  placement = NULL;
  placer_plan_free(plan);
  plan = NULL;
  placer_topology_free(topo);
  topo = NULL;
  placer_profile_free(profile);
  profile = NULL;
  execvp(command[0], command);
  placer_error_errno(&err, PLACER_EXIT_SYSTEM, errno, "exec '%s'", command[0]);
out:
  if (placed)
    placer_launch_unplace_self(cg, &undo); /* nothing ran: nothing of it stays */
  rc = placer_error_report(err);
  placer_placement_free(placement);
  placer_argv_free(env);
  placer_cgroup_close(cg);
  placer_plan_free(plan);
  placer_topology_free(topo);
  placer_profile_free(profile);
  return rc;
}
