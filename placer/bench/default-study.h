/* placer bench's default study sized to the node: studies/default.yaml's
 * study (unpinned against demo-local, a half-busy stress-ng neighbour, a
 * quota sweep of the OSDs) with its counts from the topology, by the
 * formula docs/bench.md gives ("The default study, sized to the node").  On
 * a 2-PU node the formula gives the shipped file's values, and the shipped
 * file is the study. */
#ifndef PLACER_BENCH_DEFAULT_STUDY_H
#define PLACER_BENCH_DEFAULT_STUDY_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/study.h"
#include "lib/error.h"
#include "topology/topology.h"

#define PLACER_DEFAULT_STUDY_MAX_OSDS 16 /* one host's throwaway cluster: past it the builds dominate */
#define PLACER_DEFAULT_STUDY_MAX_STEPS 4

struct placer_default_study {
  unsigned pus, cores, numa_nodes, nvme;        /* what the node offers (usable PUs and cores) */
  unsigned osds;                                /* OSDs of the cluster */
  unsigned iodepth;                             /* fio's, one job */
  unsigned workers;                             /* the neighbour's stress-ng workers, each busy half the time */
  unsigned ceph_threads;                        /* demo-local: the PUs of Ceph's pool ... */
  unsigned client_threads;                      /* ... and of the clients' (fio and the neighbour) */
  double quota[PLACER_DEFAULT_STUDY_MAX_STEPS]; /* the sweep's steps, cores for all OSDs together */
  size_t n_quota;
  unsigned storage_min_percent; /* the balance point's storage_min_fraction */
};

/* The formula on TOPO (pure). */
void placer_default_study_size(const struct placer_topology *topo, struct placer_default_study *out);
/* True when D has studies/default.yaml's values (a 2-PU node). */
bool placer_default_study_is_shipped(const struct placer_default_study *d);
/* D as a study file: its YAML (caller frees). */
int placer_default_study_yaml(const struct placer_default_study *d, const char *source, char **out,
                              struct placer_error **err);

/* The default study for the node of TOPOLOGY_XML (NULL: this machine):
 * $PLACER_DEFAULT_STUDY as it is when set, studies/default.yaml when the
 * formula gives its values, else the sized study.  *TEXT: its YAML (caller
 * frees; may be NULL); *STUDY (may be NULL): the study, its path the file's,
 * or for a sized study the shipped file's with study->generated set. */
int placer_default_study_for(const char *topology_xml, char **text, struct placer_study **study,
                             struct placer_error **err);

#endif
