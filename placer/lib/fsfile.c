/* Small file-system helpers: mkdir -p and an atomic file replace; see fsfile.h. */
#include "lib/fsfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int placer_mkdir_p(const char *dir, struct placer_error **err) {
  cleanup_free char *copy = strdup(dir);
  if (copy == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
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

int placer_file_replace(const char *dir, const char *name, const char *text, struct placer_error **err) {
  cleanup_free char *path = NULL, *tmp = NULL;
  if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s/.%s.tmp", dir, name) < 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "out of memory");
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s", tmp);
  size_t len = strlen(text), off = 0;
  int saved = 0;
  while (off <= len && saved == 0) {
    /* TEXT, then its closing newline. */
    const char *from = off < len ? text + off : "\n";
    size_t want = off < len ? len - off : 1;
    ssize_t n = write(fd, from, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      saved = n < 0 ? errno : EIO;
    else
      off += (size_t)n;
  }
  if (saved == 0 && fsync(fd) < 0)
    saved = errno;
  if (close(fd) < 0 && saved == 0)
    saved = errno;
  if (saved) {
    unlink(tmp);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "write %s", tmp);
  }
  if (rename(tmp, path) < 0) {
    saved = errno;
    unlink(tmp);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "rename %s to %s", tmp, path);
  }
  /* The rename itself must survive a crash of the machine too. */
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return 0;
}
