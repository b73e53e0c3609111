/* What the watcher's metrics say, made fresh for each scrape and each write
 * of the metrics file: per instance its planned CPUs, processes in its
 * group and drift; placements, events, drift found and fixed, the exec to
 * placed histogram; per steered IRQ its interrupts per CPU; the watcher's
 * own CPU time and memory (the names Prometheus's client libraries use).
 * docs/apply.md lists them. */
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "topology/irq.h"
#include "lib/cpulist.h"
#include "lib/textfile.h"
#include "watch-internal.h"

static const char *const drift_kind_names[PLACER_WATCH_DRIFT_N_KINDS] = { "process", "group", "irq", "vcpu" };

static unsigned cpu_count(const char *cpus) {
  if (cpus == NULL || *cpus == '\0')
    return 0;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  int weight = set && placer_cpulist_parse(cpus, set) == 0 ? hwloc_bitmap_weight(set) : 0;
  hwloc_bitmap_free(set);
  return weight > 0 ? (unsigned)weight : 0;
}

/* A per-instance counter family. */
static void per_instance(struct watch_metrics_text *t, struct placer_watch *w, const char *name, const char *help,
                         size_t offset) {
  watch_metrics_family(t, name, help, WATCH_METRIC_COUNTER);
  for (size_t i = 0; i < w->n_rules; i++) {
    struct watch_label labels[] = { { "instance", w->rules[i].instance }, { "role", w->rules[i].role } };
    uint64_t value = *(const uint64_t *)((const char *)&w->counts[i] + offset);
    watch_metrics_sample_u64(t, name, labels, 2, value);
  }
}

static void instances(struct watch_metrics_text *t, struct placer_watch *w) {
  watch_metrics_family(t, "placer_instance_cpus",
                       "CPUs the plan gives the instance (0: unpinned); the list in the cpus label.",
                       WATCH_METRIC_GAUGE);
  for (size_t i = 0; i < w->n_rules; i++) {
    const struct placer_watch_rule *r = &w->rules[i];
    struct watch_label labels[] = { { "instance", r->instance },
                                    { "role", r->role },
                                    { "cpus", r->cpus ? r->cpus : "" } };
    watch_metrics_sample_u64(t, "placer_instance_cpus", labels, 3, cpu_count(r->cpus));
  }
  watch_metrics_family(t, "placer_instance_processes", "Processes in the instance's group now.", WATCH_METRIC_GAUGE);
  for (size_t i = 0; i < w->n_rules; i++) {
    struct watch_label labels[] = { { "instance", w->rules[i].instance }, { "role", w->rules[i].role } };
    cleanup_free pid_t *pids = NULL;
    size_t n = 0;
    struct placer_error *gone = NULL;
    if (placer_cgroup_list_pids(w->cg, w->rules[i].group, &pids, &n, &gone) < 0)
      n = 0; /* the group is not there (yet): none */
    placer_error_free(gone);
    watch_metrics_sample_u64(t, "placer_instance_processes", labels, 2, n);
  }
  watch_metrics_family(t, "placer_instance_drift", "1 when the last check found the instance off its plan.",
                       WATCH_METRIC_GAUGE);
  for (size_t i = 0; i < w->n_rules; i++) {
    struct watch_label labels[] = { { "instance", w->rules[i].instance }, { "role", w->rules[i].role } };
    watch_metrics_sample_u64(t, "placer_instance_drift", labels, 2, w->counts[i].drift ? 1 : 0);
  }
  per_instance(t, w, "placer_watch_placements_total", "Processes the watcher moved into the instance's group.",
               offsetof(struct watch_rule_counts, placements));
  per_instance(t, w, "placer_watch_exited_before_placed_total",
               "Processes of the instance that exited before they could be moved.",
               offsetof(struct watch_rule_counts, exited));
  per_instance(t, w, "placer_watch_place_errors_total", "Moves into the instance's group that failed.",
               offsetof(struct watch_rule_counts, errors));
}

static void events(struct watch_metrics_text *t, struct placer_watch *w) {
  watch_metrics_family(t, "placer_watch_source", "Where process events come from: 1 for the source in use.",
                       WATCH_METRIC_GAUGE);
  struct watch_label connector[] = { { "source", "connector" } }, scan[] = { { "source", "scan" } };
  watch_metrics_sample_u64(t, "placer_watch_source", connector, 1, w->scanning ? 0 : 1);
  watch_metrics_sample_u64(t, "placer_watch_source", scan, 1, w->scanning ? 1 : 0);
  watch_metrics_family(t, "placer_watch_events_total", "Process events seen, by kind.", WATCH_METRIC_COUNTER);
  for (int k = 0; k < WATCH_EVENT_N_KINDS; k++) {
    struct watch_label labels[] = { { "event", watch_event_kind_name(k) } };
    watch_metrics_sample_u64(t, "placer_watch_events_total", labels, 1, w->events[k]);
  }
  watch_metrics_family(t, "placer_watch_event_overruns_total",
                       "Times the kernel dropped process events (the socket was full); each is followed by a rescan.",
                       WATCH_METRIC_COUNTER);
  watch_metrics_sample_u64(t, "placer_watch_event_overruns_total", NULL, 0, w->overruns);
  watch_metrics_family(t, "placer_watch_rescans_total",
                       "Full scans of /proc: at the start, after lost events, on reload.", WATCH_METRIC_COUNTER);
  watch_metrics_sample_u64(t, "placer_watch_rescans_total", NULL, 0, w->rescans);
  watch_metrics_family(t, "placer_watch_ambiguous_total", "Processes two instances claimed (left where they were).",
                       WATCH_METRIC_COUNTER);
  watch_metrics_sample_u64(t, "placer_watch_ambiguous_total", NULL, 0, w->ambiguous);
  watch_metrics_family(t, "placer_watch_drift_found_total", "Drift the periodic checks found, by kind.",
                       WATCH_METRIC_COUNTER);
  for (int k = 0; k < PLACER_WATCH_DRIFT_N_KINDS; k++) {
    struct watch_label labels[] = { { "kind", drift_kind_names[k] } };
    watch_metrics_sample_u64(t, "placer_watch_drift_found_total", labels, 1, w->drift_found[k]);
  }
  watch_metrics_family(t, "placer_watch_drift_fixed_total", "Drift the periodic checks put back, by kind.",
                       WATCH_METRIC_COUNTER);
  for (int k = 0; k < PLACER_WATCH_DRIFT_N_KINDS; k++) {
    struct watch_label labels[] = { { "kind", drift_kind_names[k] } };
    watch_metrics_sample_u64(t, "placer_watch_drift_fixed_total", labels, 1, w->drift_fixed[k]);
  }
  watch_metrics_family(t, "placer_watch_exec_to_placed_seconds",
                       "From a process's exec (the kernel's timestamp; its start, for the scan) to its last thread "
                       "in the instance's group.",
                       WATCH_METRIC_HISTOGRAM);
  watch_metrics_histogram(t, "placer_watch_exec_to_placed_seconds", NULL, 0, &w->exec_to_placed);
}

/* Each steered IRQ's count per CPU, from one read of /proc/interrupts. */
static void irqs(struct watch_metrics_text *t, struct placer_watch *w) {
  watch_metrics_family(t, "placer_irq_interrupts_total", "Interrupts of a steered IRQ, per CPU.", WATCH_METRIC_COUNTER);
  if (w->n_irqs == 0)
    return;
  struct placer_interrupts parsed = { 0 };
  struct placer_error *e = NULL;
  if (placer_interrupts_read("", &parsed, &e) < 0) {
    placer_error_free(e);
    return; /* no samples: the family says nothing rather than something wrong */
  }
  for (size_t i = 0; i < w->n_irqs; i++) {
    cleanup_free uint64_t *counts = NULL;
    unsigned n_cpus = 0;
    if (placer_interrupts_counts(&parsed, w->irqs[i].irq, &counts, &n_cpus) < 0)
      continue; /* gone (a device removed) */
    char irq[16];
    snprintf(irq, sizeof(irq), "%u", w->irqs[i].irq);
    for (unsigned cpu = 0; cpu < n_cpus; cpu++) {
      char cpu_text[16];
      snprintf(cpu_text, sizeof(cpu_text), "%u", cpu);
      struct watch_label labels[] = { { "irq", irq }, { "name", w->irqs[i].name }, { "cpu", cpu_text } };
      watch_metrics_sample_u64(t, "placer_irq_interrupts_total", labels, 3, counts[cpu]);
    }
  }
  placer_interrupts_clear(&parsed);
}

/* The watcher itself: what the benchmark's idle CPU and RSS figures are. */
static void self(struct watch_metrics_text *t) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
    watch_metrics_family(t, "process_cpu_seconds_total", "User and system CPU time of the watcher.",
                         WATCH_METRIC_COUNTER);
    watch_metrics_sample(t, "process_cpu_seconds_total", NULL, 0, cpu);
    watch_metrics_family(t, "placer_watch_max_resident_memory_bytes", "The watcher's peak resident memory.",
                         WATCH_METRIC_GAUGE);
    watch_metrics_sample_u64(t, "placer_watch_max_resident_memory_bytes", NULL, 0, (uint64_t)ru.ru_maxrss * 1024u);
  }
  cleanup_free char *statm = NULL;
  unsigned long size_pages = 0, resident_pages = 0;
  if (placer_textfile_read_path("/proc/self/statm", 4096, &statm, NULL) == 0 &&
      sscanf(statm, "%lu %lu", &size_pages, &resident_pages) == 2) {
    watch_metrics_family(t, "process_resident_memory_bytes", "The watcher's resident memory.", WATCH_METRIC_GAUGE);
    watch_metrics_sample_u64(t, "process_resident_memory_bytes", NULL, 0,
                             (uint64_t)resident_pages * (uint64_t)sysconf(_SC_PAGESIZE));
  }
}

int placer_watch_metrics_text(struct placer_watch *w, char **text, size_t *len, struct placer_error **err) {
  struct watch_metrics_text t;
  if (watch_metrics_text_open(&t, err) < 0)
    return -1;
  instances(&t, w);
  events(&t, w);
  irqs(&t, w);
  self(&t);
  return watch_metrics_text_close(&t, text, len, err);
}
