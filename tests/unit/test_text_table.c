/* Plain-text tables: padding, alignment, section lines, no trailing blanks. */
#include <stdio.h>
#include <stdlib.h>

#include "test_support.h"
#include "lib/text-table.h"

static void test_layout(void **state) {
  struct placer_table t = { 0 };
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "%s", "");
  placer_table_cell_r(&t, "IOPS");
  placer_table_cell_l(&t, "note");
  placer_table_row(&t, true);
  placer_table_cell_l(&t, "a section line wider than every column");
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "  unpinned");
  placer_table_cell_r(&t, "%d", 2388);
  placer_table_cell_l(&t, "%s", "");
  placer_table_row(&t, false);
  placer_table_cell_l(&t, "  pinned");
  placer_table_cell_r(&t, "%s", "-");
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  assert_int_equal(placer_table_print(&t, out), 0);
  fclose(out);
  assert_string_equal(text, "            IOPS  note\n"
                            "a section line wider than every column\n"
                            "  unpinned  2388\n"
                            "  pinned       -\n");
  free(text);
  assert_null(t.rows); /* printed and reset */
}

int main(void) {
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_layout) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
