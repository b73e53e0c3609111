/* gnuplot for report.html's plots (report-html.c): quoting, what a plot's
 * data holds, and the run of one script (gnuplot.c). */
#ifndef PLACER_REPORT_GNUPLOT_H
#define PLACER_REPORT_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"

/* S as a gnuplot single-quoted string ('' stands for one quote; newlines dropped). */
void placer_gnuplot_quote(FILE *f, const char *s);
/* The rows of plot data file PATH and the finite numbers in them (labels
 * and comments aside): 0 numbers is nothing to draw. */
void placer_gnuplot_data_stats(const char *path, size_t *rows, size_t *values);
/* Draw plot NAME: gnuplot ($PLACER_GNUPLOT, else "gnuplot" from PATH) runs
 * SCRIPT with plotdir=PLOTDIR, in a process group of its own, killed whole
 * after $PLACER_GNUPLOT_TIMEOUT seconds (default 60; exit 4, "hung?") or
 * when lib/stop.h's flag rises (exit 130).  A gnuplot that is missing, or
 * fails, is an error naming the plot, its first error line and what DAT
 * held (exit 2). */
int placer_gnuplot_draw(const char *plotdir, const char *name, const char *script, const char *dat,
                        struct placer_error **err);

#endif
