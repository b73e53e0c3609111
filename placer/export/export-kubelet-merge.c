/* export --format kubelet --merge KUBELET.yaml: the operator's whole
 * KubeletConfiguration with the plan's keys set in it (libyaml's document
 * API: loaded, copied key by key, emitted), everything else as it was; one
 * line and nothing written when one of its keys contradicts the plan (an
 * enforced system-reserved cgroup, a feature gate turned off, kubeReserved
 * above what the plan keeps, a percentage eviction threshold). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "export/export-kubelet.h"

/* A document copied node by node: aliases are expanded, so a file of
 * nested aliases could grow without end. */
#define MERGE_MAX_NODES 100000

struct kubelet_merge {
  struct placer_export_writer *w;
  const struct kubelet_plan *kp;
  yaml_document_t src, dst;
  bool has_src, has_dst; /* the documents to delete */
  size_t copied;
  uint64_t kube_reserved, eviction; /* bytes */
  const char *eviction_from;        /* how the eviction threshold was found, for the comment */
  bool failed;
};

static yaml_node_t *lookup(yaml_document_t *doc, yaml_node_t *map, const char *key) {
  if (map == NULL || map->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
      return yaml_document_get_node(doc, p->value);
  }
  return NULL;
}

static const char *scalar(yaml_node_t *n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A Kubernetes quantity of bytes: digits and a suffix (Ki..Ei, k..E, or
 * none).  -1 for anything else (fractions, exponents, a percentage). */
static int quantity_bytes(const char *s, uint64_t *out) {
  static const struct {
    const char *suffix;
    uint64_t factor;
  } units[] = { { "", 1 },
                { "Ki", 1ULL << 10 },
                { "Mi", 1ULL << 20 },
                { "Gi", 1ULL << 30 },
                { "Ti", 1ULL << 40 },
                { "Pi", 1ULL << 50 },
                { "Ei", 1ULL << 60 },
                { "k", 1000ULL },
                { "M", 1000000ULL },
                { "G", 1000000000ULL },
                { "T", 1000000000000ULL },
                { "P", 1000000000000000ULL },
                { "E", 1000000000000000000ULL } };
  size_t digits = s ? strspn(s, "0123456789") : 0;
  if (digits == 0 || digits > 19)
    return -1;
  uint64_t value = strtoull(s, NULL, 10);
  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
    if (strcmp(s + digits, units[i].suffix) == 0) {
      if (value > UINT64_MAX / units[i].factor)
        return -1;
      *out = value * units[i].factor;
      return 0;
    }
  return -1;
}

static int refuse(struct kubelet_merge *m, struct placer_error **err, const char *fmt, const char *a, const char *b) {
  char *why = NULL;
  if (asprintf(&why, fmt, a, b) < 0)
    return placer_error_oom(err, NULL);
  int rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--merge %s: %s", m->w->in->merge_path, why);
  free(why);
  return rc;
}

/* The keys of the file that contradict the plan, and what it reserves. */
static int check(struct kubelet_merge *m, yaml_node_t *root, struct placer_error **err) {
  yaml_document_t *d = &m->src;
  const char *kind = scalar(lookup(d, root, "kind")), *api = scalar(lookup(d, root, "apiVersion"));
  if (kind == NULL || strcmp(kind, "KubeletConfiguration") != 0 || api == NULL ||
      strcmp(api, "kubelet.config.k8s.io/v1beta1") != 0)
    return refuse(m, err, "not a KubeletConfiguration of kubelet.config.k8s.io/v1beta1 (kind '%s', apiVersion '%s')",
                  kind ? kind : "", api ? api : "");
  yaml_node_t *enforce = lookup(d, root, "enforceNodeAllocatable");
  for (yaml_node_item_t *i = enforce && enforce->type == YAML_SEQUENCE_NODE ? enforce->data.sequence.items.start : NULL;
       i && i < enforce->data.sequence.items.top; i++) {
    const char *v = scalar(yaml_document_get_node(d, *i));
    if (v && (strcmp(v, "system-reserved") == 0 || strcmp(v, "kube-reserved") == 0))
      return refuse(m, err,
                    "enforceNodeAllocatable enforces %s: the kubelet would cap its cgroup at the reservation, which "
                    "here is the plan's (the OSDs' and the MDS's memory among it), and confine it to "
                    "reservedSystemCPUs%s; keep enforceNodeAllocatable to [pods]",
                    v, "");
  }
  yaml_node_t *gates = lookup(d, root, "featureGates");
  static const char *const must_stay_on[] = { "CPUManager", "MemoryManager", "TopologyManager" };
  for (size_t i = 0; i < sizeof(must_stay_on) / sizeof(must_stay_on[0]); i++) {
    const char *v = scalar(lookup(d, gates, must_stay_on[i]));
    if (v && strcmp(v, "false") == 0)
      return refuse(m, err, "featureGates %s: false turns off what the plan is written for%s", must_stay_on[i], "");
  }
  const char *beta = scalar(lookup(d, gates, "CPUManagerPolicyBetaOptions"));
  if (m->kp->beta_gate && beta && strcmp(beta, "false") == 0)
    return refuse(m, err,
                  "featureGates CPUManagerPolicyBetaOptions: false turns off the CPU manager options the plan needs "
                  "in kubelet %s (strict-cpu-reservation%s)",
                  m->w->target, m->kp->uncore_cache ? ", prefer-align-cpus-by-uncorecache" : "");
  const char *alpha = scalar(lookup(d, gates, "CPUManagerPolicyAlphaOptions"));
  if (m->kp->alpha_gate && alpha && strcmp(alpha, "false") == 0)
    return refuse(m, err,
                  "featureGates CPUManagerPolicyAlphaOptions: false turns off options that kubelet %s has as alpha "
                  "(strict-cpu-reservation%s)",
                  m->w->target, m->kp->uncore_cache ? ", prefer-align-cpus-by-uncorecache" : "");
  const char *socket = scalar(lookup(d, lookup(d, root, "cpuManagerPolicyOptions"), "align-by-socket"));
  if (socket && strcmp(socket, "true") == 0 && strcmp(m->kp->topology_policy, "single-numa-node") == 0)
    return refuse(m, err,
                  "cpuManagerPolicyOptions align-by-socket: the kubelet refuses it with topologyManagerPolicy %s, "
                  "which the plan's guests need (each on one NUMA node)%s",
                  m->kp->topology_policy, "");
  const char *kube = scalar(lookup(d, lookup(d, root, "kubeReserved"), "memory"));
  if (kube && quantity_bytes(kube, &m->kube_reserved) < 0)
    return refuse(m, err,
                  "kubeReserved memory '%s' is not a quantity of bytes placer reads (digits and Ki, Mi, Gi, "
                  "...)%s",
                  kube, "");
  if (m->kube_reserved > m->kp->kept_bytes)
    return refuse(m, err,
                  "kubeReserved memory %s is more than the plan keeps from pods (%s): systemReserved would be "
                  "negative",
                  kube, export_quantity(m->w, m->kp->kept_bytes));
  yaml_node_t *eviction = lookup(d, root, "evictionHard");
  m->eviction = KUBELET_EVICTION_DEFAULT_BYTES;
  m->eviction_from = "evictionHard's default memory.available";
  if (eviction) {
    const char *avail = scalar(lookup(d, eviction, "memory.available"));
    const char *merge_defaults = scalar(lookup(d, root, "mergeDefaultEvictionSettings"));
    if (avail && quantity_bytes(avail, &m->eviction) < 0)
      return refuse(m, err,
                    "evictionHard memory.available '%s' is not a quantity of bytes (a percentage is of the memory "
                    "the kubelet reads at start, which the Memory Manager's sum must match exactly)%s",
                    avail, "");
    if (avail)
      m->eviction_from = "your evictionHard memory.available";
    else if (merge_defaults == NULL || strcmp(merge_defaults, "true") != 0) {
      m->eviction = 0; /* a set evictionHard takes no default for the signals it leaves out */
      m->eviction_from = "your evictionHard, which has no memory.available";
    }
  }
  return 0;
}

/* ---- the copy */

static int copy_node(struct kubelet_merge *m, yaml_node_t *n);

static int add_scalar(struct kubelet_merge *m, const char *value, yaml_scalar_style_t style) {
  int id = yaml_document_add_scalar(&m->dst, NULL, (yaml_char_t *)value, (int)strlen(value), style);
  m->failed |= id == 0;
  return id;
}

static void add_pair(struct kubelet_merge *m, int map, int key, int value) {
  if (map == 0 || key == 0 || value == 0 || !yaml_document_append_mapping_pair(&m->dst, map, key, value))
    m->failed = true;
}

static int copy_node(struct kubelet_merge *m, yaml_node_t *n) {
  if (n == NULL || ++m->copied > MERGE_MAX_NODES) {
    m->failed = true;
    return 0;
  }
  if (n->type == YAML_SCALAR_NODE)
    return yaml_document_add_scalar(&m->dst, n->tag, n->data.scalar.value, (int)n->data.scalar.length,
                                    n->data.scalar.style);
  if (n->type == YAML_SEQUENCE_NODE) {
    int id = yaml_document_add_sequence(&m->dst, n->tag, n->data.sequence.style);
    for (yaml_node_item_t *i = n->data.sequence.items.start; id && i < n->data.sequence.items.top; i++) {
      int item = copy_node(m, yaml_document_get_node(&m->src, *i));
      if (item == 0 || !yaml_document_append_sequence_item(&m->dst, id, item))
        return 0;
    }
    return id;
  }
  int id = yaml_document_add_mapping(&m->dst, n->tag, n->data.mapping.style);
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; id && p < n->data.mapping.pairs.top; p++)
    add_pair(m, id, copy_node(m, yaml_document_get_node(&m->src, p->key)),
             copy_node(m, yaml_document_get_node(&m->src, p->value)));
  return id;
}

/* A copy of mapping OLD (or a new one) where the keys of NEW_KEYS get
 * NEW_VALUES (scalars; double-quoted when QUOTED). */
static int merged_map(struct kubelet_merge *m, yaml_node_t *old, const char *const *new_keys,
                      const char *const *new_values, size_t n, bool quoted) {
  int id = yaml_document_add_mapping(&m->dst, NULL, YAML_BLOCK_MAPPING_STYLE);
  bool *done = calloc(n ? n : 1, sizeof(*done));
  if (done == NULL) {
    m->failed = true;
    return 0;
  }
  yaml_scalar_style_t style = quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE;
  for (yaml_node_pair_t *p = old && old->type == YAML_MAPPING_NODE ? old->data.mapping.pairs.start : NULL;
       p && p < old->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&m->src, p->key);
    size_t i = 0;
    while (i < n && !(k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, new_keys[i]) == 0))
      i++;
    if (i < n) {
      add_pair(m, id, copy_node(m, k), add_scalar(m, new_values[i], style));
      done[i] = true;
    } else {
      add_pair(m, id, copy_node(m, k), copy_node(m, yaml_document_get_node(&m->src, p->value)));
    }
  }
  for (size_t i = 0; i < n; i++)
    if (!done[i])
      add_pair(m, id, add_scalar(m, new_keys[i], YAML_PLAIN_SCALAR_STYLE), add_scalar(m, new_values[i], style));
  free(done);
  return id;
}

static int reserved_memory(struct kubelet_merge *m) {
  int seq = yaml_document_add_sequence(&m->dst, NULL, YAML_BLOCK_SEQUENCE_STYLE);
  for (size_t n = 0; n < m->kp->n_nodes; n++) {
    uint64_t bytes = m->kp->node_bytes[n] + (n == 0 ? m->eviction : 0);
    if (bytes == 0)
      continue;
    char node[16];
    snprintf(node, sizeof(node), "%u", m->kp->node_os[n]);
    const char *mem_key = "memory", *mem_value = export_quantity(m->w, bytes);
    int item = yaml_document_add_mapping(&m->dst, NULL, YAML_BLOCK_MAPPING_STYLE);
    add_pair(m, item, add_scalar(m, "numaNode", YAML_PLAIN_SCALAR_STYLE), add_scalar(m, node, YAML_PLAIN_SCALAR_STYLE));
    add_pair(m, item, add_scalar(m, "limits", YAML_PLAIN_SCALAR_STYLE),
             merged_map(m, NULL, &mem_key, &mem_value, 1, false));
    if (item == 0 || !yaml_document_append_sequence_item(&m->dst, seq, item))
      m->failed = true;
  }
  return seq;
}

/* The value of top-level KEY that placer owns, or 0 when it owns no such key. */
static int owned_value(struct kubelet_merge *m, yaml_node_t *root, const char *key) {
  const struct kubelet_plan *kp = m->kp;
  yaml_document_t *d = &m->src;
  if (strcmp(key, "cpuManagerPolicy") == 0)
    return add_scalar(m, "static", YAML_PLAIN_SCALAR_STYLE);
  if (strcmp(key, "reservedSystemCPUs") == 0)
    return add_scalar(m, kp->reserved, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
  if (strcmp(key, "topologyManagerPolicy") == 0)
    return add_scalar(m, kp->topology_policy, YAML_PLAIN_SCALAR_STYLE);
  if (strcmp(key, "memoryManagerPolicy") == 0)
    return add_scalar(m, "Static", YAML_PLAIN_SCALAR_STYLE);
  if (strcmp(key, "reservedMemory") == 0)
    return reserved_memory(m);
  if (strcmp(key, "cpuManagerPolicyOptions") == 0) {
    const char *keys[3], *values[3] = { "true", "true", "true" };
    size_t n = 0;
    if (kp->full_pcpus_only)
      keys[n++] = "full-pcpus-only";
    if (kp->strict)
      keys[n++] = "strict-cpu-reservation";
    if (kp->uncore_cache)
      keys[n++] = "prefer-align-cpus-by-uncorecache";
    return merged_map(m, lookup(d, root, key), keys, values, n, true);
  }
  if (strcmp(key, "systemReserved") == 0) {
    const char *k = "memory", *v = export_quantity(m->w, kp->kept_bytes - m->kube_reserved);
    return merged_map(m, lookup(d, root, key), &k, &v, 1, false);
  }
  if (strcmp(key, "featureGates") == 0 && kp->alpha_gate) {
    const char *k = "CPUManagerPolicyAlphaOptions", *v = "true";
    return merged_map(m, lookup(d, root, key), &k, &v, 1, false);
  }
  return 0;
}

static const char *const owned_keys[] = { "featureGates",       "cpuManagerPolicy",      "cpuManagerPolicyOptions",
                                          "reservedSystemCPUs", "topologyManagerPolicy", "memoryManagerPolicy",
                                          "systemReserved",     "reservedMemory" };

static void build(struct kubelet_merge *m, yaml_node_t *root) {
  int dst_root = yaml_document_add_mapping(&m->dst, NULL, YAML_BLOCK_MAPPING_STYLE);
  bool seen[sizeof(owned_keys) / sizeof(owned_keys[0])] = { false };
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&m->src, p->key);
    const char *key = scalar(k);
    int value = key ? owned_value(m, root, key) : 0;
    for (size_t i = 0; key && i < sizeof(owned_keys) / sizeof(owned_keys[0]); i++)
      seen[i] |= strcmp(owned_keys[i], key) == 0;
    add_pair(m, dst_root, copy_node(m, k), value ? value : copy_node(m, yaml_document_get_node(&m->src, p->value)));
  }
  for (size_t i = 0; i < sizeof(owned_keys) / sizeof(owned_keys[0]); i++) {
    int value = seen[i] ? 0 : owned_value(m, root, owned_keys[i]);
    if (value)
      add_pair(m, dst_root, add_scalar(m, owned_keys[i], YAML_PLAIN_SCALAR_STYLE), value);
  }
}

static int emit(struct kubelet_merge *m, FILE *f) {
  yaml_emitter_t emitter;
  if (!yaml_emitter_initialize(&emitter)) {
    yaml_document_delete(&m->dst);
    return -1;
  }
  yaml_emitter_set_output_file(&emitter, f);
  yaml_emitter_set_width(&emitter, -1);
  yaml_emitter_set_unicode(&emitter, 1);
  int ok = yaml_emitter_open(&emitter) && yaml_emitter_dump(&emitter, &m->dst) && yaml_emitter_close(&emitter);
  yaml_emitter_delete(&emitter);
  return ok ? 0 : -1;
}

int kubelet_merge_load(struct placer_export_writer *w, const struct kubelet_plan *kp, struct kubelet_merge **out,
                       struct placer_error **err) {
  struct kubelet_merge *m = calloc(1, sizeof(*m));
  if (m == NULL)
    return placer_error_oom(err, NULL);
  m->w = w;
  m->kp = kp;
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    free(m);
    return placer_error_oom(err, NULL);
  }
  const char *text = w->in->merge_text;
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  if (!yaml_parser_load(&parser, &m->src)) {
    int rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--merge %s:%zu:%zu: %s", w->in->merge_path,
                              parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                              parser.problem ? parser.problem : "not YAML");
    yaml_parser_delete(&parser);
    free(m);
    return rc;
  }
  m->has_src = true;
  yaml_document_t next;
  bool more = false;
  if (yaml_parser_load(&parser, &next)) {
    more = yaml_document_get_root_node(&next) != NULL;
    yaml_document_delete(&next);
  }
  yaml_parser_delete(&parser);
  yaml_node_t *root = yaml_document_get_root_node(&m->src);
  int rc = 0;
  if (root == NULL || root->type != YAML_MAPPING_NODE || more)
    rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--merge %s: not one YAML mapping (a KubeletConfiguration)",
                          w->in->merge_path);
  if (rc == 0)
    rc = check(m, root, err);
  if (rc == 0 && !yaml_document_initialize(&m->dst, NULL, NULL, NULL, 1, 1))
    rc = placer_error_oom(err, NULL);
  if (rc == 0) {
    m->has_dst = true;
    build(m, root);
    if (m->copied > MERGE_MAX_NODES)
      rc = placer_error_set(err, PLACER_EXIT_USAGE, E2BIG,
                            "--merge %s: more than %d YAML nodes once its aliases are expanded", w->in->merge_path,
                            MERGE_MAX_NODES);
    else if (m->failed)
      rc = placer_error_oom(err, NULL);
  }
  if (rc < 0) {
    kubelet_merge_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

void kubelet_merge_write(struct kubelet_merge *m, FILE *f) {
  struct placer_export_writer *w = m->w;
  fputs("# Your KubeletConfiguration (", f);
  export_comment_text(f, w->in->merge_path, PLACER_EXPORT_YAML);
  fprintf(f,
          ") with the plan's keys set: reservedMemory sums to systemReserved (%s) + kubeReserved memory (%s) + "
          "%s (%s, on the first node).\n",
          export_quantity(w, m->kp->kept_bytes - m->kube_reserved), export_quantity(w, m->kube_reserved),
          m->eviction_from, export_quantity(w, m->eviction));
  m->has_dst = false; /* the emitter consumes the document, written or not */
  if (emit(m, f) < 0)
    w->failed = true;
}

void kubelet_merge_free(struct kubelet_merge *m) {
  if (m == NULL)
    return;
  if (m->has_dst)
    yaml_document_delete(&m->dst);
  if (m->has_src)
    yaml_document_delete(&m->src);
  free(m);
}
