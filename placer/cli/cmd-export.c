/* placer export --format FORMAT [--topology FILE.xml] [--set ROLE.KEY=VALUE]...
 * [--map FILE] [--out DIR] PROFILE: the plan in the language of a system
 * that owns the workloads (docs/export.md). */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/array.h"
#include "cli/commands.h"
#include "export/export.h"
#include "lib/textfile.h"
#include "plan/plan.h"
#include "profile/profile.h"

static const struct placer_cli_option export_options[] = {
  { "format", 'f', PLACER_EXPORT_FORMAT_NAMES, PLACER_CLI_WORDS,
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
    "Write one file per unit into DIR, an existing directory (systemd's drop-ins into DIR/UNIT.d/), instead of "
    "everything to standard output: all the units or, when anything fails, none; a unit whose bytes are there is "
    "left as it is; the units an earlier export of the format wrote there and this one does not are removed "
    "(DIR/.placer-export.FORMAT lists what placer wrote; nothing else is ever removed); nothing is written through a "
    "symbolic link. Standard output says what changed: 'wrote NAME', 'removed NAME'." },
  { "dry-run", 'n', NULL, PLACER_CLI_TEXT,
    "With --out: say what would change ('would write NAME', 'would remove NAME'); change nothing." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_export = {
  .name = "export",
  .run = cmd_export,
  .summary = "the plan for libvirt, Nova, Proxmox, kubelet, OpenShift, Ceph, systemd, tuned and irqbalance",
  .synopsis = { "--format FORMAT [--topology FILE.xml] [--set ROLE.KEY=VALUE]... [--map FILE] [--target RELEASE] "
                "[--merge FILE] [--out DIR [--dry-run]] PROFILE" },
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
                 "2 bad command line (an option given twice among them), profile, topology, --map or --merge file; "
                 "an unknown --target; --out missing, not a directory, a symbolic link, not writable, or holding a "
                 "symbolic link or a directory where a unit goes; a format the profile cannot express or a --merge "
                 "file that contradicts the plan (one line naming what; nothing on standard output, nothing "
                 "written)\n"
                 "3 the profile does not fit the node\n"
                 "4 writing into --out failed (a full disk): every unit put back as it was",
  .examples = "nova.conf lines and flavor extra specs for this node:\n"
              "$ placer export --format nova /usr/share/placer/profiles/hci-nvme.yaml\n"
              "A libvirt domain fragment per VM instance of another node, as files in ./libvirt:\n"
              "$ placer export --format libvirt --topology node.xml --out libvirt hci-nvme.yaml\n"
              "The Proxmox commands with the guests' VMIDs from a file of vm.0=101 lines:\n"
              "$ placer export --format proxmox --map vmids.txt hci-nvme.yaml",
  .see_also = "placer-plan(1), placer-apply(1), virsh(1), qm(1)",
};

/* An option that takes one value, given twice: the first would silently
 * lose (a repeated --format wrote the second format only). */
static int once(const char **slot, const char *option, const char *value) {
  if (*slot == NULL) {
    *slot = value;
    return 0;
  }
  fprintf(stderr, "placer export: --%s given twice ('%s' and '%s'): give it once\n", option, *slot, value);
  return -1;
}

/* What --out changed, one line each; a name holds no control byte
 * (lib/fileset.h refuses one). */
static int print_changes(const struct placer_fileset_changes *c, bool dry) {
  for (size_t i = 0; i < c->written.n; i++)
    if (printf("%s %s\n", dry ? "would write" : "wrote", c->written.items[i]) < 0)
      return -1;
  for (size_t i = 0; i < c->removed.n; i++)
    if (printf("%s %s\n", dry ? "would remove" : "removed", c->removed.items[i]) < 0)
      return -1;
  return 0;
}

/* The set of units into DIR with Ctrl-C and kill held back: a signal in
 * the middle of the renames would leave half of the set; it is acted on
 * once the set, or its roll back, is complete. */
static int write_dir(const struct placer_export_format *fmt, const struct placer_export_output *out, const char *dir,
                     bool dry, struct placer_fileset_changes *changes, struct placer_error **err) {
  sigset_t held, before;
  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  sigaddset(&held, SIGHUP);
  sigaddset(&held, SIGQUIT);
  sigprocmask(SIG_BLOCK, &held, &before);
  int rc = placer_export_write_dir(fmt, out, dir, dry, changes, err);
  sigprocmask(SIG_SETMASK, &before, NULL);
  return rc;
}

int cmd_export(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_export, table);
  const char *format = NULL, *xml_path = NULL, *map_path = NULL, *out_dir = NULL, *target = NULL, *merge_path = NULL;
  bool dry = false;
  struct placer_cli_sets sets = { .n = 0 };
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    int rc = 0;
    switch (opt) {
    case 'f': rc = once(&format, "format", optarg); break;
    case 't': rc = once(&xml_path, "topology", optarg); break;
    case 'm': rc = once(&map_path, "map", optarg); break;
    case 'o': rc = once(&out_dir, "out", optarg); break;
    case 'T': rc = once(&target, "target", optarg); break;
    case 'M': rc = once(&merge_path, "merge", optarg); break;
    case 'n': dry = true; break;
    case 's': rc = placer_cli_add_set(&sets, "export", optarg); break;
    case 'h': return placer_cli_print_help(&placer_cli_export);
    default: return placer_usage_error("export", opt, argc, argv);
    }
    if (rc < 0)
      return PLACER_EXIT_USAGE;
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
  if (dry && out_dir == NULL) {
    fprintf(stderr, "placer export: --dry-run goes with --out (without it export writes nothing but standard "
                    "output)\n");
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
  struct placer_fileset_changes changes = { { 0 }, { 0 } };
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
    rc = write_dir(fmt, out, out_dir, dry, &changes, &err);
  int print_rc = 0;
  if (rc == 0)
    print_rc = out_dir ? print_changes(&changes, dry) : placer_export_print(out, stdout);
  for (size_t i = 0; rc == 0 && i < out->notes.n; i++)
    fprintf(stderr, "placer export: note: %s\n", out->notes.items[i]);
  for (size_t i = 0; rc == 0 && i < plan->n_warnings; i++)
    fprintf(stderr, "placer export: warning: %s\n", plan->warnings[i]);
  placer_fileset_changes_free(&changes);
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
