/* Fuzz the cgroup file parsers: v2 cpu.stat, v1 cpuacct.usage, cpuset
 * lists (parsed, printed and parsed again to the same set), cgroup.procs
 * and memory limits. */
#include <hwloc.h>

#include "cgroup/cgroup-internal.h"
#include "cgroup/cgroup.h"
#include "fuzz.h"
#include "lib/cpulist.h"
#include "state.h"

/* A parser's result: 0 and no error, or -1 and one line. */
static void check_error(int rc, struct placer_error **err) {
  FUZZ_CHECK((rc == 0) == (*err == NULL));
  FUZZ_CHECK(*err == NULL || strchr((*err)->msg, '\n') == NULL);
  placer_error_free(*err);
  *err = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  struct placer_error *err = NULL;
  int rc;
  uint64_t ns;
  rc = placer_cgroup_parse_cpu_stat(text, &ns, &err);
  check_error(rc, &err);
  rc = placer_cgroup_parse_cpuacct_usage(text, &ns, &err);
  check_error(rc, &err);

  hwloc_bitmap_t set = hwloc_bitmap_alloc(), again = hwloc_bitmap_alloc();
  FUZZ_CHECK(set != NULL && again != NULL);
  if (placer_cpulist_parse(text, set) == 0) {
    /* what placer writes is what it reads back */
    char *list = placer_cpulist_format(set);
    FUZZ_CHECK(list != NULL);
    FUZZ_CHECK(placer_cpulist_parse(list, again) == 0);
    FUZZ_CHECK(hwloc_bitmap_isequal(set, again));
    free(list);
  }
  hwloc_bitmap_free(set);
  hwloc_bitmap_free(again);

  pid_t *pids = NULL;
  size_t n = 0;
  rc = cg_parse_pids(text, &pids, &n, &err);
  check_error(rc, &err);
  if (rc == 0)
    free(pids);

  uint64_t bytes;
  placer_memory_limit_parse(text, &bytes);
  free(text);
  return 0;
}
