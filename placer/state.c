/* The state directory: state.json (what the cgroupfs backend applied, the
 * undo journal) and the lock file (both apply backends take it); the one
 * atomic write of apply's JSON state files, and what a state may record
 * (every group under its own prefix).  See state.h and docs/apply.md. */
#include "state.h"
#include "lib/array.h"
#include "lib/fsfile.h"
#include "lib/statedir.h"
#include "lib/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *placer_state_default_dir(void) {
  const char *dir = getenv("PLACER_STATE_DIR");
  return dir && *dir ? dir : PLACER_STATE_DEFAULT_DIR;
}

static const char *const journal_op_names[] = { "create", "set", "move", "affinity" };

const char *placer_journal_op_name(enum placer_journal_op op) {
  return (unsigned)op < 4 ? journal_op_names[op] : "?";
}

int placer_memory_limit_parse(const char *text, uint64_t *bytes) {
  if (text == NULL || *text == '\0')
    return -1;
  if (strcmp(text, "max") == 0) {
    *bytes = PLACER_CGROUP_UNLIMITED;
    return 0;
  }
  if (text[strspn(text, "0123456789")] != '\0')
    return -1;
  errno = 0;
  unsigned long long v = strtoull(text, NULL, 10);
  if (errno == ERANGE || v == PLACER_CGROUP_UNLIMITED)
    return -1;
  *bytes = v;
  return 0;
}

/* ------------------------------------------------------------------ freeing */

void placer_journal_entry_clear(struct placer_journal_entry *e) {
  free(e->group);
  free(e->previous);
  free(e->instance);
  placer_cgroup_membership_clear(&e->original);
  for (size_t i = 0; i < e->n_threads; i++)
    free(e->threads[i].cpus);
  free(e->threads);
  memset(e, 0, sizeof(*e));
}

void placer_state_instance_clear(struct placer_state_instance *inst) {
  free(inst->name);
  free(inst->role);
  free(inst->group);
  free(inst->cpus);
  free(inst->mems);
  free(inst->match.value);
  free(inst->qmp_socket);
  free(inst->procs);
  memset(inst, 0, sizeof(*inst));
}

void placer_state_clear_instances(struct placer_state *state) {
  for (size_t i = 0; i < state->n_instances; i++)
    placer_state_instance_clear(&state->instances[i]);
  free(state->instances);
  state->instances = NULL;
  state->n_instances = 0;
}

static void state_clear_fields(struct placer_state *s) {
  free(s->boot_id);
  free(s->state_id);
  free(s->backend);
  free(s->cgroup_mode);
  free(s->cgroup_root);
  free(s->prefix);
  free(s->profile_name);
  free(s->profile_path);
  free(s->topology_source);
  free(s->applied_at);
  placer_state_clear_instances(s);
  for (size_t i = 0; i < s->n_journal; i++)
    placer_journal_entry_clear(&s->journal[i]);
  free(s->journal);
  s->boot_id = s->state_id = s->backend = NULL;
  s->cgroup_mode = s->cgroup_root = s->prefix = s->profile_name = s->profile_path = NULL;
  s->topology_source = s->applied_at = NULL;
  s->journal = NULL;
  s->n_journal = 0;
  s->last_txn = s->pending_txn = 0;
  s->pending_pid = 0;
}

void placer_state_free(struct placer_state *state) {
  if (state == NULL)
    return;
  state_clear_fields(state);
  placer_statedir_unlock(state->lock_fd, state->lock_made); /* releases the flock */
  free(state->lock_made);
  free(state->dir);
  free(state);
}

bool placer_state_is_empty(const struct placer_state *state) {
  return state->n_instances == 0 && state->n_journal == 0 && state->pending_txn == 0;
}

/* ------------------------------------------------------------------ to JSON */

static json_t *str_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

static json_t *journal_entry_to_json(const struct placer_journal_entry *e) {
  json_t *j = json_object();
  json_object_set_new(j, "txn", json_integer(e->txn));
  json_object_set_new(j, "op", json_string(placer_journal_op_name(e->op)));
  switch (e->op) {
  case PLACER_JOURNAL_CREATE:
    json_object_set_new(j, "group", str_or_null(e->group));
    if (e->unmarked) /* only then: state files of older placers read the same */
      json_object_set_new(j, "unmarked", json_true());
    break;
  case PLACER_JOURNAL_SET:
    json_object_set_new(j, "group", str_or_null(e->group));
    json_object_set_new(j, "setting", json_string(placer_setting_name(e->setting)));
    json_object_set_new(j, "previous", str_or_null(e->previous));
    break;
  case PLACER_JOURNAL_MOVE: {
    json_object_set_new(j, "pid", json_integer(e->pid));
    json_object_set_new(j, "start_time", json_integer((json_int_t)e->start_time));
    json_object_set_new(j, "instance", str_or_null(e->instance));
    json_object_set_new(j, "group", str_or_null(e->group));
    json_t *orig = json_object();
    for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
      json_object_set_new(orig, placer_cgroup_controller_name(c), str_or_null(e->original.path[c]));
    json_object_set_new(j, "original", orig);
    json_t *threads = json_array();
    for (size_t i = 0; i < e->n_threads; i++) {
      json_t *t = json_object();
      json_object_set_new(t, "tid", json_integer(e->threads[i].tid));
      json_object_set_new(t, "cpus", str_or_null(e->threads[i].cpus));
      json_array_append_new(threads, t);
    }
    json_object_set_new(j, "threads", threads);
    break;
  }
  case PLACER_JOURNAL_AFFINITY:
    json_object_set_new(j, "pid", json_integer(e->pid));
    json_object_set_new(j, "start_time", json_integer((json_int_t)e->start_time));
    json_object_set_new(j, "tid", json_integer(e->tid));
    json_object_set_new(j, "previous", str_or_null(e->previous));
    break;
  }
  return j;
}

static json_t *instance_to_json(const struct placer_state_instance *inst) {
  json_t *j = json_object();
  json_object_set_new(j, "name", str_or_null(inst->name));
  json_object_set_new(j, "role", str_or_null(inst->role));
  json_object_set_new(j, "kind", json_string(placer_role_kind_name(inst->kind)));
  json_object_set_new(j, "group", str_or_null(inst->group));
  json_object_set_new(j, "pinned", json_boolean(inst->pinned));
  json_object_set_new(j, "cpus", str_or_null(inst->cpus));
  json_object_set_new(j, "mems", str_or_null(inst->mems));
  json_object_set_new(j, "memory_bytes",
                      inst->has_memory_limit ? json_integer((json_int_t)inst->memory_bytes) : json_null());
  json_object_set_new(j, "cpu_weight", inst->cpu_weight ? json_integer(inst->cpu_weight) : json_null());
  if (inst->cpu_quota) /* only when set: state files of older placers read the same */
    json_object_set_new(j, "cpu_quota", json_integer(inst->cpu_quota));
  json_object_set_new(j, "pin_vcpus", json_boolean(inst->pin_vcpus));
  json_t *m = json_object();
  json_object_set_new(m, "kind", json_string(placer_match_kind_name(inst->match.kind)));
  json_object_set_new(m, "value", str_or_null(inst->match.value));
  json_object_set_new(j, "match", m);
  json_object_set_new(j, "qmp_socket", str_or_null(inst->qmp_socket));
  json_object_set_new(j, "by_pid", json_boolean(inst->by_pid));
  json_t *procs = json_array();
  for (size_t i = 0; i < inst->n_procs; i++) {
    json_t *p = json_object();
    json_object_set_new(p, "pid", json_integer(inst->procs[i].pid));
    json_object_set_new(p, "start_time", json_integer((json_int_t)inst->procs[i].start_time));
    json_array_append_new(procs, p);
  }
  json_object_set_new(j, "processes", procs);
  return j;
}

json_t *placer_state_to_json(const struct placer_state *s) {
  json_t *j = json_object();
  json_object_set_new(j, "schema", json_integer(PLACER_STATE_SCHEMA));
  json_object_set_new(j, "boot_id", str_or_null(s->boot_id));
  json_object_set_new(j, "state_id", str_or_null(s->state_id));
  if (s->backend)
    json_object_set_new(j, "backend", json_string(s->backend));
  json_object_set_new(j, "cgroup_mode", str_or_null(s->cgroup_mode));
  json_object_set_new(j, "cgroup_root", str_or_null(s->cgroup_root));
  json_object_set_new(j, "prefix", str_or_null(s->prefix));
  json_t *profile = json_object();
  json_object_set_new(profile, "name", str_or_null(s->profile_name));
  json_object_set_new(profile, "path", str_or_null(s->profile_path));
  json_object_set_new(profile, "topology", str_or_null(s->topology_source));
  json_object_set_new(j, "profile", profile);
  json_object_set_new(j, "applied_at", str_or_null(s->applied_at));
  json_object_set_new(j, "last_txn", json_integer(s->last_txn));
  json_object_set_new(j, "pending_txn", s->pending_txn ? json_integer(s->pending_txn) : json_null());
  json_object_set_new(j, "pending_pid", s->pending_txn ? json_integer(s->pending_pid) : json_null());
  json_t *insts = json_array();
  for (size_t i = 0; i < s->n_instances; i++)
    json_array_append_new(insts, instance_to_json(&s->instances[i]));
  json_object_set_new(j, "instances", insts);
  json_t *journal = json_array();
  for (size_t i = 0; i < s->n_journal; i++)
    json_array_append_new(journal, journal_entry_to_json(&s->journal[i]));
  json_object_set_new(j, "journal", journal);
  return j;
}

/* ------------------------------------------------------------------ from JSON */

static int dup_opt_string(json_t *obj, const char *key, char **out, const char *where, struct placer_error **err) {
  json_t *v = json_object_get(obj, key);
  if (v == NULL || json_is_null(v)) {
    *out = NULL;
    return 0;
  }
  if (!json_is_string(v))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: \"%s\" is not a string", where, key);
  if ((*out = strdup(json_string_value(v))) == NULL)
    return placer_error_oom(err, NULL);
  return 0;
}

static int get_uint(json_t *obj, const char *key, uint64_t max, uint64_t *out, bool optional, const char *where,
                    struct placer_error **err) {
  json_t *v = json_object_get(obj, key);
  if ((v == NULL || json_is_null(v)) && optional) {
    *out = 0;
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: \"%s\" is not a valid number", where, key);
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

static int parse_enum(const char *text, const char *(*name_of)(int), int n, int *out) {
  for (int i = 0; i < n && text; i++)
    if (strcmp(name_of(i), text) == 0) {
      *out = i;
      return 0;
    }
  return -1;
}

static const char *journal_op_name_int(int i) {
  return placer_journal_op_name((enum placer_journal_op)i);
}
static const char *setting_name_int(int i) {
  return placer_setting_name((enum placer_setting)i);
}
static const char *role_kind_name_int(int i) {
  return placer_role_kind_name((enum placer_role_kind)i);
}
static const char *match_kind_name_int(int i) {
  return placer_match_kind_name((enum placer_match_kind)i);
}

static int journal_entry_from_json(json_t *j, struct placer_journal_entry *e, size_t index, struct placer_error **err) {
  char where[64];
  snprintf(where, sizeof(where), "journal[%zu]", index);
  memset(e, 0, sizeof(*e));
  uint64_t v;
  int op = 0;
  if (!json_is_object(j))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s is not an object", where);
  if (get_uint(j, "txn", UINT32_MAX, &v, false, where, err) < 0)
    return -1;
  e->txn = (unsigned)v;
  if (parse_enum(json_string_value(json_object_get(j, "op")), journal_op_name_int, 4, &op) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: unknown \"op\"", where);
  e->op = (enum placer_journal_op)op;
  if (dup_opt_string(j, "group", &e->group, where, err) < 0 ||
      dup_opt_string(j, "previous", &e->previous, where, err) < 0 ||
      dup_opt_string(j, "instance", &e->instance, where, err) < 0)
    return -1;
  e->unmarked = e->op == PLACER_JOURNAL_CREATE && json_is_true(json_object_get(j, "unmarked"));
  if (e->op == PLACER_JOURNAL_CREATE || e->op == PLACER_JOURNAL_SET) {
    if (e->group == NULL || !placer_cgroup_group_is_valid(e->group))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad \"group\"", where);
  }
  if (e->op == PLACER_JOURNAL_SET) {
    int s = 0;
    if (parse_enum(json_string_value(json_object_get(j, "setting")), setting_name_int, PLACER_SETTING_N, &s) < 0)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: unknown \"setting\"", where);
    e->setting = (enum placer_setting)s;
    if (e->previous == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: no \"previous\"", where);
  }
  if (e->op == PLACER_JOURNAL_MOVE || e->op == PLACER_JOURNAL_AFFINITY) {
    if (get_uint(j, "pid", INT32_MAX, &v, false, where, err) < 0)
      return -1;
    e->pid = (pid_t)v;
    if (get_uint(j, "start_time", UINT64_MAX, &e->start_time, false, where, err) < 0)
      return -1;
  }
  if (e->op == PLACER_JOURNAL_AFFINITY) {
    if (get_uint(j, "tid", INT32_MAX, &v, false, where, err) < 0)
      return -1;
    e->tid = (pid_t)v;
    if (e->previous == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: no \"previous\"", where);
  }
  if (e->op == PLACER_JOURNAL_MOVE) {
    json_t *orig = json_object_get(j, "original");
    if (!json_is_object(orig))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: no \"original\"", where);
    for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++)
      if (dup_opt_string(orig, placer_cgroup_controller_name(c), &e->original.path[c], where, err) < 0)
        return -1;
    json_t *threads = json_object_get(j, "threads");
    size_t n = json_array_size(threads);
    if (n > PLACER_STATE_MAX_THREADS)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s: %zu threads, more than %d", where, n,
                              PLACER_STATE_MAX_THREADS);
    if (n) {
      if ((e->threads = calloc(n, sizeof(*e->threads))) == NULL)
        return placer_error_oom(err, NULL);
      for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(threads, i);
        if (get_uint(t, "tid", INT32_MAX, &v, false, where, err) < 0)
          return -1;
        e->threads[i].tid = (pid_t)v;
        e->n_threads = i + 1;
        if (dup_opt_string(t, "cpus", &e->threads[i].cpus, where, err) < 0)
          return -1;
      }
    }
  }
  return 0;
}

static int instance_from_json(json_t *j, struct placer_state_instance *inst, size_t index, struct placer_error **err) {
  char where[64];
  snprintf(where, sizeof(where), "instances[%zu]", index);
  memset(inst, 0, sizeof(*inst));
  if (!json_is_object(j))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s is not an object", where);
  if (dup_opt_string(j, "name", &inst->name, where, err) < 0 ||
      dup_opt_string(j, "role", &inst->role, where, err) < 0 ||
      dup_opt_string(j, "group", &inst->group, where, err) < 0 ||
      dup_opt_string(j, "cpus", &inst->cpus, where, err) < 0 ||
      dup_opt_string(j, "mems", &inst->mems, where, err) < 0 ||
      dup_opt_string(j, "qmp_socket", &inst->qmp_socket, where, err) < 0)
    return -1;
  if (inst->name == NULL || inst->group == NULL || !placer_cgroup_group_is_valid(inst->group) || inst->cpus == NULL ||
      inst->mems == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL,
                            "%s: needs \"name\", a valid \"group\", \"cpus\", \"mems\"", where);
  int k = 0;
  if (parse_enum(json_string_value(json_object_get(j, "kind")), role_kind_name_int, PLACER_KIND_GENERIC + 1, &k) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: unknown \"kind\"", where);
  inst->kind = (enum placer_role_kind)k;
  inst->pinned = json_is_true(json_object_get(j, "pinned"));
  inst->pin_vcpus = json_is_true(json_object_get(j, "pin_vcpus"));
  inst->by_pid = json_is_true(json_object_get(j, "by_pid"));
  json_t *mem = json_object_get(j, "memory_bytes");
  inst->has_memory_limit = mem != NULL && !json_is_null(mem);
  uint64_t v;
  if (inst->has_memory_limit) {
    if (get_uint(j, "memory_bytes", UINT64_MAX, &inst->memory_bytes, false, where, err) < 0)
      return -1;
  }
  if (get_uint(j, "cpu_weight", PLACER_CGROUP_WEIGHT_MAX, &v, true, where, err) < 0)
    return -1;
  inst->cpu_weight = (unsigned)v;
  if (get_uint(j, "cpu_quota", PLACER_CGROUP_QUOTA_MAX_MCORES, &v, true, where, err) < 0)
    return -1;
  inst->cpu_quota = (unsigned)v;
  json_t *m = json_object_get(j, "match");
  int mk = 0;
  if (!json_is_object(m) ||
      parse_enum(json_string_value(json_object_get(m, "kind")), match_kind_name_int, PLACER_MATCH_N_KINDS, &mk) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad \"match\"", where);
  inst->match.kind = (enum placer_match_kind)mk;
  if (dup_opt_string(m, "value", &inst->match.value, where, err) < 0)
    return -1;
  json_t *procs = json_object_get(j, "processes");
  size_t n = json_array_size(procs);
  if (n > PLACER_STATE_MAX_THREADS)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s: %zu processes, more than %d", where, n,
                            PLACER_STATE_MAX_THREADS);
  if (n) {
    if ((inst->procs = calloc(n, sizeof(*inst->procs))) == NULL)
      return placer_error_oom(err, NULL);
    for (size_t i = 0; i < n; i++) {
      json_t *p = json_array_get(procs, i);
      if (get_uint(p, "pid", INT32_MAX, &v, false, where, err) < 0)
        return -1;
      inst->procs[i].pid = (pid_t)v;
      if (get_uint(p, "start_time", UINT64_MAX, &inst->procs[i].start_time, false, where, err) < 0)
        return -1;
      inst->n_procs = i + 1;
    }
  }
  return 0;
}

/* How many levels GROUP is below PREFIX (0: PREFIX itself); -1 when it is
 * not in PREFIX's subtree. */
static int levels_below(const char *group, const char *prefix) {
  size_t len = strlen(prefix);
  if (strncmp(group, prefix, len) != 0 || (group[len] != '\0' && group[len] != '/'))
    return -1;
  int levels = 0;
  for (const char *p = group + len; *p; p++)
    levels += *p == '/';
  return levels;
}

/* Every group is one placer could have recorded for this prefix: an
 * instance's PREFIX/ROLE/NAME, a value set below the prefix, a group created
 * on the way to an instance's (a level of the prefix itself included), a
 * process moved into an instance's group from a group it can go back to. */
static int check_groups(const struct placer_state *s, struct placer_error **err) {
  if (s->n_instances == 0 && s->n_journal == 0)
    return 0;
  if (s->prefix == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "it records groups but no \"prefix\"");
  for (size_t i = 0; i < s->n_instances; i++)
    if (levels_below(s->instances[i].group, s->prefix) != 2)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                              "instances[%zu]: group '%s' is not PREFIX/ROLE/NAME of its prefix '%s'", i,
                              s->instances[i].group, s->prefix);
  for (size_t i = 0; i < s->n_journal; i++) {
    const struct placer_journal_entry *e = &s->journal[i];
    int levels = e->group ? levels_below(e->group, s->prefix) : -1;
    bool ok = true;
    switch (e->op) {
    case PLACER_JOURNAL_CREATE: ok = (levels >= 0 && levels <= 2) || levels_below(s->prefix, e->group) > 0; break;
    case PLACER_JOURNAL_SET: ok = levels == 1 || levels == 2; break;
    case PLACER_JOURNAL_MOVE:
      ok = levels == 2;
      for (int c = 0; ok && c < PLACER_CGROUP_N_CONTROLLERS; c++)
        ok = e->original.path[c] == NULL || placer_cgroup_recorded_path_is_safe(e->original.path[c]);
      break;
    case PLACER_JOURNAL_AFFINITY: ok = e->previous != NULL; break;
    }
    if (!ok)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                              "journal[%zu]: a %s record of group '%s' that placer never writes for prefix '%s'", i,
                              placer_journal_op_name(e->op), e->group ? e->group : "(none)", s->prefix);
  }
  return 0;
}

int placer_state_from_json(json_t *j, struct placer_state *s, struct placer_error **err) {
  uint64_t v;
  if (!json_is_object(j))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "not a JSON object");
  if (get_uint(j, "schema", UINT32_MAX, &v, false, "state", err) < 0)
    return -1;
  if (v != PLACER_STATE_SCHEMA)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "schema %llu, this placer reads %d", (unsigned long long)v,
                            PLACER_STATE_SCHEMA);
  json_t *profile = json_object_get(j, "profile");
  if (dup_opt_string(j, "boot_id", &s->boot_id, "state", err) < 0 ||
      dup_opt_string(j, "state_id", &s->state_id, "state", err) < 0 ||
      dup_opt_string(j, "backend", &s->backend, "state", err) < 0 ||
      dup_opt_string(j, "cgroup_mode", &s->cgroup_mode, "state", err) < 0 ||
      dup_opt_string(j, "cgroup_root", &s->cgroup_root, "state", err) < 0 ||
      dup_opt_string(j, "prefix", &s->prefix, "state", err) < 0 ||
      dup_opt_string(j, "applied_at", &s->applied_at, "state", err) < 0)
    return -1;
  if (json_is_object(profile) && (dup_opt_string(profile, "name", &s->profile_name, "profile", err) < 0 ||
                                  dup_opt_string(profile, "path", &s->profile_path, "profile", err) < 0 ||
                                  dup_opt_string(profile, "topology", &s->topology_source, "profile", err) < 0))
    return -1;
  if (s->prefix && !placer_cgroup_group_is_valid(s->prefix))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "bad \"prefix\" '%s'", s->prefix);
  if (get_uint(j, "last_txn", UINT32_MAX, &v, false, "state", err) < 0)
    return -1;
  s->last_txn = (unsigned)v;
  if (get_uint(j, "pending_txn", UINT32_MAX, &v, true, "state", err) < 0)
    return -1;
  s->pending_txn = (unsigned)v;
  if (get_uint(j, "pending_pid", INT32_MAX, &v, true, "state", err) < 0)
    return -1;
  s->pending_pid = (pid_t)v;

  json_t *insts = json_object_get(j, "instances");
  size_t n = json_array_size(insts);
  if (n > PLACER_STATE_MAX_INSTANCES || json_array_size(json_object_get(j, "journal")) > PLACER_STATE_MAX_RECORDS)
    return placer_error_set(
        err, PLACER_EXIT_SYSTEM, E2BIG, "%zu instances and %zu journal records: more than a state holds (%d, %d)", n,
        json_array_size(json_object_get(j, "journal")), PLACER_STATE_MAX_INSTANCES, PLACER_STATE_MAX_RECORDS);
  if (n) {
    if ((s->instances = calloc(n, sizeof(*s->instances))) == NULL)
      return placer_error_oom(err, NULL);
    for (size_t i = 0; i < n; i++) {
      s->n_instances = i + 1;
      if (instance_from_json(json_array_get(insts, i), &s->instances[i], i, err) < 0)
        return -1;
    }
  }
  json_t *journal = json_object_get(j, "journal");
  n = json_array_size(journal);
  if (n) {
    if ((s->journal = calloc(n, sizeof(*s->journal))) == NULL)
      return placer_error_oom(err, NULL);
    for (size_t i = 0; i < n; i++) {
      s->n_journal = i + 1;
      if (journal_entry_from_json(json_array_get(journal, i), &s->journal[i], i, err) < 0)
        return -1;
    }
  }
  return check_groups(s, err);
}

/* ------------------------------------------------------------------ files */

int placer_state_open(const char *dir, enum placer_state_lock lock, struct placer_state **out, bool *busy,
                      struct placer_error **err) {
  if (busy)
    *busy = false;
  struct placer_statedir d;
  if (placer_statedir_open(dir, lock == PLACER_STATE_LOCK_EXCLUSIVE, &d, err) < 0) {
    placer_statedir_close(&d);
    return -1;
  }
  struct placer_state *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->dir = strdup(dir)) == NULL) {
    free(s);
    placer_statedir_close(&d);
    return placer_error_oom(err, NULL);
  }
  s->lock_fd = -1;
  int rc = 0;
  if (lock != PLACER_STATE_NO_LOCK) {
    rc = placer_statedir_lock(&d, PLACER_STATE_LOCK_FILE, lock == PLACER_STATE_LOCK_EXCLUSIVE, &s->lock_fd,
                              &s->lock_made, err);
    if (rc == 1 && lock == PLACER_STATE_LOCK_EXCLUSIVE)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EWOULDBLOCK,
                            "another placer apply or reset is running (it holds %s/%s)", dir, PLACER_STATE_LOCK_FILE);
    else if (rc == 1) {
      if (busy)
        *busy = true;
      rc = 0;
    }
  }
  json_t *j = NULL;
  if (rc == 0)
    rc = placer_statedir_load(&d, PLACER_STATE_FILE, &j, &s->boot_id, &s->state_id, err);
  placer_statedir_close(&d);
  if (rc == 0 && j && placer_state_from_json(j, s, err) < 0)
    rc = placer_error_prefix(err, "%s/%s", dir, PLACER_STATE_FILE);
  json_decref(j);
  if (rc < 0) {
    placer_state_free(s);
    return -1;
  }
  *out = s;
  return 0;
}

int placer_state_file_write(const char *dir, const char *name, json_t *doc, const char *what,
                            struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, name) < 0) {
    json_decref(doc);
    return placer_error_oom(err, NULL);
  }
  if (doc == NULL) {
    if (unlink(path) < 0 && errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", path);
    return 0;
  }
  cleanup_free char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  json_decref(doc);
  if (text == NULL)
    return placer_error_oom(err, what);
  return placer_file_replace(dir, name, text, err);
}

int placer_state_save(struct placer_state *s, struct placer_error **err) {
  json_t *doc = placer_state_is_empty(s) ? NULL : placer_state_to_json(s);
  if (doc == NULL && !placer_state_is_empty(s))
    return placer_error_oom(err, "state");
  return placer_state_file_write(s->dir, PLACER_STATE_FILE, doc, "state", err);
}

int placer_state_journal_add(struct placer_state *s, struct placer_journal_entry *entry, struct placer_error **err) {
  struct placer_journal_entry *bigger = realloc(s->journal, (s->n_journal + 1) * sizeof(*bigger));
  if (bigger == NULL) {
    placer_journal_entry_clear(entry);
    return placer_error_oom(err, NULL);
  }
  s->journal = bigger;
  s->journal[s->n_journal++] = *entry;
  memset(entry, 0, sizeof(*entry));
  if (placer_state_save(s, err) < 0) {
    /* Not recorded, so the step must not happen: forget it again. */
    placer_journal_entry_clear(&s->journal[--s->n_journal]);
    return placer_error_prefix(err, "state journal");
  }
  return 0;
}

void placer_state_journal_remove(struct placer_state *s, size_t i) {
  if (i >= s->n_journal)
    return;
  placer_journal_entry_clear(&s->journal[i]);
  memmove(&s->journal[i], &s->journal[i + 1], (s->n_journal - i - 1) * sizeof(*s->journal));
  s->n_journal--;
}

void placer_state_dir_tidy(const char *dir) {
  static const char *const files[] = { PLACER_STATE_FILE, PLACER_STATE_SYSTEMD_FILE, PLACER_STATE_IRQ_FILE,
                                       PLACER_STATE_RUN_DIR, NULL };
  static const char *const locks[] = { PLACER_STATE_LOCK_FILE, PLACER_STATE_IRQ_LOCK_FILE, NULL };
  placer_statedir_tidy(dir, files, locks);
}
