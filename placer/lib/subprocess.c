/* Helper programs run without a shell, their output collected; see
 * subprocess.h. */
#include "lib/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/substitute.h"

extern char **environ;

char **placer_env_merge(char *const add[]) {
  size_t n_base = placer_argv_len(environ), n_add = placer_argv_len(add);
  char **out = calloc(n_base + n_add + 1, sizeof(char *));
  if (out == NULL)
    return NULL;
  size_t n = 0;
  for (size_t i = 0; i < n_base; i++) {
    size_t klen = strcspn(environ[i], "=");
    bool overridden = false;
    for (size_t j = 0; j < n_add && !overridden; j++)
      overridden = strncmp(add[j], environ[i], klen) == 0 && add[j][klen] == '=';
    if (!overridden)
      out[n++] = environ[i];
  }
  for (size_t j = 0; j < n_add; j++)
    out[n++] = add[j];
  out[n] = NULL;
  return out;
}

static long elapsed_ms(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

struct sink {
  char *data;
  size_t len, cap;
};

static int sink_read(struct sink *s, int fd) {
  if (s->cap - s->len < 4097) {
    size_t cap = s->cap ? s->cap * 2 : 8192;
    char *bigger = realloc(s->data, cap);
    if (bigger == NULL)
      return -1;
    s->data = bigger;
    s->cap = cap;
  }
  ssize_t n;
  do
    n = read(fd, s->data + s->len, s->cap - s->len - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return 1; /* end of file (or an error: nothing more to read either way) */
  s->len += (size_t)n;
  return 0;
}

static void close_pair(int p[2]) {
  if (p[0] >= 0)
    close(p[0]);
  if (p[1] >= 0)
    close(p[1]);
}

/* The child's end: killed (its group, when it leads one). */
static void kill_child(pid_t child, bool group) {
  if (group)
    kill(-child, SIGKILL);
  kill(child, SIGKILL);
}

/* A group killed is gone a moment later (SIGKILL is delivered when each
 * member next runs): wait for it, at most a second, so that what placer
 * started is gone when placer returns.  Its zombies, which init reaps,
 * end the wait too late at worst. */
static void group_gone(pid_t pgid) {
  for (int i = 0; i < 100 && kill(-pgid, 0) == 0; i++)
    nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
}

static int capture(char *const argv[], char *const envp[], unsigned timeout_ms, bool group,
                   const volatile sig_atomic_t *stop, char **out, char **errout, int *status,
                   struct placer_error **err) {
  int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }; /* stdout, stderr, exec report */
  for (int i = 0; i < 3; i++)
    if (pipe2(pipes[i], O_CLOEXEC) < 0) {
      int saved = errno;
      for (int k = 0; k < i; k++)
        close_pair(pipes[k]);
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "run %s: pipe", argv[0]);
    }
  char *const *env = envp ? envp : environ;
  pid_t child = fork();
  if (child == 0) {
    /* Only async-signal-safe calls from here to execve: the parent may
     * have other threads, holding locks (malloc's) that never come free
     * in the child. */
    if (group)
      setpgid(0, 0); /* its children are killed with it */
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || dup2(in, 0) < 0 || dup2(pipes[0][1], 1) < 0 || dup2(pipes[1][1], 2) < 0) {
      int e = errno;
      ssize_t ignored = write(pipes[2][1], &e, sizeof(e));
      (void)ignored;
      _exit(127);
    }
    execvpe(argv[0], argv, env);
    int e = errno;
    ssize_t ignored = write(pipes[2][1], &e, sizeof(e));
    (void)ignored;
    _exit(127);
  }
  int fork_errno = errno;
  if (child > 0 && group)
    setpgid(child, child); /* also here: a kill before the child ran its own setpgid */
  for (int i = 0; i < 3; i++) {
    close(pipes[i][1]);
    pipes[i][1] = -1;
  }
  if (child < 0) {
    for (int i = 0; i < 3; i++)
      close_pair(pipes[i]);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, fork_errno, "run %s: fork", argv[0]);
  }

  struct sink sinks[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
  bool open_fd[2] = { true, true }, timed_out = false, oom = false, stopped = false, reaped = false;
  int st = 0;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while ((open_fd[0] || open_fd[1]) && !oom) {
    long left = (long)timeout_ms - elapsed_ms(&start);
    if (left <= 0 || (stop && *stop)) {
      timed_out = left <= 0;
      stopped = !timed_out;
      break;
    }
    if (stop && left > 100)
      left = 100; /* a signal may land between the check and the poll */
    /* a group's leader that exited: what it left behind (holding the pipes) goes with it */
    if (group && !reaped && waitpid(child, &st, WNOHANG) == child) {
      reaped = true;
      kill(-child, SIGKILL);
    }
    if (group && left > 100)
      left = 100;
    struct pollfd fds[2];
    for (int i = 0; i < 2; i++)
      fds[i] = (struct pollfd){ open_fd[i] ? pipes[i][0] : -1, POLLIN, 0 };
    int r = poll(fds, 2, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    for (int i = 0; i < 2 && !oom; i++) {
      if (!open_fd[i] || fds[i].revents == 0)
        continue;
      int got = sink_read(&sinks[i], pipes[i][0]);
      if (got < 0)
        oom = true;
      else if (got > 0)
        open_fd[i] = false;
    }
  }
  /* A child that closed its output may still run (a hung gnuplot): the
   * timeout and the stop hold until it has exited. */
  while (!reaped && !timed_out && !stopped && !oom) {
    pid_t r = waitpid(child, &st, WNOHANG);
    if (r == child || (r < 0 && errno != EINTR)) {
      reaped = true;
      break;
    }
    if (elapsed_ms(&start) >= (long)timeout_ms)
      timed_out = true;
    else if (stop && *stop)
      stopped = true;
    else
      nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
  }
  if (!reaped) {
    kill_child(child, group);
    while (waitpid(child, &st, 0) < 0 && errno == EINTR)
      ;
  } else if (group) {
    kill(-child, SIGKILL); /* what it left running in its group */
  }
  if (group)
    group_gone(child);
  int exec_errno = 0;
  ssize_t n;
  do
    n = read(pipes[2][0], &exec_errno, sizeof(exec_errno));
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof(exec_errno))
    exec_errno = 0;
  for (int i = 0; i < 3; i++)
    close_pair(pipes[i]);

  int ret = 0;
  if (timed_out) {
    cleanup_free char *cmd = placer_argv_quote(argv);
    ret = placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT, "%s: no answer within %.3g s", cmd ? cmd : argv[0],
                           timeout_ms / 1000.0);
  } else if (stopped) {
    ret = placer_error_set(err, PLACER_EXIT_INTERRUPTED, EINTR, "%s: stopped (interrupted)", argv[0]);
  } else if (exec_errno != 0) {
    free(sinks[1].data);
    sinks[1] = (struct sink){ NULL, 0, 0 };
    if (asprintf(&sinks[1].data, "exec '%s': %s", argv[0], strerror(exec_errno)) < 0)
      oom = true;
    else
      sinks[1].len = strlen(sinks[1].data);
  }
  for (int i = 0; i < 2 && ret == 0 && !oom; i++) {
    if (sinks[i].data == NULL && (sinks[i].data = malloc(1)) == NULL)
      oom = true;
    else
      sinks[i].data[sinks[i].len] = '\0';
  }
  if (ret == 0 && oom)
    ret = placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "run %s: out of memory", argv[0]);
  if (ret < 0) {
    free(sinks[0].data);
    free(sinks[1].data);
    return -1;
  }
  *out = sinks[0].data;
  *errout = sinks[1].data;
  *status = st;
  return 0;
}

int placer_subprocess_capture(char *const argv[], char *const envp[], unsigned timeout_ms, char **out, char **errout,
                              int *status, struct placer_error **err) {
  return capture(argv, envp, timeout_ms, false, NULL, out, errout, status, err);
}

int placer_subprocess_capture_group(char *const argv[], char *const envp[], unsigned timeout_ms,
                                    const volatile sig_atomic_t *stop, char **out, char **errout, int *status,
                                    struct placer_error **err) {
  return capture(argv, envp, timeout_ms, true, stop, out, errout, status, err);
}
