/* Measurements read from the running system around a benchmark run:
 * per-process and per-thread CPU time and memory, per-core utilisation and
 * device writes (a group's CPU usage is the cgroup layer's,
 * placer_cgroup_read_cpu_usage_ns).  The parsers are pure (text in, numbers
 * out) and unit-tested on captured files; the readers only open the files.
 * Readers take the proc root ("/proc", or a captured tree in tests). */
#ifndef PLACER_SAMPLE_H
#define PLACER_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

/* --- processes and threads --------------------------------------------------- */

/* From /proc/PID/stat or /proc/PID/task/TID/stat. */
struct placer_sample_task {
  pid_t pid;            /* field 1: the PID, or the TID for a task's stat */
  char comm[64];        /* field 2 without the parentheses: the thread name */
  char state;           /* field 3 */
  uint64_t utime_ticks; /* field 14, clock ticks (sysconf(_SC_CLK_TCK)) */
  uint64_t stime_ticks; /* field 15 */
  long num_threads;     /* field 20 */
  uint64_t start_ticks; /* field 22: start time after boot; with pid, identifies a task */
  int last_cpu;         /* field 39: the CPU it last ran on */
};
/* The name may hold spaces and parentheses: it runs to the LAST ')'. */
int placer_sample_parse_stat(const char *text, struct placer_sample_task *out, struct placer_error **err);

/* From /proc/PID/status. Kernel threads have no Vm lines: both 0. */
struct placer_sample_mem {
  uint64_t rss_bytes; /* VmRSS */
  uint64_t hwm_bytes; /* VmHWM: peak RSS over the process's life */
  long threads;       /* Threads */
};
int placer_sample_parse_status(const char *text, struct placer_sample_mem *out, struct placer_error **err);

/* Clock ticks (sysconf(_SC_CLK_TCK) per second) to ns; 0 for a bad rate. */
uint64_t placer_sample_ticks_to_ns(uint64_t ticks, long ticks_per_second);
/* CPU time of a task (utime + stime) in ns. */
uint64_t placer_sample_task_cpu_ns(const struct placer_sample_task *t, long ticks_per_second);

/* PROC/PID/stat and PROC/PID/status; either out may be NULL. */
int placer_sample_process(const char *proc_root, pid_t pid, struct placer_sample_task *stat,
                          struct placer_sample_mem *mem, struct placer_error **err);
/* Every thread of a process (PROC/PID/task/TID/stat), sorted by TID. A thread
 * that exits during the scan is left out. *out is caller-freed. */
int placer_sample_threads(const char *proc_root, pid_t pid, struct placer_sample_task **out, size_t *n,
                          struct placer_error **err);

/* CPU each thread used between two snapshots of the same process. A thread is
 * matched by TID and start time; one born after `before` counts from 0. Sorted
 * by CPU used, busiest first (ties: by TID). Threads that used nothing are kept. */
struct placer_sample_thread_cpu {
  pid_t tid;
  char comm[64];
  uint64_t cpu_ticks;
};
int placer_sample_thread_deltas(const struct placer_sample_task *before, size_t n_before,
                                const struct placer_sample_task *after, size_t n_after,
                                struct placer_sample_thread_cpu **out, size_t *n, struct placer_error **err);

/* --- per-core utilisation ---------------------------------------------------- */

/* One "cpuN" line of /proc/stat, in USER_HZ ticks. */
struct placer_sample_cpu_times {
  int cpu; /* N of "cpuN"; -1 for the "cpu" line (all CPUs) */
  uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};
/* The "cpu" line first (cpu -1), then each "cpuN" line in file order. */
int placer_sample_parse_proc_stat(const char *text, struct placer_sample_cpu_times **out, size_t *n,
                                  struct placer_error **err);
int placer_sample_read_proc_stat(const char *proc_root, struct placer_sample_cpu_times **out, size_t *n,
                                 struct placer_error **err);
/* Fraction of the interval the CPU was busy, in [0, 1]: (user + nice + system +
 * irq + softirq) / all ticks including idle, iowait and steal (time the
 * hypervisor gave to someone else is not work done here). guest time is already
 * inside user. NAN when no tick passed or the counters went backwards. */
double placer_sample_cpu_busy(const struct placer_sample_cpu_times *before,
                              const struct placer_sample_cpu_times *after);

/* --- device writes ----------------------------------------------------------- */

/* One line of /proc/diskstats. Sectors are 512-byte units whatever the device's
 * own sector size. */
struct placer_sample_disk {
  unsigned major, minor;
  char name[64];
  uint64_t read_ios, read_sectors, write_ios, write_sectors;
};
int placer_sample_parse_diskstats(const char *text, struct placer_sample_disk **out, size_t *n,
                                  struct placer_error **err);
int placer_sample_read_diskstats(const char *proc_root, struct placer_sample_disk **out, size_t *n,
                                 struct placer_error **err);
/* Bytes the named devices ("nvme0n1", "vda") wrote between two snapshots.
 * Fails naming the device when one is missing from either snapshot. Counters
 * that went backwards (device re-added) fail too. */
int placer_sample_disk_written_bytes(const struct placer_sample_disk *before, size_t n_before,
                                     const struct placer_sample_disk *after, size_t n_after, const char *const *devices,
                                     size_t n_devices, uint64_t *out_bytes, struct placer_error **err);

#endif
