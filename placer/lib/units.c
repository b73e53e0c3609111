/* Human units: sizes, and CPU quotas in cores. */
#include "lib/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/array.h"

static const struct {
  const char *suffix;
  uint64_t factor;
} size_units[] = {
  { "", 1 },
  { "B", 1 },
  { "K", 1ull << 10 },
  { "KiB", 1ull << 10 },
  { "KB", 1000ull },
  { "M", 1ull << 20 },
  { "MiB", 1ull << 20 },
  { "MB", 1000000ull },
  { "G", 1ull << 30 },
  { "GiB", 1ull << 30 },
  { "GB", 1000000000ull },
  { "T", 1ull << 40 },
  { "TiB", 1ull << 40 },
  { "TB", 1000000000000ull },
};

int placer_parse_bytes(const char *text, uint64_t *out_bytes, const char **why) {
  const char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  if (!isdigit((unsigned char)*p)) {
    *why = *p == '-' ? "must not be negative" : "expected a size such as 6GiB or 512MiB";
    return -1;
  }
  char *end;
  double value = strtod(p, &end);
  while (isspace((unsigned char)*end))
    end++;
  size_t len = strlen(end);
  while (len > 0 && isspace((unsigned char)end[len - 1]))
    len--;
  for (size_t i = 0; i < N_OF(size_units); i++) {
    if (strlen(size_units[i].suffix) == len && strncasecmp(end, size_units[i].suffix, len) == 0) {
      double bytes = value * (double)size_units[i].factor;
      if (bytes >= 18446744073709551615.0) {
        *why = "too large";
        return -1;
      }
      *out_bytes = (uint64_t)llround(bytes);
      return 0;
    }
  }
  *why = "unknown unit (use B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB)";
  return -1;
}

void placer_format_bytes(uint64_t bytes, char *buf, size_t len) {
  static const char *names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
  double v = (double)bytes;
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < N_OF(names)) {
    v /= 1024.0;
    u++;
  }
  if (u == 0 || v >= 100.0)
    snprintf(buf, len, "%.0f %s", v, names[u]);
  else
    snprintf(buf, len, "%.1f %s", v, names[u]);
}

int placer_parse_quota(const char *s, unsigned *mcores) {
  if (s == NULL)
    return -1;
  unsigned long long whole = 0, frac = 0;
  int places = 0;
  const char *p = s;
  bool digits = false;
  for (; *p >= '0' && *p <= '9' && whole <= 100000; p++, digits = true)
    whole = whole * 10 + (unsigned)(*p - '0');
  if (*p == '.') {
    digits = digits && p[1] >= '0' && p[1] <= '9';
    for (p++; *p >= '0' && *p <= '9' && places < 3; p++, places++)
      frac = frac * 10 + (unsigned)(*p - '0');
  }
  for (int k = places; k < 3; k++)
    frac *= 10;
  unsigned long long m = whole * 1000 + frac;
  if (!digits || *p != '\0' || m < 10 || m > 65536000ull)
    return -1;
  *mcores = (unsigned)m;
  return 0;
}

int placer_parse_u64_prefix(const char *s, const char **end, uint64_t *out) {
  while (*s == ' ' || *s == '\t')
    s++;
  if (*s < '0' || *s > '9')
    return -1;
  char *e;
  errno = 0;
  unsigned long long v = strtoull(s, &e, 10);
  if (errno != 0)
    return -1;
  *out = v;
  *end = e;
  return 0;
}

int placer_parse_u64(const char *text, uint64_t *out) {
  const char *end;
  return placer_parse_u64_prefix(text, &end, out) < 0 || *end != '\0' ? -1 : 0;
}
