/* Reading and writing the JSON of apply's state files, for the kinds of
 * state*.c (state.h): strings, bounded numbers, names, processes. */
#include "state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int placer_state_json_dup(json_t *obj, const char *key, char **out, const char *where, struct placer_error **err) {
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (v == NULL || json_is_null(v))
    return 0;
  if (!json_is_string(v))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: \"%s\" is not a string", where, key);
  if ((*out = strdup(json_string_value(v))) == NULL)
    return placer_error_oom(err, NULL);
  return 0;
}

int placer_state_json_uint(json_t *obj, const char *key, uint64_t max, bool optional, uint64_t *out, const char *where,
                           struct placer_error **err) {
  json_t *v = json_object_get(obj, key);
  *out = 0;
  if ((v == NULL || json_is_null(v)) && optional)
    return 0;
  if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: \"%s\" is not a valid number", where, key);
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

int placer_state_json_name(const char *text, const char *const *names, size_t n) {
  for (size_t i = 0; text && i < n; i++)
    if (names[i] && strcmp(text, names[i]) == 0)
      return (int)i;
  return -1;
}

json_t *placer_state_processes_to_json(const struct placer_state_process *procs, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++) {
    json_t *p = json_pack("{s:i, s:I}", "pid", (int)procs[i].pid, "start_time", (json_int_t)procs[i].start_time);
    if (p == NULL || json_array_append_new(a, p) < 0) {
      json_decref(a);
      return NULL;
    }
  }
  return a;
}

int placer_state_processes_from_json(json_t *array, struct placer_state_process **out, size_t *n, const char *where,
                                     struct placer_error **err) {
  size_t count = json_array_size(array);
  *n = 0;
  if (count > PLACER_STATE_MAX_THREADS)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s: %zu processes, more than %d", where, count,
                            PLACER_STATE_MAX_THREADS);
  if ((*out = calloc(count ? count : 1, sizeof(**out))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < count; i++) {
    json_t *p = json_array_get(array, i);
    uint64_t v;
    if (placer_state_json_uint(p, "pid", INT32_MAX, false, &v, where, err) < 0)
      return -1;
    (*out)[i].pid = (pid_t)v;
    if (placer_state_json_uint(p, "start_time", UINT64_MAX, false, &(*out)[i].start_time, where, err) < 0)
      return -1;
    *n = i + 1;
  }
  return 0;
}

int placer_state_json_role_kind(const char *name, enum placer_role_kind *out) {
  for (int k = 0; name && k <= PLACER_KIND_GENERIC; k++)
    if (strcmp(placer_role_kind_name((enum placer_role_kind)k), name) == 0) {
      *out = (enum placer_role_kind)k;
      return 0;
    }
  return -1;
}
