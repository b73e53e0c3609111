/* What placer watch's parts share: watch-apply.c (the profile applied, the
 * hooks, the life), watch-keep.c (the periodic check: group values,
 * steered IRQs, the node's IRQs), watch-vcpu.c (a VM's vCPU threads one
 * per PU) and watch-log.c (its log). */
#ifndef PLACER_WATCH_APPLY_INTERNAL_H
#define PLACER_WATCH_APPLY_INTERNAL_H

#include <stdint.h>

#include "cgroup/cgroup.h"
#include "lib/string-list.h"
#include "placement.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "state.h"
#include "topology/topology.h"
#include "watch/watch-apply.h"

struct keeper {
  const struct placer_watch_apply_options *opt;
  const char *state_dir;
  struct placer_cgroup *cg;
  /* Through systemd's units (apply's systemd backend), else placer's own
   * groups (cgroupfs). */
  bool by_units;
  /* state.json (cgroupfs) or systemd.json (systemd), locked for the
   * watcher's whole life */
  struct placer_state *state;
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

/* watch-log.c: the core's log hook (CTX: the keeper); one line through it;
 * the plan is in force: the lines held back said, and the next ones at once. */
void keeper_log(void *ctx, const char *line);
void keeper_say(struct keeper *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void keeper_started(struct keeper *k);
/* watch-keep.c: every interval, the journal and the model rid of exited
 * processes, the group values and steered IRQs compared (put back or
 * reported); the IRQ numbers /proc/interrupts lists now, as one number. */
int keeper_check(struct keeper *k, struct placer_watch *w, struct placer_error **err);
uint64_t keeper_irq_signature(void);
/* watch-vcpu.c: a pin_vcpus VM's qemu.  The core's thread_named hook (CTX:
 * the keeper): a vCPU thread qemu has just named pinned to its PU.  Every
 * interval: each vCPU thread compared with its PU, one never pinned pinned
 * now, one moved by someone put back or reported (DRIFTS[i] set for the
 * instance). */
int keeper_vcpu_named(void *ctx, pid_t pid, pid_t tid, uint64_t since_ns, struct placer_error **err);
int keeper_check_vcpus(struct keeper *k, bool *drifts, struct placer_error **err);

#endif
