/* A study's service-level objectives parsed from the YAML's scalars; see slo.h
 * and docs/bench.md, "Response curves and SLOs". */
#include "results/slo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/units.h"

const char *const placer_slo_percentile_names[PLACER_SLO_N_PERCENTILES] = { "p50", "p99", "p99.9" };

void placer_slo_init(struct placer_slo *s) {
  for (size_t i = 0; i < PLACER_SLO_N_PERCENTILES; i++)
    s->storage_ns[i] = NAN;
  s->at = PLACER_SLO_AT_NONE;
  s->at_rate = NAN;
  s->keep = NAN;
}

static int refuse(char *why, size_t len, const char *reason, const char *value) {
  if (value)
    snprintf(why, len, "%s, got '%s'", reason, value);
  else
    snprintf(why, len, "%s", reason);
  return -1;
}

static int set_storage(struct placer_slo *s, const char *key, const char *value, char *why, size_t len) {
  const char *reason;
  for (size_t i = 0; i < PLACER_SLO_N_PERCENTILES; i++) {
    if (strcmp(key, placer_slo_percentile_names[i]) != 0)
      continue;
    double ns;
    if (placer_parse_duration_ns(value, &ns, &reason) < 0)
      return refuse(why, len, reason, value);
    if (!(ns > 0))
      return refuse(why, len, "a latency target must be more than 0", value);
    s->storage_ns[i] = ns;
    return 0;
  }
  if (strcmp(key, "at") == 0) {
    const char *p = value + strspn(value, " \t");
    if (strncasecmp(p, "knee", 4) == 0 && p[4 + strspn(p + 4, " \t")] == '\0') {
      s->at = PLACER_SLO_AT_KNEE;
      s->at_rate = NAN;
      return 0;
    }
    double rate;
    int bytes;
    if (placer_parse_rate(value, &rate, &bytes, &reason) < 0)
      return refuse(why, len, reason, value);
    if (!(rate > 0))
      return refuse(why, len, "the load to hold the SLO at must be more than 0", value);
    s->at = bytes ? PLACER_SLO_AT_BYTES : PLACER_SLO_AT_IOPS;
    s->at_rate = rate;
    return 0;
  }
  snprintf(why, len, "unknown key '%s' (slo.storage takes p50, p99, p99.9 and at)", key);
  return -1;
}

int placer_slo_set(struct placer_slo *s, const char *side, const char *key, const char *value, char *why, size_t len) {
  if (strcmp(side, "storage") == 0)
    return set_storage(s, key, value, why, len);
  if (strcmp(side, "neighbours") != 0) {
    snprintf(why, len, "unknown key '%s' (slo takes storage and neighbours)", side);
    return -1;
  }
  if (strcmp(key, "keep") != 0) {
    snprintf(why, len, "unknown key '%s' (slo.neighbours takes keep)", key);
    return -1;
  }
  const char *reason;
  double share;
  if (placer_parse_share(value, &share, &reason) < 0)
    return refuse(why, len, reason, value);
  s->keep = share;
  return 0;
}

void placer_slo_targets_text(const double target_ns[PLACER_SLO_N_PERCENTILES], char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t p = 0; p < PLACER_SLO_N_PERCENTILES && at < len; p++) {
    if (isnan(target_ns[p]))
      continue;
    char t[32];
    placer_format_duration_ns(target_ns[p], t, sizeof(t));
    at += (size_t)snprintf(buf + at, len - at, "%s%s <= %s", at ? " and " : "", placer_slo_percentile_names[p], t);
  }
}

bool placer_slo_storage_set(const struct placer_slo *s) {
  for (size_t i = 0; i < PLACER_SLO_N_PERCENTILES; i++)
    if (!isnan(s->storage_ns[i]))
      return true;
  return false;
}

int placer_slo_check_steps(const struct placer_slo *s, const char *load_name, const double *loads, size_t n,
                           size_t *bad_step, char *why, size_t len) {
  for (size_t i = 0; i < n; i++) {
    if (!(loads[i] > 0) || isinf(loads[i])) {
      *bad_step = i;
      snprintf(why, len, "%s steps must be more than 0, got %g", load_name, loads[i]);
      return -1;
    }
    if (i > 0 && !(loads[i] > loads[i - 1])) {
      *bad_step = i;
      snprintf(why, len, "load steps must increase: %s %g after %g", load_name, loads[i], loads[i - 1]);
      return -1;
    }
  }
  if (n > 0 && s->at == PLACER_SLO_AT_IOPS && strcmp(load_name, "rate_iops") == 0 && s->at_rate > loads[n - 1]) {
    *bad_step = n;
    snprintf(why, len, "at %g iops is above every load step (the last, rate_iops %g): no step reaches it", s->at_rate,
             loads[n - 1]);
    return -1;
  }
  return 0;
}
