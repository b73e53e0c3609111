/* Fuzz the hwloc XML path: hwloc_topology_set_xmlbuffer, then everything
 * placer reads out of the topology (NUMA nodes, cores, L3, distances,
 * devices) and its JSON and text printers. */
#include <stdio.h>

#include "fuzz.h"
#include "topology/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load_xml_buffer("fuzz.xml", (const char *)data, size, &topo, &err) == 0) {
    json_decref(placer_topology_to_json(topo));
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      placer_topology_print_text(topo, null);
      fclose(null);
    }
    placer_topology_free(topo);
  } else {
    FUZZ_CHECK(topo == NULL && err != NULL);
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL);
    placer_error_free(err);
  }
  return 0;
}
