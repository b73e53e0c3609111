/* placer watch's log (watch-apply-internal.h): one line per action through
 * the caller's log function; the lines said before the plan is in force
 * held back until it is, so that a watcher refused on bad input prints
 * only its error. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "watch/watch-apply-internal.h"

void keeper_log(void *ctx, const char *line) {
  struct keeper *k = ctx;
  if (k->opt->log == NULL)
    return;
  if (!k->started)
    placer_string_list_addf(&k->early, "%s", line); /* out of memory: the line is lost, nothing else */
  else
    k->opt->log(k->opt->log_ctx, line);
}

void keeper_say(struct keeper *k, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *line = NULL;
  int n = vasprintf(&line, fmt, ap);
  va_end(ap);
  if (n >= 0)
    keeper_log(k, line);
  free(line);
}

/* The plan is in force: what was said before it, said now. */
void keeper_started(struct keeper *k) {
  k->started = true;
  for (size_t i = 0; i < k->early.n; i++)
    keeper_log(k, k->early.items[i]);
  placer_string_list_free(&k->early);
}
