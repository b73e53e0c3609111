/* state.json, the cgroupfs backend's kind of state file (state.h): the
 * cgroup hierarchy and prefix, the profile, the instances applied with the
 * processes they bound, and what such a file may record (every group under
 * its own prefix). */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void groups_clear(struct placer_state *s) {
  placer_state_clear_instances(s);
  free(s->cgroup_mode);
  free(s->cgroup_root);
  free(s->prefix);
  free(s->topology_source);
  s->cgroup_mode = s->cgroup_root = s->prefix = s->topology_source = NULL;
}

static bool groups_hold(const struct placer_state *s) {
  return s->n_instances > 0;
}

/* ------------------------------------------------------------------ to JSON */

static json_t *instance_to_json(const struct placer_state_instance *inst) {
  json_t *j =
      json_pack("{s:o, s:o, s:s, s:o, s:b, s:o, s:o, s:o, s:o}", "name", placer_json_str_or_null(inst->name), "role",
                placer_json_str_or_null(inst->role), "kind", placer_role_kind_name(inst->kind), "group",
                placer_json_str_or_null(inst->group), "pinned", inst->pinned, "cpus",
                placer_json_str_or_null(inst->cpus), "mems", placer_json_str_or_null(inst->mems), "memory_bytes",
                inst->has_memory_limit ? json_integer((json_int_t)inst->memory_bytes) : json_null(), "cpu_weight",
                inst->cpu_weight ? json_integer(inst->cpu_weight) : json_null());
  json_t *match = json_pack("{s:s, s:o}", "kind", placer_match_kind_name(inst->match.kind), "value",
                            placer_json_str_or_null(inst->match.value));
  json_t *procs = placer_state_processes_to_json(inst->procs, inst->n_procs);
  if (j == NULL || match == NULL || procs == NULL ||
      (inst->cpu_quota && /* only when set: state files of older placers read the same */
       json_object_set_new(j, "cpu_quota", json_integer(inst->cpu_quota)) < 0) ||
      json_object_set_new(j, "pin_vcpus", json_boolean(inst->pin_vcpus)) < 0 ||
      json_object_set_new(j, "match", match) < 0 ||
      json_object_set_new(j, "qmp_socket", placer_json_str_or_null(inst->qmp_socket)) < 0 ||
      json_object_set_new(j, "by_pid", json_boolean(inst->by_pid)) < 0 ||
      json_object_set_new(j, "processes", procs) < 0) {
    json_decref(j);
    return NULL;
  }
  return j;
}

static int groups_to_json(const struct placer_state *s, json_t *j) {
  json_t *profile =
      json_pack("{s:o, s:o, s:o}", "name", placer_json_str_or_null(s->profile_name), "path",
                placer_json_str_or_null(s->profile_path), "topology", placer_json_str_or_null(s->topology_source));
  json_t *insts = json_array();
  int rc = profile && insts ? 0 : -1;
  if (rc == 0 && s->backend)
    rc = json_object_set_new(j, "backend", json_string(s->backend));
  if (rc == 0 && (json_object_set_new(j, "cgroup_mode", placer_json_str_or_null(s->cgroup_mode)) < 0 ||
                  json_object_set_new(j, "cgroup_root", placer_json_str_or_null(s->cgroup_root)) < 0 ||
                  json_object_set_new(j, "prefix", placer_json_str_or_null(s->prefix)) < 0 ||
                  json_object_set_new(j, "profile", profile) < 0 ||
                  json_object_set_new(j, "applied_at", placer_json_str_or_null(s->applied_at)) < 0))
    rc = -1;
  else
    profile = NULL;
  for (size_t i = 0; rc == 0 && i < s->n_instances; i++) {
    json_t *inst = instance_to_json(&s->instances[i]);
    rc = inst == NULL || json_array_append_new(insts, inst) < 0 ? -1 : 0;
  }
  if (rc == 0) {
    rc = json_object_set_new(j, "instances", insts);
    insts = NULL;
  }
  json_decref(profile);
  json_decref(insts);
  return rc;
}

/* ------------------------------------------------------------------ from JSON */

static int instance_from_json(json_t *j, struct placer_state_instance *inst, size_t index, struct placer_error **err) {
  char where[64];
  snprintf(where, sizeof(where), "instances[%zu]", index);
  memset(inst, 0, sizeof(*inst));
  if (!json_is_object(j))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s is not an object", where);
  if (placer_state_json_dup(j, "name", &inst->name, where, err) < 0 ||
      placer_state_json_dup(j, "role", &inst->role, where, err) < 0 ||
      placer_state_json_dup(j, "group", &inst->group, where, err) < 0 ||
      placer_state_json_dup(j, "cpus", &inst->cpus, where, err) < 0 ||
      placer_state_json_dup(j, "mems", &inst->mems, where, err) < 0 ||
      placer_state_json_dup(j, "qmp_socket", &inst->qmp_socket, where, err) < 0)
    return -1;
  if (inst->name == NULL || inst->group == NULL || !placer_cgroup_group_is_valid(inst->group) || inst->cpus == NULL ||
      inst->mems == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL,
                            "%s: needs \"name\", a valid \"group\", \"cpus\", \"mems\"", where);
  if (placer_state_json_role_kind(json_string_value(json_object_get(j, "kind")), &inst->kind) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: unknown \"kind\"", where);
  inst->pinned = json_is_true(json_object_get(j, "pinned"));
  inst->pin_vcpus = json_is_true(json_object_get(j, "pin_vcpus"));
  inst->by_pid = json_is_true(json_object_get(j, "by_pid"));
  json_t *mem = json_object_get(j, "memory_bytes");
  inst->has_memory_limit = mem != NULL && !json_is_null(mem);
  uint64_t v;
  if (inst->has_memory_limit &&
      placer_state_json_uint(j, "memory_bytes", UINT64_MAX, false, &inst->memory_bytes, where, err) < 0)
    return -1;
  if (placer_state_json_uint(j, "cpu_weight", PLACER_CGROUP_WEIGHT_MAX, true, &v, where, err) < 0)
    return -1;
  inst->cpu_weight = (unsigned)v;
  if (placer_state_json_uint(j, "cpu_quota", PLACER_CGROUP_QUOTA_MAX_MCORES, true, &v, where, err) < 0)
    return -1;
  inst->cpu_quota = (unsigned)v;
  json_t *m = json_object_get(j, "match");
  const char *match_kind = json_string_value(json_object_get(m, "kind"));
  int mk = -1;
  for (int k = 0; match_kind && mk < 0 && k < PLACER_MATCH_N_KINDS; k++)
    if (strcmp(placer_match_kind_name((enum placer_match_kind)k), match_kind) == 0)
      mk = k;
  if (mk < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad \"match\"", where);
  inst->match.kind = (enum placer_match_kind)mk;
  if (placer_state_json_dup(m, "value", &inst->match.value, where, err) < 0)
    return -1;
  return placer_state_processes_from_json(json_object_get(j, "processes"), &inst->procs, &inst->n_procs, where, err);
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
    default: ok = false; break; /* no other record is state.json's */
    }
    if (!ok)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                              "journal[%zu]: a %s record of group '%s' that placer never writes for prefix '%s'", i,
                              placer_journal_op_name(e->op), e->group ? e->group : "(none)", s->prefix);
  }
  return 0;
}

static int groups_from_json(json_t *j, struct placer_state *s, struct placer_error **err) {
  json_t *profile = json_object_get(j, "profile");
  if (placer_state_json_dup(j, "backend", &s->backend, "state", err) < 0 ||
      placer_state_json_dup(j, "cgroup_mode", &s->cgroup_mode, "state", err) < 0 ||
      placer_state_json_dup(j, "cgroup_root", &s->cgroup_root, "state", err) < 0 ||
      placer_state_json_dup(j, "prefix", &s->prefix, "state", err) < 0 ||
      placer_state_json_dup(j, "applied_at", &s->applied_at, "state", err) < 0)
    return -1;
  if (json_is_object(profile) && (placer_state_json_dup(profile, "name", &s->profile_name, "profile", err) < 0 ||
                                  placer_state_json_dup(profile, "path", &s->profile_path, "profile", err) < 0 ||
                                  placer_state_json_dup(profile, "topology", &s->topology_source, "profile", err) < 0))
    return -1;
  if (s->prefix && !placer_cgroup_group_is_valid(s->prefix))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "bad \"prefix\" '%s'", s->prefix);
  json_t *insts = json_object_get(j, "instances");
  size_t n = json_array_size(insts);
  if (n > PLACER_STATE_MAX_INSTANCES)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%zu instances: more than a state holds (%d)", n,
                            PLACER_STATE_MAX_INSTANCES);
  if (n && (s->instances = calloc(n, sizeof(*s->instances))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++) {
    s->n_instances = i + 1;
    if (instance_from_json(json_array_get(insts, i), &s->instances[i], i, err) < 0)
      return -1;
  }
  return check_groups(s, err);
}

static const char *const op_names[PLACER_JOURNAL_N_OPS] = {
  [PLACER_JOURNAL_CREATE] = "create",
  [PLACER_JOURNAL_SET] = "set",
  [PLACER_JOURNAL_MOVE] = "move",
  [PLACER_JOURNAL_AFFINITY] = "affinity",
};

const struct placer_state_kind placer_state_groups = {
  .file = PLACER_STATE_FILE,
  .lock = PLACER_STATE_LOCK_FILE,
  .log = PLACER_STATE_LOG_FILE,
  .journaled = true,
  .op_names = op_names,
  .to_json = groups_to_json,
  .from_json = groups_from_json,
  .holds = groups_hold,
  .clear = groups_clear,
};
