/* The systemd backend's helpers: running systemctl, reading a unit's group
 * and checking every thread in it (apply-systemd-internal.h); its state file
 * is state.h's kind placer_state_units. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "apply/apply-systemd-internal.h"
#include "lib/cpulist.h"
#include "lib/fsfile.h"
#include "lib/statedir.h"
#include "lib/subprocess.h"
#include "lib/substitute.h"
#include "lib/textfile.h"
#include "proc.h"
#include "procmatch.h"
#include "vcpu.h"

void sd_ctx_init(struct sd_ctx *c, const struct placer_apply_options *opt) {
  c->systemctl = "systemctl";
  c->etc_dir = PLACER_SYSTEMD_ETC_DIR;
  c->control_dir = PLACER_SYSTEMD_CONTROL_DIR;
  c->cgroup_root = opt && opt->cgroup_root && *opt->cgroup_root ? opt->cgroup_root : "/sys/fs/cgroup";
  c->timeout_ms = 120000;
}

struct placer_systemd_props sd_instance_props(const struct placer_state_unit *si) {
  struct placer_systemd_props p = { .allowed_cpus = si->cpus,
                                    .allowed_memory_nodes = si->mems,
                                    .has_memory_max = si->has_memory_limit,
                                    .memory_max_bytes = si->memory_bytes,
                                    .cpu_weight = si->cpu_weight };
  return p;
}

/* ------------------------------------------------------------------ systemctl */

int sd_systemctl(const struct sd_ctx *c, char **argv, char **out, struct placer_error **err) {
  return apply_systemctl(argv, c->timeout_ms, out, err);
}

int sd_show(const struct sd_ctx *c, const char *unit, char **text, struct placer_error **err) {
  char *argv[32] = { (char *)c->systemctl, "show", (char *)unit };
  size_t k = 3;
  for (size_t i = 0; placer_systemd_show_keys[i] && k + 2 < 31; i++) {
    argv[k++] = "-p";
    argv[k++] = (char *)placer_systemd_show_keys[i];
  }
  argv[k] = NULL;
  return sd_systemctl(c, argv, text, err);
}

int sd_daemon_reload(const struct sd_ctx *c, struct placer_error **err) {
  char *argv[] = { (char *)c->systemctl, "daemon-reload", NULL };
  return sd_systemctl(c, argv, NULL, err);
}

char *sd_control_file(const struct sd_ctx *c, const char *unit, enum sd_prop p) {
  char *path = NULL;
  if (asprintf(&path, "%s/%s.d/50-%s.conf", c->control_dir, unit, placer_state_unit_props[p]) < 0)
    return NULL;
  return path;
}

/* ------------------------------------------------------------------ groups */

int sd_pid_cgroup(pid_t pid, char **path, struct placer_error **err) {
  char file[64];
  snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(file, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", file);
  return placer_systemd_cgroup2_path(text, path, err);
}

static void add_pid(pid_t **v, size_t *n, size_t *cap, pid_t pid) {
  for (size_t i = 0; i < *n; i++)
    if ((*v)[i] == pid)
      return;
  if (*n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    pid_t *bigger = realloc(*v, ncap * sizeof(*bigger));
    if (bigger == NULL)
      return;
    *v = bigger;
    *cap = ncap;
  }
  (*v)[(*n)++] = pid;
}

static void walk_pids(const char *dir, int depth, pid_t **v, size_t *n, size_t *cap) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) == 0)
    for (char *p = text, *end; *p; p = end) {
      long pid = strtol(p, &end, 10);
      if (end == p)
        break;
      if (pid > 0)
        add_pid(v, n, cap, (pid_t)pid);
    }
  if (depth > 32)
    return;
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_type != DT_DIR || de->d_name[0] == '.')
      continue;
    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    walk_pids(path, depth + 1, v, n, cap);
  }
  closedir(d);
}

int sd_cgroup_pids(const struct sd_ctx *c, const char *cgroup, pid_t **pids, size_t *n, struct placer_error **err) {
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s%s", c->cgroup_root, cgroup);
  struct stat st;
  if (stat(dir, &st) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "unit group %s", dir);
  pid_t *v = NULL;
  size_t count = 0, cap = 0;
  walk_pids(dir, 0, &v, &count, &cap);
  *pids = v;
  *n = count;
  return 0;
}

char *sd_cgroup_read(const struct sd_ctx *c, const char *cgroup, const char *file) {
  char path[4096];
  snprintf(path, sizeof(path), "%s%s/%s", c->cgroup_root, cgroup, file);
  char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return NULL;
  size_t len = strlen(text);
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  return text;
}

/* ------------------------------------------------------------------ checks */

static void problem(sd_problem_fn report, void *ctx, size_t *count, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(sd_problem_fn report, void *ctx, size_t *count, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = apply_vformat(fmt, ap);
  va_end(ap);
  report(ctx, msg ? msg : "?");
  free(msg);
  (*count)++;
}

static void check_file(const struct sd_ctx *c, const struct placer_state_unit *si, const char *file, const char *want,
                       bool is_list, sd_problem_fn report, void *ctx, size_t *count) {
  cleanup_free char *have = sd_cgroup_read(c, si->cgroup, file);
  if (have == NULL) {
    problem(report, ctx, count, "%s: cannot read %s%s/%s", si->unit, c->cgroup_root, si->cgroup, file);
    return;
  }
  bool ok = is_list ? placer_cpulist_equal(have, want) : strcmp(have, want) == 0;
  if (!ok)
    problem(report, ctx, count, "%s: %s is %s, planned %s", si->unit, file, *have ? have : "empty", want);
}

size_t sd_check_unit(const struct sd_ctx *c, const struct placer_state_unit *si, sd_problem_fn report, void *ctx,
                     size_t *n_procs_out, size_t *n_threads_out) {
  size_t count = 0, n_threads = 0;
  if (si->cpus)
    check_file(c, si, "cpuset.cpus.effective", si->cpus, true, report, ctx, &count);
  if (si->mems)
    check_file(c, si, "cpuset.mems.effective", si->mems, true, report, ctx, &count);
  if (si->has_memory_limit) {
    char want[32];
    /* the kernel keeps the limit rounded down to a page */
    snprintf(want, sizeof(want), "%llu", (unsigned long long)(si->memory_bytes & ~(uint64_t)4095));
    check_file(c, si, "memory.max", want, false, report, ctx, &count);
  }
  if (si->cpu_weight) {
    char want[16];
    snprintf(want, sizeof(want), "%u", si->cpu_weight);
    check_file(c, si, "cpu.weight", want, false, report, ctx, &count);
  }
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  struct placer_error *e = NULL;
  if (sd_cgroup_pids(c, si->cgroup, &pids, &n, &e) < 0) {
    problem(report, ctx, &count, "%s: %s", si->unit, e->msg);
    placer_error_free(e);
    n = 0;
  }
  hwloc_bitmap_t cpuset = hwloc_bitmap_alloc();
  if (cpuset && si->cpus)
    placer_cpulist_parse(si->cpus, cpuset);
  for (size_t i = 0; i < n; i++) {
    struct placer_vcpu *vcpus = NULL;
    size_t n_vcpus = 0;
    const char *source = NULL;
    if (si->pin_vcpus) {
      struct placer_error *verr = NULL;
      if (placer_vcpu_find(pids[i], si->qmp_socket, &vcpus, &n_vcpus, &source, &verr) < 0)
        placer_error_free(verr);
    }
    cleanup_free pid_t *tids = NULL;
    size_t n_tids = 0;
    if (placer_task_list(pids[i], &tids, &n_tids, &e) < 0) {
      placer_error_free(e); /* exited while we looked */
      e = NULL;
      free(vcpus);
      continue;
    }
    for (size_t t = 0; t < n_tids; t++) {
      cleanup_free char *tcpus = NULL, *tmems = NULL;
      char pin[16] = "";
      if (placer_task_read_allowed(pids[i], tids[t], &tcpus, &tmems, &e) < 0) {
        placer_error_free(e); /* a thread that ended */
        e = NULL;
        continue;
      }
      n_threads++;
      for (size_t k = 0; k < n_vcpus && cpuset; k++)
        if (vcpus[k].tid == tids[t])
          snprintf(pin, sizeof(pin), "%d", placer_cpulist_nth(cpuset, vcpus[k].cpu_index));
      const char *want = *pin ? pin : si->cpus;
      if (want && !placer_cpulist_equal(tcpus, want) && !placer_task_exiting(pids[i], tids[t])) {
        cleanup_free char *comm = placer_task_comm(pids[i], tids[t]);
        problem(report, ctx, &count, "thread %d (%s) of pid %d: Cpus_allowed_list %s, planned %s", (int)tids[t],
                comm ? comm : "?", (int)pids[i], tcpus, want);
      }
      if (si->mems && !placer_cpulist_equal(tmems, si->mems) && !placer_task_exiting(pids[i], tids[t])) {
        cleanup_free char *comm = placer_task_comm(pids[i], tids[t]);
        problem(report, ctx, &count, "thread %d (%s) of pid %d: Mems_allowed_list %s, planned %s", (int)tids[t],
                comm ? comm : "?", (int)pids[i], tmems, si->mems);
      }
    }
    free(vcpus);
  }
  hwloc_bitmap_free(cpuset);
  if (n_procs_out)
    *n_procs_out = n;
  if (n_threads_out)
    *n_threads_out = n_threads;
  return count;
}

int sd_pin_vcpus(const struct sd_ctx *c, const struct placer_state_unit *si, size_t *n_pinned, const char **source,
                 struct placer_error **err) {
  *n_pinned = 0;
  if (!si->pin_vcpus || si->cpus == NULL)
    return 0;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (sd_cgroup_pids(c, si->cgroup, &pids, &n, err) < 0)
    return -1;
  hwloc_bitmap_t cpuset = hwloc_bitmap_alloc();
  if (cpuset == NULL || placer_cpulist_parse(si->cpus, cpuset) < 0) {
    hwloc_bitmap_free(cpuset);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s: bad cpus '%s'", si->name, si->cpus);
  }
  int ret = 0;
  for (size_t i = 0; i < n && ret == 0; i++) {
    struct placer_vcpu *vcpus = NULL;
    size_t n_vcpus = 0;
    struct placer_error *verr = NULL;
    if (placer_vcpu_find(pids[i], si->qmp_socket, &vcpus, &n_vcpus, source, &verr) < 0) {
      placer_error_free(verr); /* not a qemu */
      continue;
    }
    for (size_t k = 0; k < n_vcpus && ret == 0; k++) {
      char pu[16];
      snprintf(pu, sizeof(pu), "%d", placer_cpulist_nth(cpuset, vcpus[k].cpu_index));
      if (placer_task_set_affinity(vcpus[k].tid, pu, err) < 0)
        ret = placer_error_prefix(err, "%s: vCPU %u (thread %d)", si->name, vcpus[k].cpu_index, (int)vcpus[k].tid);
      else
        (*n_pinned)++;
    }
    free(vcpus);
  }
  hwloc_bitmap_free(cpuset);
  return ret;
}
