/* vCPU threads of a qemu process: a minimal QMP client (jansson) and the
 * thread-name fallback. */
#include "vcpu.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "procmatch.h" /* placer_cmdline_qmp_socket */

/* QMP answers in milliseconds; a socket nobody serves must not hang apply. */
#define QMP_TIMEOUT_MS 3000

static int compare_vcpu(const void *a, const void *b) {
  const struct placer_vcpu *x = a, *y = b;
  return (x->cpu_index > y->cpu_index) - (x->cpu_index < y->cpu_index);
}

int placer_qmp_parse_cpus(const char *reply, struct placer_vcpu **out, size_t *n, struct placer_error **err) {
  json_error_t jerr;
  json_t *root = json_loads(reply, 0, &jerr);
  if (root == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "QMP reply is not JSON: %s", jerr.text);
  json_t *error = json_object_get(root, "error");
  if (error) {
    const char *desc = json_string_value(json_object_get(error, "desc"));
    const char *cls = json_string_value(json_object_get(error, "class"));
    placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "QMP query-cpus-fast failed: %s (%s)", desc ? desc : "?",
                     cls ? cls : "?");
    json_decref(root);
    return -1;
  }
  json_t *list = json_object_get(root, "return");
  if (!json_is_array(list)) {
    json_decref(root);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "QMP reply has no \"return\" list");
  }
  size_t count = json_array_size(list);
  struct placer_vcpu *v = calloc(count ? count : 1, sizeof(*v));
  if (v == NULL) {
    json_decref(root);
    return placer_error_oom(err, NULL);
  }
  for (size_t i = 0; i < count; i++) {
    json_t *cpu = json_array_get(list, i);
    json_t *idx = json_object_get(cpu, "cpu-index"), *tid = json_object_get(cpu, "thread-id");
    if (!json_is_integer(idx) || !json_is_integer(tid) || json_integer_value(idx) < 0 || json_integer_value(tid) <= 0) {
      free(v);
      json_decref(root);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL,
                              "QMP reply: entry %zu lacks a valid \"cpu-index\" and \"thread-id\"", i);
    }
    v[i].cpu_index = (unsigned)json_integer_value(idx);
    v[i].tid = (pid_t)json_integer_value(tid);
  }
  json_decref(root);
  qsort(v, count, sizeof(*v), compare_vcpu);
  *out = v;
  *n = count;
  return 0;
}

int placer_vcpu_parse_comm(const char *comm, unsigned *index) {
  if (strncmp(comm, "CPU ", 4) != 0)
    return -1;
  const char *p = comm + 4;
  if (*p < '0' || *p > '9')
    return -1;
  char *end;
  unsigned long v = strtoul(p, &end, 10);
  if (strcmp(end, "/KVM") != 0 && strcmp(end, "/TCG") != 0 && strcmp(end, "/HVF") != 0 && strcmp(end, "/WHPX") != 0)
    return -1;
  if (v > 1u << 20)
    return -1;
  *index = (unsigned)v;
  return 0;
}

/* ------------------------------------------------------------------ QMP client */

static long elapsed_ms(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

struct qmp_conn {
  int fd;
  const char *path;
  struct timespec start;
  char buf[65536];
  size_t len;
};

static int qmp_send(struct qmp_conn *c, const char *line, struct placer_error **err) {
  size_t len = strlen(line), off = 0;
  while (off < len) {
    ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "QMP %s: send", c->path);
    off += (size_t)n;
  }
  return 0;
}

/* Next JSON message that is not an event; caller decrefs. */
static int qmp_recv(struct qmp_conn *c, json_t **msg, char **raw, struct placer_error **err) {
  for (;;) {
    char *nl = memchr(c->buf, '\n', c->len);
    if (nl) {
      size_t line_len = (size_t)(nl - c->buf);
      cleanup_free char *line = strndup(c->buf, line_len);
      memmove(c->buf, nl + 1, c->len - line_len - 1);
      c->len -= line_len + 1;
      if (line == NULL)
        return placer_error_oom(err, NULL);
      json_error_t jerr;
      json_t *m = json_loads(line, 0, &jerr);
      if (m == NULL)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "QMP %s: not JSON: %s", c->path, jerr.text);
      if (json_object_get(m, "event")) {
        json_decref(m);
        continue;
      }
      *msg = m;
      if (raw)
        *raw = TAKE_PTR(line);
      return 0;
    }
    long left = QMP_TIMEOUT_MS - elapsed_ms(&c->start);
    if (left <= 0)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT,
                              "QMP %s: no answer within %d ms (another client holds it?)", c->path, QMP_TIMEOUT_MS);
    if (c->len + 1 >= sizeof(c->buf))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "QMP %s: message too long", c->path);
    struct pollfd pfd = { c->fd, POLLIN, 0 };
    int r = poll(&pfd, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "QMP %s: poll", c->path);
    if (r == 0)
      continue;
    ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len - 1, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "QMP %s: recv", c->path);
    if (n == 0)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, ECONNRESET, "QMP %s: connection closed", c->path);
    c->len += (size_t)n;
  }
}

int placer_qmp_query_cpus(const char *socket_path, struct placer_vcpu **out, size_t *n, struct placer_error **err) {
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  if (strlen(socket_path) >= sizeof(addr.sun_path))
    return placer_error_set(err, PLACER_EXIT_USAGE, ENAMETOOLONG, "QMP socket path '%s' is too long", socket_path);
  strcpy(addr.sun_path, socket_path);
  struct qmp_conn *c = calloc(1, sizeof(*c));
  if (c == NULL)
    return placer_error_oom(err, NULL);
  c->path = socket_path;
  clock_gettime(CLOCK_MONOTONIC, &c->start);
  /* Non-blocking for the connect: a socket whose backlog is full (qemu
   * listens for one client, which libvirt may be) fails at once with EAGAIN
   * instead of blocking without the timeout. */
  c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int ret = -1;
  json_t *msg = NULL;
  cleanup_free char *raw = NULL;
  if (c->fd < 0) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "QMP %s: socket", socket_path);
    goto out;
  }
  if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "QMP %s: connect", socket_path);
    goto out;
  }
  int flags = fcntl(c->fd, F_GETFL);
  if (flags < 0 || fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "QMP %s: fcntl", socket_path);
    goto out;
  }
  /* Greeting, capabilities negotiation, then the query. */
  if (qmp_recv(c, &msg, NULL, err) < 0)
    goto out;
  if (json_object_get(msg, "QMP") == NULL) {
    placer_error_set(err, PLACER_EXIT_SYSTEM, EPROTO, "QMP %s: no greeting", socket_path);
    goto out;
  }
  json_decref(msg);
  msg = NULL;
  if (qmp_send(c, "{\"execute\":\"qmp_capabilities\"}\n", err) < 0 || qmp_recv(c, &msg, NULL, err) < 0)
    goto out;
  if (json_object_get(msg, "return") == NULL) {
    placer_error_set(err, PLACER_EXIT_SYSTEM, EPROTO, "QMP %s: qmp_capabilities refused", socket_path);
    goto out;
  }
  json_decref(msg);
  msg = NULL;
  if (qmp_send(c, "{\"execute\":\"query-cpus-fast\"}\n", err) < 0 || qmp_recv(c, &msg, &raw, err) < 0)
    goto out;
  ret = placer_qmp_parse_cpus(raw, out, n, err);
out:
  json_decref(msg);
  if (c->fd >= 0)
    close(c->fd);
  free(c);
  return ret;
}

/* ------------------------------------------------------------------ finding */

static bool is_thread_of(pid_t pid, pid_t tid) {
  char path[96];
  snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
  struct stat st;
  return stat(path, &st) == 0;
}

int placer_vcpu_find_by_name(pid_t pid, struct placer_vcpu **out, size_t *n, struct placer_error **err) {
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  if (placer_task_list(pid, &tids, &n_tids, err) < 0)
    return -1;
  struct placer_vcpu *v = calloc(n_tids ? n_tids : 1, sizeof(*v));
  if (v == NULL)
    return placer_error_oom(err, NULL);
  size_t count = 0;
  for (size_t i = 0; i < n_tids; i++) {
    cleanup_free char *comm = placer_task_comm(pid, tids[i]);
    unsigned idx;
    if (comm && placer_vcpu_parse_comm(comm, &idx) == 0)
      v[count++] = (struct placer_vcpu){ idx, tids[i] };
  }
  qsort(v, count, sizeof(*v), compare_vcpu);
  *out = v;
  *n = count;
  return 0;
}

int placer_vcpu_find(pid_t pid, const char *qmp_socket, struct placer_vcpu **out, size_t *n, const char **source,
                     struct placer_error **err) {
  cleanup_free char *found_socket = NULL;
  if (qmp_socket == NULL) {
    struct placer_cmdline cl;
    struct placer_error *ignored = NULL;
    if (placer_proc_read_cmdline(pid, &cl, &ignored) == 0) {
      if (placer_cmdline_qmp_socket(&cl, &found_socket) < 0)
        found_socket = NULL;
      placer_cmdline_clear(&cl);
    }
    placer_error_free(ignored);
    qmp_socket = found_socket;
  }
  if (qmp_socket) {
    struct placer_vcpu *v = NULL;
    size_t count = 0;
    struct placer_error *qerr = NULL;
    if (placer_qmp_query_cpus(qmp_socket, &v, &count, &qerr) == 0) {
      /* The socket might belong to another qemu: every thread must be PID's. */
      bool ours = count > 0;
      for (size_t i = 0; i < count && ours; i++)
        ours = is_thread_of(pid, v[i].tid);
      if (ours) {
        *out = v;
        *n = count;
        *source = "qmp";
        return 0;
      }
      free(v);
    }
    placer_error_free(qerr); /* fall back to thread names */
  }
  if (placer_vcpu_find_by_name(pid, out, n, err) < 0)
    return -1;
  *source = "thread names";
  return 0;
}
