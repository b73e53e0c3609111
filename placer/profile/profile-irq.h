/* The irqs: keys of a profile (top level and per role): where the IRQs of
 * devices and NICs go.  Schema in docs/profiles.md, "IRQs"; the planner
 * (planner-irq.c) resolves devices and cpus against the node. */
#ifndef PLACER_PROFILE_IRQ_H
#define PLACER_PROFILE_IRQ_H

#include <yaml.h>

#include "profile/profile.h"

struct pyaml_walk;
struct pyaml_field;
/* pyaml CUSTOM parsers: the top-level list (target: the profile) and a
 * role's value (target: the role). */
int placer_profile_parse_irqs(struct pyaml_walk *w, const struct pyaml_field *field, yaml_node_t *value, void *target);
int placer_profile_parse_role_irqs(struct pyaml_walk *w, const struct pyaml_field *field, yaml_node_t *value,
                                   void *target);
/* A role's irqs: need a device or NIC to be near (per_device, near: nic). */
int placer_profile_check_role_irqs(struct pyaml_walk *w, const struct placer_role_spec *role, yaml_node_t *role_node);
void placer_irq_to_clear(struct placer_irq_to *to);
/* placer_profile_set's "irqs.DEVICE=TO" (ASSIGNMENT, for messages): DEVICE's top-level
 * entry set to TO, or added. */
int placer_profile_set_irq(struct placer_profile *profile, const char *assignment, const char *device, const char *to,
                           struct placer_error **err);
void placer_profile_irqs_free(struct placer_profile *profile);

#endif
