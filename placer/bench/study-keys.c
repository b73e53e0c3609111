/* What reading a study's keys shares (study-internal.h): errors at a key
 * with its place in the file, the fraction parser, and whether a name is one
 * of the study's workloads. */
#include "bench/study-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/workload.h"

size_t study_seq_len(const yaml_node_t *v) {
  return (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
}

yaml_node_t *study_seq_item(struct pyaml_walk *w, const yaml_node_t *v, size_t i) {
  return yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
}

const char *study_scalar_or_kind(const yaml_node_t *v) {
  if (pyaml_walk_is_scalar(v))
    return pyaml_walk_scalar(v);
  return v && v->type == YAML_SEQUENCE_NODE ? "a list" : v && v->type == YAML_MAPPING_NODE ? "a mapping" : "nothing";
}

int study_oom(struct pyaml_walk *w) {
  return placer_error_oom(w->err, "parse study");
}

int study_has_workload(const struct placer_study *s, const char *name, bool or_curve) {
  for (size_t i = 0; i < placer_study_n_workloads(s); i++) {
    struct placer_bench_workload wl = { 0 };
    if (placer_study_workload(s, i, &wl, NULL) < 0)
      return -1;
    bool same = strcmp(wl.name, name) == 0 || (or_curve && wl.curve && strcmp(wl.curve, name) == 0);
    placer_bench_workload_clear(&wl);
    if (same)
      return 1;
  }
  return 0;
}

int study_parse_fraction(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  double *slot = (double *)((char *)target + f->offset);
  if (!pyaml_walk_is_plain(v))
    return pyaml_walk_key_error(w, v, f->key, "expected a fraction such as 0.9 or 90%%");
  const char *s = pyaml_walk_scalar(v);
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || errno)
    return pyaml_walk_key_error(w, v, f->key, "expected a fraction such as 0.9 or 90%%, got '%s'", s);
  if (*end == '%') {
    x /= 100.0;
    end++;
  }
  if (*end != '\0' || !(x > 0.0 && x <= 1.0))
    return pyaml_walk_key_error(w, v, f->key, "expected a fraction in (0, 1] such as 0.9 or 90%%, got '%s'", s);
  *slot = x;
  return 0;
}

int study_parse_fraction_value(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, double *x) {
  struct pyaml_field ff = *f;
  ff.offset = 0;
  return study_parse_fraction(w, &ff, v, x);
}

int study_set_default(char **slot, const char *value) {
  if (*slot)
    return 0;
  *slot = strdup(value);
  return *slot ? 0 : -1;
}

/* The node of KEY below the mapping at PATH ("cluster"), for positions. */
static yaml_node_t *key_at(struct pyaml_walk *w, yaml_node_t *root, const char *section, const char *key) {
  yaml_node_t *m = section ? pyaml_walk_lookup(w, root, section) : root;
  return pyaml_walk_lookup_key(w, m, key);
}

int study_key_error(struct pyaml_walk *w, yaml_node_t *root, const char *section, const char *key, const char *fmt,
                    ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  yaml_node_t *at = key_at(w, root, section, key);
  size_t saved = section ? pyaml_walk_push(w, "%s", section) : strlen(w->path);
  int rc = at ? pyaml_walk_key_error(w, at, key, "%s", msg)
              : pyaml_walk_error(
                    w, section && pyaml_walk_lookup(w, root, section) ? pyaml_walk_lookup(w, root, section) : root,
                    "%s", msg);
  pyaml_walk_pop(w, saved);
  return rc;
}
