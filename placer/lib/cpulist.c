/* OS-index lists in the kernel's cpuset syntax ("0-7,16-23"). */
#include <stdlib.h>
#include <string.h>

#include "lib/cpulist.h"

char *placer_cpulist_format(hwloc_const_bitmap_t set) {
  char *s = NULL;
  if (hwloc_bitmap_iszero(set))
    return strdup("");
  if (hwloc_bitmap_list_asprintf(&s, set) < 0)
    return NULL;
  return s;
}

int placer_cpulist_parse(const char *text, hwloc_bitmap_t set) {
  hwloc_bitmap_zero(set);
  const char *p = text;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (*p == '\0')
      break;
    char *end;
    if (*p < '0' || *p > '9')
      return -1;
    unsigned long first = strtoul(p, &end, 10);
    unsigned long last = first;
    p = end;
    if (*p == '-') {
      p++;
      if (*p < '0' || *p > '9')
        return -1;
      last = strtoul(p, &end, 10);
      p = end;
      if (last < first)
        return -1;
    }
    if (last > 1u << 20)
      return -1;
    hwloc_bitmap_set_range(set, (unsigned)first, (int)last);
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (*p == ',')
      p++;
    else if (*p != '\0')
      return -1;
  }
  return 0;
}

int placer_cpulist_nth(hwloc_const_bitmap_t set, size_t k) {
  int n = hwloc_bitmap_weight(set);
  if (n <= 0)
    return -1;
  int pu = hwloc_bitmap_first(set);
  for (size_t i = k % (size_t)n; i > 0; i--)
    pu = hwloc_bitmap_next(set, pu);
  return pu;
}

bool placer_cpulist_equal(const char *a, const char *b) {
  if (a == NULL || b == NULL)
    return a == b;
  hwloc_bitmap_t x = hwloc_bitmap_alloc(), y = hwloc_bitmap_alloc();
  bool equal;
  if (x && y && placer_cpulist_parse(a, x) == 0 && placer_cpulist_parse(b, y) == 0)
    equal = hwloc_bitmap_isequal(x, y);
  else
    equal = strcmp(a, b) == 0;
  hwloc_bitmap_free(x);
  hwloc_bitmap_free(y);
  return equal;
}
