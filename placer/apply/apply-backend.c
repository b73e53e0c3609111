/* Which backend puts a plan in force: the table of apply's backends
 * (cgroupfs: placer's own groups; systemd: the daemons' units), the one
 * --backend names or PID 1 suggests for apply; for status and reset the one
 * the state directory records (as crun dispatches a container's cgroup
 * calls on the manager its status recorded).  The IRQs and the Ceph
 * affinity warning around any backend's apply; the IRQs and the MDS's cache
 * setting after any backend's status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "apply/apply-internal.h"
#include "apply/apply-mds-status.h"
#include "apply/apply.h"
#include "cephconf.h"
#include "lib/array.h"
#include "lib/statedir.h"
#include "state.h"

/* The backends of PLACER_APPLY_BACKENDS (apply.h), in its order; "auto"
 * picks one of them (placer_apply_backend_get). */
#define DECLARE(name) extern const struct placer_apply_backend_ops placer_apply_backend_##name;
PLACER_APPLY_BACKENDS(DECLARE)
#undef DECLARE
#define ENTRY(name) &placer_apply_backend_##name,
static const struct placer_apply_backend_ops *const backends[] = { PLACER_APPLY_BACKENDS(ENTRY) };
#undef ENTRY
#define NAME(name) #name,
static const char *const backend_names[] = { PLACER_APPLY_BACKENDS(NAME) };
#undef NAME

/* The one every host has: placer's own groups. */
#define FALLBACK (&placer_apply_backend_cgroupfs)

const struct placer_apply_backend_ops *placer_apply_backend_at(size_t i) {
  return i < N_OF(backends) ? backends[i] : NULL;
}

static const struct placer_apply_backend_ops *find(const char *name) {
  for (size_t k = 0; name && k < N_OF(backends); k++)
    if (strcmp(backends[k]->name, name) == 0)
      return backends[k];
  return NULL;
}

const struct placer_apply_backend_ops *placer_apply_backend_get(const char *name) {
  if (name == NULL || strcmp(name, "auto") == 0)
    /* sd_booted(3): systemd as PID 1 creates this directory */
    name = access("/run/systemd/system", F_OK) == 0 ? "systemd" : FALLBACK->name;
  return find(name);
}

bool placer_apply_backend_known(const char *name) {
  return name && (strcmp(name, "auto") == 0 || find(name) != NULL);
}

const char *placer_apply_backend_resolve(const char *name) {
  const struct placer_apply_backend_ops *ops = placer_apply_backend_get(name);
  return ops ? ops->name : NULL;
}

const char *placer_apply_backend_ops_check(const struct placer_apply_backend_ops *ops) {
  if (ops->name == NULL || ops->name[0] == '\0')
    return "no name";
  if (ops->state_file == NULL || ops->state_file[0] == '\0')
    return "no state_file";
  if (ops->settings == NULL)
    return "no settings";
  if (ops->apply == NULL)
    return "no apply";
  if (ops->status == NULL)
    return "no status";
  if (ops->reset == NULL)
    return "no reset";
  if (ops->reset_run == NULL)
    return "no reset_run";
  if (ops->print_status == NULL)
    return "no print_status";
  if (strcmp(ops->name, "auto") == 0 || strcmp(ops->name, "irqs") == 0)
    return "a name apply keeps for itself";
  for (size_t k = 0; k < N_OF(backends); k++)
    if (backends[k] == ops)
      return strcmp(backend_names[k], ops->name) == 0 ? NULL : "its name differs from its line's";
  return "not in backends[]";
}

/* Every setting OPT gives is one OPS takes; a refusal names the backends
 * that take it. */
static int check_settings(const struct placer_apply_backend_ops *ops, const struct placer_apply_options *opt,
                          struct placer_error **err) {
  for (size_t i = 0; i < opt->n_settings; i++) {
    const struct placer_apply_setting *s = &opt->settings[i];
    bool takes = false;
    for (const struct placer_apply_setting_spec *k = ops->settings; k->name && !takes; k++)
      takes = strcmp(k->name, s->name) == 0;
    if (takes)
      continue;
    char others[128] = "";
    for (size_t b = 0; b < N_OF(backends); b++)
      for (const struct placer_apply_setting_spec *k = backends[b]->settings; k->name; k++)
        if (strcmp(k->name, s->name) == 0)
          snprintf(others + strlen(others), sizeof(others) - strlen(others), "%s%s", *others ? " or " : "",
                   backends[b]->name);
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--%s needs the %s backend (this is %s%s)", s->name,
                            *others ? others : "?", ops->name,
                            opt->backend == NULL || strcmp(opt->backend, "auto") == 0 ? ": PID 1 is not systemd" : "");
  }
  return 0;
}

/* An OSD that sets its own affinity after start undoes the placement:
 * say so for every bound OSD whose ceph.conf or command line lets it. */
static void warn_ceph_affinity(const struct placer_plan *plan, struct placer_apply_report *r) {
  struct placer_string_list notes = { r->notes, r->n_notes, 0 };
  for (size_t i = 0; i < r->n_instances; i++) {
    const struct placer_apply_instance_report *ri = &r->instances[i];
    const struct placer_instance *inst = placer_plan_find(plan, ri->name);
    if (inst == NULL || inst->kind != PLACER_KIND_CEPH_OSD)
      continue;
    for (size_t k = 0; k < ri->n_bound; k++) {
      char *msg = NULL;
      bool is_osd = placer_ceph_osd_affinity_warning(ri->bound[k].pid, ri->name, ri->mems, &msg);
      if (msg)
        placer_string_list_addf(&notes, "%s", msg);
      free(msg);
      if (is_osd)
        break; /* one OSD process per instance */
    }
  }
  r->notes = placer_string_list_release(&notes, &r->n_notes);
}

/* apply --irqs-only: the plan's IRQs and nothing else (what the boot unit of --persist runs). */
static int apply_irqs_only(const struct placer_plan *plan, const struct placer_apply_options *opt,
                           struct placer_apply_report **report, struct placer_error **err) {
  struct placer_apply_report *r = calloc(1, sizeof(*r));
  if (r == NULL || (r->profile_name = strdup(plan->profile_name)) == NULL ||
      (r->state_dir = strdup(opt->state_dir ? opt->state_dir : placer_state_default_dir())) == NULL) {
    placer_apply_report_free(r);
    return placer_error_oom(err, NULL);
  }
  r->backend = "irqs";
  r->cgroup_mode = "-";
  snprintf(r->where, sizeof(r->where), "IRQs only");
  r->dry_run = opt->dry_run;
  struct irq_txn *irqs = NULL;
  if (irq_apply_begin(plan, opt, NULL, &irqs, err) < 0 || irq_apply_commit(irqs, r, err) < 0) {
    placer_apply_report_free(r);
    return -1;
  }
  *report = r;
  return 0;
}

static int apply_run(const struct placer_plan *plan, const struct placer_apply_options *opt,
                     struct placer_apply_report **report, struct placer_error **err);

int placer_apply(const struct placer_plan *plan, const struct placer_apply_options *opt,
                 struct placer_apply_report **report, struct placer_error **err) {
  int rc = apply_run(plan, opt, report, err);
  if (rc < 0 && !opt->dry_run)
    placer_state_dir_tidy(opt->state_dir
                              ? opt->state_dir
                              : placer_state_default_dir()); /* a refused or rolled-back apply leaves nothing behind */
  return rc;
}

static int apply_run(const struct placer_plan *plan, const struct placer_apply_options *opt,
                     struct placer_apply_report **report, struct placer_error **err) {
  const struct placer_apply_backend_ops *ops = placer_apply_backend_get(opt->backend);
  if (ops == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--backend %s: not one of %s", opt->backend,
                            PLACER_APPLY_BACKEND_NAMES);
  if (check_settings(ops, opt, err) < 0)
    return -1;
  if (opt->processes_by_watcher && ops != &placer_apply_backend_cgroupfs)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "the %s backend binds what runs itself (only cgroupfs leaves it to the watcher)",
                            ops->name);
  if (opt->irqs_only)
    return apply_irqs_only(plan, opt, report, err);
  /* The IRQs are steered first and taken back if the backend fails; a plan
   * the backend refuses (a dry run checks everything) touches no IRQ. */
  if (plan->n_irq_rules && !opt->dry_run) {
    struct placer_apply_options check = *opt;
    struct placer_apply_report *checked = NULL;
    check.dry_run = true;
    int rc = ops->apply(plan, &check, &checked, err);
    placer_apply_report_free(checked);
    if (rc < 0)
      return -1;
  }
  struct irq_txn *irqs = NULL;
  if (irq_apply_begin(plan, opt, ops, &irqs, err) < 0)
    return -1;
  if (ops->apply(plan, opt, report, err) < 0) {
    irq_apply_abort(irqs, err);
    return -1;
  }
  if (irq_apply_commit(irqs, *report, err) < 0) {
    placer_apply_report_free(*report);
    *report = NULL;
    return placer_error_prefix(err, "irqs (the %s placement is in force)", ops->name);
  }
  (*report)->backend = ops->name;
  warn_ceph_affinity(plan, *report);
  return 0;
}

/* The "backend" DIR/FILE records: 1 and *name (NULL when the file has no
 * such record), 0 when there is no such file.  A file that cannot be read
 * or parsed names none: its backend's own loader says what is wrong. */
static int read_record(const struct placer_statedir *d, const char *file, char **name, struct placer_error **err) {
  *name = NULL;
  cleanup_free char *text = NULL;
  int rc = placer_statedir_read(d, file, PLACER_STATEDIR_MAX_FILE_BYTES, &text, NULL, err);
  if (rc != 0)
    return rc == 1 ? 0 : -1; /* none, or one placer may not trust: refused here already */
  json_t *doc = json_loads(text, 0, NULL);
  const char *recorded = json_string_value(json_object_get(doc, "backend"));
  if (recorded && (*name = strdup(recorded)) == NULL) {
    json_decref(doc);
    return placer_error_oom(err, NULL);
  }
  json_decref(doc);
  return 1;
}

int placer_apply_backend_recorded(const char *state_dir, const struct placer_apply_backend_ops **out,
                                  struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  *out = FALLBACK; /* nothing applied, or a state.json from before the record */
  struct placer_statedir d;
  if (placer_statedir_open(dir, false, &d, err) < 0) {
    placer_statedir_close(&d);
    return -1;
  }
  /* The last backend first: a systemd placement refuses a cgroupfs state
   * beside it but not the other way round, and its own is taken back first. */
  int rc = 0;
  for (size_t k = N_OF(backends); k-- > 0 && rc == 0;) {
    cleanup_free char *name = NULL;
    int found = read_record(&d, backends[k]->state_file, &name, err);
    if (found < 0)
      rc = -1;
    else if (found == 0)
      continue;
    else if (name == NULL) /* a state from before the record: its file's (state.json: cgroupfs) */
      *out = backends[k];
    else if ((*out = find(name)) == NULL)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL,
                            "%s/%s: applied through backend '%s', which this placer does not know", dir,
                            backends[k]->state_file, name);
    break;
  }
  placer_statedir_close(&d);
  return rc;
}

int placer_status(const char *state_dir, json_t **out, bool *drift, struct placer_error **err) {
  const struct placer_apply_backend_ops *ops;
  if (placer_apply_backend_recorded(state_dir, &ops, err) < 0 || ops->status(state_dir, out, drift, err) < 0)
    return -1;
  if (irq_status(state_dir, NULL, *out, drift, err) < 0 || apply_mds_status(*out, drift, err) < 0) {
    json_decref(*out);
    *out = NULL;
    return -1;
  }
  return 0;
}

int placer_status_print_text(json_t *status, FILE *out) {
  const struct placer_apply_backend_ops *ops = find(json_string_value(json_object_get(status, "backend")));
  int rc = (ops ? ops : FALLBACK)->print_status(status, out);
  return rc < 0 ? -1 : irq_status_print_text(status, out);
}

/* The IRQs after the backend's reset; a backend that had nothing to reset
 * does not say so when the IRQs had something. */
static int reset_irqs(const char *state_dir, struct placer_reset_result *res, struct placer_error **err) {
  bool backend_changed = res->changed;
  size_t n_backend_lines = res->n_lines;
  if (irq_reset(state_dir, NULL, res, err) < 0)
    return -1;
  if (!backend_changed && res->changed && n_backend_lines == 1) {
    free(res->lines[0]);
    memmove(res->lines, res->lines + 1, (res->n_lines - 1) * sizeof(*res->lines));
    res->n_lines--;
  }
  return 0;
}

int placer_reset(const char *state_dir, char ***lines, size_t *n_lines, struct placer_error **err) {
  struct placer_reset_result res = { 0 };
  const struct placer_apply_backend_ops *ops;
  if (placer_apply_backend_recorded(state_dir, &ops, err) < 0 ||
      ops->reset(state_dir, &res.lines, &res.n_lines, err) < 0)
    return -1;
  res.changed = !(res.n_lines == 1 && strncmp(res.lines[0], "nothing to reset", 16) == 0);
  if (reset_irqs(state_dir, &res, err) < 0) {
    placer_reset_result_clear(&res);
    return -1;
  }
  placer_state_dir_tidy(state_dir ? state_dir : placer_state_default_dir());
  *lines = TAKE_PTR(res.lines);
  *n_lines = res.n_lines;
  res.n_lines = 0;
  placer_reset_result_clear(&res);
  return 0;
}

int placer_reset_run(const char *state_dir, struct placer_reset_result *res, struct placer_error **err) {
  const struct placer_apply_backend_ops *ops;
  if (placer_apply_backend_recorded(state_dir, &ops, err) < 0 || ops->reset_run(state_dir, res, err) < 0)
    return -1;
  if (reset_irqs(state_dir, res, err) < 0) {
    placer_reset_result_clear(res);
    return -1;
  }
  placer_state_dir_tidy(state_dir ? state_dir : placer_state_default_dir());
  return 0;
}

int placer_reset_irqs(const char *state_dir, struct placer_reset_result *res, struct placer_error **err) {
  *res = (struct placer_reset_result){ .backend = "irqs" };
  if ((res->state_dir = strdup(state_dir)) == NULL)
    return placer_error_oom(err, NULL);
  if (irq_reset(state_dir, NULL, res, err) < 0) {
    placer_reset_result_clear(res);
    return -1;
  }
  placer_state_dir_tidy(state_dir ? state_dir : placer_state_default_dir());
  return 0;
}

pid_t placer_irqbalance_pid(void) {
  return irq_irqbalance_pid("");
}
