/* systemd.json, the systemd backend's kind of state file (state.h): each
 * instance's unit, the values placed on it and what `systemctl show` said
 * before (to set it back), the drop-ins placer made; only drop-ins placer
 * itself writes and unit groups as /proc names them are taken. */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systemd-unit.h"

const char *const placer_state_unit_props[PLACER_STATE_UNIT_PROPS] = { "AllowedCPUs", "AllowedMemoryNodes", "MemoryMax",
                                                                       "CPUWeight" };

void placer_state_unit_clear(struct placer_state_unit *u) {
  free(u->name);
  free(u->role);
  free(u->match);
  free(u->unit);
  free(u->cgroup);
  free(u->cpus);
  free(u->mems);
  free(u->qmp_socket);
  for (int p = 0; p < PLACER_STATE_UNIT_PROPS; p++)
    free(u->previous[p]);
  free(u->dropin);
  free(u->procs);
  memset(u, 0, sizeof(*u));
}

int placer_state_unit_copy(struct placer_state_unit *dst, const struct placer_state_unit *src) {
  *dst = *src;
  bool oom = false;
#define DUP(f) oom |= src->f && (dst->f = strdup(src->f)) == NULL
  DUP(name);
  DUP(role);
  DUP(match);
  DUP(unit);
  DUP(cgroup);
  DUP(cpus);
  DUP(mems);
  DUP(qmp_socket);
  DUP(dropin);
  for (int p = 0; p < PLACER_STATE_UNIT_PROPS; p++)
    DUP(previous[p]);
#undef DUP
  dst->procs = calloc(src->n_procs ? src->n_procs : 1, sizeof(*dst->procs));
  if (dst->procs)
    memcpy(dst->procs, src->procs, src->n_procs * sizeof(*dst->procs));
  return oom || dst->procs == NULL ? -1 : 0;
}

static void units_clear(struct placer_state *s) {
  for (size_t i = 0; i < s->n_units; i++)
    placer_state_unit_clear(&s->units[i]);
  free(s->units);
  s->units = NULL;
  s->n_units = 0;
  s->persist = false;
}

static bool units_hold(const struct placer_state *s) {
  return s->n_units > 0;
}

static json_t *unit_to_json(const struct placer_state_unit *u) {
  json_t *j =
      json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:b, s:o}", "name",
                placer_json_str_or_null(u->name), "role", placer_json_str_or_null(u->role), "kind",
                placer_role_kind_name(u->kind), "match", placer_json_str_or_null(u->match), "unit",
                placer_json_str_or_null(u->unit), "cgroup", placer_json_str_or_null(u->cgroup), "cpus",
                placer_json_str_or_null(u->cpus), "mems", placer_json_str_or_null(u->mems), "memory_bytes",
                u->has_memory_limit ? json_integer((json_int_t)u->memory_bytes) : json_null(), "cpu_weight",
                (int)u->cpu_weight, "pin_vcpus", u->pin_vcpus, "qmp_socket", placer_json_str_or_null(u->qmp_socket));
  json_t *prev = json_object(), *created = json_array();
  json_t *procs = placer_state_processes_to_json(u->procs, u->n_procs);
  bool oom = j == NULL || prev == NULL || created == NULL || procs == NULL;
  for (int p = 0; !oom && p < PLACER_STATE_UNIT_PROPS; p++)
    oom = (u->previous[p] && json_object_set_new(prev, placer_state_unit_props[p], json_string(u->previous[p])) < 0) ||
          (u->created[p] && json_array_append_new(created, json_string(placer_state_unit_props[p])) < 0);
  if (!oom && json_object_set_new(j, "previous", prev) == 0) {
    prev = NULL;
    oom = json_object_set_new(j, "runtime_dropins_created", created) < 0;
    created = NULL;
    oom = oom || json_object_set_new(j, "dropin", placer_json_str_or_null(u->dropin)) < 0 ||
          json_object_set_new(j, "dropin_dir_created", json_boolean(u->dropin_dir_created)) < 0 ||
          json_object_set_new(j, "processes", procs) < 0;
    procs = NULL;
  }
  json_decref(prev);
  json_decref(created);
  json_decref(procs);
  if (oom) {
    json_decref(j);
    return NULL;
  }
  return j;
}

static int units_to_json(const struct placer_state *s, json_t *j) {
  json_t *insts = json_array();
  if (insts == NULL || json_object_set_new(j, "backend", placer_json_str_or_null(s->backend)) < 0 ||
      json_object_set_new(j, "profile", placer_json_str_or_null(s->profile_name)) < 0 ||
      json_object_set_new(j, "profile_path", placer_json_str_or_null(s->profile_path)) < 0 ||
      json_object_set_new(j, "applied_at", placer_json_str_or_null(s->applied_at)) < 0 ||
      json_object_set_new(j, "persist", json_boolean(s->persist)) < 0) {
    json_decref(insts);
    return -1;
  }
  for (size_t i = 0; i < s->n_units; i++) {
    json_t *u = unit_to_json(&s->units[i]);
    if (u == NULL || json_array_append_new(insts, u) < 0) {
      json_decref(insts);
      return -1;
    }
  }
  return json_object_set_new(j, "instances", insts);
}

/* U names only what placer writes: its drop-in at the one path placer
 * gives it, its unit's group as /proc names it (no "." or ".."). */
static int check_paths(const struct placer_state_unit *u, struct placer_error **err) {
  if (u->cgroup[0] != '/' || !placer_cgroup_recorded_path_is_safe(u->cgroup + 1))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM, "%s: unit group '%s' is not a group placer reads", u->name,
                            u->cgroup);
  if (u->dropin == NULL)
    return 0;
  cleanup_free char *want = NULL;
  if (asprintf(&want, "%s/%s.d/%s", PLACER_SYSTEMD_ETC_DIR, u->unit, PLACER_SYSTEMD_DROPIN_NAME) < 0)
    return placer_error_oom(err, NULL);
  if (strcmp(u->dropin, want) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s: drop-in '%s' is not the one placer writes for %s (%s): nothing done", u->name,
                            u->dropin, u->unit, want);
  return 0;
}

static int unit_from_json(json_t *j, struct placer_state_unit *u, size_t index, struct placer_error **err) {
  char where[64];
  snprintf(where, sizeof(where), "instances[%zu]", index);
  uint64_t v;
  if (placer_state_json_dup(j, "name", &u->name, where, err) < 0 ||
      placer_state_json_dup(j, "role", &u->role, where, err) < 0 ||
      placer_state_json_dup(j, "match", &u->match, where, err) < 0 ||
      placer_state_json_dup(j, "unit", &u->unit, where, err) < 0 ||
      placer_state_json_dup(j, "cgroup", &u->cgroup, where, err) < 0 ||
      placer_state_json_dup(j, "cpus", &u->cpus, where, err) < 0 ||
      placer_state_json_dup(j, "mems", &u->mems, where, err) < 0 ||
      placer_state_json_dup(j, "qmp_socket", &u->qmp_socket, where, err) < 0 ||
      placer_state_json_dup(j, "dropin", &u->dropin, where, err) < 0)
    return -1;
  if (u->name == NULL || u->unit == NULL || u->cgroup == NULL || !placer_systemd_unit_name_is_valid(u->unit) ||
      placer_state_json_role_kind(json_string_value(json_object_get(j, "kind")), &u->kind) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: an instance without a valid name, kind or unit",
                            where);
  json_t *mem = json_object_get(j, "memory_bytes");
  u->has_memory_limit = mem != NULL && !json_is_null(mem);
  if (u->has_memory_limit &&
      placer_state_json_uint(j, "memory_bytes", UINT64_MAX, false, &u->memory_bytes, where, err) < 0)
    return -1;
  if (placer_state_json_uint(j, "cpu_weight", PLACER_CGROUP_WEIGHT_MAX, true, &v, where, err) < 0)
    return -1;
  u->cpu_weight = (unsigned)v;
  u->pin_vcpus = json_is_true(json_object_get(j, "pin_vcpus"));
  u->dropin_dir_created = json_is_true(json_object_get(j, "dropin_dir_created"));
  json_t *prev = json_object_get(j, "previous"), *created = json_object_get(j, "runtime_dropins_created");
  for (int p = 0; p < PLACER_STATE_UNIT_PROPS; p++) {
    if (placer_state_json_dup(prev, placer_state_unit_props[p], &u->previous[p], where, err) < 0)
      return -1;
    size_t i;
    json_t *c;
    json_array_foreach(created, i, c) u->created[p] |=
        json_is_string(c) && strcmp(json_string_value(c), placer_state_unit_props[p]) == 0;
  }
  if (placer_state_processes_from_json(json_object_get(j, "processes"), &u->procs, &u->n_procs, where, err) < 0)
    return -1;
  return check_paths(u, err);
}

static int units_from_json(json_t *j, struct placer_state *s, struct placer_error **err) {
  if (placer_state_json_dup(j, "backend", &s->backend, "state", err) < 0 ||
      placer_state_json_dup(j, "profile", &s->profile_name, "state", err) < 0 ||
      placer_state_json_dup(j, "profile_path", &s->profile_path, "state", err) < 0 ||
      placer_state_json_dup(j, "applied_at", &s->applied_at, "state", err) < 0)
    return -1;
  s->persist = json_is_true(json_object_get(j, "persist"));
  json_t *insts = json_object_get(j, "instances");
  size_t n = json_array_size(insts);
  if (n > PLACER_STATE_MAX_INSTANCES)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "more than %d instances", PLACER_STATE_MAX_INSTANCES);
  if ((s->units = calloc(n + 1, sizeof(*s->units))) == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++) {
    s->n_units = i + 1;
    if (unit_from_json(json_array_get(insts, i), &s->units[i], i, err) < 0)
      return -1;
  }
  return 0;
}

static const char *const op_names[PLACER_JOURNAL_N_OPS] = { NULL }; /* its undo is in each unit's record */

const struct placer_state_kind placer_state_units = {
  .file = PLACER_STATE_SYSTEMD_FILE,
  .lock = PLACER_STATE_LOCK_FILE, /* the cgroupfs backend's: one placement per state directory */
  .journaled = false,
  .op_names = op_names,
  .to_json = units_to_json,
  .from_json = units_from_json,
  .holds = units_hold,
  .clear = units_clear,
};
