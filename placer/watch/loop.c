/* The watcher's one thread: an epoll loop over file descriptors, each with
 * its handler (the proc connector's socket, the periodic timerfd, a
 * signalfd, the metrics listener and its clients).  Signals arrive as
 * reads, never as handlers that interrupt a move half done. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "watch-internal.h"

#define MAX_EVENTS 32

struct registration {
  int fd;
  watch_loop_fn fn;
  void *ctx;
  bool owned;    /* a timer or signal fd the loop made and closes */
  bool signals;  /* a signalfd: the handler gets the signal number */
  bool free_ctx; /* the loop's own context (a timer's): freed with it */
  bool removed;  /* freed after the batch of events it may still be in */
  struct registration *next;
};

struct watch_loop {
  int epfd;
  bool stop;
  struct registration *regs;
  bool mask_saved;
  sigset_t old_mask;
};

uint64_t watch_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int watch_loop_new(struct watch_loop **out, struct placer_error **err) {
  struct watch_loop *l = calloc(1, sizeof(*l));
  if (l == NULL)
    return placer_error_oom(err, NULL);
  l->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (l->epfd < 0) {
    int saved = errno;
    free(l);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "epoll_create1");
  }
  *out = l;
  return 0;
}

static struct registration *find(struct watch_loop *l, int fd) {
  for (struct registration *r = l->regs; r; r = r->next)
    if (r->fd == fd && !r->removed)
      return r;
  return NULL;
}

static void free_removed(struct watch_loop *l) {
  for (struct registration **p = &l->regs; *p;) {
    struct registration *r = *p;
    if (!r->removed) {
      p = &r->next;
      continue;
    }
    *p = r->next;
    if (r->free_ctx)
      free(r->ctx);
    free(r);
  }
}

void watch_loop_free(struct watch_loop *l) {
  if (l == NULL)
    return;
  for (struct registration *r = l->regs; r; r = r->next)
    if (!r->removed && r->owned)
      close(r->fd);
  for (struct registration *r = l->regs; r; r = r->next)
    r->removed = true;
  free_removed(l);
  if (l->mask_saved)
    sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
  close(l->epfd);
  free(l);
}

static int add(struct watch_loop *l, int fd, uint32_t events, watch_loop_fn fn, void *ctx, bool owned,
               struct placer_error **err) {
  struct registration *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return placer_error_oom(err, NULL);
  *r = (struct registration){ .fd = fd, .fn = fn, .ctx = ctx, .owned = owned, .next = l->regs };
  struct epoll_event ev = { .events = events, .data.ptr = r };
  if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    int saved = errno;
    free(r);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "epoll_ctl add fd %d", fd);
  }
  l->regs = r;
  return 0;
}

int watch_loop_add(struct watch_loop *l, int fd, uint32_t events, watch_loop_fn fn, void *ctx,
                   struct placer_error **err) {
  return add(l, fd, events, fn, ctx, false, err);
}

int watch_loop_modify(struct watch_loop *l, int fd, uint32_t events, struct placer_error **err) {
  struct registration *r = find(l, fd);
  if (r == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT, "epoll: fd %d is not in the loop", fd);
  struct epoll_event ev = { .events = events, .data.ptr = r };
  if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "epoll_ctl modify fd %d", fd);
  return 0;
}

void watch_loop_remove(struct watch_loop *l, int fd) {
  struct registration *r = find(l, fd);
  if (r == NULL)
    return;
  (void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
  if (r->owned)
    close(r->fd);
  r->removed = true;
}

/* Read the timer's expiry count, then call the handler once. */
static int timer_ready(void *ctx, int fd, uint32_t events, struct placer_error **err);

struct timer_ctx {
  watch_loop_fn fn;
  void *ctx;
};

int watch_loop_add_timer(struct watch_loop *l, unsigned interval_ms, watch_loop_fn fn, void *ctx,
                         struct placer_error **err) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "timerfd_create");
  struct itimerspec spec = { 0 };
  spec.it_interval.tv_sec = interval_ms / 1000;
  spec.it_interval.tv_nsec = (long)(interval_ms % 1000) * 1000000L;
  spec.it_value = spec.it_interval;
  struct timer_ctx *tc = malloc(sizeof(*tc));
  if (tc == NULL) {
    close(fd);
    return placer_error_oom(err, NULL);
  }
  *tc = (struct timer_ctx){ fn, ctx };
  if (timerfd_settime(fd, 0, &spec, NULL) < 0) {
    int saved = errno;
    close(fd);
    free(tc);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "timerfd_settime");
  }
  if (add(l, fd, EPOLLIN, timer_ready, tc, true, err) < 0) {
    close(fd);
    free(tc);
    return -1;
  }
  l->regs->free_ctx = true;
  return 0;
}

static int timer_ready(void *ctx, int fd, uint32_t events, struct placer_error **err) {
  struct timer_ctx *tc = ctx;
  uint64_t expirations = 0;
  if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations))
    return 0; /* EAGAIN: a spurious wake-up */
  /* Late by several periods (a stopped machine): one check does for all. */
  return tc->fn(tc->ctx, fd, events, err);
}

int watch_loop_add_signals(struct watch_loop *l, const int *signals, size_t n, watch_loop_fn fn, void *ctx,
                           struct placer_error **err) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < n; i++)
    sigaddset(&set, signals[i]);
  sigset_t old;
  if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "sigprocmask");
  if (!l->mask_saved) {
    l->old_mask = old;
    l->mask_saved = true;
  }
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "signalfd");
  if (add(l, fd, EPOLLIN, fn, ctx, true, err) < 0) {
    close(fd);
    return -1;
  }
  l->regs->signals = true;
  return 0;
}

/* Every signal queued, one call each. */
static int dispatch_signals(struct registration *r, struct placer_error **err) {
  for (;;) {
    struct signalfd_siginfo si;
    ssize_t n = read(r->fd, &si, sizeof(si));
    if (n != sizeof(si))
      return 0;
    if (r->fn(r->ctx, r->fd, si.ssi_signo, err) < 0)
      return -1;
    if (r->removed)
      return 0;
  }
}

int watch_loop_run(struct watch_loop *l, struct placer_error **err) {
  l->stop = false;
  while (!l->stop) {
    struct epoll_event events[MAX_EVENTS];
    int n = epoll_wait(l->epfd, events, MAX_EVENTS, -1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "epoll_wait");
    int ret = 0;
    for (int i = 0; i < n && ret == 0 && !l->stop; i++) {
      struct registration *r = events[i].data.ptr;
      if (r->removed)
        continue; /* removed by an earlier handler of this batch */
      ret = r->signals ? dispatch_signals(r, err) : r->fn(r->ctx, r->fd, events[i].events, err);
    }
    free_removed(l);
    if (ret < 0)
      return -1;
  }
  return 0;
}

void watch_loop_stop(struct watch_loop *l) {
  l->stop = true;
}
