/* Error values that carry context up to the one place that prints them (main).
 * A function that can fail returns a negative int and fills *err; callers add
 * context with placer_error_prefix(); library code never prints. */
#ifndef PLACER_ERROR_H
#define PLACER_ERROR_H

#include <stdarg.h>
#include <stdio.h>

/* Exit codes, documented in README.md and docs/. */
enum placer_exit {
  PLACER_EXIT_OK = 0,
  PLACER_EXIT_DRIFT = 1,         /* status: what is in force differs from the plan */
  PLACER_EXIT_USAGE = 2,         /* bad command line, bad YAML, unreadable topology */
  PLACER_EXIT_INFEASIBLE = 3,    /* the profile does not fit the topology */
  PLACER_EXIT_SYSTEM = 4,        /* the system refused a change (rolled back) */
  PLACER_EXIT_INTERRUPTED = 130, /* stopped by SIGINT, SIGTERM or SIGHUP (lib/stop.h), cleaned up */
};

struct placer_error {
  int exit_code;   /* one of enum placer_exit */
  int errno_value; /* 0 when not from a system call */
  char *msg;       /* one line: control bytes quoted from input come out as \n, \xHH */
};

/* Fill *err (if err is non-NULL) and return -1.  When *err is already set the
 * first error wins: the later message is dropped. */
int placer_error_set(struct placer_error **err, int exit_code, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Same, appending ": strerror(errno_value)". */
int placer_error_errno(struct placer_error **err, int exit_code, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The one out-of-memory error, exit 4: "WHAT: out of memory", or "out of memory"
 * when WHAT is NULL (and when even that message cannot be allocated).
 * Returns -1. */
int placer_error_oom(struct placer_error **err, const char *what);
/* Prepend "context: " to an existing error.  Returns -1 for tail calls. */
int placer_error_prefix(struct placer_error **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void placer_error_free(struct placer_error *err);
/* Free *ERR and set it to NULL: for an error dropped in a loop, where the
 * next failure would otherwise meet the freed one ("first error wins") and
 * free it again. */
void placer_error_clear(struct placer_error **err);

/* S for a terminal or a one-line message: control bytes (an escape sequence
 * in a title, a newline) written as \n, \r or \xHH; tabs kept.  Caller
 * frees; NULL on ENOMEM. */
char *placer_text_escape(const char *s);
/* S escaped so to OUT (a name read from a state file or /proc: a comm, an
 * IRQ's name); "?" for NULL. */
void placer_text_put(FILE *out, const char *s);

/* Cleanup helpers in the style of crun/systemd. */
void placer_freep(void *p);
void placer_closep(int *fd);
void placer_fclosep(void *fp);
#define cleanup_free __attribute__((cleanup(placer_freep)))
#define cleanup_close __attribute__((cleanup(placer_closep)))
#define cleanup_fclose __attribute__((cleanup(placer_fclosep)))

static inline void *placer_take_ptr(void *pp) {
  void **p = pp;
  void *v = *p;
  *p = 0;
  return v;
}
#define TAKE_PTR(p) placer_take_ptr(&(p))

#endif
