/* Launch backends: the registry and what the backends share (whether a
 * recorded process still runs, killing what is left in a group); see
 * launch.h.  Removing groups in every hierarchy is the cgroup layer's. */
#include "launch.h"
#include "lib/datafile.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/array.h"
#include "procmatch.h"
#include "proc.h"

static const struct placer_launch_ops *const backends[] = {
  &placer_launch_exec,
  &placer_launch_podman,
};

const struct placer_launch_ops *placer_launch_find(const char *name) {
  for (size_t i = 0; i < N_OF(backends); i++)
    if (name && strcmp(backends[i]->name, name) == 0)
      return backends[i];
  return NULL;
}

void placer_launch_record_clear(struct placer_launch_record *rec) {
  if (rec == NULL)
    return;
  free(rec->profile);
  free(rec->instance);
  free(rec->role);
  free(rec->backend);
  free(rec->group);
  free(rec->container_name);
  free(rec->container_id);
  free(rec->container_cgroup);
  free(rec->log_path);
  free(rec->accel);
  free(rec->joined_by);
  for (size_t i = 0; rec->argv && rec->argv[i]; i++)
    free(rec->argv[i]);
  free(rec->argv);
  memset(rec, 0, sizeof(*rec));
}

unsigned long long placer_launch_start_time(pid_t pid) {
  uint64_t t = 0;
  struct placer_error *gone = NULL;
  if (pid <= 0 || placer_proc_start_time(pid, &t, &gone) < 0) {
    placer_error_clear(&gone);
    return 0;
  }
  return (unsigned long long)t;
}

bool placer_launch_record_alive(const struct placer_launch_record *rec) {
  /* Without its start time a PID cannot be told from a reused one. */
  return rec->pid > 0 && rec->start_time != 0 && placer_proc_is_same(rec->pid, rec->start_time);
}

/* ------------------------------------------------------------------ groups */

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Signal everything in GROUP's subtree, wait up to TIMEOUT_S for it to be
 * empty; *left: how many processes are still there. */
static int signal_and_wait(struct placer_cgroup *cg, const char *group, int sig, double timeout_s, size_t *left,
                           struct placer_error **err) {
  if (placer_cgroup_signal_subtree(cg, group, sig, left, err) < 0)
    return -1;
  double end = now_s() + timeout_s;
  while (*left > 0 && now_s() < end) {
    sleep_ms(50);
    if (placer_cgroup_signal_subtree(cg, group, 0, left, err) < 0)
      return -1;
  }
  return 0;
}

int placer_launch_kill_group(struct placer_cgroup *cg, const char *group, unsigned timeout_s,
                             struct placer_error **err) {
  size_t left = 0;
  if (signal_and_wait(cg, group, SIGTERM, timeout_s, &left, err) < 0)
    return -1;
  if (left > 0 && signal_and_wait(cg, group, SIGKILL, 5.0, &left, err) < 0)
    return -1;
  if (left == 0)
    return 0;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (placer_cgroup_subtree_pids(cg, group, &pids, &n, err) < 0)
    return -1;
  char list[256] = "";
  for (size_t i = 0; i < n && strlen(list) < sizeof(list) - 16; i++)
    snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", i ? " " : "", (int)pids[i]);
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EBUSY, "group %s: PIDs %s survived SIGKILL", group, list);
}

int placer_launch_remove_group(struct placer_cgroup *cg, const char *group, bool prune, struct placer_error **err) {
  if (placer_cgroup_remove(cg, group, err) < 0)
    return -1;
  return prune ? placer_cgroup_remove_empty_parents(cg, group, err) : 0;
}

/* ------------------------------------------------------------------ containers.conf */

char *placer_containers_conf_path(void) {
  return placer_data_file("PLACER_CONTAINERS_CONF", "containers/containers.conf");
}
