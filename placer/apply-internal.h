/* Shared by apply.c, apply-undo.c and status.c; not for the rest of placer. */
#ifndef PLACER_APPLY_INTERNAL_H
#define PLACER_APPLY_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "apply.h"
#include "cgroup.h"
#include "state.h"

/* FMT formatted (vasprintf); NULL on ENOMEM. */
char *apply_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A growable list of owned strings. */
struct strv {
  char **v;
  size_t n;
};
int strv_add(struct strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(struct strv *s);

/* Same set of CPUs / nodes, whatever the spelling ("0-1" vs "0,1"); two
 * unparsable lists are equal only when identical. */
bool apply_cpulist_equal(const char *a, const char *b);
/* A memory limit as the kernel holds it: rounded down to a page. */
bool apply_memory_limit_equal(uint64_t have, uint64_t want);
/* The cgroup weight in force when the plan leaves it (0) at the default. */
unsigned apply_effective_weight(unsigned planned);

/* The PU the K-th vCPU (in cpu-index order) is pinned to: the K-th PU of
 * CPUS, wrapping around; "3".  Caller frees; NULL on ENOMEM or empty CPUS. */
char *apply_vcpu_pu(hwloc_const_bitmap_t cpus, size_t k);

/* A thread of PID whose cgroups differ from the main thread's (someone
 * moved one thread with v1 `tasks`), or 0 when all agree. */
pid_t apply_stray_thread(pid_t pid);

/* Open the cgroup hierarchy a state was applied to, refusing a mode
 * different from the recorded one. */
int apply_open_cgroup(const struct placer_state *state, const char *root, struct placer_cgroup **out,
                      struct placer_error **err);

/* Undo the journal entries of TXN (0: all of them), newest first.  Each
 * undone entry leaves the journal and the state is saved after it, so an
 * interrupted undo can be resumed.  Processes that are gone are skipped
 * with a note; a step that cannot be undone is a failure, undo goes on and
 * leaves that entry in the journal.  Returns the number of failures. */
size_t apply_undo(struct placer_cgroup *cg, struct placer_state *state, unsigned txn, struct strv *notes,
                  struct strv *failures);

#endif
