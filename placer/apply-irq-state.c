/* Shared by both apply backends: STATE_DIR/irq.json, the IRQs apply put in
 * force and the undo journal of their changes (apply-irq.h), and what such
 * a file may record; STATE_DIR/irq.lock serialises applies and resets.
 * Format: docs/apply.md, "IRQs". */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply-irq.h"
#include "lib/fsfile.h"
#include "lib/statedir.h"
#include "lib/textfile.h"

#define IRQ_STATE_SCHEMA 1

static const char *const op_names[] = { "affinity", "file", "link", "action" };
static const char *const action_names[] = { "daemon-reload", "restart-irqbalance-unit", "restart-irqbalance-script" };

void irq_journal_entry_clear(struct irq_journal_entry *e) {
  free(e->name);
  free(e->previous);
  free(e->path);
  free(e->dir_created);
  memset(e, 0, sizeof(*e));
}

void irq_state_clear_irqs(struct irq_state *s) {
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

void irq_state_free(struct irq_state *s) {
  if (s == NULL)
    return;
  irq_state_clear_irqs(s);
  for (size_t i = 0; i < s->n_journal; i++)
    irq_journal_entry_clear(&s->journal[i]);
  free(s->journal);
  free(s->boot_id);
  free(s->state_id);
  free(s->profile_name);
  free(s->applied_at);
  free(s->root);
  free(s->systemctl);
  free(s->initd);
  free(s->etc_dir);
  free(s->defaults);
  free(s->unit_path);
  free(s->wants_path);
  placer_statedir_unlock(s->lock_fd, s->lock_made);
  free(s->lock_made);
  free(s->dir);
  free(s);
}

bool irq_state_is_empty(const struct irq_state *s) {
  return s->n_irqs == 0 && s->n_journal == 0 && s->pending_txn == 0;
}

bool irq_state_exists(const char *dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, IRQ_STATE_FILE);
  struct stat st;
  return lstat(path, &st) == 0;
}

/* ------------------------------------------------------------------ JSON */

static json_t *str_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

json_t *irq_state_to_json(const struct irq_state *s) {
  json_t *j = json_object();
  json_object_set_new(j, "schema", json_integer(IRQ_STATE_SCHEMA));
  json_object_set_new(j, "boot_id", str_or_null(s->boot_id));
  json_object_set_new(j, "state_id", str_or_null(s->state_id));
  json_object_set_new(j, "profile", str_or_null(s->profile_name));
  json_object_set_new(j, "applied_at", str_or_null(s->applied_at));
  json_object_set_new(j, "root", str_or_null(s->root));
  json_object_set_new(j, "systemctl", str_or_null(s->systemctl));
  json_object_set_new(j, "irqbalance_script", str_or_null(s->initd));
  json_object_set_new(j, "irqbalance_defaults", str_or_null(s->defaults));
  json_object_set_new(j, "systemd_etc", str_or_null(s->etc_dir));
  json_object_set_new(j, "unit", str_or_null(s->unit_path));
  json_object_set_new(j, "unit_link", str_or_null(s->wants_path));
  json_object_set_new(j, "last_txn", json_integer(s->last_txn));
  json_object_set_new(j, "pending_txn", s->pending_txn ? json_integer(s->pending_txn) : json_null());
  json_object_set_new(j, "pending_pid", s->pending_txn ? json_integer(s->pending_pid) : json_null());
  json_t *irqs = json_array();
  for (size_t i = 0; i < s->n_irqs; i++) {
    const struct irq_state_irq *q = &s->irqs[i];
    json_t *o = json_object(), *counts = json_array();
    json_object_set_new(o, "irq", json_integer(q->irq));
    json_object_set_new(o, "name", str_or_null(q->name));
    json_object_set_new(o, "device", str_or_null(q->device));
    json_object_set_new(o, "instance", str_or_null(q->instance));
    json_object_set_new(o, "planned", str_or_null(q->planned));
    json_object_set_new(o, "managed", json_boolean(q->managed));
    for (unsigned c = 0; c < q->n_cpus; c++)
      json_array_append_new(counts, json_integer((json_int_t)q->counts[c]));
    json_object_set_new(o, "counts", counts);
    json_array_append_new(irqs, o);
  }
  json_object_set_new(j, "irqs", irqs);
  json_t *journal = json_array();
  for (size_t i = 0; i < s->n_journal; i++) {
    const struct irq_journal_entry *e = &s->journal[i];
    json_t *o = json_object();
    json_object_set_new(o, "txn", json_integer(e->txn));
    json_object_set_new(o, "op", json_string(op_names[e->op]));
    switch (e->op) {
    case IRQ_JOURNAL_AFFINITY:
      json_object_set_new(o, "irq", json_integer(e->irq));
      json_object_set_new(o, "name", str_or_null(e->name));
      json_object_set_new(o, "previous", str_or_null(e->previous));
      break;
    case IRQ_JOURNAL_FILE:
      json_object_set_new(o, "path", str_or_null(e->path));
      json_object_set_new(o, "previous", str_or_null(e->previous));
      json_object_set_new(o, "dir_created", str_or_null(e->dir_created));
      break;
    case IRQ_JOURNAL_LINK: json_object_set_new(o, "path", str_or_null(e->path)); break;
    case IRQ_JOURNAL_ACTION: json_object_set_new(o, "action", json_string(action_names[e->action])); break;
    }
    json_array_append_new(journal, o);
  }
  json_object_set_new(j, "journal", journal);
  return j;
}

static int bad(struct placer_error **err, const char *where, const char *what) {
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad \"%s\"", where, what);
}

static int dup_string(json_t *o, const char *key, char **out, const char *where, struct placer_error **err) {
  json_t *v = json_object_get(o, key);
  *out = NULL;
  if (v == NULL || json_is_null(v))
    return 0;
  if (!json_is_string(v))
    return bad(err, where, key);
  if ((*out = strdup(json_string_value(v))) == NULL)
    return placer_error_oom(err, NULL);
  return 0;
}

static int get_uint(json_t *o, const char *key, json_int_t max, bool optional, json_int_t *out, const char *where,
                    struct placer_error **err) {
  json_t *v = json_object_get(o, key);
  *out = 0;
  if (optional && (v == NULL || json_is_null(v)))
    return 0;
  if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
    return bad(err, where, key);
  *out = json_integer_value(v);
  return 0;
}

static int name_index(const char *text, const char *const *names, size_t n) {
  for (size_t i = 0; text && i < n; i++)
    if (strcmp(text, names[i]) == 0)
      return (int)i;
  return -1;
}

int irq_state_from_json(json_t *j, struct irq_state *s, struct placer_error **err) {
  json_int_t v;
  if (!json_is_object(j) || get_uint(j, "schema", INT32_MAX, false, &v, "irq state", err) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "irq state: not a JSON object with a schema");
  if (v != IRQ_STATE_SCHEMA)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "irq state: schema %lld, this placer reads %d",
                            (long long)v, IRQ_STATE_SCHEMA);
  if (dup_string(j, "boot_id", &s->boot_id, "irq state", err) < 0 ||
      dup_string(j, "state_id", &s->state_id, "irq state", err) < 0 ||
      dup_string(j, "profile", &s->profile_name, "irq state", err) < 0 ||
      dup_string(j, "applied_at", &s->applied_at, "irq state", err) < 0 ||
      dup_string(j, "root", &s->root, "irq state", err) < 0 ||
      dup_string(j, "systemctl", &s->systemctl, "irq state", err) < 0 ||
      dup_string(j, "irqbalance_script", &s->initd, "irq state", err) < 0 ||
      dup_string(j, "irqbalance_defaults", &s->defaults, "irq state", err) < 0 ||
      dup_string(j, "systemd_etc", &s->etc_dir, "irq state", err) < 0 ||
      dup_string(j, "unit", &s->unit_path, "irq state", err) < 0 ||
      dup_string(j, "unit_link", &s->wants_path, "irq state", err) < 0)
    return -1;
  if (get_uint(j, "last_txn", UINT32_MAX, false, &v, "irq state", err) < 0)
    return -1;
  s->last_txn = (unsigned)v;
  if (get_uint(j, "pending_txn", UINT32_MAX, true, &v, "irq state", err) < 0)
    return -1;
  s->pending_txn = (unsigned)v;
  if (get_uint(j, "pending_pid", INT32_MAX, true, &v, "irq state", err) < 0)
    return -1;
  s->pending_pid = (pid_t)v;
  json_t *irqs = json_object_get(j, "irqs");
  size_t n = json_array_size(irqs);
  if (n > IRQ_STATE_MAX_IRQS || json_array_size(json_object_get(j, "journal")) > PLACER_STATE_MAX_RECORDS)
    return placer_error_set(
        err, PLACER_EXIT_SYSTEM, E2BIG, "irq state: %zu IRQs and %zu journal records, more than a state holds (%d, %d)",
        n, json_array_size(json_object_get(j, "journal")), IRQ_STATE_MAX_IRQS, PLACER_STATE_MAX_RECORDS);
  if (n && (s->irqs = calloc(n, sizeof(*s->irqs))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_array_get(irqs, i);
    struct irq_state_irq *q = &s->irqs[i];
    s->n_irqs = i + 1;
    if (get_uint(o, "irq", UINT32_MAX, false, &v, "irqs[]", err) < 0)
      return -1;
    q->irq = (unsigned)v;
    q->managed = json_is_true(json_object_get(o, "managed"));
    if (dup_string(o, "name", &q->name, "irqs[]", err) < 0 || dup_string(o, "device", &q->device, "irqs[]", err) < 0 ||
        dup_string(o, "instance", &q->instance, "irqs[]", err) < 0 ||
        dup_string(o, "planned", &q->planned, "irqs[]", err) < 0)
      return -1;
    json_t *counts = json_object_get(o, "counts");
    if (json_array_size(counts) > IRQ_STATE_MAX_IRQS)
      return bad(err, "irqs[]", "counts");
    q->n_cpus = (unsigned)json_array_size(counts);
    if ((q->counts = calloc(q->n_cpus ? q->n_cpus : 1, sizeof(*q->counts))) == NULL)
      return placer_error_oom(err, NULL);
    for (unsigned c = 0; c < q->n_cpus; c++)
      q->counts[c] = (uint64_t)json_integer_value(json_array_get(counts, c));
  }
  json_t *journal = json_object_get(j, "journal");
  n = json_array_size(journal);
  if (n && (s->journal = calloc(n, sizeof(*s->journal))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_array_get(journal, i);
    struct irq_journal_entry *e = &s->journal[i];
    s->n_journal = i + 1;
    int op = name_index(json_string_value(json_object_get(o, "op")), op_names, 4);
    if (op < 0 || get_uint(o, "txn", UINT32_MAX, false, &v, "journal[]", err) < 0)
      return bad(err, "journal[]", "op");
    e->op = (enum irq_journal_op)op;
    e->txn = (unsigned)v;
    if (dup_string(o, "name", &e->name, "journal[]", err) < 0 ||
        dup_string(o, "previous", &e->previous, "journal[]", err) < 0 ||
        dup_string(o, "path", &e->path, "journal[]", err) < 0 ||
        dup_string(o, "dir_created", &e->dir_created, "journal[]", err) < 0)
      return -1;
    if (e->op == IRQ_JOURNAL_AFFINITY) {
      if (get_uint(o, "irq", UINT32_MAX, false, &v, "journal[]", err) < 0)
        return -1;
      e->irq = (unsigned)v;
      if (e->previous == NULL)
        return bad(err, "journal[]", "previous");
    }
    if ((e->op == IRQ_JOURNAL_FILE || e->op == IRQ_JOURNAL_LINK) && (e->path == NULL || e->path[0] != '/'))
      return bad(err, "journal[]", "path");
    if (e->op == IRQ_JOURNAL_ACTION) {
      int a = name_index(json_string_value(json_object_get(o, "action")), action_names, 3);
      if (a < 0)
        return bad(err, "journal[]", "action");
      e->action = (enum irq_action)a;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ files */

int irq_state_open(const char *dir, bool lock, struct irq_state **out, struct placer_error **err) {
  struct irq_state *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->dir = strdup(dir)) == NULL) {
    free(s);
    return placer_error_oom(err, NULL);
  }
  s->lock_fd = -1;
  struct placer_statedir d;
  int rc = placer_statedir_open(dir, lock, &d, err);
  if (rc == 0 && lock) {
    rc = placer_statedir_lock(&d, IRQ_LOCK_FILE, true, &s->lock_fd, &s->lock_made, err);
    if (rc == 1)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EWOULDBLOCK,
                            "another placer apply or reset is running (it holds %s/%s)", dir, IRQ_LOCK_FILE);
  }
  json_t *j = NULL;
  if (rc == 0)
    rc = placer_statedir_load(&d, IRQ_STATE_FILE, &j, &s->boot_id, &s->state_id, err);
  placer_statedir_close(&d);
  if (rc == 0 && j && irq_state_from_json(j, s, err) < 0)
    rc = placer_error_prefix(err, "%s/%s", dir, IRQ_STATE_FILE);
  json_decref(j);
  if (rc < 0) {
    irq_state_free(s);
    return -1;
  }
  *out = s;
  return 0;
}

int irq_state_save(struct irq_state *s, struct placer_error **err) {
  json_t *doc = irq_state_is_empty(s) ? NULL : irq_state_to_json(s);
  if (doc == NULL && !irq_state_is_empty(s))
    return placer_error_oom(err, "irq state");
  return placer_state_file_write(s->dir, IRQ_STATE_FILE, doc, "irq state", err);
}

int irq_state_journal_add(struct irq_state *s, struct irq_journal_entry *entry, struct placer_error **err) {
  struct irq_journal_entry *bigger = realloc(s->journal, (s->n_journal + 1) * sizeof(*bigger));
  if (bigger == NULL) {
    irq_journal_entry_clear(entry);
    return placer_error_oom(err, NULL);
  }
  s->journal = bigger;
  s->journal[s->n_journal++] = *entry;
  memset(entry, 0, sizeof(*entry));
  if (irq_state_save(s, err) < 0) {
    irq_journal_entry_clear(&s->journal[--s->n_journal]); /* not recorded: the step must not happen */
    return placer_error_prefix(err, "irq state journal");
  }
  return 0;
}
