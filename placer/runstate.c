/* Records of what `placer run` started; see runstate.h. */
#include "runstate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "state.h"
#include "lib/fsfile.h"
#include "lib/statedir.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "lib/json-str.h"

int placer_runstate_dir(const char *state_dir, const char *profile, char **out, struct placer_error **err) {
  cleanup_free char *name = NULL;
  if (placer_cgroup_sanitize_name(profile, &name, err) < 0)
    return placer_error_prefix(err, "profile name");
  if (asprintf(out, "%s/" PLACER_STATE_RUN_DIR "/%s", state_dir, name) < 0)
    return placer_error_oom(err, "state dir");
  return 0;
}

int placer_runstate_lock(const char *state_dir, bool create, int *fd, char *mark, char **made,
                         struct placer_error **err) {
  *fd = -1;
  *made = NULL;
  mark[0] = '\0';
  cleanup_free char *dir = NULL;
  if (asprintf(&dir, "%s/" PLACER_STATE_RUN_DIR, state_dir) < 0)
    return placer_error_oom(err, "lock");
  struct placer_statedir top, run;
  int rc = placer_statedir_open(state_dir, create, &top, err);
  if (rc == 0)
    snprintf(mark, PLACER_STATEDIR_ID_MAX, "%s", top.id);
  if (rc == 0 && (create || top.fd >= 0))
    rc = placer_statedir_open(dir, create, &run, err);
  else
    memset(&run, 0, sizeof(run)), run.fd = -1;
  if (rc == 0 && run.fd >= 0) {
    rc = placer_statedir_lock(&run, "lock", true, fd, made, err);
    if (rc == 1)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EWOULDBLOCK, "another placer run/stop holds %s/lock", dir);
  }
  placer_statedir_close(&run);
  placer_statedir_close(&top);
  return rc;
}

void placer_runstate_unlock(int fd, char *made) {
  placer_statedir_unlock(fd, made);
  free(made);
}

void placer_runstate_tidy(const char *state_dir) {
  cleanup_free char *dir = NULL;
  if (asprintf(&dir, "%s/" PLACER_STATE_RUN_DIR, state_dir) < 0)
    return;
  static const char *const locks[] = { "lock", NULL };
  placer_statedir_tidy(dir, NULL, NULL, locks); /* only when no profile's directory is left in it */
  placer_state_dir_tidy(state_dir);
}

json_t *placer_launch_record_to_json(const struct placer_launch_record *rec) {
  json_t *argv = json_array();
  for (size_t i = 0; rec->argv && rec->argv[i]; i++)
    json_array_append_new(argv, json_string(rec->argv[i]));
  json_t *j = json_pack(
      "{s:i, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:i, s:o}", "schema",
      PLACER_RUNSTATE_SCHEMA, "profile", placer_json_str_or_null(rec->profile), "instance",
      placer_json_str_or_null(rec->instance), "role", placer_json_str_or_null(rec->role), "backend",
      placer_json_str_or_null(rec->backend), "pid", (json_int_t)rec->pid, "start_time", (json_int_t)rec->start_time,
      "group", placer_json_str_or_null(rec->group), "container_name", placer_json_str_or_null(rec->container_name),
      "container_id", placer_json_str_or_null(rec->container_id), "container_cgroup",
      placer_json_str_or_null(rec->container_cgroup), "log", placer_json_str_or_null(rec->log_path), "accel",
      placer_json_str_or_null(rec->accel), "argv", argv, "stop_timeout", (int)rec->stop_timeout_s, "started_at",
      (json_int_t)rec->started_at, "seq", (int)rec->seq, "joined_by", placer_json_str_or_null(rec->joined_by));
  if (j && rec->unmarked) /* only then: records of older placers read the same */
    json_object_set_new(j, "unmarked", json_true());
  return j;
}

static int get_str(json_t *obj, const char *key, bool required, char **out, struct placer_error **err) {
  json_t *v = json_object_get(obj, key);
  if (v == NULL || json_is_null(v)) {
    if (required)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: missing '%s'", key);
    *out = NULL;
    return 0;
  }
  if (!json_is_string(v))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: '%s' is not a string", key);
  *out = strdup(json_string_value(v));
  return *out ? 0 : placer_error_oom(err, "run record");
}

static int get_int(json_t *obj, const char *key, json_int_t min, json_int_t max, json_int_t *out,
                   struct placer_error **err) {
  json_t *v = json_object_get(obj, key);
  if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: '%s' is not an integer in %lld..%lld", key,
                            (long long)min, (long long)max);
  *out = json_integer_value(v);
  return 0;
}

int placer_launch_record_from_json(json_t *json, struct placer_launch_record *out, struct placer_error **err) {
  struct placer_launch_record rec = { 0 };
  json_int_t schema = 0, pid = 0, start = 0, timeout = 0, started = 0, seq = 0;
  if (!json_is_object(json))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: not a JSON object");
  if (get_int(json, "schema", 0, INT_MAX, &schema, err) < 0)
    return -1;
  if (schema != PLACER_RUNSTATE_SCHEMA)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: schema %lld (this placer reads %d)",
                            (long long)schema, PLACER_RUNSTATE_SCHEMA);
  if (get_str(json, "profile", false, &rec.profile, err) < 0 ||
      get_str(json, "instance", true, &rec.instance, err) < 0 || get_str(json, "role", false, &rec.role, err) < 0 ||
      get_str(json, "backend", true, &rec.backend, err) < 0 || get_int(json, "pid", 0, INT_MAX, &pid, err) < 0 ||
      get_int(json, "start_time", 0, LLONG_MAX, &start, err) < 0 ||
      get_str(json, "group", false, &rec.group, err) < 0 ||
      get_str(json, "container_name", false, &rec.container_name, err) < 0 ||
      get_str(json, "container_id", false, &rec.container_id, err) < 0 ||
      get_str(json, "container_cgroup", false, &rec.container_cgroup, err) < 0 ||
      get_str(json, "log", false, &rec.log_path, err) < 0 || get_str(json, "accel", false, &rec.accel, err) < 0 ||
      get_str(json, "joined_by", false, &rec.joined_by, err) < 0 ||
      get_int(json, "stop_timeout", 0, PLACER_RUN_STOP_TIMEOUT_MAX, &timeout, err) < 0 ||
      get_int(json, "started_at", 0, LLONG_MAX, &started, err) < 0 || get_int(json, "seq", 0, INT_MAX, &seq, err) < 0)
    goto fail;
  if (rec.group && !placer_cgroup_group_is_valid(rec.group)) {
    placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: bad group '%s'", rec.group);
    goto fail;
  }
  json_t *argv = json_object_get(json, "argv");
  if (!json_is_array(argv)) {
    placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: 'argv' is not a list");
    goto fail;
  }
  size_t i;
  json_t *item;
  json_array_foreach(argv, i, item) {
    if (!json_is_string(item) || placer_argv_push(&rec.argv, json_string_value(item)) < 0) {
      placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: bad 'argv'");
      goto fail;
    }
  }
  rec.unmarked = json_is_true(json_object_get(json, "unmarked"));
  rec.pid = (pid_t)pid;
  rec.start_time = (unsigned long long)start;
  rec.stop_timeout_s = (unsigned)timeout;
  rec.started_at = (long long)started;
  rec.seq = (unsigned)seq;
  *out = rec;
  return 0;
fail:
  placer_launch_record_clear(&rec);
  return -1;
}

static char *record_path(const char *dir, const char *instance) {
  char *path = NULL;
  if (asprintf(&path, "%s/%s.json", dir, instance) < 0)
    return NULL;
  return path;
}

int placer_runstate_save(const char *dir, const struct placer_launch_record *rec, struct placer_error **err) {
  if (!placer_cgroup_name_is_valid(rec->instance))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "run record: bad instance name '%s'", rec->instance);
  struct placer_statedir d;
  if (placer_statedir_open(dir, true, &d, err) < 0) {
    placer_statedir_close(&d);
    return -1;
  }
  cleanup_free char *name = NULL;
  json_t *json = placer_launch_record_to_json(rec);
  if (json == NULL || asprintf(&name, "%s.json", rec->instance) < 0) {
    json_decref(json);
    placer_statedir_close(&d);
    return placer_error_oom(err, "save run record");
  }
  /* the boot and directory it is written for: a copy elsewhere is not a record */
  json_object_set_new(json, "boot_id", json_string(placer_boot_id()));
  json_object_set_new(json, "state_id", json_string(d.id));
  placer_statedir_close(&d);
  cleanup_free char *text = json_dumps(json, JSON_INDENT(2) | JSON_SORT_KEYS);
  json_decref(json);
  if (text == NULL)
    return placer_error_oom(err, "save run record");
  return placer_file_replace(dir, name, text, err);
}

int placer_runstate_load(const char *dir, const char *instance, struct placer_launch_record *rec, bool *found,
                         struct placer_error **err) {
  *found = false;
  if (!placer_cgroup_name_is_valid(instance))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "bad instance name '%s'", instance);
  cleanup_free char *name = NULL;
  if (asprintf(&name, "%s.json", instance) < 0)
    return placer_error_oom(err, "load run record");
  struct placer_statedir d;
  json_t *json = NULL;
  cleanup_free char *boot = NULL, *state = NULL;
  int rc = placer_statedir_open(dir, false, &d, err);
  if (rc == 0)
    rc = placer_statedir_load(&d, name, &json, &boot, &state, err);
  placer_statedir_close(&d);
  if (rc < 0 || json == NULL)
    return rc;
  if (placer_launch_record_from_json(json, rec, err) < 0)
    rc = placer_error_prefix(err, "%s/%s", dir, name);
  json_decref(json);
  if (rc < 0)
    return -1;
  if (strcmp(rec->instance, instance) != 0) {
    placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM, "%s/%s: the record of instance '%s', not '%s': nothing done", dir,
                     name, rec->instance, instance);
    placer_launch_record_clear(rec);
    return -1;
  }
  *found = true;
  return 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int placer_runstate_list(const char *dir, struct placer_launch_record **recs, size_t *n, struct placer_error **err) {
  *recs = NULL;
  *n = 0;
  struct placer_statedir sd;
  int rc = placer_statedir_open(dir, false, &sd, err);
  placer_statedir_close(&sd);
  if (rc < 0)
    return -1;
  DIR *d = opendir(dir);
  if (d == NULL)
    return errno == ENOENT ? 0 : placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open %s", dir);
  char **names = NULL;
  struct dirent *de;
  size_t n_names = 0;
  while ((de = readdir(d)) != NULL) {
    size_t len = strlen(de->d_name);
    if (len > 5 && strcmp(de->d_name + len - 5, ".json") == 0 && ++n_names > PLACER_RUNSTATE_MAX_RECORDS) {
      closedir(d);
      placer_argv_free(names);
      return placer_error_set(err, PLACER_EXIT_USAGE, E2BIG, "%s: more than %d records", dir,
                              PLACER_RUNSTATE_MAX_RECORDS);
    }
    if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0)
      continue;
    cleanup_free char *name = strndup(de->d_name, len - 5);
    if (name == NULL || placer_argv_push(&names, name) < 0) {
      closedir(d);
      placer_argv_free(names);
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "list %s", dir);
    }
  }
  closedir(d);
  size_t count = placer_argv_len(names);
  if (count == 0) {
    placer_argv_free(names);
    return 0;
  }
  qsort(names, count, sizeof(char *), compare_names);
  struct placer_launch_record *out = calloc(count, sizeof(*out));
  if (out == NULL) {
    placer_argv_free(names);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "list %s", dir);
  }
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    bool found;
    if (placer_runstate_load(dir, names[i], &out[k], &found, err) < 0) {
      placer_argv_free(names);
      placer_runstate_free_list(out, k);
      return -1;
    }
    if (found)
      k++;
  }
  placer_argv_free(names);
  *recs = out;
  *n = k;
  return 0;
}

int placer_runstate_remove(const char *dir, const char *instance, bool keep_log, struct placer_error **err) {
  cleanup_free char *path = record_path(dir, instance);
  cleanup_free char *log = NULL, *console = NULL;
  if (path == NULL || asprintf(&log, "%s/%s.log", dir, instance) < 0 ||
      asprintf(&console, "%s/%s.console", dir, instance) < 0)
    return placer_error_oom(err, "remove run record");
  if (unlink(path) < 0 && errno != ENOENT)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", path);
  if (!keep_log) {
    unlink(log);
    unlink(console);
  }
  rmdir(dir); /* the profile's directory, once its last record (and log) is gone */
  return 0;
}

void placer_runstate_free_list(struct placer_launch_record *recs, size_t n) {
  for (size_t i = 0; i < n; i++)
    placer_launch_record_clear(&recs[i]);
  free(recs);
}
