/* export --format libvirt --merge DOMAIN.xml: the operator's domain (virsh
 * dumpxml) written whole with the plan's placement of the vm instance it
 * names (libxml2's tree: read, placer's elements set, serialized).  placer
 * owns <vcpu>'s cpuset and placement, <cputune>'s vcpupin and emulatorpin
 * and <numatune>'s <memory>; everything else stays, the vCPU count of
 * <vcpu> among it (vcpupin covers every vCPU it has), <cputune>'s shares,
 * period, quota and iothreadpin, <numatune>'s memnode; an IOThread without
 * an iothreadpin gets one, on the emulator's CPUs.  What contradicts
 * the plan is refused with one line: an IOThread pinned outside the guest's
 * CPUs, a guest node's memory bound outside its nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "export/export-internal.h"
#include "lib/cpulist.h"

/* libvirt's own limit on a domain's vCPUs is far lower. */
#define MERGE_MAX_VCPUS 16384

static xmlNodePtr child(xmlNodePtr parent, const char *name) {
  for (xmlNodePtr c = parent ? parent->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
      return c;
  return NULL;
}

static xmlNodePtr child_or_new(xmlNodePtr parent, const char *name) {
  xmlNodePtr c = child(parent, name);
  return c ? c : xmlNewChild(parent, NULL, (const xmlChar *)name, NULL);
}

static void remove_children(xmlNodePtr parent, const char *name) {
  for (xmlNodePtr c = parent->children, next; c; c = next) {
    next = c->next;
    if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) {
      xmlUnlinkNode(c);
      xmlFreeNode(c);
    }
  }
}

/* Does attribute ATTR of NODE hold a cpu list inside WITHIN?  (true when it
 * has none) */
static bool list_within(xmlNodePtr node, const char *attr, hwloc_const_bitmap_t within, char **value) {
  xmlChar *v = xmlGetProp(node, (const xmlChar *)attr);
  *value = v ? strdup((const char *)v) : NULL;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  bool ok = v == NULL || (placer_cpulist_parse((const char *)v, set) == 0 && hwloc_bitmap_isincluded(set, within));
  hwloc_bitmap_free(set);
  xmlFree(v);
  return ok;
}

struct merge {
  const struct placer_export_input *in;
  struct placer_export_writer *w;
  const char *path;
  xmlDocPtr doc;
  xmlNodePtr domain;
  const struct placer_instance *inst;
  const char *name;
  unsigned vcpus;
  bool vcpus_mine; /* the domain had no <vcpu>: placer's count */
};

static int refuse(struct merge *m, struct placer_error **err, const char *why, const char *a, const char *b) {
  char *text = NULL;
  if (asprintf(&text, why, a ? a : "?", b ? b : "?") < 0)
    return placer_error_oom(err, NULL);
  int rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--merge %s: %s", m->path, text);
  free(text);
  return rc;
}

static int find_instance(struct merge *m, struct placer_error **err) {
  xmlNodePtr name = child(m->domain, "name");
  xmlChar *text = name ? xmlNodeGetContent(name) : NULL;
  int rc = 0;
  for (size_t i = 0; text && i < m->in->plan->n_instances && m->inst == NULL; i++) {
    const struct placer_instance *inst = &m->in->plan->instances[i];
    const char *domain = inst->kind == PLACER_KIND_VM ? export_domain_name(m->in, inst) : NULL;
    if (domain && strcmp(domain, (const char *)text) == 0) {
      m->inst = inst;
      m->name = domain;
    }
  }
  if (text == NULL)
    rc = refuse(m, err, "the domain has no <name>%s%s", "", "");
  else if (m->inst == NULL)
    rc = refuse(m, err, "domain '%s' is no vm instance's of the plan (its qemu_name match, or --map INSTANCE=%s)",
                (const char *)text, (const char *)text);
  xmlFree(text);
  return rc;
}

/* The domain's vCPUs: <vcpu>'s count, kept; placer's when it has none. */
static int vcpu_count(struct merge *m, struct placer_error **err) {
  xmlNodePtr vcpu = child(m->domain, "vcpu");
  if (vcpu == NULL) {
    m->vcpus = export_vcpus(m->in, m->inst);
    m->vcpus_mine = true;
    return 0;
  }
  xmlChar *text = xmlNodeGetContent(vcpu);
  char *end = NULL;
  unsigned long n = text ? strtoul((const char *)text, &end, 10) : 0;
  bool ok = text && end != (char *)text && *end == '\0' && n >= 1 && n <= MERGE_MAX_VCPUS;
  int rc = ok ? 0 : refuse(m, err, "<vcpu>%s</vcpu> is not a count of vCPUs%s", text ? (const char *)text : "", "");
  xmlFree(text);
  m->vcpus = (unsigned)n;
  return rc;
}

/* Every ELEMENT under PARENT whose ATTR lists CPUs or nodes outside WITHIN
 * is refused with WHY (its value, then WITHIN's). */
static int check_within(struct merge *m, const char *parent, const char *element, const char *attr,
                        hwloc_const_bitmap_t within, const char *why, struct placer_error **err) {
  for (xmlNodePtr c = child(m->domain, parent) ? child(m->domain, parent)->children : NULL; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, element) != 0)
      continue;
    char *value = NULL;
    bool ok = list_within(c, attr, within, &value);
    int rc = ok ? 0 : refuse(m, err, why, value, export_cpus(m->w, within));
    free(value);
    if (rc < 0)
      return rc;
  }
  return 0;
}

/* What stays but must agree with the plan: IOThreads on the guest's CPUs
 * (or its emulator's), a guest node's memory on its nodes. */
static int check_kept(struct merge *m, struct placer_error **err) {
  hwloc_bitmap_t allowed = hwloc_bitmap_dup(m->inst->cpus);
  hwloc_bitmap_or(allowed, allowed, export_emulator_cpus(m->in->plan, m->inst));
  int rc =
      check_within(m, "cputune", "iothreadpin", "cpuset", allowed,
                   "<iothreadpin cpuset='%s'> puts an IOThread outside the guest's CPUs and its emulator's (%s)", err);
  if (rc == 0)
    rc = check_within(m, "numatune", "memnode", "nodeset", m->inst->mems,
                      "<memnode nodeset='%s'> binds a guest node's memory outside the plan's NUMA node(s) %s", err);
  hwloc_bitmap_free(allowed);
  return rc;
}

static void set_prop(xmlNodePtr node, const char *name, const char *value) {
  xmlSetProp(node, (const xmlChar *)name, (const xmlChar *)value);
}

/* Is IOThread ID pinned by an <iothreadpin> of CPUTUNE? */
static bool iothread_pinned(xmlNodePtr cputune, const char *id) {
  for (xmlNodePtr c = cputune->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "iothreadpin") != 0)
      continue;
    xmlChar *v = xmlGetProp(c, (const xmlChar *)"iothread");
    bool same = v && strcmp((const char *)v, id) == 0;
    xmlFree(v);
    if (same)
      return true;
  }
  return false;
}

/* IOThreads without an <iothreadpin> would run on <vcpu cpuset>, beside
 * the vCPUs: they get the emulator's CPUs (qemu's own I/O work, as the
 * virsh format pins them); the operator's iothreadpins stay. */
static void pin_iothreads(struct merge *m, xmlNodePtr cputune, const char *cpus) {
  xmlNodePtr ids = child(m->domain, "iothreadids"), count = child(m->domain, "iothreads");
  xmlChar *n_text = count ? xmlNodeGetContent(count) : NULL;
  unsigned long n = n_text ? strtoul((const char *)n_text, NULL, 10) : 0;
  xmlFree(n_text);
  for (unsigned long i = 1; ids == NULL && i <= n && i <= MERGE_MAX_VCPUS; i++) {
    char id[24];
    snprintf(id, sizeof(id), "%lu", i);
    if (!iothread_pinned(cputune, id)) {
      xmlNodePtr pin = xmlNewChild(cputune, NULL, (const xmlChar *)"iothreadpin", NULL);
      set_prop(pin, "iothread", id);
      set_prop(pin, "cpuset", cpus);
    }
  }
  for (xmlNodePtr c = ids ? ids->children : NULL; c; c = c->next) {
    xmlChar *id = c->type == XML_ELEMENT_NODE ? xmlGetProp(c, (const xmlChar *)"id") : NULL;
    if (id && !iothread_pinned(cputune, (const char *)id)) {
      xmlNodePtr pin = xmlNewChild(cputune, NULL, (const xmlChar *)"iothreadpin", NULL);
      set_prop(pin, "iothread", (const char *)id);
      set_prop(pin, "cpuset", cpus);
    }
    xmlFree(id);
  }
}

static void place(struct merge *m) {
  struct placer_export_writer *w = m->w;
  const struct placer_instance *inst = m->inst;
  char count[16];
  snprintf(count, sizeof(count), "%u", m->vcpus);
  xmlNodePtr vcpu = child(m->domain, "vcpu");
  if (vcpu == NULL)
    vcpu = xmlNewTextChild(m->domain, NULL, (const xmlChar *)"vcpu", (const xmlChar *)count);
  set_prop(vcpu, "placement", "static");
  set_prop(vcpu, "cpuset", export_cpus(w, inst->cpus));
  xmlNodePtr cputune = child_or_new(m->domain, "cputune");
  remove_children(cputune, "vcpupin");
  remove_children(cputune, "emulatorpin");
  for (unsigned k = 0; inst->pin_vcpus && k < m->vcpus; k++) {
    xmlNodePtr pin = xmlNewChild(cputune, NULL, (const xmlChar *)"vcpupin", NULL);
    char text[16];
    snprintf(text, sizeof(text), "%u", k);
    set_prop(pin, "vcpu", text);
    snprintf(text, sizeof(text), "%d", placer_cpulist_nth(inst->cpus, k));
    set_prop(pin, "cpuset", text);
  }
  const char *emulator_cpus = export_cpus(w, export_emulator_cpus(w->in->plan, inst));
  xmlNodePtr emulator = xmlNewChild(cputune, NULL, (const xmlChar *)"emulatorpin", NULL);
  set_prop(emulator, "cpuset", emulator_cpus);
  pin_iothreads(m, cputune, emulator_cpus);
  xmlNodePtr numatune = child_or_new(m->domain, "numatune");
  remove_children(numatune, "memory");
  xmlNodePtr memory = xmlNewNode(NULL, (const xmlChar *)"memory");
  set_prop(memory, "mode", "strict");
  set_prop(memory, "nodeset", export_cpus(w, inst->mems));
  if (numatune->children)
    xmlAddPrevSibling(numatune->children, memory);
  else
    xmlAddChild(numatune, memory);
}

static int parse(struct merge *m, struct placer_error **err) {
  const char *text = m->in->merge_text;
  xmlResetLastError();
  m->doc = xmlReadMemory(text, (int)strlen(text), m->path, NULL,
                         XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (m->doc == NULL) {
    const xmlError *e = xmlGetLastError();
    char *msg = e && e->message ? strdup(e->message) : strdup("not XML");
    if (msg && *msg && msg[strlen(msg) - 1] == '\n')
      msg[strlen(msg) - 1] = '\0';
    int rc = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--merge %s:%d: %s", m->path, e ? e->line : 0,
                              msg ? msg : "not XML");
    free(msg);
    return rc;
  }
  if (m->doc->intSubset || m->doc->extSubset)
    return refuse(m, err, "a DOCTYPE (entities placer does not expand; a domain from virsh dumpxml has none)%s%s", "",
                  "");
  m->domain = xmlDocGetRootElement(m->doc);
  if (m->domain == NULL || strcmp((const char *)m->domain->name, "domain") != 0)
    return refuse(m, err, "not a libvirt domain (its root element is <%s>)%s",
                  m->domain ? (const char *)m->domain->name : "", "");
  return 0;
}

static void write_unit(struct merge *m) {
  struct placer_export_writer *w = m->w;
  FILE *f = export_unit(w, "%s.xml", m->inst->name);
  if (f == NULL)
    return;
  fputs("<!-- ", f);
  export_comment_text(f, m->inst->name, PLACER_EXPORT_XML);
  fputs(" (role ", f);
  export_comment_text(f, m->inst->role, PLACER_EXPORT_XML);
  fputs("): domain '", f);
  export_comment_text(f, m->name, PLACER_EXPORT_XML);
  fputs("' of ", f);
  export_comment_text(f, m->path, PLACER_EXPORT_XML);
  fprintf(f,
          " with the plan's placement: its %u vCPUs (%s) on CPUs %s, the emulator on %s, memory on NUMA node(s) %s; "
          "everything else as it was. virsh define this file: the domain takes it from its next start. -->\n",
          m->vcpus, m->vcpus_mine ? "placer's count: the domain had no <vcpu>" : "its own count",
          export_cpus(w, m->inst->cpus), export_cpus(w, export_emulator_cpus(w->in->plan, m->inst)),
          export_cpus(w, m->inst->mems));
  xmlBufferPtr buf = xmlBufferCreate();
  if (buf == NULL || xmlNodeDump(buf, m->doc, m->domain, 0, 1) < 0) {
    w->failed = true;
  } else {
    fputs((const char *)xmlBufferContent(buf), f);
    fputs("\n", f);
  }
  xmlBufferFree(buf);
}

int export_libvirt_merge(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  struct merge m = { .in = in, .w = w, .path = in->merge_path ? in->merge_path : "-" };
  int rc = parse(&m, err);
  if (rc == 0)
    rc = find_instance(&m, err);
  if (rc == 0)
    rc = vcpu_count(&m, err);
  if (rc == 0)
    rc = check_kept(&m, err);
  if (rc == 0) {
    place(&m);
    write_unit(&m);
    for (size_t i = 0; i < in->plan->n_instances; i++)
      if (in->plan->instances[i].kind == PLACER_KIND_VM && &in->plan->instances[i] != m.inst)
        export_note(w, "%s: not written: --merge writes the domain it is given (%s); run again with its domain's XML",
                    in->plan->instances[i].name, m.name);
  }
  xmlFreeDoc(m.doc);
  return rc;
}
