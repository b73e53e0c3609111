/* Fuzz what placer reads of Ceph's counters: a perf dump (as an OSD's and as
 * an MDS's), and ceph-counters.csv (an input starting with its header).  A
 * dump that parses is sorted, its delta with itself is all zeros, and it reads
 * back the same through summary.json's form; a counters file that parses is
 * written again and reads back the same. */
#include "fuzz.h"
#include "results/ceph-counters.h"

static void check_error(struct placer_error *err) {
  FUZZ_CHECK(err != NULL && err->exit_code == PLACER_EXIT_USAGE && strchr(err->msg, '\n') == NULL);
  placer_error_free(err);
}

static void same_delta(const struct placer_ceph_delta *a, const struct placer_ceph_delta *b) {
  FUZZ_CHECK(strcmp(a->daemon, b->daemon) == 0 && a->state == b->state && strcmp(a->why, b->why) == 0);
  FUZZ_CHECK(a->n == b->n);
  for (size_t k = 0; k < a->n; k++)
    FUZZ_CHECK(strcmp(a->counters[k].name, b->counters[k].name) == 0 && a->counters[k].kind == b->counters[k].kind &&
               a->counters[k].count == b->counters[k].count && a->counters[k].sum_ns == b->counters[k].sum_ns);
}

static void dump(const char *daemon, const char *text, size_t len) {
  struct placer_ceph_counters c;
  struct placer_error *err = NULL;
  if (placer_ceph_counters_parse(daemon, text, len, &c, &err) < 0) {
    check_error(err);
    return;
  }
  for (size_t i = 1; i < c.n; i++)
    FUZZ_CHECK(strcmp(c.counters[i - 1].name, c.counters[i].name) < 0);
  struct placer_ceph_run_counters run = { .n = 1, .daemons = calloc(1, sizeof(*run.daemons)) };
  FUZZ_CHECK(placer_ceph_delta(daemon, &c, &c, NULL, &run.daemons[0], &err) == 0);
  FUZZ_CHECK(run.daemons[0].state == PLACER_CEPH_DELTA_OK && run.daemons[0].n == c.n);
  for (size_t i = 0; i < c.n; i++)
    FUZZ_CHECK(run.daemons[0].counters[i].count == 0 && run.daemons[0].counters[i].sum_ns == 0);
  if (c.n) /* one count that is not 0, to carry through */
    run.daemons[0].counters[0].count = 1;
  json_t *j = placer_ceph_run_counters_to_json(&run, 1.0);
  FUZZ_CHECK(j != NULL);
  struct placer_ceph_run_counters back;
  FUZZ_CHECK(placer_ceph_run_counters_from_json(j, "ceph_counters", &back, &err) == 0);
  FUZZ_CHECK(back.n == 1);
  same_delta(&run.daemons[0], &back.daemons[0]);
  json_decref(j);
  placer_ceph_run_counters_free(&back);
  placer_ceph_run_counters_free(&run);
  placer_ceph_counters_free(&c);
}

static void csv(const char *text, size_t len) {
  struct placer_ceph_csv_run *runs = NULL, *again = NULL;
  size_t n = 0, n_again = 0;
  struct placer_error *err = NULL;
  if (placer_ceph_csv_parse("fuzz.csv", text, len, &runs, &n, &err) < 0) {
    check_error(err);
    return;
  }
  char *out = NULL;
  size_t out_len = 0;
  FILE *f = open_memstream(&out, &out_len);
  FUZZ_CHECK(f != NULL);
  placer_ceph_csv_write_header(f);
  for (size_t i = 0; i < n; i++)
    placer_ceph_csv_write_run(f, runs[i].variant, runs[i].repeat, runs[i].condition, runs[i].workload,
                              &runs[i].counters);
  fclose(f);
  if (placer_ceph_csv_parse("again.csv", out, out_len, &again, &n_again, &err) < 0) {
    fprintf(stderr, "written again, refused: %s\n", err->msg);
    FUZZ_CHECK(!"a counters file placer wrote reads back");
  }
  FUZZ_CHECK(n_again == n);
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(strcmp(runs[i].variant, again[i].variant) == 0 && runs[i].repeat == again[i].repeat);
    FUZZ_CHECK(runs[i].counters.n == again[i].counters.n);
    for (size_t k = 0; k < runs[i].counters.n; k++)
      same_delta(&runs[i].counters.daemons[k], &again[i].counters.daemons[k]);
  }
  free(out);
  placer_ceph_csv_runs_free(runs, n);
  placer_ceph_csv_runs_free(again, n_again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  if (size >= 8 && memcmp(text, "variant,", 8) == 0) {
    csv(text, size);
    return 0;
  }
  dump("osd.0", text, size);
  dump("mds.a", text, size);
  return 0;
}
