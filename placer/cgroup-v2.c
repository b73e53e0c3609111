/* cgroup v2: one unified hierarchy.  Controllers must be enabled in every
 * ancestor's cgroup.subtree_control, and only leaves hold processes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup-internal.h"

static const char *const needed_controllers[] = { "cpuset", "memory", "cpu" };

static int v2_init(struct placer_cgroup *cg, const char *mountinfo, struct placer_error **err) {
  struct placer_cgroup_hier *h = &cg->hier[0];
  if (cg_mountinfo_lookup(mountinfo, cg->root, NULL, &h->mount_point, &h->mount_root) < 0) {
    /* Not in our mount table (another mount namespace's view): assume
     * the root is the hierarchy's root. */
    h->mount_point = strdup(cg->root);
    h->mount_root = strdup("/");
    if (h->mount_point == NULL || h->mount_root == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  for (int c = 1; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    cg->hier[c].mount_point = strdup(h->mount_point);
    cg->hier[c].mount_root = strdup(h->mount_root);
    cg->hier[c].shared = true;
    if (cg->hier[c].mount_point == NULL || cg->hier[c].mount_root == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  }
  return 0;
}

static bool word_in(const char *list, const char *word) {
  size_t wlen = strlen(word);
  for (const char *p = list; (p = strstr(p, word)) != NULL; p += wlen)
    if ((p == list || p[-1] == ' ') && (p[wlen] == ' ' || p[wlen] == '\0'))
      return true;
  return false;
}

/* Let DIR's children use cpuset, memory and cpu. */
static int enable_controllers(const char *dir, struct placer_error **err) {
  cleanup_free char *enabled = NULL, *available = NULL;
  if (cg_read_file(dir, "cgroup.subtree_control", &enabled, err) < 0)
    return -1;
  char request[64] = "";
  for (size_t i = 0; i < sizeof(needed_controllers) / sizeof(needed_controllers[0]); i++) {
    if (word_in(enabled, needed_controllers[i]))
      continue;
    if (available == NULL && cg_read_file(dir, "cgroup.controllers", &available, err) < 0)
      return -1;
    if (!word_in(available, needed_controllers[i]))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOTSUP,
                              "controller '%s' is not available in %s (cgroup.controllers: '%s'); "
                              "is it bound to a cgroup v1 hierarchy?",
                              needed_controllers[i], dir, available);
    snprintf(request + strlen(request), sizeof(request) - strlen(request), "%s+%s", *request ? " " : "",
             needed_controllers[i]);
  }
  if (*request == '\0')
    return 0;
  if (cg_write_file(dir, "cgroup.subtree_control", request, err) < 0) {
    cg_error_hint(err, EBUSY, "a v2 group that holds processes cannot enable controllers for children");
    return -1;
  }
  return 0;
}

static int v2_create(struct placer_cgroup *cg, const char *group, struct placer_error **err) {
  const char *mount = cg->hier[0].mount_point;
  if (enable_controllers(mount, err) < 0)
    return -1;
  cleanup_free char *path = strdup(group);
  if (path == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  /* mkdir each level; every level but the leaf passes the controllers on.
   * A new v2 cpuset is usable at once (empty means "the parent's"). */
  for (char *slash = path;; slash++) {
    slash = strchr(slash, '/');
    if (slash)
      *slash = '\0';
    cleanup_free char *dir = cg_group_dir(mount, path);
    if (dir == NULL)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", dir);
    if (slash == NULL)
      break;
    if (enable_controllers(dir, err) < 0)
      return -1;
    *slash = '/';
  }
  return 0;
}

static int write_group(struct placer_cgroup *cg, const char *group, const char *file, const char *value,
                       struct placer_error **err) {
  cleanup_free char *dir = cg_group_dir(cg->hier[0].mount_point, group);
  if (dir == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  return cg_write_file(dir, file, value, err);
}

static int v2_set_cpus(struct placer_cgroup *cg, const char *group, const char *cpus, struct placer_error **err) {
  return write_group(cg, group, "cpuset.cpus", cpus, err);
}

static int v2_set_mems(struct placer_cgroup *cg, const char *group, const char *mems, struct placer_error **err) {
  return write_group(cg, group, "cpuset.mems", mems, err);
}

static int v2_set_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t bytes,
                               struct placer_error **err) {
  char value[32];
  if (bytes == PLACER_CGROUP_UNLIMITED)
    snprintf(value, sizeof(value), "max");
  else
    snprintf(value, sizeof(value), "%" PRIu64, bytes);
  return write_group(cg, group, "memory.max", value, err);
}

static int v2_set_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned weight,
                             struct placer_error **err) {
  char value[16];
  snprintf(value, sizeof(value), "%u", weight);
  return write_group(cg, group, "cpu.weight", value, err);
}

static int v2_attach_pid(struct placer_cgroup *cg, const char *group, pid_t pid, struct placer_error **err) {
  if (cg_attach_group(cg, group, pid, err) < 0) {
    cg_error_hint(err, EBUSY, "a v2 group with controllers enabled for children cannot hold processes");
    return -1;
  }
  return 0;
}

static int v2_attach_tid(struct placer_cgroup *cg, const char *group, pid_t tid, struct placer_error **err) {
  char value[24];
  snprintf(value, sizeof(value), "%d", (int)tid);
  if (write_group(cg, group, "cgroup.threads", value, err) < 0) {
    cg_error_hint(err, EOPNOTSUPP, "cgroup v2 moves single threads only inside a threaded subtree; move the process");
    return -1;
  }
  return 0;
}

static int v2_read_memory_limit(struct placer_cgroup *cg, const char *group, uint64_t *out,
                                struct placer_error **err) {
  cleanup_free char *dir = cg_group_dir(cg->hier[0].mount_point, group);
  cleanup_free char *text = NULL;
  if (dir == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  if (cg_read_file(dir, "memory.max", &text, err) < 0)
    return -1;
  if (strcmp(text, "max") == 0) {
    *out = PLACER_CGROUP_UNLIMITED;
    return 0;
  }
  return cg_read_u64(dir, "memory.max", out, err);
}

static int v2_read_cpu_weight(struct placer_cgroup *cg, const char *group, unsigned *out,
                              struct placer_error **err) {
  cleanup_free char *dir = cg_group_dir(cg->hier[0].mount_point, group);
  uint64_t w;
  if (dir == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  if (cg_read_u64(dir, "cpu.weight", &w, err) < 0)
    return -1;
  *out = (unsigned)w;
  return 0;
}

const struct placer_cgroup_ops placer_cgroup_ops_v2 = {
  .name = "v2",
  .init = v2_init,
  .create = v2_create,
  .set_cpus = v2_set_cpus,
  .set_mems = v2_set_mems,
  .set_memory_limit = v2_set_memory_limit,
  .set_cpu_weight = v2_set_cpu_weight,
  .attach_pid = v2_attach_pid,
  .attach_tid = v2_attach_tid,
  .read_memory_limit = v2_read_memory_limit,
  .read_cpu_weight = v2_read_cpu_weight,
};
