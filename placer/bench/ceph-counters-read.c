/* A Ceph daemon's perf dump through its admin socket, bounded by a deadline:
 * a daemon that is stopped, gone or stuck is reported missing, never waited
 * for (see ceph-counters-read.h). */
#include "bench/ceph-counters-read.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"

/* The command `ceph daemon X perf dump` sends; the NUL ends it. */
static const char perf_dump_command[] = "{\"prefix\": \"perf dump\"}";

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until FD is ready for EVENTS or DEADLINE passes: 0 ready, -1 with errno (ETIMEDOUT). */
static int wait_for(int fd, short events, long long deadline) {
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    struct pollfd p = { .fd = fd, .events = events };
    int rc = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
    if (rc > 0)
      return 0;
    if (rc < 0 && errno != EINTR)
      return -1;
  }
}

/* LEN bytes of BUF out, or -1 with errno. */
static int send_all(int fd, const char *buf, size_t len, long long deadline) {
  while (len > 0) {
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
    if (w > 0) {
      buf += w;
      len -= (size_t)w;
    } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
      return -1;
    } else if (wait_for(fd, POLLOUT, deadline) < 0) {
      return -1;
    }
  }
  return 0;
}

/* LEN bytes into BUF; *GOT how many came (short: the daemon closed the socket, errno 0). */
static int recv_all(int fd, char *buf, size_t len, long long deadline, size_t *got) {
  *got = 0;
  while (*got < len) {
    ssize_t r = recv(fd, buf + *got, len - *got, 0);
    if (r > 0) {
      *got += (size_t)r;
    } else if (r == 0) {
      errno = 0;
      return -1;
    } else if (errno != EAGAIN && errno != EINTR) {
      return -1;
    } else if (wait_for(fd, POLLIN, deadline) < 0) {
      return -1;
    }
  }
  return 0;
}

/* The reply to `perf dump` from SOCKET_PATH: 0 and *OUT (malloc'ed, NUL-ended), 1
 * with WHY, -1 out of memory. */
static int exchange(const char *socket_path, unsigned timeout_ms, char **out, size_t *out_len, char *why,
                    size_t why_len) {
  long long deadline = now_ms() + timeout_ms;
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  if (strlen(socket_path) >= sizeof(addr.sun_path)) {
    snprintf(why, why_len, "admin socket %s: a path longer than %zu bytes", socket_path, sizeof(addr.sun_path) - 1);
    return 1;
  }
  strcpy(addr.sun_path, socket_path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(why, why_len, "admin socket %s: socket: %s", socket_path, strerror(errno));
    return 1;
  }
  int rc = 1;
  uint32_t be_len = 0;
  size_t got = 0;
  char *reply = NULL;
  if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 &&
      (errno != EINPROGRESS || wait_for(fd, POLLOUT, deadline) < 0)) {
    snprintf(why, why_len, "admin socket %s: %s", socket_path, strerror(errno));
    goto out;
  }
  if (send_all(fd, perf_dump_command, sizeof(perf_dump_command), deadline) < 0) {
    snprintf(why, why_len, "admin socket %s: sending perf dump: %s", socket_path,
             errno == ETIMEDOUT ? "no room in its socket in time" : strerror(errno));
    goto out;
  }
  if (recv_all(fd, (char *)&be_len, sizeof(be_len), deadline, &got) < 0) {
    snprintf(why, why_len, "admin socket %s: no answer in %u ms%s%s", socket_path, timeout_ms,
             errno && errno != ETIMEDOUT ? ": " : "", errno && errno != ETIMEDOUT ? strerror(errno) : "");
    goto out;
  }
  size_t len = ntohl(be_len);
  if (len > PLACER_CEPH_DUMP_MAX_BYTES) {
    snprintf(why, why_len, "admin socket %s: a reply of %zu bytes (a perf dump has at most %zu)", socket_path, len,
             PLACER_CEPH_DUMP_MAX_BYTES);
    goto out;
  }
  reply = malloc(len + 1);
  if (reply == NULL) {
    rc = -1;
    goto out;
  }
  if (recv_all(fd, reply, len, deadline, &got) < 0) {
    snprintf(why, why_len, "admin socket %s: %zu of %zu bytes of its reply in %u ms", socket_path, got, len,
             timeout_ms);
    goto out;
  }
  reply[len] = '\0';
  if (strncmp(reply, "ERROR:", 6) == 0) { /* the daemon's own refusal, one line of it */
    snprintf(why, why_len, "admin socket %s: %.*s", socket_path, (int)strcspn(reply, "\n"), reply);
    goto out;
  }
  *out = reply;
  *out_len = len;
  reply = NULL;
  rc = 0;
out:
  free(reply);
  close(fd);
  return rc;
}

int placer_bench_ceph_counters_read(const char *daemon, const char *socket_path, unsigned timeout_ms,
                                    struct placer_ceph_counters *out, char *why, size_t why_len,
                                    struct placer_error **err) {
  char *reply = NULL;
  size_t len = 0;
  int rc = exchange(socket_path, timeout_ms, &reply, &len, why, why_len);
  if (rc < 0)
    return placer_error_oom(err, daemon);
  if (rc > 0)
    return 1;
  struct placer_error *bad = NULL;
  rc = placer_ceph_counters_parse(daemon, reply, len, out, &bad);
  free(reply);
  if (rc < 0) {
    if (bad->exit_code == PLACER_EXIT_SYSTEM) { /* out of memory */
      placer_error_free(bad);
      return placer_error_oom(err, daemon);
    }
    snprintf(why, why_len, "%s", bad->msg);
    placer_error_free(bad);
    return 1;
  }
  return 0;
}

void placer_bench_ceph_snapshot_free(struct placer_bench_ceph_snapshot *s) {
  if (s == NULL)
    return;
  for (size_t i = 0; s->dumps && i < s->n; i++)
    placer_ceph_counters_free(&s->dumps[i]);
  free(s->dumps);
  free(s->answered);
  free(s->why);
  *s = (struct placer_bench_ceph_snapshot){ 0 };
}

int placer_bench_ceph_snapshot_take(const struct placer_bench_ceph_daemon *d, size_t n, unsigned timeout_ms,
                                    struct placer_bench_ceph_snapshot *out, struct placer_error **err) {
  *out = (struct placer_bench_ceph_snapshot){ .n = n };
  out->dumps = calloc(n ? n : 1, sizeof(*out->dumps));
  out->answered = calloc(n ? n : 1, sizeof(*out->answered));
  out->why = calloc(n ? n : 1, sizeof(*out->why));
  if (out->dumps == NULL || out->answered == NULL || out->why == NULL) {
    placer_bench_ceph_snapshot_free(out);
    return placer_error_oom(err, "perf counters");
  }
  for (size_t i = 0; i < n; i++) {
    int rc = placer_bench_ceph_counters_read(d[i].daemon, d[i].socket, timeout_ms, &out->dumps[i], out->why[i],
                                             sizeof(out->why[i]), err);
    if (rc < 0) {
      placer_bench_ceph_snapshot_free(out);
      return -1;
    }
    out->answered[i] = rc == 0;
  }
  return 0;
}

int placer_bench_ceph_snapshot_delta(const struct placer_bench_ceph_daemon *d,
                                     const struct placer_bench_ceph_snapshot *before,
                                     const struct placer_bench_ceph_snapshot *after,
                                     struct placer_ceph_run_counters *out, struct placer_error **err) {
  size_t n = before->n < after->n ? before->n : after->n;
  *out = (struct placer_ceph_run_counters){ 0 };
  out->daemons = calloc(n ? n : 1, sizeof(*out->daemons));
  if (out->daemons == NULL)
    return placer_error_oom(err, "perf counters");
  for (size_t i = 0; i < n; i++) {
    char why[sizeof(out->daemons[i].why)];
    why[0] = '\0';
    if (!after->answered[i])
      snprintf(why, sizeof(why), "after the run: %s", after->why[i]);
    if (!before->answered[i])
      snprintf(why, sizeof(why), "before the run: %s", before->why[i]);
    int rc =
        placer_ceph_delta(d[i].daemon, before->answered[i] ? &before->dumps[i] : NULL,
                          after->answered[i] ? &after->dumps[i] : NULL, why[0] ? why : NULL, &out->daemons[i], err);
    out->n = i + 1;
    if (rc < 0) {
      placer_ceph_run_counters_free(out);
      return -1;
    }
  }
  return 0;
}
