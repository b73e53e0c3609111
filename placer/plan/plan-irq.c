/* The IRQ part of a plan, printed: the rules and, on a live node, every IRQ
 * with where it goes (text: a table under the instances; JSON: "irq_rules"
 * and "irqs", only when the profile has irqs:). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text-table.h"
#include "plan/plan.h"
#include "lib/json-str.h"

static const char *rule_for(const struct placer_plan_irq_rule *r) {
  return r->instance ? r->instance : "-";
}

int placer_plan_irqs_print_text(const struct placer_plan *plan, FILE *out) {
  if (plan->n_irq_rules == 0)
    return 0;
  struct placer_table t = { 0 };
  if (!plan->irqs_known) {
    fprintf(out, "\nirqs (this node's IRQ numbers are read when planning on it):\n");
    placer_table_row(&t, false);
    placer_table_cell_l(&t, "  DEVICE");
    placer_table_cell_l(&t, "FOR");
    placer_table_cell_l(&t, "TO");
    for (size_t i = 0; i < plan->n_irq_rules; i++) {
      const struct placer_plan_irq_rule *r = &plan->irq_rules[i];
      cleanup_free char *cpus = placer_cpulist_format(r->cpus);
      placer_table_row(&t, false);
      placer_table_cell_l(&t, "  %s", r->device);
      placer_table_cell_l(&t, "%s", rule_for(r));
      if (r->pending)
        placer_table_cell_l(&t, "not present: cpus %s when it appears (%s)", cpus ? cpus : "?",
                            placer_irq_target_name(r->target));
      else if (r->target == PLACER_IRQ_TO_NONE)
        placer_table_cell_l(&t, "left where they are (none)");
      else
        placer_table_cell_l(&t, "cpus %s%s (%s)", cpus ? cpus : "?", r->spread ? ", one IRQ per cpu" : "",
                            placer_irq_target_name(r->target));
    }
    return placer_table_print(&t, out);
  }
  size_t n_managed = 0;
  for (size_t i = 0; i < plan->n_irqs; i++)
    n_managed += plan->irqs[i].managed;
  fprintf(out, "\nirqs: %zu steered, %zu managed by the kernel (reported, never moved)\n", plan->n_irqs - n_managed,
          n_managed);
  placer_table_row(&t, false);
  placer_table_cell_r(&t, "  IRQ");
  placer_table_cell_l(&t, "NAME");
  placer_table_cell_l(&t, "DEVICE");
  placer_table_cell_l(&t, "FOR");
  placer_table_cell_l(&t, "FROM");
  placer_table_cell_l(&t, "TO");
  for (size_t i = 0; i < plan->n_irqs; i++) {
    const struct placer_plan_irq *q = &plan->irqs[i];
    placer_table_row(&t, false);
    placer_table_cell_r(&t, "  %u", q->irq);
    placer_table_cell_l(&t, "%s", q->name);
    placer_table_cell_l(&t, "%s", q->device);
    placer_table_cell_l(&t, "%s", q->instance ? q->instance : "-");
    placer_table_cell_l(&t, "%s", q->from ? q->from : "?");
    if (q->managed)
      placer_table_cell_l(&t, "managed: completes on cpu %s%s", q->effective ? q->effective : "?",
                          q->instance ? (q->on_own_cpus ? " (its own)" : " (not its own)") : "");
    else
      placer_table_cell_l(&t, "%s", q->to);
  }
  for (size_t i = 0; i < plan->n_irq_rules; i++)
    if (plan->irq_rules[i].pending) {
      cleanup_free char *cpus = placer_cpulist_format(plan->irq_rules[i].cpus);
      placer_table_row(&t, true);
      placer_table_cell_l(&t, "  %s (%s): not present: its IRQs go to cpus %s when it appears",
                          plan->irq_rules[i].device, rule_for(&plan->irq_rules[i]), cpus ? cpus : "?");
    } else if (plan->irq_rules[i].target == PLACER_IRQ_TO_NONE) {
      placer_table_row(&t, true);
      placer_table_cell_l(&t, "  %s (%s): left where they are (none)", plan->irq_rules[i].device,
                          rule_for(&plan->irq_rules[i]));
    }
  if (placer_table_print(&t, out) < 0)
    return -1;
  /* per instance: how many of its device's managed queues complete on its own cpus */
  for (size_t i = 0; i < plan->n_instances; i++) {
    size_t own, managed;
    placer_plan_irq_own_share(plan, plan->instances[i].name, &own, &managed);
    if (managed)
      fprintf(out, "  %s: %zu of the %zu managed queue IRQs of %s complete on its own cpus\n", plan->instances[i].name,
              own, managed, plan->instances[i].device ? plan->instances[i].device : plan->instances[i].nic);
  }
  return 0;
}

int placer_plan_irqs_to_json(const struct placer_plan *plan, json_t *doc) {
  if (plan->n_irq_rules == 0)
    return 0; /* older readers and the golden plans of profiles without irqs: see no change */
  json_t *rules = json_array(), *irqs = json_array();
  for (size_t i = 0; i < plan->n_irq_rules; i++) {
    const struct placer_plan_irq_rule *r = &plan->irq_rules[i];
    json_t *j = json_object();
    char *cpus = placer_cpulist_format(r->cpus);
    json_object_set_new(j, "device", json_string(r->device));
    json_object_set_new(j, "instance", placer_json_str_or_null(r->instance));
    json_object_set_new(j, "to", json_string(placer_irq_target_name(r->target)));
    json_object_set_new(j, "cpus", json_string(cpus ? cpus : ""));
    json_object_set_new(j, "spread", json_boolean(r->spread));
    json_object_set_new(j, "optional", json_boolean(r->optional));
    json_object_set_new(j, "pending", json_boolean(r->pending));
    free(cpus);
    json_array_append_new(rules, j);
  }
  for (size_t i = 0; i < plan->n_irqs; i++) {
    const struct placer_plan_irq *q = &plan->irqs[i];
    json_t *j = json_object();
    json_object_set_new(j, "irq", json_integer(q->irq));
    json_object_set_new(j, "name", json_string(q->name));
    json_object_set_new(j, "device", json_string(q->device));
    json_object_set_new(j, "instance", placer_json_str_or_null(q->instance));
    json_object_set_new(j, "from", placer_json_str_or_null(q->from));
    json_object_set_new(j, "to", placer_json_str_or_null(q->to));
    json_object_set_new(j, "managed", json_boolean(q->managed));
    json_object_set_new(j, "effective", placer_json_str_or_null(q->effective));
    if (q->managed && q->instance)
      json_object_set_new(j, "on_own_cpus", json_boolean(q->on_own_cpus));
    json_array_append_new(irqs, j);
  }
  json_object_set_new(doc, "irq_rules", rules);
  json_object_set_new(doc, "irqs_known", json_boolean(plan->irqs_known));
  json_object_set_new(doc, "irqs", irqs);
  return 0;
}
