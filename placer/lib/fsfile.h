/* Small file-system helpers shared by the state of apply (state.c) and the
 * records of run (runstate.c). */
#ifndef PLACER_FSFILE_H
#define PLACER_FSFILE_H

#include <stddef.h>

#include "lib/error.h"

/* Replace DIR/NAME by TEXT plus a newline, atomically: written to
 * DIR/.NAME.tmp, fsynced, renamed over it, and the rename fsynced.  When
 * that fails (a full disk) DIR/NAME is as it was, DIR/.NAME.tmp is removed
 * and the error names DIR/NAME and errno. */
int placer_file_replace(const char *dir, const char *name, const char *text, struct placer_error **err);
/* The same with LEN bytes of DATA as they are (no newline added). */
int placer_file_replace_bytes(const char *dir, const char *name, const char *data, size_t len,
                              struct placer_error **err);
/* The same, atomic for readers (the rename) but not fsynced: a crash of
 * the machine may leave the old file or an empty one.  For a file rewritten
 * every few seconds by a loop that must not wait for the disk (the
 * watcher's metrics file: an fsync waits for whatever else the disk is
 * writing). */
int placer_file_replace_volatile(const char *dir, const char *name, const char *data, size_t len,
                                 struct placer_error **err);
/* mkdir -p DIR (mode 0755); existing directories are fine. */
int placer_mkdir_p(const char *dir, struct placer_error **err);

#endif
