/* placer: place Ceph daemons, VMs and benchmark clients on a hyperconverged
 * node.  This file dispatches subcommands (iproute2 style: exact names) from
 * one table, and holds what placer(1) says about placer as a whole. */
#include <stdio.h>
#include <string.h>

#include "lib/array.h"
#include "cli/commands.h"
#include "lib/error.h"

const struct placer_cli_command *const placer_cli_commands[] = {
  &placer_cli_topo,  &placer_cli_plan,    &placer_cli_export, &placer_cli_apply, &placer_cli_status,
  &placer_cli_reset, &placer_cli_watch,   &placer_cli_run,    &placer_cli_stop,  &placer_cli_exec,
  &placer_cli_bench, &placer_cli_compare, &placer_cli_report, &placer_cli_size,  &placer_cli_help,
};
const size_t placer_cli_n_commands = N_OF(placer_cli_commands);

static const struct placer_cli_option main_options[] = {
  { "version", 'V', NULL, PLACER_CLI_TEXT, "Print placer's version and exit." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_main = {
  .name = "placer",
  .summary = "place Ceph daemons, VMs and fio on a node's cores and memory with cgroups, and measure it",
  .synopsis = { "COMMAND [OPTIONS] [ARGS]", "--help", "--version" },
  .description =
      "On a hyperconverged node, Ceph OSDs, an MDS, client VMs and benchmark clients (fio) compete for "
      "the same cores, caches and memory. placer discovers the node (NUMA nodes, cores and SMT "
      "siblings, caches, NVMe and disks, NICs with their NUMA locality), plans from a YAML profile which "
      "cores and memory nodes every OSD, MDS, VM and fio client gets, near its device or NIC and with a "
      "reserve for the host, and puts the plan in force with cgroups (v1 and v2) on running daemons, "
      "containers and VMs, or starts them already placed. It benchmarks placements A/B with fio on "
      "real Ceph, draws the results, and sizes a node from the measured costs.\n\n"
      "Each command has a page of its own, placer-COMMAND(1), and prints its usage with --help. "
      "Options may follow the operands. A bad command line is one line on standard error and exit "
      "status 2, before anything is changed.\n\n"
      "The profile schema, the JSON outputs and the study format are described in the documentation "
      "installed with placer (/usr/share/doc/placer/ in the Debian package: profiles.md, apply.md, "
      "run.md, bench.md, size.md, report.md, topology.md, fleet.md, export.md). Profiles to start from are shipped "
      "in /usr/share/placer/profiles.",
  .options = main_options,
  .operands = PLACER_CLI_COMMAND,
  .exit_status = "0 success\n"
                 "1 drift: what is in force differs from the plan (placer status)\n"
                 "2 bad usage or bad input: options, YAML (file:line:column), topology file\n"
                 "3 the profile does not fit the node: the message names the role and by how much it is short\n"
                 "4 the system refused a change (everything rolled back), or a benchmark could not run to "
                 "its end (its results so far kept)\n"
                 "5 a regression found by the benchmark gate (placer compare, placer bench --compare)\n"
                 "130 a benchmark stopped by Ctrl-C (everything torn down, the results so far kept)",
  .environment =
      "PLACER_STATE_DIR where apply, status, reset, run and stop keep their state and lock; default "
      "/run/placer (--state-dir overrides it)\n"
      "PLACER_CGROUP_PREFIX the top group of placer's cgroups; default placer (--cgroup-prefix and "
      "--prefix override it)\n"
      "PLACER_CGROUP_ROOT where the cgroup file systems are mounted; default /sys/fs/cgroup\n"
      "PLACER_CONTAINERS_CONF the containers.conf of every podman call placer makes; default the shipped one\n"
      "PLACER_PODMAN the podman that finds the containers of match: container; default podman\n"
      "PLACER_PROFILES_DIR where bench looks first for a profile that a study names without a path\n"
      "PLACER_DEFAULT_STUDY the study placer bench runs when given none; default the shipped "
      "studies/default.yaml\n"
      "PLACER_CEPH_CLUSTER_SCRIPT the script that makes bench's throwaway local Ceph cluster; default "
      "the shipped libexec/ceph-cluster.sh\n"
      "PLACER_VM_KERNEL the guest kernel of vm roles and VM neighbours that name none\n"
      "PLACER_VM_INITRD the guest initramfs of vm roles and VM neighbours that name none\n"
      "PLACER_VM_BUILD_SCRIPT the script that builds a guest initramfs; default the shipped "
      "libexec/vm/build-initramfs.sh\n"
      "PLACER_CACHE_DIR where bench keeps the guests it builds; default /var/cache/placer\n"
      "PLACER_GNUPLOT the gnuplot that draws the plots of placer report; default gnuplot\n"
      "CEPH_CONF the ceph.conf whose public and cluster networks placer topo reads; default "
      "/etc/ceph/ceph.conf",
  .files = "/usr/share/placer/profiles/ the shipped profiles: hci-nvme, hci-hdd, demo-local, unpinned\n"
           "/usr/share/placer/studies/ the shipped studies of placer bench: default.yaml, recovery.yaml\n"
           "/usr/share/placer/containers/containers.conf podman's settings for the containers placer runs\n"
           "/usr/libexec/placer/ the scripts bench runs: a throwaway Ceph cluster, the guest builder\n"
           "/run/placer/ the state of apply and run (PLACER_STATE_DIR, --state-dir)\n"
           "/usr/share/doc/placer/ the reference: profiles, apply, run, bench, size, report, topology, fleet",
  .examples = "Show the node, plan a profile on it, put the plan in force and check it:\n"
              "$ placer topo\n"
              "$ placer plan /usr/share/placer/profiles/hci-nvme.yaml\n"
              "$ placer apply /usr/share/placer/profiles/hci-nvme.yaml\n"
              "$ placer status\n"
              "Plan for another machine, from an hwloc XML file of it (lstopo --of xml):\n"
              "$ placer plan --topology node.xml --json profile.yaml\n"
              "Run the default benchmark study and gate a later run against it:\n"
              "$ placer bench --out base\n"
              "$ placer bench --compare base",
  .see_also = "lstopo(1), numactl(8), cgroups(7), cpuset(7), podman(1), fio(1), ceph(8)",
};

int main(int argc, char **argv) {
  if (argc < 2) {
    placer_cli_print_overview(stderr);
    return PLACER_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
    return placer_finish_output("--help", placer_cli_print_overview(stdout));
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    printf("placer %s\n", PLACER_VERSION);
    return placer_finish_output("--version", 0);
  }
  placer_cli_guard_xml_loads();
  const struct placer_cli_command *cmd = placer_cli_find(name);
  if (cmd)
    return cmd->run(argc - 1, argv + 1);
  fprintf(stderr, "placer: unknown command '%s' (see 'placer --help')\n", name);
  return PLACER_EXIT_USAGE;
}
