/* Fuzz the profile parser (YAML from a buffer, the whole schema walk). */
#include "fuzz.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("fuzz.yaml", (const char *)data, size, &profile, &err) == 0) {
    FUZZ_CHECK(profile != NULL && err == NULL);
    placer_profile_free(profile);
  } else {
    /* every refusal is one line naming the input */
    FUZZ_CHECK(profile == NULL && err != NULL);
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL);
    FUZZ_CHECK(strncmp(err->msg, "fuzz.yaml:", 10) == 0);
    placer_error_free(err);
  }
  return 0;
}
