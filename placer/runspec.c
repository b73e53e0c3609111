/* See runspec.h. */
#include "runspec.h"

#include <stddef.h>

static bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool placer_env_entry_is_valid(const char *entry) {
  if (entry == NULL || !(alnum(entry[0]) || entry[0] == '_') || (entry[0] >= '0' && entry[0] <= '9'))
    return false;
  const char *p = entry;
  while (alnum(*p) || *p == '_')
    p++;
  return *p == '=';
}
