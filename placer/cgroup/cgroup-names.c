/* Group names and paths (what a profile may make placer create), the names
 * of the values placer sets, and the cpu.weight <-> cpu.shares conversion.
 * Pure: no cgroup is touched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup-internal.h"

static const char *const setting_names[PLACER_SETTING_N] = { "cpus", "mems", "memory_limit", "cpu_weight",
                                                             "cpu_quota" };

const char *placer_setting_name(enum placer_setting s) {
  return (unsigned)s < PLACER_SETTING_N ? setting_names[s] : "?";
}

static bool name_byte_ok(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool placer_cgroup_name_is_valid(const char *name) {
  if (name == NULL || *name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
      strlen(name) > PLACER_CGROUP_NAME_MAX)
    return false;
  for (const char *p = name; *p; p++)
    if (!name_byte_ok(*p))
      return false;
  return true;
}

int placer_cgroup_sanitize_name(const char *name, char **out, struct placer_error **err) {
  if (name == NULL || *name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cgroup name '%s' is not allowed", name ? name : "");
  char *s = strdup(name);
  if (s == NULL)
    return placer_error_oom(err, NULL);
  for (char *p = s; *p; p++)
    if (!name_byte_ok(*p))
      *p = '_';
  *out = s;
  return 0;
}

bool placer_cgroup_group_is_valid(const char *group) {
  if (group == NULL || *group == '\0')
    return false;
  cleanup_free char *copy = strdup(group);
  if (copy == NULL)
    return false;
  /* strsep keeps empty components, so "a//b", "/a" and "a/" are refused. */
  char *rest = copy, *part;
  while ((part = strsep(&rest, "/")) != NULL)
    if (!placer_cgroup_name_is_valid(part))
      return false;
  return true;
}

int placer_cgroup_path_join(const char *parent, const char *name, char **out, struct placer_error **err) {
  if (name && strchr(name, '/'))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cgroup name '%s' must not contain '/'", name);
  if (!placer_cgroup_name_is_valid(name))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cgroup name '%s' is not allowed", name ? name : "");
  if (parent && *parent && !placer_cgroup_group_is_valid(parent))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "cgroup path '%s' is not allowed", parent);
  char *s = NULL;
  int ret = (parent && *parent) ? asprintf(&s, "%s/%s", parent, name) : asprintf(&s, "%s", name);
  if (ret < 0)
    return placer_error_oom(err, NULL);
  *out = s;
  return 0;
}

int cg_check_group(const char *group, struct placer_error **err) {
  if (!placer_cgroup_group_is_valid(group))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "cgroup path '%s' is not allowed (relative, components of [A-Za-z0-9._-])",
                            group ? group : "");
  return 0;
}

/* A path recorded from /proc/PID/cgroup names an existing group of any
 * spelling; only refuse what could climb out of the hierarchy. */
bool placer_cgroup_recorded_path_is_safe(const char *path) {
  if (path == NULL || path[0] == '/')
    return false;
  cleanup_free char *copy = strdup(path);
  if (copy == NULL)
    return false;
  char *rest = copy, *part;
  if (*copy == '\0')
    return true; /* the hierarchy's root */
  while ((part = strsep(&rest, "/")) != NULL)
    if (*part == '\0' || strcmp(part, ".") == 0 || strcmp(part, "..") == 0)
      return false;
  return true;
}

/* ------------------------------------------------------------------ shares <-> weight */

/* Linear, so that weights stay ratios on v1 as they are on v2: two groups
 * at weights 900 and 100 get 9216 and 1024 shares and split a CPU 9:1.
 * (runc's log-quadratic map also sends 100 to 1024, but 900 to ~15000:
 * a 15:1 split.)  Weight 100 is the default 1024 shares either way. */
unsigned placer_cgroup_shares_to_weight(uint64_t shares) {
  if (shares >= (uint64_t)PLACER_CGROUP_WEIGHT_MAX * 1024 / 100)
    return PLACER_CGROUP_WEIGHT_MAX;
  /* Nearest weight: exact for every shares value weight_to_shares writes. */
  uint64_t w = (shares * 100 + 512) / 1024;
  return w < PLACER_CGROUP_WEIGHT_MIN ? PLACER_CGROUP_WEIGHT_MIN : (unsigned)w;
}

uint64_t placer_cgroup_weight_to_shares(unsigned weight) {
  if (weight < PLACER_CGROUP_WEIGHT_MIN)
    weight = PLACER_CGROUP_WEIGHT_MIN;
  if (weight > PLACER_CGROUP_WEIGHT_MAX)
    weight = PLACER_CGROUP_WEIGHT_MAX;
  uint64_t s = (uint64_t)weight * 1024 / 100;
  return s < PLACER_CGROUP_SHARES_MIN ? PLACER_CGROUP_SHARES_MIN : s;
}