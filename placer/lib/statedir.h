/* A directory placer keeps its own state in (apply's STATE_DIR, run's
 * records below it, bench's OUT/irq-state, the node's IRQ owners) and the
 * one road by which placer reads back what it wrote there.  placer trusts
 * such a directory only while root (or the user placer runs as) alone can
 * change it: the directory is not a symbolic link, it and every directory
 * above it are owned by root (or that user) and writable by nobody else
 * (an ancestor may be a sticky /tmp); each file in it is a regular file
 * (never a FIFO, device or link: opened with O_NOFOLLOW | O_NONBLOCK, so
 * nothing blocks) of the same owner, writable by nobody else, and bounded
 * in size.  Every state file also records the boot and the directory it
 * was written for (placer_statedir_check_binding): a file copied from
 * another directory, machine or boot is refused.  docs/apply.md, "What
 * placer trusts". */
#ifndef PLACER_STATEDIR_H
#define PLACER_STATEDIR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

/* The most any state file may hold: far above a real journal (a state of
 * 60 processes of 60 threads is ~200 KiB). */
#define PLACER_STATEDIR_MAX_FILE_BYTES ((size_t)16 << 20)

/* A directory's id: "DEV:INO:BIRTH" (BIRTH its creation time in ns, else its
 * inode's generation: a directory made anew in a reused inode is another). */
#define PLACER_STATEDIR_ID_MAX 80

struct placer_statedir {
  char *path;
  int fd;                          /* O_DIRECTORY | O_NOFOLLOW; -1 when the directory does not exist */
  char id[PLACER_STATEDIR_ID_MAX]; /* the directory's id (empty when it does not exist): what placer's marks name */
};

/* Open PATH, checked as above.  CREATE: made (mode 0755, parents too) when
 * missing; else a missing directory is no error (d->fd -1, nothing is
 * recorded there).  Refusals are one line, PLACER_EXIT_USAGE: "state
 * directory 'PATH': writable by others (mode 0777): ...". */
int placer_statedir_open(const char *path, bool create, struct placer_statedir *d, struct placer_error **err);
void placer_statedir_close(struct placer_statedir *d);

/* NAME in D read whole, at most MAX bytes (checked as above): 0 and *text
 * (NUL-terminated, caller frees) and *len (may be NULL); 1 when there is no
 * such file (or no directory); -1 and a one-line error (PLACER_EXIT_USAGE:
 * "state file 'PATH': a FIFO, not a regular file placer wrote"). */
int placer_statedir_read(const struct placer_statedir *d, const char *name, size_t max, char **text, size_t *len,
                         struct placer_error **err);
/* Is there an entry NAME in D (of any type; links not followed)? */
bool placer_statedir_has(const struct placer_statedir *d, const char *name);

/* flock NAME in D: EXCLUSIVE (the file created when missing) or shared (a
 * missing file is no lock: *fd -1), never blocking.  The file must be a
 * regular file as above.  The lock is checked to be on the file NAME still
 * names (one removed and made again meanwhile is locked again), so a lock
 * file may be removed by its holder (placer_statedir_unlock_remove).  0 and
 * *fd; 1 when another process holds it (*fd -1); -1 and ERR.  *MADE (may be
 * NULL): the path of the file when this call created it (caller frees),
 * else NULL. */
int placer_statedir_lock(const struct placer_statedir *d, const char *name, bool exclusive, int *fd, char **made,
                         struct placer_error **err);
/* Remove the lock file NAME of D while holding it (FD, which is closed). */
void placer_statedir_unlock_remove(const struct placer_statedir *d, const char *name, int fd);
/* Release the lock FD; MADE (a lock file the holder made, or NULL) goes
 * with it: a command leaves no lock file behind, and one that changed
 * nothing leaves its state directory as it found it. */
void placer_statedir_unlock(int fd, const char *made);

/* Nothing recorded is left in DIR (no entry of FILES, none of LOCKS held):
 * remove the STRAYS (regular files that only extend an entry of FILES: a
 * journal's appended tail left by a kill between removing the file and
 * it), the LOCKS and DIR itself when it is then empty, so that no state
 * directory outlives what it recorded.  Quiet: a busy lock or a directory
 * with anything else in it stays as it is. */
void placer_statedir_tidy(const char *dir, const char *const *files, const char *const *strays,
                          const char *const *locks);

/* NAME in D, a JSON document placer wrote there: read as
 * placer_statedir_read says, parsed, and its "boot_id" and "state_id"
 * checked (placer_statedir_check_binding).  0 and *doc (caller decrefs),
 * or *doc NULL when there is no such file (nothing recorded): then *boot_id
 * and *state_id are this boot's and D's, for the new state (caller frees;
 * left alone when there is a document: it holds them).  -1 and the one-line error: the file
 * itself (PLACER_EXIT_USAGE), "DIR/NAME:LINE: ..." for bad JSON and the
 * binding's (PLACER_EXIT_SYSTEM). */
int placer_statedir_load(const struct placer_statedir *d, const char *name, json_t **doc, char **boot_id,
                         char **state_id, struct placer_error **err);

/* This boot's id (/proc/sys/kernel/random/boot_id), "" when unreadable. */
const char *placer_boot_id(void);
/* A state file records BOOT_ID and STATE_ID (D's id) when written: refuse
 * (PLACER_EXIT_SYSTEM, one line naming FILE) one that was written in
 * another boot or for another directory (a copy), or that records neither
 * (not written by this placer). */
int placer_statedir_check_binding(const struct placer_statedir *d, const char *file, const char *boot_id,
                                  const char *state_id, struct placer_error **err);

#endif
