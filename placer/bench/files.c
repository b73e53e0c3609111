/* The files a study writes outside Ceph, and the results directory as
 * placer trusts it.  The workloads' target (target file) and the hardware
 * baseline's file follow one rule (docs/bench.md, "What placer writes"): a
 * relative path is in the results directory (normalised, without "..", by
 * study.c); a file placer creates is its own and goes when the study ends;
 * an existing file or block device is written only with `write: true`; and
 * neither is ever one of the results directory's own files.  A results
 * directory is data (it may come from elsewhere, #35): placer writes nothing
 * in it through a symbolic link. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/target.h"
#include "bench/internal.h"
#include "lib/array.h"
#include "lib/fsfile.h"
#include "lib/textfile.h"
#include "lib/units.h"

/* What placer writes at the top of a results directory (docs/bench.md, "The
 * results directory"), the directories it writes into (the cluster, apply's
 * and the IRQs' state, the plots), and of those the ones whose files it
 * writes one by one. */
static const char *const own_files[] = {
  "summary.json", "runs.csv",     "roles.csv",  "threads.csv", "cores.csv",  "placement.csv",
  "solo.csv",     "recovery.csv", "report.txt", "report.html", "study.yaml",
};
static const char *const own_dirs[] = { "fio", "logs", "plans", "report", "cluster", "apply-state", "irq-state" };
static const char *const written_dirs[] = { "fio", "logs", "plans", "report" };
/* More entries than a results directory of PLACER_BENCH_MAX_RUNS runs holds
 * (a few files each): a scan stops there, and what it did not see is still
 * never written through (every write is O_NOFOLLOW). */
#define MAX_SCANNED (1u << 20)

static bool listed(const char *name, size_t len, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
      return true;
  return false;
}

/* The results directory's own entry that REL (relative, normalised) falls
 * on, as "summary.json" or "fio/", or NULL: its first part is what counts
 * (fio/x.json is in fio/).  Names beginning with '.' are placer's
 * temporaries (.summary.json.tmp, .report-XXXXXX), report-kept-* what a
 * redraw could not move. */
static const char *own_entry(const char *rel, char *buf, size_t len) {
  size_t first = strcspn(rel, "/");
  if (listed(rel, first, own_files, N_OF(own_files)))
    snprintf(buf, len, "%.*s", (int)first, rel);
  else if (listed(rel, first, own_dirs, N_OF(own_dirs)))
    snprintf(buf, len, "%.*s/", (int)first, rel);
  else if (rel[0] == '.' || strncmp(rel, "report-kept-", 12) == 0)
    snprintf(buf, len, "temporary files ('%.*s')", (int)first, rel);
  else
    return NULL;
  return buf;
}

/* PATH made absolute, without links, '.' or '..', as far as it exists; what
 * does not exist yet follows as given.  NULL with errno on failure. */
static char *canonical_path(const char *path) {
  char *real = realpath(path, NULL);
  if (real || errno != ENOENT)
    return real;
  cleanup_free char *copy = strdup(path);
  if (copy == NULL)
    return NULL;
  size_t len = strlen(copy);
  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  char *slash = strrchr(copy, '/');
  const char *base = slash ? slash + 1 : copy;
  const char *parent = slash == copy ? "/" : slash ? (*slash = '\0', copy) : ".";
  char *up = canonical_path(parent);
  if (up == NULL || strcmp(base, ".") == 0)
    return up;
  if (strcmp(base, "..") == 0) { /* a missing directory's parent: lexically */
    char *last = strrchr(up, '/');
    if (last)
      last[last == up ? 1 : 0] = '\0';
    return up;
  }
  char *out = NULL;
  int n = asprintf(&out, "%s/%s", strcmp(up, "/") == 0 ? "" : up, base);
  free(up);
  return n < 0 ? NULL : out;
}

/* The own file of results directory DIR (an open descriptor) that ST is,
 * in BUF ("summary.json", "fio/x.json"), or NULL: the same file by device
 * and inode, whatever its name (a hard link). */
static const char *same_as_own(int dir, const struct stat *st, char *buf, size_t len) {
  struct stat o;
  for (size_t i = 0; i < N_OF(own_files); i++)
    if (fstatat(dir, own_files[i], &o, AT_SYMLINK_NOFOLLOW) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino) {
      snprintf(buf, len, "%s", own_files[i]);
      return buf;
    }
  for (size_t i = 0; i < N_OF(written_dirs); i++) {
    int fd = openat(dir, written_dirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
      if (fd >= 0)
        close(fd);
      continue;
    }
    const char *found = NULL;
    struct dirent *e;
    for (size_t n = 0; found == NULL && n < MAX_SCANNED && (e = readdir(d)) != NULL; n++)
      if (fstatat(fd, e->d_name, &o, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(o.st_mode) && o.st_dev == st->st_dev &&
          o.st_ino == st->st_ino) {
        snprintf(buf, len, "%s/%s", written_dirs[i], e->d_name);
        found = buf;
      }
    closedir(d);
    if (found)
      return found;
  }
  return NULL;
}

int bench_results_dir_check(const char *dir, struct placer_error **err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "results directory '%s'", dir);
  DIR *top = fdopendir(fd);
  if (top == NULL) {
    close(fd);
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "results directory '%s'", dir);
  }
  int rc = 0;
  struct dirent *e;
  for (size_t n = 0; rc == 0 && n < MAX_SCANNED && (e = readdir(top)) != NULL; n++) {
    struct stat st;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
        fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
      continue;
    const char *want = NULL;
    bool written = listed(e->d_name, strlen(e->d_name), written_dirs, N_OF(written_dirs));
    if (S_ISLNK(st.st_mode))
      want = "anything but a symbolic link (placer does not write through one)";
    else if (listed(e->d_name, strlen(e->d_name), own_files, N_OF(own_files)) && !S_ISREG(st.st_mode))
      want = "a regular file";
    else if (listed(e->d_name, strlen(e->d_name), own_dirs, N_OF(own_dirs)) && !S_ISDIR(st.st_mode))
      want = "a directory";
    if (want) {
      rc = placer_error_set(err, PLACER_EXIT_USAGE, ELOOP, "results directory '%s': %s is %s, expected %s", dir,
                            e->d_name, placer_file_type_name((unsigned)st.st_mode), want);
      break;
    }
    if (!written)
      continue;
    int sub_fd = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *sub = sub_fd >= 0 ? fdopendir(sub_fd) : NULL;
    if (sub == NULL) {
      if (sub_fd >= 0)
        close(sub_fd);
      continue;
    }
    struct dirent *f;
    for (size_t k = 0; rc == 0 && k < MAX_SCANNED && (f = readdir(sub)) != NULL; k++)
      if (fstatat(sub_fd, f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        rc = placer_error_set(err, PLACER_EXIT_USAGE, ELOOP,
                              "results directory '%s': %s/%s is a symbolic link, expected anything but one (placer "
                              "does not write through one)",
                              dir, e->d_name, f->d_name);
    closedir(sub);
  }
  closedir(top);
  return rc;
}

int bench_file_fresh(const char *path, struct placer_error **err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "create '%s'%s", path,
                              errno == ELOOP ? " (a symbolic link: placer does not write through one)" : "");
  struct stat st;
  int rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
               ? 0
               : placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "create '%s': not a regular file", path);
  close(fd);
  return rc;
}

FILE *bench_file_open(const char *path, bool append, struct placer_error **err) {
  int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    int e = fd < 0 ? errno : EINVAL;
    if (fd >= 0)
      close(fd);
    placer_error_errno(err, PLACER_EXIT_SYSTEM, e, "create '%s'%s", path,
                       e == ELOOP ? " (a symbolic link: placer does not write through one)" : "");
    return NULL;
  }
  FILE *f = fdopen(fd, append ? "ae" : "we");
  if (f == NULL) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "create '%s'", path);
    close(fd);
  }
  return f;
}

/* Why the study writes the file: "prefill, randwrite" (empty: it does not). */
static void write_reasons(const struct bench *b, bool prefill, bool shorter, char *buf, size_t len) {
  buf[0] = '\0';
  size_t used = 0;
  if (prefill)
    used += (size_t)snprintf(buf + used, len - used, "prefill");
  for (size_t w = 0; w < b->n_workloads && used < len; w++)
    if (placer_bench_pattern_direction(b->wls[w].pattern) != PLACER_BENCH_READ && !strstr(buf, b->wls[w].pattern))
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", b->wls[w].pattern);
  if (shorter && used < len)
    snprintf(buf + used, len - used, "%sfio lays out a file shorter than the region", used ? ", " : "");
}

/* GIVEN is never one of the results directory's own files (RESULTS, its
 * canonical path; NULL: not known, --dry-run without --out), by name and,
 * when it exists, by identity (OUT_DIR: the results directory, when it
 * exists); and nothing on the way to a relative one in it is a link. */
static int not_own(const char *where, const char *given, bool relative, const char *results, const char *out_dir,
                   struct placer_error **err) {
  char own[PATH_MAX + 64];
  if (relative && own_entry(given, own, sizeof(own)))
    return placer_error_set(err, PLACER_EXIT_USAGE, EEXIST,
                            "%s: '%s' is placer's own %s in the results directory: give the study's file another name",
                            where, given, own);
  if (relative && out_dir) {
    cleanup_free char *path = bench_path_join(out_dir, given);
    if (path == NULL)
      return placer_error_oom(err, "bench files");
    struct stat st;
    for (char *slash = path + strlen(out_dir) + 1; (slash = strchr(slash, '/')) != NULL; *slash++ = '/') {
      *slash = '\0';
      if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        return placer_error_set(err, PLACER_EXIT_USAGE, ENOTDIR, "%s: '%s' is %s, expected a directory placer made",
                                where, path, placer_file_type_name((unsigned)st.st_mode));
    }
    return 0;
  }
  if (relative || results == NULL)
    return 0;
  cleanup_free char *canon = canonical_path(given);
  size_t rlen = strlen(results);
  if (canon && strncmp(canon, results, rlen) == 0 && (canon[rlen] == '\0' || canon[rlen] == '/')) {
    if (canon[rlen] == '\0')
      return placer_error_set(err, PLACER_EXIT_USAGE, EISDIR, "%s: '%s' is the results directory itself", where, given);
    if (own_entry(canon + rlen + 1, own, sizeof(own)))
      return placer_error_set(err, PLACER_EXIT_USAGE, EEXIST,
                              "%s: '%s' is placer's own %s in the results directory ('%s'): give the study's file "
                              "another path",
                              where, given, own, canon);
  }
  struct stat st;
  int dir = out_dir ? open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  const char *same = dir >= 0 && stat(given, &st) == 0 ? same_as_own(dir, &st, own, sizeof(own)) : NULL;
  if (dir >= 0)
    close(dir);
  if (same)
    return placer_error_set(err, PLACER_EXIT_USAGE, EEXIST,
                            "%s: '%s' is the results directory's own %s (the same file): give the study's file "
                            "another path",
                            where, given, same);
  return 0;
}

static int bench_file_check(const struct bench *b, const char *key, const char *given, bool may_write, bool prefill,
                            uint64_t size_bytes, const char *results, const char *out_dir, struct bench_file *f,
                            struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct placer_study_baseline *hw = &s->baseline;
  bool is_hw = strcmp(key, "hardware_baseline") == 0;
  unsigned line = is_hw ? hw->path_line : s->workloads.path_line;
  unsigned column = is_hw ? hw->path_column : s->workloads.path_column;
  char where[512];
  snprintf(where, sizeof(where), "%s:%u:%u: %s.path", s->path ? s->path : "study", line, column, key);
  memset(f, 0, sizeof(*f));
  bool relative = given[0] != '/';
  if (not_own(where, given, relative, results, out_dir, err) < 0)
    return -1;
  if (relative && out_dir == NULL) {
    f->created = true; /* a new results directory: nothing is there yet */
    return 0;
  }
  cleanup_free char *path = relative ? bench_path_join(out_dir, given) : strdup(given);
  if (path == NULL)
    return placer_error_oom(err, "bench files");
  struct stat st;
  /* in the results directory, placer's own: not a link out of it */
  if ((relative ? lstat(path, &st) : stat(path, &st)) < 0) {
    if (errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "%s: '%s'", where, path);
    cleanup_free char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash == NULL)
      return placer_error_oom(err, "bench files");
    *(slash == dir ? slash + 1 : slash) = '\0';
    if (relative) { /* a file in a subdirectory of the results directory */
      if (placer_mkdir_p(dir, err) < 0)
        return -1;
    } else if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
      return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT, "%s: '%s': its directory '%s' does not exist", where,
                              path, dir);
    }
    f->path = TAKE_PTR(path);
    f->created = true;
    return 0;
  }
  bool blk = S_ISBLK(st.st_mode);
  if (!S_ISREG(st.st_mode) && !(blk && !relative))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s: '%s' is %s: expected %s", where, path,
                            placer_file_type_name((unsigned)st.st_mode),
                            relative ? "a file placer made in the results directory" : "a file or a block device");
  if (!relative) {
    char why[256];
    /* the baseline prefills a file, never a device; the workloads prefill either */
    write_reasons(b, is_hw ? !blk : prefill, !blk && (uint64_t)st.st_size < size_bytes, why, sizeof(why));
    if (why[0] && !may_write) {
      char size[32], what[64];
      placer_format_bytes((uint64_t)st.st_size, size, sizeof(size));
      snprintf(what, sizeof(what), blk ? "a block device" : "an existing file (%s) that placer did not create", size);
      return placer_error_set(err, PLACER_EXIT_USAGE, EEXIST,
                              "%s: '%s' is %s, and the study writes it (%s): set %s.write: true if its data may be "
                              "destroyed",
                              where, path, what, why, key);
    }
  }
  f->path = TAKE_PTR(path);
  f->created = relative; /* left by an earlier run of this results directory: placer's */
  return 0;
}

int bench_files_check(struct bench *b, const char *out_dir, bool exists, struct placer_error **err) {
  const struct placer_study *s = b->study;
  cleanup_free char *results = out_dir ? canonical_path(out_dir) : NULL;
  const char *existing = exists ? results : NULL;
  if (exists && results == NULL)
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "--resume '%s'", out_dir);
  if ((s->workloads.target->flags & BENCH_TARGET_LOCAL_PATH) &&
      bench_file_check(b, "workloads", s->workloads.path, s->workloads.write, s->workloads.prefill,
                       s->workloads.size_bytes, results, existing, &b->target, err) < 0)
    return -1;
  if (s->baseline.enabled && bench_file_check(b, "hardware_baseline", s->baseline.path, s->baseline.write, true,
                                              s->baseline.size_bytes, results, existing, &b->hw, err) < 0)
    return -1;
  return 0;
}

int bench_files_place(struct bench *b, struct placer_error **err) {
  const struct placer_study *s = b->study;
  struct {
    struct bench_file *f;
    const char *given;
    bool used;
  } files[] = {
    { &b->target, s->workloads.path, (s->workloads.target->flags & BENCH_TARGET_LOCAL_PATH) != 0 },
    { &b->hw, s->baseline.path, s->baseline.enabled },
  };
  for (size_t i = 0; i < 2; i++) {
    if (!files[i].used || files[i].f->path)
      continue;
    files[i].f->path = bench_path_join(b->out, files[i].given);
    if (files[i].f->path == NULL)
      return placer_error_oom(err, "bench files");
    cleanup_free char *dir = strdup(files[i].f->path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash == NULL)
      return placer_error_oom(err, "bench files");
    *slash = '\0';
    if (placer_mkdir_p(dir, err) < 0)
      return -1;
  }
  return 0;
}

void bench_files_remove(struct bench *b) {
  struct bench_file *files[] = { &b->target, &b->hw };
  for (size_t i = 0; i < 2; i++) {
    if (files[i]->path && files[i]->created)
      unlink(files[i]->path);
    free(files[i]->path);
    files[i]->path = NULL;
  }
}
