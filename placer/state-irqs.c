/* irq.json, the IRQ part's kind of state file (state.h): the IRQs apply
 * put in force (what status checks, with each CPU's count at apply), the
 * paths and programs apply used (recorded for the reader, never taken from
 * here: apply-irq.c refuses a file naming others).  Its journal holds the
 * IRQs' affinity records and what placer wrote under /etc for them. */
#include "state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void placer_state_clear_irqs(struct placer_state *s) {
  for (size_t i = 0; i < s->n_irqs; i++) {
    free(s->irqs[i].name);
    free(s->irqs[i].device);
    free(s->irqs[i].instance);
    free(s->irqs[i].planned);
    free(s->irqs[i].counts);
  }
  free(s->irqs);
  s->irqs = NULL;
  s->n_irqs = 0;
}

static void irqs_clear(struct placer_state *s) {
  placer_state_clear_irqs(s);
  char **fields[] = { &s->root, &s->systemctl, &s->initd, &s->etc_dir, &s->defaults, &s->unit_path, &s->wants_path };
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
    free(*fields[i]);
    *fields[i] = NULL;
  }
}

static bool irqs_hold(const struct placer_state *s) {
  return s->n_irqs > 0;
}

/* The keys of the paths and programs, and where each is kept. */
#define PATH_KEYS(X)                 \
  X("root", root)                    \
  X("systemctl", systemctl)          \
  X("irqbalance_script", initd)      \
  X("irqbalance_defaults", defaults) \
  X("systemd_etc", etc_dir)          \
  X("unit", unit_path)               \
  X("unit_link", wants_path)

static json_t *irq_to_json(const struct placer_state_irq *q) {
  json_t *counts = json_array();
  for (unsigned c = 0; counts && c < q->n_cpus; c++)
    if (json_array_append_new(counts, json_integer((json_int_t)q->counts[c])) < 0) {
      json_decref(counts);
      counts = NULL;
    }
  if (counts == NULL)
    return NULL;
  return json_pack("{s:i, s:o, s:o, s:o, s:o, s:b, s:b, s:o}", "irq", (int)q->irq, "name",
                   placer_json_str_or_null(q->name), "device", placer_json_str_or_null(q->device), "instance",
                   placer_json_str_or_null(q->instance), "planned", placer_json_str_or_null(q->planned), "managed",
                   q->managed, "optional", q->optional, "counts", counts);
}

static int irqs_to_json(const struct placer_state *s, json_t *j) {
  if (json_object_set_new(j, "profile", placer_json_str_or_null(s->profile_name)) < 0 ||
      json_object_set_new(j, "applied_at", placer_json_str_or_null(s->applied_at)) < 0)
    return -1;
#define PUT(key, field)                                                   \
  if (json_object_set_new(j, key, placer_json_str_or_null(s->field)) < 0) \
    return -1;
  PATH_KEYS(PUT)
#undef PUT
  json_t *irqs = json_array();
  if (irqs == NULL)
    return -1;
  for (size_t i = 0; i < s->n_irqs; i++) {
    json_t *o = irq_to_json(&s->irqs[i]);
    if (o == NULL || json_array_append_new(irqs, o) < 0) {
      json_decref(irqs);
      return -1;
    }
  }
  return json_object_set_new(j, "irqs", irqs);
}

static int irqs_from_json(json_t *j, struct placer_state *s, struct placer_error **err) {
  if (placer_state_json_dup(j, "profile", &s->profile_name, "irq state", err) < 0 ||
      placer_state_json_dup(j, "applied_at", &s->applied_at, "irq state", err) < 0)
    return -1;
#define DUP(key, field)                                               \
  if (placer_state_json_dup(j, key, &s->field, "irq state", err) < 0) \
    return -1;
  PATH_KEYS(DUP)
#undef DUP
  json_t *irqs = json_object_get(j, "irqs");
  size_t n = json_array_size(irqs);
  if (n > PLACER_STATE_MAX_IRQS)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "irq state: %zu IRQs, more than a state holds (%d)", n,
                            PLACER_STATE_MAX_IRQS);
  if (n && (s->irqs = calloc(n, sizeof(*s->irqs))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_array_get(irqs, i);
    struct placer_state_irq *q = &s->irqs[i];
    s->n_irqs = i + 1;
    uint64_t v;
    if (placer_state_json_uint(o, "irq", UINT32_MAX, false, &v, "irqs[]", err) < 0)
      return -1;
    q->irq = (unsigned)v;
    q->managed = json_is_true(json_object_get(o, "managed"));
    q->optional = json_is_true(json_object_get(o, "optional")); /* absent: an older placer's state */
    if (placer_state_json_dup(o, "name", &q->name, "irqs[]", err) < 0 ||
        placer_state_json_dup(o, "device", &q->device, "irqs[]", err) < 0 ||
        placer_state_json_dup(o, "instance", &q->instance, "irqs[]", err) < 0 ||
        placer_state_json_dup(o, "planned", &q->planned, "irqs[]", err) < 0)
      return -1;
    json_t *counts = json_object_get(o, "counts");
    if (json_array_size(counts) > PLACER_STATE_MAX_IRQS)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "irqs[]: bad \"counts\"");
    q->n_cpus = (unsigned)json_array_size(counts);
    if ((q->counts = calloc(q->n_cpus ? q->n_cpus : 1, sizeof(*q->counts))) == NULL)
      return placer_error_oom(err, NULL);
    for (unsigned c = 0; c < q->n_cpus; c++)
      q->counts[c] = (uint64_t)json_integer_value(json_array_get(counts, c));
  }
  return 0;
}

static const char *const op_names[PLACER_JOURNAL_N_OPS] = {
  [PLACER_JOURNAL_IRQ] = "affinity",
  [PLACER_JOURNAL_FILE] = "file",
  [PLACER_JOURNAL_LINK] = "link",
  [PLACER_JOURNAL_ACTION] = "action",
};

const struct placer_state_kind placer_state_irqs = {
  .file = PLACER_STATE_IRQ_FILE,
  .lock = PLACER_STATE_IRQ_LOCK_FILE,
  .journaled = true,
  .op_names = op_names,
  .to_json = irqs_to_json,
  .from_json = irqs_from_json,
  .holds = irqs_hold,
  .clear = irqs_clear,
};
