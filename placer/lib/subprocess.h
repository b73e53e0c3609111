/* Running a helper program (podman) without a shell and collecting what it
 * prints, bounded by a timeout; and the environment a child gets.  Shared by
 * the container matcher (procmatch.c) and the podman backend. */
#ifndef PLACER_SUBPROCESS_H
#define PLACER_SUBPROCESS_H

#include <signal.h>

#include "lib/error.h"

/* Run ARGV (argv[0] looked up in PATH) with environment ENVP (NULL:
 * placer's own), stdin from /dev/null, and collect its stdout and stderr;
 * it is killed after TIMEOUT_MS.  Between fork and exec the child makes
 * only async-signal-safe calls.  A program that cannot be executed is
 * reported like one that failed: exit status 127 and *errout "exec 'ARGV0':
 * strerror".  Fails (ETIMEDOUT) naming the command when it does not finish
 * in time.  *status is the wait status; *out and *errout are never NULL on
 * success (caller frees). */
int placer_subprocess_capture(char *const argv[], char *const envp[], unsigned timeout_ms, char **out, char **errout,
                              int *status, struct placer_error **err);
/* The same for a program that may hang or be interrupted (gnuplot): it
 * leads a process group of its own, killed whole (SIGKILL) when TIMEOUT_MS
 * have passed since it started (whether or not it still writes) or when
 * *STOP (may be NULL; lib/stop.h's flag) rises, and whatever it left in its
 * group when it exits.  Fails ETIMEDOUT, or EINTR with exit code
 * PLACER_EXIT_INTERRUPTED. */
int placer_subprocess_capture_group(char *const argv[], char *const envp[], unsigned timeout_ms,
                                    const volatile sig_atomic_t *stop, char **out, char **errout, int *status,
                                    struct placer_error **err);

/* placer's environment with each "NAME=VALUE" of ADD (may be NULL) set,
 * replacing an entry of the same NAME.  Only the vector is allocated (free
 * it with free()); its strings are placer's and ADD's.  NULL on ENOMEM. */
char **placer_env_merge(char *const add[]);

#endif
