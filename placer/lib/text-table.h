/* Plain-text tables for terminal reports: rows of cells, each column padded to
 * its widest cell, two spaces between columns, no trailing blanks. */
#ifndef PLACER_TEXT_TABLE_H
#define PLACER_TEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct placer_table_cell {
  char *text;
  char align; /* 'l' or 'r' */
};
struct placer_table_row {
  struct placer_table_cell *cells;
  size_t n;
  bool span; /* a free-standing line (a section label): printed as is, not measured */
};
/* Start from { 0 }. Allocation failures are remembered and reported by print. */
struct placer_table {
  struct placer_table_row *rows;
  size_t n_rows;
  bool failed;
};

void placer_table_row(struct placer_table *t, bool span);
/* Append a cell to the last row, right- or left-aligned. */
void placer_table_cell_r(struct placer_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void placer_table_cell_l(struct placer_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print, then free and reset the table. Returns -1 if building or printing it
 * ran out of memory (nothing or part of it printed). */
int placer_table_print(struct placer_table *t, FILE *out);

#endif
