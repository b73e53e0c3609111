/* Fuzz the reader of fio's JSON output (text before the JSON, jobs, sums,
 * percentiles). */
#include "results/fio-result.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  struct placer_fio_result *r = NULL;
  struct placer_error *err = NULL;
  if (placer_fio_result_parse(text, &r, &err) == 0) {
    FUZZ_CHECK(r != NULL && err == NULL);
    placer_fio_result_free(r);
  } else {
    FUZZ_CHECK(r == NULL && err != NULL);
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL);
    placer_error_free(err);
  }
  free(text);
  return 0;
}
