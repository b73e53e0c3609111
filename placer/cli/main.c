/* placer: place Ceph daemons, VMs and benchmark clients on a hyperconverged
 * node.  This file only dispatches subcommands (iproute2 style: exact names). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "lib/error.h"

struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
};

static const struct command commands[] = {
  { "topo", cmd_topo, "show the node: NUMA nodes, cores, caches, disks, NICs" },
  { "plan", cmd_plan, "compute where every role runs from a profile" },
  { "apply", cmd_apply, "put running daemons, VMs and fio in their planned cgroups" },
  { "status", cmd_status, "planned vs actual placement; exit 1 on drift" },
  { "reset", cmd_reset, "undo apply: processes back, placer's groups removed" },
  { "run", cmd_run, "start a profile's daemons, containers and VMs already placed" },
  { "stop", cmd_stop, "stop what 'placer run' started and remove its groups" },
  { "exec", cmd_exec, "run a command already placed in an instance's planned group" },
  { "bench", cmd_bench, "A/B benchmark placements on real Ceph and fio (default: a built-in study)" },
  { "compare", cmd_compare, "the CI gate: two bench results directories cell by cell; exit 5 on a regression" },
  { "report", cmd_report, "an HTML page with SVG plots (gnuplot) of a bench results directory" },
  { "size", cmd_size, "how many VMs fit beside the OSDs, from measured costs (and TripleO's formula)" },
};

static void usage(FILE *out) {
  fprintf(out, "usage: placer COMMAND [OPTIONS]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'placer COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return PLACER_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
    usage(stdout);
    return PLACER_EXIT_OK;
  }
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    printf("placer %s\n", PLACER_VERSION);
    return PLACER_EXIT_OK;
  }
  placer_cli_guard_xml_loads();
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(commands[i].name, name) == 0)
      return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "placer: unknown command '%s' (see 'placer --help')\n", name);
  return PLACER_EXIT_USAGE;
}
