/* A variant's IRQs (its profile's irqs:) in place for its passes, as its
 * groups are: through apply's IRQ transaction, journaled in the results'
 * directory (OUT/irq-state), the previous variant's taken back before the
 * next is steered, and all of them at the cluster's teardown, after a
 * failure or Ctrl-C too; a study whose variants differ only in irqs: is an
 * A/B of IRQ placement (docs/bench.md).  A results directory is data, not
 * state: only the IRQs of a study that steers some are ever set back, never
 * through a link, and only what placer recorded there itself in this boot
 * (apply's state checks: the boot and directory its irq.json was written
 * for, the node's IRQ owners). */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "apply/apply.h"
#include "internal.h"

static char *state_dir(const struct bench *b) {
  return bench_path_join(b->out, "irq-state");
}

static bool steers_irqs(const struct bench *b) {
  for (size_t i = 0; i < b->n_vars; i++)
    if (b->vars[i].plan && b->vars[i].plan->n_irq_rules)
      return true;
  return false;
}

int bench_irqs_reset(struct bench *b, struct placer_error **err) {
  if (b->irqs_of == NULL && !steers_irqs(b))
    return 0; /* this study steers none: an irq-state there is not its own */
  cleanup_free char *dir = state_dir(b);
  if (dir == NULL)
    return placer_error_oom(err, "bench IRQs");
  struct stat st;
  if (b->irqs_of == NULL && lstat(dir, &st) < 0)
    return 0; /* never steered: nothing to take back */
  if (b->irqs_of == NULL && !S_ISDIR(st.st_mode))
    return placer_error_set(err, PLACER_EXIT_USAGE, EPERM,
                            "%s is %s, not the IRQ state placer keeps there: nothing set back; remove it", dir,
                            S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
  struct placer_reset_result res = { 0 };
  if (placer_reset_irqs(dir, &res, err) < 0)
    return placer_error_prefix(err, "set the IRQs back");
  if (res.n_irqs_restored)
    bench_progress(b, "IRQs of %s set back (%zu)", b->irqs_of ? b->irqs_of->spec->name : "an earlier run",
                   res.n_irqs_restored);
  placer_reset_result_clear(&res);
  b->irqs_of = NULL;
  return 0;
}

int bench_irqs_check(const struct bench *b, struct placer_error **err) {
  for (size_t i = 0; i < b->n_vars; i++) {
    pid_t irqbalance = b->vars[i].plan->n_irq_rules ? placer_irqbalance_pid() : 0;
    /* apply would refuse at the variant's pass, after the others ran */
    if (irqbalance)
      return placer_error_set(err, PLACER_EXIT_USAGE, EBUSY,
                              "variant '%s' steers IRQs (irqs:) and irqbalance is running (pid %d): it would move "
                              "them between runs; stop irqbalance for the study",
                              b->vars[i].spec->name, (int)irqbalance);
  }
  return 0;
}

int bench_irqs_place(struct bench *b, struct variant *v, struct placer_error **err) {
  if (b->irqs_of == v)
    return 0;
  if (bench_irqs_reset(b, err) < 0)
    return -1;
  if (v->plan->n_irq_rules == 0)
    return 0;
  cleanup_free char *dir = state_dir(b);
  if (dir == NULL)
    return placer_error_oom(err, "bench IRQs");
  struct placer_apply_options opt = { .state_dir = dir, .irqs_only = true };
  struct placer_apply_report *r = NULL;
  if (placer_apply(v->plan, &opt, &r, err) < 0)
    return placer_error_prefix(err, "variant '%s': its IRQs", v->spec->name);
  size_t managed = 0;
  for (size_t i = 0; i < r->n_irqs; i++)
    managed += r->irqs[i].managed;
  bench_progress(b, "%s: %zu IRQs steered, %zu managed by the kernel (left where it puts them)", v->spec->name,
                 r->n_irqs - managed, managed);
  placer_apply_report_free(r);
  b->irqs_of = v;
  return 0;
}
