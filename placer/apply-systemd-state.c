/* The systemd backend's helpers: its state file (STATE_DIR/systemd.json),
 * running systemctl, reading a unit's group and checking every thread in
 * it (apply-systemd-internal.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "apply-systemd-internal.h"
#include "lib/cpulist.h"
#include "lib/fsfile.h"
#include "lib/statedir.h"
#include "lib/subprocess.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "proc.h"
#include "procmatch.h"
#include "vcpu.h"

const char *const sd_prop_names[SD_N_PROPS] = { "AllowedCPUs", "AllowedMemoryNodes", "MemoryMax", "CPUWeight" };

void sd_ctx_init(struct sd_ctx *c, const struct placer_apply_options *opt) {
  c->systemctl = "systemctl";
  c->etc_dir = PLACER_SYSTEMD_ETC_DIR;
  c->control_dir = PLACER_SYSTEMD_CONTROL_DIR;
  c->cgroup_root = opt && opt->cgroup_root && *opt->cgroup_root ? opt->cgroup_root : "/sys/fs/cgroup";
  c->timeout_ms = 120000;
}

void sd_instance_clear(struct sd_instance *si) {
  free(si->name);
  free(si->role);
  free(si->match);
  free(si->unit);
  free(si->cgroup);
  free(si->cpus);
  free(si->mems);
  free(si->qmp_socket);
  for (int p = 0; p < SD_N_PROPS; p++)
    free(si->previous[p]);
  free(si->dropin);
  free(si->procs);
  memset(si, 0, sizeof(*si));
}

void sd_state_clear(struct sd_state *s) {
  for (size_t i = 0; i < s->n; i++)
    sd_instance_clear(&s->v[i]);
  free(s->v);
  free(s->dir);
  free(s->boot_id);
  free(s->state_id);
  free(s->profile_name);
  free(s->profile_path);
  free(s->applied_at);
  memset(s, 0, sizeof(*s));
}

struct placer_systemd_props sd_instance_props(const struct sd_instance *si) {
  struct placer_systemd_props p = { .allowed_cpus = si->cpus,
                                    .allowed_memory_nodes = si->mems,
                                    .has_memory_max = si->has_memory_limit,
                                    .memory_max_bytes = si->memory_bytes,
                                    .cpu_weight = si->cpu_weight };
  return p;
}

/* ------------------------------------------------------------------ state file */

static json_t *str_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

static char *dup_str(json_t *obj, const char *key) {
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? strdup(s) : NULL;
}

static json_t *instance_json(const struct sd_instance *si) {
  json_t *j = json_object();
  json_object_set_new(j, "name", str_or_null(si->name));
  json_object_set_new(j, "role", str_or_null(si->role));
  json_object_set_new(j, "kind", json_string(placer_role_kind_name(si->kind)));
  json_object_set_new(j, "match", str_or_null(si->match));
  json_object_set_new(j, "unit", str_or_null(si->unit));
  json_object_set_new(j, "cgroup", str_or_null(si->cgroup));
  json_object_set_new(j, "cpus", str_or_null(si->cpus));
  json_object_set_new(j, "mems", str_or_null(si->mems));
  json_object_set_new(j, "memory_bytes",
                      si->has_memory_limit ? json_integer((json_int_t)si->memory_bytes) : json_null());
  json_object_set_new(j, "cpu_weight", json_integer(si->cpu_weight));
  json_object_set_new(j, "pin_vcpus", json_boolean(si->pin_vcpus));
  json_object_set_new(j, "qmp_socket", str_or_null(si->qmp_socket));
  json_t *prev = json_object(), *created = json_array();
  for (int p = 0; p < SD_N_PROPS; p++) {
    if (si->previous[p])
      json_object_set_new(prev, sd_prop_names[p], json_string(si->previous[p]));
    if (si->created[p])
      json_array_append_new(created, json_string(sd_prop_names[p]));
  }
  json_object_set_new(j, "previous", prev);
  json_object_set_new(j, "runtime_dropins_created", created);
  json_object_set_new(j, "dropin", str_or_null(si->dropin));
  json_object_set_new(j, "dropin_dir_created", json_boolean(si->dropin_dir_created));
  json_t *procs = json_array();
  for (size_t k = 0; k < si->n_procs; k++) {
    json_t *p = json_object();
    json_object_set_new(p, "pid", json_integer(si->procs[k].pid));
    json_object_set_new(p, "start_time", json_integer((json_int_t)si->procs[k].start_time));
    json_array_append_new(procs, p);
  }
  json_object_set_new(j, "processes", procs);
  return j;
}

static int kind_from_name(const char *name, enum placer_role_kind *out) {
  for (int k = PLACER_KIND_CEPH_OSD; k <= PLACER_KIND_GENERIC; k++)
    if (name && strcmp(placer_role_kind_name((enum placer_role_kind)k), name) == 0) {
      *out = (enum placer_role_kind)k;
      return 0;
    }
  return -1;
}

static int instance_from_json(json_t *j, struct sd_instance *si, const char *where, struct placer_error **err) {
  si->name = dup_str(j, "name");
  si->role = dup_str(j, "role");
  si->match = dup_str(j, "match");
  si->unit = dup_str(j, "unit");
  si->cgroup = dup_str(j, "cgroup");
  si->cpus = dup_str(j, "cpus");
  si->mems = dup_str(j, "mems");
  si->qmp_socket = dup_str(j, "qmp_socket");
  si->dropin = dup_str(j, "dropin");
  if (si->name == NULL || si->unit == NULL || si->cgroup == NULL || !placer_systemd_unit_name_is_valid(si->unit) ||
      kind_from_name(json_string_value(json_object_get(j, "kind")), &si->kind) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: an instance without a valid name, kind or unit",
                            where);
  json_t *mem = json_object_get(j, "memory_bytes");
  si->has_memory_limit = json_is_integer(mem);
  si->memory_bytes = si->has_memory_limit ? (uint64_t)json_integer_value(mem) : 0;
  si->cpu_weight = (unsigned)json_integer_value(json_object_get(j, "cpu_weight"));
  si->pin_vcpus = json_is_true(json_object_get(j, "pin_vcpus"));
  si->dropin_dir_created = json_is_true(json_object_get(j, "dropin_dir_created"));
  json_t *prev = json_object_get(j, "previous"), *created = json_object_get(j, "runtime_dropins_created");
  for (int p = 0; p < SD_N_PROPS; p++) {
    si->previous[p] = dup_str(prev, sd_prop_names[p]);
    size_t i;
    json_t *c;
    json_array_foreach(created, i, c) si->created[p] |=
        json_is_string(c) && strcmp(json_string_value(c), sd_prop_names[p]) == 0;
  }
  json_t *procs = json_object_get(j, "processes");
  si->n_procs = json_array_size(procs);
  si->procs = calloc(si->n_procs ? si->n_procs : 1, sizeof(*si->procs));
  if (si->procs == NULL)
    return placer_error_oom(err, NULL);
  for (size_t k = 0; k < si->n_procs; k++) {
    json_t *p = json_array_get(procs, k);
    si->procs[k].pid = (pid_t)json_integer_value(json_object_get(p, "pid"));
    si->procs[k].start_time = (uint64_t)json_integer_value(json_object_get(p, "start_time"));
  }
  return 0;
}

/* SI names only what placer writes: its drop-in at the one path placer
 * gives it, its unit's group as /proc names it (no "." or ".."). */
static int check_instance_paths(const struct sd_ctx *c, const struct sd_instance *si, const char *where,
                                struct placer_error **err) {
  if (si->cgroup[0] != '/' || !placer_cgroup_recorded_path_is_safe(si->cgroup + 1))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM, "%s: %s: unit group '%s' is not a group placer reads",
                            where, si->name, si->cgroup);
  if (si->n_procs > PLACER_STATE_MAX_THREADS)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s: %s: more than %d processes", where, si->name,
                            PLACER_STATE_MAX_THREADS);
  if (si->dropin == NULL)
    return 0;
  cleanup_free char *want = NULL;
  if (asprintf(&want, "%s/%s.d/%s", c->etc_dir, si->unit, PLACER_SYSTEMD_DROPIN_NAME) < 0)
    return placer_error_oom(err, NULL);
  if (strcmp(si->dropin, want) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s: %s: drop-in '%s' is not the one placer writes for %s (%s): nothing done", where,
                            si->name, si->dropin, si->unit, want);
  return 0;
}

int sd_state_load(const struct sd_ctx *c, const char *dir, struct sd_state *s, struct placer_error **err) {
  memset(s, 0, sizeof(*s));
  if ((s->dir = strdup(dir)) == NULL)
    return placer_error_oom(err, NULL);
  struct placer_statedir d;
  json_t *doc = NULL;
  int rc = placer_statedir_open(dir, false, &d, err);
  if (rc == 0)
    rc = placer_statedir_load(&d, SD_STATE_FILE, &doc, &s->boot_id, &s->state_id, err);
  placer_statedir_close(&d);
  if (rc < 0 || doc == NULL)
    return rc;
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, SD_STATE_FILE);
  s->boot_id = dup_str(doc, "boot_id");
  s->state_id = dup_str(doc, "state_id");
  if (json_array_size(json_object_get(doc, "instances")) > PLACER_STATE_MAX_INSTANCES) {
    json_decref(doc);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s: more than %d instances", path,
                            PLACER_STATE_MAX_INSTANCES);
  }
  s->profile_name = dup_str(doc, "profile");
  s->profile_path = dup_str(doc, "profile_path");
  s->applied_at = dup_str(doc, "applied_at");
  s->persist = json_is_true(json_object_get(doc, "persist"));
  json_t *insts = json_object_get(doc, "instances");
  s->v = calloc(json_array_size(insts) + 1, sizeof(*s->v));
  if (s->v == NULL) {
    json_decref(doc);
    return placer_error_oom(err, NULL);
  }
  for (size_t i = 0; i < json_array_size(insts); i++) {
    s->n++;
    if (instance_from_json(json_array_get(insts, i), &s->v[i], path, err) < 0 ||
        check_instance_paths(c, &s->v[i], path, err) < 0) {
      json_decref(doc);
      return -1;
    }
  }
  json_decref(doc);
  return 0;
}

int sd_state_save(const struct sd_state *s, struct placer_error **err) {
  if (s->n == 0) /* nothing left to undo: the file goes */
    return placer_state_file_write(s->dir, SD_STATE_FILE, NULL, NULL, err);
  json_t *doc = json_object();
  if (doc == NULL)
    return placer_error_oom(err, NULL);
  json_object_set_new(doc, "schema", json_integer(1));
  json_object_set_new(doc, "boot_id", str_or_null(s->boot_id));
  json_object_set_new(doc, "state_id", str_or_null(s->state_id));
  json_object_set_new(doc, "backend", json_string(placer_apply_backend_systemd.name));
  json_object_set_new(doc, "profile", str_or_null(s->profile_name));
  json_object_set_new(doc, "profile_path", str_or_null(s->profile_path));
  json_object_set_new(doc, "applied_at", str_or_null(s->applied_at));
  json_object_set_new(doc, "persist", json_boolean(s->persist));
  json_t *insts = json_array();
  for (size_t i = 0; i < s->n; i++)
    json_array_append_new(insts, instance_json(&s->v[i]));
  json_object_set_new(doc, "instances", insts);
  return placer_state_file_write(s->dir, SD_STATE_FILE, doc, NULL, err);
}

/* ------------------------------------------------------------------ systemctl */

int sd_systemctl(const struct sd_ctx *c, char **argv, char **out, struct placer_error **err) {
  return apply_systemctl(argv, c->timeout_ms, out, err);
}

int sd_show(const struct sd_ctx *c, const char *unit, char **text, struct placer_error **err) {
  char *argv[32] = { (char *)c->systemctl, "show", (char *)unit };
  size_t k = 3;
  for (size_t i = 0; placer_systemd_show_keys[i] && k + 2 < 31; i++) {
    argv[k++] = "-p";
    argv[k++] = (char *)placer_systemd_show_keys[i];
  }
  argv[k] = NULL;
  return sd_systemctl(c, argv, text, err);
}

int sd_daemon_reload(const struct sd_ctx *c, struct placer_error **err) {
  char *argv[] = { (char *)c->systemctl, "daemon-reload", NULL };
  return sd_systemctl(c, argv, NULL, err);
}

char *sd_control_file(const struct sd_ctx *c, const char *unit, enum sd_prop p) {
  char *path = NULL;
  if (asprintf(&path, "%s/%s.d/50-%s.conf", c->control_dir, unit, sd_prop_names[p]) < 0)
    return NULL;
  return path;
}

/* ------------------------------------------------------------------ groups */

int sd_pid_cgroup(pid_t pid, char **path, struct placer_error **err) {
  char file[64];
  snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(file, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", file);
  return placer_systemd_cgroup2_path(text, path, err);
}

static void add_pid(pid_t **v, size_t *n, size_t *cap, pid_t pid) {
  for (size_t i = 0; i < *n; i++)
    if ((*v)[i] == pid)
      return;
  if (*n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    pid_t *bigger = realloc(*v, ncap * sizeof(*bigger));
    if (bigger == NULL)
      return;
    *v = bigger;
    *cap = ncap;
  }
  (*v)[(*n)++] = pid;
}

static void walk_pids(const char *dir, int depth, pid_t **v, size_t *n, size_t *cap) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) == 0)
    for (char *p = text, *end; *p; p = end) {
      long pid = strtol(p, &end, 10);
      if (end == p)
        break;
      if (pid > 0)
        add_pid(v, n, cap, (pid_t)pid);
    }
  if (depth > 32)
    return;
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || de->d_name[0] == '.')
      continue;
    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    walk_pids(path, depth + 1, v, n, cap);
  }
  closedir(d);
}

int sd_cgroup_pids(const struct sd_ctx *c, const char *cgroup, pid_t **pids, size_t *n, struct placer_error **err) {
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s%s", c->cgroup_root, cgroup);
  struct stat st;
  if (stat(dir, &st) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "unit group %s", dir);
  pid_t *v = NULL;
  size_t count = 0, cap = 0;
  walk_pids(dir, 0, &v, &count, &cap);
  *pids = v;
  *n = count;
  return 0;
}

char *sd_cgroup_read(const struct sd_ctx *c, const char *cgroup, const char *file) {
  char path[4096];
  snprintf(path, sizeof(path), "%s%s/%s", c->cgroup_root, cgroup, file);
  char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return NULL;
  size_t len = strlen(text);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  return text;
}

/* ------------------------------------------------------------------ checks */

static void problem(sd_problem_fn report, void *ctx, size_t *count, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(sd_problem_fn report, void *ctx, size_t *count, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = apply_vformat(fmt, ap);
  va_end(ap);
  report(ctx, msg ? msg : "?");
  free(msg);
  (*count)++;
}

static void check_file(const struct sd_ctx *c, const struct sd_instance *si, const char *file, const char *want,
                       bool is_list, sd_problem_fn report, void *ctx, size_t *count) {
  cleanup_free char *have = sd_cgroup_read(c, si->cgroup, file);
  if (have == NULL) {
    problem(report, ctx, count, "%s: cannot read %s%s/%s", si->unit, c->cgroup_root, si->cgroup, file);
    return;
  }
  bool ok = is_list ? placer_cpulist_equal(have, want) : strcmp(have, want) == 0;
  if (!ok)
    problem(report, ctx, count, "%s: %s is %s, planned %s", si->unit, file, *have ? have : "empty", want);
}

size_t sd_check_unit(const struct sd_ctx *c, const struct sd_instance *si, sd_problem_fn report, void *ctx,
                     size_t *n_procs_out, size_t *n_threads_out) {
  size_t count = 0, n_threads = 0;
  if (si->cpus)
    check_file(c, si, "cpuset.cpus.effective", si->cpus, true, report, ctx, &count);
  if (si->mems)
    check_file(c, si, "cpuset.mems.effective", si->mems, true, report, ctx, &count);
  if (si->has_memory_limit) {
    char want[32];
    /* the kernel keeps the limit rounded down to a page */
    snprintf(want, sizeof(want), "%llu", (unsigned long long)(si->memory_bytes & ~(uint64_t)4095));
    check_file(c, si, "memory.max", want, false, report, ctx, &count);
  }
  if (si->cpu_weight) {
    char want[16];
    snprintf(want, sizeof(want), "%u", si->cpu_weight);
    check_file(c, si, "cpu.weight", want, false, report, ctx, &count);
  }
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *e = NULL;
  if (sd_cgroup_pids(c, si->cgroup, &pids, &n, &e) < 0) {
    problem(report, ctx, &count, "%s: %s", si->unit, e->msg);
    placer_error_free(e);
    n = 0;
  }
  hwloc_bitmap_t cpuset = hwloc_bitmap_alloc();
  if (cpuset && si->cpus)
    placer_cpulist_parse(si->cpus, cpuset);
  for (size_t i = 0; i < n; i++) {
    struct placer_vcpu *vcpus = NULL;
    size_t n_vcpus = 0;
    const char *source = NULL;
    if (si->pin_vcpus) {
      struct placer_error *verr = NULL;
      if (placer_vcpu_find(pids[i], si->qmp_socket, &vcpus, &n_vcpus, &source, &verr) < 0)
        placer_error_free(verr);
    }
    cleanup_free pid_t *tids = NULL;
    size_t n_tids = 0;
    if (placer_task_list(pids[i], &tids, &n_tids, &e) < 0) {
      placer_error_free(e); /* exited while we looked */
      e = NULL;
      free(vcpus);
      continue;
    }
    for (size_t t = 0; t < n_tids; t++) {
      cleanup_free char *tcpus = NULL, *tmems = NULL;
      char pin[16] = "";
      if (placer_task_read_allowed(pids[i], tids[t], &tcpus, &tmems, &e) < 0) {
        placer_error_free(e); /* a thread that ended */
        e = NULL;
        continue;
      }
      n_threads++;
      for (size_t k = 0; k < n_vcpus && cpuset; k++)
        if (vcpus[k].tid == tids[t])
          snprintf(pin, sizeof(pin), "%d", placer_cpulist_nth(cpuset, vcpus[k].cpu_index));
      const char *want = *pin ? pin : si->cpus;
      if (want && !placer_cpulist_equal(tcpus, want) && !placer_task_exiting(pids[i], tids[t])) {
        cleanup_free char *comm = placer_task_comm(pids[i], tids[t]);
        problem(report, ctx, &count, "thread %d (%s) of pid %d: Cpus_allowed_list %s, planned %s", (int)tids[t],
                comm ? comm : "?", (int)pids[i], tcpus, want);
      }
      if (si->mems && !placer_cpulist_equal(tmems, si->mems) && !placer_task_exiting(pids[i], tids[t])) {
        cleanup_free char *comm = placer_task_comm(pids[i], tids[t]);
        problem(report, ctx, &count, "thread %d (%s) of pid %d: Mems_allowed_list %s, planned %s", (int)tids[t],
                comm ? comm : "?", (int)pids[i], tmems, si->mems);
      }
    }
    free(vcpus);
  }
  hwloc_bitmap_free(cpuset);
  if (n_procs_out)
    *n_procs_out = n;
  if (n_threads_out)
    *n_threads_out = n_threads;
  return count;
}

int sd_pin_vcpus(const struct sd_ctx *c, const struct sd_instance *si, size_t *n_pinned, const char **source,
                 struct placer_error **err) {
  *n_pinned = 0;
  if (!si->pin_vcpus || si->cpus == NULL)
    return 0;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (sd_cgroup_pids(c, si->cgroup, &pids, &n, err) < 0)
    return -1;
  hwloc_bitmap_t cpuset = hwloc_bitmap_alloc();
  if (cpuset == NULL || placer_cpulist_parse(si->cpus, cpuset) < 0) {
    hwloc_bitmap_free(cpuset);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad cpus '%s'", si->name, si->cpus);
  }
  int ret = 0;
  for (size_t i = 0; i < n && ret == 0; i++) {
    struct placer_vcpu *vcpus = NULL;
    size_t n_vcpus = 0;
    struct placer_error *verr = NULL;
    if (placer_vcpu_find(pids[i], si->qmp_socket, &vcpus, &n_vcpus, source, &verr) < 0) {
      placer_error_free(verr); /* not a qemu */
      continue;
    }
    for (size_t k = 0; k < n_vcpus && ret == 0; k++) {
      char pu[16];
      snprintf(pu, sizeof(pu), "%d", placer_cpulist_nth(cpuset, vcpus[k].cpu_index));
      if (placer_task_set_affinity(vcpus[k].tid, pu, err) < 0)
        ret = placer_error_prefix(err, "%s: vCPU %u (thread %d)", si->name, vcpus[k].cpu_index, (int)vcpus[k].tid);
      else
        (*n_pinned)++;
    }
    free(vcpus);
  }
  hwloc_bitmap_free(cpuset);
  return ret;
}
