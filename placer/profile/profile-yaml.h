/* A small schema-driven walker over a libyaml document tree: each mapping is
 * described by a table of keys with their types and where the value goes, so
 * unknown keys, duplicate keys and wrong types are always rejected with
 * FILE:LINE:COL and the key's path.  Internal to the profile parser. */
#ifndef PLACER_PROFILE_YAML_H
#define PLACER_PROFILE_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "lib/error.h"
#include "profile/profile.h" /* struct placer_string_list */

struct pyaml_walk {
  const char *file; /* as named in messages */
  yaml_document_t *doc;
  struct placer_error **err;
  char path[512]; /* "roles[0].cpu" while walking that mapping */
};

enum pyaml_field_type {
  PYAML_FIELD_STRING,      /* char *: any non-empty scalar */
  PYAML_FIELD_NAME,        /* char *: [A-Za-z0-9_-], starting with a letter or digit, at most 63 */
  PYAML_FIELD_UINT,        /* unsigned: plain decimal within [min, max] */
  PYAML_FIELD_BOOL,        /* bool: true / false */
  PYAML_FIELD_SIZE,        /* uint64_t: "6GiB", "512MiB", "0.5GiB"; > 0 unless min == 0 */
  PYAML_FIELD_ENUM,        /* int: index into names */
  PYAML_FIELD_STRING_LIST, /* struct placer_string_list: a sequence of non-empty scalars */
  PYAML_FIELD_MAPPING,     /* nested schema; the target struct is embedded at offset */
  PYAML_FIELD_CUSTOM,      /* parse() decides */
};

struct pyaml_schema;

struct pyaml_field {
  const char *key;
  enum pyaml_field_type type;
  size_t offset;                      /* of the value in the target struct */
  unsigned min, max;                  /* UINT bounds (max 0: none); SIZE: min 0 allows 0 */
  const char *const *names;           /* ENUM: NULL-terminated */
  const struct pyaml_schema *mapping; /* MAPPING */
  int arg;                            /* CUSTOM: passed on, for parsers shared by several keys */
  int (*parse)(struct pyaml_walk *w, const struct pyaml_field *field, yaml_node_t *value,
               void *target); /* CUSTOM: target is the struct base, not the slot */
};

struct pyaml_schema {
  const char *what; /* "profile", "role", "cpu": for messages */
  const struct pyaml_field *fields;
  size_t n_fields;
};

/* Limits on a profile or study, far above any real one (the shipped ones are
 * a few KiB, 5 levels deep): beyond them the load fails with one line
 * (FILE:LINE:COL) before memory or time grows with the input. */
#define PYAML_MAX_BYTES (1u << 20)
#define PYAML_MAX_DEPTH 32u
#define PYAML_MAX_NODES 100000u

/* The one YAML file loader of profiles and studies: the bytes of PATH, at
 * most MAX_BYTES (PYAML_MAX_BYTES), for placer_profile_parse/placer_study_parse; a regular
 * file only (placer_textfile_read_input: a FIFO never blocks).  Errors are bad input
 * (PLACER_EXIT_USAGE) naming WHAT ("profile", "study") and PATH. */
int pyaml_read_file(const char *what, const char *path, size_t max_bytes, char **text, size_t *len,
                    struct placer_error **err);

/* Parse a whole file (text, len) into doc; syntax errors, empty or
 * multi-document input, aliases and input over the limits above fail with
 * FILE:LINE:COL. */
int pyaml_walk_load(const char *file, const char *text, size_t len, yaml_document_t *doc, struct placer_error **err);
/* The same for a WHAT ("study") whose mapping has KEY ("'variants'"): the
 * messages name it. */
int pyaml_walk_load_doc(const char *file, const char *what, const char *key, const char *text, size_t len,
                        yaml_document_t *doc, struct placer_error **err);

/* Walk a mapping node with a schema, storing values into target. */
int pyaml_walk_mapping(struct pyaml_walk *w, yaml_node_t *node, const struct pyaml_schema *schema, void *target);

/* Errors at a node: "FILE:LINE:COL: PATH: message" (PATH omitted when empty). */
int pyaml_walk_error(struct pyaml_walk *w, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, naming the key KEY under the current path. */
int pyaml_walk_key_error(struct pyaml_walk *w, const yaml_node_t *node, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Path bookkeeping: push returns the previous length for pop. */
size_t pyaml_walk_push(struct pyaml_walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pyaml_walk_pop(struct pyaml_walk *w, size_t saved);

/* The value node of KEY in a mapping node, or NULL. */
yaml_node_t *pyaml_walk_lookup(struct pyaml_walk *w, yaml_node_t *mapping, const char *key);
/* The key node of KEY (for positions), or NULL. */
yaml_node_t *pyaml_walk_lookup_key(struct pyaml_walk *w, yaml_node_t *mapping, const char *key);

/* Scalar helpers for custom parsers.  text is NUL-terminated by libyaml. */
bool pyaml_walk_is_scalar(const yaml_node_t *node);
bool pyaml_walk_is_plain(const yaml_node_t *node);
const char *pyaml_walk_scalar(const yaml_node_t *node);
/* A plain decimal into *out; -1 with a reason on error (no message set). */
int pyaml_walk_parse_uint(const yaml_node_t *node, unsigned long long max, unsigned long long *out, const char **why);

#endif
