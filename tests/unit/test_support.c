/* Helpers shared by the unit tests. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>

const char *test_data_path(const char *relative) {
  static char path[4096];
  const char *root = getenv("PLACER_TEST_DATA");
  snprintf(path, sizeof(path), "%s/%s", root ? root : "tests", relative);
  return path;
}

char *test_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len - 1 == 0) {
      char *bigger = realloc(buf, cap * 2);
      if (bigger == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf)
    buf[len] = '\0';
  return buf;
}
