/* What placer watch's two halves share: watch-apply.c (the profile applied,
 * the place and reload hooks, the life) and watch-keep.c (the check hook:
 * group values, steered IRQs and the node's new IRQs). */
#ifndef PLACER_WATCH_APPLY_INTERNAL_H
#define PLACER_WATCH_APPLY_INTERNAL_H

#include <stdint.h>

#include "cgroup.h"
#include "lib/string-list.h"
#include "placement.h"
#include "plan.h"
#include "profile.h"
#include "state.h"
#include "topology.h"
#include "watch/watch-apply.h"

struct keeper {
  const struct placer_watch_apply_options *opt;
  const char *state_dir;
  struct placer_cgroup *cg;
  struct placer_state *state; /* state.json, locked for the watcher's whole life */
  struct placer_watch *w;
  /* the plan in force */
  struct placer_profile *profile;
  struct placer_topology *topo;
  struct placer_plan *plan;
  struct placer_placement *pl;
  uint64_t irq_signature; /* the IRQ numbers of /proc/interrupts when it was planned; 0: not followed */
  /* The lines said before the plan is in force, said once it is: a watcher
   * refused (bad input, not root, the lock held) prints its one error line
   * and nothing on stdout. */
  bool started;
  struct placer_string_list early;
};

/* One line through the log hook. */
void keeper_say(struct keeper *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Plan the profile again and apply it as a transaction; the running plan
 * stays when it fails (ERR says why).  WHY starts the line it logs. */
int keeper_reapply(struct keeper *k, const char *why, struct placer_error **err);
/* watch-keep.c: the check hook. */
int keeper_check(void *ctx, struct placer_watch *w, struct placer_error **err);
/* The IRQ numbers /proc/interrupts lists now, as one number. */
uint64_t keeper_irq_signature(void);

#endif
