/* The schema-driven walker over libyaml document trees; see profile-yaml.h. */
#include "profile/profile-yaml.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textfile.h"
#include "lib/units.h"

static int error_at(struct pyaml_walk *w, const yaml_node_t *node, const char *path, const char *fmt, va_list ap) {
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0)
    msg = NULL;
  unsigned line = node ? (unsigned)node->start_mark.line + 1 : 1;
  unsigned col = node ? (unsigned)node->start_mark.column + 1 : 1;
  if (path && *path)
    placer_error_set(w->err, PLACER_EXIT_USAGE, 0, "%s:%u:%u: %s: %s", w->file, line, col, path,
                     msg ? msg : "out of memory");
  else
    placer_error_set(w->err, PLACER_EXIT_USAGE, 0, "%s:%u:%u: %s", w->file, line, col, msg ? msg : "out of memory");
  free(msg);
  return -1;
}

int pyaml_walk_error(struct pyaml_walk *w, const yaml_node_t *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_at(w, node, w->path, fmt, ap);
  va_end(ap);
  return -1;
}

int pyaml_walk_key_error(struct pyaml_walk *w, const yaml_node_t *node, const char *key, const char *fmt, ...) {
  char path[sizeof(w->path) + 64];
  if (w->path[0])
    snprintf(path, sizeof(path), "%s.%s", w->path, key);
  else
    snprintf(path, sizeof(path), "%s", key);
  va_list ap;
  va_start(ap, fmt);
  error_at(w, node, path, fmt, ap);
  va_end(ap);
  return -1;
}

size_t pyaml_walk_push(struct pyaml_walk *w, const char *fmt, ...) {
  size_t saved = strlen(w->path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->path + saved, sizeof(w->path) - saved, fmt, ap);
  va_end(ap);
  return saved;
}

void pyaml_walk_pop(struct pyaml_walk *w, size_t saved) {
  w->path[saved] = '\0';
}

static const char *node_kind_name(const yaml_node_t *node) {
  switch (node->type) {
  case YAML_SCALAR_NODE: return "a scalar";
  case YAML_SEQUENCE_NODE: return "a list";
  case YAML_MAPPING_NODE: return "a mapping";
  default: return "nothing";
  }
}

bool pyaml_walk_is_scalar(const yaml_node_t *node) {
  return node && node->type == YAML_SCALAR_NODE;
}

bool pyaml_walk_is_plain(const yaml_node_t *node) {
  return pyaml_walk_is_scalar(node) && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

const char *pyaml_walk_scalar(const yaml_node_t *node) {
  return (const char *)node->data.scalar.value;
}

/* A plain scalar that YAML reads as null ("", "~", "null"). */
static bool is_null(const yaml_node_t *node) {
  if (!pyaml_walk_is_plain(node))
    return false;
  const char *s = pyaml_walk_scalar(node);
  return *s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
         strcmp(s, "NULL") == 0;
}

int pyaml_walk_parse_uint(const yaml_node_t *node, unsigned long long max, unsigned long long *out, const char **why) {
  if (!pyaml_walk_is_scalar(node) || is_null(node)) {
    *why = "expected an integer";
    return -1;
  }
  const char *s = pyaml_walk_scalar(node);
  if (!pyaml_walk_is_plain(node)) {
    *why = "expected an integer, not a quoted string";
    return -1;
  }
  if (*s == '-') {
    *why = "must not be negative";
    return -1;
  }
  if (*s == '+')
    s++;
  if (!isdigit((unsigned char)*s)) {
    *why = "expected an integer";
    return -1;
  }
  unsigned long long v = 0;
  for (; *s; s++) {
    if (!isdigit((unsigned char)*s)) {
      *why = "expected an integer";
      return -1;
    }
    unsigned d = (unsigned)(*s - '0');
    if (v > (max - d) / 10) {
      *why = "too large";
      return -1;
    }
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

yaml_node_t *pyaml_walk_lookup_key(struct pyaml_walk *w, yaml_node_t *mapping, const char *key) {
  if (mapping == NULL || mapping->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = mapping->data.mapping.pairs.start; p < mapping->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    if (pyaml_walk_is_scalar(k) && strcmp(pyaml_walk_scalar(k), key) == 0)
      return k;
  }
  return NULL;
}

yaml_node_t *pyaml_walk_lookup(struct pyaml_walk *w, yaml_node_t *mapping, const char *key) {
  if (mapping == NULL || mapping->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = mapping->data.mapping.pairs.start; p < mapping->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    if (pyaml_walk_is_scalar(k) && strcmp(pyaml_walk_scalar(k), key) == 0)
      return yaml_document_get_node(w->doc, p->value);
  }
  return NULL;
}

static int parse_string(struct pyaml_walk *w, yaml_node_t *v, const char *key, char **out) {
  if (!pyaml_walk_is_scalar(v) || is_null(v))
    return pyaml_walk_key_error(w, v, key, "expected a string, got %s", is_null(v) ? "nothing" : node_kind_name(v));
  char *s = strdup(pyaml_walk_scalar(v));
  if (s == NULL)
    return placer_error_oom(w->err, "parse profile");
  free(*out);
  *out = s;
  return 0;
}

static bool valid_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 63 || !isalnum((unsigned char)s[0]))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
      return false;
  return true;
}

static int parse_field(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  void *slot = (char *)target + f->offset;
  const char *why = NULL;
  switch (f->type) {
  case PYAML_FIELD_STRING: return parse_string(w, v, f->key, slot);
  case PYAML_FIELD_NAME:
    if (parse_string(w, v, f->key, slot) < 0)
      return -1;
    if (!valid_name(*(char **)slot))
      return pyaml_walk_key_error(w, v, f->key,
                                  "'%s' is not a valid name (letters, digits, '-' and '_', at most 63, "
                                  "starting with a letter or digit)",
                                  *(char **)slot);
    return 0;
  case PYAML_FIELD_UINT: {
    unsigned long long value;
    unsigned long long max = f->max ? f->max : 0xffffffffull;
    if (pyaml_walk_parse_uint(v, max, &value, &why) < 0) {
      if (strcmp(why, "too large") == 0)
        return pyaml_walk_key_error(w, v, f->key, "'%s' is too large (at most %llu)", pyaml_walk_scalar(v), max);
      return pyaml_walk_key_error(w, v, f->key, "%s, got '%s'", why,
                                  pyaml_walk_is_scalar(v) ? pyaml_walk_scalar(v) : node_kind_name(v));
    }
    if (value < f->min)
      return pyaml_walk_key_error(w, v, f->key, "must be at least %u, got %llu", f->min, value);
    *(unsigned *)slot = (unsigned)value;
    return 0;
  }
  case PYAML_FIELD_BOOL: {
    if (!pyaml_walk_is_plain(v) ||
        (strcmp(pyaml_walk_scalar(v), "true") != 0 && strcmp(pyaml_walk_scalar(v), "false") != 0))
      return pyaml_walk_key_error(w, v, f->key, "expected true or false, got '%s'",
                                  pyaml_walk_is_scalar(v) ? pyaml_walk_scalar(v) : node_kind_name(v));
    *(bool *)slot = strcmp(pyaml_walk_scalar(v), "true") == 0;
    return 0;
  }
  case PYAML_FIELD_SIZE: {
    uint64_t bytes;
    if (!pyaml_walk_is_scalar(v) || is_null(v))
      return pyaml_walk_key_error(w, v, f->key, "expected a size such as 6GiB, got %s",
                                  is_null(v) ? "nothing" : node_kind_name(v));
    if (placer_parse_bytes(pyaml_walk_scalar(v), &bytes, &why) < 0)
      return pyaml_walk_key_error(w, v, f->key, "bad size '%s': %s", pyaml_walk_scalar(v), why);
    if (bytes == 0 && f->min > 0)
      return pyaml_walk_key_error(w, v, f->key, "must be more than 0, got '%s'", pyaml_walk_scalar(v));
    *(uint64_t *)slot = bytes;
    return 0;
  }
  case PYAML_FIELD_ENUM: {
    if (pyaml_walk_is_scalar(v) && !is_null(v))
      for (int i = 0; f->names[i]; i++)
        if (strcmp(f->names[i], pyaml_walk_scalar(v)) == 0) {
          *(int *)slot = i;
          return 0;
        }
    char expected[256] = "";
    for (int i = 0; f->names[i]; i++) {
      size_t len = strlen(expected);
      snprintf(expected + len, sizeof(expected) - len, "%s%s", i ? ", " : "", f->names[i]);
    }
    return pyaml_walk_key_error(w, v, f->key, "expected one of %s, got '%s'", expected,
                                pyaml_walk_is_scalar(v) ? pyaml_walk_scalar(v) : node_kind_name(v));
  }
  case PYAML_FIELD_STRING_LIST: {
    struct placer_string_list *list = slot;
    if (v->type != YAML_SEQUENCE_NODE)
      return pyaml_walk_key_error(w, v, f->key, "expected a list of strings such as [\"nvme*\"], got %s",
                                  is_null(v) ? "nothing" : node_kind_name(v));
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0)
      return pyaml_walk_key_error(w, v, f->key, "must not be empty");
    placer_string_list_free(list);
    list->items = calloc(n, sizeof(char *));
    if (list->items == NULL)
      return placer_error_oom(w->err, "parse profile");
    for (size_t i = 0; i < n; i++) {
      yaml_node_t *item = yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
      char key[96];
      snprintf(key, sizeof(key), "%s[%zu]", f->key, i);
      if (parse_string(w, item, key, &list->items[i]) < 0)
        return -1;
      list->n = i + 1;
    }
    return 0;
  }
  case PYAML_FIELD_MAPPING: {
    size_t saved = pyaml_walk_push(w, "%s%s", w->path[0] ? "." : "", f->key);
    int rc = pyaml_walk_mapping(w, v, f->mapping, slot);
    pyaml_walk_pop(w, saved);
    return rc;
  }
  case PYAML_FIELD_CUSTOM: return f->parse(w, f, v, target);
  }
  return pyaml_walk_key_error(w, v, f->key, "unsupported field type");
}

int pyaml_walk_mapping(struct pyaml_walk *w, yaml_node_t *node, const struct pyaml_schema *schema, void *target) {
  if (node == NULL || node->type != YAML_MAPPING_NODE)
    return pyaml_walk_error(w, node, "expected a mapping (%s), got %s", schema->what,
                            node == NULL    ? "nothing"
                            : is_null(node) ? "nothing"
                                            : node_kind_name(node));
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
    if (!pyaml_walk_is_scalar(k))
      return pyaml_walk_error(w, k, "a key must be a plain string, got %s", node_kind_name(k));
    const char *key = pyaml_walk_scalar(k);
    for (yaml_node_pair_t *q = node->data.mapping.pairs.start; q < p; q++) {
      yaml_node_t *earlier = yaml_document_get_node(w->doc, q->key);
      if (pyaml_walk_is_scalar(earlier) && strcmp(pyaml_walk_scalar(earlier), key) == 0)
        return pyaml_walk_key_error(w, k, key, "duplicate key '%s' (first given at line %u)", key,
                                    (unsigned)earlier->start_mark.line + 1);
    }
    const struct pyaml_field *field = NULL;
    for (size_t i = 0; i < schema->n_fields; i++)
      if (strcmp(schema->fields[i].key, key) == 0)
        field = &schema->fields[i];
    if (field == NULL) {
      char known[512] = "";
      for (size_t i = 0; i < schema->n_fields; i++) {
        size_t len = strlen(known);
        snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "", schema->fields[i].key);
      }
      return pyaml_walk_key_error(w, k, key, "unknown key '%s' in %s (expected one of: %s)", key, schema->what, known);
    }
    if (parse_field(w, field, v, target) < 0)
      return -1;
  }
  return 0;
}

int pyaml_read_file(const char *what, const char *path, size_t max_bytes, char **text, size_t *len,
                    struct placer_error **err) {
  return placer_textfile_read_input(what, path, max_bytes, text, len, err);
}

/* Before the document is built, a pass over the events refuses what would
 * cost memory or time out of proportion to the file: aliases (a few lines
 * of them can stand for billions of nodes, or for a cycle the walkers would
 * follow forever), nesting deeper than PYAML_MAX_DEPTH and more than
 * PYAML_MAX_NODES nodes.  A syntax error ends the pass quietly: the load
 * that follows reports it with its position. */
static int check_limits(const char *file, const char *text, size_t len, struct placer_error **err) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s: yaml_parser_initialize", file);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  unsigned depth = 0;
  size_t nodes = 0;
  int rc = 0;
  for (bool done = false; !done && rc == 0;) {
    yaml_event_t event;
    if (!yaml_parser_parse(&parser, &event))
      break;
    const yaml_mark_t *at = &event.start_mark;
    switch (event.type) {
    case YAML_STREAM_END_EVENT: done = true; break;
    case YAML_ALIAS_EVENT:
      rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: YAML aliases (*%s) are not supported", file,
                            at->line + 1, at->column + 1, (const char *)event.data.alias.anchor);
      break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      if (++depth > PYAML_MAX_DEPTH) {
        rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: nested deeper than %u levels", file, at->line + 1,
                              at->column + 1, PYAML_MAX_DEPTH);
        break;
      }
      /* fall through */
    case YAML_SCALAR_EVENT:
      if (++nodes > PYAML_MAX_NODES)
        rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: more than %u YAML nodes", file, at->line + 1,
                              at->column + 1, PYAML_MAX_NODES);
      break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: depth--; break;
    default: break;
    }
    yaml_event_delete(&event);
  }
  yaml_parser_delete(&parser);
  return rc;
}

int pyaml_walk_load(const char *file, const char *text, size_t len, yaml_document_t *doc, struct placer_error **err) {
  return pyaml_walk_load_doc(file, "profile", "'roles'", text, len, doc, err);
}

int pyaml_walk_load_doc(const char *file, const char *what, const char *key, const char *text, size_t len,
                        yaml_document_t *doc, struct placer_error **err) {
  if (len > PYAML_MAX_BYTES)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:1:1: larger than %u MiB", file, PYAML_MAX_BYTES >> 20);
  if (check_limits(file, text, len, err) < 0)
    return -1;
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s: yaml_parser_initialize", file);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, doc)) {
    const yaml_mark_t *mark = parser.problem ? &parser.problem_mark : &parser.mark;
    if (parser.context)
      placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: YAML syntax: %s %s (started at line %zu, column %zu)",
                       file, mark->line + 1, mark->column + 1, parser.problem ? parser.problem : "error",
                       parser.context, parser.context_mark.line + 1, parser.context_mark.column + 1);
    else
      placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: YAML syntax: %s", file, mark->line + 1, mark->column + 1,
                       parser.problem ? parser.problem : "error");
    yaml_parser_delete(&parser);
    return -1;
  }
  if (yaml_document_get_root_node(doc) == NULL) {
    yaml_document_delete(doc);
    yaml_parser_delete(&parser);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:1:1: empty %s (expected a mapping with %s)", file, what,
                            key);
  }
  yaml_document_t next;
  int rc = 0;
  if (!yaml_parser_load(&parser, &next)) {
    const yaml_mark_t *mark = &parser.problem_mark;
    rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: YAML syntax: %s", file, mark->line + 1,
                          mark->column + 1, parser.problem ? parser.problem : "error");
  } else {
    yaml_node_t *root = yaml_document_get_root_node(&next);
    if (root)
      rc = placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s:%zu:%zu: only one YAML document is allowed in a %s", file,
                            root->start_mark.line + 1, root->start_mark.column + 1, what);
    yaml_document_delete(&next);
  }
  if (rc < 0)
    yaml_document_delete(doc);
  yaml_parser_delete(&parser);
  return rc;
}
