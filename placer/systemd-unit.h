/* What placer needs to know about systemd units, as pure functions on text
 * (systemd-unit.c): the unit holding a process from its cgroup path, the
 * `systemctl set-property` command line, the text of placer's drop-in, the
 * values of `systemctl show`.  Running systemctl is apply-systemd.c. */
#ifndef PLACER_SYSTEMD_UNIT_H
#define PLACER_SYSTEMD_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/* The file name of placer's drop-in, in /etc/systemd/system/UNIT.d/. */
#define PLACER_SYSTEMD_DROPIN_NAME "50-placer.conf"
#define PLACER_SYSTEMD_ETC_DIR "/etc/systemd/system"
/* Where `systemctl set-property --runtime` keeps what it sets. */
#define PLACER_SYSTEMD_CONTROL_DIR "/run/systemd/system.control"

/* The settings placer puts on a unit.  A NULL string / a false has_ leaves
 * the property as it is. */
struct placer_systemd_props {
  const char *allowed_cpus;         /* AllowedCPUs= "0-3" */
  const char *allowed_memory_nodes; /* AllowedMemoryNodes= "0" */
  bool has_memory_max;
  uint64_t memory_max_bytes; /* MemoryMax= */
  unsigned cpu_weight;       /* CPUWeight=, 0: leave */
};

/* A unit name systemd would accept and that is safe in a path: 1..255 of
 * [A-Za-z0-9:_.\@-], a known suffix (.service, .scope, ...), no "/"
 * and not "." or "..". */
bool placer_systemd_unit_name_is_valid(const char *unit);

/* The unit that owns the cgroup PATH (the part after "0::" of
 * /proc/PID/cgroup): the first component that is not a .slice, when it is
 * a .service or a .scope ("/system.slice/ceph-osd@0.service/sub" ->
 * "ceph-osd@0.service"; deeper groups are the unit's delegated subtree).
 * *unit_cgroup (may be NULL) is the path up to and including the unit
 * ("/system.slice/ceph-osd@0.service").  Fails (EINVAL, exit code 3) with
 * a message naming PATH when no unit holds it (the root, a slice itself,
 * a group made by hand outside systemd) and for init.scope. */
int placer_systemd_unit_from_cgroup(const char *path, char **unit, char **unit_cgroup, struct placer_error **err);

/* The v2 line ("0::PATH") of the text of /proc/PID/cgroup: *path is PATH
 * (caller frees).  Fails when there is none (a v1-only host). */
int placer_systemd_cgroup2_path(const char *proc_cgroup_text, char **path, struct placer_error **err);

/* One "Name=value" per property PROPS sets, in a fixed order, into
 * ARGV[0..*n) (each allocated; caller frees them).  ARGV must have room for
 * 4.  Returns 0, or -1 on ENOMEM. */
int placer_systemd_prop_assignments(const struct placer_systemd_props *props, char **argv, size_t *n);

/* The command line `systemctl set-property [--runtime] UNIT Name=value...`
 * (NULL-terminated; free with placer_systemd_argv_free).  NULL on ENOMEM. */
char **placer_systemd_set_property_argv(const char *systemctl, const char *unit, bool runtime,
                                        const struct placer_systemd_props *props);
/* Setting back what `systemctl show` said before (the keys of
 * placer_systemd_show_keys, values as show prints them): "AllowedCPUs=",
 * "MemoryMax=infinity", "CPUWeight=" for "[not set]".  Only the properties
 * that PROPS sets are reset. */
char **placer_systemd_restore_argv(const char *systemctl, const char *unit, const struct placer_systemd_props *props,
                                   const char *allowed_cpus, const char *allowed_memory_nodes, const char *memory_max,
                                   const char *cpu_weight);
void placer_systemd_argv_free(char **argv);

/* The text of placer's drop-in for UNIT (a .service: [Service]; anything
 * else has no place for it and gives NULL with errno EINVAL), naming the
 * profile and instance in a comment.  Caller frees. */
char *placer_systemd_dropin_text(const char *unit, const char *profile, const char *instance,
                                 const struct placer_systemd_props *props);

/* The value of KEY in the text of `systemctl show -p A -p B ...` ("A=x\nB=y\n"):
 * a copy (caller frees), "" when KEY= is empty, NULL when KEY is absent or on
 * ENOMEM. */
char *placer_systemd_show_value(const char *show_text, const char *key);

/* The `systemctl show` properties placer reads, as "-p" arguments take them. */
extern const char *const placer_systemd_show_keys[];

#endif
