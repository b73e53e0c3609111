/* The one way placer reads a whole file: /proc and /sys files (whose size
 * stat() reports as 0), cgroupfs files, profiles, studies, fio and stress-ng
 * output.  Every read has a size limit, so a wrong path (a device, a
 * runaway log) fails with EFBIG instead of eating memory. */
#ifndef PLACER_TEXTFILE_H
#define PLACER_TEXTFILE_H

#include <stddef.h>

#include "lib/error.h"

/* Far above anything placer reads (a fio JSON result of a long study is a
 * few MiB), far below what would hurt. */
#define PLACER_TEXTFILE_MAX_BYTES ((size_t)64 << 20)

/* Read FD to its end: *out the bytes, NUL-terminated (caller frees), *len
 * (may be NULL) how many (the text may hold NULs: /proc/PID/cmdline).
 * 0, or -1 with errno set (EFBIG: more than MAX_BYTES). */
int placer_textfile_read_fd(int fd, size_t max_bytes, char **out, size_t *len);
/* The same for PATH; errno ENOENT etc. when it cannot be opened. */
int placer_textfile_read_path(const char *path, size_t max_bytes, char **out, size_t *len);

/* Open PATH read-only when it is a regular file: with O_NONBLOCK, so that a
 * FIFO cannot block the open (a reader of a FIFO waits for a writer), then
 * fstat(); O_NONBLOCK is cleared again for the reads.  Never creates
 * anything.  0 and *fd; -1 with errno (open failed); -2 when PATH is not a
 * regular file (a directory, FIFO, device, socket), *mode saying what it is. */
int placer_textfile_open_regular(const char *path, int *fd, unsigned *mode);
/* "a directory", "a FIFO", "a character device", ... for a st_mode. */
const char *placer_file_type_name(unsigned mode);

/* A file the user named (a study, a profile, a topology, a summary.json):
 * a regular file only, read whole up to MAX_BYTES.  Errors start with
 * "WHAT 'PATH': " and say why in one line ("a FIFO, not a regular file",
 * "larger than 64 MiB", strerror); each is PLACER_EXIT_USAGE (bad input)
 * but running out of memory. */
int placer_textfile_read_input(const char *what, const char *path, size_t max_bytes, char **out, size_t *len,
                               struct placer_error **err);

/* A file the user named, like placer_textfile_read_input (a regular file
 * only, opened without blocking, the same one-line errors), but mapped
 * read-only: for a large input read once (an hwloc XML topology) the bytes
 * are not copied, and the kernel maps the page cache several pages per
 * fault, where reading into the heap costs a fault per page (the dearest
 * part of 'placer topo' in a VM).  map->text is followed by a NUL.  Release
 * with placer_textfile_unmap. */
struct placer_textfile_map {
  char *text;
  size_t len;
  size_t mapped; /* bytes mapped; 0: text is malloc'd */
};
int placer_textfile_map_input(const char *what, const char *path, size_t max_bytes, struct placer_textfile_map *map,
                              struct placer_error **err);
void placer_textfile_unmap(struct placer_textfile_map *map);

/* PATH with the default limit.  Errors name the path and errno (exit code
 * PLACER_EXIT_USAGE for ENOENT, else PLACER_EXIT_SYSTEM). */
int placer_textfile_read(const char *path, char **out, struct placer_error **err);

#endif
