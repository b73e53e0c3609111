/* OS-index lists in the kernel's cpuset syntax ("0-7,16-23") to and from hwloc bitmaps. */
#ifndef PLACER_CPULIST_H
#define PLACER_CPULIST_H

#include <hwloc.h>
#include <stdbool.h>

/* "0-7,16-23" for a bitmap; caller frees.  Empty bitmap gives "". */
char *placer_cpulist_format(hwloc_const_bitmap_t set);
/* Parse "0-7,16-23" (whitespace tolerant); -1 on bad syntax. */
int placer_cpulist_parse(const char *text, hwloc_bitmap_t set);
/* Same set of CPUs / nodes, whatever the spelling ("0-1" vs "0,1"); two
 * lists that do not parse are equal only when identical, NULL only to NULL. */
bool placer_cpulist_equal(const char *a, const char *b);
/* The K-th PU of SET in OS index order, wrapping around (K modulo the number
 * of PUs): where the vCPU with qemu cpu-index K is pinned, the one rule that
 * apply, run and `export --format libvirt` share (and the planner's spread
 * of a NIC's IRQs, one per PU).  -1 when SET is empty. */
int placer_cpulist_nth(hwloc_const_bitmap_t set, size_t k);

#endif
