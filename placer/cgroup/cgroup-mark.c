/* placer's mark on the groups it creates: an extended attribute in the
 * "trusted" namespace (only CAP_SYS_ADMIN may set it, and nobody else even
 * sees it) naming the state directory whose journal records the group.
 * reset and stop remove, empty or signal only groups that carry their own
 * state's mark, so a crafted or copied state file cannot make them touch a
 * group placer never made.  docs/apply.md, "What placer trusts". */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "cgroup/cgroup-internal.h"
#include "lib/path-levels.h"

#define MARK_XATTR "trusted.placer.state"

/* Does this error of setxattr/getxattr mean "no xattrs here" (an old
 * kernel's cgroupfs, no CAP_SYS_ADMIN)? */
static bool unsupported(int e) {
  return e == EOPNOTSUPP || e == ENOTSUP || e == EPERM || e == EACCES;
}

/* The hierarchies placer makes its groups in (cpuacct where it is one of
 * its own), each once. */
static bool placer_hierarchy(const struct placer_cgroup *cg, int c, const char *group) {
  if (cg->hier[c].shared)
    return false;
  return c != PLACER_CGROUP_CPUACCT || placer_cgroup_accounts(cg, group);
}

int placer_cgroup_mark(struct placer_cgroup *cg, const char *group, const char *mark, struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (!placer_hierarchy(cg, c, group))
      continue;
    cleanup_free char *dir = placer_cgroup_dir(cg, (enum placer_cgroup_controller)c, group);
    if (dir == NULL)
      return placer_error_oom(err, NULL);
    if (setxattr(dir, MARK_XATTR, mark, strlen(mark), 0) < 0) {
      if (unsupported(errno))
        return 1; /* unmarked: its creator records so */
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mark %s", dir);
    }
  }
  return 0;
}

enum placer_cgroup_mark_state placer_cgroup_mark_check(const struct placer_cgroup *cg, const char *group,
                                                       const char *mark) {
  if (!placer_cgroup_group_is_valid(group))
    return PLACER_CGROUP_MARK_FOREIGN;
  bool seen = false, unknown = false;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (!placer_hierarchy(cg, c, group))
      continue;
    cleanup_free char *dir = placer_cgroup_dir(cg, (enum placer_cgroup_controller)c, group);
    struct stat st;
    if (dir == NULL || stat(dir, &st) < 0)
      continue; /* not in this hierarchy: nothing of it to remove there */
    seen = true;
    char value[128];
    ssize_t n = getxattr(dir, MARK_XATTR, value, sizeof(value) - 1);
    if (n < 0) {
      if (unsupported(errno)) {
        unknown = true;
        continue;
      }
      return PLACER_CGROUP_MARK_FOREIGN; /* ENODATA: nobody marked it */
    }
    value[n] = '\0';
    if (strcmp(value, mark) != 0)
      return PLACER_CGROUP_MARK_FOREIGN;
  }
  if (!seen)
    return PLACER_CGROUP_MARK_GONE;
  return unknown ? PLACER_CGROUP_MARK_UNKNOWN : PLACER_CGROUP_MARK_OURS;
}

struct marked_levels {
  struct placer_cgroup *cg;
  const char *mark;
  bool *missing; /* per level: not there before this call made it */
  int unmarked;
};

static int note_missing_level(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  (void)err;
  struct marked_levels *m = ctx;
  m->missing[level->index] = !cg_group_dir_exists(m->cg, PLACER_CGROUP_CPUSET, level->path);
  return 0;
}

static int mark_made_level(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  struct marked_levels *m = ctx;
  int rc = m->missing[level->index] ? placer_cgroup_mark(m->cg, level->path, m->mark, err) : 0;
  if (rc < 0)
    return -1;
  m->unmarked |= rc;
  return 0;
}

int placer_cgroup_create_marked(struct placer_cgroup *cg, const char *group, const char *mark,
                                struct placer_error **err) {
  if (cg_check_group(group, err) < 0)
    return -1;
  if (mark == NULL)
    return placer_cgroup_create(cg, group, err);
  /* the levels missing now are the ones this call makes: only those get the mark */
  size_t n_levels = 1;
  for (const char *p = group; *p; p++)
    n_levels += *p == '/';
  cleanup_free bool *missing = calloc(n_levels, sizeof(*missing));
  if (missing == NULL)
    return placer_error_oom(err, NULL);
  struct marked_levels m = { .cg = cg, .mark = mark, .missing = missing };
  if (placer_path_each_level(group, note_missing_level, &m, err) < 0 || placer_cgroup_create(cg, group, err) < 0 ||
      placer_path_each_level(group, mark_made_level, &m, err) < 0)
    return -1;
  return m.unmarked;
}

/* Does DIR or a directory below it (DEPTH levels at most) carry a mark
 * other than MARK? */
static bool other_mark_below(const char *dir, const char *mark, int depth) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return false;
  bool found = false;
  struct dirent *de;
  while (!found && (de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    cleanup_free char *sub = cg_group_dir(dir, de->d_name);
    if (sub == NULL)
      break;
    char value[128];
    ssize_t n = getxattr(sub, MARK_XATTR, value, sizeof(value) - 1);
    if (n >= 0) {
      value[n] = '\0';
      found = strcmp(value, mark) != 0;
    }
    if (!found && depth > 0)
      found = other_mark_below(sub, mark, depth - 1);
  }
  closedir(d);
  return found;
}

bool placer_cgroup_subtree_has_other_mark(const struct placer_cgroup *cg, const char *group, const char *mark) {
  cleanup_free char *dir = placer_cgroup_dir(cg, PLACER_CGROUP_CPUSET, group);
  return dir && mark && other_mark_below(dir, mark, 16);
}
