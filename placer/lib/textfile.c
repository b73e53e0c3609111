/* Reading a whole file with a size limit; see textfile.h. */
#include "lib/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int placer_textfile_read_fd(int fd, size_t max_bytes, char **out, size_t *len) {
  size_t cap = 4096, used = 0;
  cleanup_free char *buf = malloc(cap);
  if (buf == NULL)
    return -1;
  for (;;) {
    if (cap - used < 2) {
      if (cap > max_bytes) {
        errno = EFBIG;
        return -1;
      }
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL)
        return -1;
      buf = bigger;
      cap *= 2;
    }
    ssize_t n = read(fd, buf + used, cap - used - 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      break;
    used += (size_t)n;
    if (used > max_bytes) {
      errno = EFBIG;
      return -1;
    }
  }
  buf[used] = '\0';
  *out = TAKE_PTR(buf);
  if (len)
    *len = used;
  return 0;
}

int placer_textfile_read_path(const char *path, size_t max_bytes, char **out, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int ret = placer_textfile_read_fd(fd, max_bytes, out, len);
  int saved = errno;
  close(fd);
  errno = saved;
  return ret;
}

int placer_textfile_read(const char *path, char **out, struct placer_error **err) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, errno == ENOENT ? PLACER_EXIT_USAGE : PLACER_EXIT_SYSTEM, errno, "open '%s'", path);
  if (placer_textfile_read_fd(fd, PLACER_TEXTFILE_MAX_BYTES, out, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read '%s'", path);
  return 0;
}
