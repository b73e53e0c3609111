/* CPU time a group used: v1 cpuacct.usage (ns), v2 cpu.stat usage_usec.
 * The parsers are pure and are the ops table's parse_cpu_usage. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup-internal.h"
#include "lib/units.h"

int placer_cgroup_parse_cpuacct_usage(const char *text, uint64_t *out_ns, struct placer_error **err) {
  const char *end;
  uint64_t v;
  if (placer_parse_u64_prefix(text, &end, &v) < 0 || strspn(end, " \t\n") != strlen(end)) {
    /* the first line only: an error is one line */
    int shown = (int)strcspn(text, "\n");
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "cpuacct.usage: not a number: \"%.*s\"",
                            shown < 40 ? shown : 40, text);
  }
  *out_ns = v;
  return 0;
}

/* The value of "KEY value" in a key-per-line file (cpu.stat), or -1. */
static int keyed_u64(const char *text, const char *key, uint64_t *out) {
  size_t klen = strlen(key);
  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *end;
    if (strncmp(line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == '\t'))
      return placer_parse_u64_prefix(line + klen, &end, out);
  }
  return -1;
}

int placer_cgroup_parse_cpu_stat(const char *text, uint64_t *out_ns, struct placer_error **err) {
  uint64_t usec;
  if (keyed_u64(text, "usage_usec", &usec) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "cpu.stat: no \"usage_usec\" line");
  if (usec > UINT64_MAX / 1000)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "cpu.stat: usage_usec %" PRIu64 " out of range", usec);
  *out_ns = usec * 1000;
  return 0;
}

int placer_cgroup_read_cpu_usage_ns(const struct placer_cgroup *cg, const char *group, uint64_t *out,
                                    struct placer_error **err) {
  const char *file = cg->ops->cpu_usage_file;
  cleanup_free char *text = NULL;
  if (cg_check_group(group, err) < 0 || cg_read_group(cg, PLACER_CGROUP_CPUACCT, group, file, &text, err) < 0)
    return -1;
  if (cg->ops->parse_cpu_usage(text, out, err) < 0)
    return placer_error_prefix(err, "CPU usage of %s", group);
  return 0;
}
