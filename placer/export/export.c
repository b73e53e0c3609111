/* placer export: the formats' ops table, the checks every format shares
 * before its writer runs, the "generated from" header, stdout and --out
 * (export.h), and the plan facts several writers read. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "export/export-internal.h"
#include "lib/cpulist.h"
#include "lib/fileset.h"
#include "profile/profile-run.h"
#include "systemd-unit.h"

#define FORMAT_ENTRY(name) &placer_export_##name,
const struct placer_export_format *const placer_export_formats[] = { PLACER_EXPORT_FORMATS(FORMAT_ENTRY) };
const size_t placer_export_n_formats = N_OF(placer_export_formats);

const struct placer_export_format *placer_export_format_find(const char *name) {
  for (size_t i = 0; name && i < placer_export_n_formats; i++)
    if (strcmp(placer_export_formats[i]->name, name) == 0)
      return placer_export_formats[i];
  return NULL;
}

/* ------------------------------------------------------------------ plan facts */

const struct placer_role_spec *export_role(const struct placer_export_input *in, const struct placer_instance *inst) {
  return in->profile ? placer_profile_role(in->profile, inst->role) : NULL;
}

const char *export_mapped(const struct placer_export_input *in, const struct placer_instance *inst) {
  return in->map ? placer_export_map_get(in->map, inst->name) : NULL;
}

void export_kept_cpus(const struct placer_plan *plan, hwloc_bitmap_t out) {
  hwloc_bitmap_copy(out, plan->reserved_cpus);
  for (size_t i = 0; i < plan->n_instances; i++)
    if (placer_role_kind_is_ceph(plan->instances[i].kind))
      hwloc_bitmap_or(out, out, plan->instances[i].cpus);
}

void export_usable_cpus(const struct placer_plan *plan, hwloc_bitmap_t out) {
  hwloc_bitmap_or(out, plan->reserved_cpus, plan->free_cpus);
  for (size_t i = 0; i < plan->n_instances; i++)
    hwloc_bitmap_or(out, out, plan->instances[i].cpus);
}

unsigned export_pus_per_core(const struct placer_topology *topo, unsigned pu) {
  for (size_t c = 0; topo && c < topo->n_cores; c++)
    if (hwloc_bitmap_isset(topo->cores[c].pus, pu))
      return (unsigned)hwloc_bitmap_weight(topo->cores[c].pus);
  return 1;
}

unsigned export_vcpus(const struct placer_export_input *in, const struct placer_instance *inst) {
  const struct placer_role_spec *role = export_role(in, inst);
  if (role && role->run && role->run->has_vm && role->run->vm.vcpus)
    return role->run->vm.vcpus;
  if (role && role->cpu.threads)
    return role->cpu.threads;
  int first = hwloc_bitmap_first(inst->cpus);
  unsigned per_core = first >= 0 ? export_pus_per_core(in->topo, (unsigned)first) : 1;
  if (role && role->cpu.cores)
    return role->cpu.cores * per_core;
  int weight = hwloc_bitmap_weight(inst->cpus);
  return weight > 0 ? (unsigned)weight : 1;
}

uint64_t export_guest_memory(const struct placer_export_input *in, const struct placer_instance *inst) {
  const struct placer_role_spec *role = export_role(in, inst);
  if (role && role->run && role->run->has_vm && role->run->vm.memory_bytes)
    return role->run->vm.memory_bytes;
  return role && role->has_memory ? role->memory_bytes : 0;
}

const char *export_domain_name(const struct placer_export_input *in, const struct placer_instance *inst) {
  const char *mapped = export_mapped(in, inst);
  if (mapped)
    return mapped;
  return inst->match.kind == PLACER_MATCH_QEMU_NAME ? inst->match.value : NULL;
}

const char *export_ceph_id(const struct placer_export_input *in, const struct placer_instance *inst) {
  const char *mapped = export_mapped(in, inst);
  if (mapped)
    return mapped;
  return inst->match.kind == PLACER_MATCH_CEPH_ID ? inst->match.value : NULL;
}

const char *export_topology_policy(const struct placer_plan *plan) {
  bool vms = false, one_node = true;
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_VM) {
      vms = true;
      one_node = one_node && plan->instances[i].numa_node >= 0;
    }
  return vms && one_node ? "single-numa-node" : "best-effort";
}

const char *export_systemd_unit(const struct placer_export_input *in, const struct placer_instance *inst,
                                char **owned) {
  *owned = NULL;
  const char *mapped = export_mapped(in, inst);
  if (mapped)
    return mapped;
  if (placer_role_kind_is_ceph(inst->kind) && inst->match.kind == PLACER_MATCH_CEPH_ID && inst->match.value &&
      asprintf(owned, "%s@%s.service", placer_role_kind_name(inst->kind), inst->match.value) >= 0)
    return *owned;
  return NULL;
}

bool export_is_service(const char *unit) {
  size_t len = strlen(unit);
  return placer_systemd_unit_name_is_valid(unit) && len > 8 && strcmp(unit + len - 8, ".service") == 0;
}

const char *export_holders(struct placer_export_writer *w, hwloc_const_bitmap_t set) {
  const struct placer_plan *plan = w->in->plan;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (f == NULL) {
    w->failed = true;
    return "";
  }
  bool any = hwloc_bitmap_intersects(set, plan->reserved_cpus);
  fputs(any ? "the host reserve" : "", f);
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = strcmp(plan->instances[j].role, inst->role) == 0 && hwloc_bitmap_intersects(set, plan->instances[j].cpus);
    if (seen || !hwloc_bitmap_intersects(set, inst->cpus))
      continue;
    fprintf(f, "%s%s (%s)", any ? ", " : "", inst->role, placer_role_kind_name(inst->kind));
    any = true;
  }
  if (hwloc_bitmap_intersects(set, plan->free_cpus))
    fprintf(f, "%sthe free CPUs", any ? ", " : "");
  if (fclose(f) != 0 || placer_string_list_take(&w->strings, text) < 0) {
    w->failed = true;
    return "";
  }
  return text;
}

hwloc_const_bitmap_t export_emulator_cpus(const struct placer_plan *plan, const struct placer_instance *inst) {
  if (inst->pin_vcpus && !hwloc_bitmap_iszero(plan->reserved_cpus))
    return plan->reserved_cpus;
  return inst->cpus;
}

void export_reserve_per_node(const struct placer_export_input *in, uint64_t *out) {
  size_t n = in->topo->n_numa_nodes;
  uint64_t total = in->plan->reserved_memory_bytes;
  for (size_t i = 0; i < n; i++)
    out[i] = total / n + (i < total % n ? 1 : 0);
}

const char *export_quantity(struct placer_export_writer *w, uint64_t bytes) {
  char *s = NULL;
  int rc = bytes % (1 << 20) ? asprintf(&s, "%llu", (unsigned long long)bytes)
                             : asprintf(&s, "%lluMi", (unsigned long long)(bytes >> 20));
  if (rc < 0 || placer_string_list_take(&w->strings, s) < 0) {
    w->failed = true;
    return "0";
  }
  return s;
}

uint64_t export_mib_up(uint64_t bytes) {
  return bytes / (1024 * 1024) + (bytes % (1024 * 1024) ? 1 : 0);
}

bool export_has_control(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return true;
  return false;
}

void export_sh_word(FILE *f, const char *s) {
  bool safe = *s != '\0';
  for (const char *p = s; *p && safe; p++)
    safe = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-", *p) != NULL;
  if (safe) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (const char *p = s; *p; p++)
    if (*p == '\'')
      fputs("'\\''", f);
    else
      fputc(*p, f);
  fputc('\'', f);
}

const char *export_cpus(struct placer_export_writer *w, hwloc_const_bitmap_t set) {
  char *s = placer_cpulist_format(set);
  if (placer_string_list_take(&w->strings, s) < 0) {
    w->failed = true;
    return "";
  }
  return s;
}

/* ------------------------------------------------------------------ the writer */

static int close_unit(struct placer_export_writer *w) {
  if (w->f == NULL)
    return 0;
  int rc = fclose(w->f);
  w->f = NULL;
  if (rc != 0) {
    free(w->buf);
    w->buf = NULL;
    w->failed = true;
    return -1;
  }
  w->out->units[w->out->n_units - 1].text = w->buf;
  w->buf = NULL;
  return 0;
}

void export_comment_text(FILE *f, const char *s, enum placer_export_syntax syntax) {
  for (const char *p = s ? s : "?"; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20 || c == 0x7f)
      fputc('?', f);
    else if (syntax == PLACER_EXPORT_XML && c == '-' && p > s && p[-1] == '-')
      fputc('_', f);
    else
      fputc(c, f);
  }
}

static FILE *open_unit(struct placer_export_writer *w, enum placer_export_syntax syntax, const char *name_fmt,
                       va_list ap) {
  if (close_unit(w) < 0)
    return NULL;
  struct placer_export_output *o = w->out;
  struct placer_export_unit *grown = realloc(o->units, (o->n_units + 1) * sizeof(*grown));
  if (grown == NULL) {
    w->failed = true;
    return NULL;
  }
  o->units = grown;
  struct placer_export_unit *u = &o->units[o->n_units];
  *u = (struct placer_export_unit){ NULL, NULL, syntax };
  int rc = vasprintf(&u->name, name_fmt, ap);
  if (rc < 0) {
    w->failed = true;
    return NULL;
  }
  o->n_units++;
  w->f = open_memstream(&w->buf, &w->size);
  if (w->f == NULL) {
    w->failed = true;
    return NULL;
  }
  const struct placer_plan *plan = w->in->plan;
  if (syntax == PLACER_EXPORT_SCRIPT)
    fputs("#!/bin/sh\n", w->f);
  fputs(syntax == PLACER_EXPORT_XML ? "<!-- " : "# ", w->f);
  fprintf(w->f, "Generated by placer export (format %s", w->fmt->name);
  if (w->target)
    fprintf(w->f, ", for %s %s", w->fmt->consumer, w->target);
  fputs(") from profile ", w->f);
  export_comment_text(w->f, plan->profile_name, syntax);
  fputs(" (", w->f);
  export_comment_text(w->f, plan->profile_path ? plan->profile_path : "?", syntax);
  fputs(") on topology ", w->f);
  export_comment_text(w->f, plan->topology_source, syntax);
  fputs(syntax == PLACER_EXPORT_XML ? ". -->\n" : ".\n", w->f);
  if (syntax == PLACER_EXPORT_SCRIPT)
    fputs("set -e\n", w->f);
  return w->f;
}

FILE *export_unit(struct placer_export_writer *w, const char *name_fmt, ...) {
  va_list ap;
  va_start(ap, name_fmt);
  FILE *f = open_unit(w, w->fmt->syntax, name_fmt, ap);
  va_end(ap);
  return f;
}

FILE *export_unit_in(struct placer_export_writer *w, enum placer_export_syntax syntax, const char *name_fmt, ...) {
  va_list ap;
  va_start(ap, name_fmt);
  FILE *f = open_unit(w, syntax, name_fmt, ap);
  va_end(ap);
  return f;
}

void export_sh_code(FILE *f, const char *code) {
  fprintf(f, "%s\n%s%s\n", PLACER_EXPORT_SH_CODE_BEGIN, code, PLACER_EXPORT_SH_CODE_END);
}

void export_note(struct placer_export_writer *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (placer_string_list_vaddf(&w->out->notes, fmt, ap) < 0)
    w->failed = true;
  va_end(ap);
}

/* ------------------------------------------------------------------ checks */

static bool plan_has(const struct placer_plan *plan, bool (*want)(enum placer_role_kind)) {
  for (size_t i = 0; i < plan->n_instances; i++)
    if (want(plan->instances[i].kind))
      return true;
  return false;
}

static bool is_vm(enum placer_role_kind kind) {
  return kind == PLACER_KIND_VM;
}

static bool is_osd_or_mds(enum placer_role_kind kind) {
  return kind == PLACER_KIND_CEPH_OSD || kind == PLACER_KIND_CEPH_MDS;
}

int export_vm_apart(const struct placer_plan *plan, const struct placer_instance *vm, struct placer_error **err) {
  hwloc_bitmap_t both = hwloc_bitmap_alloc();
  const char *with = NULL;
  hwloc_bitmap_and(both, vm->cpus, plan->reserved_cpus);
  if (!hwloc_bitmap_iszero(both))
    with = "the host reserve";
  for (size_t j = 0; j < plan->n_instances && with == NULL; j++) {
    if (!placer_role_kind_is_ceph(plan->instances[j].kind))
      continue;
    hwloc_bitmap_and(both, vm->cpus, plan->instances[j].cpus);
    if (!hwloc_bitmap_iszero(both))
      with = plan->instances[j].name;
  }
  int ret = 0;
  if (with) {
    char *cpus = placer_cpulist_format(both);
    ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                           "%s shares CPUs %s with %s: a VM manager cannot keep them apart (give the VMs a pool of "
                           "their own)",
                           vm->name, cpus ? cpus : "?", with);
    free(cpus);
  }
  hwloc_bitmap_free(both);
  return ret;
}

static int check_vms_apart(const struct placer_plan *plan, struct placer_error **err) {
  for (size_t i = 0; i < plan->n_instances; i++)
    if (plan->instances[i].kind == PLACER_KIND_VM && export_vm_apart(plan, &plan->instances[i], err) < 0)
      return -1;
  return 0;
}

static int check_needs(const struct placer_export_format *fmt, const struct placer_export_input *in,
                       struct placer_error **err) {
  const struct placer_plan *plan = in->plan;
  if ((fmt->needs & PLACER_EXPORT_NEEDS_PINNED) && in->profile && !in->profile->pin)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "profile '%s' pins nothing (pin: false): there are no CPUs to hand over",
                            plan->profile_name);
  if ((fmt->needs & PLACER_EXPORT_NEEDS_VM) && !plan_has(plan, is_vm))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "profile '%s' has no vm instance (a role of kind vm)",
                            plan->profile_name);
  if ((fmt->needs & PLACER_EXPORT_NEEDS_CEPH) && !plan_has(plan, is_osd_or_mds))
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "profile '%s' has no Ceph OSD or MDS instance (a role of kind ceph-osd or ceph-mds)",
                            plan->profile_name);
  if ((fmt->needs & PLACER_EXPORT_GIVES_VM_CPUS) && check_vms_apart(plan, err) < 0)
    return -1;
  return placer_export_map_check(in->map, plan, err);
}

/* ------------------------------------------------------------------ render */

void placer_export_output_free(struct placer_export_output *out) {
  if (out == NULL)
    return;
  for (size_t i = 0; i < out->n_units; i++) {
    free(out->units[i].name);
    free(out->units[i].text);
  }
  free(out->units);
  placer_string_list_free(&out->notes);
  free(out);
}

bool export_target_at_least(const struct placer_export_writer *w, const char *release) {
  for (size_t i = 0; w->fmt->targets && w->fmt->targets[i]; i++)
    if (strcmp(w->fmt->targets[i], release) == 0)
      return w->target_index >= i;
  return false;
}

/* --target: one of the format's releases, else the newest; --merge only
 * where the format reads one. */
static int resolve_target(const struct placer_export_format *fmt, const struct placer_export_input *in,
                          struct placer_export_writer *w, struct placer_error **err) {
  if (in->merge_text && !fmt->takes_merge)
    return placer_error_set(
        err, PLACER_EXIT_USAGE, EINVAL,
        "--merge: this format writes no whole configuration to merge into (libvirt and kubelet do)");
  if (fmt->targets == NULL) {
    if (in->target)
      return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                              "--target %s: this format's output is the same for every release of its consumer",
                              in->target);
    return 0;
  }
  size_t n = 0;
  while (fmt->targets[n])
    n++;
  for (size_t i = 0; i < n; i++)
    if (in->target == NULL ? i + 1 == n : strcmp(in->target, fmt->targets[i]) == 0) {
      w->target = fmt->targets[i];
      w->target_index = i;
      return 0;
    }
  char known[256] = "";
  for (size_t i = 0; i < n; i++)
    snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "", fmt->targets[i]);
  return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--target %s: placer writes for %s %s", in->target,
                          fmt->consumer, known);
}

int placer_export_render(const struct placer_export_format *fmt, const struct placer_export_input *in,
                         struct placer_export_output **out, struct placer_error **err) {
  struct placer_export_writer w = { .fmt = fmt, .in = in };
  if (resolve_target(fmt, in, &w, err) < 0 || check_needs(fmt, in, err) < 0)
    return placer_error_prefix(err, "%s", fmt->name);
  struct placer_export_output *o = calloc(1, sizeof(*o));
  if (o == NULL)
    return placer_error_oom(err, NULL);
  w.out = o;
  int rc = fmt->write(in, &w, err);
  if (close_unit(&w) < 0 && rc == 0)
    rc = -1;
  placer_string_list_free(&w.strings);
  if (rc == 0 && (w.failed || o->n_units == 0))
    rc = w.failed ? placer_error_oom(err, NULL) : placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "nothing to write");
  if (rc < 0) {
    free(w.buf);
    placer_export_output_free(o);
    return placer_error_prefix(err, "%s", fmt->name);
  }
  *out = o;
  return 0;
}

int placer_export_print(const struct placer_export_output *out, FILE *f) {
  for (size_t i = 0; i < out->n_units; i++) {
    if (out->n_units > 1 && fprintf(f, "%s==> %s <==\n", i ? "\n" : "", out->units[i].name) < 0)
      return -1;
    if (fputs(out->units[i].text, f) == EOF)
      return -1;
  }
  return 0;
}

int placer_export_check_dir(const char *dir, struct placer_error **err) {
  if (placer_fileset_check_dir(dir, err) < 0)
    return placer_error_prefix(err, "--out %s", dir);
  return 0;
}

int placer_export_write_dir(const struct placer_export_format *fmt, const struct placer_export_output *out,
                            const char *dir, bool dry, struct placer_fileset_changes *changes,
                            struct placer_error **err) {
  cleanup_free struct placer_fileset_file *files = calloc(out->n_units ? out->n_units : 1, sizeof(*files));
  cleanup_free char *manifest = NULL, *writer = NULL;
  if (files == NULL || asprintf(&manifest, ".placer-export.%s", fmt->name) < 0 ||
      asprintf(&writer, "placer export --format %s", fmt->name) < 0)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < out->n_units; i++)
    files[i] = (struct placer_fileset_file){ out->units[i].name, out->units[i].text, strlen(out->units[i].text) };
  if (placer_fileset_write(dir, manifest, writer, files, out->n_units, dry, changes, err) < 0)
    return placer_error_prefix(err, "--out %s", dir);
  return 0;
}
