/* Files shipped with placer; see datafile.h. */
#include "lib/datafile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/error.h"

char *placer_path_if_readable(const char *dir, const char *rel) {
  char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, rel) < 0)
    return NULL;
  if (access(path, R_OK) == 0)
    return path;
  free(path);
  return NULL;
}

char *placer_data_file(const char *env_override, const char *rel) {
  const char *env = env_override ? getenv(env_override) : NULL;
  if (env && *env)
    return strdup(env);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      /* installed, the scripts are PREFIX/libexec/placer/NAME (not under share/) */
      if (strncmp(rel, "libexec/", 8) == 0) {
        cleanup_free char *dir = NULL;
        if (asprintf(&dir, "%s/../libexec/placer", exe) < 0)
          return NULL;
        char *found = placer_path_if_readable(dir, rel + 8);
        if (found)
          return found;
      }
      static const char *const prefixes[] = { "..", "../share/placer", "../.." };
      for (size_t i = 0; i < N_OF(prefixes); i++) {
        cleanup_free char *dir = NULL;
        if (asprintf(&dir, "%s/%s", exe, prefixes[i]) < 0)
          return NULL;
        char *found = placer_path_if_readable(dir, rel);
        if (found)
          return found;
      }
    }
  }
#ifdef PLACER_SOURCE_DIR
  return placer_path_if_readable(PLACER_SOURCE_DIR, rel);
#else
  return NULL;
#endif
}
