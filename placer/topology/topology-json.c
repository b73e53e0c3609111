/* The topology as JSON; the schema is documented in docs/topology.md. */
#include <stdlib.h>

#include "topology/topology.h"

static json_t *json_cpulist(hwloc_const_bitmap_t set) {
  char *s = placer_cpulist_format(set);
  json_t *j = json_string(s ? s : "");
  free(s);
  return j;
}

static json_t *json_index_array(hwloc_const_bitmap_t set) {
  json_t *arr = json_array();
  unsigned i;
  hwloc_bitmap_foreach_begin(i, set) {
    json_array_append_new(arr, json_integer(i));
  }
  hwloc_bitmap_foreach_end();
  return arr;
}

static json_t *json_string_or_null(const char *s) {
  return s ? json_string(s) : json_null();
}

static json_t *packages_json(const struct placer_topology *topo) {
  json_t *arr = json_array();
  for (unsigned p = 0; p < topo->n_packages; p++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PACKAGE, p);
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    for (size_t i = 0; i < topo->n_numa_nodes; i++)
      if (topo->numa_nodes[i].package == p)
        hwloc_bitmap_set(nodes, topo->numa_nodes[i].os_index);
    json_array_append_new(arr, json_pack("{s:i, s:o, s:o}", "logical_index", (json_int_t)p, "cpus",
                                         json_cpulist(obj->cpuset), "numa_nodes", json_index_array(nodes)));
    hwloc_bitmap_free(nodes);
  }
  return arr;
}

static json_t *numa_json(const struct placer_topology *topo) {
  json_t *arr = json_array();
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    const struct placer_numa_node *n = &topo->numa_nodes[i];
    json_array_append_new(arr, json_pack("{s:i, s:I, s:o, s:i}", "os_index", (json_int_t)n->os_index, "memory_bytes",
                                         (json_int_t)n->memory_bytes, "cpus", json_cpulist(n->cpus), "package",
                                         (json_int_t)n->package));
  }
  return arr;
}

static json_t *distances_json(const struct placer_topology *topo) {
  if (topo->distances == NULL)
    return json_null();
  json_t *order = json_array(), *matrix = json_array();
  size_t n = topo->n_numa_nodes;
  for (size_t i = 0; i < n; i++) {
    json_array_append_new(order, json_integer(topo->numa_nodes[i].os_index));
    json_t *row = json_array();
    for (size_t j = 0; j < n; j++)
      json_array_append_new(row, json_integer((json_int_t)topo->distances[i * n + j]));
    json_array_append_new(matrix, row);
  }
  return json_pack("{s:o, s:o}", "numa_nodes", order, "matrix", matrix);
}

static json_t *cores_json(const struct placer_topology *topo) {
  json_t *arr = json_array();
  for (size_t i = 0; i < topo->n_cores; i++) {
    const struct placer_core *c = &topo->cores[i];
    json_array_append_new(
        arr, json_pack("{s:i, s:i, s:i, s:o, s:o, s:o}", "logical_index", (json_int_t)c->logical_index, "os_index",
                       (json_int_t)c->os_index, "package", (json_int_t)c->package, "numa_node",
                       c->numa_node >= 0 ? json_integer(c->numa_node) : json_null(), "l3",
                       c->l3_group >= 0 ? json_integer(c->l3_group) : json_null(), "pus", json_index_array(c->pus)));
  }
  return arr;
}

static json_t *cache_groups_json(const struct placer_cache_group *groups, size_t n) {
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, json_pack("{s:i, s:I, s:o}", "index", (json_int_t)i, "size_bytes",
                                         (json_int_t)groups[i].size_bytes, "cpus", json_cpulist(groups[i].cpus)));
  return arr;
}

static json_t *blockdevs_json(const struct placer_topology *topo) {
  json_t *arr = json_array();
  for (size_t i = 0; i < topo->n_blockdevs; i++) {
    const struct placer_blockdev *b = &topo->blockdevs[i];
    json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "name", b->name, "kind",
                                         placer_device_kind_name(b->kind), "size_bytes",
                                         b->size_bytes ? json_integer((json_int_t)b->size_bytes) : json_null(),
                                         "pci_busid", json_string_or_null(b->pci_busid), "model",
                                         json_string_or_null(b->model), "numa_nodes", json_index_array(b->numa_nodes)));
  }
  return arr;
}

static json_t *nics_json(const struct placer_topology *topo) {
  json_t *arr = json_array();
  for (size_t i = 0; i < topo->n_nics; i++) {
    const struct placer_nic *n = &topo->nics[i];
    json_t *ips = json_array();
    for (size_t k = 0; k < n->n_ip_addresses; k++)
      json_array_append_new(ips, json_string(n->ip_addresses[k]));
    /* hwloc's float GB/s as whole MB/s: an integer prints the same everywhere */
    json_t *link = n->pci_link_gbps > 0 ? json_integer((json_int_t)(n->pci_link_gbps * 1000 + 0.5)) : json_null();
    json_array_append_new(arr,
                          json_pack("{s:s, s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "name", n->name, "pci_busid",
                                    json_string_or_null(n->pci_busid), "address", json_string_or_null(n->address),
                                    "speed_mbps", n->speed_mbps ? json_integer((json_int_t)n->speed_mbps) : json_null(),
                                    "pci_link_mbytes_per_s", link, "ethernet", n->ethernet, "ip_addresses", ips,
                                    "numa_nodes", json_index_array(n->numa_nodes)));
  }
  return arr;
}

json_t *placer_topology_to_json(const struct placer_topology *topo) {
  json_t *root = json_object();
  json_object_set_new(root, "schema", json_integer(PLACER_TOPOLOGY_JSON_SCHEMA));
  json_object_set_new(root, "source", json_string(topo->source));
  json_object_set_new(root, "totals",
                      json_pack("{s:i, s:i, s:i, s:i}", "packages", (json_int_t)topo->n_packages, "numa_nodes",
                                (json_int_t)topo->n_numa_nodes, "cores", (json_int_t)topo->n_cores, "pus",
                                (json_int_t)hwloc_bitmap_weight(topo->online_cpus)));
  json_object_set_new(root, "packages", packages_json(topo));
  json_object_set_new(root, "numa_nodes", numa_json(topo));
  json_object_set_new(root, "distances", distances_json(topo));
  json_object_set_new(root, "cores", cores_json(topo));
  json_object_set_new(root, "l3_caches", cache_groups_json(topo->l3_groups, topo->n_l3_groups));
  json_object_set_new(root, "l2_clusters", cache_groups_json(topo->l2_clusters, topo->n_l2_clusters));
  json_object_set_new(root, "block_devices", blockdevs_json(topo));
  json_object_set_new(root, "network_interfaces", nics_json(topo));
  json_t *nets = json_array();
  for (size_t i = 0; i < topo->n_storage_networks; i++)
    json_array_append_new(nets, json_string(topo->storage_networks[i]));
  json_object_set_new(root, "storage_networks", nets);
  json_object_set_new(root, "online", json_pack("{s:o}", "cpus", json_cpulist(topo->online_cpus)));
  json_object_set_new(
      root, "allowed",
      json_pack("{s:o, s:o}", "cpus", json_cpulist(topo->allowed_cpus), "mems", json_cpulist(topo->allowed_mems)));
  return root;
}
