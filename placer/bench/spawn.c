/* Child processes of placer bench (the cluster script, fio, stress-ng, qemu):
 * each in a session of its own, so that a Ctrl-C on the terminal reaches
 * only placer, which then stops them in order; and the stop flag that the
 * signal handlers raise. */
#include "bench/run.h"

#include <errno.h>
#include <fcntl.h>
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

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

void placer_bench_catch_signals(void) {
  placer_stop_catch();
  signal(SIGPIPE, SIG_IGN);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool placer_bench_sleep_ms(unsigned ms) {
  long long end = now_ms() + ms;
  while (!placer_bench_stop) {
    long long left = end - now_ms();
    if (left <= 0)
      return true;
    if (left > 100)
      left = 100; /* a signal may land between the check and the sleep */
    struct timespec ts = { (time_t)(left / 1000), (long)(left % 1000) * 1000000L };
    nanosleep(&ts, NULL);
  }
  return false;
}

int placer_bench_spawn(char *const *argv, char *const *env, const char *log, pid_t *pid, struct placer_error **err) {
  /* Built before fork: the child only makes async-signal-safe calls. */
  char **envp = placer_env_merge(env);
  int pipefd[2];
  if (envp == NULL || pipe2(pipefd, O_CLOEXEC) < 0) {
    int e = envp ? errno : ENOMEM;
    free(envp);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "start '%s'", argv[0]);
  }
  pid_t child = fork();
  if (child == 0) {
    close(pipefd[0]);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    setsid();
    /* Nothing placer holds open (a results file, a lock) leaks into the child. */
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
      for (int fd = 3; fd < 4096; fd++)
        if (fd != pipefd[1])
          fcntl(fd, F_SETFD, FD_CLOEXEC);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* a log is in the results directory: never written through a link */
    int out = log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644)
                  : open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (in >= 0 && out >= 0 && dup2(in, 0) >= 0 && dup2(out, 1) >= 0 && dup2(out, 2) >= 0)
      execvpe(argv[0], argv, envp);
    int e = errno;
    ssize_t ignored = write(pipefd[1], &e, sizeof(e));
    (void)ignored;
    _exit(127);
  }
  int fork_errno = errno;
  free(envp);
  close(pipefd[1]);
  if (child < 0) {
    close(pipefd[0]);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, fork_errno, "start '%s': fork", argv[0]);
  }
  int child_errno = 0;
  ssize_t n;
  do
    n = read(pipefd[0], &child_errno, sizeof(child_errno));
  while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == (ssize_t)sizeof(child_errno)) {
    waitpid(child, NULL, 0);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, child_errno, "start '%s'", argv[0]);
  }
  *pid = child;
  return 0;
}

static int decode_status(int wstatus) {
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return 255;
}

int placer_bench_wait(pid_t pid, unsigned timeout_ms, bool honour_stop, int *status, bool *stopped) {
  long long start = now_ms();
  long long kill_at = -1;
  bool signalled = false;
  if (stopped)
    *stopped = false;
  for (;;) {
    int wstatus;
    pid_t r = waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) {
      *status = decode_status(wstatus);
      return 0;
    }
    if (r < 0 && errno != EINTR) {
      *status = 255;
      return -1;
    }
    long long now = now_ms();
    bool timed_out = timeout_ms && now - start >= (long long)timeout_ms;
    if (!signalled && ((honour_stop && placer_bench_stop) || timed_out)) {
      kill(-pid, SIGTERM);
      kill(pid, SIGTERM);
      signalled = true;
      kill_at = now + 10000;
      if (stopped)
        *stopped = true;
    }
    if (signalled && now >= kill_at) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      kill_at = now + 1000000;
    }
    struct timespec ts = { 0, 20 * 1000000L };
    nanosleep(&ts, NULL);
  }
}

int placer_bench_run_command(char *const *argv, char *const *env, const char *log, unsigned timeout_s, bool honour_stop,
                             struct placer_error **err) {
  pid_t pid;
  if (placer_bench_spawn(argv, env, log, &pid, err) < 0)
    return -1;
  int status;
  bool stopped = false;
  if (placer_bench_wait(pid, timeout_s * 1000u, honour_stop, &status, &stopped) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "wait for '%s'", argv[0]);
  if (stopped && placer_bench_stop)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINTR, "'%s' stopped: interrupted", argv[0]);
  if (stopped)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT, "'%s' did not finish within %u s%s%s", argv[0],
                            timeout_s, log ? "; see " : "", log ? log : "");
  if (status != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "'%s' failed (exit %d)%s%s", argv[0], status,
                            log ? "; see " : "", log ? log : "");
  return 0;
}

int placer_bench_start_placed(const struct placer_bench_exec *x, const char *instance, const char *group,
                              char *const *command, char *const *env, const char *log, struct placer_launch_record *rec,
                              struct placer_error **err) {
  char **argv = NULL;
  if (placer_bench_exec_argv(x->exe, x->prefix, x->topology_xml, x->profile_path, x->sets, instance, command, &argv) <
      0)
    return placer_error_oom(err, NULL);
  pid_t pid;
  int rc = placer_bench_spawn(argv, env, log, &pid, err);
  if (rc < 0) {
    placer_argv_free(argv);
    return placer_error_prefix(err, "%s", instance);
  }
  memset(rec, 0, sizeof(*rec));
  rec->pid = pid;
  rec->start_time = placer_launch_start_time(pid);
  rec->argv = argv;
  rec->instance = strdup(instance);
  rec->group = strdup(group);
  rec->backend = strdup("exec");
  rec->joined_by = strdup("placer exec");
  rec->stop_timeout_s = 10;
  if (log)
    rec->log_path = strdup(log);
  if (rec->instance == NULL || rec->group == NULL || rec->backend == NULL || rec->joined_by == NULL) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    placer_launch_record_clear(rec);
    return placer_error_oom(err, NULL);
  }
  return 0;
}

int placer_bench_exec_argv(const char *exe, const char *prefix, const char *topology, const char *profile,
                           char *const *sets, const char *instance, char *const *command, char ***out) {
  char **argv = NULL;
  int rc = placer_argv_push(&argv, exe) | placer_argv_push(&argv, "exec") | placer_argv_push(&argv, "--prefix") |
           placer_argv_push(&argv, prefix);
  if (topology)
    rc |= placer_argv_push(&argv, "--topology") | placer_argv_push(&argv, topology);
  for (size_t i = 0; sets && sets[i]; i++)
    rc |= placer_argv_push(&argv, "--set") | placer_argv_push(&argv, sets[i]);
  rc |= placer_argv_push(&argv, profile) | placer_argv_push(&argv, instance) | placer_argv_push(&argv, "--");
  for (size_t i = 0; command && command[i]; i++)
    rc |= placer_argv_push(&argv, command[i]);
  if (rc != 0) {
    placer_argv_free(argv);
    return -1;
  }
  *out = argv;
  return 0;
}
