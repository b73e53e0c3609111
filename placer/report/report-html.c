/* report.html: the mailing-list table and gnuplot's SVG plots of a results
 * directory -- interference with CI whiskers, the sweep curves with the
 * balance point, CPU per role, latency percentiles, client IOPS through a
 * recovery, and with a second directory the change of every cell.  Data and scripts stay beside the SVGs
 * in DIR/report/, so a plot can be redrawn or restyled by hand. */
#include "report/report-html-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "results/compare.h"
#include "results/design.h"
#include "results/metrics.h"
#include "report/gnuplot.h"
#include "report/report.h"
#include "size/size.h"
#include "results/stats.h"
#include "lib/fsfile.h"
#include "lib/stop.h"
#include "lib/textfile.h"

static const char *p_cell(const char *formatted) {
  return strncmp(formatted, "p=", 2) == 0 ? formatted + 2 : formatted[0] == 'p' ? formatted + 1 : formatted;
}

/* The verdict table: every change against A by its decisive test, the
 * verdict in a word and a colour (summary.json's summary.verdicts, which
 * report_browser.sh compares with the page's DOM). */
static int write_verdicts(struct page *pg) {
  const struct placer_bench_results *r = pg->r;
  FILE *f = pg->html;
  struct placer_bench_design d;
  placer_bench_design_of((unsigned)placer_bench_planned_repeats(r), r->n_variants, r->alpha, &d);
  if (!d.can_conclude) {
    char why[512];
    placer_bench_design_refusal(&d, why, sizeof(why));
    fputs("<p class=\"design\"><strong>Design</strong>: ", f);
    page_html_text(f, why);
    fputs(": every verdict is inconclusive by design.</p>\n", f);
  }
  if (r->n_variants < 2)
    return 0;
  struct placer_bench_verdict *all = NULL;
  size_t n = placer_bench_verdicts(r, &all);
  if (n == (size_t)-1)
    return placer_error_oom(pg->err, "report");
  fputs("<h2>Verdict</h2>\n<p>Each change against ", f);
  page_html_text(f, r->variants[0]);
  fprintf(f,
          " by its decisive test, the smaller p of the paired (Wilcoxon signed-rank) and the unpaired "
          "(Mann-Whitney) test, with that test's change and bootstrap 95%% CI; significant when p &lt; %g.</p>\n",
          r->alpha);
  fputs("<table id=\"verdict\">\n<tr><th>cell</th><th>condition</th><th>workload</th><th>metric</th><th>change</th>"
        "<th>95% CI</th><th>p</th><th>test</th><th>verdict</th></tr>\n",
        f);
  for (size_t i = 0; i < n; i++) {
    const struct placer_bench_verdict *v = &all[i];
    char ch[32], lo[32], hi[32], p[32], cell[300];
    placer_bench_format_change(v->change, ch, sizeof(ch));
    placer_bench_format_change(v->ci_low, lo, sizeof(lo));
    placer_bench_format_change(v->ci_high, hi, sizeof(hi));
    placer_bench_format_p(v->p_value, p, sizeof(p));
    fprintf(f, "<tr class=\"%s\"><td>", v->significant ? "significant" : "inconclusive");
    snprintf(cell, sizeof(cell), "%s vs %s", r->variants[v->variant], r->variants[0]);
    page_html_text(f, cell);
    fputs("</td><td>", f);
    page_html_text(f, r->conditions[v->condition].name);
    fputs("</td><td>", f);
    page_html_text(f, r->workloads[v->workload].name);
    fputs("</td><td>", f);
    if (v->neighbours) {
      snprintf(cell, sizeof(cell), "%s rate", r->neighbour_name[0] ? r->neighbour_name : "neighbours");
      page_html_text(f, cell);
    } else {
      fputs(plot_metric_unit(&r->workloads[v->workload]), f);
    }
    fprintf(f, "</td><td>%s</td><td>", ch);
    if (isnan(v->ci_low))
      fputs("-", f);
    else
      fprintf(f, "[%s, %s]", lo, hi);
    fprintf(f, "</td><td>%s</td><td>%s</td>", p_cell(p), v->paired ? "paired" : "unpaired");
    fprintf(f, "<td class=\"verdict\" style=\"%s\">%s</td></tr>\n",
            v->significant ? "background:#c6efce;color:#006100" : "background:#ffeb9c;color:#7a5500",
            v->significant ? "significant" : "inconclusive");
  }
  fputs("</table>\n", f);
  free(all);
  return 0;
}

/* Where the time went: the text report's section (Ceph's counters per
 * cell, report-counters.c), as it is, when the runs have counters. */
static int write_where(struct page *pg) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (m == NULL)
    return placer_error_errno(pg->err, PLACER_EXIT_SYSTEM, errno, "report");
  placer_bench_report_where(pg->r, m);
  if (fclose(m) != 0) {
    free(text);
    return placer_error_oom(pg->err, "report");
  }
  if (len > 0) {
    fputs("<h2>Where the time went</h2>\n<pre id=\"where\">", pg->html);
    page_html_text(pg->html, text[0] == '\n' ? text + 1 : text);
    fputs("</pre>\n", pg->html);
  }
  free(text);
  return 0;
}

/* The text report beside the plots (report/report.txt), linked. */
static int write_text_report(struct page *pg, const char *text) {
  cleanup_free char *path = NULL;
  FILE *f = page_open_in(pg, "report.txt", &path);
  if (f == NULL)
    return -1;
  fputs(text, f);
  if (page_close_file(pg, f, path) < 0)
    return -1;
  fputs("<h2>Text report</h2>\n<p>The whole report as <code>placer bench</code> prints it, every table and figure: "
        "<a href=\"report/report.txt\">report/report.txt</a>.</p>\n",
        pg->html);
  return 0;
}

/* ---- the page, drawn aside and put in place at once ---- */

/* The files a page is made of in report/; anything else there is not
 * placer's and is kept when the plots are replaced. */
static bool plot_file(const char *name) {
  static const char *const plots[] = {
    "interference-storage", "interference-neighbours", "sweep", "split", "cpu", "latency", "recovery", "compare"
  };
  if (strcmp(name, "report.txt") == 0) /* the text report the page links */
    return true;
  const char *dot = strrchr(name, '.');
  if (dot && strncmp(name, "curve-", 6) == 0) /* a response curve's, curve-I-C */
    return strcmp(dot, ".dat") == 0 || strcmp(dot, ".gp") == 0 || strcmp(dot, ".svg") == 0;
  if (dot == NULL || (strcmp(dot, ".dat") != 0 && strcmp(dot, ".gp") != 0 && strcmp(dot, ".svg") != 0))
    return false;
  for (size_t i = 0; i < N_OF(plots); i++)
    if (strlen(plots[i]) == (size_t)(dot - name) && strncmp(plots[i], name, (size_t)(dot - name)) == 0)
      return true;
  return false;
}

/* Remove what placer made in DIR (TMP/report's files, TMP/report.html, TMP). */
static void remove_tree(const char *tmp) {
  cleanup_free char *plots = NULL, *html = NULL;
  if (asprintf(&plots, "%s/report", tmp) < 0 || asprintf(&html, "%s/report.html", tmp) < 0)
    return;
  DIR *d = opendir(plots);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
        unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
  rmdir(plots);
  unlink(html);
  rmdir(tmp);
}

/* What is in the way of DIR/NAME: 0 when it is absent or of the type the
 * page makes (IS_DIR: a directory, else a regular file). */
static int check_target(const char *dir, const char *name, bool is_dir, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, name) < 0)
    return placer_error_oom(err, "report");
  struct stat st;
  if (lstat(path, &st) < 0)
    return errno == ENOENT ? 0 : placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: %s", path);
  if (is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))
    return 0;
  return placer_error_set(err, PLACER_EXIT_SYSTEM, is_dir ? ENOTDIR : EISDIR,
                          "report: %s is %s, not the %s placer writes there: nothing written", path,
                          placer_file_type_name((unsigned)st.st_mode), is_dir ? "plots' directory" : "page");
}

/* The old plots' directory OLD after the new one is in place at PLOTS: its
 * plots go, anything else moves into the new one; what cannot move is kept
 * as DIR/report-kept-XXXXXX, never removed. */
static void drop_old_plots(const char *dir, const char *tmp, const char *old, const char *plots) {
  DIR *d = opendir(old);
  int to = open(plots, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *e;
  while (d && to >= 0 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (plot_file(e->d_name))
      unlinkat(dirfd(d), e->d_name, 0);
    else /* not placer's: the new report/ has only plots, so its name is free there */
      renameat(dirfd(d), e->d_name, to, e->d_name);
  }
  if (to >= 0)
    close(to);
  if (d)
    closedir(d);
  if (rmdir(old) == 0)
    return;
  char *kept = NULL;
  if (asprintf(&kept, "%s/report-kept-%s", dir, tmp + strlen(tmp) - 6) >= 0)
    rename(old, kept);
  free(kept);
}

/* Put TMP/report and TMP/report.html in place of DIR's: the plots'
 * directory exchanged whole (renameat2 RENAME_EXCHANGE; a file system
 * without it: moved aside and back on failure), then the page renamed over
 * the old one; the old plots go, other files in the old report/ move into
 * the new one. */
static int publish(const char *dir, const char *tmp, char **html_out, struct placer_error **err) {
  cleanup_free char *plots = NULL, *new_plots = NULL, *html = NULL, *new_html = NULL, *aside = NULL;
  if (asprintf(&plots, "%s/report", dir) < 0 || asprintf(&new_plots, "%s/report", tmp) < 0 ||
      asprintf(&html, "%s/report.html", dir) < 0 || asprintf(&new_html, "%s/report.html", tmp) < 0 ||
      asprintf(&aside, "%s/old-report", tmp) < 0)
    return placer_error_oom(err, "report");
  bool had_plots = access(plots, F_OK) == 0, exchanged = false;
  if (had_plots) {
    if (renameat2(AT_FDCWD, new_plots, AT_FDCWD, plots, RENAME_EXCHANGE) == 0) {
      exchanged = true;
    } else if (rename(plots, aside) < 0) {
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: move %s aside", plots);
    }
  }
  if (!exchanged && rename(new_plots, plots) < 0) {
    int e = errno;
    if (had_plots)
      rename(aside, plots);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "report: rename %s to %s", new_plots, plots);
  }
  /* now TMP/report (exchanged) or TMP/old-report holds the old plots */
  const char *old = exchanged ? new_plots : aside;
  if (rename(new_html, html) < 0) {
    int e = errno;
    if (exchanged)
      renameat2(AT_FDCWD, new_plots, AT_FDCWD, plots, RENAME_EXCHANGE);
    else {
      rename(plots, new_plots);
      if (had_plots)
        rename(aside, plots);
    }
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "report: rename %s to %s", new_html, html);
  }
  if (had_plots)
    drop_old_plots(dir, tmp, old, plots);
  *html_out = TAKE_PTR(html);
  return 0;
}

int placer_report_html_write(const char *dir, const struct placer_bench_results *r, const json_t *hardware_baseline,
                             const char *compare_dir, const struct placer_bench_results *b, char **written,
                             struct placer_error **err) {
  struct page pg = { .dir = dir, .r = r, .b = b, .compare_dir = compare_dir, .err = err };
  char *tmp = NULL, *tmp_html = NULL, *html_path = NULL, *text = NULL;
  int rc = -1;
  /* Nothing in DIR changes until every plot is drawn: the page is made in
   * DIR/.report-XXXXXX (on DIR's file system, for the renames). */
  if (check_target(dir, "report.html", false, err) < 0 || check_target(dir, "report", true, err) < 0 ||
      placer_bench_report_text(r, hardware_baseline, &text, err) < 0)
    goto out;
  char *real = realpath(dir, NULL); /* the scripts' default: absolute, to redraw from anywhere */
  int n = asprintf(&pg.final_plots, "%s/report", real ? real : dir);
  free(real);
  if (n < 0 || asprintf(&tmp, "%s/.report-XXXXXX", dir) < 0) {
    placer_error_oom(err, "report");
    goto out;
  }
  if (mkdtemp(tmp) == NULL) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: create a directory in %s", dir);
    free(tmp);
    tmp = NULL;
    goto out;
  }
  if (asprintf(&pg.plots, "%s/report", tmp) < 0 || asprintf(&tmp_html, "%s/report.html", tmp) < 0) {
    placer_error_oom(err, "report");
    goto out;
  }
  if (mkdir(pg.plots, 0755) < 0) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: mkdir %s", pg.plots);
    goto out;
  }
  pg.html = fopen(tmp_html, "we");
  if (pg.html == NULL) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report: create %s", tmp_html);
    goto out;
  }
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", pg.html);
  page_html_text(pg.html, r->title ? r->title : "placer bench");
  fputs("</title>\n<style>\nbody { font-family: sans-serif; margin: 2em; max-width: 1000px; }\n"
        "pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 12px; }\n"
        "figure { margin: 1.5em 0; } img { max-width: 100%; border: 1px solid #ddd; }\n"
        "table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 6px; }\n"
        "#verdict td { text-align: right; } #verdict td:first-child, #verdict td:nth-child(2), "
        "#verdict td:nth-child(3) { text-align: left; }\n"
        "table.curve td { text-align: right; } table.curve td:first-child { text-align: left; }\n"
        "p.design { background: #ffeb9c; padding: 0.5em; }\n"
        "</style>\n</head>\n<body>\n<h1>",
        pg.html);
  page_html_text(pg.html, r->title ? r->title : "placer bench");
  fputs("</h1>\n<p>Results directory <code>", pg.html);
  page_html_text(pg.html, dir);
  fprintf(pg.html, "</code>: %zu variant%s, %zu condition%s, %zu workload%s, %zu repeat%s%s.</p>\n", r->n_variants,
          r->n_variants == 1 ? "" : "s", r->n_conditions, r->n_conditions == 1 ? "" : "s", r->n_workloads,
          r->n_workloads == 1 ? "" : "s", r->repeats, r->repeats == 1 ? "" : "s",
          r->interrupted ? "; <strong>interrupted</strong>: the cells with no runs are empty" : "");
  if (write_verdicts(&pg) < 0)
    goto out;
  /* the balance point, in words and drawn, before the other plots */
  bool split = r->split_parameter && r->split_parameter[0];
  if (split || r->sweep) {
    char *sentence = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&sentence, &len);
    if (m == NULL) {
      placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "report");
      goto out;
    }
    placer_bench_report_balance(r, m);
    fclose(m);
    fputs("<h2>Balance point</h2>\n<p id=\"balance\">", pg.html);
    page_html_text(pg.html, sentence ? sentence : "");
    fputs("</p>\n", pg.html);
    free(sentence);
    if ((split ? plot_split(&pg) : plot_sweep(&pg)) < 0)
      goto out;
  }
  if (page_curves(&pg) < 0)
    goto out;
  fputs("<h2>Plots</h2>\n", pg.html);
  bool sweep_drawn = !split && r->sweep; /* with the balance point */
  if (plot_interference(&pg, false) < 0 || plot_interference(&pg, true) < 0 || (!sweep_drawn && plot_sweep(&pg) < 0) ||
      plot_cpu(&pg) < 0 || plot_latency(&pg) < 0 || plot_recovery(&pg) < 0 || (b && plot_compare(&pg) < 0))
    goto out;
  if (pg.figures == 0)
    fputs("<p>No plot: no finished run has figures to draw.</p>\n", pg.html);
  if (write_where(&pg) < 0 || write_text_report(&pg, text) < 0)
    goto out;
  fputs("<p>Made by <code>placer report</code> with gnuplot; the data and scripts of every plot are in "
        "<code>report/</code> beside it.</p>\n</body>\n</html>\n",
        pg.html);
  FILE *f = pg.html;
  pg.html = NULL;
  if (ferror(f) | (fclose(f) != 0)) { /* a full disk: no half page */
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno ? errno : EIO, "report: write %s", tmp_html);
    goto out;
  }
  if (placer_stop_requested) { /* asked to stop after the last plot: DIR stays as it was */
    placer_error_set(err, PLACER_EXIT_INTERRUPTED, EINTR, "report: interrupted; %s as it was", dir);
    goto out;
  }
  if (publish(dir, tmp, &html_path, err) < 0)
    goto out;
  if (written)
    *written = TAKE_PTR(html_path);
  rc = 0;
out:
  if (pg.html)
    fclose(pg.html);
  if (tmp)
    remove_tree(tmp);
  free(tmp);
  free(tmp_html);
  free(pg.plots);
  free(pg.final_plots);
  free(html_path);
  free(text);
  return rc;
}

int placer_report_html_dir(const char *dir, const char *compare_dir, char **written, struct placer_error **err) {
  struct placer_bench_results *a = NULL, *b = NULL;
  json_t *hardware_baseline = NULL;
  int rc = -1;
  if (placer_bench_results_dir_load(dir, &a, &hardware_baseline, err) == 0 &&
      (compare_dir == NULL || placer_bench_results_load_dir(compare_dir, &b, err) == 0))
    rc = placer_report_html_write(dir, a, hardware_baseline, compare_dir, b, written, err);
  placer_bench_results_free(a);
  placer_bench_results_free(b);
  json_decref(hardware_baseline);
  return rc;
}
