/* The command line's guard around hwloc's XML importer (topology.h): a
 * fatal signal while hwloc reads a user's file becomes one error line naming
 * the file and exit 2, instead of a core dump.  The file is read once, in
 * this process: the handler only writes the parts of a line set before the
 * read (write, strlen and _exit are async-signal-safe). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/array.h"
#include "cli/commands.h"
#include "topology/topology.h"

/* hwloc never took more than a second on a real file; a hang is a corrupt one */
#define GUARD_SECONDS 30
#define GUARD_SECONDS_TEXT "30"

/* what each signal means, after "placer: topology 'NAME': " */
static const struct {
  int sig;
  const char *what;
} fatal[] = {
  { SIGSEGV, "': hwloc's XML import crashed on it (Segmentation fault): a corrupt file\n" },
  { SIGBUS, "': hwloc's XML import crashed on it (Bus error): a corrupt file\n" },
  { SIGABRT, "': hwloc's XML import crashed on it (Aborted): a corrupt file\n" },
  { SIGFPE, "': hwloc's XML import crashed on it (Floating point exception): a corrupt file\n" },
  { SIGILL, "': hwloc's XML import crashed on it (Illegal instruction): a corrupt file\n" },
  { SIGALRM, "': hwloc took more than " GUARD_SECONDS_TEXT " s to read it: a corrupt file\n" },
};
#define N_FATAL N_OF(fatal)

/* the line's parts, set before the read: the handler only writes them */
static const char *file_name;
static size_t file_name_len;
static struct sigaction saved[N_FATAL];
static stack_t saved_stack;
static unsigned saved_alarm;
/* a stack overflow in hwloc's recursive parser still runs the handler */
static char alt_stack[64 * 1024];

static void write_all(const char *s, size_t len) {
  while (len > 0) {
    ssize_t n = write(STDERR_FILENO, s, len);
    if (n <= 0)
      return;
    s += n;
    len -= (size_t)n;
  }
}

static void on_fatal(int sig) {
  static const char prefix[] = "placer: topology '";
  for (size_t i = 0; i < N_FATAL; i++)
    if (fatal[i].sig == sig) {
      write_all(prefix, sizeof(prefix) - 1);
      write_all(file_name, file_name_len);
      write_all(fatal[i].what, strlen(fatal[i].what));
    }
  _exit(PLACER_EXIT_USAGE);
}

static void guard_enter(const char *name) {
  file_name = name;
  file_name_len = strlen(name);
  stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0 };
  sigaltstack(&ss, &saved_stack);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_fatal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < N_FATAL; i++)
    sigaction(fatal[i].sig, &sa, &saved[i]);
  saved_alarm = alarm(GUARD_SECONDS);
}

static void guard_leave(void) {
  alarm(saved_alarm);
  for (size_t i = 0; i < N_FATAL; i++)
    sigaction(fatal[i].sig, &saved[i], NULL);
  sigaltstack(&saved_stack, NULL);
  file_name = NULL;
}

static const struct placer_topology_xml_guard guard = { guard_enter, guard_leave };

void placer_cli_guard_xml_loads(void) {
  placer_topology_set_xml_guard(&guard);
}
