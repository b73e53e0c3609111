/* Instance fields in run templates: "{id}", "{name}", "{device}", ... are
 * replaced per argv element after the command was split, never through a
 * shell, so a value with blanks, quotes or "$(...)" stays one literal
 * argument.  Pure. */
#ifndef PLACER_SUBSTITUTE_H
#define PLACER_SUBSTITUTE_H

#include <stddef.h>

#include "lib/error.h"

/* One placeholder: "{key}" becomes value.  value NULL: the instance has no
 * such field (no device), and using the placeholder is an error. */
struct placer_subst_var {
  const char *key;
  const char *value;
};

/* The placeholders of one instance: id (its index, as ceph's -i wants),
 * name ("osd.0"), role, index, device, nic, cpus, mems. */
#define PLACER_SUBST_MAX_VARS 8
struct placer_subst_vars {
  struct placer_subst_var vars[PLACER_SUBST_MAX_VARS];
  size_t n;
  char storage[3][4096]; /* index, cpus, mems as text */
};

/* TMPL with every "{key}" replaced; "{{" and "}}" are literal braces.  An
 * unknown "{x}", an unterminated "{" or a placeholder without a value fail
 * with PLACER_EXIT_USAGE naming it and TMPL.  Caller frees *out. */
int placer_substitute(const char *tmpl, const struct placer_subst_var *vars, size_t n_vars, char **out,
                      struct placer_error **err);
/* Each element of the NULL-terminated TMPL substituted into a new
 * NULL-terminated vector (free with placer_argv_free). */
int placer_substitute_argv(char *const *tmpl, const struct placer_subst_var *vars, size_t n_vars, char ***out,
                           struct placer_error **err);

/* Split TEXT on blanks (space, tab, newline) into a NULL-terminated vector.
 * No shell semantics at all: quotes, backslashes and '$' are ordinary bytes.
 * An empty or all-blank TEXT fails (PLACER_EXIT_USAGE). */
int placer_argv_split(const char *text, char ***out, struct placer_error **err);

size_t placer_argv_len(char *const *argv);
char **placer_argv_dup(char *const *argv);
void placer_argv_free(char **argv);
/* Append a copy of S to a NULL-terminated vector (which may be NULL); -1 on ENOMEM. */
int placer_argv_push(char ***argv, const char *s);
/* The same with a formatted string. */
int placer_argv_pushf(char ***argv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The elements joined by single blanks, as they are (a process's command
 * line to match a pattern against, a command for a person); "" for none.
 * Caller frees; NULL on ENOMEM. */
char *placer_argv_join(char *const *argv);
/* For messages: elements joined by blanks, each quoted as a POSIX shell would
 * need it ('it'\''s').  Caller frees. */
char *placer_argv_quote(char *const *argv);

#endif
