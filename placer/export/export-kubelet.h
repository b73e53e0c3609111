/* What export --format kubelet computes from the plan, shared by the
 * fragment writer (export-kubelet.c) and --merge (export-kubelet-merge.c).
 * Not for the rest of placer. */
#ifndef PLACER_EXPORT_KUBELET_H
#define PLACER_EXPORT_KUBELET_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export-internal.h"

/* Kubelet's default hard eviction threshold (evictionHard memory.available). */
#define KUBELET_EVICTION_DEFAULT_BYTES (100ULL << 20)

struct kubelet_plan {
  const char *reserved;  /* reservedSystemCPUs: the reserve and every role that is not a vm */
  const char *pods;      /* what that leaves to pods */
  const char *shared_by; /* without strict-cpu-reservation: who holds the reserved CPUs */
  bool full_pcpus_only, uncore_cache, strict;
  bool alpha_gate;     /* CPUManagerPolicyAlphaOptions: true (an option is alpha in this release) */
  bool beta_gate;      /* an option is beta: CPUManagerPolicyBetaOptions must stay on */
  bool uncore_unknown; /* prefer-align-cpus-by-uncorecache wanted, unknown to this release */
  const char *topology_policy;
  size_t n_nodes;
  const unsigned *node_os; /* NUMA node os indexes, topology order */
  uint64_t *node_bytes;    /* kept from pods per node, whole MiB */
  uint64_t kept_bytes;     /* their sum */
};

/* --merge: the operator's KubeletConfiguration (in->merge_text) read, its
 * keys checked against the plan and the merged document built; -1
 * (PLACER_EXIT_USAGE, one line) when a key contradicts the plan. */
struct kubelet_merge;
int kubelet_merge_load(struct placer_export_writer *w, const struct kubelet_plan *kp, struct kubelet_merge **out,
                       struct placer_error **err);
/* Its comment and the whole merged document (the render fails on w->failed). */
void kubelet_merge_write(struct kubelet_merge *m, FILE *f);
void kubelet_merge_free(struct kubelet_merge *m);

#endif
