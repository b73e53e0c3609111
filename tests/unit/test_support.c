/* Helpers shared by the unit tests. */
#include "test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void test_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    fail_msg("cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

size_t test_list_fixtures(char names[][128], size_t cap) {
  DIR *dir = opendir(test_data_path("fixtures"));
  assert_non_null(dir);
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL && n < cap) {
    size_t len = strlen(de->d_name);
    if (len > 4 && len < 128 && strcmp(de->d_name + len - 4, ".xml") == 0)
      memcpy(names[n++], de->d_name, len + 1);
  }
  closedir(dir);
  qsort(names, n, 128, (int (*)(const void *, const void *))strcmp);
  return n;
}

bool test_updating_golden(void) {
  const char *v = getenv("PLACER_UPDATE_GOLDEN");
  return v && *v && strcmp(v, "0") != 0;
}

void test_compare_golden(const char *golden_relative, const char *actual) {
  char path[4096];
  snprintf(path, sizeof(path), "%s", test_data_path(golden_relative));
  if (test_updating_golden()) {
    test_write_file(path, actual);
    return;
  }
  char *expected = test_read_file(path);
  if (expected == NULL)
    fail_msg("missing %s (PLACER_UPDATE_GOLDEN=1 writes it; review it before committing)", golden_relative);
  if (strcmp(expected, actual) != 0) {
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.actual", path);
    test_write_file(tmp, actual);
    fail_msg("%s differs; see diff -u %s %s", golden_relative, path, tmp);
  }
  free(expected);
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
