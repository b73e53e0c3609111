/* placer export --format FORMAT [--topology FILE.xml] [--set ROLE.KEY=VALUE]...
 * [--map FILE] [--out DIR] PROFILE: the plan in the language of a system
 * that owns the workloads (docs/export.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "export.h"
#include "plan.h"
#include "profile.h"

static void export_usage(FILE *out) {
  fputs("usage: placer export --format FORMAT [--topology FILE.xml] [--set ROLE.KEY=VALUE]... [--map FILE]\n"
        "                     [--out DIR] PROFILE\n"
        "Write the plan of PROFILE in the language of the system that owns the workloads, so that\n"
        "its next start or migration keeps it.  To stdout, or with --out one file per unit into DIR\n"
        "(an existing directory).  --map FILE: INSTANCE=VALUE lines naming instances in that system\n"
        "(a Proxmox VMID, a libvirt domain, a systemd unit, a Ceph daemon id).  --set as for\n"
        "'placer plan'.  Exit 2: bad command line, profile or topology, or a format the profile\n"
        "cannot express (one line naming what is missing, nothing on stdout); 3: the profile does\n"
        "not fit the node.  Formats (docs/export.md):\n",
        out);
  for (size_t i = 0; i < placer_export_n_formats; i++)
    fprintf(out, "  %-10s %s\n", placer_export_formats[i]->name, placer_export_formats[i]->summary);
}

int cmd_export(int argc, char **argv) {
  static const struct option options[] = {
    { "format", required_argument, NULL, 'f' },
    { "topology", required_argument, NULL, 't' },
    { "set", required_argument, NULL, 's' },
    { "map", required_argument, NULL, 'm' },
    { "out", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = NULL, *xml_path = NULL, *map_path = NULL, *out_dir = NULL;
  const char *sets[64];
  size_t n_sets = 0;
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'f': format = optarg; break;
    case 't': xml_path = optarg; break;
    case 'm': map_path = optarg; break;
    case 'o': out_dir = optarg; break;
    case 's':
      if (n_sets == sizeof(sets) / sizeof(sets[0])) {
        fprintf(stderr, "placer export: at most 64 --set\n");
        return PLACER_EXIT_USAGE;
      }
      sets[n_sets++] = optarg;
      break;
    case 'h': export_usage(stdout); return PLACER_EXIT_OK;
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
  int rc = out_dir ? placer_export_check_dir(out_dir, &err) : 0;
  if (rc == 0 && map_path)
    rc = placer_export_map_load(map_path, &map, &err);
  if (rc == 0)
    rc = placer_cli_plan(argv[optind], sets, n_sets, xml_path, &profile, &topo, &plan, &err);
  if (rc == 0) {
    struct placer_export_input in = { .plan = plan, .profile = profile, .topo = topo, .map = map };
    rc = placer_export_render(fmt, &in, &out, &err);
  }
  if (rc == 0 && out_dir)
    rc = placer_export_write_dir(out, out_dir, &err);
  int print_rc = 0;
  if (rc == 0 && out_dir == NULL)
    print_rc = placer_export_print(out, stdout);
  for (size_t i = 0; rc == 0 && i < out->n_notes; i++)
    fprintf(stderr, "placer export: note: %s\n", out->notes[i]);
  for (size_t i = 0; rc == 0 && i < plan->n_warnings; i++)
    fprintf(stderr, "placer export: warning: %s\n", plan->warnings[i]);
  placer_export_output_free(out);
  placer_export_map_free(map);
  placer_plan_free(plan);
  placer_topology_free(topo);
  placer_profile_free(profile);
  if (rc < 0)
    return placer_error_report(err);
  return placer_finish_output("export", print_rc);
}
