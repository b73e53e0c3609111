/* What every fuzz harness shares: the libFuzzer entry point (built with
 * clang -fsanitize=fuzzer by ci/fuzz.sh, or linked to replay.c as a plain
 * executable that ctest runs over the regressions and the seed corpus) and
 * a NUL-terminated copy of the input for the parsers that take strings. */
#ifndef PLACER_FUZZ_H
#define PLACER_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property every input must keep: a violation is a finding (abort, so
 * libFuzzer saves the input), with the file, line and condition. */
#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                      \
    }                                                                               \
  } while (0)

/* DATA as a string (an embedded NUL ends it early, as it would a file read
 * with fgets); caller frees.  Aborts on ENOMEM: a harness has no error path. */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (s == NULL)
    abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

#endif
