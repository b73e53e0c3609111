/* Process events from the kernel's proc connector (linux/cn_proc.h): a
 * netlink socket subscribed to CN_IDX_PROC, read without blocking from the
 * watcher's epoll loop.  The kernel queues one datagram per event (fork,
 * exec, comm, exit, ...) for every listener; when the socket's receive
 * buffer is full it drops them and the next read fails with ENOBUFS, which
 * the caller answers with a rescan of /proc. */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watch-internal.h"

/* A storm of 1,000 execs a second is about 3,000 events (fork, exec, exit)
 * plus a fork and an exit per thread; each datagram costs the buffer its
 * truesize (about 1 KiB), so the default 208 KiB holds a fifth of a second.
 * 8 MiB holds several seconds of that: the watcher is never that late unless
 * the machine stalls, and then it rescans. */
#define RCVBUF_BYTES (8 << 20)
/* The kernel answers the subscription during our send(); a short wait
 * covers a kernel that queues it a little later. */
#define ACK_WAIT_MS 200
#define DATAGRAM_MAX 8192

const char *watch_event_kind_name(enum watch_event_kind kind) {
  static const char *const names[WATCH_EVENT_N_KINDS] = { "exec", "fork", "comm", "exit" };
  return kind < WATCH_EVENT_N_KINDS ? names[kind] : "?";
}

/* What Linux 6.6 added to a subscription (struct proc_input of its
 * linux/cn_proc.h, which Debian 12's headers predate): the operation and a
 * mask of the events this socket wants; the kernel drops the others before
 * they wake anyone.  An older kernel ignores a message of this size. */
struct proc_input_filter {
  uint32_t mcast_op;
  uint32_t event_type;
};
/* Exec and rename: the events that can make a process one of ours.  A fork
 * inherits its parent's groups, an exit needs nothing; on a busy node they
 * are two thirds of the events (and every thread's are among them). */
#define FILTER_EVENTS (PROC_EVENT_EXEC | PROC_EVENT_COMM)

/* nlmsghdr + cn_msg + the operation (LEN bytes of DATA), as the kernel
 * reads it.  The kernel acks with COOKIE + 1 in the ack field (its seq is
 * the kernel's own event count): every listener sees every ack, so the
 * cookie tells ours from another watcher's. */
static int send_op(int fd, const void *data, size_t len, uint32_t cookie) {
  char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(struct proc_input_filter))];
  memset(buf, 0, sizeof(buf));
  struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
  nlh->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + len);
  nlh->nlmsg_type = NLMSG_DONE;
  nlh->nlmsg_pid = 0;
  struct cn_msg *msg = NLMSG_DATA(nlh);
  msg->id.idx = CN_IDX_PROC;
  msg->id.val = CN_VAL_PROC;
  msg->ack = cookie;
  msg->len = (unsigned short)len;
  memcpy(msg->data, data, len);
  ssize_t n;
  do
    n = send(fd, buf, nlh->nlmsg_len, 0);
  while (n < 0 && errno == EINTR);
  return n < 0 ? -1 : 0;
}

static int emit_event(const struct proc_event *ev, watch_event_fn emit, void *ctx, size_t *n_events,
                      struct placer_error **err) {
  struct watch_event out = { .time_ns = ev->timestamp_ns };
  switch (ev->what) {
  case PROC_EVENT_FORK:
    out.kind = WATCH_EVENT_FORK;
    out.pid = ev->event_data.fork.child_pid;
    out.tgid = ev->event_data.fork.child_tgid;
    break;
  case PROC_EVENT_EXEC:
    out.kind = WATCH_EVENT_EXEC;
    out.pid = ev->event_data.exec.process_pid;
    out.tgid = ev->event_data.exec.process_tgid;
    break;
  case PROC_EVENT_COMM:
    out.kind = WATCH_EVENT_COMM;
    out.pid = ev->event_data.comm.process_pid;
    out.tgid = ev->event_data.comm.process_tgid;
    break;
  case PROC_EVENT_EXIT:
    out.kind = WATCH_EVENT_EXIT;
    out.pid = ev->event_data.exit.process_pid;
    out.tgid = ev->event_data.exit.process_tgid;
    break;
  default: return 0; /* the ack (NONE), uid, gid, sid, ptrace, coredump */
  }
  (*n_events)++;
  return emit(ctx, &out, err);
}

/* The netlink message at *OFF of the LEN bytes of BUF, and *OFF past it;
 * NULL at the end or at a header that does not fit (what NLMSG_OK and
 * NLMSG_NEXT do, in unsigned sizes). */
static const struct nlmsghdr *next_message(const void *buf, size_t len, size_t *off) {
  if (*off > len || len - *off < sizeof(struct nlmsghdr))
    return NULL;
  const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)buf + *off);
  if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len - *off)
    return NULL;
  *off += NLMSG_ALIGN(nlh->nlmsg_len);
  return nlh;
}

int watch_connector_decode(const void *buf, size_t len, watch_event_fn emit, void *ctx, size_t *n_events,
                           struct placer_error **err) {
  *n_events = 0;
  size_t off = 0;
  for (const struct nlmsghdr *nlh; (nlh = next_message(buf, len, &off)) != NULL;) {
    if (nlh->nlmsg_type == NLMSG_NOOP)
      continue;
    if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_OVERRUN)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPROTO, "proc connector: netlink message type %u",
                              (unsigned)nlh->nlmsg_type);
    size_t payload = NLMSG_PAYLOAD(nlh, 0);
    const struct cn_msg *msg = NLMSG_DATA(nlh);
    if (payload < sizeof(*msg) || payload - sizeof(*msg) < msg->len)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPROTO, "proc connector: a truncated message (%zu bytes)",
                              payload);
    if (msg->id.idx != CN_IDX_PROC || msg->id.val != CN_VAL_PROC)
      continue;
    /* Older kernels send a shorter proc_event: its header and the union's
     * part for the event must be there. */
    if (msg->len < offsetof(struct proc_event, event_data))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EPROTO, "proc connector: a truncated event (%u bytes)",
                              (unsigned)msg->len);
    struct proc_event ev;
    memset(&ev, 0, sizeof(ev));
    memcpy(&ev, msg->data, msg->len < sizeof(ev) ? msg->len : sizeof(ev));
    if (emit_event(&ev, emit, ctx, n_events, err) < 0)
      return -1;
  }
  return 0;
}

/* The kernel's answer to our subscription: a PROC_EVENT_NONE whose ack.err
 * is 0, or the errno it refused with.  Returns 0 (listening), 1 (no
 * answer, or refused: *why_not) or -1. */
static int wait_ack(int fd, uint32_t cookie, char **why_not, struct placer_error **err) {
  char buf[DATAGRAM_MAX] __attribute__((aligned(8)));
  /* Other listeners' events flow meanwhile: the wait is for the ack alone. */
  uint64_t deadline = watch_monotonic_ns() + (uint64_t)ACK_WAIT_MS * 1000000u;
  for (;;) {
    uint64_t now = watch_monotonic_ns();
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int ready = now >= deadline ? 0 : poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "proc connector: poll");
    if (ready == 0) {
      /* The kernel ignores subscriptions from outside the initial pid and
       * user namespaces without a word. */
      *why_not = strdup("no answer from the kernel (another pid or user namespace?)");
      return *why_not ? 1 : placer_error_oom(err, NULL);
    }
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOBUFS))
      continue;
    if (n < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "proc connector: recv");
    size_t off = 0;
    for (const struct nlmsghdr *nlh; (nlh = next_message(buf, (size_t)n, &off)) != NULL;) {
      const struct cn_msg *msg = NLMSG_DATA(nlh);
      if (NLMSG_PAYLOAD(nlh, 0) < sizeof(*msg) + offsetof(struct proc_event, event_data) + sizeof(uint32_t))
        continue;
      /* A copy: the event sits 4 bytes into an 8-byte aligned struct's place
       * (netlink aligns to 4), so it is not read in place. */
      struct proc_event ev;
      memset(&ev, 0, sizeof(ev));
      size_t have = NLMSG_PAYLOAD(nlh, 0) - sizeof(*msg);
      memcpy(&ev, msg->data, have < sizeof(ev) ? have : sizeof(ev));
      if (msg->id.idx != CN_IDX_PROC || ev.what != PROC_EVENT_NONE || msg->ack != cookie + 1)
        continue; /* an event already flowing to another listener, or its ack */
      if (ev.event_data.ack.err == 0)
        return 0;
      if (asprintf(why_not, "the kernel refused: %s", strerror((int)ev.event_data.ack.err)) < 0)
        return placer_error_oom(err, NULL);
      return 1;
    }
  }
}

static int unavailable(int fd, char **why_not, const char *what, int errno_value, struct placer_error **err) {
  if (fd >= 0)
    close(fd);
  if (asprintf(why_not, "%s: %s", what, strerror(errno_value)) < 0)
    return placer_error_oom(err, NULL);
  return 1;
}

int watch_connector_open(struct watch_connector *c, char **why_not, struct placer_error **err) {
  *c = (struct watch_connector){ .fd = -1 };
  *why_not = NULL;
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
  if (fd < 0) /* EPROTONOSUPPORT: a kernel without the connector */
    return unavailable(-1, why_not, "socket(NETLINK_CONNECTOR)", errno, err);
  /* As root the buffer may go past net.core.rmem_max; else what that allows. */
  int want = RCVBUF_BYTES;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) < 0)
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
  socklen_t optlen = sizeof(c->rcvbuf_bytes);
  if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &c->rcvbuf_bytes, &optlen) < 0)
    c->rcvbuf_bytes = 0;
  /* nl_pid 0: the kernel picks our port, so that several listeners (a test
   * beside a running watcher) never collide. */
  struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
  if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) /* EPERM: no CAP_NET_ADMIN */
    return unavailable(fd, why_not, "bind", errno, err);
  /* Not 0, nor UINT32_MAX (whose ack would wrap to 0). */
  uint32_t cookie = ((uint32_t)getpid() << 12 ^ (uint32_t)watch_monotonic_ns()) % 0xfffffff0u + 1;
  enum proc_cn_mcast_op listen = PROC_CN_MCAST_LISTEN;
  if (send_op(fd, &listen, sizeof(listen), cookie) < 0)
    return unavailable(fd, why_not, "send", errno, err);
  int ret = wait_ack(fd, cookie, why_not, err);
  if (ret != 0) {
    close(fd);
    return ret;
  }
  /* Listening to everything; now narrowed to what matters where the kernel
   * can (6.6 on; the same listener, not a second one).  Its ack is one of
   * the events it filters out, so none is awaited: an older kernel
   * ignores it and everything keeps coming. */
  struct proc_input_filter filter = { PROC_CN_MCAST_LISTEN, FILTER_EVENTS };
  (void)send_op(fd, &filter, sizeof(filter), 0);
  c->fd = fd;
  return 0;
}

int watch_connector_read(struct watch_connector *c, watch_event_fn emit, void *ctx, bool *overrun,
                         struct placer_error **err) {
  char buf[DATAGRAM_MAX] __attribute__((aligned(8)));
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return 0;
      if (errno == ENOBUFS) {
        /* The kernel dropped events: say so, and read on (what is queued
         * after the loss is still good). */
        c->n_overruns++;
        *overrun = true;
        continue;
      }
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "proc connector: recv");
    }
    size_t n_events = 0;
    if (watch_connector_decode(buf, (size_t)n, emit, ctx, &n_events, err) < 0)
      return -1;
  }
}

void watch_connector_close(struct watch_connector *c) {
  if (c->fd < 0)
    return;
  enum proc_cn_mcast_op ignore = PROC_CN_MCAST_IGNORE;
  (void)send_op(c->fd, &ignore, sizeof(ignore), 0);
  close(c->fd);
  c->fd = -1;
}
