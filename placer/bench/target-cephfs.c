/* Target cephfs: a file in CephFS, which a local cluster's MDS serves and
 * ceph-fuse mounts (placed like fio: in the fio instance's group), at
 * CLUSTER_DIR/mnt; fio runs on workloads.path there with libaio and O_DIRECT
 * (the page cache must not answer for Ceph). */
#include "bench/target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launch.h"
#include "lib/cpulist.h"
#include "lib/textfile.h"
#include "placement.h"

static int cephfs_settle(struct placer_study *s, const char **key, const char **why) {
  struct placer_study_workloads *wl = &s->workloads;
  *key = "target";
  if (s->cluster.type == PLACER_STUDY_CLUSTER_LOCAL && !s->cluster.mds) {
    *why = "target cephfs needs an MDS: set cluster.mds: true";
    return -1;
  }
  if (s->cluster.type == PLACER_STUDY_CLUSTER_EXISTING) {
    *why = "target cephfs is only supported with cluster type local";
    return -1;
  }
  if (wl->path && (strchr(wl->path, '/') || strcmp(wl->path, "..") == 0 || strcmp(wl->path, ".") == 0)) {
    *key = "path";
    *why = "for target cephfs, path is a file name in the mount";
    return -1;
  }
  if (wl->path == NULL && (wl->path = strdup("placer-bench.dat")) == NULL) {
    *why = NULL;
    return -1;
  }
  return 0;
}

static int cephfs_fio_args(char ***argv, const struct placer_study *s, const struct bench_fio_run *run,
                           const char **why) {
  (void)s;
  return bench_target_fio_on_file(argv, run, why);
}

static bool is_mounted(const char *dir) {
  char *text = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read("/proc/self/mountinfo", &text, &e) < 0) {
    placer_error_free(e);
    return false;
  }
  bool found = false;
  size_t dlen = strlen(dir);
  for (char *line = text; line && *line && !found;) {
    char *nl = strchr(line, '\n');
    /* field 5 is the mount point */
    char *p = line;
    for (int f = 0; f < 4 && p; f++) {
      p = strchr(p, ' ');
      if (p)
        p++;
    }
    if (p && strncmp(p, dir, dlen) == 0 && p[dlen] == ' ')
      found = true;
    line = nl ? nl + 1 : NULL;
  }
  free(text);
  return found;
}

static int cephfs_prepare(const struct placer_bench_cluster_env *env, struct placer_bench_cluster *c,
                          struct placer_error **err) {
  const struct placer_instance *inst = env->fio_inst;
  cleanup_free char *group = NULL, *cpus = NULL, *mems = NULL, *log = NULL;
  if (asprintf(&c->mount, "%s/mnt", c->dir) < 0 || asprintf(&log, "%s/log/ceph-fuse.out", c->dir) < 0)
    return placer_error_oom(err, NULL);
  if (mkdir(c->mount, 0755) < 0 && errno != EEXIST)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", c->mount);
  if (placer_instance_group(env->prefix, inst->role, inst->name, &group, err) < 0 ||
      placer_instance_place_group(env->cg, inst, group, err) < 0)
    return -1;
  cpus = placer_cpulist_format(inst->cpus);
  mems = placer_cpulist_format(inst->mems);
  char *cmd[] = { "ceph-fuse", "-f", "-c", c->conf, c->mount, NULL };
  struct placer_bench_exec x = { env->exe, env->prefix, env->topology_xml, env->profile_path, env->sets };
  if (placer_bench_start_placed(&x, inst->name, group, cmd, NULL, log, &c->fuse, err) < 0)
    return placer_error_prefix(err, "ceph-fuse");
  c->fuse_running = true;
  for (int i = 0; i < 300; i++) {
    if (is_mounted(c->mount))
      return 0;
    if (!placer_launch_exec.is_running(&c->fuse))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "ceph-fuse exited before mounting %s; see %s", c->mount, log);
    if (!placer_bench_sleep_ms(100))
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINTR, "interrupted");
  }
  return placer_error_set(err, PLACER_EXIT_SYSTEM, ETIMEDOUT, "ceph-fuse did not mount %s within 30 s; see %s",
                          c->mount, log);
}

const struct bench_target_ops bench_target_cephfs = {
  .name = "cephfs",
  .flags = BENCH_TARGET_CEPH | BENCH_TARGET_MOUNT_PATH | BENCH_TARGET_DIRECT,
  .program = "ceph-fuse",
  .settle = cephfs_settle,
  .fio_args = cephfs_fio_args,
  .prepare = cephfs_prepare,
};
