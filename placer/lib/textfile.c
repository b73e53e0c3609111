/* Reading a whole text file; see textfile.h. */
#include "lib/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int placer_textfile_read(const char *path, char **out, struct placer_error **err) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, errno == ENOENT ? PLACER_EXIT_USAGE : PLACER_EXIT_SYSTEM, errno, "open '%s'", path);
  size_t cap = 4096, len = 0;
  cleanup_free char *buf = malloc(cap);
  if (buf == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "read '%s'", path);
  for (;;) {
    if (cap - len < 2) {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL)
        return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "read '%s'", path);
      buf = bigger;
      cap *= 2;
    }
    ssize_t n = read(fd, buf + len, cap - len - 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read '%s'", path);
    if (n == 0)
      break;
    len += (size_t)n;
  }
  buf[len] = '\0';
  *out = TAKE_PTR(buf);
  return 0;
}
