/* Shared between plan.c and planner.c; not part of the public API. */
#ifndef PLACER_PLAN_INTERNAL_H
#define PLACER_PLAN_INTERNAL_H

#include "plan/plan.h"

/* Free what an instance owns and zero it. */
void placer_instance_clear(struct placer_instance *inst);
/* Where DEVICE's managed queue IRQs complete (their effective affinity) on a node whose
 * IRQs are known, into OUT (empty otherwise): the planner takes these cpus first among
 * equivalent ones for an instance whose role has irqs: (planner-irq.c). */
void placer_plan_irq_queue_cpus(const struct placer_topology *topo, const char *device, hwloc_bitmap_t out);
/* Free the plan's NIC cores, IRQ rules and IRQs. */
void placer_plan_irqs_clear(struct placer_plan *plan);
/* Free the plan's MDS facts (planner-mds.c). */
void placer_plan_mds_clear(struct placer_plan *plan);

#endif
