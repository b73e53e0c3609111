/* Template substitution for run commands, split without a shell; see substitute.h. */
#include "lib/substitute.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
  char *data;
  size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *d = realloc(b->data, cap);
    if (d == NULL)
      return -1;
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

static const char *known_list(const struct placer_subst_var *vars, size_t n_vars, char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t i = 0; i < n_vars; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s{%s}", i ? ", " : "", vars[i].key);
  }
  return buf;
}

int placer_substitute(const char *tmpl, const struct placer_subst_var *vars, size_t n_vars, char **out,
                      struct placer_error **err) {
  struct buf b = { 0 };
  const char *p = tmpl;
  char known[256];
  if (buf_add(&b, "", 0) < 0)
    goto nomem;
  while (*p) {
    if (p[0] == '{' && p[1] == '{') {
      if (buf_add(&b, "{", 1) < 0)
        goto nomem;
      p += 2;
      continue;
    }
    if (p[0] == '}' && p[1] == '}') {
      if (buf_add(&b, "}", 1) < 0)
        goto nomem;
      p += 2;
      continue;
    }
    if (p[0] != '{') {
      size_t n = strcspn(p, "{}");
      if (n == 0)
        n = 1; /* a lone '}' is literal */
      if (buf_add(&b, p, n) < 0)
        goto nomem;
      p += n;
      continue;
    }
    const char *close = strchr(p + 1, '}');
    if (close == NULL) {
      free(b.data);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "'%s': unterminated '{' (write '{{' for a literal brace)",
                              tmpl);
    }
    size_t klen = (size_t)(close - p - 1);
    const struct placer_subst_var *var = NULL;
    for (size_t i = 0; i < n_vars; i++)
      if (strlen(vars[i].key) == klen && strncmp(vars[i].key, p + 1, klen) == 0)
        var = &vars[i];
    if (var == NULL) {
      free(b.data);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "'%s': unknown placeholder '{%.*s}' (known: %s)", tmpl,
                              (int)klen, p + 1, known_list(vars, n_vars, known, sizeof(known)));
    }
    if (var->value == NULL) {
      free(b.data);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "'%s': placeholder '{%s}' has no value for this instance",
                              tmpl, var->key);
    }
    if (buf_add(&b, var->value, strlen(var->value)) < 0)
      goto nomem;
    p = close + 1;
  }
  *out = b.data;
  return 0;
nomem:
  free(b.data);
  return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "substitute '%s'", tmpl);
}

int placer_substitute_argv(char *const *tmpl, const struct placer_subst_var *vars, size_t n_vars, char ***out,
                           struct placer_error **err) {
  size_t n = placer_argv_len(tmpl);
  char **argv = calloc(n + 1, sizeof(char *));
  if (argv == NULL)
    return placer_error_oom(err, "substitute");
  for (size_t i = 0; i < n; i++)
    if (placer_substitute(tmpl[i], vars, n_vars, &argv[i], err) < 0) {
      placer_argv_free(argv);
      return -1;
    }
  *out = argv;
  return 0;
}

int placer_argv_split(const char *text, char ***out, struct placer_error **err) {
  static const char blanks[] = " \t\n\r";
  char **argv = NULL;
  const char *p = text;
  for (;;) {
    p += strspn(p, blanks);
    if (*p == '\0')
      break;
    size_t n = strcspn(p, blanks);
    char *word = strndup(p, n);
    if (word == NULL || placer_argv_push(&argv, word) < 0) {
      free(word);
      placer_argv_free(argv);
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "split '%s'", text);
    }
    free(word);
    p += n;
  }
  if (argv == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "empty command");
  *out = argv;
  return 0;
}

size_t placer_argv_len(char *const *argv) {
  size_t n = 0;
  while (argv && argv[n])
    n++;
  return n;
}

char **placer_argv_dup(char *const *argv) {
  size_t n = placer_argv_len(argv);
  char **copy = calloc(n + 1, sizeof(char *));
  if (copy == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if ((copy[i] = strdup(argv[i])) == NULL) {
      placer_argv_free(copy);
      return NULL;
    }
  return copy;
}

void placer_argv_free(char **argv) {
  if (argv == NULL)
    return;
  for (size_t i = 0; argv[i]; i++)
    free(argv[i]);
  free(argv);
}

int placer_argv_pushf(char ***argv, const char *fmt, ...) {
  char *s = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0)
    return -1;
  int rc = placer_argv_push(argv, s);
  free(s);
  return rc;
}

int placer_argv_push(char ***argv, const char *s) {
  size_t n = placer_argv_len(*argv);
  char *copy = strdup(s);
  if (copy == NULL)
    return -1;
  char **grown = realloc(*argv, (n + 2) * sizeof(char *));
  if (grown == NULL) {
    free(copy);
    return -1;
  }
  grown[n] = copy;
  grown[n + 1] = NULL;
  *argv = grown;
  return 0;
}

char *placer_argv_join(char *const *argv) {
  size_t len = 1;
  for (size_t i = 0; argv && argv[i]; i++)
    len += strlen(argv[i]) + 1;
  char *s = malloc(len);
  if (s == NULL)
    return NULL;
  char *p = s;
  for (size_t i = 0; argv && argv[i]; i++) {
    if (i > 0)
      *p++ = ' ';
    size_t l = strlen(argv[i]);
    memcpy(p, argv[i], l);
    p += l;
  }
  *p = '\0';
  return s;
}

static bool needs_quotes(const char *s) {
  if (*s == '\0')
    return true;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("-_./=:,+@%", *s)))
      return true;
  return false;
}

char *placer_argv_quote(char *const *argv) {
  struct buf b = { 0 };
  if (buf_add(&b, "", 0) < 0)
    return NULL;
  for (size_t i = 0; argv && argv[i]; i++) {
    if (i && buf_add(&b, " ", 1) < 0)
      goto nomem;
    if (!needs_quotes(argv[i])) {
      if (buf_add(&b, argv[i], strlen(argv[i])) < 0)
        goto nomem;
      continue;
    }
    if (buf_add(&b, "'", 1) < 0)
      goto nomem;
    for (const char *p = argv[i]; *p; p++) {
      if (*p == '\'' ? buf_add(&b, "'\\''", 4) < 0 : buf_add(&b, p, 1) < 0)
        goto nomem;
    }
    if (buf_add(&b, "'", 1) < 0)
      goto nomem;
  }
  return b.data;
nomem:
  free(b.data);
  return NULL;
}
