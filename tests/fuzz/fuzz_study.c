/* Fuzz the study parser (bench's YAML, with its sweeps and workloads). */
#include "bench/study.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct placer_study *study = NULL;
  struct placer_error *err = NULL;
  if (placer_study_parse("fuzz.yaml", (const char *)data, size, &study, &err) == 0) {
    FUZZ_CHECK(study != NULL && err == NULL);
    /* what bench derives from a parsed study */
    size_t n = placer_study_n_workloads(study);
    for (size_t i = 0; i < n && i < 64; i++) {
      struct placer_bench_workload w = { 0 };
      if (placer_study_workload(study, i, &w, NULL) == 0)
        placer_bench_workload_clear(&w);
    }
    placer_study_free(study);
  } else {
    FUZZ_CHECK(study == NULL && err != NULL);
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL);
    placer_error_free(err);
  }
  return 0;
}
