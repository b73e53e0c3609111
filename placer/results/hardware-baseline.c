/* The hardware baseline against a study's results (hardware-baseline.h). */
#include "results/hardware-baseline.h"

#include <math.h>
#include <string.h>

double placer_bench_baseline_metric(const json_t *hw, const struct placer_bench_workload *w, bool *found) {
  *found = false;
  const json_t *runs = hw ? json_object_get(hw, "workloads") : NULL, *o;
  size_t i;
  json_array_foreach(runs, i, o) {
    const char *name = json_string_value(json_object_get(o, "workload"));
    if (name == NULL || strcmp(name, w->name) != 0)
      continue;
    *found = true;
    if (placer_bench_workload_uses_bandwidth(w))
      return json_number_value(json_object_get(o, "read_bw_bytes")) +
             json_number_value(json_object_get(o, "write_bw_bytes"));
    return json_number_value(json_object_get(o, "read_iops")) + json_number_value(json_object_get(o, "write_iops"));
  }
  return NAN;
}

double placer_bench_baseline_share(const json_t *hw, const struct placer_bench_results *r, size_t v, size_t w) {
  int alone = placer_bench_alone_condition(r);
  bool found;
  double x = placer_bench_baseline_metric(hw, &r->workloads[w], &found);
  if (alone < 0 || !found || !(x > 0))
    return NAN;
  struct placer_bench_cell_stats st;
  placer_bench_cell_stats(r, v, (size_t)alone, w, &st);
  return st.n_done ? st.main.median / x : NAN;
}

json_t *placer_bench_baseline_shares(const json_t *hw, const struct placer_bench_results *r) {
  json_t *shares = json_array();
  for (size_t v = 0; shares && v < r->n_variants; v++)
    for (size_t w = 0; w < r->n_workloads; w++) {
      double share = placer_bench_baseline_share(hw, r, v, w);
      json_t *o = json_pack("{s:s, s:s, s:o}", "variant", r->variants[v], "workload", r->workloads[w].name, "share",
                            isnan(share) ? json_null() : json_real(share));
      if (o == NULL || json_array_append_new(shares, o) < 0) {
        json_decref(shares);
        return NULL;
      }
    }
  return shares;
}
