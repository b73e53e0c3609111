/* What a Ceph OSD's own configuration says about its CPU affinity
 * (cephconf.c): osd_numa_auto_affinity and osd_numa_node from ceph.conf
 * ([global], [osd], [osd.N]) and from the daemon's command line.  With
 * auto affinity on (Ceph's default) an OSD whose storage and network sit on
 * one NUMA node sets its own threads' affinity to that node's CPUs after it
 * starts, replacing what placer put in force; placer warns (docs/apply.md). */
#ifndef PLACER_CEPHCONF_H
#define PLACER_CEPHCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proc.h"

struct placer_ceph_numa {
  int auto_affinity;     /* -1: not set anywhere placer looked (Ceph's default: true), 0, 1 */
  char auto_source[256]; /* where it was set: "/etc/ceph/ceph.conf [osd]", "the command line" */
  int numa_node;         /* -1: not set */
  char node_source[256];
};

void placer_ceph_numa_init(struct placer_ceph_numa *n);
/* Fold in ceph.conf TEXT (from PATH, for the sources) as daemon NAME
 * ("osd.3") reads it: [global], then [osd], then [osd.3]; keys in any
 * spelling (spaces, '-' or '_'). */
void placer_ceph_numa_from_conf(struct placer_ceph_numa *n, const char *text, const char *path, const char *name);
/* Fold in --osd_numa_auto_affinity[=]V and --osd_numa_node[=]V from CL
 * (the command line wins over the file). */
void placer_ceph_numa_from_cmdline(struct placer_ceph_numa *n, const struct placer_cmdline *cl);
/* The config file and cluster of a daemon's command line: -c/--conf, else
 * /etc/ceph/CLUSTER.conf (--cluster, default "ceph"); its id (-i/--id).
 * Caller frees *conf and *id (NULL when absent). */
int placer_ceph_cmdline_conf(const struct placer_cmdline *cl, char **conf, char **id);
/* The warning for instance INST (an OSD planned on NUMA nodes MEMS, "0-1")
 * or NULL when nothing fights the plan.  Caller frees. */
char *placer_ceph_numa_warning(const struct placer_ceph_numa *n, const char *inst, const char *mems);
/* The same for a running process PID bound to INST: its command line and
 * the ceph.conf it names (read when it is a ceph-osd).  Returns true when
 * PID is a ceph-osd (*msg: the warning, or NULL), false when it is not or
 * has gone (*msg NULL).  Caller frees *msg. */
bool placer_ceph_osd_affinity_warning(pid_t pid, const char *inst, const char *mems, char **msg);

#endif
