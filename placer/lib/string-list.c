/* A growable list of strings that owns them (string-list.h). */
#include "lib/string-list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int placer_string_list_take(struct placer_string_list *l, char *s) {
  if (s == NULL)
    return -1;
  if (l->n >= l->cap) {
    size_t cap = l->n < 4 ? 8 : 2 * l->n;
    char **bigger = realloc(l->items, cap * sizeof(*bigger));
    if (bigger == NULL) {
      free(s);
      return -1;
    }
    l->items = bigger;
    l->cap = cap;
  }
  l->items[l->n++] = s;
  return 0;
}

int placer_string_list_add(struct placer_string_list *l, const char *s) {
  return placer_string_list_take(l, strdup(s));
}

int placer_string_list_addn(struct placer_string_list *l, const char *s, size_t len) {
  return placer_string_list_take(l, strndup(s, len));
}

int placer_string_list_vaddf(struct placer_string_list *l, const char *fmt, va_list ap) {
  char *s = NULL;
  return placer_string_list_take(l, vasprintf(&s, fmt, ap) < 0 ? NULL : s);
}

int placer_string_list_addf(struct placer_string_list *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = placer_string_list_vaddf(l, fmt, ap);
  va_end(ap);
  return rc;
}

bool placer_string_list_has(const struct placer_string_list *l, const char *s) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->items[i], s) == 0)
      return true;
  return false;
}

bool placer_string_list_equal(const struct placer_string_list *a, const struct placer_string_list *b) {
  if (a->n != b->n)
    return false;
  for (size_t i = 0; i < a->n; i++)
    if (strcmp(a->items[i], b->items[i]) != 0)
      return false;
  return true;
}

void placer_string_list_free(struct placer_string_list *l) {
  if (l == NULL)
    return;
  for (size_t i = 0; i < l->n; i++)
    free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
  l->cap = 0;
}

char **placer_string_list_release(struct placer_string_list *l, size_t *n) {
  char **items = l->items;
  *n = l->n;
  l->items = NULL;
  l->n = l->cap = 0;
  return items;
}

char *placer_string_list_join(const struct placer_string_list *l, const char *sep) {
  size_t len = 1;
  for (size_t i = 0; i < l->n; i++)
    len += strlen(l->items[i]) + (i ? strlen(sep) : 0);
  char *text = malloc(len), *end = text;
  if (text == NULL)
    return NULL;
  *end = '\0';
  for (size_t i = 0; i < l->n; i++)
    end = stpcpy(i ? stpcpy(end, sep) : end, l->items[i]);
  return text;
}
