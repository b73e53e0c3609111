/* Client VMs for `placer run`: the qemu command line of a small guest (a
 * kernel and an initramfs whose /init runs a load, no NIC), the choice
 * between KVM and TCG, and pinning the vCPU threads once qemu made them. */
#ifndef PLACER_VM_H
#define PLACER_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"
#include "profile/profile-run.h"

/* Everything the qemu argv is made of; strings borrowed. */
struct placer_vm_params {
  const char *qemu;           /* NULL: "qemu-system-x86_64" */
  const char *name;           /* -name guest=NAME,debug-threads=on: threads "CPU n/TCG" */
  enum placer_vm_accel accel; /* TCG or KVM (resolved, not AUTO) */
  unsigned vcpus;
  uint64_t memory_bytes;
  const char *kernel;
  const char *initrd;
  const char *work; /* libexec/vm/init's placer.work */
  unsigned seconds;
  uint64_t work_memory_bytes;
  const char *append;       /* more kernel parameters, may be NULL */
  const char *console_path; /* the serial console goes to this file */
};

/* Pure.  Refuses (PLACER_EXIT_USAGE) what qemu would parse differently: a
 * name with ',' or blanks, a console path with ','. */
int placer_vm_qemu_argv(const struct placer_vm_params *p, char ***out, struct placer_error **err);

/* What opening /dev/kvm found: each value but OK is a different reason to fall back to TCG. */
enum placer_vm_kvm_probe {
  PLACER_VM_KVM_ABSENT,      /* no /dev/kvm */
  PLACER_VM_KVM_NOT_CHARDEV, /* /dev/kvm is not a character device (say a regular file left by a shell '<>') */
  PLACER_VM_KVM_NO_OPEN,     /* open(O_RDWR) failed */
  PLACER_VM_KVM_BAD_API,     /* it opened, but KVM_GET_API_VERSION failed or is not 12 */
  PLACER_VM_KVM_OK,
};

/* AUTO -> KVM only when /dev/kvm answers KVM_GET_API_VERSION with 12 AND the CPU flags show vmx or
 * svm (without them this machine's /dev/kvm is a shim on which guests stall), else TCG.  *why says
 * what decided it (static).  Pure: the inputs are the text of /proc/cpuinfo (NULL when unreadable)
 * and what probing /dev/kvm found. */
enum placer_vm_accel placer_vm_choose_accel(enum placer_vm_accel requested, const char *cpuinfo,
                                            enum placer_vm_kvm_probe kvm, const char **why);
/* Probes /dev/kvm without ever creating it: stat, open(O_RDWR) without O_CREAT, KVM_GET_API_VERSION. */
enum placer_vm_kvm_probe placer_vm_probe_kvm(void);
/* The same choice on this machine. */
enum placer_vm_accel placer_vm_detect_accel(enum placer_vm_accel requested, const char **why);

/* Wait (up to TIMEOUT_MS) for qemu PID's VCPUS vCPU threads ("CPU n/TCG")
 * and pin vCPU n to the n-th PU of CPUS (round robin when fewer PUs).
 * *summary: "CPU 0/TCG->1 CPU 1/TCG->0" (caller frees). */
int placer_vm_pin_vcpus(pid_t pid, const char *cpus, unsigned vcpus, unsigned timeout_ms, char **summary,
                        struct placer_error **err);

#endif
