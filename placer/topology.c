/* Load the node's topology through hwloc (live or XML) into plain arrays.
 * I/O devices are collected in topology-io.c; printers live in
 * topology-json.c and topology-text.c. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/textfile.h"
#include "topology-internal.h"

/* hwloc 2.x reads XML format 1.x and 2.x; a 3.x file fails inside hwloc with
 * no reason given, so look at the root element in the first bytes (HEAD, N
 * bytes, NUL-terminated) to say why. */
static int check_xml_header(const char *name, const char *head, size_t n, struct placer_error **err) {
  if (n == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': empty file", name);
  const char *root = strstr(head, "<topology");
  if (root == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "topology '%s': not an hwloc XML topology (no <topology> element)", name);
  const char *version = strstr(root, "version=\"");
  const char *end = strchr(root, '>');
  if (version && end && version < end) {
    unsigned major = (unsigned)strtoul(version + 9, NULL, 10);
    if (major > HWLOC_API_VERSION >> 16)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "topology '%s': written by a newer hwloc (XML format %u.x; this placer reads up to %u.x)",
                              name, major, HWLOC_API_VERSION >> 16);
  }
  return 0;
}

#define PLACER_TOPOLOGY_MAX_OS_INDEX (1u << 20)

/* TAG (an element's text up to '>') has attribute NAME with a quoted value,
 * preceded by white space as hwloc's parser wants it; for a set (cpuset,
 * nodeset, ...) the value must also be in hwloc's bitmap syntax
 * ("0x000000ff,0x0", "0xf...f"): hwloc keeps a NULL set for one it cannot
 * read and crashes on it later. */
static bool has_attribute(const char *tag, const char *name) {
  size_t len = strlen(name);
  for (const char *p = strstr(tag, name); p; p = strstr(p + 1, name))
    if (p > tag && strchr(" \t\r\n", p[-1]) && p[len] == '=' && p[len + 1] == '"') {
      if (strstr(name, "set") == NULL)
        return true;
      const char *v = p + len + 2;
      size_t n = strspn(v, "0123456789abcdefABCDEFx,.");
      return n > 0 && v[n] == '"';
    }
  return false;
}

/* hwloc 2.9 dereferences NULL on an object that has a cpuset but no
 * complete_cpuset (or the reverse; a nodeset alone likewise): lstopo
 * crashes on such a file too (found by tests/fuzz).  lstopo always writes
 * both, so an object with one alone is a corrupt file: refused before hwloc
 * sees it. */
/* TAG is "<object" then only  NAME="VALUE"  pairs separated by white space
 * (and a closing '/'): hwloc's parser loses an attribute glued to a stray
 * byte, and crashes on what is missing then. */
static bool well_formed(const char *tag) {
  const char *p = tag + strlen("<object");
  for (;;) {
    size_t ws = strspn(p, " \t\r\n");
    p += ws;
    if (*p == '\0' || (p[0] == '/' && p[1] == '\0'))
      return true;
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (ws == 0 || n == 0 || p[n] != '=' || p[n + 1] != '"')
      return false;
    const char *close = strchr(p + n + 2, '"');
    if (close == NULL)
      return false;
    p = close + 1;
  }
}

static int check_xml_objects(const char *name, const char *xml, struct placer_error **err) {
  for (const char *o = strstr(xml, "<object"); o; o = strstr(o + 1, "<object")) {
    const char *end = strchr(o, '>');
    if (end == NULL)
      break;
    cleanup_free char *tag = strndup(o, (size_t)(end - o));
    if (tag == NULL)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "topology '%s'", name);
    if (!well_formed(tag) || has_attribute(tag, "cpuset") != has_attribute(tag, "complete_cpuset") ||
        has_attribute(tag, "nodeset") != has_attribute(tag, "complete_nodeset")) {
      size_t line = 1;
      for (const char *p = xml; p < o; p++)
        line += *p == '\n';
      return placer_error_set(
          err, PLACER_EXIT_USAGE, 0,
          "topology '%s': line %zu: a malformed object, or one with a cpuset or nodeset but not its "
          "complete_ counterpart, or one not in bitmap syntax (corrupt file)",
          name, line);
    }
    /* a PU or NUMA node without os_index (or a huge one) makes hwloc set bit
     * 2^32-1 of a bitmap: 512 MiB for one object */
    if (strstr(tag, "type=\"PU\"") || strstr(tag, "type=\"NUMANode\"")) {
      const char *v = strstr(tag, " os_index=\"");
      unsigned long index = v ? strtoul(v + 11, NULL, 10) : ULONG_MAX;
      if (index >= PLACER_TOPOLOGY_MAX_OS_INDEX) {
        size_t line = 1;
        for (const char *p = xml; p < o; p++)
          line += *p == '\n';
        return placer_error_set(
            err, PLACER_EXIT_USAGE, 0,
            "topology '%s': line %zu: a PU or NUMA node without an os_index below %u (corrupt file)", name, line,
            PLACER_TOPOLOGY_MAX_OS_INDEX);
      }
    }
  }
  return 0;
}

/* XML_PATH NULL and XML NULL: the live machine; else the file, or the buffer
 * XML of LEN bytes (named NAME in messages). */
static int load_hwloc(struct placer_topology *topo, const char *xml_path, const char *xml, size_t len,
                      struct placer_error **err) {
  const char *name = topo->source;
  cleanup_free char *text = NULL;
  if (xml_path) {
    if (placer_textfile_read_path(xml_path, PLACER_TEXTFILE_MAX_BYTES, &text, &len) < 0) {
      if (errno == EFBIG)
        return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': larger than %zu MiB", name,
                                PLACER_TEXTFILE_MAX_BYTES >> 20);
      return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "topology '%s'", name);
    }
    xml = text ? text : "";
  }
  /* hwloc prints a box of text on stderr about a corrupt XML file before it
   * fails or repairs it; placer's error is one line (the user may still ask
   * for hwloc's with HWLOC_HIDE_ERRORS=0) */
  if (xml)
    setenv("HWLOC_HIDE_ERRORS", "2", 0);
  if (hwloc_topology_init(&topo->hw) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "hwloc_topology_init");
  hwloc_topology_set_io_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  hwloc_topology_set_flags(topo->hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (xml == NULL) {
    if (hwloc_topology_load(topo->hw) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "hwloc_topology_load");
    return 0;
  }
  /* hwloc wants a NUL-terminated buffer, its size counting the NUL */
  char head[4096];
  size_t n = len < sizeof(head) - 1 ? len : sizeof(head) - 1;
  memcpy(head, xml, n);
  head[n] = '\0';
  if (check_xml_header(name, head, n, err) < 0)
    return -1;
  cleanup_free char *copy = malloc(len + 1);
  if (copy == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "topology '%s'", name);
  memcpy(copy, xml, len);
  copy[len] = '\0';
  if (check_xml_objects(name, copy, err) < 0)
    return -1;
  /* a file given by the user: a crash in hwloc's importer becomes an error */
  if (xml_path && placer_topology_probe_xml(name, copy, len + 1, err) < 0)
    return -1;
  if (len >= INT_MAX || hwloc_topology_set_xmlbuffer(topo->hw, copy, (int)len + 1) < 0)
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "topology '%s': hwloc cannot read it", name);
  if (hwloc_topology_load(topo->hw) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, errno,
                            "topology '%s': not a valid hwloc XML topology (corrupt or truncated)", name);
  return 0;
}

static unsigned package_of(hwloc_topology_t hw, hwloc_obj_t obj) {
  hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_PACKAGE, obj);
  return pkg ? pkg->logical_index : 0;
}

static int compare_numa(const void *a, const void *b) {
  const struct placer_numa_node *x = a, *y = b;
  return (x->os_index > y->os_index) - (x->os_index < y->os_index);
}

static int collect_numa(struct placer_topology *topo) {
  int n = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
  topo->numa_nodes = calloc(n > 0 ? n : 1, sizeof(*topo->numa_nodes));
  if (topo->numa_nodes == NULL)
    return -1;
  for (int i = 0; i < n; i++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, i);
    struct placer_numa_node *node = &topo->numa_nodes[topo->n_numa_nodes++];
    node->os_index = obj->os_index;
    node->memory_bytes = obj->attr->numanode.local_memory;
    node->cpus = hwloc_bitmap_dup(obj->cpuset);
    node->package = package_of(topo->hw, obj);
  }
  qsort(topo->numa_nodes, topo->n_numa_nodes, sizeof(*topo->numa_nodes), compare_numa);
  return 0;
}

/* The NUMA node of a set of PUs when they all lie on exactly one, else -1. */
static int single_numa_of(const struct placer_topology *topo, hwloc_const_bitmap_t cpus) {
  int found = -1;
  for (size_t i = 0; i < topo->n_numa_nodes; i++) {
    if (hwloc_bitmap_intersects(topo->numa_nodes[i].cpus, cpus)) {
      if (found >= 0)
        return -1;
      found = (int)topo->numa_nodes[i].os_index;
    }
  }
  return found;
}

static int collect_l3(struct placer_topology *topo) {
  int n = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_L3CACHE);
  topo->l3_groups = calloc(n > 0 ? n : 1, sizeof(*topo->l3_groups));
  if (topo->l3_groups == NULL)
    return -1;
  for (int i = 0; i < n; i++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_L3CACHE, i);
    topo->l3_groups[i].size_bytes = obj->attr->cache.size;
    topo->l3_groups[i].cpus = hwloc_bitmap_dup(obj->cpuset);
  }
  topo->n_l3_groups = n > 0 ? (size_t)n : 0;
  return 0;
}

static int l3_group_of(const struct placer_topology *topo, hwloc_const_bitmap_t pus) {
  for (size_t i = 0; i < topo->n_l3_groups; i++)
    if (hwloc_bitmap_isincluded(pus, topo->l3_groups[i].cpus))
      return (int)i;
  return -1;
}

/* A core per hwloc Core object; a PU without a Core ancestor (some XML files
 * omit cores) counts as a core of its own. */
static int collect_cores(struct placer_topology *topo) {
  int n_pus = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PU);
  topo->cores = calloc(n_pus > 0 ? n_pus : 1, sizeof(*topo->cores));
  if (topo->cores == NULL)
    return -1;
  hwloc_obj_t last_core = NULL;
  for (int i = 0; i < n_pus; i++) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PU, i);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_CORE, pu);
    if (core && core == last_core)
      continue;
    last_core = core;
    hwloc_obj_t owner = core ? core : pu;
    struct placer_core *c = &topo->cores[topo->n_cores];
    c->logical_index = (unsigned)topo->n_cores;
    c->os_index = owner->os_index == HWLOC_UNKNOWN_INDEX ? c->logical_index : owner->os_index;
    c->package = package_of(topo->hw, owner);
    c->pus = hwloc_bitmap_dup(owner->cpuset);
    c->numa_node = single_numa_of(topo, c->pus);
    c->l3_group = l3_group_of(topo, c->pus);
    topo->n_cores++;
  }
  return 0;
}

static int collect_distances(struct placer_topology *topo) {
  size_t n = topo->n_numa_nodes;
  unsigned nr = 1;
  struct hwloc_distances_s *dist = NULL;
  if (n < 2 || hwloc_distances_get_by_type(topo->hw, HWLOC_OBJ_NUMANODE, &nr, &dist, 0, 0) < 0 || nr == 0)
    return 0;
  if (dist->nbobjs == n) {
    topo->distances = calloc(n * n, sizeof(uint64_t));
    if (topo->distances == NULL) {
      hwloc_distances_release(topo->hw, dist);
      return -1;
    }
    for (unsigned i = 0; i < dist->nbobjs; i++)
      for (unsigned j = 0; j < dist->nbobjs; j++) {
        int row = placer_topology_numa_pos(topo, dist->objs[i]->os_index);
        int col = placer_topology_numa_pos(topo, dist->objs[j]->os_index);
        if (row >= 0 && col >= 0)
          topo->distances[(size_t)row * n + (size_t)col] = dist->values[i * dist->nbobjs + j];
      }
  }
  hwloc_distances_release(topo->hw, dist);
  return 0;
}

/* hwloc's allowed sets come from the cpuset cgroup; the process's own
 * affinity (taskset, numactl) restricts it further. */
static void restrict_to_own_binding(struct placer_topology *topo) {
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (bound && hwloc_get_cpubind(topo->hw, bound, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(bound))
    hwloc_bitmap_and(topo->allowed_cpus, topo->allowed_cpus, bound);
  hwloc_membind_policy_t policy;
  if (bound && hwloc_get_membind(topo->hw, bound, &policy, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) == 0 &&
      !hwloc_bitmap_iszero(bound) && policy != HWLOC_MEMBIND_DEFAULT)
    hwloc_bitmap_and(topo->allowed_mems, topo->allowed_mems, bound);
  hwloc_bitmap_free(bound);
}

/* Objects placer counts by type must sit at one depth: hwloc gives no
 * count (-1) and no object by index for a type found at several depths,
 * which only a hand-edited or corrupt XML file has. */
static int check_depths(const struct placer_topology *topo, struct placer_error **err) {
  static const hwloc_obj_type_t types[] = { HWLOC_OBJ_PACKAGE, HWLOC_OBJ_CORE, HWLOC_OBJ_PU, HWLOC_OBJ_L3CACHE };
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
    if (hwloc_get_type_depth(topo->hw, types[i]) == HWLOC_TYPE_DEPTH_MULTIPLE)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': %s objects at several depths", topo->source,
                              hwloc_obj_type_string(types[i]));
  return 0;
}

static int topology_load(const char *xml_path, const char *name, const char *xml, size_t len,
                         struct placer_topology **out, struct placer_error **err) {
  struct placer_topology *topo = calloc(1, sizeof(*topo));
  if (topo == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "load topology");
  topo->is_live = xml_path == NULL && xml == NULL;
  topo->source = strdup(xml_path ? xml_path : xml ? name : "live");
  if (topo->source == NULL) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "load topology");
    goto fail;
  }
  if (load_hwloc(topo, xml_path, xml, len, err) < 0 || check_depths(topo, err) < 0)
    goto fail;
  topo->n_packages = (unsigned)hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_PACKAGE);
  topo->online_cpus = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(topo->hw));
  topo->allowed_cpus = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo->hw));
  topo->allowed_mems = hwloc_bitmap_dup(hwloc_topology_get_allowed_nodeset(topo->hw));
  if (topo->is_live)
    restrict_to_own_binding(topo);
  if (collect_numa(topo) < 0 || collect_l3(topo) < 0 || collect_cores(topo) < 0 || collect_distances(topo) < 0 ||
      placer_topology_collect_io(topo) < 0 || (topo->is_live && placer_topology_collect_net(topo) < 0)) {
    placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "load topology '%s'", topo->source);
    goto fail;
  }
  if (topo->is_live) {
    /* Only apply needs them: a node whose IRQs cannot be read still plans. */
    struct placer_error *irq_err = NULL;
    if (placer_topology_load_irqs(topo, "", &irq_err) < 0) {
      topo->irqs_error = strdup(irq_err->msg);
      placer_error_free(irq_err);
    }
  }
  *out = topo;
  return 0;
fail:
  placer_topology_free(topo);
  return -1;
}

int placer_topology_load(const char *xml_path, struct placer_topology **out, struct placer_error **err) {
  return topology_load(xml_path, NULL, NULL, 0, out, err);
}

int placer_topology_load_xml_buffer(const char *name, const char *xml, size_t len, struct placer_topology **out,
                                    struct placer_error **err) {
  return topology_load(NULL, name, xml ? xml : "", len, out, err);
}

void placer_topology_free(struct placer_topology *topo) {
  if (topo == NULL)
    return;
  for (size_t i = 0; i < topo->n_numa_nodes; i++)
    hwloc_bitmap_free(topo->numa_nodes[i].cpus);
  for (size_t i = 0; i < topo->n_cores; i++)
    hwloc_bitmap_free(topo->cores[i].pus);
  for (size_t i = 0; i < topo->n_l3_groups; i++)
    hwloc_bitmap_free(topo->l3_groups[i].cpus);
  placer_topology_free_net(topo);
  placer_topology_free_io(topo);
  placer_irq_inventory_free(topo->irqs);
  free(topo->irqs_error);
  free(topo->numa_nodes);
  free(topo->cores);
  free(topo->l3_groups);
  free(topo->distances);
  hwloc_bitmap_free(topo->online_cpus);
  hwloc_bitmap_free(topo->allowed_cpus);
  hwloc_bitmap_free(topo->allowed_mems);
  if (topo->hw)
    hwloc_topology_destroy(topo->hw);
  free(topo->source);
  free(topo);
}

int placer_topology_load_irqs(struct placer_topology *topo, const char *root, struct placer_error **err) {
  struct placer_irq_inventory *inv = NULL;
  if (placer_irq_inventory_load(root, &inv, err) < 0)
    return -1;
  placer_irq_inventory_free(topo->irqs);
  topo->irqs = inv;
  free(topo->irqs_error);
  topo->irqs_error = NULL;
  return 0;
}

int placer_topology_numa_pos(const struct placer_topology *topo, unsigned os_index) {
  for (size_t i = 0; i < topo->n_numa_nodes; i++)
    if (topo->numa_nodes[i].os_index == os_index)
      return (int)i;
  return -1;
}

uint64_t placer_topology_distance(const struct placer_topology *topo, unsigned from_os, unsigned to_os) {
  int row = placer_topology_numa_pos(topo, from_os);
  int col = placer_topology_numa_pos(topo, to_os);
  if (topo->distances == NULL || row < 0 || col < 0)
    return 0;
  return topo->distances[(size_t)row * topo->n_numa_nodes + (size_t)col];
}

const char *placer_device_kind_name(enum placer_device_kind kind) {
  switch (kind) {
  case PLACER_DEVICE_NVME: return "nvme";
  case PLACER_DEVICE_SSD: return "ssd";
  case PLACER_DEVICE_HDD: return "hdd";
  default: return "unknown";
  }
}
