/* The scan of /proc that stands in for the proc connector where it is not
 * available (no CAP_NET_ADMIN, another pid or user namespace, a kernel
 * without it): every interval the processes are listed with their start
 * time, argv's address and comm, and the difference from the last list
 * becomes the same events the connector would have sent.  A process that starts and ends
 * between two scans is never seen: the price of the fallback, which the
 * benchmark measures (bench/watch-latency.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "watch-internal.h"

static int by_pid(const void *a, const void *b) {
  pid_t x = ((const struct watch_proc_entry *)a)->pid, y = ((const struct watch_proc_entry *)b)->pid;
  return (x > y) - (x < y);
}

struct picture {
  struct watch_proc_entry *v;
  size_t n, cap;
};

static int add_entry(void *ctx, pid_t pid, const char *stat_text) {
  struct picture *p = ctx;
  struct watch_proc_entry e = { .pid = pid };
  if (placer_proc_stat_start_time(stat_text, &e.start_ticks) < 0 ||
      placer_proc_stat_comm(stat_text, e.comm, sizeof(e.comm)) < 0)
    return 0; /* not a stat file as the kernel writes it: not a process to follow */
  if (placer_proc_stat_field(stat_text, 48, &e.arg_start) < 0)
    e.arg_start = 0; /* a kernel before 3.5 */
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 512;
    struct watch_proc_entry *grown = realloc(p->v, cap * sizeof(*grown));
    if (grown == NULL) {
      errno = ENOMEM;
      return -1;
    }
    p->v = grown, p->cap = cap;
  }
  p->v[p->n++] = e;
  return 0;
}

int watch_scan_read(const char *proc_root, struct watch_proc_entry **out, size_t *n, struct placer_error **err) {
  struct picture p = { 0 };
  if (placer_proc_each_stat(proc_root, add_entry, &p) < 0) {
    int saved = errno;
    free(p.v);
    return saved == ENOMEM ? placer_error_oom(err, "scan of /proc")
                           : placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "open %s", proc_root);
  }
  /* readdir of /proc is in PID order today; the diff must not depend on it. */
  if (p.n > 1)
    qsort(p.v, p.n, sizeof(*p.v), by_pid);
  *out = p.v;
  *n = p.n;
  return 0;
}

static int emit_one(enum watch_event_kind kind, const struct watch_proc_entry *e, watch_event_fn emit, void *ctx,
                    struct placer_error **err) {
  struct watch_event ev = { .kind = kind, .pid = e->pid, .tgid = e->pid, .time_ns = e->start_ticks };
  return emit(ctx, &ev, err);
}

int watch_scan_diff(const struct watch_proc_entry *prev, size_t n_prev, const struct watch_proc_entry *cur,
                    size_t n_cur, watch_event_fn emit, void *ctx, struct placer_error **err) {
  size_t i = 0, j = 0;
  while (i < n_prev || j < n_cur) {
    int ret = 0;
    if (j == n_cur || (i < n_prev && prev[i].pid < cur[j].pid)) {
      ret = emit_one(WATCH_EVENT_EXIT, &prev[i++], emit, ctx, err);
    } else if (i == n_prev || cur[j].pid < prev[i].pid) {
      ret = emit_one(WATCH_EVENT_EXEC, &cur[j++], emit, ctx, err);
    } else if (prev[i].start_ticks != cur[j].start_ticks) {
      /* The PID was reused: the old process ended, a new one runs. */
      ret = emit_one(WATCH_EVENT_EXIT, &prev[i++], emit, ctx, err);
      if (ret == 0)
        ret = emit_one(WATCH_EVENT_EXEC, &cur[j++], emit, ctx, err);
    } else {
      /* A process that execs (a fork that becomes another program, or the
       * same one: a shell's exec, a storm's self-exec) keeps its PID and
       * start time: its argv moves. */
      if (prev[i].arg_start != cur[j].arg_start)
        ret = emit_one(WATCH_EVENT_EXEC, &cur[j], emit, ctx, err);
      else if (strcmp(prev[i].comm, cur[j].comm) != 0)
        ret = emit_one(WATCH_EVENT_COMM, &cur[j], emit, ctx, err);
      i++, j++;
    }
    if (ret < 0)
      return -1;
  }
  return 0;
}

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t watch_scan_ticks_to_monotonic(uint64_t start_ticks) {
  /* The start time counts from boot, suspend included (CLOCK_BOOTTIME);
   * the connector's timestamps do not (CLOCK_MONOTONIC). */
  static long ticks_per_s;
  if (ticks_per_s <= 0)
    ticks_per_s = sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0)
    ticks_per_s = 100;
  uint64_t start_boot_ns = start_ticks * (1000000000u / (uint64_t)ticks_per_s);
  uint64_t boot = clock_ns(CLOCK_BOOTTIME), mono = clock_ns(CLOCK_MONOTONIC);
  uint64_t suspended = boot > mono ? boot - mono : 0;
  return start_boot_ns > suspended ? start_boot_ns - suspended : 0;
}

int watch_scan_open(struct watch_scan *s, const char *proc_root, struct placer_error **err) {
  *s = (struct watch_scan){ 0 };
  if ((s->proc_root = strdup(proc_root)) == NULL)
    return placer_error_oom(err, NULL);
  if (watch_scan_read(s->proc_root, &s->entries, &s->n_entries, err) < 0) {
    watch_scan_close(s);
    return -1;
  }
  return 0;
}

int watch_scan_step(struct watch_scan *s, watch_event_fn emit, void *ctx, struct placer_error **err) {
  struct watch_proc_entry *cur = NULL;
  size_t n_cur = 0;
  if (watch_scan_read(s->proc_root, &cur, &n_cur, err) < 0)
    return -1;
  int ret = watch_scan_diff(s->entries, s->n_entries, cur, n_cur, emit, ctx, err);
  free(s->entries);
  s->entries = cur;
  s->n_entries = n_cur;
  for (size_t i = 0; i < s->forget.n; i++) {
    struct watch_proc_entry key = { .pid = s->forget.pids[i] };
    struct watch_proc_entry *e = bsearch(&key, s->entries, s->n_entries, sizeof(key), by_pid);
    if (e == NULL)
      continue;
    memmove(e, e + 1, (s->n_entries - (size_t)(e - s->entries) - 1) * sizeof(*e));
    s->n_entries--;
  }
  s->forget.n = 0;
  return ret;
}

void watch_scan_forget(struct watch_scan *s, pid_t pid) {
  /* Out of memory: the process stays in the picture, as without this. */
  (void)placer_pid_list_add(&s->forget, pid);
}

void watch_scan_close(struct watch_scan *s) {
  free(s->entries);
  placer_pid_list_free(&s->forget);
  free(s->proc_root);
  *s = (struct watch_scan){ 0 };
}
