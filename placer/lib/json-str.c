/* A C string as a JSON value (json-str.h). */
#include "lib/json-str.h"

json_t *placer_json_str_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}
