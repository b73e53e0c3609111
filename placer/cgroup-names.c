/* Group names and paths (what a profile may make placer create), and the
 * cpu.weight <-> cpu.shares conversion.  Pure: no cgroup is touched. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-internal.h"

static bool name_byte_ok(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool placer_cgroup_name_is_valid(const char *name) {
  if (name == NULL || *name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
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
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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
bool cg_recorded_path_is_safe(const char *path) {
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

/* The log-quadratic map runc and crun adopted (kubernetes KEP 2254 follow-up):
 * it sends v1's range [2, 2^18] onto v2's [1, 10^4] and the defaults
 * 1024 onto 100, which the older linear map did not (1024 -> 39). */
static double weight_exponent(double shares) {
  double l = log2(shares);
  return (l * l + 125.0 * l) / 612.0 - 7.0 / 34.0;
}

unsigned placer_cgroup_shares_to_weight(uint64_t shares) {
  if (shares <= PLACER_CGROUP_SHARES_MIN)
    return PLACER_CGROUP_WEIGHT_MIN;
  if (shares >= PLACER_CGROUP_SHARES_MAX)
    return PLACER_CGROUP_WEIGHT_MAX;
  /* The epsilon keeps exact points exact: 10^2.0 computed as 100.00000000001
   * must give 100, not 101. */
  double w = ceil(pow(10.0, weight_exponent((double)shares)) - 1e-9);
  if (w < PLACER_CGROUP_WEIGHT_MIN)
    return PLACER_CGROUP_WEIGHT_MIN;
  if (w > PLACER_CGROUP_WEIGHT_MAX)
    return PLACER_CGROUP_WEIGHT_MAX;
  return (unsigned)w;
}

uint64_t placer_cgroup_weight_to_shares(unsigned weight) {
  if (weight <= PLACER_CGROUP_WEIGHT_MIN)
    return PLACER_CGROUP_SHARES_MIN;
  if (weight >= PLACER_CGROUP_WEIGHT_MAX)
    return PLACER_CGROUP_SHARES_MAX;
  /* Solve L^2 + 125 L - 612 (log10 W + 7/34) = 0 for L = log2(shares). */
  double c = 612.0 * (log10((double)weight) + 7.0 / 34.0);
  double l = (-125.0 + sqrt(125.0 * 125.0 + 4.0 * c)) / 2.0;
  uint64_t s = (uint64_t)llround(exp2(l));
  /* The map is many-to-one; take the shares nearest the exact inverse that
   * reads back as WEIGHT, so set-then-read is stable. */
  while (s > PLACER_CGROUP_SHARES_MIN && placer_cgroup_shares_to_weight(s) > weight)
    s--;
  while (s < PLACER_CGROUP_SHARES_MAX && placer_cgroup_shares_to_weight(s) < weight)
    s++;
  return s;
}
