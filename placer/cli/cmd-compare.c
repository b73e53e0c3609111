/* placer compare [--threshold PCT] [--alpha P] BASELINE_DIR CANDIDATE_DIR: the
 * CI gate between two `placer bench` results directories (results/compare.h).
 * Exit 0: no cell regressed; 5: a cell regressed; 2: bad input. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/compare.h"
#include "cli/commands.h"

static const struct placer_cli_option compare_options[] = {
  { "threshold", 't', "PCT", PLACER_CLI_TEXT,
    "The drop of a cell's median main metric that is a regression: 5%, 5 or 0.05 (default 5%)." },
  { "alpha", 'a', "P", PLACER_CLI_TEXT, "The significance level the drop must reach (default 0.05)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_compare = {
  .name = "compare",
  .run = cmd_compare,
  .summary = "the CI gate: two bench results directories cell by cell; exit 5 on a regression",
  .synopsis = { "[--threshold PCT] [--alpha P] BASELINE_DIR CANDIDATE_DIR" },
  .description = "Compare two placer bench results directories cell by cell (variant, condition and workload "
                 "in both): the candidate's median main metric (IOPS, MB/s) against the baseline's, with a "
                 "bootstrap 95% CI and the Mann-Whitney p. A cell regresses when it drops by more than "
                 "--threshold with p below --alpha.",
  .options = compare_options,
  .operands = PLACER_CLI_DIR,
  .exit_status = "0 no cell regressed\n"
                 "2 bad command line or results directory\n"
                 "5 at least one cell regressed",
  .examples = "Fail a CI job when the candidate lost more than 10% anywhere:\n"
              "$ placer compare --threshold 10% base candidate",
  .see_also = "placer-bench(1), placer-report(1)",
};

/* "5%", "5" (percent) or "0.05"; in (0, 1] as a fraction. */
int placer_cli_parse_threshold(const char *s, double *out) {
  char *end;
  double x = strtod(s, &end);
  if (end == s)
    return -1;
  if (*end == '%') {
    x /= 100;
    end++;
  } else if (x >= 1) {
    x /= 100;
  }
  if (*end || !(x > 0 && x < 1))
    return -1;
  *out = x;
  return 0;
}

int cmd_compare(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_compare, table);
  struct placer_bench_gate gate = { 0.05, 0.05 };
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 't':
      if (placer_cli_parse_threshold(optarg, &gate.threshold) < 0) {
        fprintf(stderr, "placer compare: --threshold wants a percentage such as 5%%, got '%s'\n", optarg);
        return PLACER_EXIT_USAGE;
      }
      break;
    case 'a': {
      char *end;
      gate.alpha = strtod(optarg, &end);
      if (end == optarg || *end || !(gate.alpha > 0 && gate.alpha < 1)) {
        fprintf(stderr, "placer compare: --alpha wants a probability such as 0.05, got '%s'\n", optarg);
        return PLACER_EXIT_USAGE;
      }
      break;
    }
    case 'h': return placer_cli_print_help(&placer_cli_compare);
    default: return placer_usage_error("compare", opt, argc, argv);
    }
  }
  if (argc - optind != 2) {
    fprintf(stderr, "placer compare: expected BASELINE_DIR CANDIDATE_DIR (see 'placer compare --help')\n");
    return PLACER_EXIT_USAGE;
  }
  struct placer_error *err = NULL;
  char *report = NULL;
  size_t regressed = 0, cells = 0;
  char *differ = NULL;
  if (placer_bench_compare_dirs(argv[optind], argv[optind + 1], &gate, &report, &regressed, &cells, &differ, &err) < 0)
    return placer_error_report(err);
  /* the same study on both sides is what the gate assumes: say when not */
  if (differ)
    fprintf(stderr, "placer compare: warning: the two studies differ: %s\n", differ);
  free(differ);
  fputs(report, stdout);
  free(report);
  int rc = placer_finish_output("compare", 0);
  return rc != PLACER_EXIT_OK ? rc : regressed ? PLACER_BENCH_EXIT_REGRESSION : PLACER_EXIT_OK;
}
