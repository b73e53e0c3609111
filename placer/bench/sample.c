/* Reading the measurement files of sample.h; the parsing is in sample-parse.c. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/sample.h"
#include "lib/textfile.h"

static int read_parsed(const char *proc_root, const char *rel, char **text, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", proc_root, rel) < 0)
    return placer_error_oom(err, rel);
  return placer_textfile_read(path, text, err);
}

int placer_sample_process(const char *proc_root, pid_t pid, struct placer_sample_task *stat,
                          struct placer_sample_mem *mem, struct placer_error **err) {
  char rel[64];
  if (stat) {
    cleanup_free char *text = NULL;
    snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
    if (read_parsed(proc_root, rel, &text, err) < 0 || placer_sample_parse_stat(text, stat, err) < 0)
      return placer_error_prefix(err, "sample process %d", (int)pid);
  }
  if (mem) {
    cleanup_free char *text = NULL;
    snprintf(rel, sizeof(rel), "%d/status", (int)pid);
    if (read_parsed(proc_root, rel, &text, err) < 0 || placer_sample_parse_status(text, mem, err) < 0)
      return placer_error_prefix(err, "sample process %d", (int)pid);
  }
  return 0;
}

static int cmp_task(const void *pa, const void *pb) {
  const struct placer_sample_task *a = pa, *b = pb;
  return (a->pid > b->pid) - (a->pid < b->pid);
}

int placer_sample_threads(const char *proc_root, pid_t pid, struct placer_sample_task **out, size_t *n,
                          struct placer_error **err) {
  cleanup_free char *dir = NULL;
  if (asprintf(&dir, "%s/%d/task", proc_root, (int)pid) < 0)
    return placer_error_oom(err, "threads of a process");
  DIR *d = opendir(dir);
  if (d == NULL)
    return placer_error_errno(err, errno == ENOENT ? PLACER_EXIT_USAGE : PLACER_EXIT_SYSTEM, errno,
                              "threads of %d: open '%s'", (int)pid, dir);
  size_t count = 0, cap = 64;
  struct placer_sample_task *tasks = malloc(cap * sizeof(*tasks));
  struct dirent *ent;
  int rc = 0;
  if (tasks == NULL)
    rc = placer_error_oom(err, "threads of a process");
  while (rc == 0 && (ent = readdir(d)) != NULL) {
    if (ent->d_name[0] < '0' || ent->d_name[0] > '9')
      continue;
    cleanup_free char *path = NULL, *text = NULL;
    if (count == cap) {
      struct placer_sample_task *bigger = realloc(tasks, 2 * cap * sizeof(*tasks));
      if (bigger == NULL) {
        rc = placer_error_oom(err, "threads of a process");
        break;
      }
      tasks = bigger;
      cap *= 2;
    }
    if (asprintf(&path, "%s/%s/stat", dir, ent->d_name) < 0) {
      rc = placer_error_oom(err, "threads of a process");
      break;
    }
    struct placer_error *read_err = NULL;
    if (placer_textfile_read(path, &text, &read_err) < 0) {
      /* The thread exited between readdir and open: not an error. */
      int e = read_err->errno_value;
      placer_error_free(read_err);
      if (e == ENOENT || e == ESRCH)
        continue;
      rc = placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "threads of %d: read '%s'", (int)pid, path);
      break;
    }
    if (placer_sample_parse_stat(text, &tasks[count], err) < 0) {
      rc = placer_error_prefix(err, "threads of %d: '%s'", (int)pid, path);
      break;
    }
    count++;
  }
  closedir(d);
  if (rc < 0) {
    free(tasks);
    return rc;
  }
  qsort(tasks, count, sizeof(*tasks), cmp_task);
  *out = tasks;
  *n = count;
  return 0;
}

int placer_sample_read_proc_stat(const char *proc_root, struct placer_sample_cpu_times **out, size_t *n,
                                 struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (read_parsed(proc_root, "stat", &text, err) < 0 || placer_sample_parse_proc_stat(text, out, n, err) < 0)
    return placer_error_prefix(err, "per-core utilisation");
  return 0;
}

int placer_sample_read_diskstats(const char *proc_root, struct placer_sample_disk **out, size_t *n,
                                 struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (read_parsed(proc_root, "diskstats", &text, err) < 0 || placer_sample_parse_diskstats(text, out, n, err) < 0)
    return placer_error_prefix(err, "device writes");
  return 0;
}
