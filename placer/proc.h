/* What /proc says about one process and its threads (proc.c): the command
 * line, the start time that names a process beyond PID reuse, comm, the
 * threads and what the kernel allows each of them, per-thread affinity.
 * Depends on lib/ only; the cgroup layer, procmatch, apply and status use it. */
#ifndef PLACER_PROC_H
#define PLACER_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

/* A command line split at its NULs. */
struct placer_cmdline {
  char **argv;
  size_t argc;
};

/* Split the raw bytes of /proc/PID/cmdline (LEN bytes, NUL-separated). */
int placer_cmdline_split(const char *raw, size_t len, struct placer_cmdline *out);
void placer_cmdline_clear(struct placer_cmdline *cl);
/* argv joined with single spaces; caller frees. */
char *placer_cmdline_join(const struct placer_cmdline *cl);

/* Facts about a live process. */
/* Field 22 of /proc/PID/stat (start time in clock ticks since boot): with
 * the PID it names one process even after the PID is reused. */
int placer_proc_start_time(pid_t pid, uint64_t *out, struct placer_error **err);
/* Parse that field from the text of /proc/PID/stat; -1 on bad input. */
int placer_proc_stat_start_time(const char *stat_text, uint64_t *out);
/* Field FIELD (numbered as in proc(5), from 4 on: the unsigned ones) of the
 * text of /proc/PID/stat; -1 when it is missing or not a number. */
int placer_proc_stat_field(const char *stat_text, int field, uint64_t *out);
/* Field 2 of that text, the comm between the first '(' and the last ')'
 * (it may hold both), into BUF of SIZE bytes, cut to fit; -1 on bad input. */
int placer_proc_stat_comm(const char *stat_text, char *buf, size_t size);
/* Is PID alive and is it the process that started at START_TIME? */
bool placer_proc_is_same(pid_t pid, uint64_t start_time);
/* Send SIG to PID if it is the process that started at START_TIME (held
 * with a pidfd, so a PID reused meanwhile never gets it); -1 when it is not
 * (any more). */
int placer_proc_signal(pid_t pid, uint64_t start_time, int sig);
/* State letter of PID (field 3 of /proc/PID/stat), '\0' when it is gone. */
char placer_proc_state(pid_t pid);
/* /proc/PID/comm, or NULL. */
char *placer_proc_comm(pid_t pid);
int placer_proc_read_cmdline(pid_t pid, struct placer_cmdline *out, struct placer_error **err);

/* Threads of a process and what the kernel allows each of them. */
int placer_task_list(pid_t pid, pid_t **tids, size_t *n_tids, struct placer_error **err);
/* /proc/PID/task/TID/comm without its newline, "?" when the thread is gone;
 * NULL only on ENOMEM. */
char *placer_task_comm(pid_t pid, pid_t tid);
/* Value of "KEY:\tVALUE" in the text of a status file (pure), NULL when
 * absent; caller frees. */
char *placer_proc_status_field(const char *status, const char *key);
/* Cpus_allowed_list / Mems_allowed_list of /proc/PID/task/TID/status (TID 0:
 * /proc/PID/status).  Either out may be NULL. */
int placer_task_read_allowed(pid_t pid, pid_t tid, char **cpus, char **mems, struct placer_error **err);
/* sched_setaffinity of one thread (per-vCPU pinning) to CPUS ("3", "0-1").
 * The kernel refuses CPUs outside the thread's cpuset (EINVAL). */
int placer_task_set_affinity(pid_t tid, const char *cpus, struct placer_error **err);

/* State letter of thread TID of PID (field 3 of its stat: 'R', 'S', 'Z', ...);
 * '\0' when it is gone, '?' when unreadable.  *flags (may be NULL): field 9. */
char placer_task_state(pid_t pid, pid_t tid, unsigned *flags);
/* Is thread TID of PID exiting (or gone)?  The kernel does not migrate an
 * exiting thread, so it may stay behind in the old group until it is gone. */
bool placer_task_exiting(pid_t pid, pid_t tid);

/* The process tree (proc-tree.c). */
/* Call FN with the text of PROC_ROOT/PID/stat of every process (PROC_ROOT:
 * "/proc", or a captured tree), in the order readdir gives them; one that
 * ends meanwhile is left out.  FN returns 0 to go on, -1 (errno set) to
 * stop.  0, or -1 with errno (PROC_ROOT unreadable, or FN's). */
typedef int (*placer_proc_stat_fn)(void *ctx, pid_t pid, const char *stat_text);
int placer_proc_each_stat(const char *proc_root, placer_proc_stat_fn fn, void *ctx);
struct placer_proc_parent {
  pid_t pid;
  pid_t ppid;
};
/* Field 4 of /proc/PID/stat (the parent's PID); -1 on bad input. */
int placer_proc_stat_ppid(const char *stat_text, pid_t *out);
/* The parent of PID now, from /proc/PID/stat; 0 when PID is gone. */
pid_t placer_proc_parent(pid_t pid);
/* The descendants of ROOT in TABLE (who is whose child), breadth first:
 * children, grandchildren, ...; pids in STOP are neither listed nor
 * descended into.  -1 only on ENOMEM. */
int placer_proc_tree_descendants(const struct placer_proc_parent *table, size_t n, pid_t root, const pid_t *stop,
                                 size_t n_stop, pid_t **out, size_t *n_out);
/* The live descendants of ROOT now (zombies left out; none when ROOT is
 * gone), from /proc/PID/task/TID/children, else every process's PPid.
 * STOP as above; placer itself is always one. */
int placer_proc_descendants(pid_t root, const pid_t *stop, size_t n_stop, pid_t **out, size_t *n_out,
                            struct placer_error **err);

#endif
