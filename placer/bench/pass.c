/* What a pass of placer bench shares between its measured runs (run.c) and
 * its recovery runs (recovery-run.c): fio started placed in the variant's
 * group, and the check that every thread of a daemon runs where the plan
 * says.  Kept apart so that neither runner calls back into the other. */
#include "bench/internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/cpulist.h"
#include "lib/substitute.h"
#include "proc.h"

int bench_check_daemon_threads(struct pass *p, const struct placer_bench_daemon *d, const char *what,
                               struct placer_error **err) {
  const struct placer_instance *inst = d->inst;
  cleanup_free char *want = placer_cpulist_format(inst->cpus), *want_mems = placer_cpulist_format(inst->mems);
  hwloc_bitmap_t have = hwloc_bitmap_alloc();
  pid_t *tids = NULL;
  size_t n = 0;
  int rc = want && want_mems && have ? placer_task_list(d->pid, &tids, &n, err) : placer_error_oom(err, "bench pass");
  for (size_t k = 0; rc == 0 && k < n; k++) {
    char *now = NULL, *now_mems = NULL;
    struct placer_error *gone = NULL;
    if (placer_task_read_allowed(d->pid, tids[k], &now, &now_mems, &gone) < 0) {
      placer_error_clear(&gone); /* the thread ended */
      continue;
    }
    if (placer_cpulist_parse(now, have) < 0 || !hwloc_bitmap_isequal(have, inst->cpus))
      rc =
          placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "%s: thread %d of %s (pid %d) runs on cpus %s, the plan says %s",
                           what, (int)tids[k], d->name, (int)d->pid, now, want);
    else if (placer_cpulist_parse(now_mems, have) < 0 || !hwloc_bitmap_isequal(have, inst->mems))
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                            "%s: thread %d of %s (pid %d) may use memory nodes %s, the plan says %s", what,
                            (int)tids[k], d->name, (int)d->pid, now_mems, want_mems);
    free(now);
    free(now_mems);
  }
  if (rc == 0)
    p->threads_checked += n;
  free(tids);
  hwloc_bitmap_free(have);
  return rc;
}

/* fio's environment: the cluster's (CEPH_CONF...) and, with fio_env, the
 * variant's; -1 out of memory (an entry left out would run fio without it). */
static int fio_env(const struct pass *p, char ***out) {
  char **env = p->cluster.fio_env ? placer_argv_dup(p->cluster.fio_env) : NULL;
  int rc = p->cluster.fio_env && env == NULL ? -1 : 0;
  for (size_t i = 0; rc == 0 && p->v->spec->fio_env && i < p->v->spec->env.n; i++)
    rc = placer_argv_push(&env, p->v->spec->env.items[i]);
  if (rc < 0) {
    placer_argv_free(env);
    return -1;
  }
  *out = env;
  return 0;
}

/* Start fio placed in the variant's fio group; *pid is our child.  Its
 * OUTPUT is made first, a regular file: fio opens it following links. */
int bench_start_fio(struct bench *b, struct pass *p, char **argv, const char *output, const char *log, pid_t *pid,
                    struct placer_error **err) {
  const struct variant *v = p->v;
  if (bench_file_fresh(output, err) < 0)
    return placer_error_prefix(err, "fio");
  struct placer_bench_exec x = { b->exe, b->prefix, b->topology_xml, v->profile_path, v->sets };
  char **env = NULL;
  if (fio_env(p, &env) < 0)
    return placer_error_oom(err, "fio's environment");
  struct placer_launch_record rec = { 0 };
  int rc = placer_bench_start_placed(&x, v->fio->name, v->fio_group, argv, env, log, &rec, err);
  placer_argv_free(env);
  if (rc < 0)
    return placer_error_prefix(err, "fio");
  *pid = rec.pid;
  placer_launch_record_clear(&rec);
  return 0;
}
