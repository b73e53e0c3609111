/* A VM's vCPU threads: asked from qemu over QMP (query-cpus-fast) when a
 * QMP socket is known, else found by thread name ("CPU n/KVM", "CPU n/TCG"). */
#ifndef PLACER_VCPU_H
#define PLACER_VCPU_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/error.h"

struct placer_vcpu {
  unsigned cpu_index; /* qemu's cpu-index */
  pid_t tid;          /* host thread id */
};

/* The vCPUs in the reply to {"execute":"query-cpus-fast"} (one JSON
 * object), sorted by cpu_index.  An {"error":...} reply fails naming it. */
int placer_qmp_parse_cpus(const char *reply, struct placer_vcpu **out, size_t *n, struct placer_error **err);
/* "CPU 3/KVM" or "CPU 3/TCG" -> 3; -1 for any other thread name. */
int placer_vcpu_parse_comm(const char *comm, unsigned *index);

/* Ask the qemu listening on the QMP unix socket SOCKET_PATH.  Bounded by a
 * timeout: a socket another client holds (libvirt) fails instead of hanging. */
int placer_qmp_query_cpus(const char *socket_path, struct placer_vcpu **out, size_t *n, struct placer_error **err);
/* The vCPU threads of qemu process PID: through QMP when QMP_SOCKET is given
 * (or found on its command line), else from thread names.  *source says
 * which ("qmp" or "thread names"; static).  None found is not an error. */
int placer_vcpu_find(pid_t pid, const char *qmp_socket, struct placer_vcpu **out, size_t *n, const char **source,
                     struct placer_error **err);
/* The vCPU threads of PID by thread name only (never QMP: placer watch asks
 * from its loop, which a monitor socket that does not answer would stall),
 * sorted by cpu_index.  None found is not an error. */
int placer_vcpu_find_by_name(pid_t pid, struct placer_vcpu **out, size_t *n, struct placer_error **err);

#endif
