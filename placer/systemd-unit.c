/* systemd units as text: the unit of a cgroup path, set-property command
 * lines, placer's drop-in, `systemctl show` values (systemd-unit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systemd-unit.h"

const char *const placer_systemd_show_keys[] = {
  "AllowedCPUs", "AllowedMemoryNodes", "MemoryMax", "CPUWeight", "ControlGroup",
  "ActiveState", "LoadState",          "MainPID",   NULL
};

static bool has_suffix(const char *s, size_t len, const char *suffix) {
  size_t n = strlen(suffix);
  return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static bool unit_chars_ok(const char *s, size_t len) {
  if (len == 0 || len > 255)
    return false;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_' ||
          c == '.' || c == '\\' || c == '@' || c == '-'))
      return false;
  }
  return true;
}

bool placer_systemd_unit_name_is_valid(const char *unit) {
  static const char *const suffixes[] = { ".service", ".scope", ".slice", ".socket", ".mount", ".swap", NULL };
  if (unit == NULL)
    return false;
  size_t len = strlen(unit);
  if (!unit_chars_ok(unit, len) || unit[0] == '.' || unit[0] == '-')
    return false;
  for (size_t i = 0; suffixes[i]; i++)
    if (has_suffix(unit, len, suffixes[i]) && len > strlen(suffixes[i]))
      return true;
  return false;
}

int placer_systemd_unit_from_cgroup(const char *path, char **unit, char **unit_cgroup, struct placer_error **err) {
  if (path == NULL || path[0] != '/')
    return placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL, "cgroup path '%s' is not absolute",
                            path ? path : "(none)");
  const char *p = path;
  while (*p == '/') {
    const char *start = p + 1;
    const char *end = strchr(start, '/');
    size_t len = end ? (size_t)(end - start) : strlen(start);
    if (len == 0)
      break;
    if (has_suffix(start, len, ".slice")) {
      p = start + len;
      continue;
    }
    if ((has_suffix(start, len, ".service") || has_suffix(start, len, ".scope")) && unit_chars_ok(start, len)) {
      if (len == strlen("init.scope") && memcmp(start, "init.scope", len) == 0)
        return placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL,
                                "cgroup %s is init.scope (systemd itself): not a daemon's unit", path);
      char *u = strndup(start, len);
      char *ucg = strndup(path, (size_t)(start + len - path));
      if (u == NULL || ucg == NULL) {
        free(u);
        free(ucg);
        return placer_error_oom(err, NULL);
      }
      if (!placer_systemd_unit_name_is_valid(u)) {
        free(u);
        free(ucg);
        break;
      }
      *unit = u;
      if (unit_cgroup)
        *unit_cgroup = ucg;
      else
        free(ucg);
      return 0;
    }
    break; /* a group systemd did not make */
  }
  return placer_error_set(err, PLACER_EXIT_INFEASIBLE, EINVAL,
                          "cgroup %s belongs to no systemd service or scope (only slices%s)", path,
                          strcmp(path, "/") == 0 ? ": the root" : " or groups made outside systemd");
}

int placer_systemd_cgroup2_path(const char *text, char **path, struct placer_error **err) {
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len >= 3 && strncmp(line, "0::", 3) == 0) {
      char *p = strndup(line + 3, len - 3);
      if (p == NULL)
        return placer_error_oom(err, NULL);
      *path = p;
      return 0;
    }
    line = nl ? nl + 1 : NULL;
  }
  return placer_error_set(err, PLACER_EXIT_INFEASIBLE, ENOENT,
                          "no cgroup v2 line (0::) in /proc/PID/cgroup: the systemd backend needs cgroup v2");
}

int placer_systemd_prop_assignments(const struct placer_systemd_props *props, char **argv, size_t *n) {
  size_t k = 0;
  int bad = 0;
  if (props->allowed_cpus)
    bad |= asprintf(&argv[k++], "AllowedCPUs=%s", props->allowed_cpus) < 0;
  if (props->allowed_memory_nodes)
    bad |= asprintf(&argv[k++], "AllowedMemoryNodes=%s", props->allowed_memory_nodes) < 0;
  if (props->has_memory_max)
    bad |= asprintf(&argv[k++], "MemoryMax=%llu", (unsigned long long)props->memory_max_bytes) < 0;
  if (props->cpu_weight)
    bad |= asprintf(&argv[k++], "CPUWeight=%u", props->cpu_weight) < 0;
  if (bad) {
    for (size_t i = 0; i < k; i++) {
      free(argv[i]);
      argv[i] = NULL;
    }
    return -1;
  }
  *n = k;
  return 0;
}

void placer_systemd_argv_free(char **argv) {
  if (argv == NULL)
    return;
  for (size_t i = 0; argv[i]; i++)
    free(argv[i]);
  free(argv);
}

/* systemctl set-property [--runtime] UNIT, then room for 4 assignments. */
static char **argv_head(const char *systemctl, const char *unit, bool runtime, size_t *k) {
  char **argv = calloc(9, sizeof(*argv));
  if (argv == NULL)
    return NULL;
  size_t i = 0;
  argv[i++] = strdup(systemctl);
  argv[i++] = strdup("set-property");
  if (runtime)
    argv[i++] = strdup("--runtime");
  argv[i++] = strdup(unit);
  for (size_t j = 0; j < i; j++)
    if (argv[j] == NULL) {
      placer_systemd_argv_free(argv);
      return NULL;
    }
  *k = i;
  return argv;
}

char **placer_systemd_set_property_argv(const char *systemctl, const char *unit, bool runtime,
                                        const struct placer_systemd_props *props) {
  size_t k = 0, n = 0;
  char **argv = argv_head(systemctl, unit, runtime, &k);
  if (argv == NULL)
    return NULL;
  if (placer_systemd_prop_assignments(props, argv + k, &n) < 0) {
    placer_systemd_argv_free(argv);
    return NULL;
  }
  return argv;
}

/* A value as `systemctl show` printed it, as set-property takes it back. */
static const char *restorable(const char *shown) {
  if (shown == NULL || strcmp(shown, "[not set]") == 0 || strcmp(shown, "18446744073709551615") == 0)
    return "";
  return shown;
}

char **placer_systemd_restore_argv(const char *systemctl, const char *unit, const struct placer_systemd_props *props,
                                   const char *allowed_cpus, const char *allowed_memory_nodes, const char *memory_max,
                                   const char *cpu_weight) {
  size_t k = 0;
  char **argv = argv_head(systemctl, unit, true, &k);
  if (argv == NULL)
    return NULL;
  int bad = 0;
  if (props->allowed_cpus)
    bad |= asprintf(&argv[k++], "AllowedCPUs=%s", restorable(allowed_cpus)) < 0;
  if (props->allowed_memory_nodes)
    bad |= asprintf(&argv[k++], "AllowedMemoryNodes=%s", restorable(allowed_memory_nodes)) < 0;
  if (props->has_memory_max) {
    const char *m = restorable(memory_max);
    bad |= asprintf(&argv[k++], "MemoryMax=%s", *m ? m : "infinity") < 0;
  }
  if (props->cpu_weight)
    bad |= asprintf(&argv[k++], "CPUWeight=%s", restorable(cpu_weight)) < 0;
  if (bad) {
    placer_systemd_argv_free(argv);
    return NULL;
  }
  return argv;
}

char *placer_systemd_dropin_body(const struct placer_systemd_props *props) {
  char *a[4] = { NULL };
  size_t n = 0;
  if (placer_systemd_prop_assignments(props, a, &n) < 0)
    return NULL;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (f) {
    fputs("[Service]\n", f);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%s\n", a[i]);
    if (fclose(f) != 0) {
      free(text);
      text = NULL;
    }
  }
  for (size_t i = 0; i < n; i++)
    free(a[i]);
  return text;
}

char *placer_systemd_dropin_text(const char *unit, const char *profile, const char *instance,
                                 const struct placer_systemd_props *props) {
  size_t len = unit ? strlen(unit) : 0;
  if (!placer_systemd_unit_name_is_valid(unit) || !has_suffix(unit, len, ".service")) {
    errno = EINVAL;
    return NULL;
  }
  char *body = placer_systemd_dropin_body(props);
  char *text = NULL;
  if (body &&
      asprintf(&text, "# Written by 'placer apply --persist' (profile %s, instance %s); 'placer reset' removes it.\n%s",
               profile ? profile : "?", instance ? instance : "?", body) < 0)
    text = NULL;
  free(body);
  return text;
}

char *placer_systemd_show_value(const char *text, const char *key) {
  size_t klen = strlen(key);
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=')
      return strndup(line + klen + 1, len - klen - 1);
    line = nl ? nl + 1 : NULL;
  }
  return NULL;
}
