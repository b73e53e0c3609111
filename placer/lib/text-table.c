/* Plain-text tables; see text-table.h. */
#include "lib/text-table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void placer_table_row(struct placer_table *t, bool span) {
  struct placer_table_row *bigger = realloc(t->rows, (t->n_rows + 1) * sizeof(*bigger));
  if (bigger == NULL) {
    t->failed = true;
    return;
  }
  t->rows = bigger;
  t->rows[t->n_rows++] = (struct placer_table_row){ .span = span };
}

static void add_cell(struct placer_table *t, char align, const char *fmt, va_list ap) {
  if (t->n_rows == 0 || t->failed)
    return;
  struct placer_table_row *row = &t->rows[t->n_rows - 1];
  struct placer_table_cell *bigger = realloc(row->cells, (row->n + 1) * sizeof(*bigger));
  if (bigger == NULL) {
    t->failed = true;
    return;
  }
  row->cells = bigger;
  char *text = NULL;
  if (vasprintf(&text, fmt, ap) < 0) {
    t->failed = true;
    return;
  }
  row->cells[row->n++] = (struct placer_table_cell){ text, align };
}

void placer_table_cell_r(struct placer_table *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_cell(t, 'r', fmt, ap);
  va_end(ap);
}

void placer_table_cell_l(struct placer_table *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_cell(t, 'l', fmt, ap);
  va_end(ap);
}

static void print_row(const struct placer_table_row *row, const size_t *width, FILE *out) {
  size_t pending = 0; /* blanks owed before the next text: trailing ones are never written */
  for (size_t c = 0; c < row->n; c++) {
    const struct placer_table_cell *cell = &row->cells[c];
    size_t len = strlen(cell->text), w = row->span ? len : width[c];
    size_t pad = w > len ? w - len : 0;
    if (c > 0)
      pending += 2;
    if (cell->align == 'r')
      pending += pad;
    if (len > 0) {
      fprintf(out, "%*s%s", (int)pending, "", cell->text);
      pending = 0;
    }
    if (cell->align != 'r')
      pending += pad;
  }
  fputc('\n', out);
}

int placer_table_print(struct placer_table *t, FILE *out) {
  size_t n_cols = 0;
  for (size_t i = 0; i < t->n_rows; i++)
    if (!t->rows[i].span && t->rows[i].n > n_cols)
      n_cols = t->rows[i].n;
  size_t *width = calloc(n_cols + 1, sizeof(*width));
  bool failed = t->failed || width == NULL;
  for (size_t i = 0; !failed && i < t->n_rows; i++)
    for (size_t c = 0; !t->rows[i].span && c < t->rows[i].n; c++)
      if (strlen(t->rows[i].cells[c].text) > width[c])
        width[c] = strlen(t->rows[i].cells[c].text);
  for (size_t i = 0; !failed && i < t->n_rows; i++)
    print_row(&t->rows[i], width, out);
  for (size_t i = 0; i < t->n_rows; i++) {
    for (size_t c = 0; c < t->rows[i].n; c++)
      free(t->rows[i].cells[c].text);
    free(t->rows[i].cells);
  }
  free(t->rows);
  free(width);
  *t = (struct placer_table){ 0 };
  return failed ? -1 : 0;
}
