/* placer status through systemd: for every instance, the unit's properties
 * (systemctl show), its group files (cpuset.cpus.effective, ...), placer's
 * drop-in, and every thread of every process in the unit against the plan. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/array.h"
#include "apply/apply-systemd-internal.h"
#include "lib/units.h"
#include "proc.h"
#include "state.h"
#include "lib/json-str.h"

static void add_line(json_t *inst, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_line(json_t *inst, const char *key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = apply_vformat(fmt, ap);
  va_end(ap);
  json_array_append_new(json_object_get(inst, key), json_string(msg ? msg : "?"));
  free(msg);
}

static void drift_line(void *inst, const char *msg) {
  add_line(inst, "drift", "%s", msg);
}

/* The setting each property holds (enum sd_prop's order), and what the
 * unit's record planned of it (borrowed strings: never cleared). */
static const enum placer_setting prop_setting[SD_N_PROPS] = { PLACER_SETTING_CPUS, PLACER_SETTING_MEMS,
                                                              PLACER_SETTING_MEMORY_LIMIT, PLACER_SETTING_CPU_WEIGHT };

static struct placer_group_values planned_values(const struct placer_state_unit *si) {
  return (struct placer_group_values){
    .cpus = si->cpus,
    .mems = si->mems,
    .memory_limit = si->has_memory_limit ? si->memory_bytes : PLACER_CGROUP_UNLIMITED,
    .cpu_weight = si->cpu_weight,
    .planned = (si->cpus ? PLACER_SETTING_BIT(PLACER_SETTING_CPUS) : 0) |
               (si->mems ? PLACER_SETTING_BIT(PLACER_SETTING_MEMS) : 0) |
               (si->has_memory_limit ? PLACER_SETTING_BIT(PLACER_SETTING_MEMORY_LIMIT) : 0) |
               (si->cpu_weight ? PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT) : 0),
  };
}

static json_t *check_instance(const struct sd_ctx *c, struct placer_state_unit *si) {
  json_t *inst = json_object();
  json_object_set_new(inst, "name", placer_json_str_or_null(si->name));
  json_object_set_new(inst, "role", placer_json_str_or_null(si->role));
  json_object_set_new(inst, "kind", json_string(placer_role_kind_name(si->kind)));
  json_object_set_new(inst, "unit", json_string(si->unit));
  json_object_set_new(inst, "group", json_string(si->cgroup));
  json_object_set_new(inst, "match", placer_json_str_or_null(si->match));
  json_object_set_new(inst, "drift", json_array());
  json_object_set_new(inst, "notes", json_array());
  json_t *planned = json_object();
  json_object_set_new(planned, "cpus", placer_json_str_or_null(si->cpus));
  json_object_set_new(planned, "mems", placer_json_str_or_null(si->mems));
  json_object_set_new(planned, "memory_bytes",
                      si->has_memory_limit ? json_integer((json_int_t)si->memory_bytes) : json_null());
  json_object_set_new(planned, "cpu_weight", si->cpu_weight ? json_integer(si->cpu_weight) : json_null());
  json_object_set_new(planned, "pin_vcpus", json_boolean(si->pin_vcpus));
  json_object_set_new(planned, "dropin", placer_json_str_or_null(si->dropin));
  json_object_set_new(inst, "planned", planned);

  json_t *actual = json_object();
  cleanup_free char *show = NULL;
  struct placer_error *e = NULL;
  if (sd_show(c, si->unit, &show, &e) < 0) {
    add_line(inst, "drift", "cannot ask systemd about %s: %s", si->unit, e->msg);
    placer_error_free(e);
  } else {
    cleanup_free char *active = placer_systemd_show_value(show, "ActiveState");
    cleanup_free char *cg = placer_systemd_show_value(show, "ControlGroup");
    json_object_set_new(actual, "active_state", placer_json_str_or_null(active));
    if (active == NULL || strcmp(active, "active") != 0)
      add_line(inst, "drift", "unit %s is %s", si->unit, active ? active : "unknown");
    if (cg && *cg && strcmp(cg, si->cgroup) != 0) {
      add_line(inst, "notes", "%s is now in %s (applied in %s)", si->unit, cg, si->cgroup);
      free(si->cgroup);
      si->cgroup = TAKE_PTR(cg);
    }
    /* the properties against the record, compared as the model compares values */
    struct placer_group_values want = planned_values(si), now = { 0 };
    struct placer_error *unread = NULL;
    bool read = sd_show_values(show, &now, &unread) == 0;
    placer_error_free(unread);
    for (int p = 0; p < SD_N_PROPS; p++) {
      cleanup_free char *v = placer_systemd_show_value(show, placer_state_unit_props[p]);
      json_object_set_new(actual, placer_state_unit_props[p], placer_json_str_or_null(v));
      enum placer_setting s = prop_setting[p];
      if ((want.planned & PLACER_SETTING_BIT(s)) && (!read || !placer_group_value_equal(s, &now, &want))) {
        char shown[32];
        if (p == SD_MEMORY_MAX)
          snprintf(shown, sizeof(shown), "%llu", (unsigned long long)si->memory_bytes);
        else if (p == SD_CPU_WEIGHT)
          snprintf(shown, sizeof(shown), "%u", si->cpu_weight);
        else
          snprintf(shown, sizeof(shown), "%s", p == SD_ALLOWED_CPUS ? si->cpus : si->mems);
        add_line(inst, "drift", "%s %s=%s, planned %s", si->unit, placer_state_unit_props[p], v && *v ? v : "(empty)",
                 shown);
      }
    }
    placer_group_values_clear(&now);
  }
  static const char *const files[] = { "cpuset.cpus.effective", "cpuset.mems.effective", "memory.max", "cpu.weight" };
  for (size_t i = 0; i < N_OF(files); i++) {
    cleanup_free char *v = sd_cgroup_read(c, si->cgroup, files[i]);
    json_object_set_new(actual, files[i], placer_json_str_or_null(v));
  }
  if (si->dropin && access(si->dropin, F_OK) != 0)
    add_line(inst, "drift", "drop-in %s is missing: the placement will not survive a restart", si->dropin);
  json_object_set_new(inst, "actual", actual);

  /* Every thread of every process in the unit. */
  size_t n_procs = 0, n_threads = 0;
  sd_check_unit(c, si, drift_line, inst, &n_procs, &n_threads);
  json_t *procs = json_array();
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (sd_cgroup_pids(c, si->cgroup, &pids, &n, &e) < 0) {
    placer_error_free(e);
    n = 0;
  }
  for (size_t i = 0; i < n; i++) {
    cleanup_free pid_t *tids = NULL;
    size_t n_tids = 0;
    if (placer_task_list(pids[i], &tids, &n_tids, &e) < 0) {
      placer_error_free(e);
      e = NULL;
      continue;
    }
    bool bound = false;
    for (size_t k = 0; k < si->n_procs; k++)
      bound |= si->procs[k].pid == pids[i] && placer_proc_is_same(pids[i], si->procs[k].start_time);
    cleanup_free char *comm = placer_proc_comm(pids[i]);
    json_t *jp = json_object();
    json_object_set_new(jp, "pid", json_integer(pids[i]));
    json_object_set_new(jp, "comm", placer_json_str_or_null(comm));
    json_object_set_new(jp, "n_threads", json_integer((json_int_t)n_tids));
    json_object_set_new(jp, "bound", json_boolean(bound));
    json_object_set_new(jp, "in_group", json_true());
    json_array_append_new(procs, jp);
  }
  size_t gone = 0;
  for (size_t k = 0; k < si->n_procs; k++)
    gone += !placer_proc_is_same(si->procs[k].pid, si->procs[k].start_time);
  if (gone)
    add_line(inst, "notes",
             "%zu of the %zu processes in %s at apply have exited (restarted?); the unit's processes "
             "now are checked",
             gone, si->n_procs, si->unit);
  json_object_set_new(inst, "processes", procs);
  json_object_set_new(inst, "n_threads", json_integer((json_int_t)n_threads));
  if (json_array_size(procs) == 0)
    add_line(inst, "drift", "no process runs in %s", si->unit);
  json_object_set_new(inst, "ok", json_boolean(json_array_size(json_object_get(inst, "drift")) == 0));
  return inst;
}

int sd_status(const char *state_dir, json_t **out, bool *drift, struct placer_error **err) {
  const char *dir = state_dir ? state_dir : placer_state_default_dir();
  struct placer_state *s = NULL;
  bool busy = false;
  if (placer_state_open_kind(dir, &placer_state_units, PLACER_STATE_LOCK_SHARED, &s, &busy, err) < 0)
    return -1;
  struct sd_ctx c;
  sd_ctx_init(&c, NULL);
  json_t *doc = apply_status_doc_new("systemd", dir, s->n_units > 0, s->profile_name, s->profile_path);
  if (doc == NULL) {
    placer_state_free(s);
    return placer_error_oom(err, NULL);
  }
  json_object_set_new(doc, "applied_at", placer_json_str_or_null(s->applied_at));
  json_object_set_new(doc, "persist", json_boolean(s->persist));
  json_object_set_new(doc, "cgroup_mode", json_string("v2"));
  json_object_set_new(doc, "busy", json_boolean(busy));
  json_t *insts = json_array();
  bool any = false;
  for (size_t i = 0; i < s->n_units; i++) {
    json_t *inst = check_instance(&c, &s->units[i]);
    any |= !json_is_true(json_object_get(inst, "ok"));
    json_array_append_new(insts, inst);
  }
  json_object_set_new(doc, "instances", insts);
  json_object_set_new(doc, "problems", json_array());
  json_object_set_new(doc, "drift", json_boolean(any));
  placer_state_free(s);
  *out = doc;
  *drift = any;
  return 0;
}

static const char *jstr(json_t *obj, const char *key) {
  const char *s = json_string_value(json_object_get(obj, key));
  return s ? s : "";
}

int sd_status_print_text(json_t *doc, FILE *out) {
  if (json_is_true(json_object_get(doc, "busy")))
    fprintf(out, "note: an apply or reset is running now; what follows may be mid-change\n");
  if (!json_is_true(json_object_get(doc, "applied"))) {
    if (json_array_size(json_object_get(doc, "irqs")))
      fprintf(out, "no units applied (state %s): only IRQs\n", jstr(doc, "state_dir"));
    else
      fprintf(out, "nothing applied (no placer state in %s)\n", jstr(doc, "state_dir"));
    return 0;
  }
  fprintf(out, "profile %s applied %s through systemd (%s; state %s)\n", jstr(doc, "profile"), jstr(doc, "applied_at"),
          json_is_true(json_object_get(doc, "persist")) ? "runtime properties and drop-ins"
                                                        : "runtime properties, until reboot",
          jstr(doc, "state_dir"));
  json_t *inst;
  size_t i, n = 0, n_drift = 0;
  json_array_foreach(json_object_get(doc, "instances"), i, inst) {
    n++;
    bool ok = json_is_true(json_object_get(inst, "ok"));
    n_drift += !ok;
    json_t *planned = json_object_get(inst, "planned");
    fprintf(out, "%-10s %-5s %s  cpus %s  mems %s  mem ", jstr(inst, "name"), ok ? "ok" : "DRIFT", jstr(inst, "unit"),
            json_is_string(json_object_get(planned, "cpus")) ? jstr(planned, "cpus") : "(left)",
            json_is_string(json_object_get(planned, "mems")) ? jstr(planned, "mems") : "(left)");
    json_t *mem = json_object_get(planned, "memory_bytes");
    if (json_is_integer(mem)) {
      char buf[32];
      placer_format_bytes((uint64_t)json_integer_value(mem), buf, sizeof(buf));
      fprintf(out, "%s", buf);
    } else {
      fprintf(out, "none");
    }
    json_t *procs = json_object_get(inst, "processes"), *p;
    size_t k;
    fprintf(out, "  %zu process%s, %lld thread%s checked", json_array_size(procs),
            json_array_size(procs) == 1 ? "" : "es", (long long)json_integer_value(json_object_get(inst, "n_threads")),
            json_integer_value(json_object_get(inst, "n_threads")) == 1 ? "" : "s");
    json_array_foreach(procs, k, p) {
      fprintf(out, "%s pid %lld ", k ? "," : ":", (long long)json_integer_value(json_object_get(p, "pid")));
      placer_text_put(out, jstr(p, "comm"));
      fprintf(out, " (%lld)", (long long)json_integer_value(json_object_get(p, "n_threads")));
    }
    fputc('\n', out);
    apply_print_instance_lines(inst, out);
  }
  fprintf(out, "%zu instance%s, %zu with drift\n", n, n == 1 ? "" : "s", n_drift);
  return ferror(out) ? -1 : 0;
}
