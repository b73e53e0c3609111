/* Fuzz the reader of summary.json (placer compare, size, report): the cost
 * bound, the schema check and the reader behind it; what passes them must
 * make a report and a comparison without a crash or a NaN gone astray. */
#include "results/compare.h"
#include "report/report.h"
#include "results/results.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *j = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_json_parse("summary.json", (const char *)data, size, &j, &err) < 0) {
    FUZZ_CHECK(j == NULL && err != NULL && strchr(err->msg, '\n') == NULL);
    placer_error_free(err);
    return 0;
  }
  struct placer_bench_results *r = NULL;
  if (placer_bench_results_from_json(j, &r, &err) == 0) {
    FUZZ_CHECK(r != NULL && err == NULL);
    char *text = NULL;
    if (placer_bench_report(r, &text, &err) == 0)
      free(text);
    placer_error_clear(&err);
    struct placer_bench_gate gate = { 0.05, 0.05 };
    size_t regressed, cells;
    if (placer_bench_compare_results(r, r, &gate, &text, &regressed, &cells, &err) == 0) {
      FUZZ_CHECK(regressed == 0);
      free(text);
    }
    placer_error_clear(&err);
    placer_bench_results_free(r);
  } else {
    FUZZ_CHECK(r == NULL && err != NULL && strchr(err->msg, '\n') == NULL);
    placer_error_free(err);
  }
  json_decref(j);
  return 0;
}
