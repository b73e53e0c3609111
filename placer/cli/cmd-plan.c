/* placer plan [--topology FILE.xml] [--json] [--set ROLE.KEY=VALUE]... PROFILE:
 * where every role runs. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "plan.h"
#include "profile.h"

static const char plan_usage[] =
    "usage: placer plan [--topology FILE.xml] [--json] [--set ROLE.KEY=VALUE]... PROFILE\n"
    "Compute where every instance of every role of PROFILE runs on this node (or on the\n"
    "node an hwloc XML file describes): cpus, NUMA memory nodes, memory limit, locality.\n"
    "Nothing is changed.  Exit 2: bad command line, profile or topology; 3: the profile\n"
    "does not fit the node.  --set changes one setting of the profile first (osd.cpu.quota=0.5;\n"
    "keys cpu.quota, cpu.weight, cpu.cores, cpu.threads, cpu.pool).  Profiles are described\n"
    "in docs/profiles.md.\n";

int cmd_plan(int argc, char **argv) {
  static const struct option options[] = {
    { "topology", required_argument, NULL, 't' },
    { "json", no_argument, NULL, 'j' },
    { "set", required_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *xml_path = NULL;
  bool json = false;
  const char *sets[64];
  size_t n_sets = 0;
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml_path = optarg; break;
    case 'j': json = true; break;
    case 's':
      if (n_sets == sizeof(sets) / sizeof(sets[0])) {
        fprintf(stderr, "placer plan: at most 64 --set\n");
        return PLACER_EXIT_USAGE;
      }
      sets[n_sets++] = optarg;
      break;
    case 'h': fputs(plan_usage, stdout); return PLACER_EXIT_OK;
    default: return placer_usage_error("plan", opt, argc, argv);
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "placer plan: missing PROFILE (see 'placer plan --help')\n");
    return PLACER_EXIT_USAGE;
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "placer plan: unexpected argument '%s'\n", argv[optind + 1]);
    return PLACER_EXIT_USAGE;
  }
  const char *profile_path = argv[optind];

  struct placer_error *err = NULL;
  struct placer_profile *profile = NULL;
  struct placer_topology *topo = NULL;
  struct placer_plan *plan = NULL;
  if (placer_cli_plan(profile_path, sets, n_sets, xml_path, &profile, &topo, &plan, &err) < 0)
    return placer_error_report(err);
  int rc;
  if (json) {
    rc = placer_print_json(placer_plan_to_json(plan), stdout);
    /* the warnings are in the JSON; say so on stderr too for a person */
    for (size_t i = 0; i < plan->n_warnings; i++)
      fprintf(stderr, "placer plan: warning: %s\n", plan->warnings[i]);
  } else {
    rc = placer_plan_print_text(plan, stdout);
  }
  placer_plan_free(plan);
  placer_topology_free(topo);
  placer_profile_free(profile);
  return placer_finish_output("plan", rc);
}
