/* A growable list of strings that owns them: the profile's and the study's
 * lists (devices, env, sets), names read from a directory, notes.  The list
 * doubles its room as it grows; a list built by hand (items and n, no cap)
 * grows from there too. */
#ifndef PLACER_STRING_LIST_H
#define PLACER_STRING_LIST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct placer_string_list {
  char **items;
  size_t n;
  size_t cap; /* room in items (at least n once the list has grown) */
};

/* Add a copy of S (of its first LEN bytes): 0, or -1 out of memory (the
 * list unchanged). */
int placer_string_list_add(struct placer_string_list *l, const char *s);
int placer_string_list_addn(struct placer_string_list *l, const char *s, size_t len);
/* Add S itself, which the list owns from now on (freed on failure): -1 when
 * S is NULL (its allocation failed) or out of memory. */
int placer_string_list_take(struct placer_string_list *l, char *s);
/* Add a formatted string. */
int placer_string_list_addf(struct placer_string_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int placer_string_list_vaddf(struct placer_string_list *l, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
bool placer_string_list_has(const struct placer_string_list *l, const char *s);
/* The same strings in the same order. */
bool placer_string_list_equal(const struct placer_string_list *a, const struct placer_string_list *b);
/* The strings joined with SEP between them ("" for none); caller frees, NULL
 * on ENOMEM. */
char *placer_string_list_join(const struct placer_string_list *l, const char *sep);
/* The strings for the caller to own and free (NULL when none), their number
 * in *N; the list is empty after. */
char **placer_string_list_release(struct placer_string_list *l, size_t *n);
/* Free the strings and the list's array; the list is empty after.  NULL: nothing. */
void placer_string_list_free(struct placer_string_list *l);

#endif
