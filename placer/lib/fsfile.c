/* Small file-system helpers: mkdir -p and an atomic file replace; see fsfile.h. */
#include "lib/fsfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int placer_mkdir_p(const char *dir, struct placer_error **err) {
  cleanup_free char *copy = strdup(dir);
  if (copy == NULL)
    return placer_error_oom(err, NULL);
  for (char *p = copy + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(copy, 0755) < 0 && errno != EEXIST)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", copy);
    *p = '/';
  }
  if (mkdir(copy, 0755) < 0 && errno != EEXIST)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", copy);
  return 0;
}

/* Write LEN bytes of DATA to FD: 0, or the errno of the write that failed. */
static int write_all(int fd, const char *data, size_t len) {
  for (size_t off = 0; off < len;) {
    ssize_t n = write(fd, data + off, len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? errno : EIO;
    off += (size_t)n;
  }
  return 0;
}

static int replace(const char *dir, const char *name, const char *data, size_t len, bool newline, bool durable,
                   struct placer_error **err) {
  cleanup_free char *path = NULL, *tmp = NULL;
  if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s/.%s.tmp", dir, name) < 0)
    return placer_error_oom(err, NULL);
  /* The temporary file is made anew, never written through a link left
   * there (a directory of results or state may come from elsewhere). */
  if (unlink(tmp) < 0 && errno != ENOENT)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s (remove %s)", path, tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s (create %s)", path, tmp);
  int saved = write_all(fd, data, len);
  if (saved == 0 && newline)
    saved = write_all(fd, "\n", 1);
  /* A full disk may only show here (delayed allocation, NFS). */
  if (saved == 0 && durable && fsync(fd) < 0)
    saved = errno;
  if (close(fd) < 0 && saved == 0)
    saved = errno;
  if (saved) {
    unlink(tmp);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "write %s", path);
  }
  if (rename(tmp, path) < 0) {
    saved = errno;
    unlink(tmp);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "rename %s to %s", tmp, path);
  }
  /* The rename itself must survive a crash of the machine too. */
  int dfd = durable ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return 0;
}

int placer_file_replace(const char *dir, const char *name, const char *text, struct placer_error **err) {
  return replace(dir, name, text, strlen(text), true, true, err);
}

int placer_file_replace_bytes(const char *dir, const char *name, const char *data, size_t len,
                              struct placer_error **err) {
  return replace(dir, name, data, len, false, true, err);
}

int placer_file_replace_volatile(const char *dir, const char *name, const char *data, size_t len,
                                 struct placer_error **err) {
  return replace(dir, name, data, len, false, false, err);
}
