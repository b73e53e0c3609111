/* placer report DIR [--compare DIR2]: DIR/report.html with gnuplot's SVG
 * plots of a results directory (report/report-html.c, docs/report.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/stop.h"
#include "report/report-html.h"
#include "cli/commands.h"

static const struct placer_cli_option report_options[] = {
  { "compare", 'c', "DIR2", PLACER_CLI_DIR,
    "Add the change of every cell of results directory DIR2 (B) against DIR (A)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_report = {
  .name = "report",
  .run = cmd_report,
  .summary = "an HTML page with SVG plots (gnuplot) of a bench results directory",
  .synopsis = { "[--compare DIR2] DIR" },
  .description = "Write DIR/report.html from DIR/summary.json: the summary table, and SVG plots drawn by gnuplot "
                 "(interference with 95% CI whiskers per variant, storage and neighbour rate against the neighbour "
                 "level with the balance point, CPU per role, latency percentiles). The plots' data and scripts go "
                 "to DIR/report/. Prints the page's path.",
  .options = report_options,
  .operands = PLACER_CLI_DIR,
  .exit_status = "0 the page is written; its path on standard output\n"
                 "2 bad command line, no or unreadable summary.json, gnuplot missing or failing\n"
                 "4 the files could not be written (disk full, permissions), or gnuplot did not finish a plot in "
                 "time\n"
                 "130 stopped by SIGINT, SIGTERM or SIGHUP: gnuplot stopped, DIR as it was",
  .examples = "$ placer report --compare candidate base",
  .environment = "PLACER_GNUPLOT the gnuplot to run (default gnuplot)\n"
                 "PLACER_GNUPLOT_TIMEOUT the seconds one plot may take before gnuplot is killed (1 to 3600, default "
                 "60)",
  .see_also = "placer-bench(1), placer-compare(1), gnuplot(1)",
};

int cmd_report(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_report, table);
  const char *compare = NULL;
  int c;
  opterr = 0;
  optind = 0;
  while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (c) {
    case 'c': compare = optarg; break;
    case 'h': return placer_cli_print_help(&placer_cli_report);
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
  /* Ctrl-C or SIGTERM: gnuplot is stopped and the temporary directory removed (exit 130) */
  placer_stop_catch();
  if (placer_report_html_dir(dir, compare, &page, &err) < 0)
    return placer_error_report(err);
  printf("%s\n", page);
  free(page);
  return placer_finish_output("report", 0);
}
