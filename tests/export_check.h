/* Checks on `placer export` output, parsed back from its text (not from
 * the writers' own sets), shared by the unit tests (test_export_*.c) and the
 * fuzz harness (fuzz_export.c): is each unit well-formed in its syntax, and
 * which CPUs does it hand to VMs or pods. */
#ifndef PLACER_TEST_EXPORT_CHECK_H
#define PLACER_TEST_EXPORT_CHECK_H

#include <hwloc.h>
#include <stddef.h>

#include "export/export.h"
#include "plan/plan.h"

/* NULL when TEXT is well-formed in SYNTAX, else what is wrong and where
 * (written into WHY, LEN bytes).  XML: one root element, balanced tags,
 * quoted attributes, comments without "--"; INI: blank, comment, [section]
 * or key = value lines; YAML: libyaml loads one document, a mapping;
 * SCRIPT/SHELL: quotes balanced and no shell metacharacter outside them,
 * SHELL lines NAME=VALUE. */
const char *export_check_syntax(enum placer_export_syntax syntax, const char *text, char *why, size_t len);

/* The CPUs no VM or pod may have: the host reserve and every Ceph daemon's. */
void export_check_kept(const struct placer_plan *plan, hwloc_bitmap_t out);

/* The CPUs the output of format NAME hands to VMs or pods, read from its
 * text: libvirt's <vcpu cpuset> and vcpupin, virsh vcpupin, Nova's
 * cpu_shared_set and cpu_dedicated_set, qm --affinity, what kubelet's
 * reservedSystemCPUs leaves to pods, the AllowedCPUs of a vm's drop-in,
 * tuned's no_balance_cores (the pinned guests').  Also checks what each
 * format says against the plan (a Crimson OSD's sets inside its CPUs and
 * apart, osd_numa_node, numatune's nodeset, irqbalance's banned list off
 * the reserve).  NULL when all holds, else the first problem in WHY. */
const char *export_check_output(const char *name, const struct placer_export_output *out,
                                const struct placer_plan *plan, hwloc_bitmap_t guest, char *why, size_t len);

#endif
