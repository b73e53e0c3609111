/* hwloc 2.9's XML importer crashes on some corrupt files (lstopo does too):
 * the checks in topology.c refuse the shapes found so far, and a file from
 * the user is first read by hwloc in a child process, so that a crash there
 * is one error line about the file instead of placer dying with SIGSEGV. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topology-internal.h"

#define PROBE_SECONDS 30

static void probe_child(const char *xml, size_t len) {
  hwloc_topology_t hw;
  /* die of the signal, whatever handler the caller installed (a test
   * framework's would carry on running the caller's code in this child) */
  static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGALRM };
  for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
    signal(fatal[i], SIG_DFL);
  alarm(PROBE_SECONDS);
  if (hwloc_topology_init(&hw) < 0)
    _exit(1);
  hwloc_topology_set_io_types_filter(hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  hwloc_topology_set_flags(hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (hwloc_topology_set_xmlbuffer(hw, xml, (int)len) < 0 || hwloc_topology_load(hw) < 0)
    _exit(1);
  hwloc_topology_destroy(hw);
  _exit(0);
}

int placer_topology_probe_xml(const char *name, const char *xml, size_t len, struct placer_error **err) {
  if (len >= INT_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': too large", name);
  pid_t pid = fork();
  if (pid < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "topology '%s': fork", name);
  if (pid == 0)
    probe_child(xml, len);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "topology '%s': waitpid", name);
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': hwloc took more than %d s to read it", name,
                            PROBE_SECONDS);
  if (WIFSIGNALED(status))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "topology '%s': hwloc's XML import crashed on it (%s): a corrupt file", name,
                            strsignal(WTERMSIG(status)));
  return 0; /* hwloc read it, or failed cleanly: the real load says why */
}
