/* Error values with context; see error.h. */
#include "lib/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *vformat(const char *fmt, va_list ap) {
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    return NULL;
  return s;
}

char *placer_text_escape(const char *s) {
  size_t extra = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
      extra += 3;
  char *out = malloc(strlen(s) + extra + 1);
  if (out == NULL)
    return NULL;
  char *o = out;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\n')
      o += sprintf(o, "\\n");
    else if (*p == '\r')
      o += sprintf(o, "\\r");
    else if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
      o += sprintf(o, "\\x%02x", *p);
    else
      *o++ = (char)*p;
  }
  *o = '\0';
  return out;
}

/* An error is one line: control bytes that a message quotes from its input
 * (a thread name, a YAML string, a file's content) are escaped.  Takes MSG;
 * NULL on ENOMEM. */
static char *one_line(char *msg) {
  if (msg == NULL)
    return NULL;
  char *out = placer_text_escape(msg);
  free(msg);
  return out;
}

static int error_store(struct placer_error **err, int exit_code, int errno_value, char *msg) {
  msg = one_line(msg);
  if (err == NULL || *err != NULL) {
    free(msg);
    return -1;
  }
  struct placer_error *e = calloc(1, sizeof(*e));
  if (e == NULL) {
    free(msg);
    return -1;
  }
  e->exit_code = exit_code;
  e->errno_value = errno_value;
  e->msg = msg ? msg : strdup("out of memory");
  *err = e;
  return -1;
}

int placer_error_oom(struct placer_error **err, const char *what) {
  if (what == NULL) /* (it called itself here: a stack overflow instead of an error) */
    return error_store(err, PLACER_EXIT_SYSTEM, ENOMEM, strdup("out of memory"));
  return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s: out of memory", what);
}

int placer_error_set(struct placer_error **err, int exit_code, int errno_value, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = vformat(fmt, ap);
  va_end(ap);
  return error_store(err, exit_code, errno_value, msg);
}

int placer_error_errno(struct placer_error **err, int exit_code, int errno_value, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *base = vformat(fmt, ap);
  va_end(ap);
  char *msg = NULL;
  if (base && asprintf(&msg, "%s: %s", base, strerror(errno_value)) < 0)
    msg = NULL;
  free(base);
  return error_store(err, exit_code, errno_value, msg);
}

int placer_error_prefix(struct placer_error **err, const char *fmt, ...) {
  if (err == NULL || *err == NULL)
    return -1;
  va_list ap;
  va_start(ap, fmt);
  char *ctx = one_line(vformat(fmt, ap));
  va_end(ap);
  char *msg = NULL;
  if (ctx && asprintf(&msg, "%s: %s", ctx, (*err)->msg) >= 0) {
    free((*err)->msg);
    (*err)->msg = msg;
  }
  free(ctx);
  return -1;
}

void placer_error_free(struct placer_error *err) {
  if (err == NULL)
    return;
  free(err->msg);
  free(err);
}

void placer_error_clear(struct placer_error **err) {
  if (err == NULL)
    return;
  placer_error_free(*err);
  *err = NULL;
}

void placer_freep(void *p) {
  free(*(void **)p);
}

void placer_closep(int *fd) {
  if (*fd >= 0) {
    int saved = errno;
    close(*fd);
    errno = saved;
  }
}

void placer_fclosep(void *fp) {
  FILE *f = *(FILE **)fp;
  if (f)
    fclose(f);
}

void placer_text_put(FILE *out, const char *s) {
  char *shown = placer_text_escape(s ? s : "?");
  fputs(shown ? shown : "?", out);
  free(shown);
}
