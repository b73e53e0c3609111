/* The irqs: keys of a profile (profile-irq.h): a device and where its IRQs
 * go, checked here for everything that needs no node. */
#include "profile/profile-irq.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/cpulist.h"
#include "profile/profile-yaml.h"

static int nomem(struct pyaml_walk *w) {
  return placer_error_oom(w->err, "parse profile");
}

void placer_irq_to_clear(struct placer_irq_to *to) {
  free(to->cpus);
  memset(to, 0, sizeof(*to));
}

/* reserve | nic_cores | none | own (roles only) | a cpu list "0-3", into TO (its
 * position left alone); -1 with *WHY when it is none of them. */
static int irq_to_parse(const char *s, bool role, struct placer_irq_to *to, const char **why) {
  static const char *const names[] = { [PLACER_IRQ_TO_NONE] = "none",
                                       [PLACER_IRQ_TO_OWN] = "own",
                                       [PLACER_IRQ_TO_RESERVE] = "reserve",
                                       [PLACER_IRQ_TO_NIC_CORES] = "nic_cores" };
  *why = role ? "expected own, reserve, nic_cores, none or a cpu list such as \"0-3\""
              : "expected reserve, nic_cores, none or a cpu list such as \"0-3\"";
  free(to->cpus);
  to->cpus = NULL;
  for (size_t i = 0; i < N_OF(names); i++)
    if (strcmp(s, names[i]) == 0) {
      if (i == PLACER_IRQ_TO_OWN && !role) {
        *why = "'own' is for a role (its instance's cpus); a device no instance is near takes reserve, "
               "nic_cores, none or a cpu list such as \"0-3\"";
        return -1;
      }
      to->target = (enum placer_irq_target)i;
      return 0;
    }
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  bool ok = set && *s && strspn(s, "0123456789,-") == strlen(s) && placer_cpulist_parse(s, set) == 0 &&
            !hwloc_bitmap_iszero(set);
  hwloc_bitmap_free(set);
  if (!ok)
    return -1;
  to->target = PLACER_IRQ_TO_CPUS;
  if ((to->cpus = strdup(s)) == NULL) {
    *why = "out of memory";
    return -1;
  }
  return 0;
}

static int parse_to(struct pyaml_walk *w, const char *key, yaml_node_t *v, bool role, struct placer_irq_to *to) {
  const char *why = NULL;
  if (!pyaml_walk_is_scalar(v) || *pyaml_walk_scalar(v) == '\0') {
    irq_to_parse("", role, to, &why);
    return pyaml_walk_key_error(w, v, key, "%s", why);
  }
  const char *s = pyaml_walk_scalar(v);
  to->line = (unsigned)v->start_mark.line + 1;
  to->col = (unsigned)v->start_mark.column + 1;
  if (irq_to_parse(s, role, to, &why) == 0)
    return 0;
  if (strncmp(why, "expected", 8) == 0)
    return pyaml_walk_key_error(w, v, key, "%s, got '%s'", why, s);
  return pyaml_walk_key_error(w, v, key, "%s", why);
}

int placer_profile_set_irq(struct placer_profile *profile, const char *assignment, const char *device, const char *to,
                           struct placer_error **err) {
  if (*device == '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': expected irqs.DEVICE=TO", assignment);
  size_t i = 0;
  while (i < profile->n_irqs && strcmp(profile->irqs[i].device, device) != 0)
    i++;
  if (i == profile->n_irqs) {
    struct placer_irq_spec *bigger = realloc(profile->irqs, (i + 1) * sizeof(*bigger));
    if (bigger == NULL)
      return placer_error_oom(err, NULL);
    profile->irqs = bigger;
    memset(&bigger[i], 0, sizeof(bigger[i]));
    if ((bigger[i].device = strdup(device)) == NULL)
      return placer_error_oom(err, NULL);
    profile->n_irqs++;
  }
  const char *why = NULL;
  struct placer_irq_to parsed = { 0 };
  if (irq_to_parse(to, false, &parsed, &why) < 0) {
    placer_irq_to_clear(&parsed);
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--set '%s': %s", assignment, why);
  }
  placer_irq_to_clear(&profile->irqs[i].to);
  profile->irqs[i].to = parsed; /* line 0: from --set, not the file */
  profile->irqs[i].line = 0;
  return 0;
}

int placer_profile_parse_role_irqs(struct pyaml_walk *w, const struct pyaml_field *field, yaml_node_t *v,
                                   void *target) {
  struct placer_role_spec *role = target;
  if (parse_to(w, field->key, v, true, &role->irqs) < 0)
    return -1;
  role->has_irqs = true;
  return 0;
}

int placer_profile_check_role_irqs(struct pyaml_walk *w, const struct placer_role_spec *role, yaml_node_t *rn) {
  if (!role->has_irqs)
    return 0;
  if (role->count_mode == PLACER_COUNT_PER_DEVICE || role->near == PLACER_NEAR_NIC)
    return 0;
  return pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, rn, "irqs"), "irqs",
                              "the IRQs of the device or NIC an instance is near: the role needs per_device or "
                              "locality near: nic (list other devices under the top-level irqs:)");
}

/* irqs[].device: the value and where it is. */
static int parse_device(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_irq_spec *spec = target;
  if (!pyaml_walk_is_scalar(v) || *pyaml_walk_scalar(v) == '\0')
    return pyaml_walk_key_error(w, v, f->key, "expected a block device, a NIC or a PCI address such as 0000:00:02.0");
  free(spec->device);
  if ((spec->device = strdup(pyaml_walk_scalar(v))) == NULL)
    return nomem(w);
  spec->line = (unsigned)v->start_mark.line + 1;
  spec->col = (unsigned)v->start_mark.column + 1;
  return 0;
}

static int parse_spec_to(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_irq_spec *spec = target;
  return parse_to(w, f->key, v, false, &spec->to);
}

static const struct pyaml_field irq_fields[] = {
  { .key = "device", .type = PYAML_FIELD_CUSTOM, .parse = parse_device },
  { .key = "to", .type = PYAML_FIELD_CUSTOM, .parse = parse_spec_to },
  { .key = "optional", .type = PYAML_FIELD_BOOL, .offset = offsetof(struct placer_irq_spec, optional) },
};
static const struct pyaml_schema irq_schema = { "irqs entry", irq_fields, N_OF(irq_fields) };

int placer_profile_parse_irqs(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_profile *profile = target;
  if (v->type != YAML_SEQUENCE_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a list of {device: ..., to: ...}");
  size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
  if (n && (profile->irqs = calloc(n, sizeof(*profile->irqs))) == NULL)
    return nomem(w);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
    struct placer_irq_spec *spec = &profile->irqs[i];
    profile->n_irqs = i + 1;
    size_t saved = pyaml_walk_push(w, "%s[%zu]", f->key, i);
    int rc = pyaml_walk_mapping(w, item, &irq_schema, spec);
    if (rc == 0 && spec->device == NULL)
      rc = pyaml_walk_error(w, item, "missing key 'device' (a block device, a NIC or a PCI address)");
    if (rc == 0 && pyaml_walk_lookup(w, item, "to") == NULL)
      rc = pyaml_walk_error(w, item, "missing key 'to' (reserve, nic_cores, none or a cpu list)");
    if (rc == 0 && spec->optional && strcmp(spec->device, "auto") == 0)
      rc = pyaml_walk_key_error(w, pyaml_walk_lookup(w, item, "optional"), "optional",
                                "auto stands for the NICs reserve.nics gives cores to, which are there: name the "
                                "device that may be absent (a NIC or a PCI address)");
    for (size_t k = 0; rc == 0 && k < i; k++)
      if (strcmp(profile->irqs[k].device, spec->device) == 0)
        rc = pyaml_walk_key_error(w, pyaml_walk_lookup(w, item, "device"), "device",
                                  "'%s' is listed twice (first at line %u)", spec->device, profile->irqs[k].line);
    pyaml_walk_pop(w, saved);
    if (rc < 0)
      return -1;
  }
  return 0;
}

void placer_profile_irqs_free(struct placer_profile *profile) {
  for (size_t i = 0; i < profile->n_irqs; i++) {
    free(profile->irqs[i].device);
    placer_irq_to_clear(&profile->irqs[i].to);
  }
  free(profile->irqs);
  profile->irqs = NULL;
  profile->n_irqs = 0;
}
