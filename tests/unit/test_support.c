/* Helpers shared by the unit tests. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>

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
