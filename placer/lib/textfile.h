/* Reading a whole (small) text file, including /proc and /sys files whose
 * size stat() reports as 0. */
#ifndef PLACER_TEXTFILE_H
#define PLACER_TEXTFILE_H

#include "lib/error.h"

/* *out: the file's bytes, NUL-terminated (caller frees). Errors name the path
 * and errno (exit code PLACER_EXIT_USAGE for ENOENT, else PLACER_EXIT_SYSTEM). */
int placer_textfile_read(const char *path, char **out, struct placer_error **err);

#endif
