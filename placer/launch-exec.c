/* The "exec" launch backend: a plain process that is inside its instance's
 * cgroup, and on its cpus, before its first instruction.  The child joins
 * the group itself before execve (cgroup v2: clone3 with CLONE_INTO_CGROUP
 * puts it there at birth), so no thread of it ever runs elsewhere.  An exec
 * failure comes back to the parent through a close-on-exec pipe. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procmatch.h"
#include "lib/subprocess.h"
#include "lib/substitute.h"
#include "proc.h"
#include "topology/topology.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* What the child reports when it cannot get to execve. */
enum child_stage { STAGE_CGROUP = 1, STAGE_AFFINITY, STAGE_STDIO, STAGE_EXEC };
struct child_report {
  int stage;
  int errno_value;
  int detail; /* STAGE_CGROUP: index of the procs file */
};

/* The cgroup.procs files of GROUP, one per distinct hierarchy (cpuacct
 * where GROUP accounts). */
static int procs_files(struct placer_cgroup *cg, const char *group, char ***out, struct placer_error **err) {
  char **files = NULL;
  for (int c = 0; c < PLACER_CGROUP_N_CONTROLLERS; c++) {
    if (c == PLACER_CGROUP_CPUACCT && !placer_cgroup_accounts(cg, group))
      continue;
    cleanup_free char *dir = placer_cgroup_dir(cg, (enum placer_cgroup_controller)c, group);
    cleanup_free char *path = NULL;
    if (dir == NULL || asprintf(&path, "%s/cgroup.procs", dir) < 0) {
      placer_argv_free(files);
      return placer_error_oom(err, NULL);
    }
    bool dup = false;
    for (size_t i = 0; files && files[i]; i++)
      dup = dup || strcmp(files[i], path) == 0;
    if (!dup && placer_argv_push(&files, path) < 0) {
      placer_argv_free(files);
      return placer_error_oom(err, NULL);
    }
  }
  *out = files;
  return 0;
}

static void report_and_exit(int fd, int stage, int errno_value, int detail) {
  struct child_report r = { stage, errno_value, detail };
  ssize_t ignored = write(fd, &r, sizeof(r));
  (void)ignored;
  _exit(127);
}

/* In the child, between fork and execve: only async-signal-safe calls. */
static void child_run(int report_fd, bool joined, char **procs, bool pin, const cpu_set_t *cpus, const char *log_path,
                      char **argv, char **envp) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  setsid(); /* its own session and process group: stop signals the group */
  if (!joined) {
    char pid_text[32];
    int len = 0;
    /* getpid() in decimal without stdio */
    pid_t p = getpid();
    char rev[32];
    do {
      rev[len++] = (char)('0' + p % 10);
      p /= 10;
    } while (p > 0);
    for (int i = 0; i < len; i++)
      pid_text[i] = rev[len - 1 - i];
    for (int i = 0; procs && procs[i]; i++) {
      int fd = open(procs[i], O_WRONLY | O_CLOEXEC);
      if (fd < 0 || write(fd, pid_text, (size_t)len) != len)
        report_and_exit(report_fd, STAGE_CGROUP, errno, i);
      close(fd);
    }
  }
  if (pin && sched_setaffinity(0, sizeof(*cpus), cpus) < 0)
    report_and_exit(report_fd, STAGE_AFFINITY, errno, 0);
  int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int out = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640)
                     : open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
    report_and_exit(report_fd, STAGE_STDIO, errno, 0);
  /* Nothing placer inherited (a caller's lock file, say) leaks into the daemon. */
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    for (int fd = 3; fd < 4096; fd++)
      if (fd != report_fd)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
  execvpe(argv[0], argv, envp);
  report_and_exit(report_fd, STAGE_EXEC, errno, 0);
}

/* clone3(CLONE_INTO_CGROUP): the child is born in the group (cgroup v2,
 * Linux >= 5.7).  Returns the pid, 0 in the child, -1 with errno when the
 * kernel does not have it. */
static pid_t clone_into_cgroup(int cgroup_fd) {
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
  struct clone_args args;
  memset(&args, 0, sizeof(args));
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = (uint64_t)cgroup_fd;
  return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
#else
  (void)cgroup_fd;
  errno = ENOSYS;
  return -1;
#endif
}

static int exec_start(struct placer_cgroup *cg, const struct placer_launch_spec *spec, struct placer_launch_record *rec,
                      struct placer_error **err) {
  if (spec->argv == NULL || spec->argv[0] == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: no command to run", spec->instance);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  bool pin = spec->pinned && spec->cpus && *spec->cpus;
  if (pin) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set == NULL || placer_cpulist_parse(spec->cpus, set) < 0) {
      hwloc_bitmap_free(set);
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "%s: bad cpu list '%s'", spec->instance, spec->cpus);
    }
    int i;
    hwloc_bitmap_foreach_begin(i, set) {
      if (i < CPU_SETSIZE)
        CPU_SET(i, &cpus);
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
  }
  char **procs = NULL;
  if (procs_files(cg, spec->group, &procs, err) < 0)
    return placer_error_prefix(err, "%s", spec->instance);
  char **envp = placer_env_merge(spec->env);
  int pipefd[2] = { -1, -1 };
  if (envp == NULL || pipe2(pipefd, O_CLOEXEC) < 0) {
    int e = envp ? errno : ENOMEM;
    free(envp);
    placer_argv_free(procs);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "%s: start", spec->instance);
  }

  /* cgroup v2: be born in the group; fall back to joining it from the child. */
  pid_t pid = -1;
  bool joined = false;
  if (placer_cgroup_get_mode(cg) == PLACER_CGROUP_V2) {
    cleanup_free char *dir = placer_cgroup_dir(cg, PLACER_CGROUP_CPUSET, spec->group);
    int cfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (cfd >= 0) {
      pid = clone_into_cgroup(cfd);
      if (pid >= 0)
        joined = true;
      close(cfd);
    }
  }
  if (!joined)
    pid = fork();
  if (pid == 0) {
    close(pipefd[0]);
    child_run(pipefd[1], joined, procs, pin, &cpus, spec->log_path, spec->argv, envp);
  }
  int fork_errno = errno;
  close(pipefd[1]);
  free(envp);
  if (pid < 0) {
    close(pipefd[0]);
    placer_argv_free(procs);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, fork_errno, "%s: fork", spec->instance);
  }

  struct child_report r;
  ssize_t n;
  do
    n = read(pipefd[0], &r, sizeof(r));
  while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == (ssize_t)sizeof(r)) {
    waitpid(pid, NULL, 0);
    int ret;
    switch (r.stage) {
    case STAGE_CGROUP:
      ret = placer_error_errno(err, PLACER_EXIT_SYSTEM, r.errno_value, "%s: join cgroup: write %s", spec->instance,
                               procs && r.detail >= 0 && (size_t)r.detail < placer_argv_len(procs) ? procs[r.detail]
                                                                                                   : "cgroup.procs");
      break;
    case STAGE_AFFINITY:
      ret = placer_error_errno(err, PLACER_EXIT_SYSTEM, r.errno_value, "%s: sched_setaffinity to cpus %s",
                               spec->instance, spec->cpus);
      break;
    case STAGE_STDIO:
      ret = placer_error_errno(err, PLACER_EXIT_SYSTEM, r.errno_value, "%s: open log '%s'", spec->instance,
                               spec->log_path ? spec->log_path : "/dev/null");
      break;
    default:
      ret = placer_error_errno(err, PLACER_EXIT_SYSTEM, r.errno_value, "%s: exec '%s'", spec->instance, spec->argv[0]);
      break;
    }
    placer_argv_free(procs);
    return ret;
  }
  placer_argv_free(procs);

  memset(rec, 0, sizeof(*rec));
  rec->pid = pid;
  rec->start_time = placer_launch_start_time(pid);
  rec->argv = placer_argv_dup(spec->argv);
  rec->group = strdup(spec->group);
  rec->stop_timeout_s = spec->stop_timeout_s;
  rec->backend = strdup("exec");
  rec->joined_by = strdup(joined ? "clone3" : "cgroup.procs");
  if (spec->log_path)
    rec->log_path = strdup(spec->log_path);
  if (rec->argv == NULL || rec->group == NULL || rec->backend == NULL || rec->joined_by == NULL) {
    placer_launch_record_clear(rec);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s: start", spec->instance);
  }
  return 0;
}

static bool exec_is_running(const struct placer_launch_record *rec) {
  return placer_launch_record_alive(rec);
}

/* Reap PID if it happens to be our child (a rollback in the same run). */
static void reap(pid_t pid) {
  if (pid > 0)
    waitpid(pid, NULL, WNOHANG);
}

static int exec_stop(struct placer_cgroup *cg, const struct placer_launch_record *rec, struct placer_error **err) {
  /* the process run started, while still in the group it was born in: a
   * reused PID, or one a record merely names, never gets a signal */
  bool alive = exec_is_running(rec) && rec->group && placer_cgroup_pid_in_subtree(cg, rec->pid, rec->group);
  if (alive) {
    kill(-rec->pid, SIGTERM); /* its process group (it is a session leader) */
    placer_proc_signal(rec->pid, rec->start_time, SIGTERM);
  }
  /* Everything in its group gets the same treatment, even what left the
   * process group; then the main process, wherever it is now. */
  int ret = 0;
  if (rec->group && placer_cgroup_exists(cg, rec->group))
    ret = placer_launch_kill_group(cg, rec->group, rec->stop_timeout_s, err);
  if (alive) {
    struct timespec ts = { 0, 50 * 1000000L };
    for (unsigned i = 0; i < rec->stop_timeout_s * 20u && exec_is_running(rec); i++) {
      reap(rec->pid);
      nanosleep(&ts, NULL);
    }
    if (exec_is_running(rec)) {
      kill(-rec->pid, SIGKILL);
      placer_proc_signal(rec->pid, rec->start_time, SIGKILL);
      for (int i = 0; i < 100 && exec_is_running(rec); i++) {
        reap(rec->pid);
        nanosleep(&ts, NULL);
      }
    }
    reap(rec->pid);
    if (exec_is_running(rec))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EBUSY, "%s: PID %d survived SIGKILL", rec->instance,
                              (int)rec->pid);
  }
  return ret;
}

static int exec_cleanup(struct placer_cgroup *cg, const struct placer_launch_record *rec, struct placer_error **err) {
  if (rec->group == NULL)
    return 0;
  if (placer_cgroup_exists(cg, rec->group) && placer_launch_kill_group(cg, rec->group, 0, err) < 0)
    return -1;
  return placer_launch_remove_group(cg, rec->group, true, err);
}

const struct placer_launch_ops placer_launch_exec = {
  .name = "exec",
  .flags = 0,
  .start = exec_start,
  .is_running = exec_is_running,
  .stop = exec_stop,
  .cleanup = exec_cleanup,
};
