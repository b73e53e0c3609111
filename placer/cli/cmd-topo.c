/* placer topo [--topology FILE.xml] [--json]: show the node. */
#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "topology.h"

static const char topo_usage[] =
    "usage: placer topo [--topology FILE.xml] [--json]\n"
    "Show packages, NUMA nodes, cores and their SMT siblings, L3 groups, block devices\n"
    "and network interfaces with their NUMA locality, and the CPUs and memory nodes this\n"
    "process may use.  Live through hwloc, or from an hwloc XML file of another machine.\n";

int cmd_topo(int argc, char **argv) {
  static const struct option options[] = {
    { "topology", required_argument, NULL, 't' },
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *xml_path = NULL;
  bool json = false;
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml_path = optarg; break;
    case 'j': json = true; break;
    case 'h': fputs(topo_usage, stdout); return PLACER_EXIT_OK;
    default: return placer_usage_error("topo", opt, argc, argv);
    }
  }
  if (optind < argc) {
    fprintf(stderr, "placer topo: unexpected argument '%s'\n", argv[optind]);
    return PLACER_EXIT_USAGE;
  }
  struct placer_error *err = NULL;
  struct placer_topology *topo = NULL;
  if (placer_topology_load(xml_path, &topo, &err) < 0)
    return placer_error_report(err);
  int rc = json ? placer_print_json(placer_topology_to_json(topo), stdout) : placer_topology_print_text(topo, stdout);
  placer_topology_free(topo);
  return placer_finish_output("topo", rc);
}
