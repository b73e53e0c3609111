/* Shared by both apply backends (cgroupfs: apply-cgroupfs*.c, systemd:
 * apply-systemd*.c) and the IRQ part (apply-irq*.c): which processes an
 * instance binds (the one check both backends make), the time applied_at
 * records, comparing values as the kernel holds them, and
 * freeing the report and the reset result that both backends fill
 * (apply-internal.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply-internal.h"
#include "lib/cpulist.h"
#include "lib/error.h"
#include "lib/pid-list.h"
#include "plan.h"
#include "procmatch.h"

char *apply_now_rfc3339(void) {
  time_t now = time(NULL);
  struct tm tm;
  char buf[32];
  gmtime_r(&now, &tm);
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return strdup(buf);
}

char *apply_vformat(const char *fmt, va_list ap) {
  char *text = NULL;
  return vasprintf(&text, fmt, ap) < 0 ? NULL : text;
}

void placer_apply_report_free(struct placer_apply_report *r) {
  if (r == NULL)
    return;
  free(r->profile_name);
  free(r->state_dir);
  for (size_t i = 0; i < r->n_instances; i++) {
    struct placer_apply_instance_report *ri = &r->instances[i];
    free(ri->name);
    free(ri->group);
    free(ri->cpus);
    free(ri->mems);
    free(ri->note);
    for (size_t k = 0; k < ri->n_bound; k++)
      free(ri->bound[k].comm);
    free(ri->bound);
  }
  free(r->instances);
  struct placer_string_list actions = { r->actions, r->n_actions, 0 }, notes = { r->notes, r->n_notes, 0 };
  struct placer_string_list created = { r->groups_created, r->n_groups_created, 0 },
                            changed = { r->groups_changed, r->n_groups_changed, 0 };
  placer_string_list_free(&actions);
  placer_string_list_free(&notes);
  placer_string_list_free(&created);
  placer_string_list_free(&changed);
  for (size_t i = 0; r->irqs && i < r->n_irqs; i++) {
    struct placer_apply_irq_report *q = &r->irqs[i];
    free(q->name);
    free(q->device);
    free(q->instance);
    free(q->from);
    free(q->to);
    free(q->effective);
    free(q->note);
  }
  free(r->irqs);
  free(r);
}

void placer_reset_result_clear(struct placer_reset_result *res) {
  struct placer_string_list lines = { res->lines, res->n_lines, 0 },
                            removed = { res->groups_removed, res->n_groups_removed, 0 };
  struct placer_string_list units = { res->units_restored, res->n_units_restored, 0 };
  struct placer_string_list dropins = { res->dropins_removed, res->n_dropins_removed, 0 };
  placer_string_list_free(&lines);
  placer_string_list_free(&removed);
  placer_string_list_free(&units);
  placer_string_list_free(&dropins);
  free(res->pids_restored);
  free(res->irqs_restored);
  free(res->state_dir);
  *res = (struct placer_reset_result){ 0 };
}

char *apply_no_process_note(const struct placer_instance *inst, const char *why) {
  char *note = NULL;
  if (inst->match.kind == PLACER_MATCH_NONE) {
    if (asprintf(&note, "no process: the profile gives no matcher and no --pid %s=PID was given", inst->name) < 0)
      return NULL;
    return note;
  }
  cleanup_free char *desc = placer_match_describe(inst->kind, &inst->match);
  if (asprintf(&note, "no process matches %s%s%s%s", desc ? desc : "?", why ? " (" : "", why ? why : "",
               why ? ")" : "") < 0)
    return NULL;
  return note;
}

int apply_pid_arg(const char *instance, const char *value, pid_t *out, struct placer_error **err) {
  pid_t pid;
  if (placer_parse_pid_text(value, &pid) < 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "--pid %s=%s: not a pid", instance, value);
  uint64_t start_time = 0;
  struct placer_error *gone = NULL;
  if (placer_proc_start_time(pid, &start_time, &gone) < 0) {
    placer_error_clear(&gone);
    return placer_error_set(err, PLACER_EXIT_USAGE, ESRCH, "--pid %s=%d: no such process", instance, (int)pid);
  }
  char state = placer_proc_state(pid);
  if (!placer_proc_is_same(pid, start_time) || state == 'Z' || state == 'X')
    return placer_error_set(err, PLACER_EXIT_USAGE, ESRCH, "--pid %s=%d: the process is not running (a zombie?)",
                            instance, (int)pid);
  const char *never = placer_proc_never_bound(pid);
  if (never)
    return placer_error_set(err, PLACER_EXIT_USAGE, EPERM,
                            "--pid %s=%d: that is %s, which placer never binds (with its descendants it is most of "
                            "the node)",
                            instance, (int)pid, never);
  *out = pid;
  return 0;
}

int apply_find_processes(const struct placer_plan *plan, const struct placer_instance *inst,
                         const struct placer_apply_options *opt, struct placer_pid_list *out, bool *explicit_pids,
                         char **why, struct placer_error **err) {
  *explicit_pids = false;
  *why = NULL;
  for (size_t i = 0; i < opt->n_pids; i++) {
    if (strcmp(opt->pids[i].instance, inst->name) != 0)
      continue;
    *explicit_pids = true;
    pid_t pid = 0;
    if (apply_pid_arg(inst->name, opt->pids[i].value, &pid, err) < 0)
      return -1;
    if (placer_pid_list_add_new(out, pid) < 0)
      return placer_error_oom(err, NULL);
  }
  if (*explicit_pids)
    return 0;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  if (placer_procmatch_find(inst->kind, &inst->match, &pids, &n, why, err) < 0)
    return placer_error_prefix(err, "%s", inst->name);
  size_t trees = placer_proc_count_trees(pids, n);
  if (trees > plan->n_instances) {
    char list[128] = "";
    for (size_t k = 0; k < n && k < 5; k++)
      snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", k ? " " : "", (int)pids[k]);
    cleanup_free char *what = placer_match_describe(inst->kind, &inst->match);
    free(*why);
    *why = NULL;
    return placer_error_set(err, PLACER_EXIT_USAGE, E2BIG,
                            "%s: %s finds %zu unrelated processes (pids %s%s), more than the profile's %zu instance%s: "
                            "a match that broad would bind much of the node; narrow it, or bind with --pid",
                            inst->name, what ? what : "its match", trees, list, n > 5 ? " ..." : "", plan->n_instances,
                            plan->n_instances == 1 ? "" : "s");
  }
  for (size_t k = 0; k < n; k++)
    if (placer_pid_list_add_new(out, pids[k]) < 0)
      return placer_error_oom(err, NULL);
  return 0;
}

void apply_print_instance_lines(json_t *inst, FILE *out) {
  size_t k;
  json_t *line;
  json_array_foreach(json_object_get(inst, "drift"), k, line) {
    fputs("    DRIFT ", out);
    placer_text_put(out, json_string_value(line));
    fputc('\n', out);
  }
  json_array_foreach(json_object_get(inst, "notes"), k, line) {
    fputs("    note: ", out);
    placer_text_put(out, json_string_value(line));
    fputc('\n', out);
  }
}
