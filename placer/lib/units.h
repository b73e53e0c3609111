/* Human units for sizes: parse "6GiB" / "512M", print "5.5 GiB"; quotas in
 * cores; plain counters. */
#ifndef PLACER_UNITS_H
#define PLACER_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parse a size: a decimal number (optionally with a fraction) followed by
 * an optional unit: B, K/KiB, M/MiB, G/GiB, T/TiB (binary), KB/MB/GB/TB
 * (decimal).  Returns 0, or -1 with *why set to a static reason. */
int placer_parse_bytes(const char *text, uint64_t *out_bytes, const char **why);
/* "23.5 GiB", "512 MiB", "4 KiB", "100 B". */
void placer_format_bytes(uint64_t bytes, char *buf, size_t len);

/* A latency or duration: a decimal number (a fraction allowed) and its
 * unit, required: ns, us (or µs), ms, s ("2ms", "500 us", "1.5s").  0 and
 * *NS, or -1 with *WHY set to a static reason (no unit, an unknown one, a
 * negative number). */
int placer_parse_duration_ns(const char *text, double *ns, const char **why);
/* "2 ms", "500 us", "1.5 s", "800 ns": 3 significant digits at most. */
void placer_format_duration_ns(double ns, char *buf, size_t len);
/* A length of time with its unit, required: s, min or h ("720s", "12min",
 * "1.5h").  0 and *SECONDS, or -1 with *WHY (no unit, an unknown one, a
 * negative number). */
int placer_parse_seconds(const char *text, double *seconds, const char **why);
/* A length of time as the progress line and the estimates say it: "45s",
 * "12m00s", "1h02m" (rounded to the second; negative or NAN: "0s"). */
void placer_format_seconds(double seconds, char *buf, size_t len);
/* A rate with its unit, required: operations ("5000 iops") or bytes per
 * second ("200MiB/s", "1.5 GB/s": a size of placer_parse_bytes, then
 * "/s").  0 with *VALUE and *BYTES (true: bytes/s), or -1 and *WHY. */
int placer_parse_rate(const char *text, double *value, int *bytes, const char **why);
/* A share: "90%" or 0.9, in (0, 1].  0 and *SHARE, or -1 and *WHY. */
int placer_parse_share(const char *text, double *share, const char **why);

/* A quota in cores as the profile writes it ("1.5": 0.01..65536, at most 3
 * decimals) in thousandths of a core; -1 when it is not one.  Pure. */
int placer_parse_quota(const char *text, unsigned *mcores);

/* A decimal number at the start of S after blanks (spaces, tabs): a digit
 * first (no sign), no overflow; *END is set past it.  0, or -1 when there
 * is none.  What the kernel's counters files hold. */
int placer_parse_u64_prefix(const char *s, const char **end, uint64_t *out);
/* The same, all of TEXT. */
int placer_parse_u64(const char *text, uint64_t *out);

#endif
