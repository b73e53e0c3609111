/* A C string as a JSON value: the string, or null for NULL (a value that is
 * not known or not set), as every document placer writes says it. */
#ifndef PLACER_JSON_STR_H
#define PLACER_JSON_STR_H

#include <jansson.h>

/* A new reference (NULL only when jansson is out of memory). */
json_t *placer_json_str_or_null(const char *s);

#endif
