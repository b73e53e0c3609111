/* placer watch's IRQ check: each IRQ irq.json steers against its plan, as
 * status compares it, and one moved by someone written back as apply wrote
 * it (its original is in the journal already: reset still restores that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply-irq.h"
#include "lib/cpulist.h"

void placer_apply_irqs_kept_free(struct placer_apply_irq_kept *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) {
    free(v[i].name);
    free(v[i].instance);
    free(v[i].line);
  }
  free(v);
}

/* What differs about steered IRQ Q now; NULL when nothing (or out of memory). */
static char *irq_drift_line(const char *root, const struct placer_state_irq *q, bool *movable) {
  cleanup_free char *now = NULL, *name = NULL;
  enum irq_now seen = irq_now(root, q, &now, &name);
  char *line = NULL;
  *movable = false;
  if (seen == IRQ_NOW_GONE && !q->optional) { /* an optional device's: the watcher's re-plan says it */
    if (asprintf(&line, "IRQ %u (%s) is gone%s%s", q->irq, q->name ? q->name : "?", name ? ": it is " : "",
                 name ? name : "") < 0)
      line = NULL;
  } else if (seen == IRQ_NOW_MOVED) {
    *movable = true;
    if (asprintf(&line, "IRQ %u (%s): smp_affinity_list %s, planned %s", q->irq, q->name ? q->name : "?",
                 now ? now : "unreadable", q->planned) < 0)
      line = NULL;
  }
  return line;
}

int placer_apply_irqs_keep(const char *state_dir, const char *irq_root, bool fix, struct placer_apply_irq_kept **out,
                           size_t *n, struct placer_error **err) {
  *out = NULL;
  *n = 0;
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  if (!placer_state_file_exists(dir, PLACER_STATE_IRQ_FILE))
    return 0;
  struct irq_etc etc;
  irq_etc_defaults(&etc, NULL);
  if (irq_root)
    etc.root = irq_root;
  struct placer_state *s = NULL;
  if (irq_state_open_checked(dir, false, &etc, &s, err) < 0)
    return -1;
  struct placer_apply_irq_kept *v = calloc(s->n_irqs ? s->n_irqs : 1, sizeof(*v));
  if (v == NULL) {
    placer_state_free(s);
    return placer_error_oom(err, NULL);
  }
  size_t count = 0;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < s->n_irqs; i++) {
    const struct placer_state_irq *q = &s->irqs[i];
    if (q->planned == NULL || q->managed)
      continue; /* the kernel keeps it: reported by status, never moved */
    struct placer_apply_irq_kept *k = &v[count++];
    k->irq = q->irq;
    k->name = strdup(q->name ? q->name : "");
    k->instance = q->instance ? strdup(q->instance) : NULL;
    bool movable = false;
    k->line = irq_drift_line(etc.root, q, &movable);
    if (k->name == NULL || (q->instance && k->instance == NULL)) {
      rc = placer_error_oom(err, NULL);
      break;
    }
    if (fix && movable && k->line) {
      struct placer_error *refused = NULL;
      if (irq_write_affinity(etc.root, q->irq, q->planned, &refused) == 0) {
        k->fixed = true;
      } else {
        /* said in its line, not fatal: the next check tries again */
        char *line = NULL;
        if (asprintf(&line, "%s (writing it back: %s)", k->line, refused->msg) >= 0) {
          free(k->line);
          k->line = line;
        }
        placer_error_free(refused);
      }
    }
  }
  placer_state_free(s);
  if (rc < 0) {
    placer_apply_irqs_kept_free(v, count);
    return -1;
  }
  *out = v;
  *n = count;
  return 0;
}
