/* Running systemctl (and irqbalance's init script) for apply: the systemd
 * backend's set-property, show and daemon-reload, and what the IRQ part
 * runs for irqbalance and its boot unit (apply-internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "apply/apply-internal.h"
#include "lib/subprocess.h"
#include "lib/substitute.h"

int apply_systemctl(char **argv, unsigned timeout_ms, char **out, struct placer_error **err) {
  cleanup_free char *stdout_text = NULL, *stderr_text = NULL;
  int status = 0;
  if (placer_subprocess_capture(argv, NULL, timeout_ms, &stdout_text, &stderr_text, &status, err) < 0)
    return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    cleanup_free char *line = placer_argv_join(argv);
    char *nl = strchr(stderr_text, '\n');
    if (nl)
      *nl = '\0';
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "'%s' %s %d%s%s", line ? line : argv[0],
                            WIFEXITED(status) ? "exited" : "was killed by signal",
                            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), *stderr_text ? ": " : "",
                            stderr_text);
  }
  if (out)
    *out = TAKE_PTR(stdout_text);
  return 0;
}
