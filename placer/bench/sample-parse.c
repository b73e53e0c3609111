/* Pure parsers for the /proc and cgroup files that sample.c reads, and the
 * arithmetic between two snapshots; see sample.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "bench/sample.h"
#include "lib/units.h"

int placer_sample_parse_stat(const char *text, struct placer_sample_task *out, struct placer_error **err) {
  const char *open = strchr(text, '('), *close = strrchr(text, ')');
  if (open == NULL || close == NULL || close < open || close[1] != ' ')
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat: no \"(comm)\" field");
  struct placer_sample_task t = { 0 };
  t.pid = (pid_t)strtol(text, NULL, 10);
  size_t len = (size_t)(close - open - 1);
  if (len >= sizeof(t.comm))
    len = sizeof(t.comm) - 1;
  memcpy(t.comm, open + 1, len);
  t.comm[len] = '\0';
  const char *p = close + 2;
  t.state = *p;
  if (t.state == '\0')
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat: no state after \"(%s)\"", t.comm);
  p++;
  /* Fields 4 .. 39; some are negative (tty_nr, tpgid, nice), some are
   * 2^64-1 (rsslim): only the ones we keep are converted. */
  for (int field = 4; field <= 39; field++) {
    while (*p == ' ')
      p++;
    char *e;
    errno = 0;
    long long v = *p == '-' ? strtoll(p, &e, 10) : (long long)strtoull(p, &e, 10);
    if (e == p || errno != 0 || (*e != ' ' && *e != '\n' && *e != '\0'))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat of %d (%s): field %d missing or not a number",
                              (int)t.pid, t.comm, field);
    p = e;
    switch (field) {
    case 14: t.utime_ticks = (uint64_t)v; break;
    case 15: t.stime_ticks = (uint64_t)v; break;
    case 20: t.num_threads = (long)v; break;
    case 22: t.start_ticks = (uint64_t)v; break;
    case 39: t.last_cpu = (int)v; break;
    default: break;
    }
  }
  *out = t;
  return 0;
}

int placer_sample_parse_status(const char *text, struct placer_sample_mem *out, struct placer_error **err) {
  struct placer_sample_mem m = { 0 };
  uint64_t kib, threads;
  bool have_threads = false;
  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *end;
    if (strncmp(line, "VmRSS:", 6) == 0 && placer_parse_u64_prefix(line + 6, &end, &kib) == 0)
      m.rss_bytes = kib * 1024;
    else if (strncmp(line, "VmHWM:", 6) == 0 && placer_parse_u64_prefix(line + 6, &end, &kib) == 0)
      m.hwm_bytes = kib * 1024;
    else if (strncmp(line, "Threads:", 8) == 0 && placer_parse_u64_prefix(line + 8, &end, &threads) == 0) {
      m.threads = (long)threads;
      have_threads = true;
    }
  }
  if (!have_threads)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "status: no \"Threads:\" line");
  *out = m;
  return 0;
}

uint64_t placer_sample_ticks_to_ns(uint64_t ticks, long ticks_per_second) {
  if (ticks_per_second <= 0)
    return 0;
  uint64_t hz = (uint64_t)ticks_per_second;
  return ticks / hz * 1000000000ull + ticks % hz * 1000000000ull / hz;
}

uint64_t placer_sample_task_cpu_ns(const struct placer_sample_task *t, long ticks_per_second) {
  return placer_sample_ticks_to_ns(t->utime_ticks + t->stime_ticks, ticks_per_second);
}

static int cmp_thread_cpu(const void *pa, const void *pb) {
  const struct placer_sample_thread_cpu *a = pa, *b = pb;
  if (a->cpu_ticks != b->cpu_ticks)
    return a->cpu_ticks > b->cpu_ticks ? -1 : 1;
  return (a->tid > b->tid) - (a->tid < b->tid);
}

int placer_sample_thread_deltas(const struct placer_sample_task *before, size_t n_before,
                                const struct placer_sample_task *after, size_t n_after,
                                struct placer_sample_thread_cpu **out, size_t *n, struct placer_error **err) {
  struct placer_sample_thread_cpu *d = calloc(n_after ? n_after : 1, sizeof(*d));
  if (d == NULL)
    return placer_error_oom(err, "thread CPU deltas");
  for (size_t i = 0; i < n_after; i++) {
    const struct placer_sample_task *a = &after[i];
    uint64_t base = 0;
    for (size_t j = 0; j < n_before; j++)
      if (before[j].pid == a->pid && before[j].start_ticks == a->start_ticks) {
        base = before[j].utime_ticks + before[j].stime_ticks;
        break;
      }
    uint64_t now = a->utime_ticks + a->stime_ticks;
    d[i].tid = a->pid;
    memcpy(d[i].comm, a->comm, sizeof(d[i].comm));
    d[i].cpu_ticks = now > base ? now - base : 0;
  }
  qsort(d, n_after, sizeof(*d), cmp_thread_cpu);
  *out = d;
  *n = n_after;
  return 0;
}

static const char *next_line(const char *line) {
  const char *nl = strchr(line, '\n');
  return nl ? nl + 1 : NULL;
}

int placer_sample_parse_proc_stat(const char *text, struct placer_sample_cpu_times **out, size_t *n,
                                  struct placer_error **err) {
  size_t cap = 0, count = 0;
  for (const char *line = text; line && *line; line = next_line(line))
    cap += strncmp(line, "cpu", 3) == 0;
  if (cap == 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat: no \"cpu\" lines");
  struct placer_sample_cpu_times *c = calloc(cap, sizeof(*c));
  if (c == NULL)
    return placer_error_oom(err, "stat");
  for (const char *line = text; line && *line; line = next_line(line)) {
    if (strncmp(line, "cpu", 3) != 0)
      continue;
    struct placer_sample_cpu_times *t = &c[count];
    const char *p = line + 3;
    if (*p == ' ') {
      t->cpu = -1;
    } else {
      char *e;
      long cpu = strtol(p, &e, 10);
      if (e == p || *e != ' ' || cpu < 0) {
        free(c);
        return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat: bad line \"%.20s\"", line);
      }
      t->cpu = (int)cpu;
      p = e;
    }
    uint64_t *fields[] = { &t->user, &t->nice, &t->system, &t->idle, &t->iowait, &t->irq, &t->softirq, &t->steal };
    size_t got = 0;
    for (; got < N_OF(fields); got++)
      if (placer_parse_u64_prefix(p, &p, fields[got]) < 0)
        break;
    if (got < 4) { /* user nice system idle exist on every kernel */
      free(c);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat: line \"%.20s\" has %zu fields", line, got);
    }
    count++;
  }
  if (c[0].cpu != -1) {
    free(c);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "stat: the \"cpu\" line does not come first");
  }
  *out = c;
  *n = count;
  return 0;
}

double placer_sample_cpu_busy(const struct placer_sample_cpu_times *before,
                              const struct placer_sample_cpu_times *after) {
  uint64_t b_busy = before->user + before->nice + before->system + before->irq + before->softirq;
  uint64_t a_busy = after->user + after->nice + after->system + after->irq + after->softirq;
  uint64_t b_all = b_busy + before->idle + before->iowait + before->steal;
  uint64_t a_all = a_busy + after->idle + after->iowait + after->steal;
  if (a_all <= b_all || a_busy < b_busy)
    return NAN;
  return (double)(a_busy - b_busy) / (double)(a_all - b_all);
}

int placer_sample_parse_diskstats(const char *text, struct placer_sample_disk **out, size_t *n,
                                  struct placer_error **err) {
  size_t cap = 1, count = 0;
  for (const char *c = text; *c; c++)
    cap += *c == '\n';
  struct placer_sample_disk *d = calloc(cap, sizeof(*d));
  if (d == NULL)
    return placer_error_oom(err, "diskstats");
  int lineno = 0;
  for (const char *line = text; line && *line; line = next_line(line)) {
    lineno++;
    if (strspn(line, " \t\n") == strcspn(line, "\n"))
      continue; /* blank */
    struct placer_sample_disk *k = &d[count];
    unsigned long long f[7];
    int name_end = 0;
    /* major minor name, then reads, reads merged, sectors read, ms reading,
     * writes, writes merged, sectors written (then more we do not need). */
    if (sscanf(line, "%u %u %63s %n", &k->major, &k->minor, k->name, &name_end) != 3 ||
        sscanf(line + name_end, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
               &f[6]) != 7) {
      free(d);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                              "diskstats: line %d: expected \"MAJOR MINOR NAME\" and 7 counters", lineno);
    }
    k->read_ios = f[0];
    k->read_sectors = f[2];
    k->write_ios = f[4];
    k->write_sectors = f[6];
    count++;
  }
  *out = d;
  *n = count;
  return 0;
}

static const struct placer_sample_disk *find_disk(const struct placer_sample_disk *d, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(d[i].name, name) == 0)
      return &d[i];
  return NULL;
}

int placer_sample_disk_written_bytes(const struct placer_sample_disk *before, size_t n_before,
                                     const struct placer_sample_disk *after, size_t n_after, const char *const *devices,
                                     size_t n_devices, uint64_t *out_bytes, struct placer_error **err) {
  uint64_t sectors = 0;
  for (size_t i = 0; i < n_devices; i++) {
    const struct placer_sample_disk *b = find_disk(before, n_before, devices[i]);
    const struct placer_sample_disk *a = find_disk(after, n_after, devices[i]);
    if (b == NULL || a == NULL)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "device '%s' is not in /proc/diskstats", devices[i]);
    if (a->write_sectors < b->write_sectors)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                              "device '%s': sectors written went backwards (%" PRIu64 " -> %" PRIu64 ")", devices[i],
                              b->write_sectors, a->write_sectors);
    sectors += a->write_sectors - b->write_sectors;
  }
  *out_bytes = sectors * 512;
  return 0;
}
