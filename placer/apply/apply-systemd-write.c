/* The systemd backend's writer (placement.h's ops): where the model's
 * values go through systemd, a unit's properties: read with `systemctl
 * show`, each one that differs written with `systemctl set-property
 * --runtime UNIT Property=value`.  Units are systemd's: this writer makes
 * none, moves no process into one (a process is where its unit put it) and
 * removes none (reset sets the properties back from the unit's record). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply-systemd-internal.h"
#include "lib/substitute.h"

int sd_show_values(const char *show, struct placer_group_values *v, struct placer_error **err) {
  memset(v, 0, sizeof(*v));
  cleanup_free char *max = placer_systemd_show_value(show, placer_state_unit_props[SD_MEMORY_MAX]);
  cleanup_free char *weight = placer_systemd_show_value(show, placer_state_unit_props[SD_CPU_WEIGHT]);
  v->cpus = placer_systemd_show_value(show, placer_state_unit_props[SD_ALLOWED_CPUS]);
  v->mems = placer_systemd_show_value(show, placer_state_unit_props[SD_ALLOWED_MEMORY_NODES]);
  if (v->cpus == NULL || v->mems == NULL) {
    placer_group_values_clear(v);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL,
                            "systemctl show says no AllowedCPUs or AllowedMemoryNodes");
  }
  /* "infinity" (or nothing shown) is no limit; "[not set]" no weight of the unit's own: 0, never a planned one */
  v->memory_limit = max && *max >= '0' && *max <= '9' ? strtoull(max, NULL, 10) : PLACER_CGROUP_UNLIMITED;
  v->cpu_weight = weight && *weight >= '0' && *weight <= '9' ? (unsigned)strtoul(weight, NULL, 10) : 0;
  return 0;
}

static bool unit_exists(void *ctx, const char *unit) {
  (void)ctx, (void)unit;
  return true; /* found from its processes, loaded (checked before any change) */
}

static int unit_create(void *ctx, const char *unit, const char *mark, bool *unmarked, struct placer_error **err) {
  (void)ctx, (void)mark, (void)unmarked;
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: systemd makes its units, placer does not", unit);
}

static int unit_read(void *ctx, const char *unit, unsigned settings, struct placer_group_values *now,
                     struct placer_error **err) {
  (void)settings;
  cleanup_free char *show = NULL;
  if (sd_show(ctx, unit, &show, err) < 0)
    return -1;
  return sd_show_values(show, now, err);
}

char **sd_setting_argv(const struct sd_ctx *c, const char *unit, enum placer_setting s,
                       const struct placer_group_values *want) {
  struct placer_systemd_props props = { 0 };
  switch (s) {
  case PLACER_SETTING_CPUS: props.allowed_cpus = want->cpus; break;
  case PLACER_SETTING_MEMS: props.allowed_memory_nodes = want->mems; break;
  case PLACER_SETTING_MEMORY_LIMIT:
    props.has_memory_max = true;
    props.memory_max_bytes = want->memory_limit;
    break;
  case PLACER_SETTING_CPU_WEIGHT: props.cpu_weight = want->cpu_weight; break;
  default: return NULL; /* a unit has no such property */
  }
  return placer_systemd_set_property_argv(c->systemctl, unit, true, &props);
}

static int unit_update(void *ctx, const char *unit, enum placer_setting s, const struct placer_group_values *want,
                       struct placer_error **err) {
  const struct sd_ctx *c = ctx;
  char **argv = sd_setting_argv(c, unit, s, want);
  if (argv == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s: set %s: out of memory, or no such property", unit,
                            placer_setting_name(s));
  int ret = sd_systemctl(c, argv, NULL, err);
  placer_systemd_argv_free(argv);
  return ret;
}

static int unit_attach(void *ctx, const char *unit, pid_t pid, struct placer_error **err) {
  (void)ctx;
  cleanup_free char *path = NULL, *holder = NULL;
  if (sd_pid_cgroup(pid, &path, err) < 0 || placer_systemd_unit_from_cgroup(path, &holder, NULL, err) < 0)
    return -1;
  if (strcmp(holder, unit) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL,
                            "pid %d runs in %s, not %s: systemd places whole units and placer moves no process",
                            (int)pid, holder, unit);
  return 0;
}

static int unit_destroy(void *ctx, const char *unit, struct placer_error **err) {
  (void)ctx;
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: systemd removes its units, placer does not", unit);
}

const struct placer_writer_ops sd_writer_ops = {
  .name = "systemd",
  .exists = unit_exists,
  .create = unit_create,
  .read = unit_read,
  .update = unit_update,
  .attach = unit_attach,
  .destroy = unit_destroy,
};
