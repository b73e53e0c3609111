/* placer status's check of each MDS's own cache setting against the plan
 * (apply-mds-status.c; docs/apply.md, "The MDS's cache"). */
#ifndef PLACER_APPLY_MDS_STATUS_H
#define PLACER_APPLY_MDS_STATUS_H

#include <jansson.h>
#include <stdbool.h>

#include "lib/error.h"

/* How long one MDS may take to answer `config get` over its admin socket. */
#define PLACER_MDS_STATUS_TIMEOUT_MS 2000u

/* For every ceph-mds instance of DOC (a status document of either backend)
 * with a planned memory limit: each ceph-mds process status found for it
 * is asked for its mds_cache_memory_limit over its own admin socket, and a
 * value other than the plan's (placer_mds_cache_limit of the limit) is
 * drift: one line in the instance's "drift", its "ok" false, DOC's "drift"
 * and *DRIFT true.  A daemon that does not answer is a note, not drift.
 * -1 only when out of memory. */
int apply_mds_status(json_t *doc, bool *drift, struct placer_error **err);

#endif
