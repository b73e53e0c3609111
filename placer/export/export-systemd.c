/* export --format systemd: the drop-ins `placer apply --persist` writes
 * (AllowedCPUs, AllowedMemoryNodes, MemoryMax, CPUWeight), as files for
 * configuration management to install: UNIT.d/50-placer.conf. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export-internal.h"
#include "systemd-unit.h"

static int write_systemd(const struct placer_export_input *in, struct placer_export_writer *w,
                         struct placer_error **err) {
  const struct placer_plan *plan = in->plan;
  size_t written = 0;
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    cleanup_free char *owned = NULL;
    const char *unit = export_systemd_unit(in, inst, &owned);
    if (unit && !export_is_service(unit)) {
      if (export_mapped(in, inst))
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                                "%s: '%s' is not a .service unit (only a service takes a drop-in that outlives it)",
                                inst->name, unit);
      unit = NULL;
    }
    for (size_t j = 0; unit && j < i; j++) {
      cleanup_free char *other_owned = NULL;
      const char *other = export_systemd_unit(in, &plan->instances[j], &other_owned);
      if (other && strcmp(other, unit) == 0)
        return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "%s and %s are both in %s: systemd places whole units",
                                plan->instances[j].name, inst->name, unit);
    }
    if (unit && inst->kind == PLACER_KIND_VM && inst->pinned && export_vm_apart(plan, inst, err) < 0)
      return -1;
    if (unit == NULL) {
      export_note(w, "%s: no systemd service known (give --map %s=UNIT.service); no drop-in written", inst->name,
                  inst->name);
      continue;
    }
    struct placer_systemd_props props = {
      .allowed_cpus = inst->pinned ? export_cpus(w, inst->cpus) : NULL,
      .allowed_memory_nodes = inst->pinned ? export_cpus(w, inst->mems) : NULL,
      .has_memory_max = inst->has_memory_limit,
      .memory_max_bytes = inst->memory_bytes,
      .cpu_weight = inst->cpu_weight,
    };
    cleanup_free char *body = placer_systemd_dropin_body(&props);
    FILE *f = body ? export_unit(w, "%s.d/%s", unit, PLACER_SYSTEMD_DROPIN_NAME) : NULL;
    if (f == NULL) {
      w->failed = true;
      return 0;
    }
    fprintf(f, "# %s (role %s): install as %s/%s.d/%s, then systemctl daemon-reload.\n%s", inst->name, inst->role,
            PLACER_SYSTEMD_ETC_DIR, unit, PLACER_SYSTEMD_DROPIN_NAME, body);
    written++;
  }
  if (written == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "no instance runs in a known systemd service (Ceph daemons with a ceph_id match are "
                            "ceph-KIND@ID.service; give others --map INSTANCE=UNIT.service)");
  return 0;
}

const struct placer_export_format placer_export_systemd = {
  .name = "systemd",
  .summary = "the drop-ins apply --persist writes (AllowedCPUs, AllowedMemoryNodes, MemoryMax, CPUWeight), as files",
  .syntax = PLACER_EXPORT_INI,
  .needs = 0,
  .write = write_systemd,
};
