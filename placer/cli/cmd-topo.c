/* placer topo [--topology FILE.xml] [--json]: show the node. */
#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "topology/topology.h"

static const struct placer_cli_option topo_options[] = {
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Read the node from an hwloc XML file of another machine (lstopo-no-graphics --of xml > node.xml) instead "
    "of asking hwloc about this one." },
  { "json", 'j', NULL, PLACER_CLI_TEXT,
    "Print one JSON document (schema 1; fields are only ever added) instead of the text form." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_topo = {
  .name = "topo",
  .run = cmd_topo,
  .summary = "show the node: NUMA nodes, cores, caches, disks, NICs",
  .synopsis = { "[--topology FILE.xml] [--json]" },
  .description = "Show packages, NUMA nodes (memory, CPUs, distances), cores and their SMT siblings, the cores that "
                 "share an L3 (and an L2, where several do), block devices and network interfaces with their NUMA "
                 "locality, and the CPUs and memory "
                 "nodes this process may use. Live through hwloc, or from an hwloc XML file of another machine, so "
                 "that a plan can be made for a node you are not logged into.\n\n"
                 "Locality is never guessed: a device that is not on PCI, or whose PCI bus hwloc attached to the whole "
                 "machine, is reported with no NUMA node (unknown). What this process may use is its cpuset's CPUs and "
                 "memory nodes, further restricted by its own CPU affinity.",
  .options = topo_options,
  .exit_status = "0 printed\n"
                 "2 bad option, or the XML file is missing, unreadable, empty, corrupt or from a newer hwloc\n"
                 "4 hwloc could not read the live machine, or standard output could not be written",
  .examples = "The node placer runs on, as a table:\n"
              "$ placer topo\n"
              "Another machine's topology, saved there with lstopo, as JSON:\n"
              "$ placer topo --topology node.xml --json",
  .see_also = "placer-plan(1), lstopo(1), hwloc(7)",
};

int cmd_topo(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_topo, table);
  const char *xml_path = NULL;
  bool json = false;
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't': xml_path = optarg; break;
    case 'j': json = true; break;
    case 'h': return placer_cli_print_help(&placer_cli_topo);
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
