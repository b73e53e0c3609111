/* The undo journal of every state file (state.h): one record type for the
 * groups' records (create, set, move, a thread's affinity), the IRQs'
 * (an IRQ's affinity) and what placer writes under /etc (a file, a link,
 * an action), each file naming the records it holds; a record as JSON and
 * back, refusing one that misses what its op needs. */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[PLACER_JOURNAL_N_OPS] = { "create",   "set",  "move", "affinity",
                                                            "affinity", "file", "link", "action" };
static const char *const action_names[] = { "daemon-reload", "restart-irqbalance-unit", "restart-irqbalance-script" };
#define N_ACTIONS (sizeof(action_names) / sizeof(action_names[0]))

const char *placer_journal_op_name(enum placer_journal_op op) {
  return (unsigned)op < PLACER_JOURNAL_N_OPS ? op_names[op] : "?";
}

void placer_journal_entry_clear(struct placer_journal_entry *e) {
  free(e->group);
  free(e->previous);
  free(e->instance);
  placer_cgroup_membership_clear(&e->original);
  for (size_t i = 0; i < e->n_threads; i++)
    free(e->threads[i].cpus);
  free(e->threads);
  free(e->name);
  free(e->path);
  free(e->dir_created);
  memset(e, 0, sizeof(*e));
}

/* ------------------------------------------------------------------ to JSON */

static int put(json_t *o, const char *key, json_t *v) {
  return v == NULL || json_object_set_new(o, key, v) < 0 ? -1 : 0;
}

static int move_to_json(const struct placer_journal_entry *e, json_t *j) {
  json_t *orig = json_object(), *threads = json_array();
  int rc = orig && threads ? 0 : -1;
  for (int c = 0; rc == 0 && c < PLACER_CGROUP_N_CONTROLLERS; c++)
    rc = put(orig, placer_cgroup_controller_name(c), placer_json_str_or_null(e->original.path[c]));
  for (size_t i = 0; rc == 0 && i < e->n_threads; i++) {
    json_t *t = json_object();
    rc = t == NULL || put(t, "tid", json_integer(e->threads[i].tid)) < 0 ||
                 put(t, "cpus", placer_json_str_or_null(e->threads[i].cpus)) < 0 ||
                 json_array_append_new(threads, t) < 0
             ? -1
             : 0;
  }
  if (put(j, "pid", json_integer(e->pid)) < 0 || put(j, "start_time", json_integer((json_int_t)e->start_time)) < 0 ||
      put(j, "instance", placer_json_str_or_null(e->instance)) < 0 ||
      put(j, "group", placer_json_str_or_null(e->group)) < 0)
    rc = -1;
  if (rc == 0 && put(j, "original", orig) == 0) {
    orig = NULL;
    rc = put(j, "threads", threads);
    threads = NULL;
  }
  json_decref(orig);
  json_decref(threads);
  return rc;
}

json_t *placer_journal_entry_to_json(const struct placer_journal_entry *e, const char *const *names) {
  json_t *j = json_object();
  int rc = j == NULL || put(j, "txn", json_integer(e->txn)) < 0 ||
                   put(j, "op", json_string(names[e->op] ? names[e->op] : "?")) < 0
               ? -1
               : 0;
  switch (e->op) {
  case PLACER_JOURNAL_CREATE:
    if (rc == 0)
      rc = put(j, "group", placer_json_str_or_null(e->group));
    if (rc == 0 && e->unmarked) /* only then: state files of older placers read the same */
      rc = put(j, "unmarked", json_true());
    break;
  case PLACER_JOURNAL_SET:
    if (rc == 0 && (put(j, "group", placer_json_str_or_null(e->group)) < 0 ||
                    put(j, "setting", json_string(placer_setting_name(e->setting))) < 0 ||
                    put(j, "previous", placer_json_str_or_null(e->previous)) < 0))
      rc = -1;
    break;
  case PLACER_JOURNAL_MOVE:
    if (rc == 0)
      rc = move_to_json(e, j);
    break;
  case PLACER_JOURNAL_AFFINITY:
    if (rc == 0 &&
        (put(j, "pid", json_integer(e->pid)) < 0 || put(j, "start_time", json_integer((json_int_t)e->start_time)) < 0 ||
         put(j, "tid", json_integer(e->tid)) < 0 || put(j, "previous", placer_json_str_or_null(e->previous)) < 0))
      rc = -1;
    break;
  case PLACER_JOURNAL_IRQ:
    if (rc == 0 && (put(j, "irq", json_integer(e->irq)) < 0 || put(j, "name", placer_json_str_or_null(e->name)) < 0 ||
                    put(j, "previous", placer_json_str_or_null(e->previous)) < 0))
      rc = -1;
    break;
  case PLACER_JOURNAL_FILE:
  case PLACER_JOURNAL_LINK:
    if (rc == 0 && (put(j, "path", placer_json_str_or_null(e->path)) < 0 ||
                    (e->op == PLACER_JOURNAL_FILE && put(j, "previous", placer_json_str_or_null(e->previous)) < 0) ||
                    put(j, "dir_created", placer_json_str_or_null(e->dir_created)) < 0))
      rc = -1;
    break;
  case PLACER_JOURNAL_ACTION:
    if (rc == 0)
      rc = put(j, "action", json_string((unsigned)e->action < N_ACTIONS ? action_names[e->action] : "?"));
    break;
  case PLACER_JOURNAL_N_OPS: break;
  }
  if (rc < 0) {
    json_decref(j);
    return NULL;
  }
  return j;
}

/* ------------------------------------------------------------------ from JSON */

static int setting_of(const char *text) {
  for (int s = 0; text && s < PLACER_SETTING_N; s++)
    if (strcmp(placer_setting_name((enum placer_setting)s), text) == 0)
      return s;
  return -1;
}

static int bad(struct placer_error **err, const char *where, const char *what) {
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad \"%s\"", where, what);
}

static int move_from_json(json_t *j, struct placer_journal_entry *e, const char *where, struct placer_error **err) {
  json_t *orig = json_object_get(j, "original");
  if (!json_is_object(orig))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: no \"original\"", where);
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
    if (placer_state_json_dup(orig, placer_cgroup_controller_name(c), &e->original.path[c], where, err) < 0)
      return -1;
  json_t *threads = json_object_get(j, "threads");
  size_t n = json_array_size(threads);
  if (n > PLACER_STATE_MAX_THREADS)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s: %zu threads, more than %d", where, n,
                            PLACER_STATE_MAX_THREADS);
  if (n && (e->threads = calloc(n, sizeof(*e->threads))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++) {
    json_t *t = json_array_get(threads, i);
    uint64_t v;
    if (placer_state_json_uint(t, "tid", INT32_MAX, false, &v, where, err) < 0)
      return -1;
    e->threads[i].tid = (pid_t)v;
    e->n_threads = i + 1;
    if (placer_state_json_dup(t, "cpus", &e->threads[i].cpus, where, err) < 0)
      return -1;
  }
  return 0;
}

int placer_journal_entry_from_json(json_t *j, const char *const *names, struct placer_journal_entry *e, size_t index,
                                   struct placer_error **err) {
  char where[64];
  snprintf(where, sizeof(where), "journal[%zu]", index);
  memset(e, 0, sizeof(*e));
  uint64_t v;
  if (!json_is_object(j))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s is not an object", where);
  if (placer_state_json_uint(j, "txn", UINT32_MAX, false, &v, where, err) < 0)
    return -1;
  e->txn = (unsigned)v;
  int op = placer_state_json_name(json_string_value(json_object_get(j, "op")), names, PLACER_JOURNAL_N_OPS);
  if (op < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: unknown \"op\"", where);
  e->op = (enum placer_journal_op)op;
  if (placer_state_json_dup(j, "group", &e->group, where, err) < 0 ||
      placer_state_json_dup(j, "previous", &e->previous, where, err) < 0 ||
      placer_state_json_dup(j, "instance", &e->instance, where, err) < 0 ||
      placer_state_json_dup(j, "name", &e->name, where, err) < 0 ||
      placer_state_json_dup(j, "path", &e->path, where, err) < 0 ||
      placer_state_json_dup(j, "dir_created", &e->dir_created, where, err) < 0)
    return -1;
  switch (e->op) {
  case PLACER_JOURNAL_CREATE:
  case PLACER_JOURNAL_SET:
    e->unmarked = e->op == PLACER_JOURNAL_CREATE && json_is_true(json_object_get(j, "unmarked"));
    if (e->group == NULL || !placer_cgroup_group_is_valid(e->group))
      return bad(err, where, "group");
    if (e->op == PLACER_JOURNAL_CREATE)
      return 0;
    int s = setting_of(json_string_value(json_object_get(j, "setting")));
    if (s < 0)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: unknown \"setting\"", where);
    e->setting = (enum placer_setting)s;
    return e->previous ? 0 : placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: no \"previous\"", where);
  case PLACER_JOURNAL_MOVE:
  case PLACER_JOURNAL_AFFINITY:
    if (placer_state_json_uint(j, "pid", INT32_MAX, false, &v, where, err) < 0)
      return -1;
    e->pid = (pid_t)v;
    if (placer_state_json_uint(j, "start_time", UINT64_MAX, false, &e->start_time, where, err) < 0)
      return -1;
    if (e->op == PLACER_JOURNAL_MOVE)
      return move_from_json(j, e, where, err);
    if (placer_state_json_uint(j, "tid", INT32_MAX, false, &v, where, err) < 0)
      return -1;
    e->tid = (pid_t)v;
    return e->previous ? 0 : placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: no \"previous\"", where);
  case PLACER_JOURNAL_IRQ:
    if (placer_state_json_uint(j, "irq", UINT32_MAX, false, &v, where, err) < 0)
      return -1;
    e->irq = (unsigned)v;
    return e->previous ? 0 : bad(err, where, "previous");
  case PLACER_JOURNAL_FILE:
  case PLACER_JOURNAL_LINK: return e->path && e->path[0] == '/' ? 0 : bad(err, where, "path");
  case PLACER_JOURNAL_ACTION: {
    int a = placer_state_json_name(json_string_value(json_object_get(j, "action")), action_names, N_ACTIONS);
    if (a < 0)
      return bad(err, where, "action");
    e->action = (enum placer_journal_action)a;
    return 0;
  }
  case PLACER_JOURNAL_N_OPS: break;
  }
  return 0;
}
