/* `placer export --map FILE`: "INSTANCE=VALUE" lines that name each
 * instance in the system a format speaks to (export.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "lib/textfile.h"

void placer_export_map_free(struct placer_export_map *map) {
  if (map == NULL)
    return;
  for (size_t i = 0; i < map->n; i++) {
    free(map->instances[i]);
    free(map->values[i]);
  }
  free(map->instances);
  free(map->values);
  free(map->lines);
  free(map->file);
  free(map);
}

const char *placer_export_map_get(const struct placer_export_map *map, const char *instance) {
  for (size_t i = 0; map && i < map->n; i++)
    if (strcmp(map->instances[i], instance) == 0)
      return map->values[i];
  return NULL;
}

static char *trimmed(const char *s, size_t len) {
  while (len > 0 && isspace((unsigned char)*s)) {
    s++;
    len--;
  }
  while (len > 0 && isspace((unsigned char)s[len - 1]))
    len--;
  return strndup(s, len);
}

static int add(struct placer_export_map *m, char *instance, char *value, unsigned line) {
  char **i = realloc(m->instances, (m->n + 1) * sizeof(*i));
  if (i)
    m->instances = i;
  char **v = realloc(m->values, (m->n + 1) * sizeof(*v));
  if (v)
    m->values = v;
  unsigned *l = realloc(m->lines, (m->n + 1) * sizeof(*l));
  if (l)
    m->lines = l;
  if (!i || !v || !l)
    return -1;
  m->instances[m->n] = instance;
  m->values[m->n] = value;
  m->lines[m->n] = line;
  m->n++;
  return 0;
}

/* One line (without its newline); 0, or -1 with ERR set. */
static int parse_line(struct placer_export_map *m, const char *s, size_t len, unsigned line,
                      struct placer_error **err) {
  cleanup_free char *text = trimmed(s, len);
  if (text == NULL)
    return placer_error_oom(err, NULL);
  if (*text == '\0' || *text == '#')
    return 0;
  for (const char *p = text; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: a control character in the line", m->file, line);
  char *eq = strchr(text, '=');
  if (eq == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: expected INSTANCE=VALUE, got '%s'", m->file, line,
                            text);
  char *instance = trimmed(text, (size_t)(eq - text));
  char *value = trimmed(eq + 1, strlen(eq + 1));
  int rc = 0;
  if (instance == NULL || value == NULL)
    rc = placer_error_oom(err, NULL);
  else if (*instance == '\0' || *value == '\0')
    rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: expected INSTANCE=VALUE, got '%s'", m->file, line,
                          text);
  else if (placer_export_map_get(m, instance))
    rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s:%u: '%s' is mapped twice", m->file, line, instance);
  else if (add(m, instance, value, line) < 0)
    rc = placer_error_oom(err, NULL);
  else
    return 0;
  free(instance);
  free(value);
  return rc;
}

int placer_export_map_parse(const char *file, const char *text, struct placer_export_map **out,
                            struct placer_error **err) {
  struct placer_export_map *m = calloc(1, sizeof(*m));
  if (m == NULL || (m->file = strdup(file)) == NULL) {
    free(m);
    return placer_error_oom(err, NULL);
  }
  unsigned line = 1;
  for (const char *p = text; *p; line++) {
    size_t len = strcspn(p, "\n");
    if (parse_line(m, p, len, line, err) < 0) {
      placer_export_map_free(m);
      return -1;
    }
    p += len + (p[len] == '\n');
  }
  *out = m;
  return 0;
}

int placer_export_map_load(const char *path, struct placer_export_map **out, struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (placer_textfile_read(path, &text, err) < 0)
    return placer_error_prefix(err, "--map");
  return placer_export_map_parse(path, text, out, err);
}
