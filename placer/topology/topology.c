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

#include "lib/array.h"
#include "lib/textfile.h"
#include "topology/topology-internal.h"

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

static const struct placer_topology_xml_guard *xml_guard;

void placer_topology_set_xml_guard(const struct placer_topology_xml_guard *guard) {
  xml_guard = guard;
}

/* One <object ...> tag (TAG..END, up to its '>') as placer checks it before
 * hwloc reads the file: hwloc 2.9 crashes on some corrupt ones (found by
 * tests/fuzz; lstopo crashes on them too).  One pass over the tag: it is
 * the cost of every load, on a file of a thousand objects. */
struct object_tag {
  bool well_formed;       /* "<object" then only  NAME="VALUE"  pairs, white space before each */
  unsigned sets;          /* the SET_* bits of the sets given, each in hwloc's bitmap syntax */
  bool pu_or_numa;        /* type="PU" or type="NUMANode" */
  unsigned long os_index; /* ULONG_MAX when not given */
};

enum { SET_CPUSET = 1, SET_COMPLETE_CPUSET = 2, SET_NODESET = 4, SET_COMPLETE_NODESET = 8 };

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The bytes of an attribute's name (1), and of hwloc's bitmap syntax (2):
 * a table, as every byte of every tag goes through it. */
static const unsigned char tag_chars[256] = {
  ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
  ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3,
  ['E'] = 3, ['F'] = 3, ['x'] = 3, [','] = 2, ['.'] = 2, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
  ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
  ['v'] = 1, ['w'] = 1, ['y'] = 1, ['z'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
  ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
  ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['_'] = 1,
};

static bool is_name_char(char c) {
  return tag_chars[(unsigned char)c] & 1;
}

/* hwloc's bitmap syntax ("0x000000ff,0x0", "0xf...f"): hwloc keeps a NULL
 * set for a value it cannot read and crashes on it later. */
static bool is_bitmap(const char *v, const char *end) {
  if (v == end)
    return false;
  for (; v < end; v++)
    if (!(tag_chars[(unsigned char)*v] & 2))
      return false;
  return true;
}

static bool attribute_is(const char *name, size_t len, const char *what) {
  return len == strlen(what) && memcmp(name, what, len) == 0;
}

/* hwloc's parser loses an attribute glued to a stray byte, and crashes on
 * what is missing then; it dereferences NULL on an object that has a cpuset
 * but no complete_cpuset (or the reverse; a nodeset alone likewise).  lstopo
 * always writes both. */
static struct object_tag scan_object(const char *tag, const char *end) {
  struct object_tag t = { .well_formed = false, .os_index = ULONG_MAX };
  const char *p = tag + strlen("<object");
  for (;;) {
    const char *name = p;
    while (p < end && is_space(*p))
      p++;
    bool spaced = p > name;
    if (p == end || (p[0] == '/' && p + 1 == end)) {
      t.well_formed = true;
      return t;
    }
    name = p;
    while (p < end && is_name_char(*p))
      p++;
    size_t len = (size_t)(p - name);
    if (!spaced || len == 0 || p + 1 >= end || p[0] != '=' || p[1] != '"')
      return t;
    const char *value = p + 2;
    const char *close = memchr(value, '"', (size_t)(end - value));
    if (close == NULL)
      return t;
    static const struct {
      const char *name;
      unsigned bit;
    } sets[] = { { "cpuset", SET_CPUSET },
                 { "complete_cpuset", SET_COMPLETE_CPUSET },
                 { "nodeset", SET_NODESET },
                 { "complete_nodeset", SET_COMPLETE_NODESET } };
    for (size_t i = 0; i < N_OF(sets); i++)
      if (attribute_is(name, len, sets[i].name) && is_bitmap(value, close))
        t.sets |= sets[i].bit;
    if (attribute_is(name, len, "type"))
      t.pu_or_numa = ((size_t)(close - value) == 2 && memcmp(value, "PU", 2) == 0) ||
                     ((size_t)(close - value) == 8 && memcmp(value, "NUMANode", 8) == 0);
    if (attribute_is(name, len, "os_index") && t.os_index == ULONG_MAX)
      t.os_index = value < close && *value >= '0' && *value <= '9' ? strtoul(value, NULL, 10) : ULONG_MAX - 1;
    p = close + 1;
  }
}

static size_t line_of(const char *xml, const char *at) {
  size_t line = 1;
  for (const char *p = xml; p < at; p++)
    line += *p == '\n';
  return line;
}

/* A file cut short (a copy that stopped, a full disk) ends before its
 * </topology>: refused before hwloc reads it, as hwloc's 1.x importer
 * leaks what it built from such a file (its distances) when it fails. */
static int check_xml_end(const char *name, const char *xml, size_t len, struct placer_error **err) {
  static const char close[] = "</topology>";
  size_t n = len;
  while (n > 0 && (is_space(xml[n - 1]) || xml[n - 1] == '\0'))
    n--;
  if (n < sizeof(close) - 1 || memcmp(xml + n - (sizeof(close) - 1), close, sizeof(close) - 1) != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "topology '%s': not a valid hwloc XML topology (corrupt or truncated: it does not end "
                            "with </topology>)",
                            name);
  return 0;
}

/* XML is NUL-terminated. */
static int check_xml_objects(const char *name, const char *xml, struct placer_error **err) {
  for (const char *o = strstr(xml, "<object"); o; o = strstr(o + 1, "<object")) {
    const char *end = strchr(o, '>');
    if (end == NULL)
      break;
    struct object_tag t = scan_object(o, end);
    bool cpusets = (t.sets & SET_CPUSET) != 0, complete_cpusets = (t.sets & SET_COMPLETE_CPUSET) != 0;
    bool nodesets = (t.sets & SET_NODESET) != 0, complete_nodesets = (t.sets & SET_COMPLETE_NODESET) != 0;
    if (!t.well_formed || cpusets != complete_cpusets || nodesets != complete_nodesets)
      return placer_error_set(
          err, PLACER_EXIT_USAGE, 0,
          "topology '%s': line %zu: a malformed object, or one with a cpuset or nodeset but not its "
          "complete_ counterpart, or one not in bitmap syntax (corrupt file)",
          name, line_of(xml, o));
    /* a PU or NUMA node without os_index (or a huge one) makes hwloc set bit
     * 2^32-1 of a bitmap: 512 MiB for one object */
    if (t.pu_or_numa && t.os_index >= PLACER_TOPOLOGY_MAX_OS_INDEX)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                              "topology '%s': line %zu: a PU or NUMA node without an os_index below %u (corrupt file)",
                              name, line_of(xml, o), PLACER_TOPOLOGY_MAX_OS_INDEX);
  }
  return 0;
}

/* XML_PATH NULL and XML NULL: the live machine; else the file, or the buffer
 * XML of LEN bytes (named NAME in messages). */
static void unmap_textfile(struct placer_textfile_map *map) {
  placer_textfile_unmap(map);
}

static int load_hwloc(struct placer_topology *topo, const char *xml_path, const char *xml, size_t len,
                      struct placer_error **err) {
  const char *name = topo->source;
  /* a file is mapped, not copied: NUL-terminated as hwloc wants it */
  __attribute__((cleanup(unmap_textfile))) struct placer_textfile_map map = { 0 };
  if (xml_path) {
    if (placer_textfile_map_input("topology", xml_path, PLACER_TEXTFILE_MAX_BYTES, &map, err) < 0)
      return -1;
    xml = map.text;
    len = map.len;
  }
  /* hwloc prints a box of text on stderr about a corrupt XML file before it
   * fails or repairs it; placer's error is one line (the user may still ask
   * for hwloc's with HWLOC_HIDE_ERRORS=0) */
  if (xml)
    setenv("HWLOC_HIDE_ERRORS", "2", 0);
  if (hwloc_topology_init(&topo->hw) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "hwloc_topology_init");
  hwloc_topology_set_io_types_filter(topo->hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  /* objects placer never reads: a third of a big topology's, and every one
   * costs memory hwloc touches for the first time */
  static const hwloc_obj_type_t unused[] = { HWLOC_OBJ_L1CACHE,  HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE,
                                             HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE,  HWLOC_OBJ_L5CACHE,
                                             HWLOC_OBJ_MEMCACHE, HWLOC_OBJ_MISC };
  for (size_t i = 0; i < N_OF(unused); i++)
    hwloc_topology_set_type_filter(topo->hw, unused[i], HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_flags(topo->hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (xml == NULL) {
    if (hwloc_topology_load(topo->hw) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "hwloc_topology_load");
    return 0;
  }
  char head[4096];
  size_t n = len < sizeof(head) - 1 ? len : sizeof(head) - 1;
  memcpy(head, xml, n);
  head[n] = '\0';
  if (check_xml_header(name, head, n, err) < 0)
    return -1;
  /* hwloc wants a NUL-terminated buffer, its size counting the NUL: a
   * mapped file is; bytes from a caller (the fuzz harness) are copied */
  cleanup_free char *copy = NULL;
  if (xml_path == NULL) {
    if ((copy = malloc(len + 1)) == NULL)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "topology '%s'", name);
    memcpy(copy, xml, len);
    copy[len] = '\0';
    xml = copy;
  }
  if (check_xml_end(name, xml, len, err) < 0 || check_xml_objects(name, xml, err) < 0)
    return -1;
  if (len >= INT_MAX)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': too large", name);
  /* the one read of the file: a program's guard (cli/xml-guard.c) turns a
   * crash in hwloc's importer into one line and exit 2 */
  if (xml_guard)
    xml_guard->enter(name);
  int rc = hwloc_topology_set_xmlbuffer(topo->hw, xml, (int)len + 1);
  if (rc == 0)
    rc = hwloc_topology_load(topo->hw) < 0 ? 1 : 0;
  int saved = errno;
  if (xml_guard)
    xml_guard->leave();
  if (rc < 0)
    return placer_error_errno(err, PLACER_EXIT_USAGE, saved, "topology '%s': hwloc cannot read it", name);
  if (rc > 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, saved,
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
  topo->l2_clusters = calloc(n_pus > 0 ? n_pus : 1, sizeof(*topo->l2_clusters));
  if (topo->cores == NULL || topo->l2_clusters == NULL)
    return -1;
  hwloc_obj_t last_core = NULL, last_l2 = NULL;
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
    /* an L2 over more than this core: a cluster (depth-first order keeps a
     * cluster's cores together) */
    hwloc_obj_t l2 = hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_L2CACHE, owner);
    c->l2_cluster = -1;
    if (l2 && !hwloc_bitmap_isequal(l2->cpuset, owner->cpuset)) {
      if (l2 != last_l2) {
        struct placer_cache_group *g = &topo->l2_clusters[topo->n_l2_clusters++];
        g->size_bytes = l2->attr->cache.size;
        if ((g->cpus = hwloc_bitmap_dup(l2->cpuset)) == NULL)
          return -1;
      }
      last_l2 = l2;
      c->l2_cluster = (int)topo->n_l2_clusters - 1;
    }
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
  for (size_t i = 0; i < N_OF(types); i++)
    if (hwloc_get_type_depth(topo->hw, types[i]) == HWLOC_TYPE_DEPTH_MULTIPLE)
      return placer_error_set(err, PLACER_EXIT_USAGE, 0, "topology '%s': %s objects at several depths", topo->source,
                              hwloc_obj_type_string(types[i]));
  return 0;
}

static int topology_load(const char *xml_path, const char *name, const char *xml, size_t len,
                         struct placer_topology **out, struct placer_error **err) {
  struct placer_topology *topo = calloc(1, sizeof(*topo));
  if (topo == NULL)
    return placer_error_oom(err, "load topology");
  topo->is_live = xml_path == NULL && xml == NULL;
  topo->source = strdup(xml_path ? xml_path : xml ? name : "live");
  if (topo->source == NULL) {
    placer_error_oom(err, "load topology");
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
  for (size_t i = 0; i < topo->n_l2_clusters; i++)
    hwloc_bitmap_free(topo->l2_clusters[i].cpus);
  placer_topology_free_net(topo);
  placer_topology_free_io(topo);
  placer_irq_inventory_free(topo->irqs);
  free(topo->irqs_error);
  free(topo->numa_nodes);
  free(topo->cores);
  free(topo->l3_groups);
  free(topo->l2_clusters);
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
