/* placer size [options] [RESULTS_DIR...]: how many VMs fit beside the OSDs
 * of a node, from the costs bench measured (size/size.c, docs/size.md). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "size/size.h"
#include "cli/commands.h"
#include "lib/datafile.h"
#include "lib/units.h"

static const struct placer_cli_option size_options[] = {
  { "topology", 't', "FILE.xml", PLACER_CLI_XML, "The target node, an hwloc XML file (default this machine)." },
  { "profile", 'p', "PROFILE", PLACER_CLI_PROFILE,
    "The target's profile: a path, or the name of a shipped profile (default hci-nvme)." },
  { "target-iops", 'i', "N", PLACER_CLI_TEXT,
    "The client IOPS each OSD must serve: sizes its threads (else the profile's are kept)." },
  { "workload", 'w', "NAME", PLACER_CLI_TEXT, "The measured workload that sizes the OSDs (default the costliest)." },
  { "vm-vcpus", 'c', "N", PLACER_CLI_TEXT, "vCPUs per guest, one per hardware thread (default 2)." },
  { "vm-memory", 'm', "SIZE", PLACER_CLI_TEXT, "Memory per guest (default 4GiB)." },
  { "vm-overhead", 'o', "SIZE", PLACER_CLI_TEXT, "qemu's memory beside each guest's (default 512MiB)." },
  { "osd-memory-target", 'T', "SIZE", PLACER_CLI_TEXT, "Ceph's osd_memory_target on the target node (default 4GiB)." },
  { "headroom", 'H', "PCT", PLACER_CLI_TEXT,
    "Added to the larger of an OSD's peak RSS and its memory target (default 20%)." },
  { "replicas", 'r', "N", PLACER_CLI_TEXT, "The target pool's size (default 3)." },
  { "measured-replicas", 'R', "N", PLACER_CLI_TEXT,
    "The measured pool's size (default 2, as libexec/ceph-cluster.sh makes it)." },
  { "cpu-ms-per-io", 'C', "MS", PLACER_CLI_TEXT,
    "The OSDs' CPU per client I/O, in milliseconds, by hand: instead of, or over, the measured one." },
  { "osd-rss", 'S', "SIZE", PLACER_CLI_TEXT, "An OSD's peak RSS by hand: instead of, or over, the measured one." },
  { "json", 'j', NULL, PLACER_CLI_TEXT, "Print the answer as one JSON document (size.md)." },
  { "validate", 'V', "FILE.json|RESULTS_DIR", PLACER_CLI_JSON,
    "Check the model instead: fitted on the --fit allotments of bench/size-validate.sh's measurements, or of "
    "a results directory with a quota sweep (variants quota-CORES), it predicts the others; prints measured, "
    "predicted and the error." },
  { "fit", 'F', "CORES,CORES...", PLACER_CLI_TEXT,
    "With --validate: the allotments, in cores, the model is fitted on (default 1.0,2.0)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_size = {
  .name = "size",
  .run = cmd_size,
  .summary = "how many VMs fit beside the OSDs, from measured costs (and TripleO's formula)",
  .synopsis = { "[--topology FILE.xml] [--profile PROFILE] [--target-iops N] [--workload NAME] [--vm-vcpus N] "
                "[--vm-memory SIZE] [--vm-overhead SIZE] [--osd-memory-target SIZE] [--headroom PCT] "
                "[--replicas N] [--measured-replicas N] [--cpu-ms-per-io MS] [--osd-rss SIZE] [--json] "
                "[RESULTS_DIR...]",
                "--validate FILE.json|RESULTS_DIR [--fit CORES,CORES...]" },
  .description =
      "Size a hyperconverged node from measured costs: the OSDs' CPU per client I/O and their peak RSS from "
      "placer bench results directories (or --cpu-ms-per-io and --osd-rss), the target node and a profile. "
      "Prints per OSD the threads a target IOPS needs (or the IOPS its planned threads give) and its memory, "
      "and per NUMA node how many VMs fit in what is left beside the host reserve; TripleO's HCI formula's "
      "answer beside it. The model is described in size.md of placer's documentation.",
  .options = size_options,
  .operands = PLACER_CLI_DIR,
  .exit_status = "0 printed\n"
                 "2 bad command line, results, profile or topology\n"
                 "3 the profile does not fit the node (a target IOPS that needs more threads than there are)",
  .examples = "How many 4-vCPU guests fit beside OSDs that must serve 3000 IOPS each, on another node:\n"
              "$ placer size --topology node.xml --target-iops 3000 --vm-vcpus 4 placer-results/base",
  .see_also = "placer-bench(1), placer-plan(1)",
};

static int bad_value(const char *opt, const char *value, const char *why) {
  fprintf(stderr, "placer size: %s: '%s' %s\n", opt, value, why);
  return PLACER_EXIT_USAGE;
}

static int parse_uint(const char *opt, const char *text, unsigned *out) {
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(text, &end, 10);
  if (errno || end == text || *end || v == 0 || v > 65536 || text[0] == '-')
    return bad_value(opt, text, "is not a whole number from 1 to 65536");
  *out = (unsigned)v;
  return 0;
}

static int parse_double(const char *opt, const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !isfinite(v) || v <= 0)
    return bad_value(opt, text, "is not a positive number");
  *out = v;
  return 0;
}

static int parse_size(const char *opt, const char *text, uint64_t *out) {
  const char *why = NULL;
  if (placer_parse_bytes(text, out, &why) < 0)
    return bad_value(opt, text, why ? why : "is not a size");
  return 0;
}

/* A path, or the name of a shipped profile ("hci-nvme"). */
static char *profile_path(const char *ref) {
  if (strchr(ref, '/') || strstr(ref, ".yaml") || strstr(ref, ".yml"))
    return strdup(ref);
  char *rel = NULL;
  if (asprintf(&rel, "profiles/%s.yaml", ref) < 0)
    return NULL;
  char *found = placer_data_file(NULL, rel);
  free(rel);
  return found ? found : strdup(ref);
}

int cmd_size(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_size, table);
  struct placer_size_options opt;
  placer_size_options_default(&opt);
  const char *xml_path = NULL, *profile_ref = "hci-nvme";
  bool json = false;
  const char *validate = NULL;
  double fit[16] = { 1.0, 2.0 };
  size_t n_fit = 2;
  int c;
  opterr = 0;
  optind = 0;
  while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    int rc = 0;
    double pct;
    switch (c) {
    case 't': xml_path = optarg; break;
    case 'p': profile_ref = optarg; break;
    case 'i': rc = parse_double("--target-iops", optarg, &opt.target_iops); break;
    case 'w': opt.workload = optarg; break;
    case 'c': rc = parse_uint("--vm-vcpus", optarg, &opt.vm_vcpus); break;
    case 'm': rc = parse_size("--vm-memory", optarg, &opt.vm_memory_bytes); break;
    case 'o': rc = parse_size("--vm-overhead", optarg, &opt.vm_overhead_bytes); break;
    case 'T': rc = parse_size("--osd-memory-target", optarg, &opt.osd_memory_target_bytes); break;
    case 'H':
      if (strcmp(optarg, "0") == 0 || strcmp(optarg, "0%") == 0) {
        opt.memory_headroom = 0;
        break;
      }
      {
        char buf[32];
        snprintf(buf, sizeof(buf), "%s", optarg);
        size_t n = strlen(buf);
        if (n && buf[n - 1] == '%')
          buf[n - 1] = '\0';
        rc = parse_double("--headroom", buf, &pct);
        if (rc == 0 && pct > 1000)
          rc = bad_value("--headroom", optarg, "is more than 1000%");
        opt.memory_headroom = pct / 100;
      }
      break;
    case 'r': rc = parse_uint("--replicas", optarg, &opt.replicas); break;
    case 'R': rc = parse_uint("--measured-replicas", optarg, &opt.measured_replicas); break;
    case 'C': rc = parse_double("--cpu-ms-per-io", optarg, &opt.given_cpu_ms_per_io); break;
    case 'S': rc = parse_size("--osd-rss", optarg, &opt.given_rss_bytes); break;
    case 'j': json = true; break;
    case 'V': validate = optarg; break;
    case 'F': {
      n_fit = 0;
      char buf[256];
      snprintf(buf, sizeof(buf), "%s", optarg);
      for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        if (n_fit == 16)
          rc = bad_value("--fit", optarg, "has more than 16 allotments");
        else
          rc = parse_double("--fit", tok, &fit[n_fit++]);
      }
      if (rc == 0 && n_fit == 0)
        rc = bad_value("--fit", optarg, "names no allotment");
      break;
    }
    case 'h': return placer_cli_print_help(&placer_cli_size);
    default: return placer_usage_error("size", c, argc, argv);
    }
    if (rc)
      return rc;
  }
  if (validate) {
    if (optind < argc) {
      fprintf(stderr, "placer size: --validate takes no RESULTS_DIR\n");
      return PLACER_EXIT_USAGE;
    }
    struct placer_error *err = NULL;
    struct placer_size_check *check = NULL;
    struct stat st;
    if (stat(validate, &st) == 0 && S_ISDIR(st.st_mode)) {
      struct placer_bench_results *r = NULL;
      int rc = placer_bench_results_load_dir(validate, &r, &err);
      if (rc == 0)
        rc = placer_size_check_results(r, fit, n_fit, &check, &err);
      placer_bench_results_free(r);
      if (rc < 0)
        return placer_error_report(err);
    } else if (placer_size_check_file(validate, fit, n_fit, &check, &err) < 0) {
      return placer_error_report(err);
    }
    int prc = placer_size_check_print(check, fit, n_fit, stdout);
    placer_size_check_free(check);
    return placer_finish_output("size", prc);
  }
  size_t n_results = (size_t)(argc - optind);
  if (n_results == 0 && !(opt.given_cpu_ms_per_io > 0)) {
    fprintf(stderr,
            "placer size: give RESULTS_DIR (from placer bench) or --cpu-ms-per-io (see 'placer size --help')\n");
    return PLACER_EXIT_USAGE;
  }
  struct placer_error *err = NULL;
  struct placer_bench_results **results = calloc(n_results ? n_results : 1, sizeof(*results));
  char *path = profile_path(profile_ref);
  struct placer_profile *profile = NULL;
  struct placer_topology *topo = NULL;
  struct placer_size_result *res = NULL;
  int rc = PLACER_EXIT_OK;
  if (results == NULL || path == NULL) {
    placer_error_oom(&err, "size");
    goto fail;
  }
  for (size_t i = 0; i < n_results; i++)
    if (placer_bench_results_load_dir(argv[optind + (int)i], &results[i], &err) < 0)
      goto fail;
  if (placer_profile_load(path, &profile, &err) < 0 || placer_topology_load(xml_path, &topo, &err) < 0 ||
      placer_size_compute(results, n_results, topo, profile, &opt, &res, &err) < 0)
    goto fail;
  int prc = json ? placer_print_json(placer_size_to_json(res), stdout) : placer_size_print_text(res, stdout);
  rc = placer_finish_output("size", prc);
  goto out;
fail:
  rc = placer_error_report(err);
out:
  placer_size_result_free(res);
  placer_topology_free(topo);
  placer_profile_free(profile);
  for (size_t i = 0; results && i < n_results; i++)
    placer_bench_results_free(results[i]);
  free(results);
  free(path);
  return rc;
}
