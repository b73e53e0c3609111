/* Memory locality of an instance: how much of its processes' resident memory
 * sits on each NUMA node (/proc/PID/numa_maps), against the nodes its plan
 * gives it.  A remote-memory OSD is what placement is meant to prevent.  The
 * parser and the arithmetic are pure (unit-tested on captured numa_maps); the
 * reader takes a proc root; libnuma tells which nodes the host has.
 * Depends on lib/ only; status and bench use it. */
#ifndef PLACER_NUMA_LOCALITY_H
#define PLACER_NUMA_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

/* The kernel's MAX_NUMNODES is at most 1024 (CONFIG_NODES_SHIFT 10). */
#define PLACER_NUMA_MAX_NODES 1024

/* Resident bytes per node, summed over the processes added. */
struct placer_numa_usage {
  uint64_t *node_bytes; /* indexed by the node's OS index */
  size_t n_nodes;       /* entries in node_bytes (highest node seen + 1) */
  size_t n_processes;   /* numa_maps files added */
};
void placer_numa_usage_clear(struct placer_numa_usage *u);
/* Total resident bytes over all nodes. */
uint64_t placer_numa_usage_bytes(const struct placer_numa_usage *u);

/* Add the text of one /proc/PID/numa_maps to *u: on each line, every "N<node>=<pages>"
 * times that mapping's "kernelpagesize_kB" (4 when the line has none).  Lines
 * without N entries (nothing resident) add nothing.  -1 on a malformed entry, a
 * node >= PLACER_NUMA_MAX_NODES or a total of 2^64 bytes or more (over every
 * node, *u's included); *u is unchanged then. */
int placer_numa_maps_parse(const char *text, struct placer_numa_usage *u, struct placer_error **err);
/* Read PROC_ROOT/PID/numa_maps and add it.  1 (and *u unchanged) when the
 * process is gone; -1 with the path and errno when it cannot be read. */
int placer_numa_usage_add_pid(const char *proc_root, pid_t pid, struct placer_numa_usage *u, struct placer_error **err);

/* *u against PLANNED_MEMS ("0", "0-1"). */
struct placer_numa_locality {
  uint64_t resident_bytes;
  uint64_t local_bytes; /* on the planned nodes */
  double local_share;   /* local / resident in [0, 1]; NAN when nothing is resident */
};
int placer_numa_locality(const struct placer_numa_usage *u, const char *planned_mems, struct placer_numa_locality *out,
                         struct placer_error **err);
/* "100%", or the local share and each other node's share, largest first:
 * "37% (N1 63%)", "90% (N1 8%, N3 2%)"; "-" when nothing is resident.  A
 * share is rounded but never shown as 100% (or 0%) when it is not: "99%",
 * "N1 <1%".  Caller frees; NULL on ENOMEM or a bad PLANNED_MEMS. */
char *placer_numa_locality_format(const struct placer_numa_usage *u, const char *planned_mems);

/* The host through libnuma. */
struct placer_numa_host {
  bool available;       /* numa_available(): the kernel has NUMA (numa_maps exist) */
  int n_nodes;          /* numa_max_node() + 1; 1 when not available */
  uint64_t *node_bytes; /* numa_node_size64() of each node, 0 for a node without memory */
};
/* Never fails: without NUMA support it says so (available false, one node). */
void placer_numa_host_read(struct placer_numa_host *out);
void placer_numa_host_clear(struct placer_numa_host *h);

#endif
