/* Placement profiles: the YAML schema as key tables for the walker in
 * profile-yaml.c, and the checks that span several keys.  docs/profiles.md
 * describes every key; keep the two in step. */
#include "profile/profile.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "profile/profile-irq.h"
#include "profile/profile-run.h"
#include "profile/profile-yaml.h"
#include "lib/cidr.h"
#include "lib/units.h"

static const char *const near_names[] = {
  [PLACER_NEAR_NONE] = "none", [PLACER_NEAR_DEVICE] = "device", [PLACER_NEAR_NIC] = "nic",
  [PLACER_NEAR_NUMA] = "numa", [PLACER_NEAR_SPREAD] = "spread", NULL,
};
static const char *const policy_names[] = {
  [PLACER_POLICY_PREFERRED] = "preferred",
  [PLACER_POLICY_STRICT] = "strict",
  NULL,
};
static const char *const align_names[] = {
  [PLACER_ALIGN_AUTO] = "auto",
  [PLACER_ALIGN_CACHE] = "cache",
  [PLACER_ALIGN_NUMA] = "numa",
  [PLACER_ALIGN_NONE] = "none",
  NULL,
};
static const char *const spread_names[] = { [PLACER_SPREAD_NONE] = "none", [PLACER_SPREAD_NUMA] = "numa", NULL };
static const char *const mems_names[] = { [PLACER_MEMS_LOCAL] = "local", [PLACER_MEMS_ALL] = "all", NULL };

/* ---- custom value parsers ---- */

static int parse_version(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  unsigned long long value;
  const char *why;
  if (pyaml_walk_parse_uint(v, 1000, &value, &why) < 0)
    return pyaml_walk_key_error(w, v, f->key, "%s", why);
  if (value != PLACER_PROFILE_VERSION)
    return pyaml_walk_key_error(w, v, f->key, "unsupported profile version %llu (this placer reads version %d)", value,
                                PLACER_PROFILE_VERSION);
  return 0;
}

static int uint_or_why(struct pyaml_walk *w, const char *key, yaml_node_t *v, unsigned min, unsigned max,
                       unsigned *out) {
  unsigned long long value;
  const char *why;
  if (pyaml_walk_parse_uint(v, max, &value, &why) < 0) {
    if (strcmp(why, "too large") == 0)
      return pyaml_walk_key_error(w, v, key, "'%s' is too large (at most %u)", pyaml_walk_scalar(v), max);
    return pyaml_walk_key_error(w, v, key, "%s, got '%s'", why,
                                pyaml_walk_is_scalar(v) ? pyaml_walk_scalar(v) : "a collection");
  }
  if (value < min)
    return pyaml_walk_key_error(w, v, key, "must be at least %u, got %llu", min, value);
  *out = (unsigned)value;
  return 0;
}

/* count: N (N >= 1) or "fill"; per_device: N; per_numa: N. */
static int parse_count(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_role_spec *role = target;
  if (f->arg == PLACER_COUNT_FIXED && pyaml_walk_is_plain(v) && strcmp(pyaml_walk_scalar(v), "fill") == 0) {
    role->count_mode = PLACER_COUNT_FILL;
    role->count = 0;
    return 0;
  }
  if (f->arg == PLACER_COUNT_FIXED && pyaml_walk_is_scalar(v)) {
    const char *s = pyaml_walk_scalar(v);
    if (*s != '-' && (*s < '0' || *s > '9'))
      return pyaml_walk_key_error(w, v, f->key, "expected a positive integer or 'fill', got '%s'", s);
  }
  if (uint_or_why(w, f->key, v, 1, PLACER_PROFILE_MAX_COUNT, &role->count) < 0)
    return -1;
  role->count_mode = (enum placer_count_mode)f->arg;
  return 0;
}

/* reserve.cores: N or "P%" of the node's cores (rounded down). */
static int parse_reserve_cores(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_reserve_spec *r = target;
  if (pyaml_walk_is_plain(v)) {
    const char *s = pyaml_walk_scalar(v);
    size_t len = strlen(s);
    if (len > 1 && s[len - 1] == '%') {
      char *end;
      errno = 0;
      unsigned long pct = strtoul(s, &end, 10);
      if (s[0] < '0' || s[0] > '9' || end != s + len - 1 || errno || pct > 100)
        return pyaml_walk_key_error(w, v, f->key,
                                    "expected a whole number of cores or a percentage 0%%..100%%, got '%s'", s);
      r->cores = (unsigned)pct;
      r->cores_is_percent = true;
      return 0;
    }
  }
  r->cores_is_percent = false;
  return uint_or_why(w, f->key, v, 0, 65536, &r->cores);
}

/* cpu.quota: cores as a decimal ("1.5", "0.25", "2"), at most 3 places,
 * 0.01..65536; stored in thousandths of a core. */
static int parse_quota(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_cpu_spec *cpu = target;
  const char *s = pyaml_walk_is_plain(v) ? pyaml_walk_scalar(v) : "";
  if (placer_parse_quota(s, &cpu->quota) < 0)
    return pyaml_walk_key_error(w, v, f->key,
                                "expected cores as a number 0.01..65536 with at most 3 decimals (1.5), got '%s'", s);
  return 0;
}

static const char *const placeholders[] = { "{index}", "{name}", "{role}", "{device}", NULL };

/* "{N+index}" at P (the index plus N, 0..999999999, e.g. Proxmox VMIDs
 * "{100+index}"): its length, and N in *offset; 0 when P is not one. */
static size_t offset_placeholder(const char *p, unsigned long *offset) {
  size_t digits = strspn(p + 1, "0123456789");
  if (p[0] != '{' || digits == 0 || digits > 9 || strncmp(p + 1 + digits, "+index}", 7) != 0)
    return 0;
  if (offset)
    *offset = strtoul(p + 1, NULL, 10);
  return 1 + digits + 7;
}

static int check_template(struct pyaml_walk *w, const char *key, yaml_node_t *v, const char *s) {
  for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
    bool ok = offset_placeholder(p, NULL) > 0;
    for (int i = 0; placeholders[i]; i++)
      if (strncmp(p, placeholders[i], strlen(placeholders[i])) == 0)
        ok = true;
    if (!ok) {
      const char *close = strchr(p, '}');
      int len = close ? (int)(close - p + 1) : (int)strlen(p);
      return pyaml_walk_key_error(
          w, v, key, "unknown placeholder '%.*s' (use {index}, {N+index}, {name}, {role} or {device})", len, p);
    }
  }
  return 0;
}

/* A Proxmox VMID template: digits, {index} and {N+index} only. */
static bool vmid_template_ok(const char *s) {
  while (*s) {
    size_t n = offset_placeholder(s, NULL);
    if (n == 0 && strncmp(s, "{index}", 7) == 0)
      n = 7;
    if (n == 0 && !isdigit((unsigned char)*s))
      return false;
    s += n ? n : 1;
  }
  return true;
}

/* match: {ceph_id|container|qemu_name|pidfile|cmdline|proxmox_vmid: VALUE}; one key. */
/* PATTERN is only wildcards ('*', '?'): fnmatch(3) takes it for every
 * command line, whatever the node runs (apply's count of unrelated
 * trees only catches that where the node runs more of them than the
 * profile has instances: not in a container with one other process). */
static bool pattern_matches_anything(const char *pattern) {
  return pattern[strspn(pattern, "*?")] == '\0';
}

static int parse_match(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_role_spec *role = target;
  if (!pyaml_walk_is_scalar(v) || *pyaml_walk_scalar(v) == '\0')
    return pyaml_walk_key_error(w, v, f->key, "expected a non-empty string");
  if (role->match_template)
    return pyaml_walk_key_error(w, v, f->key, "give one way to find the process, not both '%s' and '%s'",
                                placer_match_kind_name(role->match_kind), f->key);
  if (check_template(w, f->key, v, pyaml_walk_scalar(v)) < 0)
    return -1;
  if (f->arg == PLACER_MATCH_CMDLINE && pattern_matches_anything(pyaml_walk_scalar(v)))
    return pyaml_walk_key_error(w, v, f->key,
                                "'%s' names no character of a command line, so it matches every process: name the "
                                "program ('*fio --name=vm1*')",
                                pyaml_walk_scalar(v));
  if (f->arg == PLACER_MATCH_PROXMOX_VMID && !vmid_template_ok(pyaml_walk_scalar(v)))
    return pyaml_walk_key_error(w, v, f->key,
                                "a Proxmox VMID is a number: digits, {index} or {N+index} (\"{100+index}\"), got '%s'",
                                pyaml_walk_scalar(v));
  role->match_template = strdup(pyaml_walk_scalar(v));
  if (role->match_template == NULL)
    return placer_error_oom(w->err, "parse profile");
  role->match_kind = (enum placer_match_kind)f->arg;
  return 0;
}

/* ---- schemas ---- */

#define ROLE_AT(field) offsetof(struct placer_role_spec, field)
#define CPU_AT(field) offsetof(struct placer_cpu_spec, field)
#define RESERVE_AT(field) offsetof(struct placer_reserve_spec, field)
#define PROFILE_AT(field) offsetof(struct placer_profile, field)

static const struct pyaml_field cpu_fields[] = {
  { .key = "cores", .type = PYAML_FIELD_UINT, .offset = CPU_AT(cores), .min = 1, .max = 65536 },
  { .key = "threads", .type = PYAML_FIELD_UINT, .offset = CPU_AT(threads), .min = 1, .max = 65536 },
  { .key = "whole_cores", .type = PYAML_FIELD_BOOL, .offset = CPU_AT(whole_cores) },
  { .key = "exclusive", .type = PYAML_FIELD_BOOL, .offset = CPU_AT(exclusive) },
  { .key = "pool", .type = PYAML_FIELD_NAME, .offset = CPU_AT(pool) },
  { .key = "weight", .type = PYAML_FIELD_UINT, .offset = CPU_AT(weight), .min = 1, .max = 10000 },
  { .key = "quota", .type = PYAML_FIELD_CUSTOM, .parse = parse_quota },
  { .key = "pin_vcpus", .type = PYAML_FIELD_BOOL, .offset = CPU_AT(pin_vcpus) },
  { .key = "span_numa", .type = PYAML_FIELD_BOOL, .offset = CPU_AT(span_numa) },
  { .key = "align", .type = PYAML_FIELD_ENUM, .offset = CPU_AT(align), .names = align_names },
  { .key = "spread", .type = PYAML_FIELD_ENUM, .offset = CPU_AT(spread), .names = spread_names },
};
static const struct pyaml_schema cpu_schema = { "cpu", cpu_fields, N_OF(cpu_fields) };

/* locality and match write straight into the role (offset 0). */
static const struct pyaml_field locality_fields[] = {
  { .key = "near", .type = PYAML_FIELD_ENUM, .offset = ROLE_AT(near), .names = near_names },
  { .key = "nic", .type = PYAML_FIELD_STRING, .offset = ROLE_AT(nic) },
  { .key = "numa", .type = PYAML_FIELD_UINT, .offset = ROLE_AT(numa), .max = 65535 },
  { .key = "policy", .type = PYAML_FIELD_ENUM, .offset = ROLE_AT(policy), .names = policy_names },
};
static const struct pyaml_schema locality_schema = { "locality", locality_fields, N_OF(locality_fields) };

static const struct pyaml_field match_fields[] = {
  { .key = "ceph_id", .type = PYAML_FIELD_CUSTOM, .parse = parse_match, .arg = PLACER_MATCH_CEPH_ID },
  { .key = "container", .type = PYAML_FIELD_CUSTOM, .parse = parse_match, .arg = PLACER_MATCH_CONTAINER },
  { .key = "qemu_name", .type = PYAML_FIELD_CUSTOM, .parse = parse_match, .arg = PLACER_MATCH_QEMU_NAME },
  { .key = "pidfile", .type = PYAML_FIELD_CUSTOM, .parse = parse_match, .arg = PLACER_MATCH_PIDFILE },
  { .key = "cmdline", .type = PYAML_FIELD_CUSTOM, .parse = parse_match, .arg = PLACER_MATCH_CMDLINE },
  { .key = "proxmox_vmid", .type = PYAML_FIELD_CUSTOM, .parse = parse_match, .arg = PLACER_MATCH_PROXMOX_VMID },
};
static const struct pyaml_schema match_schema = { "match", match_fields, N_OF(match_fields) };

static const struct pyaml_field role_fields[] = {
  { .key = "name", .type = PYAML_FIELD_NAME, .offset = ROLE_AT(name) },
  { .key = "kind", .type = PYAML_FIELD_ENUM, .offset = ROLE_AT(kind), .names = placer_role_kind_names },
  { .key = "count", .type = PYAML_FIELD_CUSTOM, .parse = parse_count, .arg = PLACER_COUNT_FIXED },
  { .key = "per_device", .type = PYAML_FIELD_CUSTOM, .parse = parse_count, .arg = PLACER_COUNT_PER_DEVICE },
  { .key = "per_numa", .type = PYAML_FIELD_CUSTOM, .parse = parse_count, .arg = PLACER_COUNT_PER_NUMA },
  { .key = "max_count",
    .type = PYAML_FIELD_UINT,
    .offset = ROLE_AT(max_count),
    .min = 1,
    .max = PLACER_PROFILE_MAX_COUNT },
  { .key = "first_index", .type = PYAML_FIELD_UINT, .offset = ROLE_AT(first_index), .max = 1000000 },
  { .key = "devices", .type = PYAML_FIELD_STRING_LIST, .offset = ROLE_AT(devices) },
  { .key = "cpu", .type = PYAML_FIELD_MAPPING, .offset = ROLE_AT(cpu), .mapping = &cpu_schema },
  { .key = "memory", .type = PYAML_FIELD_SIZE, .offset = ROLE_AT(memory_bytes), .min = 1 },
  { .key = "memory_overhead", .type = PYAML_FIELD_SIZE, .offset = ROLE_AT(memory_overhead_bytes) },
  { .key = "locality", .type = PYAML_FIELD_MAPPING, .offset = 0, .mapping = &locality_schema },
  { .key = "mems", .type = PYAML_FIELD_ENUM, .offset = ROLE_AT(mems), .names = mems_names },
  { .key = "match", .type = PYAML_FIELD_MAPPING, .offset = 0, .mapping = &match_schema },
  { .key = "run", .type = PYAML_FIELD_CUSTOM, .parse = placer_profile_parse_run },
  { .key = "crimson", .type = PYAML_FIELD_BOOL, .offset = ROLE_AT(crimson) },
  { .key = "irqs", .type = PYAML_FIELD_CUSTOM, .parse = placer_profile_parse_role_irqs },
};
static const struct pyaml_schema role_schema = { "role", role_fields, N_OF(role_fields) };

static const struct pyaml_field reserve_fields[] = {
  { .key = "cores", .type = PYAML_FIELD_CUSTOM, .parse = parse_reserve_cores },
  { .key = "cores_per_numa", .type = PYAML_FIELD_UINT, .offset = RESERVE_AT(cores_per_numa), .max = 4096 },
  { .key = "nics", .type = PYAML_FIELD_STRING_LIST, .offset = RESERVE_AT(nics) },
  { .key = "nic_cores", .type = PYAML_FIELD_UINT, .offset = RESERVE_AT(nic_cores), .max = 4096 },
  { .key = "memory", .type = PYAML_FIELD_SIZE, .offset = RESERVE_AT(memory_bytes) },
  { .key = "memory_per_numa", .type = PYAML_FIELD_SIZE, .offset = RESERVE_AT(memory_per_numa_bytes) },
};
static const struct pyaml_schema reserve_schema = { "reserve", reserve_fields, N_OF(reserve_fields) };

static int parse_roles(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);

static const struct pyaml_field profile_fields[] = {
  { .key = "version", .type = PYAML_FIELD_CUSTOM, .parse = parse_version },
  { .key = "name", .type = PYAML_FIELD_NAME, .offset = PROFILE_AT(name) },
  { .key = "description", .type = PYAML_FIELD_STRING, .offset = PROFILE_AT(description) },
  { .key = "pin", .type = PYAML_FIELD_BOOL, .offset = PROFILE_AT(pin) },
  { .key = "reserve", .type = PYAML_FIELD_MAPPING, .offset = PROFILE_AT(reserve), .mapping = &reserve_schema },
  { .key = "storage_network", .type = PYAML_FIELD_STRING_LIST, .offset = PROFILE_AT(storage_networks) },
  { .key = "roles", .type = PYAML_FIELD_CUSTOM, .parse = parse_roles },
  { .key = "irqs", .type = PYAML_FIELD_CUSTOM, .parse = placer_profile_parse_irqs },
};
static const struct pyaml_schema profile_schema = { "profile", profile_fields, N_OF(profile_fields) };

static void role_defaults(struct placer_role_spec *role) {
  role->count_mode = PLACER_COUNT_FIXED;
  role->count = 1;
  role->cpu.exclusive = true;
  role->near = PLACER_NEAR_NONE;
  role->policy = PLACER_POLICY_PREFERRED;
  role->mems = PLACER_MEMS_LOCAL;
  role->match_kind = PLACER_MATCH_NONE;
}

static int parse_roles(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_profile *profile = target;
  if (v->type != YAML_SEQUENCE_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a list of roles");
  size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
  if (n == 0)
    return pyaml_walk_key_error(w, v, f->key, "must list at least one role");
  profile->roles = calloc(n, sizeof(*profile->roles));
  if (profile->roles == NULL)
    return placer_error_oom(w->err, "parse profile");
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
    struct placer_role_spec *role = &profile->roles[i];
    role_defaults(role);
    role->line = (unsigned)item->start_mark.line + 1;
    profile->n_roles = i + 1;
    size_t saved = pyaml_walk_push(w, "%s[%zu]", f->key, i);
    int rc = pyaml_walk_mapping(w, item, &role_schema, role);
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  return 0;
}

/* ---- checks across keys ---- */

/* The first of keys given in mapping; NULL when none. */
static yaml_node_t *first_given(struct pyaml_walk *w, yaml_node_t *mapping, const char *const *keys,
                                const char **which) {
  for (int i = 0; keys[i]; i++) {
    yaml_node_t *k = pyaml_walk_lookup_key(w, mapping, keys[i]);
    if (k) {
      *which = keys[i];
      return k;
    }
  }
  return NULL;
}

/* At most one of keys; the error points at the second one. */
static int at_most_one(struct pyaml_walk *w, yaml_node_t *mapping, const char *const *keys) {
  const char *first = NULL;
  for (int i = 0; keys[i]; i++) {
    yaml_node_t *k = pyaml_walk_lookup_key(w, mapping, keys[i]);
    if (k == NULL)
      continue;
    if (first)
      return pyaml_walk_key_error(w, k, keys[i], "conflicts with '%s' (give one of them)", first);
    first = keys[i];
  }
  return 0;
}

static bool template_has_placeholder(const char *s) {
  for (int i = 0; placeholders[i]; i++)
    if (strstr(s, placeholders[i]))
      return true;
  for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{'))
    if (offset_placeholder(p, NULL))
      return true;
  return false;
}

/* spread: numa splits one instance that no single node holds; what says
 * otherwise contradicts it. */
static int check_spread(struct pyaml_walk *w, const struct placer_role_spec *role, yaml_node_t *cpu) {
  yaml_node_t *spread = pyaml_walk_lookup_key(w, cpu, "spread");
  if (spread == NULL || role->cpu.spread != PLACER_SPREAD_NUMA)
    return 0;
  if (role->cpu.align == PLACER_ALIGN_NONE)
    return pyaml_walk_key_error(w, spread, "spread",
                                "'numa' splits an instance evenly over NUMA nodes; 'align: none' asks for no "
                                "alignment at all (give one of them)");
  if (role->count_mode == PLACER_COUNT_PER_NUMA)
    return pyaml_walk_key_error(w, spread, "spread", "a per_numa role keeps each instance on its own node");
  if (role->count_mode == PLACER_COUNT_FILL && !role->cpu.exclusive)
    return pyaml_walk_key_error(w, spread, "spread",
                                "a count: fill pool takes everything left; it has no instance size to spread");
  return 0;
}

static int check_cpu(struct pyaml_walk *w, struct placer_role_spec *role, yaml_node_t *rn, bool pin) {
  yaml_node_t *cpu = pyaml_walk_lookup(w, rn, "cpu");
  if (cpu == NULL) {
    if (pin)
      return pyaml_walk_error(w, rn, "role '%s': missing key 'cpu' (every role needs one when the profile pins)",
                              role->name);
    role->cpu.pool = NULL;
    role->cpu.exclusive = false;
    return 0;
  }
  role->has_cpu = true;
  size_t saved = pyaml_walk_push(w, ".cpu");
  int rc = -1;
  static const char *const amount_keys[] = { "cores", "threads", NULL };
  const char *which;
  if (at_most_one(w, cpu, amount_keys) < 0)
    goto out;
  static const char *const placing_keys[] = { "align", "spread", NULL };
  yaml_node_t *placing = first_given(w, cpu, placing_keys, &which);
  if (placing && !pin) {
    pyaml_walk_key_error(w, placing, which, "only applies when the profile pins (pin: false places nothing)");
    goto out;
  }
  if (first_given(w, cpu, amount_keys, &which) == NULL && !pin) {
    /* Unpinned: a cpu mapping may give only a weight or a quota. */
    role->has_cpu = false;
    role->cpu.pool = NULL;
    role->cpu.exclusive = false;
    rc = 0;
    goto out;
  }
  if (first_given(w, cpu, amount_keys, &which) == NULL) {
    pyaml_walk_error(w, cpu, "give 'cores' (whole cores) or 'threads' (hardware threads)");
    goto out;
  }
  yaml_node_t *whole = pyaml_walk_lookup_key(w, cpu, "whole_cores");
  if (whole && role->cpu.cores) {
    pyaml_walk_key_error(w, whole, "whole_cores", "only goes with 'threads' ('cores' are always whole)");
    goto out;
  }
  if (role->cpu.cores)
    role->cpu.whole_cores = true;
  yaml_node_t *excl = pyaml_walk_lookup_key(w, cpu, "exclusive");
  yaml_node_t *pool = pyaml_walk_lookup_key(w, cpu, "pool");
  if (pool && excl && role->cpu.exclusive) {
    pyaml_walk_key_error(w, pool, "pool", "a pool is shared: it does not go with 'exclusive: true'");
    goto out;
  }
  if (pool)
    role->cpu.exclusive = false;
  if (!role->cpu.exclusive && role->cpu.pool == NULL && (role->cpu.pool = strdup(role->name)) == NULL) {
    placer_error_oom(w->err, "parse profile");
    goto out;
  }
  if (pyaml_walk_lookup_key(w, cpu, "span_numa") == NULL)
    role->cpu.span_numa = role->kind != PLACER_KIND_VM; /* real guests are NUMA-local */
  if (check_spread(w, role, cpu) < 0)
    goto out;
  yaml_node_t *pin_vcpus = pyaml_walk_lookup_key(w, cpu, "pin_vcpus");
  if (pin_vcpus && role->kind != PLACER_KIND_VM) {
    pyaml_walk_key_error(w, pin_vcpus, "pin_vcpus", "only applies to roles of kind vm");
    goto out;
  }
  rc = 0;
out:
  pyaml_walk_pop(w, saved);
  return rc;
}

static int check_locality(struct pyaml_walk *w, struct placer_role_spec *role, yaml_node_t *rn) {
  yaml_node_t *loc = pyaml_walk_lookup(w, rn, "locality");
  yaml_node_t *near = pyaml_walk_lookup(w, loc, "near");
  yaml_node_t *nic = pyaml_walk_lookup(w, loc, "nic");
  yaml_node_t *numa = pyaml_walk_lookup(w, loc, "numa");
  size_t saved = pyaml_walk_push(w, ".locality");
  int rc = -1;
  if (near == NULL) {
    if (role->count_mode == PLACER_COUNT_PER_DEVICE)
      role->near = PLACER_NEAR_DEVICE;
    else if (role->count_mode == PLACER_COUNT_PER_NUMA)
      role->near = PLACER_NEAR_NUMA;
    else if (nic)
      role->near = PLACER_NEAR_NIC;
    else if (numa)
      role->near = PLACER_NEAR_NUMA;
    else if (role->kind == PLACER_KIND_CEPH_MDS) {
      /* an MDS serves its clients and talks to the OSDs over the network:
       * by default next to the storage NIC (docs/profiles.md, "The MDS") */
      role->near = PLACER_NEAR_NIC;
      if ((role->nic = strdup("auto")) == NULL) {
        placer_error_oom(w->err, "parse profile");
        goto out;
      }
    }
  }
  const yaml_node_t *at = near ? near : loc;
  if (role->near == PLACER_NEAR_DEVICE && role->count_mode != PLACER_COUNT_PER_DEVICE) {
    pyaml_walk_key_error(w, at, "near", "'device' needs per_device and devices (one instance per device)");
    goto out;
  }
  if (role->count_mode == PLACER_COUNT_PER_NUMA && role->near != PLACER_NEAR_NUMA) {
    pyaml_walk_key_error(w, at, "near", "a per_numa role is placed on each node; near must be 'numa' or absent");
    goto out;
  }
  if (role->near == PLACER_NEAR_NIC && role->nic == NULL) {
    pyaml_walk_key_error(w, at, "near", "'nic' needs the key 'nic' (a NIC name or glob such as \"ens1f*\")");
    goto out;
  }
  if (nic && role->near != PLACER_NEAR_NIC) {
    pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, loc, "nic"), "nic", "only goes with near: nic");
    goto out;
  }
  if (numa && (role->near != PLACER_NEAR_NUMA || role->count_mode == PLACER_COUNT_PER_NUMA)) {
    pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, loc, "numa"), "numa",
                         role->count_mode == PLACER_COUNT_PER_NUMA ? "a per_numa role is placed on every node"
                                                                   : "only goes with near: numa");
    goto out;
  }
  if (role->near == PLACER_NEAR_NUMA && numa == NULL && role->count_mode != PLACER_COUNT_PER_NUMA) {
    pyaml_walk_key_error(w, at, "near", "'numa' needs the key 'numa' (the node's number)");
    goto out;
  }
  rc = 0;
out:
  pyaml_walk_pop(w, saved);
  return rc;
}

/* A Ceph role's ceph_id must give ids its daemon accepts: the template
 * expanded for the first instance (its literal text and placeholders decide
 * the characters and the first one; {device} stands for a kernel name). */
static int check_ceph_id(struct pyaml_walk *w, const struct placer_role_spec *role, yaml_node_t *rn,
                         yaml_node_t *match) {
  if (!placer_role_kind_is_ceph(role->kind) || role->match_kind != PLACER_MATCH_CEPH_ID)
    return 0;
  char instance[96];
  snprintf(instance, sizeof(instance), "%s.%u", role->name, role->first_index);
  cleanup_free char *id = placer_match_expand(role->match_template, instance, role->name, role->first_index, "sda");
  if (id == NULL)
    return placer_error_oom(w->err, "parse profile");
  const char *why = placer_ceph_id_problem(role->kind, id);
  if (why == NULL)
    return 0;
  if (match == NULL)
    return pyaml_walk_key_error(
        w, pyaml_walk_lookup(w, rn, "name"), "name",
        "%s role '%s' has no match, so its ids are '%s' (%s): %s; give it match: {ceph_id: ...}",
        placer_role_kind_name(role->kind), role->name, role->match_template, id, why);
  yaml_node_t *value = yaml_document_get_node(w->doc, match->data.mapping.pairs.start[0].value);
  size_t saved = pyaml_walk_push(w, ".match");
  pyaml_walk_key_error(w, value, "ceph_id", "'%s' gives %s id '%s' for %s: %s", role->match_template,
                       role->kind == PLACER_KIND_CEPH_OSD   ? "OSD"
                       : role->kind == PLACER_KIND_CEPH_MDS ? "MDS"
                                                            : "daemon",
                       id, instance, why);
  pyaml_walk_pop(w, saved);
  return -1;
}

static int check_role(struct pyaml_walk *w, struct placer_profile *profile, size_t i, yaml_node_t *rn) {
  struct placer_role_spec *role = &profile->roles[i];
  if (pyaml_walk_lookup(w, rn, "name") == NULL)
    return pyaml_walk_error(w, rn, "missing key 'name'");
  if (pyaml_walk_lookup(w, rn, "kind") == NULL)
    return pyaml_walk_error(w, rn,
                            "role '%s': missing key 'kind' (ceph-osd, ceph-mds, ceph-mon, ceph-mgr, vm, fio "
                            "or generic)",
                            role->name);
  for (size_t j = 0; j < i; j++)
    if (strcmp(profile->roles[j].name, role->name) == 0)
      return pyaml_walk_key_error(w, pyaml_walk_lookup(w, rn, "name"), "name",
                                  "duplicate role name '%s' (first at line %u)", role->name, profile->roles[j].line);

  if (role->crimson && role->kind != PLACER_KIND_CEPH_OSD)
    return pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, rn, "crimson"), "crimson",
                                "only a ceph-osd role can be a Crimson OSD");

  static const char *const count_keys[] = { "count", "per_device", "per_numa", NULL };
  if (at_most_one(w, rn, count_keys) < 0)
    return -1;
  yaml_node_t *devices = pyaml_walk_lookup_key(w, rn, "devices");
  if (role->count_mode == PLACER_COUNT_PER_DEVICE && devices == NULL)
    return pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, rn, "per_device"), "per_device",
                                "needs 'devices' (block device name globs such as [\"nvme*\"])");
  if (devices && role->count_mode != PLACER_COUNT_PER_DEVICE)
    return pyaml_walk_key_error(w, devices, "devices", "only goes with per_device (instances per matching device)");
  yaml_node_t *max_count = pyaml_walk_lookup_key(w, rn, "max_count");
  if (max_count && role->count_mode != PLACER_COUNT_FILL)
    return pyaml_walk_key_error(w, max_count, "max_count", "only goes with count: fill");

  if (check_cpu(w, role, rn, profile->pin) < 0)
    return -1;
  role->has_memory = pyaml_walk_lookup(w, rn, "memory") != NULL;
  yaml_node_t *overhead = pyaml_walk_lookup_key(w, rn, "memory_overhead");
  if (overhead && !role->has_memory)
    return pyaml_walk_key_error(w, overhead, "memory_overhead", "needs 'memory' (the overhead is added to it)");
  if (role->count_mode == PLACER_COUNT_FILL && !role->has_cpu && !role->has_memory)
    return pyaml_walk_key_error(w, pyaml_walk_lookup(w, rn, "count"), "count",
                                "'fill' needs 'cpu' or 'memory' to know how many instances fit");
  if (check_locality(w, role, rn) < 0 || placer_profile_check_role_irqs(w, role, rn) < 0)
    return -1;
  if (role->cpu.spread == PLACER_SPREAD_NUMA && role->policy == PLACER_POLICY_STRICT &&
      role->near != PLACER_NEAR_NONE) {
    yaml_node_t *spread = pyaml_walk_lookup_key(w, pyaml_walk_lookup(w, rn, "cpu"), "spread");
    size_t saved = pyaml_walk_push(w, ".cpu");
    pyaml_walk_key_error(w, spread, "spread",
                         "'numa' spreads an instance that one node cannot hold over several; 'policy: strict' "
                         "keeps it on its asked node(s) (give one of them)");
    pyaml_walk_pop(w, saved);
    return -1;
  }

  yaml_node_t *match = pyaml_walk_lookup(w, rn, "match");
  if (role->match_template == NULL && match == NULL && placer_role_kind_is_ceph(role->kind)) {
    role->match_kind = PLACER_MATCH_CEPH_ID;
    role->match_template = strdup(placer_ceph_id_default(role->kind));
    if (role->match_template == NULL)
      return placer_error_oom(w->err, "parse profile");
  }
  if (check_ceph_id(w, role, rn, match) < 0)
    return -1;
  if (match && role->match_template) {
    yaml_node_t *value = yaml_document_get_node(w->doc, match->data.mapping.pairs.start[0].value);
    const char *key = pyaml_walk_scalar(yaml_document_get_node(w->doc, match->data.mapping.pairs.start[0].key));
    size_t saved = pyaml_walk_push(w, ".match");
    int rc = 0;
    if (strstr(role->match_template, "{device}") && role->count_mode != PLACER_COUNT_PER_DEVICE)
      rc = pyaml_walk_key_error(w, value, key, "{device} only has a value in a per_device role");
    else if (!template_has_placeholder(role->match_template) &&
             !(role->count_mode == PLACER_COUNT_FIXED && role->count == 1))
      rc = pyaml_walk_key_error(w, value, key,
                                "'%s' would find the same process for every instance; use {index} or {name}",
                                role->match_template);
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  return 0;
}

/* Roles sharing a pool must agree on its size unit and on when it is placed. */
static int check_pools(struct pyaml_walk *w, struct placer_profile *profile, yaml_node_t *roles_node) {
  for (size_t i = 0; i < profile->n_roles; i++) {
    const struct placer_role_spec *b = &profile->roles[i];
    if (b->cpu.pool == NULL)
      continue;
    for (size_t j = 0; j < i; j++) {
      const struct placer_role_spec *a = &profile->roles[j];
      if (a->cpu.pool == NULL || strcmp(a->cpu.pool, b->cpu.pool) != 0)
        continue;
      yaml_node_t *rn = yaml_document_get_node(w->doc, roles_node->data.sequence.items.start[i]);
      size_t saved = pyaml_walk_push(w, "roles[%zu].cpu", i);
      int rc = 0;
      yaml_node_t *at = pyaml_walk_lookup(w, pyaml_walk_lookup(w, rn, "cpu"), "pool");
      if (at == NULL)
        at = pyaml_walk_lookup(w, rn, "cpu");
      if ((a->cpu.cores != 0) != (b->cpu.cores != 0) || a->cpu.whole_cores != b->cpu.whole_cores)
        rc = pyaml_walk_error(w, at, "pool '%s' is sized in %s by role '%s'; role '%s' must use the same unit",
                              b->cpu.pool,
                              a->cpu.cores         ? "cores"
                              : a->cpu.whole_cores ? "threads (whole cores)"
                                                   : "threads",
                              a->name, b->name);
      else if (a->cpu.span_numa != b->cpu.span_numa)
        rc = pyaml_walk_error(w, at, "pool '%s' spans NUMA nodes for role '%s' but not for role '%s' (span_numa)",
                              b->cpu.pool, a->cpu.span_numa ? a->name : b->name, a->cpu.span_numa ? b->name : a->name);
      else if ((a->count_mode == PLACER_COUNT_FILL) != (b->count_mode == PLACER_COUNT_FILL))
        rc = pyaml_walk_error(w, at, "pool '%s' mixes 'count: fill' (role '%s') with a fixed count (role '%s')",
                              b->cpu.pool, a->count_mode == PLACER_COUNT_FILL ? a->name : b->name,
                              a->count_mode == PLACER_COUNT_FILL ? b->name : a->name);
      pyaml_walk_pop(w, saved);
      if (rc < 0)
        return -1;
      break;
    }
  }
  return 0;
}

static int check_reserve(struct pyaml_walk *w, struct placer_profile *profile, yaml_node_t *root) {
  yaml_node_t *rn = pyaml_walk_lookup(w, root, "reserve");
  if (rn == NULL)
    return 0;
  struct placer_reserve_spec *r = &profile->reserve;
  size_t saved = pyaml_walk_push(w, "reserve");
  int rc = -1;
  static const char *const core_keys[] = { "cores", "cores_per_numa", NULL };
  static const char *const memory_keys[] = { "memory", "memory_per_numa", NULL };
  if (at_most_one(w, rn, core_keys) < 0 || at_most_one(w, rn, memory_keys) < 0)
    goto out;
  yaml_node_t *nic_cores = pyaml_walk_lookup_key(w, rn, "nic_cores");
  yaml_node_t *nics = pyaml_walk_lookup_key(w, rn, "nics");
  if (nic_cores && !nics) {
    pyaml_walk_key_error(w, nic_cores, "nic_cores", "needs 'nics' (the NICs whose interrupts get the cores)");
    goto out;
  }
  if (nics && !nic_cores)
    r->nic_cores = 1;
  rc = 0;
out:
  pyaml_walk_pop(w, saved);
  return rc;
}

static int check_storage_network(struct pyaml_walk *w, struct placer_profile *profile, yaml_node_t *root) {
  yaml_node_t *list = pyaml_walk_lookup(w, root, "storage_network");
  for (size_t i = 0; i < profile->storage_networks.n; i++) {
    if (placer_cidr_valid(profile->storage_networks.items[i]))
      continue;
    yaml_node_t *item = yaml_document_get_node(w->doc, list->data.sequence.items.start[i]);
    return pyaml_walk_key_error(w, item, "storage_network", "'%s' is not a network such as 10.0.0.0/24 or fd00::/64",
                                profile->storage_networks.items[i]);
  }
  return 0;
}

static char *name_from_path(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen(base);
  if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
    len -= 5;
  else if (len > 4 && strcmp(base + len - 4, ".yml") == 0)
    len -= 4;
  return strndup(base, len);
}

int placer_profile_parse(const char *file, const char *text, size_t len, struct placer_profile **out,
                         struct placer_error **err) {
  yaml_document_t doc;
  if (pyaml_walk_load(file, text, len, &doc, err) < 0)
    return -1;
  struct pyaml_walk w = { .file = file, .doc = &doc, .err = err };
  struct placer_profile *profile = calloc(1, sizeof(*profile));
  int rc = -1;
  if (profile == NULL) {
    placer_error_oom(err, "parse profile");
    goto out;
  }
  profile->pin = true;
  profile->path = strdup(file);
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (pyaml_walk_mapping(&w, root, &profile_schema, profile) < 0)
    goto out;
  yaml_node_t *roles = pyaml_walk_lookup(&w, root, "roles");
  if (roles == NULL) {
    pyaml_walk_error(&w, root, "missing key 'roles' (the list of roles to place)");
    goto out;
  }
  if (check_reserve(&w, profile, root) < 0 || check_storage_network(&w, profile, root) < 0)
    goto out;
  for (size_t i = 0; i < profile->n_roles; i++) {
    size_t saved = pyaml_walk_push(&w, "roles[%zu]", i);
    int role_rc = check_role(&w, profile, i, yaml_document_get_node(&doc, roles->data.sequence.items.start[i]));
    pyaml_walk_pop(&w, saved);
    if (role_rc < 0)
      goto out;
  }
  if (check_pools(&w, profile, roles) < 0)
    goto out;
  if (profile->name == NULL)
    profile->name = name_from_path(file);
  if (profile->path == NULL || profile->name == NULL) {
    placer_error_oom(err, "parse profile");
    goto out;
  }
  *out = TAKE_PTR(profile);
  rc = 0;
out:
  placer_profile_free(profile);
  yaml_document_delete(&doc);
  return rc;
}

int placer_profile_load(const char *path, struct placer_profile **out, struct placer_error **err) {
  cleanup_free char *text = NULL;
  size_t len = 0;
  if (pyaml_read_file("profile", path, PYAML_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  return placer_profile_parse(path, text ? text : "", len, out, err);
}

static void role_free(struct placer_role_spec *role) {
  free(role->name);
  placer_string_list_free(&role->devices);
  free(role->cpu.pool);
  free(role->nic);
  free(role->match_template);
  placer_run_config_free(role->run);
  placer_irq_to_clear(&role->irqs);
}

void placer_profile_free(struct placer_profile *profile) {
  if (profile == NULL)
    return;
  for (size_t i = 0; i < profile->n_roles; i++)
    role_free(&profile->roles[i]);
  free(profile->roles);
  placer_profile_irqs_free(profile);
  placer_string_list_free(&profile->reserve.nics);
  placer_string_list_free(&profile->storage_networks);
  free(profile->path);
  free(profile->name);
  free(profile->description);
  free(profile);
}

const struct placer_role_spec *placer_profile_role(const struct placer_profile *profile, const char *name) {
  for (size_t i = 0; i < profile->n_roles; i++)
    if (strcmp(profile->roles[i].name, name) == 0)
      return &profile->roles[i];
  return NULL;
}

char *placer_match_expand(const char *tmpl, const char *instance, const char *role, unsigned index,
                          const char *device) {
  if (tmpl == NULL)
    return NULL;
  char index_text[16];
  snprintf(index_text, sizeof(index_text), "%u", index);
  const char *values[] = { index_text, instance, role, device ? device : "" };
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  if (f == NULL)
    return NULL;
  for (const char *p = tmpl; *p;) {
    unsigned long offset = 0;
    size_t n_offset = offset_placeholder(p, &offset);
    if (n_offset) {
      fprintf(f, "%lu", offset + index);
      p += n_offset;
      continue;
    }
    bool done = false;
    for (int i = 0; placeholders[i]; i++) {
      size_t n = strlen(placeholders[i]);
      if (strncmp(p, placeholders[i], n) == 0) {
        fputs(values[i], f);
        p += n;
        done = true;
        break;
      }
    }
    if (!done)
      fputc(*p++, f);
  }
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}
