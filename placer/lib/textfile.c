/* Reading a whole file with a size limit; see textfile.h. */
#include "lib/textfile.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

int placer_textfile_map_path(const char *path, size_t max_bytes, struct placer_textfile_map *out) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0)
    return -1;
  if (!S_ISREG(st.st_mode) || st.st_size == 0) {
    out->mapped = 0;
    return placer_textfile_read_fd(fd, max_bytes, &out->text, &out->len);
  }
  if ((uint64_t)st.st_size > max_bytes) {
    errno = EFBIG;
    return -1;
  }
  size_t len = (size_t)st.st_size;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  /* a zero page after the file's own: the text ends in a NUL even when its
   * size is a whole number of pages (the last page's tail is zero anyway) */
  size_t mapped = (len / page + 1) * page;
  char *zeros = mmap(NULL, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (zeros == MAP_FAILED)
    return -1;
  if (mmap(zeros, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    int saved = errno;
    munmap(zeros, mapped);
    errno = saved;
    return -1;
  }
  out->text = zeros;
  out->len = len;
  out->mapped = mapped;
  return 0;
}

void placer_textfile_unmap(struct placer_textfile_map *map) {
  if (map->mapped)
    munmap(map->text, map->mapped);
  else
    free(map->text);
  map->text = NULL;
  map->mapped = map->len = 0;
}

int placer_textfile_read(const char *path, char **out, struct placer_error **err) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, errno == ENOENT ? PLACER_EXIT_USAGE : PLACER_EXIT_SYSTEM, errno, "open '%s'", path);
  if (placer_textfile_read_fd(fd, PLACER_TEXTFILE_MAX_BYTES, out, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read '%s'", path);
  return 0;
}
