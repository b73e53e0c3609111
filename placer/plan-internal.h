/* Shared between plan.c and planner.c; not part of the public API. */
#ifndef PLACER_PLAN_INTERNAL_H
#define PLACER_PLAN_INTERNAL_H

#include "plan.h"

/* Free what an instance owns and zero it. */
void placer_instance_clear(struct placer_instance *inst);
/* Free the plan's NIC cores, IRQ rules and IRQs (planner-irq.c). */
void placer_plan_irqs_clear(struct placer_plan *plan);

#endif
