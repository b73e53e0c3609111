/* Plain replay driver (no libFuzzer): runs LLVMFuzzerTestOneInput on every
 * file named on the command line or found below a named directory, so that
 * ctest replays the regressions and the seed corpus with gcc (and under
 * ASan+UBSan in build-asan).  A crash fails the test; the file being read
 * is printed first so the failing input is named. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

static size_t n_inputs;

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, len = 0;
  uint8_t *buf = malloc(cap);
  if (buf == NULL)
    abort();
  for (size_t got; (got = fread(buf + len, 1, cap - len, f)) > 0;) {
    len += got;
    if (len == cap && (buf = realloc(buf, cap *= 2)) == NULL)
      abort();
  }
  fclose(f);
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  n_inputs++;
  return 0;
}

static int run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) < 0) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode))
    return run_file(path);
  struct dirent **names = NULL;
  int n = scandir(path, &names, NULL, alphasort);
  if (n < 0) {
    fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name;
    if (name[0] != '.') {
      char child[4096];
      snprintf(child, sizeof(child), "%s/%s", path, name);
      if (run_path(child) < 0)
        rc = -1;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc; i++)
    if (run_path(argv[i]) < 0)
      rc = 1;
  fprintf(stderr, "replay: %zu inputs\n", n_inputs);
  return rc;
}
