/* The files a study writes outside Ceph: the workloads' target (target
 * file) and the hardware baseline's file.  One rule for both
 * (docs/bench.md, "What placer writes"): a relative path is in the results
 * directory (normalised, without "..", by study.c); a file placer creates
 * is its own and goes when the study ends; an existing file or block device
 * is written only with `write: true`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/target.h"
#include "bench/internal.h"
#include "lib/fsfile.h"
#include "lib/textfile.h"
#include "lib/units.h"

/* Why the study writes the file: "prefill, randwrite" (empty: it does not). */
static void write_reasons(const struct bench *b, bool prefill, bool shorter, char *buf, size_t len) {
  buf[0] = '\0';
  size_t used = 0;
  if (prefill)
    used += (size_t)snprintf(buf + used, len - used, "prefill");
  for (size_t w = 0; w < b->n_workloads && used < len; w++)
    if (placer_bench_pattern_direction(b->wl_patterns[w]) != PLACER_BENCH_READ && !strstr(buf, b->wl_patterns[w]))
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", b->wl_patterns[w]);
  if (shorter && used < len)
    snprintf(buf + used, len - used, "%sfio lays out a file shorter than the region", used ? ", " : "");
}

static int bench_file_check(const struct bench *b, const char *key, const char *given, bool may_write, bool prefill,
                            uint64_t size_bytes, const char *out_dir, struct bench_file *f, struct placer_error **err) {
  const struct placer_study *s = b->study;
  const struct placer_study_baseline *hw = &s->baseline;
  bool is_hw = strcmp(key, "hardware_baseline") == 0;
  unsigned line = is_hw ? hw->path_line : s->workloads.path_line;
  unsigned column = is_hw ? hw->path_column : s->workloads.path_column;
  char where[512];
  snprintf(where, sizeof(where), "%s:%u:%u: %s.path", s->path ? s->path : "study", line, column, key);
  memset(f, 0, sizeof(*f));
  bool relative = given[0] != '/';
  if (relative && out_dir == NULL) {
    f->created = true; /* a new results directory: nothing is there yet */
    return 0;
  }
  cleanup_free char *path = relative ? bench_path_join(out_dir, given) : strdup(given);
  if (path == NULL)
    return bench_oom(err);
  struct stat st;
  /* in the results directory, placer's own: not a link out of it */
  if ((relative ? lstat(path, &st) : stat(path, &st)) < 0) {
    if (errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "%s: '%s'", where, path);
    cleanup_free char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash == NULL)
      return bench_oom(err);
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

int bench_files_check(struct bench *b, const char *out_dir, struct placer_error **err) {
  const struct placer_study *s = b->study;
  if ((bench_target(s->workloads.target)->flags & BENCH_TARGET_LOCAL_PATH) &&
      bench_file_check(b, "workloads", s->workloads.path, s->workloads.write, s->workloads.prefill,
                       s->workloads.size_bytes, out_dir, &b->target, err) < 0)
    return -1;
  if (s->baseline.enabled && bench_file_check(b, "hardware_baseline", s->baseline.path, s->baseline.write, true,
                                              s->baseline.size_bytes, out_dir, &b->hw, err) < 0)
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
    { &b->target, s->workloads.path, (bench_target(s->workloads.target)->flags & BENCH_TARGET_LOCAL_PATH) != 0 },
    { &b->hw, s->baseline.path, s->baseline.enabled },
  };
  for (size_t i = 0; i < 2; i++) {
    if (!files[i].used || files[i].f->path)
      continue;
    files[i].f->path = bench_path_join(b->out, files[i].given);
    if (files[i].f->path == NULL)
      return bench_oom(err);
    cleanup_free char *dir = strdup(files[i].f->path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash == NULL)
      return bench_oom(err);
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
