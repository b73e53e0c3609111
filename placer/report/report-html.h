/* The report people look at: DIR/report.html with SVG plots that gnuplot
 * draws from a results directory's summary.json (docs/report.md). */
#ifndef PLACER_BENCH_REPORT_HTML_H
#define PLACER_BENCH_REPORT_HTML_H

#include "results/results.h"
#include "lib/error.h"

/* Write DIR/report.html and DIR/report/ (the plots' data, gnuplot scripts and
 * SVGs, and report.txt: the text report of R with the lines of
 * HARDWARE_BASELINE, may be NULL) for the results R of DIR; with B (may be
 * NULL, from COMPARE_DIR) the page compares R (A) with B cell by cell.  gnuplot is $PLACER_GNUPLOT or
 * "gnuplot" from PATH; one that is missing or fails is an error naming it
 * (the page is not written).  *written (may be NULL) gets the page's path. */
int placer_report_html_write(const char *dir, const struct placer_bench_results *r, const json_t *hardware_baseline,
                             const char *compare_dir, const struct placer_bench_results *b, char **written,
                             struct placer_error **err);

/* The same from the directories: DIR/summary.json (and COMPARE_DIR's, may be
 * NULL) read back first. */
int placer_report_html_dir(const char *dir, const char *compare_dir, char **written, struct placer_error **err);

#endif
