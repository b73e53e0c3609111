/* The levels of a group path, parents first (path-levels.h). */
#include "lib/path-levels.h"

#include <stdlib.h>
#include <string.h>

int placer_path_each_level(const char *path, placer_path_level_fn fn, void *ctx, struct placer_error **err) {
  size_t len = strlen(path);
  cleanup_free char *here = malloc(len + 1);
  cleanup_free char *above = malloc(len + 1);
  if (here == NULL || above == NULL)
    return placer_error_oom(err, NULL);
  struct placer_path_level level = { .path = here };
  for (size_t end = 0;; level.index++) {
    const char *slash = strchr(path + end + (level.index > 0), '/');
    if (level.index > 0)
      memcpy(above, here, end + 1);
    end = slash ? (size_t)(slash - path) : len;
    memcpy(here, path, end);
    here[end] = '\0';
    level.parent = level.index > 0 ? above : NULL;
    level.last = slash == NULL;
    int rc = fn(ctx, &level, err);
    if (rc != 0)
      return rc < 0 ? -1 : rc;
    if (level.last)
      return 0;
  }
}
