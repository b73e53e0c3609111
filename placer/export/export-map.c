/* `placer export --map FILE`: "INSTANCE=VALUE" lines that name each
 * instance in the system a format speaks to (export.h).  Linear in the
 * file: its lines are cut in place, sorted once by instance name (the
 * duplicates fall next to each other, and a lookup is a binary search). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "lib/textfile.h"

void placer_export_map_free(struct placer_export_map *map) {
  if (map == NULL)
    return;
  free(map->entries);
  free(map->text);
  free(map->file);
  free(map);
}

static int by_instance(const void *a, const void *b) {
  const struct placer_export_map_entry *x = a, *y = b;
  int c = strcmp(x->instance, y->instance);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int instance_is(const void *key, const void *entry) {
  return strcmp(key, ((const struct placer_export_map_entry *)entry)->instance);
}

const char *placer_export_map_get(const struct placer_export_map *map, const char *instance) {
  if (map == NULL || map->n == 0)
    return NULL;
  /* a name is in the map once (parse refuses it twice), so any match is the one */
  const struct placer_export_map_entry *e = bsearch(instance, map->entries, map->n, sizeof(*e), instance_is);
  return e ? e->value : NULL;
}

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* S[0..LEN) without its leading and trailing blanks, cut in place (the byte
 * after it becomes a NUL: it is a blank, the '=' or the line's end). */
static char *trim(char *s, size_t len) {
  while (len > 0 && is_space(*s)) {
    s++;
    len--;
  }
  while (len > 0 && is_space(s[len - 1]))
    len--;
  s[len] = '\0';
  return s;
}

/* One line, S[0..LEN) (its newline, or the text's end, at S[LEN]): an
 * entry added to M, or nothing for a blank or comment line; 0, or -1 and
 * ERR.  A NUL is refused anywhere (a C string would silently end the line
 * there), any other control byte outside comments. */
static int parse_line(struct placer_export_map *m, char *s, size_t len, unsigned line, size_t *cap,
                      struct placer_error **err) {
  if (memchr(s, '\0', len))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: a NUL byte in the line", m->file, line);
  char *text = trim(s, len);
  if (*text == '\0' || *text == '#')
    return 0;
  for (const char *p = text; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: a control character in the line", m->file, line);
  char *eq = strchr(text, '=');
  bool empty = eq == NULL || eq == text; /* the text is trimmed: a blank before '=' still leaves a name */
  if (!empty) {
    const char *v = eq + 1;
    while (is_space(*v))
      v++;
    empty = *v == '\0';
  }
  if (empty)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: expected INSTANCE=VALUE, got '%s'", m->file, line,
                            text);
  char *value = trim(eq + 1, strlen(eq + 1));
  char *instance = trim(text, (size_t)(eq - text));
  if (m->n == PLACER_EXPORT_MAP_MAX_ENTRIES)
    return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG, "%s:%u: more than %d entries", m->file, line,
                            PLACER_EXPORT_MAP_MAX_ENTRIES);
  if (m->n == *cap) {
    size_t bigger = *cap ? *cap * 2 : 64;
    struct placer_export_map_entry *grown = realloc(m->entries, bigger * sizeof(*grown));
    if (grown == NULL)
      return placer_error_oom(err, "--map");
    m->entries = grown;
    *cap = bigger;
  }
  m->entries[m->n++] = (struct placer_export_map_entry){ instance, value, line };
  return 0;
}

/* The map of TEXT[0..LEN), which it takes (NUL after it); FILE names it in
 * errors. */
static int parse_owned(const char *file, char *text, size_t len, struct placer_export_map **out,
                       struct placer_error **err) {
  struct placer_export_map *m = calloc(1, sizeof(*m));
  if (m == NULL || (m->file = strdup(file)) == NULL) {
    free(m);
    free(text);
    return placer_error_oom(err, "--map");
  }
  m->text = text;
  size_t cap = 0;
  unsigned line = 1;
  int rc = 0;
  /* stop at the first bad line; a name mapped twice on an earlier line is
   * still the error to report (the first error, in the file's order) */
  for (char *p = text, *end = text + len; p < end && rc == 0; line++) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    rc = parse_line(m, p, n, line, &cap, err);
    p += n + 1;
  }
  struct placer_error *bad_line = rc < 0 ? *err : NULL;
  if (rc < 0)
    *err = NULL;
  if (m->n > 1)
    qsort(m->entries, m->n, sizeof(*m->entries), by_instance);
  /* sorted by name then line: the second of two equal names is a duplicate,
   * and the smallest such line is where reading the file meets the first */
  const struct placer_export_map_entry *twice = NULL;
  for (size_t i = 1; i < m->n; i++)
    if (strcmp(m->entries[i - 1].instance, m->entries[i].instance) == 0 &&
        (twice == NULL || m->entries[i].line < twice->line))
      twice = &m->entries[i];
  if (twice) {
    placer_error_free(bad_line);
    rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: '%s' is mapped twice", m->file, twice->line,
                          twice->instance);
  } else if (bad_line) {
    *err = bad_line;
    rc = -1;
  }
  if (rc < 0) {
    placer_export_map_free(m);
    return -1;
  }
  *out = m;
  return 0;
}

int placer_export_map_parse(const char *file, const char *text, struct placer_export_map **out,
                            struct placer_error **err) {
  char *copy = strdup(text);
  if (copy == NULL)
    return placer_error_oom(err, "--map");
  return parse_owned(file, copy, strlen(text), out, err);
}

int placer_export_map_load(const char *path, struct placer_export_map **out, struct placer_error **err) {
  char *text = NULL;
  size_t len = 0;
  /* a regular file only, opened without blocking (a FIFO), its size said
   * before it is read (/dev/zero, a runaway file) */
  if (placer_textfile_read_input("--map", path, PLACER_EXPORT_MAP_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  return parse_owned(path, text, len, out, err);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int placer_export_map_check(const struct placer_export_map *map, const struct placer_plan *plan,
                            struct placer_error **err) {
  if (map == NULL || map->n == 0)
    return 0;
  const char **names = malloc((plan->n_instances ? plan->n_instances : 1) * sizeof(*names));
  if (names == NULL)
    return placer_error_oom(err, "--map");
  for (size_t i = 0; i < plan->n_instances; i++)
    names[i] = plan->instances[i].name;
  qsort(names, plan->n_instances, sizeof(*names), by_name);
  const struct placer_export_map_entry *unknown = NULL;
  for (size_t i = 0; i < map->n; i++) {
    const struct placer_export_map_entry *e = &map->entries[i];
    if ((unknown == NULL || e->line < unknown->line) &&
        bsearch(&e->instance, names, plan->n_instances, sizeof(*names), by_name) == NULL)
      unknown = e;
  }
  free(names);
  if (unknown)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: no instance '%s' in the plan of profile '%s'",
                            map->file, unknown->line, unknown->instance, plan->profile_name);
  return 0;
}
