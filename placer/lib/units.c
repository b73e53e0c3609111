/* Human units: sizes, latencies, rates and shares, and CPU quotas in cores. */
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

/* A plain decimal number ("2", "0.5", ".5": no sign, exponent or hex) at
 * the start of TEXT after blanks, then blanks: *END at what follows (its
 * unit).  -1 and *WHY: EXPECTED when there is none, or it is negative. */
static int number_then_unit(const char *text, double *value, const char **end, const char *expected, const char **why) {
  const char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  *why = expected;
  if (*p == '-') {
    *why = "must not be negative";
    return -1;
  }
  const char *e = p;
  size_t digits = 0;
  for (; isdigit((unsigned char)*e); e++)
    digits++;
  if (*e == '.')
    for (e++; isdigit((unsigned char)*e); e++)
      digits++;
  char num[64];
  if (digits == 0 || (size_t)(e - p) >= sizeof(num))
    return -1;
  snprintf(num, sizeof(num), "%.*s", (int)(e - p), p);
  *value = strtod(num, NULL);
  while (isspace((unsigned char)*e))
    e++;
  *end = e;
  return 0;
}

/* S without trailing blanks is exactly WORD (any case)? */
static bool is_word(const char *s, const char *word) {
  size_t n = strlen(word);
  if (strncasecmp(s, word, n) != 0)
    return false;
  for (s += n; *s; s++)
    if (!isspace((unsigned char)*s))
      return false;
  return true;
}

/* A time's units, and the words of its refusals. */
struct time_unit {
  const char *unit;
  double scale;
};
struct time_kind {
  const struct time_unit *units;
  size_t n;
  const char *expected, *no_unit, *unknown;
};

static int parse_time(const char *text, const struct time_kind *k, double *out, const char **why) {
  double value;
  const char *unit;
  if (number_then_unit(text, &value, &unit, k->expected, why) < 0)
    return -1;
  if (*unit == '\0') {
    *why = k->no_unit;
    return -1;
  }
  for (size_t i = 0; i < k->n; i++)
    if (is_word(unit, k->units[i].unit)) {
      *out = value * k->units[i].scale;
      return 0;
    }
  *why = k->unknown;
  return -1;
}

int placer_parse_duration_ns(const char *text, double *ns, const char **why) {
  static const struct time_unit units[] = {
    { "ns", 1 }, { "us", 1e3 }, { "\u00b5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }
  };
  static const struct time_kind latency = { units, N_OF(units),
                                            "expected a latency with its unit, such as 2ms or 500us",
                                            "a latency needs its unit: ns, us, ms or s (2ms, 500us)",
                                            "unknown unit (use ns, us, ms or s)" };
  return parse_time(text, &latency, ns, why);
}

int placer_parse_seconds(const char *text, double *seconds, const char **why) {
  static const struct time_unit units[] = { { "s", 1 }, { "min", 60 }, { "h", 3600 } };
  static const struct time_kind time = { units, N_OF(units), "expected a time with its unit, such as 12min or 720s",
                                         "a time needs its unit: s, min or h (720s, 12min)",
                                         "unknown unit (use s, min or h)" };
  return parse_time(text, &time, seconds, why);
}

void placer_format_seconds(double seconds, char *buf, size_t len) {
  if (!(seconds >= 0))
    seconds = 0;
  long t = (long)(seconds + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60)
    snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
  else
    snprintf(buf, len, "%lds", t);
}

void placer_format_duration_ns(double ns, char *buf, size_t len) {
  static const struct {
    double ns;
    const char *unit;
  } steps[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
  size_t i = 0;
  while (i + 1 < N_OF(steps) && fabs(ns) < steps[i].ns)
    i++;
  double v = ns / steps[i].ns;
  snprintf(buf, len, "%.*f %s", fabs(v) >= 100 || v == floor(v) ? 0 : fabs(v) >= 10 ? 1 : 2, v, steps[i].unit);
  /* "1.50 ms" -> "1.5 ms": no zeros that say nothing */
  char *dot = strchr(buf, '.');
  if (dot) {
    char *end = strchr(dot, ' ');
    char *last = end - 1;
    while (*last == '0')
      last--;
    if (last == dot)
      last--;
    memmove(last + 1, end, strlen(end) + 1);
  }
}

int placer_parse_rate(const char *text, double *value, int *bytes, const char **why) {
  static const char *const expected = "expected a rate with its unit, such as 5000 iops or 200MiB/s";
  double x;
  const char *unit;
  if (number_then_unit(text, &x, &unit, expected, why) < 0)
    return -1;
  if (is_word(unit, "iops")) {
    *value = x;
    *bytes = 0;
    return 0;
  }
  size_t n = strlen(unit);
  while (n > 0 && isspace((unsigned char)unit[n - 1]))
    n--;
  char size[64];
  uint64_t b;
  const char *size_why;
  if (n < 3 || unit[0] == '/' || strncmp(unit + n - 2, "/s", 2) != 0 || (size_t)(unit - text) + n - 2 >= sizeof(size)) {
    *why = *unit ? "unknown unit (use iops, or a size per second such as MiB/s)" : expected;
    return -1;
  }
  snprintf(size, sizeof(size), "%.*s", (int)((size_t)(unit - text) + n - 2), text);
  if (placer_parse_bytes(size, &b, &size_why) < 0) {
    *why = "unknown unit (use iops, or a size per second such as MiB/s)";
    return -1;
  }
  *value = (double)b;
  *bytes = 1;
  return 0;
}

int placer_parse_share(const char *text, double *share, const char **why) {
  double x;
  const char *rest;
  if (number_then_unit(text, &x, &rest, "expected a share such as 90% or 0.9", why) < 0)
    return -1;
  if (*rest == '%') {
    x /= 100.0;
    rest++;
  }
  if (!is_word(rest, "")) {
    *why = "expected a share such as 90% or 0.9";
    return -1;
  }
  if (!(x > 0.0 && x <= 1.0)) {
    *why = "a share must be more than 0 and at most 100%";
    return -1;
  }
  *share = x;
  return 0;
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
