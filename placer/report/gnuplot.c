/* gnuplot run for one plot of report.html: its script and data written by
 * report-html.c, drawn in a process group of its own under a timeout, and
 * stopped (the group killed) when placer is asked to stop, so that a hung
 * or interrupted gnuplot never keeps placer waiting nor outlives it. */
#include "report/gnuplot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/stop.h"
#include "lib/subprocess.h"
#include "lib/textfile.h"

void placer_gnuplot_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    if (*s != '\n')
      fputc(*s, f);
  }
  fputc('\'', f);
}

/* What a plot's data holds: its rows and the finite numbers in them (labels
 * and comments aside), to say what gnuplot choked on, and to leave out a
 * plot with nothing to draw. */
void placer_gnuplot_data_stats(const char *path, size_t *rows, size_t *values) {
  *rows = *values = 0;
  char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#')
      continue;
    (*rows)++;
    for (char *p = line; *p;) {
      if (*p == '"') { /* a label */
        char *end = strchr(p + 1, '"');
        p = end ? end + 1 : p + strlen(p);
        continue;
      }
      char *end;
      double x = strtod(p, &end);
      if (end == p) {
        p++;
        continue;
      }
      *values += isfinite(x) != 0;
      p = end;
    }
  }
  free(text);
}

/* gnuplot's first error (not its warnings), its script named by file name. */
static void first_error(char *errout, const char *script, char *buf, size_t len) {
  const char *pick = NULL, *first = NULL;
  char *save = NULL;
  for (char *line = strtok_r(errout, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    while (*line == ' ')
      line++;
    if (*line == '\0' || *line == '^')
      continue;
    if (first == NULL)
      first = line;
    if (strstr(line, "\" line ") && !strstr(line, "warning:")) {
      pick = line;
      break;
    }
  }
  if (pick == NULL)
    pick = first ? first : "no message";
  const char *base = strrchr(script, '/');
  size_t slen = strlen(script);
  /* "TMP/report/NAME.gp" line 12: ... -> "NAME.gp" line 12: ... */
  if (pick[0] == '"' && strncmp(pick + 1, script, slen) == 0 && pick[1 + slen] == '"')
    snprintf(buf, len, "\"%s\"%.300s", base ? base + 1 : script, pick + 2 + slen);
  else
    snprintf(buf, len, "%.300s", pick);
}

/* How long one plot may take: $PLACER_GNUPLOT_TIMEOUT seconds (1..3600),
 * default 60; a real plot takes well under a second. */
static unsigned timeout_ms(void) {
  const char *v = getenv("PLACER_GNUPLOT_TIMEOUT");
  char *end = NULL;
  long s = v && *v ? strtol(v, &end, 10) : 0;
  return end && *end == '\0' && s >= 1 && s <= 3600 ? (unsigned)s * 1000u : 60000u;
}

int placer_gnuplot_draw(const char *plotdir, const char *name, const char *script, const char *dat,
                        struct placer_error **err) {
  const char *bin = getenv("PLACER_GNUPLOT");
  char *assign = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&assign, &n);
  if (f == NULL)
    return placer_error_oom(err, "report");
  fputs("plotdir=", f);
  placer_gnuplot_quote(f, plotdir);
  if (fclose(f) != 0) {
    free(assign);
    return placer_error_oom(err, "report");
  }
  char *argv[] = { (char *)(bin && *bin ? bin : "gnuplot"), "-e", assign, (char *)script, NULL };
  char *out = NULL, *errout = NULL;
  int status = 0;
  unsigned limit = timeout_ms();
  /* in a process group of its own, killed whole when it hangs or on a stop
   * (Ctrl-C, SIGTERM), so that the caller removes its temporary directory */
  int rc = placer_subprocess_capture_group(argv, NULL, limit, &placer_stop_requested, &out, &errout, &status, err);
  free(assign);
  if (rc < 0) {
    if (err && *err && (*err)->errno_value == ETIMEDOUT) {
      placer_error_free(*err);
      *err = NULL;
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT,
                              "report: %s did not draw the %s plot in %u s (hung?): killed", argv[0], name,
                              limit / 1000);
    }
    return placer_error_prefix(err, "report: the %s plot", name);
  }
  char missing[PATH_MAX + 64], how[64];
  snprintf(missing, sizeof(missing), "exec '%s': %s", argv[0], strerror(ENOENT));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && strcmp(errout, missing) == 0) {
    rc =
        placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                         "report: gnuplot not found (%s; Debian: gnuplot-nox, or name one in $PLACER_GNUPLOT)", errout);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char why[512];
    size_t rows, values;
    first_error(errout, script, why, sizeof(why));
    placer_gnuplot_data_stats(dat, &rows, &values);
    if (WIFEXITED(status))
      snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(status));
    else
      snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
    rc = placer_error_set(err, PLACER_EXIT_USAGE, 0,
                          "report: %s could not draw the %s plot (%s): %s (its data: %zu rows, %zu numbers)", argv[0],
                          name, how, why, rows, values);
  }
  free(out);
  free(errout);
  return rc;
}
