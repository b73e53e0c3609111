/* CSV as placer's results directories hold it (RFC 4180): a field with a
 * comma, a quote or a line break is quoted, its quotes doubled; a number
 * that is not known is an empty field.  Writing a field, and splitting a
 * row back into fields for the readers that check a CSV file. */
#ifndef PLACER_CSV_H
#define PLACER_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* S (NULL: empty) as one field, then ',' or, LAST, '\n'. */
void placer_csv_write_field(FILE *f, const char *s, bool last);
/* X as %.10g (NAN: empty), then ',' or '\n'. */
void placer_csv_write_number(FILE *f, double x, bool last);

/* The row at the start of *TEXT (LEN bytes left) split into at most MAX
 * fields, unquoted in place: FIELDS[i] point into the text, each ended by a
 * NUL written over its comma, quote or newline.  *TEXT and *LEN move past
 * the row and its '\n'.  Returns the number of fields, or -1 with *WHY set:
 * a row without its '\n' (the file cut short), more than MAX fields, a
 * control byte, a quote inside an unquoted field or text after a closing
 * quote. */
int placer_csv_split_row(char **text, size_t *len, char **fields, size_t max, const char **why);

#endif
