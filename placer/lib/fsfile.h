/* Small file-system helpers shared by the state of apply (state.c) and the
 * records of run (runstate.c). */
#ifndef PLACER_FSFILE_H
#define PLACER_FSFILE_H

#include "lib/error.h"

/* Replace DIR/NAME by TEXT plus a newline, atomically: written to
 * DIR/.NAME.tmp, fsynced, renamed over it, and the rename fsynced. */
int placer_file_replace(const char *dir, const char *name, const char *text, struct placer_error **err);
/* mkdir -p DIR (mode 0755); existing directories are fine. */
int placer_mkdir_p(const char *dir, struct placer_error **err);

#endif
