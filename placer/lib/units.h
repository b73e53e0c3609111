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
