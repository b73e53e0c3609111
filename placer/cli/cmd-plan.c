/* placer plan [--topology FILE.xml] [--json] [--set ROLE.KEY=VALUE]... PROFILE:
 * where every role runs. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/array.h"
#include "cli/commands.h"
#include "plan/plan.h"
#include "profile/profile.h"

static const struct placer_cli_option plan_options[] = {
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Plan for the node an hwloc XML file describes (lstopo-no-graphics --of xml) instead of this one." },
  { "json", 'j', NULL, PLACER_CLI_TEXT, "Print the plan as one JSON document; its warnings go to standard error too." },
  { "set", 's', "ROLE.KEY=VALUE", PLACER_CLI_TEXT,
    "Change one setting of the profile before planning, as if the file said so: osd.cpu.quota=0.5. Keys: "
    "count, cpu.quota, cpu.weight, cpu.cores, cpu.threads, cpu.pool, cpu.align (osd.cpu.align=numa: the placement "
    "without cache alignment). May be given up to 64 times." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_plan = {
  .name = "plan",
  .run = cmd_plan,
  .summary = "compute where every role runs from a profile",
  .synopsis = { "[--topology FILE.xml] [--json] [--set ROLE.KEY=VALUE]... PROFILE" },
  .description =
      "Compute where every instance of every role of PROFILE (a YAML file) runs on this node, or on the node "
      "an hwloc XML file describes: its CPUs (and the L3 domains they lie in), NUMA memory nodes, memory limit, "
      "CPU quota and weight, and its "
      "locality to its device or NIC, with the warnings of a preference that could not be met; for an MDS, the "
      "whole cores it holds (no other role gets their SMT siblings), its NIC and its mds_cache_memory_limit "
      "(half its memory). Nothing is changed: placer apply and placer run put a plan in force.\n\n"
      "A plan that cannot be met names the role, the resource and by how much it is short. The profile "
      "schema is in profiles.md of placer's documentation; the shipped profiles are in "
      "/usr/share/placer/profiles.",
  .options = plan_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 the plan was printed (warnings do not change it)\n"
                 "2 bad command line, profile (file:line:column) or topology file\n"
                 "3 the profile does not fit the node",
  .examples = "Plan a shipped profile on this node:\n"
              "$ placer plan /usr/share/placer/profiles/hci-nvme.yaml\n"
              "The same for another node, with the OSDs limited to half a core each, as JSON:\n"
              "$ placer plan --topology node.xml --set osd.cpu.quota=0.5 --json hci-nvme.yaml",
  .see_also = "placer-topo(1), placer-apply(1), placer-run(1)",
};

int cmd_plan(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_plan, table);
  const char *xml_path = NULL;
  bool json = false;
  struct placer_cli_sets sets = { .n = 0 };
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml_path = optarg; break;
    case 'j': json = true; break;
    case 's':
      if (placer_cli_add_set(&sets, "plan", optarg) < 0)
        return PLACER_EXIT_USAGE;
      break;
    case 'h': return placer_cli_print_help(&placer_cli_plan);
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
  if (placer_cli_load_plan(profile_path, sets.items, sets.n, xml_path, &profile, &topo, &plan, &err) < 0)
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
