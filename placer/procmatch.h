/* Finding the running processes of an instance: ceph daemons and qemu VMs by
 * their command line (/proc/PID/cmdline), podman containers through `podman
 * inspect`, pid files, and fnmatch patterns.  The cmdline tests are pure so
 * they can be unit-tested on captured command lines. */
#ifndef PLACER_PROCMATCH_H
#define PLACER_PROCMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"
#include "plan/plan.h"
#include "proc.h"

/* The daemon binary of a ceph kind ("ceph-osd"), NULL for other kinds. */
const char *placer_ceph_binary(enum placer_role_kind kind);
/* Is CL the ceph daemon BINARY (basename of argv[0]; NULL: any "ceph-*")
 * with id ID: "--id ID", "--id=ID", "-i ID", "-iID", or "-n TYPE.ID" /
 * "--name TYPE.ID" / "--name=TYPE.ID"? */
bool placer_cmdline_is_ceph_daemon(const struct placer_cmdline *cl, const char *binary, const char *id);
/* Is CL a qemu (qemu-system-*, qemu-kvm, kvm) whose "-name" is NAME:
 * "-name guest=NAME[,...]", "-name NAME[,...]" (qemu's ",," escapes kept)? */
bool placer_cmdline_is_qemu_guest(const struct placer_cmdline *cl, const char *name);
/* The QMP unix socket of a qemu command line: "-qmp unix:PATH[,...]", or a
 * "-chardev socket,id=X,path=PATH,server..." used by "-mon chardev=X,mode=control".
 * Returns 0 and a copy, or -1 when there is none. */
int placer_cmdline_qmp_socket(const struct placer_cmdline *cl, char **path);
/* fnmatch(3) of PATTERN on the space-joined command line. */
bool placer_cmdline_matches_pattern(const struct placer_cmdline *cl, const char *pattern);

/* Where Proxmox VE's qemu-server keeps its guests' pid files (VMID.pid):
 * $PLACER_PROXMOX_RUN_DIR when set (tests), else /var/run/qemu-server. */
const char *placer_proxmox_run_dir(void);

/* Is process PID, whose command line is CL, one that MATCH finds?  The
 * command-line kinds test CL (pure); a pid file (PIDFILE, PROXMOX_VMID) is
 * read and its PID compared; a podman container is never told from one
 * process (false: placer_procmatch_find asks podman).  For a watcher that
 * sees one new process at a time. */
bool placer_procmatch_process(enum placer_role_kind kind, const struct placer_match *match, pid_t pid,
                              const struct placer_cmdline *cl);

/* "1234\n" -> 1234; -1 on anything else (0 and negatives too). */
int placer_parse_pid_text(const char *text, pid_t *pid);

/* "ceph-osd --id 3", "podman container 'web'", "qemu -name guest=vm0",
 * "pid file /run/x.pid", "cmdline 'sleep *'"; caller frees. */
char *placer_match_describe(enum placer_role_kind kind, const struct placer_match *match);

/* Why PID is never bound, whatever asks for it ("PID 1, the init of the
 * whole system", placer itself, "a kernel thread", one of placer's own
 * ancestors), or NULL.  Binding one of those would put the whole system, or
 * placer's own caller, on an instance's CPUs and memory limit. */
const char *placer_proc_never_bound(pid_t pid);
/* How many unrelated process trees PIDS (N of them) are: a PID below
 * another one of them is part of its tree, and so are siblings whose
 * topmost such ancestors share a parent other than PID 1 or the kernel's
 * (the workers one supervisor forked, as stress-ng's or a service's). */
size_t placer_proc_count_trees(const pid_t *pids, size_t n);

/* The PIDs (thread-group leaders) that MATCH finds now, sorted; none is
 * not an error: *n is 0 and *why (when non-NULL) says why, e.g. "podman:
 * no such container".  Zombies and what placer_proc_never_bound() names
 * never match. */
int placer_procmatch_find(enum placer_role_kind kind, const struct placer_match *match, pid_t **pids, size_t *n,
                          char **why, struct placer_error **err);

#endif
