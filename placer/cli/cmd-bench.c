/* placer bench [STUDY]: A/B benchmarks of placements on real Ceph and fio
 * (bench/run.h); without a study, the shipped default (studies/default.yaml). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/run.h"
#include "results/compare.h"
#include "bench/default-study.h"
#include "results/design.h"
#include "report/report-html.h"
#include "report/report.h"
#include "cli/commands.h"
#include "bench/study.h"
#include "lib/units.h"

static const struct placer_cli_option bench_options[] = {
  { "out", 'o', "DIR", PLACER_CLI_DIR,
    "The results directory, new or empty (default ./placer-results/YYYYmmdd-HHMMSS)." },
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Plan on the topology an hwloc XML file describes instead of this machine's (the processes still run here)." },
  { "prefix", 'p', "NAME", PLACER_CLI_TEXT, "The top cgroup of the study's groups (default placer-bench)." },
  { "repeats", 'r', "N", PLACER_CLI_TEXT, "Repeat every run N times (1 to 100) instead of the study's repeats." },
  { "warmup", 'w', "N", PLACER_CLI_TEXT, "Warm-up passes (0 to 10) instead of the study's." },
  { "runtime", 'R', "SECONDS", PLACER_CLI_TEXT, "Each fio run's time instead of the study's." },
  { "quiet", 'q', NULL, PLACER_CLI_TEXT, "No progress line." },
  { "dry-run", 'n', NULL, PLACER_CLI_TEXT,
    "Load and plan every variant, print each instance's CPUs and group, the passes in order and the "
    "estimated time; run nothing." },
  { "compare", 'C', "BASELINE_DIR", PLACER_CLI_DIR,
    "After the study, gate its results against an earlier results directory as placer compare does: exit 5 "
    "when a cell regressed." },
  { "threshold", 'H', "PCT", PLACER_CLI_TEXT,
    "With --compare: the drop of a cell's main metric that is a regression (default 5%)." },
  { "alpha", 'A', "P", PLACER_CLI_TEXT, "With --compare: the significance level (default 0.05)." },
  { "allow-inconclusive", 'I', NULL, PLACER_CLI_TEXT,
    "Run a study whose repeats cannot give a p below its alpha (every verdict inconclusive by design), as short "
    "CI runs do; without it such a study is refused (exit 2) with the repeats it needs." },
  { "print-default", 'P', NULL, PLACER_CLI_TEXT,
    "Print the default study this node gets (with --topology, that node): studies/default.yaml sized to its "
    "cores, NUMA nodes and NVMe devices (the file itself on 2 cores), to copy and change." },
  { "report", 'T', "DIR", PLACER_CLI_DIR,
    "Print the report of a results directory again, from its summary.json; run nothing." },
  { "resume", 'S', "DIR", PLACER_CLI_DIR,
    "Complete the study of a results directory that stopped (an error, Ctrl-C, placer killed): what a killed "
    "run left in its cgroups is killed, the runs DIR holds are kept and only the missing ones run." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_bench = {
  .name = "bench",
  .run = cmd_bench,
  .summary = "A/B benchmark placements on real Ceph and fio (default: a built-in study)",
  .synopsis = { "[--out DIR] [--topology FILE.xml] [--prefix NAME] [--repeats N] [--warmup N] "
                "[--runtime SECONDS] [--quiet] [--dry-run] [--allow-inconclusive] [--compare BASELINE_DIR "
                "[--threshold PCT] [--alpha P]] [STUDY.yaml]",
                "--print-default [--topology FILE.xml]", "--report DIR", "[--prefix NAME] [--quiet] --resume DIR" },
  .description =
      "Run a study: every variant (a placement profile, plus environment) with every fio workload, alone and "
      "next to the neighbours, repeated and interleaved (A B A B ...), on one local Ceph cluster whose "
      "placement is switched between variants (or rebuilt per variant), an existing cluster, or a local file. "
      "Without STUDY, the built-in default study sized to the node: unpinned against demo-local on a "
      "throwaway local cluster, 4K random writes through rbd next to a half-busy stress-ng neighbour, and a "
      "CPU quota sweep of the OSDs, about seven minutes on 2 cores (its OSDs, fio's queue, the neighbour's "
      "workers and the steps grow with the node's cores, NUMA nodes and NVMe devices). Before the first run, "
      "a study whose repeats cannot give a p below its alpha is refused.\n\n"
      "Prints the report (medians, min-max, the change against the first variant with its 95% CI and "
      "Mann-Whitney p, the verdicts, interference, the efficiency against the CPU model's bound, CPU and "
      "memory per role) and writes the results directory: fio's JSON, "
      "CSV samples, summary.json, report.txt and report.html. Ctrl-C stops after the current fio run, tears "
      "everything down and reports what was measured. The study schema is in bench.md of placer's "
      "documentation.",
  .options = bench_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 the study ran to its end\n"
                 "2 bad command line or study, or a study whose repeats cannot reach a p below its alpha (without "
                 "--allow-inconclusive)\n"
                 "3 a variant's profile does not fit the node\n"
                 "4 the study could not run to its end (a cluster that did not come up, fio that failed or hung, "
                 "a daemon that died, the disk full): the results so far are kept, --resume completes them\n"
                 "5 with --compare: a cell regressed\n"
                 "130 stopped by Ctrl-C: everything torn down, the results so far kept",
  .examples = "The default study, then the same after a change, gated against the first:\n"
              "$ placer bench --out base\n"
              "$ placer bench --compare base\n"
              "A study of your own, checked first:\n"
              "$ placer bench --print-default > study.yaml\n"
              "$ placer bench --dry-run study.yaml",
  .environment = "PLACER_DEFAULT_STUDY the study run when none is given\n"
                 "PLACER_PROFILES_DIR where a variant's profile named without a path is looked for first\n"
                 "PLACER_CEPH_CLUSTER_SCRIPT the script that makes the local cluster\n"
                 "PLACER_VM_KERNEL the kernel of VM neighbours that name none\n"
                 "PLACER_VM_INITRD the initramfs of VM neighbours that name none\n"
                 "PLACER_VM_BUILD_SCRIPT the script that builds a guest for VM neighbours\n"
                 "PLACER_CACHE_DIR where guests built for VM neighbours are kept (default /var/cache/placer)",
  .see_also = "placer-compare(1), placer-report(1), placer-size(1), placer-exec(1), fio(1), stress-ng(1), ceph(8)",
};

/* Bench's messages on stderr: the progress line redrawn in place on a
 * terminal, one line each otherwise. */
struct bench_tty {
  bool tty, line_open;
};

static void print_bench_event(void *ctx, enum placer_bench_event event, const char *text) {
  struct bench_tty *t = ctx;
  switch (event) {
  case PLACER_BENCH_PROGRESS:
    fprintf(stderr, "%splacer bench: %s%s", t->tty ? "\r\033[K" : "", text, t->tty ? "" : "\n");
    t->line_open = t->tty;
    break;
  case PLACER_BENCH_PROGRESS_DONE:
    if (t->line_open)
      fprintf(stderr, "\r\033[K");
    t->line_open = false;
    break;
  case PLACER_BENCH_WARNING:
    if (t->line_open)
      fprintf(stderr, "\r\033[K");
    t->line_open = false;
    fprintf(stderr, "placer bench: %s\n", text);
    break;
  }
  fflush(stderr);
}

/* The design check before the first run: a study whose repeats cannot give
 * a p below its alpha is refused (exit 2) with the repeats it needs, unless
 * ALLOW; either way ALLOW is answered with a note.  Returns 0 to go on. */
static int check_design(const struct placer_study *study, bool repeats_from_cli, unsigned cli_repeats, bool allow) {
  struct placer_bench_design d;
  placer_bench_design_of(study->repeats, study->n_variants, study->alpha, &d);
  char why[512], line[512];
  if (d.can_conclude) {
    if (allow) {
      placer_bench_design_describe(&d, line, sizeof(line));
      fprintf(stderr, "placer bench: note: --allow-inconclusive: nothing to allow (%s)\n", line);
    }
    return 0;
  }
  placer_bench_design_refusal(&d, why, sizeof(why));
  if (allow) {
    fprintf(stderr, "placer bench: note: --allow-inconclusive: %s; every verdict will be inconclusive\n", why);
    return 0;
  }
  if (repeats_from_cli)
    fprintf(stderr, "placer: --repeats %u: %s; or --allow-inconclusive\n", cli_repeats, why);
  else if (study->repeats_line)
    fprintf(stderr, "placer: %s:%u:%u: repeats: %s; or --allow-inconclusive\n", study->path, study->repeats_line,
            study->repeats_column, why);
  else
    fprintf(stderr, "placer: %s: repeats (not given: %u): %s; or --allow-inconclusive\n", study->path, study->repeats,
            why);
  return -1;
}

/* max_time: a study whose estimate (at the most repeats it may take) is
 * longer is refused before anything runs, naming the figures. */
static int check_max_time(const struct placer_study *study) {
  if (!(study->max_time_s > 0))
    return 0;
  struct placer_study_estimate e;
  placer_study_estimate(study, study->repeats_max, 0, &e); /* no plans yet: at most */
  if (e.seconds <= study->max_time_s)
    return 0;
  char line[512], limit[32];
  placer_study_estimate_describe(study, &e, line, sizeof(line));
  placer_format_seconds(study->max_time_s, limit, sizeof(limit));
  fprintf(stderr,
          "placer: %s:%u:%u: max_time: %s is less than the study takes: %s; give fewer variants, load steps, "
          "conditions or repeats, or shorter runs, or a longer max_time\n",
          study->path, study->max_time_line, study->max_time_column, limit, line);
  return -1;
}

static int parse_count(const char *opt, const char *text, unsigned min, unsigned max, unsigned *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || end == text || v < (long)min || v > (long)max) {
    fprintf(stderr, "placer bench: %s wants a number %u..%u, got '%s'\n", opt, min, max, text);
    return -1;
  }
  *out = (unsigned)v;
  return 0;
}

/* report.html beside summary.json (placer report); a page that cannot be
 * drawn (no gnuplot) is a warning: the results are what counts. */
static void write_html_report(const char *dir) {
  /* a Ctrl-C that stopped the study leaves its page to be drawn; another one stops the drawing */
  placer_stop_requested = 0;
  char *summary = NULL;
  if (asprintf(&summary, "%s/summary.json", dir) < 0 || access(summary, R_OK) != 0) {
    free(summary);
    return;
  }
  free(summary);
  struct placer_error *err = NULL;
  char *page = NULL;
  if (placer_report_html_dir(dir, NULL, &page, &err) < 0) {
    fprintf(stderr, "placer bench: warning: no report page: %s\n", err ? err->msg : "?");
    placer_error_free(err);
    return;
  }
  fprintf(stderr, "placer bench: report page %s\n", page);
  free(page);
}

int cmd_bench(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_bench, table);
  const char *compare_dir = NULL;
  struct placer_bench_gate gate = { 0.05, 0.05 };
  struct bench_tty tty = { .tty = isatty(2) };
  struct placer_bench_options opt = { .progress = true, .notify = print_bench_event, .notify_ctx = &tty };
  unsigned repeats = 0, warmup = 0, runtime = 0;
  const char *report_dir = NULL, *resume_dir = NULL;
  bool has_repeats = false, has_warmup = false, has_runtime = false, dry_run = false, print_default = false,
       allow_inconclusive = false;
  int o;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (o) {
    case 'o': opt.out_dir = optarg; break;
    case 't': opt.topology_xml = optarg; break;
    case 'p': opt.prefix = optarg; break;
    case 'r':
      if (parse_count("--repeats", optarg, 1, PLACER_BENCH_MAX_REPEATS, &repeats) < 0)
        return PLACER_EXIT_USAGE;
      has_repeats = true;
      break;
    case 'w':
      if (parse_count("--warmup", optarg, 0, PLACER_BENCH_MAX_WARMUP, &warmup) < 0)
        return PLACER_EXIT_USAGE;
      has_warmup = true;
      break;
    case 'R':
      if (parse_count("--runtime", optarg, 1, PLACER_BENCH_MAX_RUNTIME_S, &runtime) < 0)
        return PLACER_EXIT_USAGE;
      has_runtime = true;
      break;
    case 'q': opt.progress = false; break;
    case 'n': dry_run = true; break;
    case 'P': print_default = true; break;
    case 'I': allow_inconclusive = true; break;
    case 'T': report_dir = optarg; break;
    case 'S': resume_dir = optarg; break;
    case 'C': compare_dir = optarg; break;
    case 'H':
      if (placer_cli_parse_threshold(optarg, &gate.threshold) < 0) {
        fprintf(stderr, "placer bench: --threshold wants a percentage such as 5%%, got '%s'\n", optarg);
        return PLACER_EXIT_USAGE;
      }
      break;
    case 'A': {
      char *end;
      gate.alpha = strtod(optarg, &end);
      if (end == optarg || *end || !(gate.alpha > 0 && gate.alpha < 1)) {
        fprintf(stderr, "placer bench: --alpha wants a probability such as 0.05, got '%s'\n", optarg);
        return PLACER_EXIT_USAGE;
      }
      break;
    }
    case 'h': return placer_cli_print_help(&placer_cli_bench);
    default: return placer_usage_error("bench", o, argc, argv);
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "placer bench: unexpected argument '%s'\n", argv[optind + 1]);
    return PLACER_EXIT_USAGE;
  }
  if (report_dir) {
    if (argc - optind > 0 || print_default) {
      fprintf(stderr, "placer bench: --report takes no study\n");
      return PLACER_EXIT_USAGE;
    }
    struct placer_error *err = NULL;
    char *report = NULL;
    if (placer_bench_report_dir(report_dir, &report, &err) < 0)
      return placer_error_report(err);
    fputs(report, stdout);
    free(report);
    return placer_finish_output("bench", 0);
  }
  if (print_default) {
    if (argc - optind > 0) {
      fprintf(stderr, "placer bench: --print-default takes no study\n");
      return PLACER_EXIT_USAGE;
    }
    struct placer_error *err = NULL;
    char *text = NULL;
    if (placer_default_study_for(opt.topology_xml, &text, NULL, &err) < 0)
      return placer_error_report(err);
    fputs(text, stdout);
    free(text);
    return placer_finish_output("bench", 0);
  }
  /* the groups are PREFIX/ROLE/INSTANCE, each a directory name of at most
   * 255 bytes; roles and instances are at most 63 and 70 */
  if (opt.prefix && strlen(opt.prefix) > PLACER_CGROUP_NAME_MAX) {
    fprintf(stderr, "placer bench: --prefix: %zu bytes, more than the %d a cgroup's name may have\n",
            strlen(opt.prefix), PLACER_CGROUP_NAME_MAX);
    return PLACER_EXIT_USAGE;
  }
  if (opt.prefix && !placer_cgroup_name_is_valid(opt.prefix)) {
    fprintf(stderr, "placer bench: --prefix '%s' is not a valid group name ([A-Za-z0-9._-], at most %d bytes)\n",
            opt.prefix, PLACER_CGROUP_NAME_MAX);
    return PLACER_EXIT_USAGE;
  }

  struct placer_error *err = NULL;
  struct placer_study *study = NULL;
  int rc;
  if (resume_dir) {
    if (argc - optind > 0 || opt.out_dir || has_repeats || has_warmup || has_runtime || dry_run) {
      fprintf(stderr, "placer bench: --resume DIR takes no study, --out, --repeats, --warmup, --runtime or "
                      "--dry-run (DIR says them)\n");
      return PLACER_EXIT_USAGE;
    }
    rc = placer_bench_resume_study(resume_dir, &study, &err);
    opt.out_dir = resume_dir;
    opt.resume = true;
  } else {
    rc = optind < argc ? placer_study_load(argv[optind], &study, &err)
                       : placer_default_study_for(opt.topology_xml, NULL, &study, &err);
  }
  if (rc < 0)
    return placer_error_report(err);
  if (has_repeats) {
    study->repeats = study->repeats_max = repeats;
    study->ci_width = 0;
  }
  if (has_warmup)
    study->warmup = warmup;
  if (has_runtime)
    study->workloads.runtime_s = runtime;

  if (dry_run) {
    /* described aside: every check first (the plans, the files, then the
     * design), and nothing on stdout when one fails */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL) {
      placer_study_free(study);
      perror("placer bench");
      return PLACER_EXIT_SYSTEM;
    }
    rc = placer_bench_describe(study, &opt, m, &err) < 0 ? placer_error_report(err) : PLACER_EXIT_OK;
    fclose(m);
    if (rc == PLACER_EXIT_OK &&
        (check_max_time(study) < 0 || check_design(study, has_repeats, repeats, allow_inconclusive) < 0))
      rc = PLACER_EXIT_USAGE;
    if (rc == PLACER_EXIT_OK)
      fputs(text, stdout);
    free(text);
    placer_study_free(study);
    return rc == PLACER_EXIT_OK ? placer_finish_output("bench", 0) : rc;
  }
  if (resume_dir) {
    if (allow_inconclusive)
      fprintf(stderr, "placer bench: note: --allow-inconclusive: nothing to allow (--resume completes a study as it "
                      "was started)\n");
  } else if (check_max_time(study) < 0 || check_design(study, has_repeats, repeats, allow_inconclusive) < 0) {
    placer_study_free(study);
    return PLACER_EXIT_USAGE;
  }
  if (geteuid() != 0)
    fprintf(stderr, "placer bench: not root: creating cgroups will most likely fail\n");
  char out_dir[64];
  if (opt.out_dir == NULL) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(out_dir, sizeof(out_dir), "placer-results/%Y%m%d-%H%M%S", &tm);
    opt.out_dir = out_dir;
  }
  placer_bench_catch_signals();
  char *report = NULL;
  rc = placer_bench_run_study(study, &opt, &report, NULL, NULL, &err);
  placer_study_free(study);
  bool measured = report != NULL; /* else refused before the results directory was made */
  if (report) {
    /* the directory's report (report.txt), then where the rest is */
    char *real = realpath(opt.out_dir, NULL), *counters = NULL;
    fputs(report, stdout);
    bool has_counters = asprintf(&counters, "%s/ceph-counters.csv", opt.out_dir) >= 0 && access(counters, F_OK) == 0;
    free(counters);
    printf("\nResults: %s (summary.json, report.txt, fio/, runs.csv, roles.csv, threads.csv, cores.csv, "
           "placement.csv, solo.csv, %slogs/)\n",
           real ? real : opt.out_dir, has_counters ? "ceph-counters.csv, " : "");
    fflush(stdout);
    free(real);
    free(report);
  }
  if (measured) /* a refusal writes nothing, not even the page of a results directory it refused to resume */
    write_html_report(opt.out_dir);
  if (rc < 0) {
    if (measured)
      fprintf(stderr, "placer bench: the results so far are in %s (placer bench --resume %s completes it)\n",
              opt.out_dir, opt.out_dir);
    return placer_error_report(err);
  }
  if (rc == PLACER_BENCH_EXIT_INTERRUPTED)
    fprintf(stderr,
            "placer bench: interrupted; the results so far are above and in %s (placer bench --resume %s "
            "completes it)\n",
            opt.out_dir, opt.out_dir);
  if (rc == 0 && compare_dir) {
    char *cmp = NULL;
    size_t regressed = 0, cells = 0;
    char *differ = NULL;
    if (placer_bench_compare_dirs(compare_dir, opt.out_dir, &gate, &cmp, &regressed, &cells, &differ, &err) < 0)
      return placer_error_report(err);
    if (differ)
      fprintf(stderr, "placer bench: warning: --compare: the two studies differ: %s\n", differ);
    free(differ);
    fputs("\n", stdout);
    fputs(cmp, stdout);
    free(cmp);
    fflush(stdout);
    if (regressed)
      return PLACER_BENCH_EXIT_REGRESSION;
  }
  return rc;
}
