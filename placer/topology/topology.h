/* The node as placer sees it: NUMA nodes, cores with their PUs, L3 groups
 * and L2 clusters, block devices and NICs with their NUMA locality.  Loaded
 * once (live through hwloc, or from an hwloc XML file) into plain arrays;
 * everything after the load is pure data that the planner and the printers
 * read. */
#ifndef PLACER_TOPOLOGY_H
#define PLACER_TOPOLOGY_H

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "topology/irq.h"
#include "lib/cpulist.h"
#include "lib/error.h"

struct placer_numa_node {
  unsigned os_index;
  uint64_t memory_bytes; /* local memory; 0 when the XML does not say */
  hwloc_bitmap_t cpus;   /* OS indexes of the PUs local to this node */
  unsigned package;      /* logical index of the package holding it */
};

struct placer_core {
  unsigned logical_index; /* 0..n_cores-1 in topology order */
  unsigned os_index;      /* the kernel's core_id (repeats across packages) */
  unsigned package;       /* logical index of its package */
  int numa_node;          /* os_index of its NUMA node, -1 when unknown */
  int l3_group;           /* index into l3_groups, -1 when no L3 is known */
  int l2_cluster;         /* index into l2_clusters, -1 when its L2 is its own or unknown */
  hwloc_bitmap_t pus;     /* OS indexes of its PUs (SMT siblings) */
};

/* The cores sharing one cache. */
struct placer_cache_group {
  uint64_t size_bytes;
  hwloc_bitmap_t cpus;
};

enum placer_device_kind {
  PLACER_DEVICE_UNKNOWN = 0,
  PLACER_DEVICE_NVME,
  PLACER_DEVICE_SSD,
  PLACER_DEVICE_HDD,
};

struct placer_blockdev {
  char *name; /* "nvme0n1", "sda" */
  enum placer_device_kind kind;
  uint64_t size_bytes;       /* 0 when unknown */
  char *pci_busid;           /* "0000:11:00.0", NULL when not on PCI */
  char *model;               /* NULL when unknown */
  hwloc_bitmap_t numa_nodes; /* OS indexes; empty when locality is unknown */
};

struct placer_nic {
  char *name;           /* "ens1f0" */
  char *pci_busid;      /* NULL when not on PCI */
  char *address;        /* MAC / IB GID, NULL when unknown */
  uint64_t speed_mbps;  /* 0 when unknown */
  double pci_link_gbps; /* the PCI device's link, GB/s (hwloc); 0 when unknown */
  bool ethernet;        /* address is a 6-byte MAC (not an InfiniBand GID) */
  char **ip_addresses;  /* live only: the IPv4/IPv6 addresses it holds */
  size_t n_ip_addresses;
  hwloc_bitmap_t numa_nodes; /* OS indexes; empty when locality is unknown */
};

struct placer_topology {
  hwloc_topology_t hw;
  char *source; /* "live" or the XML path as given */
  bool is_live;

  unsigned n_packages;
  struct placer_numa_node *numa_nodes;
  size_t n_numa_nodes; /* sorted by os_index */
  struct placer_core *cores;
  size_t n_cores; /* topology order */
  struct placer_cache_group *l3_groups;
  size_t n_l3_groups;
  /* L2 caches shared by several cores (Intel E-core modules, Arm and KNL
   * clusters), in topology order; none where every core has its own */
  struct placer_cache_group *l2_clusters;
  size_t n_l2_clusters;
  struct placer_blockdev *blockdevs;
  size_t n_blockdevs; /* sorted by name */
  struct placer_nic *nics;
  size_t n_nics; /* sorted by name */

  /* Live only: the Ceph public/cluster networks of ceph.conf ($CEPH_CONF,
   * else /etc/ceph/ceph.conf), in CIDR notation; how `nic: auto` finds the
   * storage NICs when the profile names no storage_network. */
  char **storage_networks;
  size_t n_storage_networks;

  /* NUMA distance matrix (row-major, n_numa_nodes^2, same order as
   * numa_nodes), NULL when the topology does not provide one. */
  uint64_t *distances;

  /* Live only: the node's interrupts (irq.h), NULL from XML or when they could not be
   * read (irqs_error says why). */
  struct placer_irq_inventory *irqs;
  char *irqs_error;

  hwloc_bitmap_t online_cpus;  /* every PU of the topology */
  hwloc_bitmap_t allowed_cpus; /* PUs this process may use */
  hwloc_bitmap_t allowed_mems; /* NUMA nodes this process may use */
};

/* Load from an hwloc XML file, or the live machine when xml_path is NULL.
 * Errors (missing, unreadable, corrupt or too-new XML) exit with
 * PLACER_EXIT_USAGE and name the file. */
int placer_topology_load(const char *xml_path, struct placer_topology **out, struct placer_error **err);
/* The same from LEN bytes of hwloc XML in memory (what the fuzz harness
 * feeds); NAME stands for the file in messages and as the source. */
int placer_topology_load_xml_buffer(const char *name, const char *xml, size_t len, struct placer_topology **out,
                                    struct placer_error **err);
void placer_topology_free(struct placer_topology *topo);
/* Replace TOPO's IRQs by those read below ROOT ("" for this machine; a captured tree
 * in tests, placer/irq.h). */
int placer_topology_load_irqs(struct placer_topology *topo, const char *root, struct placer_error **err);

/* hwloc 2.9's XML importer crashes on some corrupt files (lstopo does too);
 * placer refuses the shapes found so far before hwloc sees them (topology.c)
 * but cannot know every one.  The library never prints, so a program that
 * wants one error line rather than a core dump sets a guard: enter() runs
 * just before the one call into hwloc's importer, with the file's name as
 * messages give it, and leave() just after.  Process-wide, like signals;
 * NULL (the default) turns it off.  The command line's: cli/xml-guard.c. */
struct placer_topology_xml_guard {
  void (*enter)(const char *name);
  void (*leave)(void);
};
void placer_topology_set_xml_guard(const struct placer_topology_xml_guard *guard);

/* Look-ups; NULL / -1 when absent. */
int placer_topology_numa_pos(const struct placer_topology *topo, unsigned os_index);
/* Distance between two NUMA nodes (by os_index); 0 when unknown. */
uint64_t placer_topology_distance(const struct placer_topology *topo, unsigned from_os, unsigned to_os);

const char *placer_device_kind_name(enum placer_device_kind kind);

/* The networks named by `public network` / `cluster network` (any spelling
 * with spaces or underscores, any section) in the text of a ceph.conf, each
 * a comma-separated CIDR list.  Appends to *nets / *n (caller frees each and
 * the array); -1 on ENOMEM. */
int placer_ceph_conf_networks(const char *text, char ***nets, size_t *n);

/* Output: JSON (schema documented in docs/topology.md) and text for a person. */
#include <jansson.h>
json_t *placer_topology_to_json(const struct placer_topology *topo);
int placer_topology_print_text(const struct placer_topology *topo, FILE *out);

#define PLACER_TOPOLOGY_JSON_SCHEMA 1

#endif
