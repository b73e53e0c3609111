/* A Ceph daemon's perf dump through its admin socket, bounded by a deadline:
 * a daemon that is stopped, gone or stuck is reported missing, never waited
 * for (see ceph-counters-read.h); the socket itself is ceph-admin.c's. */
#include "bench/ceph-counters-read.h"

#include <stdio.h>
#include <stdlib.h>

#include "ceph-admin.h"
#include "lib/error.h"

/* The command `ceph daemon X perf dump` sends. */
static const char perf_dump_command[] = "{\"prefix\": \"perf dump\"}";

int placer_bench_ceph_counters_read(const char *daemon, const char *socket_path, unsigned timeout_ms,
                                    struct placer_ceph_counters *out, char *why, size_t why_len,
                                    struct placer_error **err) {
  char *reply = NULL;
  size_t len = 0;
  int rc = placer_ceph_admin_command(socket_path, 0, perf_dump_command, timeout_ms, PLACER_CEPH_DUMP_MAX_BYTES, &reply,
                                     &len, why, why_len);
  if (rc < 0)
    return placer_error_oom(err, daemon);
  if (rc > 0)
    return 1;
  struct placer_error *bad = NULL;
  rc = placer_ceph_counters_parse(daemon, reply, len, out, &bad);
  free(reply);
  if (rc < 0) {
    if (bad->exit_code == PLACER_EXIT_SYSTEM) { /* out of memory */
      placer_error_free(bad);
      return placer_error_oom(err, daemon);
    }
    snprintf(why, why_len, "%s", bad->msg);
    placer_error_free(bad);
    return 1;
  }
  return 0;
}

void placer_bench_ceph_snapshot_free(struct placer_bench_ceph_snapshot *s) {
  if (s == NULL)
    return;
  for (size_t i = 0; s->dumps && i < s->n; i++)
    placer_ceph_counters_free(&s->dumps[i]);
  free(s->dumps);
  free(s->answered);
  free(s->why);
  *s = (struct placer_bench_ceph_snapshot){ 0 };
}

int placer_bench_ceph_snapshot_take(const struct placer_bench_ceph_daemon *d, size_t n, unsigned timeout_ms,
                                    struct placer_bench_ceph_snapshot *out, struct placer_error **err) {
  *out = (struct placer_bench_ceph_snapshot){ .n = n };
  out->dumps = calloc(n ? n : 1, sizeof(*out->dumps));
  out->answered = calloc(n ? n : 1, sizeof(*out->answered));
  out->why = calloc(n ? n : 1, sizeof(*out->why));
  if (out->dumps == NULL || out->answered == NULL || out->why == NULL) {
    placer_bench_ceph_snapshot_free(out);
    return placer_error_oom(err, "perf counters");
  }
  for (size_t i = 0; i < n; i++) {
    int rc = placer_bench_ceph_counters_read(d[i].daemon, d[i].socket, timeout_ms, &out->dumps[i], out->why[i],
                                             sizeof(out->why[i]), err);
    if (rc < 0) {
      placer_bench_ceph_snapshot_free(out);
      return -1;
    }
    out->answered[i] = rc == 0;
  }
  return 0;
}

int placer_bench_ceph_snapshot_delta(const struct placer_bench_ceph_daemon *d,
                                     const struct placer_bench_ceph_snapshot *before,
                                     const struct placer_bench_ceph_snapshot *after,
                                     struct placer_ceph_run_counters *out, struct placer_error **err) {
  size_t n = before->n < after->n ? before->n : after->n;
  *out = (struct placer_ceph_run_counters){ 0 };
  out->daemons = calloc(n ? n : 1, sizeof(*out->daemons));
  if (out->daemons == NULL)
    return placer_error_oom(err, "perf counters");
  for (size_t i = 0; i < n; i++) {
    char why[sizeof(out->daemons[i].why)];
    why[0] = '\0';
    if (!after->answered[i])
      snprintf(why, sizeof(why), "after the run: %s", after->why[i]);
    if (!before->answered[i])
      snprintf(why, sizeof(why), "before the run: %s", before->why[i]);
    int rc =
        placer_ceph_delta(d[i].daemon, before->answered[i] ? &before->dumps[i] : NULL,
                          after->answered[i] ? &after->dumps[i] : NULL, why[0] ? why : NULL, &out->daemons[i], err);
    out->n = i + 1;
    if (rc < 0) {
      placer_ceph_run_counters_free(out);
      return -1;
    }
  }
  return 0;
}
