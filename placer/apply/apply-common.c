/* Shared by both apply backends (cgroupfs: apply-cgroupfs*.c, systemd:
 * apply-systemd*.c) and the IRQ part (apply-irq*.c): the time applied_at
 * records, the status lines of an instance, and freeing the report and the
 * reset result that both backends fill (apply-internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apply/apply-internal.h"
#include "lib/error.h"
#include "lib/json-str.h"

char *apply_now_rfc3339(void) {
  time_t now = time(NULL);
  struct tm tm;
  char buf[32];
  gmtime_r(&now, &tm);
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return strdup(buf);
}

char *apply_vformat(const char *fmt, va_list ap) {
  char *text = NULL;
  return vasprintf(&text, fmt, ap) < 0 ? NULL : text;
}

const char *apply_setting(const struct placer_apply_options *opt, const char *name) {
  for (size_t i = 0; i < opt->n_settings; i++)
    if (strcmp(opt->settings[i].name, name) == 0)
      return opt->settings[i].value ? opt->settings[i].value : "";
  return NULL;
}

void placer_apply_report_free(struct placer_apply_report *r) {
  if (r == NULL)
    return;
  free(r->profile_name);
  free(r->state_dir);
  for (size_t i = 0; i < r->n_instances; i++) {
    struct placer_apply_instance_report *ri = &r->instances[i];
    free(ri->name);
    free(ri->group);
    free(ri->cpus);
    free(ri->mems);
    free(ri->note);
    for (size_t k = 0; k < ri->n_bound; k++)
      free(ri->bound[k].comm);
    free(ri->bound);
  }
  free(r->instances);
  struct placer_string_list actions = { r->actions, r->n_actions, 0 }, notes = { r->notes, r->n_notes, 0 };
  struct placer_string_list created = { r->groups_created, r->n_groups_created, 0 },
                            changed = { r->groups_changed, r->n_groups_changed, 0 };
  placer_string_list_free(&actions);
  placer_string_list_free(&notes);
  placer_string_list_free(&created);
  placer_string_list_free(&changed);
  for (size_t i = 0; r->irqs && i < r->n_irqs; i++) {
    struct placer_apply_irq_report *q = &r->irqs[i];
    free(q->name);
    free(q->device);
    free(q->instance);
    free(q->from);
    free(q->to);
    free(q->effective);
    free(q->note);
  }
  free(r->irqs);
  free(r);
}

void placer_reset_result_clear(struct placer_reset_result *res) {
  struct placer_string_list lines = { res->lines, res->n_lines, 0 };
  placer_string_list_free(&lines);
  json_decref(res->details);
  free(res->irqs_restored);
  free(res->state_dir);
  *res = (struct placer_reset_result){ 0 };
}

int apply_reset_details(struct placer_reset_result *res, const char *const *keys) {
  if (res->details == NULL && (res->details = json_object()) == NULL)
    return -1;
  for (size_t i = 0; keys[i]; i++)
    if (json_object_get(res->details, keys[i]) == NULL && json_object_set_new(res->details, keys[i], json_array()) < 0)
      return -1;
  return 0;
}

int apply_reset_detail(struct placer_reset_result *res, const char *key, json_t *value) {
  const char *keys[] = { key, NULL };
  if (value == NULL || apply_reset_details(res, keys) < 0) {
    json_decref(value);
    return -1;
  }
  return json_array_append_new(json_object_get(res->details, key), value);
}

size_t apply_reset_detail_count(const struct placer_reset_result *res, const char *key) {
  return json_array_size(json_object_get(res->details, key));
}

json_t *apply_status_doc_new(const char *backend, const char *state_dir, bool applied, const char *profile,
                             const char *profile_path) {
  return json_pack("{s:i, s:s, s:s, s:b, s:o, s:o}", "schema", PLACER_STATUS_JSON_SCHEMA, "backend", backend,
                   "state_dir", state_dir, "applied", applied, "profile", placer_json_str_or_null(profile),
                   "profile_path", placer_json_str_or_null(profile_path));
}

void apply_print_instance_lines(json_t *inst, FILE *out) {
  size_t k;
  json_t *line;
  json_array_foreach(json_object_get(inst, "drift"), k, line) {
    fputs("    DRIFT ", out);
    placer_text_put(out, json_string_value(line));
    fputc('\n', out);
  }
  json_array_foreach(json_object_get(inst, "notes"), k, line) {
    fputs("    note: ", out);
    placer_text_put(out, json_string_value(line));
    fputc('\n', out);
  }
}
