/* Reading a whole file with a size limit; see textfile.h. */
#include "lib/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* SIZE_HINT: what fstat said (0: unknown, /proc), so that a file of 32 MiB
 * takes a buffer of 32 MiB, not the 64 that doubling would reach. */
static int read_fd(int fd, size_t max_bytes, size_t size_hint, char **out, size_t *len) {
  size_t cap = size_hint && size_hint <= max_bytes ? size_hint + 2 : 4096, used = 0;
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

int placer_textfile_read_fd(int fd, size_t max_bytes, char **out, size_t *len) {
  return read_fd(fd, max_bytes, 0, out, len);
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

int placer_textfile_open_regular(const char *path, int *fd, unsigned *mode) {
  int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (f < 0)
    return -1;
  struct stat st;
  if (fstat(f, &st) < 0) {
    int saved = errno;
    close(f);
    errno = saved;
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    close(f);
    *mode = (unsigned)st.st_mode;
    return -2;
  }
  int flags = fcntl(f, F_GETFL);
  if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    int saved = errno;
    close(f);
    errno = saved;
    return -1;
  }
  *fd = f;
  return 0;
}

const char *placer_file_type_name(unsigned mode) {
  switch (mode & S_IFMT) {
  case S_IFDIR: return "a directory";
  case S_IFIFO: return "a FIFO";
  case S_IFCHR: return "a character device";
  case S_IFBLK: return "a block device";
  case S_IFSOCK: return "a socket";
  case S_IFLNK: return "a symbolic link";
  case S_IFREG: return "a regular file";
  default: return "not a file";
  }
}

int placer_textfile_read_input(const char *what, const char *path, size_t max_bytes, char **out, size_t *len,
                               struct placer_error **err) {
  int fd = -1;
  unsigned mode = 0;
  int rc = placer_textfile_open_regular(path, &fd, &mode);
  if (rc == -2)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s '%s': %s, not a regular file", what, path,
                            placer_file_type_name(mode));
  if (rc < 0)
    return placer_error_errno(err, errno == ENOMEM ? PLACER_EXIT_SYSTEM : PLACER_EXIT_USAGE, errno, "%s '%s'", what,
                              path);
  struct stat st = { 0 };
  if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > max_bytes) { /* said at once, not after reading it */
    rc = -1;
    errno = EFBIG;
  } else {
    rc = read_fd(fd, max_bytes, (size_t)st.st_size, out, len);
  }
  int saved = errno;
  close(fd);
  if (rc == 0)
    return 0;
  if (saved == EFBIG)
    return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG, "%s '%s': larger than %zu %s", what, path,
                            max_bytes % (1 << 20) ? max_bytes : max_bytes >> 20,
                            max_bytes % (1 << 20) ? "bytes" : "MiB");
  return placer_error_errno(err, saved == ENOMEM ? PLACER_EXIT_SYSTEM : PLACER_EXIT_USAGE, saved, "%s '%s': read", what,
                            path);
}

int placer_textfile_map_input(const char *what, const char *path, size_t max_bytes, struct placer_textfile_map *out,
                              struct placer_error **err) {
  cleanup_close int fd = -1;
  unsigned mode = 0;
  int rc = placer_textfile_open_regular(path, &fd, &mode);
  if (rc == -2)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s '%s': %s, not a regular file", what, path,
                            placer_file_type_name(mode));
  struct stat st;
  if (rc < 0 || fstat(fd, &st) < 0)
    return placer_error_errno(err, errno == ENOMEM ? PLACER_EXIT_SYSTEM : PLACER_EXIT_USAGE, errno, "%s '%s'", what,
                              path);
  if ((uint64_t)st.st_size > max_bytes)
    return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG, "%s '%s': larger than %zu MiB", what, path, max_bytes >> 20);
  if (st.st_size == 0) {
    out->mapped = 0;
    out->len = 0;
    out->text = calloc(1, 1);
    return out->text ? 0 : placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "%s '%s': out of memory", what, path);
  }
  size_t len = (size_t)st.st_size;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  /* a zero page after the file's own: the text ends in a NUL even when its
   * size is a whole number of pages (the last page's tail is zero anyway) */
  size_t mapped = (len / page + 1) * page;
  char *zeros = mmap(NULL, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (zeros == MAP_FAILED)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "%s '%s': mmap", what, path);
  if (mmap(zeros, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    int saved = errno;
    munmap(zeros, mapped);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "%s '%s': mmap", what, path);
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
