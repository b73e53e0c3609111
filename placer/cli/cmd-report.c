/* placer report DIR [--compare DIR2]: DIR/report.html with gnuplot's SVG
 * plots of a results directory (bench/report-html.c, docs/report.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/report-html.h"
#include "cli/commands.h"

static const char report_usage[] =
    "usage: placer report [--compare DIR2] DIR\n"
    "Write DIR/report.html: the summary table, and SVG plots drawn by gnuplot (interference with 95% CI\n"
    "whiskers per variant, storage and neighbour rate against the neighbour level with the balance point,\n"
    "CPU per role, latency percentiles) from DIR/summary.json; --compare DIR2 adds the change of every\n"
    "cell of DIR2 (B) against DIR (A).  Data and scripts of the plots go to DIR/report/.  Prints the\n"
    "page's path.  Exit 2: bad command line, results, or gnuplot missing or failing.\n";

int cmd_report(int argc, char **argv) {
  static const struct option options[] = {
    { "compare", required_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *compare = NULL;
  int c;
  opterr = 0;
  optind = 0;
  while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (c) {
    case 'c': compare = optarg; break;
    case 'h': fputs(report_usage, stdout); return PLACER_EXIT_OK;
    default: return placer_usage_error("report", c, argc, argv);
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "placer report: missing DIR (a placer bench results directory; see 'placer report --help')\n");
    return PLACER_EXIT_USAGE;
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "placer report: unexpected argument '%s'\n", argv[optind + 1]);
    return PLACER_EXIT_USAGE;
  }
  const char *dir = argv[optind];
  struct placer_error *err = NULL;
  char *page = NULL;
  if (placer_report_html_dir(dir, compare, &page, &err) < 0)
    return placer_error_report(err);
  printf("%s\n", page);
  free(page);
  return placer_finish_output("report", 0);
}
