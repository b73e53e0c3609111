/* One profile setting changed after loading, "ROLE.KEY=VALUE": the variants a
 * bench sweep makes from one profile, and `placer exec/plan --set`. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/units.h"
#include "profile/profile-irq.h"
#include "profile/profile.h"

static int parse_count(const char *s, unsigned long max, unsigned *out) {
  char *end;
  errno = 0;
  if (*s < '0' || *s > '9')
    return -1;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || *end || v == 0 || v > max)
    return -1;
  *out = (unsigned)v;
  return 0;
}

static bool valid_name(const char *s) {
  if (*s == '\0' || strlen(s) > 63 || *s == '-' || *s == '_')
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
      return false;
  return true;
}

int placer_profile_set(struct placer_profile *profile, const char *assignment, struct placer_error **err) {
  const char *eq = strchr(assignment, '=');
  const char *dot = strchr(assignment, '.');
  if (eq == NULL || dot == NULL || dot > eq || dot == assignment)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': expected ROLE.KEY=VALUE (osd.cpu.quota=0.5)",
                            assignment);
  char role_name[64];
  size_t rlen = (size_t)(dot - assignment);
  if (rlen >= sizeof(role_name))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': role name too long", assignment);
  memcpy(role_name, assignment, rlen);
  role_name[rlen] = '\0';
  char key[32];
  size_t klen = (size_t)(eq - dot - 1);
  if (klen >= sizeof(key))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': unknown key", assignment);
  memcpy(key, dot + 1, klen);
  key[klen] = '\0';
  const char *value = eq + 1;
  if (strcmp(role_name, "irqs") == 0 && placer_profile_role(profile, role_name) == NULL)
    return placer_profile_set_irq(profile, assignment, key, value, err);
  struct placer_role_spec *role = (struct placer_role_spec *)placer_profile_role(profile, role_name);
  if (role == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': profile '%s' has no role '%s'", assignment,
                            profile->name, role_name);
  struct placer_cpu_spec *cpu = &role->cpu;
  bool none = strcmp(value, "none") == 0;
  if (strcmp(key, "cpu.quota") == 0) {
    unsigned m = 0;
    if (!none && placer_parse_quota(value, &m) < 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "--set '%s': expected cores 0.01..65536 with at most 3 decimals, or none", assignment);
    cpu->quota = m;
  } else if (strcmp(key, "cpu.weight") == 0) {
    unsigned w = 0;
    if (!none && parse_count(value, 10000, &w) < 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': expected a weight 1..10000, or none",
                              assignment);
    cpu->weight = w;
  } else if (strcmp(key, "cpu.cores") == 0 || strcmp(key, "cpu.threads") == 0) {
    unsigned n;
    if (parse_count(value, 65536, &n) < 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': expected a count 1..65536", assignment);
    bool cores = strcmp(key, "cpu.cores") == 0;
    cpu->cores = cores ? n : 0;
    cpu->threads = cores ? 0 : n;
    cpu->whole_cores = cores;
    role->has_cpu = true;
  } else if (strcmp(key, "count") == 0) {
    /* a fixed count only: fill, per_device and per_numa size themselves */
    unsigned n;
    if (role->count_mode != PLACER_COUNT_FIXED)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "--set '%s': role '%s' has no fixed count (count: fill, per_device or per_numa)",
                              assignment, role_name);
    if (parse_count(value, PLACER_PROFILE_MAX_COUNT, &n) < 0)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': expected a count 1..%d", assignment,
                              PLACER_PROFILE_MAX_COUNT);
    role->count = n;
  } else if (strcmp(key, "cpu.pool") == 0) {
    if (!valid_name(value))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': '%s' is not a valid pool name", assignment,
                              value);
    char *pool = strdup(value);
    if (pool == NULL)
      return placer_error_oom(err, NULL);
    free(cpu->pool);
    cpu->pool = pool;
    cpu->exclusive = false;
  } else if (strcmp(key, "cpu.align") == 0) {
    /* an A/B of cache alignment: the same profile with align numa */
    static const char *const names[] = { [PLACER_ALIGN_AUTO] = "auto",
                                         [PLACER_ALIGN_CACHE] = "cache",
                                         [PLACER_ALIGN_NUMA] = "numa",
                                         [PLACER_ALIGN_NONE] = "none" };
    size_t i = 0;
    while (i < N_OF(names) && strcmp(names[i], value) != 0)
      i++;
    if (i == N_OF(names))
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': expected auto, cache, numa or none",
                              assignment);
    if (i == PLACER_ALIGN_NONE && cpu->spread == PLACER_SPREAD_NUMA)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "--set '%s': role '%s' spreads over NUMA nodes (spread: numa), which needs alignment",
                              assignment, role_name);
    cpu->align = (enum placer_align)i;
  } else {
    return placer_error_set(
        err, PLACER_EXIT_USAGE, EINVAL,
        "--set '%s': unknown key '%s' (count, cpu.quota, cpu.weight, cpu.cores, cpu.threads, cpu.pool, cpu.align)",
        assignment, key);
  }
  return 0;
}
