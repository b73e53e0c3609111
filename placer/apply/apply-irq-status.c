/* placer status's IRQ part: every IRQ apply placed, from irq.json, against
 * its smp_affinity_list now, where it completes and its interrupts on each
 * CPU since apply; drift when one moved or is gone (apply-irq.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply-irq.h"
#include "lib/cpulist.h"

/* ------------------------------------------------------------------ status */

int irq_status(const char *state_dir, const struct placer_apply_options *opt, json_t *doc, bool *drift,
               struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  if (!placer_state_file_exists(dir, PLACER_STATE_IRQ_FILE))
    return 0;
  struct irq_etc etc;
  irq_etc_defaults(&etc, opt);
  struct placer_state *s = NULL;
  if (irq_state_open_checked(dir, false, &etc, &s, err) < 0)
    return -1;
  if (placer_state_is_empty(s)) {
    placer_state_free(s);
    return 0;
  }
  const char *root = etc.root;
  struct placer_interrupts in;
  if (placer_interrupts_read(root, &in, err) < 0) {
    placer_state_free(s);
    return -1;
  }
  json_t *irqs = json_array(), *problems = json_array();
  if (s->pending_txn)
    json_array_append_new(problems, json_sprintf("an IRQ apply (pid %d) was interrupted: its changes may be in force; "
                                                 "run 'placer reset' or apply again",
                                                 (int)s->pending_pid));
  for (size_t i = 0; i < s->n_irqs; i++) {
    const struct placer_state_irq *q = &s->irqs[i];
    int saved = 0;
    cleanup_free char *now = NULL, *name = NULL;
    enum irq_now seen = irq_now(root, q, &now, &name);
    cleanup_free char *effective = irq_read_line(root, q->irq, "effective_affinity_list", &saved);
    json_t *o = json_object(), *since = json_object();
    json_object_set_new(o, "irq", json_integer(q->irq));
    json_object_set_new(o, "name", json_string(q->name ? q->name : ""));
    json_object_set_new(o, "device", json_string(q->device ? q->device : ""));
    json_object_set_new(o, "instance", q->instance ? json_string(q->instance) : json_null());
    json_object_set_new(o, "managed", json_boolean(q->managed));
    json_object_set_new(o, "optional", json_boolean(q->optional));
    json_object_set_new(o, "gone", json_boolean(seen == IRQ_NOW_GONE));
    json_object_set_new(o, "planned", q->planned ? json_string(q->planned) : json_null());
    json_object_set_new(o, "actual", now ? json_string(now) : json_null());
    json_object_set_new(o, "effective", effective ? json_string(effective) : json_null());
    uint64_t *counts = NULL;
    unsigned n_cpus = 0;
    if (placer_interrupts_counts(&in, q->irq, &counts, &n_cpus) == 0)
      for (unsigned c = 0; c < n_cpus; c++) {
        uint64_t before = c < q->n_cpus ? q->counts[c] : 0;
        char key[16];
        snprintf(key, sizeof(key), "%u", c);
        json_object_set_new(since, key, json_integer((json_int_t)(counts[c] >= before ? counts[c] - before : 0)));
      }
    free(counts);
    json_object_set_new(o, "interrupts_since_apply", since);
    json_t *problem = NULL;
    if (seen == IRQ_NOW_GONE && !q->optional) /* an optional device's: pending until it is back */
      problem =
          json_sprintf("IRQ %u (%s) of %s is gone%s%s", q->irq, q->name ? q->name : "?", q->device ? q->device : "?",
                       name ? ": it is "
                            : " (its device removed, or its driver "
                              "unloaded)",
                       name ? name : "");
    else if (seen == IRQ_NOW_MOVED)
      problem = json_sprintf("IRQ %u (%s) of %s: smp_affinity_list %s, planned %s (moved by someone else: "
                             "irqbalance, a script?)",
                             q->irq, q->name, q->device, now ? now : "unreadable", q->planned);
    json_object_set_new(o, "ok", json_boolean(problem == NULL));
    if (problem)
      json_array_append_new(problems, problem);
    json_array_append_new(irqs, o);
  }
  placer_interrupts_clear(&in);
  json_object_set_new(doc, "irqs_profile", s->profile_name ? json_string(s->profile_name) : json_null());
  json_object_set_new(doc, "irqs_applied_at", s->applied_at ? json_string(s->applied_at) : json_null());
  json_object_set_new(doc, "irqs", irqs);
  if (json_array_size(problems)) {
    *drift = true;
    json_object_set_new(doc, "drift", json_true());
  }
  json_object_set_new(doc, "irq_problems", problems);
  placer_state_free(s);
  return 0;
}

int irq_status_print_text(json_t *doc, FILE *out) {
  json_t *irqs = json_object_get(doc, "irqs");
  if (!json_is_array(irqs))
    return 0;
  const char *profile = json_string_value(json_object_get(doc, "irqs_profile"));
  const char *applied = json_string_value(json_object_get(doc, "irqs_applied_at"));
  fputs("irqs of profile ", out);
  placer_text_put(out, profile);
  fputs(", applied ", out);
  placer_text_put(out, applied ? applied : "(interrupted)");
  fputs(":\n", out);
  size_t i;
  json_t *o;
  json_array_foreach(irqs, i, o) {
    const char *instance = json_string_value(json_object_get(o, "instance"));
    const char *effective = json_string_value(json_object_get(o, "effective"));
    fprintf(out, "  IRQ %lld ", (long long)json_integer_value(json_object_get(o, "irq")));
    placer_text_put(out, json_string_value(json_object_get(o, "name")));
    fputs(" (", out);
    placer_text_put(out, json_string_value(json_object_get(o, "device")));
    if (instance) {
      fputs(", ", out);
      placer_text_put(out, instance);
    }
    fputs("): ", out);
    if (json_is_true(json_object_get(o, "gone")) && json_is_true(json_object_get(o, "optional")))
      fputs("gone with its optional device, steered again when it is back", out);
    else if (json_is_true(json_object_get(o, "managed")))
      fprintf(out, "managed by the kernel, completes on cpu %s", effective ? effective : "?");
    else {
      fputs("planned ", out);
      placer_text_put(out, json_string_value(json_object_get(o, "planned")));
      fprintf(out, ", now %s, completes on cpu %s",
              json_is_string(json_object_get(o, "actual")) ? json_string_value(json_object_get(o, "actual")) : "-",
              effective ? effective : "?");
    }
    fprintf(out, "; since apply:");
    const char *cpu;
    json_t *count;
    json_object_foreach(json_object_get(o, "interrupts_since_apply"), cpu, count)
        fprintf(out, " cpu%s %lld", cpu, (long long)json_integer_value(count));
    fprintf(out, "%s\n", json_is_true(json_object_get(o, "ok")) ? "" : "  DRIFT");
  }
  json_array_foreach(json_object_get(doc, "irq_problems"), i, o) {
    fputs("DRIFT: ", out);
    placer_text_put(out, json_string_value(o));
    fputc('\n', out);
  }
  return ferror(out) ? -1 : 0;
}
