/* What the export writers (export-FORMAT.c) share with the dispatcher
 * (export.c): the writer that collects their units, and the plan facts more
 * than one format reads.  Not for the rest of placer. */
#ifndef PLACER_EXPORT_INTERNAL_H
#define PLACER_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "export/export.h"

struct placer_export_writer {
  const struct placer_export_format *fmt;
  const struct placer_export_input *in;
  struct placer_export_output *out;
  FILE *f;                           /* the unit being written, NULL before the first */
  char *buf;                         /* its memstream buffer */
  size_t size;                       /* and length */
  bool failed;                       /* an allocation or a stream failed: the render fails */
  struct placer_string_list strings; /* what export_cpus() handed out, freed with the writer */
  const char *target;                /* the consumer's release written for (fmt->targets), or NULL */
  size_t target_index;               /* its position in fmt->targets */
};

/* Is the release written for RELEASE (one of fmt->targets) or later? */
bool export_target_at_least(const struct placer_export_writer *w, const char *release);

/* Start unit NAME (printf-style): the stream it is written to, already
 * holding the "generated from" header in the format's comment syntax (and
 * "#!/bin/sh" first for shell).  NULL on ENOMEM (the render then fails). */
FILE *export_unit(struct placer_export_writer *w, const char *name_fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a unit in another syntax than the format's. */
FILE *export_unit_in(struct placer_export_writer *w, enum placer_export_syntax syntax, const char *name_fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Shell code placer writes as it is (functions, a usage check), between the
 * two lines tests/export_check.c knows; never a name from the input. */
void export_sh_code(FILE *f, const char *code);
/* A note for the person running export (stderr), e.g. what was left out. */
void export_note(struct placer_export_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The writers, each in export-NAME.c. */
#define EXPORT_FORMAT_EXTERN(name) extern const struct placer_export_format placer_export_##name;
PLACER_EXPORT_FORMATS(EXPORT_FORMAT_EXTERN)
#undef EXPORT_FORMAT_EXTERN

/* export --format libvirt --merge DOMAIN.xml (export-libvirt-merge.c): the
 * operator's whole domain with the placement of the vm instance it names. */
int export_libvirt_merge(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err);

/* ---- plan facts (export.c) ---- */

/* The profile's spec of INST's role (never NULL for a plan of that profile). */
const struct placer_role_spec *export_role(const struct placer_export_input *in, const struct placer_instance *inst);
/* What --map says for INST, or NULL. */
const char *export_mapped(const struct placer_export_input *in, const struct placer_instance *inst);
/* The CPUs no VM may have: the host reserve and every Ceph daemon's. */
void export_kept_cpus(const struct placer_plan *plan, hwloc_bitmap_t out);
/* -1 (PLACER_EXIT_USAGE, one line naming both) when vm instance VM shares
 * a CPU with a Ceph daemon or the host reserve: a VM manager would put its
 * guest there and nothing could keep them apart. */
int export_vm_apart(const struct placer_plan *plan, const struct placer_instance *vm, struct placer_error **err);
/* Every CPU the plan may hand out: the reserve, every instance's, the free ones. */
void export_usable_cpus(const struct placer_plan *plan, hwloc_bitmap_t out);
/* The vCPUs of a vm instance: its role's run: vm: vcpus, else cpu.threads,
 * else cpu.cores times the PUs of a core of its CPUs. */
unsigned export_vcpus(const struct placer_export_input *in, const struct placer_instance *inst);
/* The guest's RAM of a vm instance: its role's run: vm: memory, else the
 * role's memory (without memory_overhead, which is qemu's own); 0 when the
 * profile gives it none. */
uint64_t export_guest_memory(const struct placer_export_input *in, const struct placer_instance *inst);
/* The PUs of the core holding PU (1 when the topology does not know it). */
unsigned export_pus_per_core(const struct placer_topology *topo, unsigned pu);
/* The libvirt domain of a vm instance: --map, else its qemu_name match (the
 * name libvirt gives qemu's -name guest=), else NULL. */
const char *export_domain_name(const struct placer_export_input *in, const struct placer_instance *inst);
/* The Ceph daemon id of INST: --map, else its ceph_id match; NULL when none. */
const char *export_ceph_id(const struct placer_export_input *in, const struct placer_instance *inst);
/* The Topology Manager policy the plan's guests need: "single-numa-node"
 * when there are vm instances and each lies on one NUMA node, else
 * "best-effort". */
const char *export_topology_policy(const struct placer_plan *plan);
/* The systemd service of INST: --map, else a Ceph daemon's packaged unit
 * (ceph-osd@ID.service for ceph_id ID); NULL when neither.  *owned is what
 * the caller frees. */
const char *export_systemd_unit(const struct placer_export_input *in, const struct placer_instance *inst, char **owned);
/* Is UNIT a valid .service name (only a service takes a drop-in that outlives it)? */
bool export_is_service(const char *unit);
/* Who holds CPUs of SET, for a comment: "the host reserve, osd (ceph-osd),
 * mds (ceph-mds), the free CPUs"; owned by the writer. */
const char *export_holders(struct placer_export_writer *w, hwloc_const_bitmap_t set);
/* Where a vm instance's emulator threads (qemu's main loop, I/O) go: with
 * pinned vCPUs onto the host reserve when there is one (they would take
 * time from the vCPUs' own PUs), else the instance's CPUs. */
hwloc_const_bitmap_t export_emulator_cpus(const struct placer_plan *plan, const struct placer_instance *inst);
/* Per NUMA node (topology order), the host reserve's share: the planner's
 * even split, remainder on the first nodes.  OUT has n_numa_nodes entries. */
void export_reserve_per_node(const struct placer_export_input *in, uint64_t *out);

/* ---- text ---- */

/* Does S hold a control character (a newline in a name from a template)? */
bool export_has_control(const char *s);

/* S in a comment: one line, control bytes as '?', and in XML no "--". */
void export_comment_text(FILE *f, const char *s, enum placer_export_syntax syntax);
/* S as one shell word: as it is when it is safe, else single-quoted. */
void export_sh_word(FILE *f, const char *s);
/* The set as a cpu list ("0-3,8"), owned by the writer (valid until the
 * render ends); "" on ENOMEM, and the render fails. */
const char *export_cpus(struct placer_export_writer *w, hwloc_const_bitmap_t set);
/* BYTES as a Kubernetes quantity: "53248Mi", or plain bytes when not whole
 * MiB; owned by the writer. */
const char *export_quantity(struct placer_export_writer *w, uint64_t bytes);
/* Bytes rounded up to whole MiB. */
uint64_t export_mib_up(uint64_t bytes);

#endif
