/* Shared by both apply backends: the machine-readable results of apply and
 * reset (`placer apply --json`, `placer reset --json`): what changed, which
 * groups were created or set, which processes were bound, what only the
 * backend reports about its reset under its name, and one `changed` flag
 * that tools such as the Ansible modules in ansible/ report as is. Schema
 * in docs/apply.md. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "apply/apply.h"

/* json_object_set_new / json_array_append_new that remember a failure. */
static void put(json_t *obj, const char *key, json_t *value, bool *oom) {
  if (value == NULL || json_object_set_new(obj, key, value) < 0)
    *oom = true;
}

static void append(json_t *array, json_t *value, bool *oom) {
  if (value == NULL || json_array_append_new(array, value) < 0)
    *oom = true;
}

static json_t *string_array(char *const *v, size_t n, bool *oom) {
  json_t *a = json_array();
  if (a == NULL) {
    *oom = true;
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    append(a, json_string(v[i]), oom);
  return a;
}

static json_t *string_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

static json_t *instance_json(const struct placer_apply_instance_report *ri, bool dry_run, bool *oom) {
  json_t *o = json_object(), *bound = json_array();
  if (o == NULL || bound == NULL) {
    json_decref(o);
    json_decref(bound);
    *oom = true;
    return NULL;
  }
  put(o, "name", json_string(ri->name), oom);
  put(o, "group", string_or_null(ri->group), oom);
  put(o, "cpus", string_or_null(ri->cpus), oom);
  put(o, "mems", string_or_null(ri->mems), oom);
  put(o, "memory_bytes", ri->has_memory_limit ? json_integer((json_int_t)ri->memory_bytes) : json_null(), oom);
  put(o, "changes", json_integer(ri->changes), oom);
  put(o, "changed", json_boolean(ri->changes > 0), oom);
  for (size_t k = 0; k < ri->n_bound; k++) {
    json_t *p = json_object();
    if (p == NULL) {
      *oom = true;
      continue;
    }
    put(p, "pid", json_integer(ri->bound[k].pid), oom);
    put(p, "comm", string_or_null(ri->bound[k].comm), oom);
    put(p, "n_threads", json_integer((json_int_t)ri->bound[k].n_threads), oom);
    put(p, "n_descendants", json_integer((json_int_t)ri->bound[k].n_descendants), oom);
    append(bound, p, oom);
  }
  put(o, dry_run ? "would_bind" : "bound", bound, oom);
  put(o, "vcpus_pinned", json_integer((json_int_t)ri->n_vcpus_pinned), oom);
  put(o, "vcpu_source", string_or_null(ri->vcpu_source), oom);
  put(o, "note", string_or_null(ri->note), oom);
  return o;
}

static json_t *irq_json(const struct placer_apply_irq_report *q, bool *oom) {
  json_t *o = json_object();
  if (o == NULL) {
    *oom = true;
    return NULL;
  }
  put(o, "irq", json_integer(q->irq), oom);
  put(o, "name", string_or_null(q->name), oom);
  put(o, "device", string_or_null(q->device), oom);
  put(o, "instance", string_or_null(q->instance), oom);
  put(o, "from", string_or_null(q->from), oom);
  put(o, "to", string_or_null(q->to), oom);
  put(o, "managed", json_boolean(q->managed), oom);
  put(o, "effective", string_or_null(q->effective), oom);
  put(o, "changed", json_boolean(q->changed), oom);
  put(o, "note", string_or_null(q->note), oom);
  return o;
}

json_t *placer_apply_report_json(const struct placer_apply_report *r) {
  bool oom = false;
  json_t *doc = json_object(), *instances = json_array();
  if (doc == NULL || instances == NULL) {
    json_decref(doc);
    json_decref(instances);
    return NULL;
  }
  size_t n_bound = 0;
  json_t *pids = json_array();
  for (size_t i = 0; i < r->n_instances; i++) {
    append(instances, instance_json(&r->instances[i], r->dry_run, &oom), &oom);
    n_bound += r->instances[i].n_bound;
    for (size_t k = 0; pids && k < r->instances[i].n_bound; k++)
      append(pids, json_integer(r->instances[i].bound[k].pid), &oom);
  }
  put(doc, "schema", json_integer(PLACER_APPLY_JSON_SCHEMA), &oom);
  put(doc, "command", json_string("apply"), &oom);
  put(doc, "profile", string_or_null(r->profile_name), &oom);
  put(doc, "backend", string_or_null(r->backend), &oom);
  put(doc, "cgroup_mode", string_or_null(r->cgroup_mode), &oom);
  put(doc, "state_dir", string_or_null(r->state_dir), &oom);
  put(doc, "dry_run", json_boolean(r->dry_run), &oom);
  put(doc, "changed", json_boolean(r->steps > 0), &oom);
  put(doc, "changes", json_integer(r->steps), &oom);
  put(doc, "groups_created", string_array(r->groups_created, r->n_groups_created, &oom), &oom);
  put(doc, "groups_changed", string_array(r->groups_changed, r->n_groups_changed, &oom), &oom);
  put(doc, "pids_bound", pids, &oom);
  put(doc, "n_processes_bound", json_integer((json_int_t)n_bound), &oom);
  put(doc, "instances", instances, &oom);
  put(doc, "actions", string_array(r->actions, r->n_actions, &oom), &oom);
  put(doc, "notes", string_array(r->notes, r->n_notes, &oom), &oom);
  if (r->n_irqs) { /* only with irqs: in the profile: the documents of others read as before */
    json_t *irqs = json_array();
    for (size_t i = 0; irqs && i < r->n_irqs; i++)
      append(irqs, irq_json(&r->irqs[i], &oom), &oom);
    put(doc, "irqs", irqs, &oom);
  }
  if (oom) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}

json_t *placer_reset_result_json(const struct placer_reset_result *res) {
  bool oom = false;
  json_t *doc = json_object();
  if (doc == NULL)
    return NULL;
  put(doc, "schema", json_integer(PLACER_RESET_JSON_SCHEMA), &oom);
  put(doc, "command", json_string("reset"), &oom);
  put(doc, "backend", string_or_null(res->backend), &oom);
  put(doc, "state_dir", string_or_null(res->state_dir), &oom);
  put(doc, "changed", json_boolean(res->changed), &oom);
  put(doc, "interrupted", json_boolean(res->interrupted), &oom);
  put(doc, "changes", json_integer((json_int_t)res->n_undone), &oom);
  /* what only the backend reports, under its name */
  if (res->details && res->backend)
    put(doc, res->backend, json_deep_copy(res->details), &oom);
  if (res->n_irqs_restored) {
    json_t *irqs = json_array();
    for (size_t i = 0; irqs && i < res->n_irqs_restored; i++)
      append(irqs, json_integer(res->irqs_restored[i]), &oom);
    put(doc, "irqs_restored", irqs, &oom);
  }
  put(doc, "messages", string_array(res->lines, res->n_lines, &oom), &oom);
  if (oom) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}
