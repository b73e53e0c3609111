/* Fuzz the /proc/PID/numa_maps parser (numa-locality.c: status and bench
 * read it for every process of an instance) and what is computed from its
 * result.  A parse fails with one line and leaves the usage as it was, or
 * adds to it: no node and no total ever goes down (no byte count wraps
 * around), one more process is counted, and the same text adds the same
 * again.  The locality against any planned nodes has local <= resident and
 * a share in [0, 1]; its text is one short line. */
#include <math.h>

#include "fuzz.h"
#include "numa-locality.h"

static void check_locality(const struct placer_numa_usage *u) {
  static const char *const planned[] = { "0", "1", "0-1", "1-3,7", "0-1023" };
  for (size_t i = 0; i < sizeof(planned) / sizeof(planned[0]); i++) {
    struct placer_error *err = NULL;
    struct placer_numa_locality loc;
    FUZZ_CHECK(placer_numa_locality(u, planned[i], &loc, &err) == 0 && err == NULL);
    FUZZ_CHECK(loc.local_bytes <= loc.resident_bytes);
    FUZZ_CHECK(loc.resident_bytes == placer_numa_usage_bytes(u));
    FUZZ_CHECK(loc.resident_bytes == 0 ? isnan(loc.local_share) : loc.local_share >= 0 && loc.local_share <= 1);
    char *text = placer_numa_locality_format(u, planned[i]);
    FUZZ_CHECK(text != NULL && strchr(text, '\n') == NULL && strlen(text) < 256);
    free(text);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  struct placer_numa_usage u = { 0 };
  struct placer_error *err = NULL;
  /* a usage with something in it already: a failed parse must not change it */
  FUZZ_CHECK(placer_numa_maps_parse("7f00 default anon=3 N0=3 N2=1 kernelpagesize_kB=4\n", &u, &err) == 0);
  struct placer_numa_usage before = u;
  uint64_t before_nodes[3] = { u.node_bytes[0], u.node_bytes[1], u.node_bytes[2] };
  uint64_t before_total = placer_numa_usage_bytes(&u);
  FUZZ_CHECK(u.n_nodes == 3 && before_total == 4 * 4096);

  int rc = placer_numa_maps_parse(text, &u, &err);
  FUZZ_CHECK((rc == 0) == (err == NULL));
  FUZZ_CHECK(err == NULL || strchr(err->msg, '\n') == NULL);
  FUZZ_CHECK(u.n_nodes >= before.n_nodes && u.n_nodes <= PLACER_NUMA_MAX_NODES);
  for (size_t i = 0; i < before.n_nodes; i++)
    FUZZ_CHECK(u.node_bytes[i] >= before_nodes[i]);
  uint64_t total = placer_numa_usage_bytes(&u);
  FUZZ_CHECK(total >= before_total);
  if (rc < 0) {
    FUZZ_CHECK(total == before_total && u.n_nodes == before.n_nodes && u.n_processes == before.n_processes);
    placer_error_free(err);
    err = NULL;
  } else {
    FUZZ_CHECK(u.n_processes == before.n_processes + 1);
  }
  check_locality(&u);

  /* On its own, twice: the second parse adds what the first did (or fails
   * only because the sum is too large), node by node. */
  struct placer_numa_usage once = { 0 }, twice = { 0 };
  if (placer_numa_maps_parse(text, &once, &err) == 0) {
    twice = once;
    twice.node_bytes = once.n_nodes ? malloc(once.n_nodes * sizeof(*once.node_bytes)) : NULL;
    FUZZ_CHECK(once.n_nodes == 0 || twice.node_bytes != NULL);
    if (once.n_nodes)
      memcpy(twice.node_bytes, once.node_bytes, once.n_nodes * sizeof(*once.node_bytes));
    if (placer_numa_maps_parse(text, &twice, &err) == 0) {
      FUZZ_CHECK(twice.n_nodes == once.n_nodes);
      for (size_t i = 0; i < once.n_nodes; i++)
        FUZZ_CHECK(twice.node_bytes[i] >= once.node_bytes[i] &&
                   twice.node_bytes[i] - once.node_bytes[i] == once.node_bytes[i]);
    } else {
      FUZZ_CHECK(err && strstr(err->msg, "more than") != NULL);
      placer_error_free(err);
      err = NULL;
    }
    check_locality(&once);
  } else {
    /* the same text failed above, unless only the sum with the usage did */
    FUZZ_CHECK(rc < 0);
    placer_error_free(err);
    err = NULL;
  }
  placer_numa_usage_clear(&once);
  placer_numa_usage_clear(&twice);
  placer_numa_usage_clear(&u);
  free(text);
  return 0;
}
