/* Workload kind recovery: in every measured pass each variant gets one more
 * run, of one of the cells' workloads (recovery.workload, the first by
 * default), during which an OSD fails (SIGKILL, or marked out) and comes
 * back (recovery-run.c runs it).  fio reports every second with no ramp
 * (whose reset of the figures would break the timeline) for as long as the
 * recovery may take; its result is that timeline, the I/Os done by each
 * moment, from which the client's IOPS before and during the recovery come
 * (results/recovery.c). */
#include "bench/workload.h"

#include <stddef.h>

#include "bench/study-internal.h"
#include "bench/target.h"
#include "lib/array.h"

static const char *const recovery_action_names[] = { "kill", "out", NULL };

#define RECOVERY_AT(field) offsetof(struct placer_study_recovery, field)

static const struct pyaml_field recovery_keys[] = {
  { .key = "action", .type = PYAML_FIELD_ENUM, .offset = RECOVERY_AT(action), .names = recovery_action_names },
  { .key = "osd", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(osd), .max = 1023 },
  { .key = "at", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(at_s), .min = 1, .max = 3600 },
  { .key = "down", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(down_s), .min = 1, .max = 3600 },
  { .key = "timeout", .type = PYAML_FIELD_UINT, .offset = RECOVERY_AT(timeout_s), .min = 10, .max = 86400 },
  { .key = "workload", .type = PYAML_FIELD_STRING, .offset = RECOVERY_AT(workload) },
};

const char *placer_study_recovery_action_name(int action) {
  return action == PLACER_STUDY_RECOVERY_OUT ? "out" : "kill";
}

/* Defaults: the OSD 0 killed 3 s into the run, back 5 s later, 300 s for
 * active+clean. */
static int recovery_settle(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root, yaml_node_t *section) {
  struct placer_study_recovery *r = &s->recovery;
  if (r->at_s == 0)
    r->at_s = 3;
  if (r->down_s == 0)
    r->down_s = 5;
  if (r->timeout_s == 0)
    r->timeout_s = 300;
  r->enabled = section != NULL;
  if (!r->enabled)
    return 0;
  if (s->cluster.type != PLACER_STUDY_CLUSTER_LOCAL)
    return study_key_error(w, root, NULL, "recovery",
                           "recovery fails and restarts an OSD: only with cluster type local (this cluster is %s)",
                           placer_study_cluster_name(s->cluster.type));
  if (s->cluster.osds == 1)
    return study_key_error(w, root, NULL, "recovery", "recovery needs a second OSD to keep the data while one is down");
  if (s->cluster.osds && r->osd >= s->cluster.osds)
    return study_key_error(w, root, "recovery", "osd", "osd.%u: the cluster has osd.0 to osd.%u", r->osd,
                           s->cluster.osds - 1);
  if (r->workload) {
    int found = study_has_workload(s, r->workload, false);
    if (found < 0)
      return study_oom(w);
    if (!found)
      return study_key_error(w, root, "recovery", "workload",
                             "'%s' is not one of the workloads (e.g. \"4k-randwrite\")", r->workload);
  }
  return 0;
}

/* The cells' job for workload W, its status every second, no ramp, and long
 * enough for the fault, the time down and the recovery (fio is stopped one
 * second after active+clean). */
static void recovery_job(const struct placer_study *s, const struct placer_bench_workload *w,
                         struct bench_fio_run *run) {
  s->workloads.kind->job(s, w, run);
  const struct placer_study_recovery *r = &s->recovery;
  run->runtime_s = s->workloads.ramp_s + r->at_s + r->down_s + r->timeout_s + 30;
  run->ramp_s = 0;
  run->status_s = 1;
}

static int recovery_parse(const char *text, size_t len, struct placer_bench_result *out, struct placer_error **err) {
  return placer_bench_fio_status_points(text, len, &out->timeline, &out->n_timeline, err);
}

const struct bench_workload_ops bench_workload_recovery = {
  .name = "recovery",
  .flags = BENCH_WORKLOAD_PASS,
  .section = "recovery",
  .study_offset = offsetof(struct placer_study, recovery),
  .keys = recovery_keys,
  .n_keys = N_OF(recovery_keys),
  .target_needs = BENCH_TARGET_CEPH,
  .settle = recovery_settle,
  .job = recovery_job,
  .parse = recovery_parse,
};
