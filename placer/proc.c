/* What /proc says about one process and its threads: the command line,
 * the start time that names a process beyond PID reuse, comm, the threads
 * and what the kernel allows each of them, per-thread affinity. */
#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/cpulist.h"
#include "lib/pid-list.h"
#include "lib/substitute.h"
#include "lib/textfile.h"

/* ------------------------------------------------------------------ command lines */

int placer_cmdline_split(const char *raw, size_t len, struct placer_cmdline *out) {
  struct placer_cmdline cl = { NULL, 0 };
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (raw[i] == '\0')
      n++;
  if (len > 0 && raw[len - 1] != '\0')
    n++; /* a last argument without its NUL (a process that rewrote its argv) */
  cl.argv = calloc(n + 1, sizeof(*cl.argv));
  if (cl.argv == NULL)
    return -1;
  size_t start = 0;
  for (size_t i = 0; i <= len && cl.argc < n; i++) {
    if (i == len || raw[i] == '\0') {
      if ((cl.argv[cl.argc++] = strndup(raw + start, i - start)) == NULL) {
        placer_cmdline_clear(&cl);
        return -1;
      }
      start = i + 1;
    }
  }
  *out = cl;
  return 0;
}

void placer_cmdline_clear(struct placer_cmdline *cl) {
  if (cl->argv)
    for (size_t i = 0; i < cl->argc; i++)
      free(cl->argv[i]);
  free(cl->argv);
  cl->argv = NULL;
  cl->argc = 0;
}

char *placer_cmdline_join(const struct placer_cmdline *cl) {
  return placer_argv_join(cl->argv);
}

/* ------------------------------------------------------------------ /proc */

static int read_all(const char *path, char **out, size_t *out_len) {
  return placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, out, out_len);
}

/* DIR/FILE without its trailing newline; errors as the cgroup layer's. */
static int read_task_file(const char *dir, const char *file, char **out, struct placer_error **err) {
  char path[128];
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  char *text = NULL;
  size_t len = 0;
  if (read_all(path, &text, &len) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  *out = text;
  return 0;
}

int placer_proc_read_cmdline(pid_t pid, struct placer_cmdline *out, struct placer_error **err) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
  cleanup_free char *raw = NULL;
  size_t len = 0;
  if (read_all(path, &raw, &len) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  if (placer_cmdline_split(raw, len, out) < 0)
    return placer_error_oom(err, NULL);
  return 0;
}

int placer_proc_stat_field(const char *stat_text, int field, uint64_t *out) {
  /* "PID (comm) S ppid ...": comm may hold spaces and ')', so start after
   * the last ')'.  Field 3 (state) follows. */
  const char *p = strrchr(stat_text, ')');
  if (p == NULL || field < 4)
    return -1;
  p++;
  for (int f = 3; f < field; f++) {
    while (*p == ' ')
      p++;
    if (*p == '\0')
      return -1;
    while (*p && *p != ' ')
      p++;
  }
  while (*p == ' ')
    p++;
  if (!isdigit((unsigned char)*p))
    return -1;
  *out = strtoull(p, NULL, 10);
  return 0;
}

int placer_proc_stat_start_time(const char *stat_text, uint64_t *out) {
  return placer_proc_stat_field(stat_text, 22, out);
}

int placer_proc_stat_comm(const char *stat_text, char *buf, size_t size) {
  const char *open = strchr(stat_text, '('), *close = strrchr(stat_text, ')');
  if (open == NULL || close == NULL || close < open || size == 0)
    return -1;
  size_t len = (size_t)(close - open - 1);
  if (len >= size)
    len = size - 1;
  memcpy(buf, open + 1, len);
  buf[len] = '\0';
  return 0;
}

char placer_proc_state(pid_t pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  cleanup_free char *text = NULL;
  if (read_all(path, &text, NULL) < 0)
    return '\0';
  const char *p = strrchr(text, ')');
  return p && p[1] == ' ' ? p[2] : '\0';
}

int placer_proc_start_time(pid_t pid, uint64_t *out, struct placer_error **err) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  cleanup_free char *text = NULL;
  if (read_all(path, &text, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "pid %d: read %s", (int)pid, path);
  if (placer_proc_stat_start_time(text, out) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "pid %d: cannot parse %s", (int)pid, path);
  return 0;
}

bool placer_proc_is_same(pid_t pid, uint64_t start_time) {
  uint64_t now = 0;
  struct placer_error *ignored = NULL;
  if (placer_proc_start_time(pid, &now, &ignored) < 0) {
    placer_error_free(ignored);
    return false;
  }
  char state = placer_proc_state(pid);
  return now == start_time && state != 'Z' && state != 'X';
}

int placer_proc_signal(pid_t pid, uint64_t start_time, int sig) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
  /* The pidfd holds on to the process that has PID now: if that is ours,
   * the signal goes to it, even should it exit and its PID be reused in
   * between. */
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd >= 0) {
    int ret = placer_proc_is_same(pid, start_time) ? (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) : -1;
    close(pidfd);
    return ret < 0 ? -1 : 0;
  }
  if (errno != ENOSYS)
    return -1;
#endif
  return placer_proc_is_same(pid, start_time) ? kill(pid, sig) : -1;
}

char *placer_proc_comm(pid_t pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
  char *text = NULL;
  if (read_all(path, &text, NULL) < 0)
    return NULL;
  size_t l = strlen(text);
  while (l > 0 && text[l - 1] == '\n')
    text[--l] = '\0';
  return text;
}

/* ------------------------------------------------------------------ threads */

/* PF_EXITING from include/linux/sched.h: the thread is in do_exit(). */
#define TASK_PF_EXITING 0x00000004u

char placer_task_state(pid_t pid, pid_t tid, unsigned *flags) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
  cleanup_free char *buf = NULL;
  if (read_all(path, &buf, NULL) < 0)
    return '\0'; /* gone already */
  /* "TID (comm) S ppid pgrp session tty_nr tpgid flags ..."; comm may hold
   * blanks and parentheses, so start after the last ')'. */
  const char *p = strrchr(buf, ')');
  char state;
  unsigned fl;
  if (p == NULL || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state, &fl) != 2)
    return '?';
  if (flags)
    *flags = fl;
  return state;
}

bool placer_task_exiting(pid_t pid, pid_t tid) {
  unsigned flags = 0;
  char state = placer_task_state(pid, tid, &flags);
  return state == '\0' || state == 'Z' || state == 'X' || (state != '?' && (flags & TASK_PF_EXITING) != 0);
}

int placer_task_list(pid_t pid, pid_t **tids, size_t *n_tids, struct placer_error **err) {
  char dir_path[64];
  snprintf(dir_path, sizeof(dir_path), "/proc/%d/task", (int)pid);
  DIR *dir = opendir(dir_path);
  if (dir == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "list threads of pid %d: open %s", (int)pid, dir_path);
  struct placer_pid_list list = { 0 };
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    char *end;
    long tid = strtol(de->d_name, &end, 10);
    if (*end != '\0' || tid <= 0)
      continue;
    if (placer_pid_list_add(&list, (pid_t)tid) < 0) {
      placer_pid_list_free(&list);
      closedir(dir);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "list threads of pid %d: out of memory", (int)pid);
    }
  }
  closedir(dir);
  placer_pid_list_sort(&list);
  *tids = placer_pid_list_take(&list, n_tids);
  return 0;
}

char *placer_task_comm(pid_t pid, pid_t tid) {
  char dir[64];
  snprintf(dir, sizeof(dir), "/proc/%d/task/%d", (int)pid, (int)tid);
  char *comm = NULL;
  struct placer_error *gone = NULL;
  if (read_task_file(dir, "comm", &comm, &gone) < 0) {
    placer_error_clear(&gone);
    return strdup("?");
  }
  return comm;
}

char *placer_proc_status_field(const char *status, const char *key) {
  size_t klen = strlen(key);
  for (const char *line = status; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == ':') {
      const char *v = line + klen + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      return strndup(v, len - (size_t)(v - line));
    }
    line = eol ? eol + 1 : NULL;
  }
  return NULL;
}

int placer_task_read_allowed(pid_t pid, pid_t tid, char **cpus, char **mems, struct placer_error **err) {
  char dir[96];
  if (tid > 0)
    snprintf(dir, sizeof(dir), "/proc/%d/task/%d", (int)pid, (int)tid);
  else
    snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
  cleanup_free char *status = NULL;
  if (read_task_file(dir, "status", &status, err) < 0)
    return -1;
  cleanup_free char *c = placer_proc_status_field(status, "Cpus_allowed_list");
  cleanup_free char *m = placer_proc_status_field(status, "Mems_allowed_list");
  if (c == NULL || m == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s/status: no Cpus_allowed_list/Mems_allowed_list", dir);
  if (cpus)
    *cpus = TAKE_PTR(c);
  if (mems)
    *mems = TAKE_PTR(m);
  return 0;
}

int placer_task_set_affinity(pid_t tid, const char *cpus, struct placer_error **err) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL)
    return placer_error_oom(err, "set affinity");
  if (placer_cpulist_parse(cpus, set) < 0 || hwloc_bitmap_iszero(set) || hwloc_bitmap_last(set) < 0) {
    hwloc_bitmap_free(set);
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "set affinity of thread %d: bad cpu list '%s'", (int)tid,
                            cpus);
  }
  int ncpus = hwloc_bitmap_last(set) + 1;
  cpu_set_t *mask = CPU_ALLOC(ncpus);
  size_t size = CPU_ALLOC_SIZE(ncpus);
  if (mask == NULL) {
    hwloc_bitmap_free(set);
    return placer_error_oom(err, "set affinity");
  }
  CPU_ZERO_S(size, mask);
  unsigned cpu;
  hwloc_bitmap_foreach_begin(cpu, set) CPU_SET_S(cpu, size, mask);
  hwloc_bitmap_foreach_end();
  hwloc_bitmap_free(set);
  int ret = sched_setaffinity(tid, size, mask);
  int saved = errno;
  CPU_FREE(mask);
  if (ret < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "sched_setaffinity(thread %d, '%s')", (int)tid, cpus);
  return 0;
}
