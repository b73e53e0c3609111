/* placer export --format FORMAT [--topology FILE.xml] [--set ROLE.KEY=VALUE]...
 * [--map FILE] [--out DIR] PROFILE: the plan in the language of a system
 * that owns the workloads (docs/export.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/array.h"
#include "cli/commands.h"
#include "export.h"
#include "lib/textfile.h"
#include "plan.h"
#include "profile.h"

static const struct placer_cli_option export_options[] = {
  { "format", 'f', "libvirt|virsh|nova|proxmox|kubelet|openshift|ceph|systemd|tuned|irqbalance", PLACER_CLI_WORDS,
    "The language to write the plan in (required). libvirt: per VM instance a domain XML fragment (<vcpu cpuset>, "
    "<cputune> with vcpupin and emulatorpin, <numatune>), or with --merge the whole domain; virsh: the commands that "
    "apply it to existing domains, running or shut off; nova: nova.conf's cpu_shared_set, cpu_dedicated_set, "
    "reserved_host_memory_mb and allocation ratios, and the flavor extra specs per VM role; proxmox: qm set VMID "
    "--affinity and a NUMA node bound to the plan's per VM instance; kubelet: a KubeletConfiguration (static CPU "
    "manager with strict-cpu-reservation, reservedSystemCPUs, Topology and Memory managers); openshift: a "
    "PerformanceProfile; ceph: ceph config set lines per OSD and MDS (NUMA affinity, memory targets, Crimson's CPU "
    "sets) and a cephadm spec per OSD group; systemd: the drop-ins of apply --persist as files; tuned: a child "
    "profile of cpu-partitioning and the isolated services' drop-ins; irqbalance: its environment file (banned CPUs "
    "and IRQs)." },
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Plan for the node an hwloc XML file describes (lstopo-no-graphics --of xml) instead of this one." },
  { "set", 's', "ROLE.KEY=VALUE", PLACER_CLI_TEXT,
    "Change one setting of the profile before planning, as placer plan --set does. May be given up to 64 times." },
  { "map", 'm', "FILE", PLACER_CLI_TEXT,
    "INSTANCE=VALUE lines naming instances in the system the format speaks to: a Proxmox VMID, a libvirt domain, a "
    "systemd unit, a Ceph daemon id. They win over the profile's match." },
  { "target", 'T', "RELEASE", PLACER_CLI_TEXT,
    "The release of the consumer to write for, where its reading differs: kubelet 1.29 to 1.34 (the CPU manager's "
    "options and their feature gates), Ceph 16 to 20 (option names, Crimson's), irqbalance 1.7 or 1.8 (the banned "
    "list's variable). Default: the newest; the output's header names it." },
  { "merge", 'M', "FILE", PLACER_CLI_TEXT,
    "The consumer's own configuration to merge the plan into, written whole: a libvirt domain XML (virsh dumpxml) "
    "for libvirt, a KubeletConfiguration for kubelet. What placer does not own is kept; keys that contradict the "
    "plan are refused." },
  { "out", 'o', "DIR", PLACER_CLI_DIR,
    "Write one file per unit into DIR, an existing directory (systemd's drop-ins into DIR/UNIT.d/), each replaced "
    "atomically, instead of everything to standard output." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_export = {
  .name = "export",
  .run = cmd_export,
  .summary = "the plan for libvirt, Nova, Proxmox, kubelet, OpenShift, Ceph, systemd, tuned and irqbalance",
  .synopsis = { "--format FORMAT [--topology FILE.xml] [--set ROLE.KEY=VALUE]... [--map FILE] [--target RELEASE] "
                "[--merge FILE] [--out DIR] PROFILE" },
  .description =
      "Write the plan of PROFILE in the language of a system that owns the workloads: the VM manager (libvirt, "
      "OpenStack Nova, Proxmox VE, the kubelet of KubeVirt, OpenShift), the Ceph daemons' own settings, systemd "
      "units, tuned and irqbalance; so that their next start or migration keeps the plan instead of undoing it. The "
      "plan is computed as placer plan computes it; nothing is changed on this node.\n\n"
      "Every output says in a comment which profile and topology it came from and is the same for the same input. "
      "No CPU handed to VMs or pods is an OSD's, the MDS's or the host reserve's: a plan whose VMs share CPUs with a "
      "Ceph daemon is refused by every format that hands CPUs to VMs (openshift isolates the Ceph daemons' CPUs "
      "for Guaranteed pods instead: there they are pods). What a format leaves out is a note on "
      "standard error. The formats and a worked example of each are in export.md of placer's documentation.",
  .options = export_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 the output was written\n"
                 "2 bad command line, profile, topology, --map or --merge file; an unknown --target; --out missing or "
                 "not writable; a format the profile cannot express or a --merge file that contradicts the plan (one "
                 "line naming what; nothing on standard output)\n"
                 "3 the profile does not fit the node",
  .examples = "nova.conf lines and flavor extra specs for this node:\n"
              "$ placer export --format nova /usr/share/placer/profiles/hci-nvme.yaml\n"
              "A libvirt domain fragment per VM instance of another node, as files in ./libvirt:\n"
              "$ placer export --format libvirt --topology node.xml --out libvirt hci-nvme.yaml\n"
              "The Proxmox commands with the guests' VMIDs from a file of vm.0=101 lines:\n"
              "$ placer export --format proxmox --map vmids.txt hci-nvme.yaml",
  .see_also = "placer-plan(1), placer-apply(1), virsh(1), qm(1)",
};

int cmd_export(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_export, table);
  const char *format = NULL, *xml_path = NULL, *map_path = NULL, *out_dir = NULL, *target = NULL, *merge_path = NULL;
  struct placer_cli_sets sets = { .n = 0 };
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'f': format = optarg; break;
    case 't': xml_path = optarg; break;
    case 'm': map_path = optarg; break;
    case 'o': out_dir = optarg; break;
    case 'T': target = optarg; break;
    case 'M': merge_path = optarg; break;
    case 's':
      if (placer_cli_add_set(&sets, "export", optarg) < 0)
        return PLACER_EXIT_USAGE;
      break;
    case 'h': return placer_cli_print_help(&placer_cli_export);
    default: return placer_usage_error("export", opt, argc, argv);
    }
  }
  if (format == NULL) {
    fprintf(stderr, "placer export: missing --format (see 'placer export --help')\n");
    return PLACER_EXIT_USAGE;
  }
  const struct placer_export_format *fmt = placer_export_format_find(format);
  if (fmt == NULL) {
    fprintf(stderr, "placer export: unknown format '%s' (see 'placer export --help')\n", format);
    return PLACER_EXIT_USAGE;
  }
  if (optind >= argc) {
    fprintf(stderr, "placer export: missing PROFILE (see 'placer export --help')\n");
    return PLACER_EXIT_USAGE;
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "placer export: unexpected argument '%s'\n", argv[optind + 1]);
    return PLACER_EXIT_USAGE;
  }

  struct placer_error *err = NULL;
  struct placer_profile *profile = NULL;
  struct placer_topology *topo = NULL;
  struct placer_plan *plan = NULL;
  struct placer_export_map *map = NULL;
  struct placer_export_output *out = NULL;
  char *merge_text = NULL;
  int rc = out_dir ? placer_export_check_dir(out_dir, &err) : 0;
  if (rc == 0 && map_path)
    rc = placer_export_map_load(map_path, &map, &err);
  if (rc == 0 && merge_path)
    rc = placer_textfile_read_input("--merge", merge_path, PLACER_EXPORT_MERGE_MAX_BYTES, &merge_text, NULL, &err);
  if (rc == 0)
    rc = placer_cli_load_plan(argv[optind], sets.items, sets.n, xml_path, &profile, &topo, &plan, &err);
  if (rc == 0) {
    struct placer_export_input in = { .plan = plan,
                                      .profile = profile,
                                      .topo = topo,
                                      .map = map,
                                      .target = target,
                                      .merge_path = merge_path,
                                      .merge_text = merge_text };
    rc = placer_export_render(fmt, &in, &out, &err);
  }
  if (rc == 0 && out_dir)
    rc = placer_export_write_dir(out, out_dir, &err);
  int print_rc = 0;
  if (rc == 0 && out_dir == NULL)
    print_rc = placer_export_print(out, stdout);
  for (size_t i = 0; rc == 0 && i < out->notes.n; i++)
    fprintf(stderr, "placer export: note: %s\n", out->notes.items[i]);
  for (size_t i = 0; rc == 0 && i < plan->n_warnings; i++)
    fprintf(stderr, "placer export: warning: %s\n", plan->warnings[i]);
  placer_export_output_free(out);
  free(merge_text);
  placer_export_map_free(map);
  placer_plan_free(plan);
  placer_topology_free(topo);
  placer_profile_free(profile);
  if (rc < 0)
    return placer_error_report(err);
  return placer_finish_output("export", print_rc);
}
