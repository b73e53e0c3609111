/* Helpers shared by the unit tests. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/textfile.h"
#include "topology.h"

const char *test_data_path(const char *relative) {
  static char path[4096];
  const char *root = getenv("PLACER_TEST_DATA");
  snprintf(path, sizeof(path), "%s/%s", root ? root : "tests", relative);
  return path;
}

char *test_read_file(const char *path) {
  char *text = NULL;
  return placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0 ? NULL : text;
}

void test_check_golden(const char *relative, const char *text) {
  if (getenv("PLACER_UPDATE_GOLDEN")) {
    char path[4096];
    snprintf(path, sizeof(path), "%s", test_data_path(relative));
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
      *slash = '\0';
      mkdir(path, 0755); /* EEXIST for all but the new ones */
      *slash = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
  }
  char *golden = test_read_file(test_data_path(relative));
  if (golden == NULL)
    fail_msg("missing golden file %s (run with PLACER_UPDATE_GOLDEN=1)", relative);
  if (strcmp(golden, text) != 0) {
    fprintf(stderr, "--- %s\n%s--- got\n%s", relative, golden, text);
    free(golden);
    fail_msg("%s differs from the output", relative);
  }
  free(golden);
}

const struct placer_numa_node *placer_topology_numa_by_os(const struct placer_topology *topo, unsigned os_index) {
  int pos = placer_topology_numa_pos(topo, os_index);
  return pos < 0 ? NULL : &topo->numa_nodes[pos];
}

const struct placer_core *placer_topology_core_of_pu(const struct placer_topology *topo, unsigned pu_os_index) {
  for (size_t i = 0; i < topo->n_cores; i++)
    if (hwloc_bitmap_isset(topo->cores[i].pus, pu_os_index))
      return &topo->cores[i];
  return NULL;
}
