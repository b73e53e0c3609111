/* Golden plans: every shipped profile on every fixture topology, compared
 * byte for byte with tests/golden/plan/PROFILE--FIXTURE.json (the plan) or
 * PROFILE--FIXTURE.error (the exit-3 message of a profile that does not
 * fit).  The command line must print the same bytes as the library.
 *
 * Regenerate after an intended change, then review the diff by eye:
 *   PLACER_UPDATE_GOLDEN=1 ctest -R test_plan_golden    (from the build dir)
 *   git diff tests/golden/plan/ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static const char *const profiles[] = { "demo-local", "hci-hdd", "hci-nvme", "unpinned" };

/* PROFILE--FIXTURE (fixture without .xml) */
static void golden_name(char *buf, size_t len, const char *profile, const char *fixture, const char *ext) {
  snprintf(buf, len, "golden/plan/%s--%.*s.%s", profile, (int)(strlen(fixture) - 4), fixture, ext);
}

static void test_golden_plans(void **state) {
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  assert_true(n_fixtures >= 8);
  for (size_t f = 0; f < n_fixtures; f++) {
    char relative[256];
    snprintf(relative, sizeof(relative), "fixtures/%s", fixtures[f]);
    struct placer_topology *topo = NULL;
    struct placer_error *err = NULL;
    if (placer_topology_load(test_data_path(relative), &topo, &err) < 0)
      fail_msg("%s: %s", fixtures[f], err->msg);
    for (size_t p = 0; p < N(profiles); p++) {
      char path[256];
      snprintf(path, sizeof(path), "../profiles/%s.yaml", profiles[p]);
      struct placer_profile *profile = NULL;
      if (placer_profile_load(test_data_path(path), &profile, &err) < 0)
        fail_msg("%s: %s", profiles[p], err->msg);
      struct placer_plan *plan = NULL;
      char golden[512];
      if (placer_plan_compute(topo, profile, &plan, &err) < 0) {
        assert_int_equal(err->exit_code, PLACER_EXIT_INFEASIBLE);
        char *text = NULL;
        assert_true(asprintf(&text, "%s\n", err->msg) > 0);
        golden_name(golden, sizeof(golden), profiles[p], fixtures[f], "error");
        test_compare_golden(golden, text);
        free(text);
        placer_error_free(err);
        err = NULL;
      } else {
        /* the source as the command line shows it when run from tests/ */
        free(plan->topology_source);
        plan->topology_source = strdup(relative);
        json_t *j = placer_plan_to_json(plan);
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)); /* as the CLI */
        char *with_newline = NULL;
        assert_true(asprintf(&with_newline, "%s\n", text) > 0);
        golden_name(golden, sizeof(golden), profiles[p], fixtures[f], "json");
        test_compare_golden(golden, with_newline);
        free(with_newline);
        free(text);
        json_decref(j);
        placer_plan_free(plan);
      }
      placer_profile_free(profile);
    }
    placer_topology_free(topo);
  }
}

/* `placer plan --json` prints exactly the golden bytes; an infeasible
 * profile exits 3 with its message on stderr and nothing on stdout. */
static void test_cli_matches_golden(void **state) {
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL || test_updating_golden())
    skip();
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  char *tests_dir = strdup(test_data_path(""));
  for (size_t f = 0; f < n_fixtures; f++)
    for (size_t p = 0; p < N(profiles); p++) {
      char json[512], error[512], cmd[8192];
      golden_name(json, sizeof(json), profiles[p], fixtures[f], "json");
      golden_name(error, sizeof(error), profiles[p], fixtures[f], "error");
      bool fits = access(test_data_path(json), F_OK) == 0;
      if (fits)
        snprintf(cmd, sizeof(cmd),
                 "cd '%s' && '%s' plan --json --topology fixtures/%s ../profiles/%s.yaml 2>/dev/null | cmp -s - %s",
                 tests_dir, bin, fixtures[f], profiles[p], json);
      else
        snprintf(cmd, sizeof(cmd),
                 "cd '%s' && out=$('%s' plan --json --topology fixtures/%s ../profiles/%s.yaml 2>/dev/null);"
                 " rc=$?; [ $rc = 3 ] && [ -z \"$out\" ] && [ \"$('%s' plan --topology fixtures/%s"
                 " ../profiles/%s.yaml 2>&1)\" = \"placer: $(cat %s)\" ]",
                 tests_dir, bin, fixtures[f], profiles[p], bin, fixtures[f], profiles[p], error);
      if (system(cmd) != 0)
        fail_msg("placer plan %s on %s: output differs from %s", profiles[p], fixtures[f], fits ? json : error);
    }
  free(tests_dir);
}

/* The table for a person, on one pair: its layout is part of the review. */
static void test_golden_text(void **state) {
  struct placer_topology *topo = NULL;
  struct placer_profile *profile = NULL;
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  char *xml = strdup(test_data_path("fixtures/mpibind-cts1-quartz-smt1.xml"));
  if (placer_topology_load(xml, &topo, &err) < 0 ||
      placer_profile_load(test_data_path("../profiles/hci-hdd.yaml"), &profile, &err) < 0 ||
      placer_plan_compute(topo, profile, &plan, &err) < 0)
    fail_msg("%s", err->msg);
  free(plan->topology_source);
  plan->topology_source = strdup("fixtures/mpibind-cts1-quartz-smt1.xml");
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_int_equal(placer_plan_print_text(plan, f), 0);
  fclose(f);
  test_compare_golden("golden/plan/hci-hdd--mpibind-cts1-quartz-smt1.txt", text);
  free(text);
  free(xml);
  placer_plan_free(plan);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* Test profiles on the fixtures they were written for: the cases of cache
 * alignment measured on EPYC topologies (issue 25, tests/profiles/align-*.yaml)
 * and an MDS among roles of single threads (issue 38,
 * tests/profiles/mds-beside-threads.yaml): the plan as JSON, and as the
 * table where a person reviews it (its L3 column, its MDS lines). */
static const struct {
  const char *profile, *fixture;
  bool text;
} test_profile_goldens[] = {
  { "align-epyc-8-per-l3", "crafted-epyc-1s4n-2l3x8c.xml", true },
  { "align-epyc-3-per-l3", "mpibind-epyc-corona.xml", true },
  { "align-epyc-8-per-l3", "mpibind-epyc-dual-sock-hwloc1.xml", false },
  { "align-epyc-3-per-l3", "mpibind-epyc-dual-sock-hwloc1.xml", false },
  { "mds-beside-threads", "crafted-hci-2s16c-8nvme.xml", true },
  { "mds-beside-threads", "mpibind-epyc-corona.xml", false },
};

static void test_golden_test_profiles(void **state) {
  for (size_t i = 0; i < N(test_profile_goldens); i++) {
    char relative[256], path[256];
    snprintf(relative, sizeof(relative), "fixtures/%s", test_profile_goldens[i].fixture);
    snprintf(path, sizeof(path), "profiles/%s.yaml", test_profile_goldens[i].profile);
    struct placer_topology *topo = NULL;
    struct placer_profile *profile = NULL;
    struct placer_plan *plan = NULL;
    struct placer_error *err = NULL;
    char *xml = strdup(test_data_path(relative));
    if (placer_topology_load(xml, &topo, &err) < 0 || placer_profile_load(test_data_path(path), &profile, &err) < 0 ||
        placer_plan_compute(topo, profile, &plan, &err) < 0)
      fail_msg("%s on %s: %s", test_profile_goldens[i].profile, test_profile_goldens[i].fixture, err->msg);
    free(plan->topology_source);
    plan->topology_source = strdup(relative);
    char golden[512];
    json_t *j = placer_plan_to_json(plan);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    char *with_newline = NULL;
    assert_true(asprintf(&with_newline, "%s\n", text) > 0);
    golden_name(golden, sizeof(golden), test_profile_goldens[i].profile, test_profile_goldens[i].fixture, "json");
    test_compare_golden(golden, with_newline);
    free(with_newline);
    free(text);
    json_decref(j);
    if (test_profile_goldens[i].text) {
      size_t size = 0;
      FILE *f = open_memstream(&text, &size);
      assert_int_equal(placer_plan_print_text(plan, f), 0);
      fclose(f);
      golden_name(golden, sizeof(golden), test_profile_goldens[i].profile, test_profile_goldens[i].fixture, "txt");
      test_compare_golden(golden, text);
      free(text);
    }
    free(xml);
    placer_plan_free(plan);
    placer_profile_free(profile);
    placer_topology_free(topo);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_golden_plans),
    cmocka_unit_test(test_cli_matches_golden),
    cmocka_unit_test(test_golden_text),
    cmocka_unit_test(test_golden_test_profiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
