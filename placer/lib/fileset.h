/* A set of files written into a directory as one (placer export --out):
 * all of them or none, through no symbolic link, with a manifest in the
 * directory of what placer wrote there, so that a later set removes the
 * files it no longer has, and nothing else. */
#ifndef PLACER_FILESET_H
#define PLACER_FILESET_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"
#include "lib/string-list.h"

/* One file of a set.  NAME is relative to the directory: "NAME" or
 * "SUB/NAME" (one subdirectory: a systemd UNIT.d), no component starting
 * with '.' (placer's own files there do), none longer than 255 bytes, no
 * control byte. */
struct placer_fileset_file {
  const char *name;
  const char *data;
  size_t len;
};

/* What a write changed (or, dry, would change), names as in the set. */
struct placer_fileset_changes {
  struct placer_string_list written; /* new, or there with other bytes */
  struct placer_string_list removed; /* in the manifest, no longer in the set */
};
void placer_fileset_changes_free(struct placer_fileset_changes *changes);

/* DIR exists, is a directory, not a symbolic link, and this process may
 * write into it.  PLACER_EXIT_USAGE otherwise.  The errors of both
 * functions say what is wrong without naming DIR: the caller does. */
int placer_fileset_check_dir(const char *dir, struct placer_error **err);

/* Make DIR hold the N files, as one:
 * - a file whose bytes are already there is left as it is;
 * - a file the manifest DIR/MANIFEST lists (placer wrote it before) that the
 *   set no longer has is removed, with the subdirectory placer made for it
 *   when that is empty; nothing the manifest does not list is removed;
 * - the manifest then lists the set ("wrote NAME") and the subdirectories
 *   placer made ("made SUB"), and says WRITER wrote it.
 * Nothing is followed or written through a symbolic link (DIR, a SUB, a
 * file, the manifest): one there, a directory or a FIFO where a file goes,
 * a manifest this user did not write (another owner, writable by others)
 * or cannot have written (a line or a name placer does not write) are
 * refused, PLACER_EXIT_USAGE, nothing changed.  The files are written
 * beside their place first, then renamed over it with the old one kept,
 * the manifest last; when any step fails (a full disk: PLACER_EXIT_SYSTEM)
 * every rename is undone and DIR is as it was.  DRY: nothing is written,
 * CHANGES says what would be.  CHANGES is filled on success (free it). */
int placer_fileset_write(const char *dir, const char *manifest, const char *writer,
                         const struct placer_fileset_file *files, size_t n, bool dry,
                         struct placer_fileset_changes *changes, struct placer_error **err);

#endif
