/* Golden exports: every format of `placer export` for every profile that
 * fits every fixture topology (the shipped ones and tests/profiles/export-*),
 * compared byte for byte with tests/golden/export/PROFILE--FIXTURE.txt (one
 * section per format: its output, or the exit-2 line of a format the profile
 * cannot express).  The command line must print the same bytes.
 *
 * Regenerate after an intended change, then review the diff by eye:
 *   PLACER_UPDATE_GOLDEN=1 ctest -R test_export_golden    (from the build dir)
 *   git diff tests/golden/export/ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export_check.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* Paths as the command line sees them when run from tests/. */
static const char *const profiles[] = {
  "../profiles/demo-local.yaml", "../profiles/hci-hdd.yaml", "../profiles/hci-nvme.yaml",
  "../profiles/unpinned.yaml",   "profiles/export-hci.yaml", "profiles/export-proxmox.yaml",
};

/* The fixtures on which the command line is compared too (each run loads the topology). */
static const char *const cli_fixtures[] = { "crafted-hci-2s16c-8nvme.xml", "24em64t-2n6c2t-pci.xml" };

/* "hci-nvme" from "../profiles/hci-nvme.yaml" */
static void base_name(char *buf, size_t len, const char *path, const char *ext) {
  const char *slash = strrchr(path, '/');
  const char *b = slash ? slash + 1 : path;
  snprintf(buf, len, "%.*s", (int)(strlen(b) - strlen(ext)), b);
}

/* What `placer export --format F` prints on stdout (exit 0), or on stderr
 * (exit 2): *exit_code says which. */
static char *render(const struct placer_export_format *fmt, const struct placer_export_input *in, int *exit_code,
                    char **notes) {
  struct placer_export_output *out = NULL;
  struct placer_error *err = NULL;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  char *n = NULL;
  size_t nsize = 0;
  FILE *nf = open_memstream(&n, &nsize);
  if (placer_export_render(fmt, in, &out, &err) < 0) {
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    assert_null(strchr(err->msg, '\n'));
    fprintf(f, "placer: %s\n", err->msg);
    *exit_code = err->exit_code;
    placer_error_free(err);
  } else {
    assert_int_equal(placer_export_print(out, f), 0);
    for (size_t i = 0; i < out->notes.n; i++)
      fprintf(nf, "placer export: note: %s\n", out->notes.items[i]);
    *exit_code = 0;
    /* every unit parses back in its syntax */
    for (size_t u = 0; u < out->n_units; u++) {
      char why[512];
      if (export_check_syntax(out->units[u].syntax, out->units[u].text, why, sizeof(why)))
        fail_msg("%s: %s: %s", fmt->name, out->units[u].name, why);
    }
    placer_export_output_free(out);
  }
  fclose(f);
  fclose(nf);
  *notes = n;
  return text;
}

struct loaded {
  struct placer_topology *topo;
  struct placer_profile *profile;
  struct placer_plan *plan;
};

/* false when the profile does not fit the fixture (the plan goldens cover that). */
static bool load(const char *fixture, const char *profile_path, struct loaded *l) {
  char relative[256];
  snprintf(relative, sizeof(relative), "fixtures/%s", fixture);
  struct placer_error *err = NULL;
  *l = (struct loaded){ 0 };
  if (placer_topology_load(test_data_path(relative), &l->topo, &err) < 0 ||
      placer_profile_load(test_data_path(profile_path), &l->profile, &err) < 0)
    fail_msg("%s %s: %s", fixture, profile_path, err->msg);
  if (placer_plan_compute(l->topo, l->profile, &l->plan, &err) < 0) {
    assert_int_equal(err->exit_code, PLACER_EXIT_INFEASIBLE);
    placer_error_free(err);
    placer_profile_free(l->profile);
    placer_topology_free(l->topo);
    return false;
  }
  free(l->plan->topology_source);
  l->plan->topology_source = strdup(relative);
  free(l->plan->profile_path);
  l->plan->profile_path = strdup(profile_path);
  return true;
}

static void unload(struct loaded *l) {
  placer_plan_free(l->plan);
  placer_profile_free(l->profile);
  placer_topology_free(l->topo);
}

static void test_golden_exports(void **state) {
  char fixtures[32][128];
  size_t n_fixtures = test_list_fixtures(fixtures, 32);
  assert_true(n_fixtures >= 8);
  size_t compared = 0;
  for (size_t fx = 0; fx < n_fixtures; fx++)
    for (size_t p = 0; p < N(profiles); p++) {
      struct loaded l;
      if (!load(fixtures[fx], profiles[p], &l))
        continue;
      struct placer_export_input in = { .plan = l.plan, .profile = l.profile, .topo = l.topo };
      char *all = NULL;
      size_t size = 0;
      FILE *f = open_memstream(&all, &size);
      for (size_t i = 0; i < placer_export_n_formats; i++) {
        int code = 0;
        char *notes = NULL;
        char *text = render(placer_export_formats[i], &in, &code, &notes);
        fprintf(f, "==== placer export --format %s (exit %d) ====\n%s%s", placer_export_formats[i]->name, code, text,
                notes);
        free(text);
        free(notes);
      }
      fclose(f);
      char profile[128], fixture[128], golden[512];
      base_name(profile, sizeof(profile), profiles[p], ".yaml");
      base_name(fixture, sizeof(fixture), fixtures[fx], ".xml");
      snprintf(golden, sizeof(golden), "golden/export/%s--%s.txt", profile, fixture);
      test_compare_golden(golden, all);
      compared++;
      free(all);
      unload(&l);
    }
  assert_true(compared >= 30);
}

/* `placer export` prints the same bytes and exit code as the library, and
 * nothing on stdout when it refuses. */
static void test_cli_matches(void **state) {
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL || test_updating_golden())
    skip();
  char *tests_dir = strdup(test_data_path(""));
  for (size_t fx = 0; fx < N(cli_fixtures); fx++)
    for (size_t p = 0; p < N(profiles); p++) {
      struct loaded l;
      if (!load(cli_fixtures[fx], profiles[p], &l))
        continue;
      struct placer_export_input in = { .plan = l.plan, .profile = l.profile, .topo = l.topo };
      for (size_t i = 0; i < placer_export_n_formats; i++) {
        int code = 0;
        char *notes = NULL;
        char *want = render(placer_export_formats[i], &in, &code, &notes);
        char cmd[8192];
        snprintf(cmd, sizeof(cmd),
                 "cd '%s' && '%s' export --format %s --topology fixtures/%s %s 2>/dev/null; echo \"rc=$?\"", tests_dir,
                 bin, placer_export_formats[i]->name, cli_fixtures[fx], profiles[p]);
        FILE *pipe = popen(cmd, "r");
        assert_non_null(pipe);
        char *got = NULL;
        size_t size = 0;
        FILE *g = open_memstream(&got, &size);
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0)
          fwrite(buf, 1, n, g);
        pclose(pipe);
        fclose(g);
        char *expect = NULL;
        assert_true(asprintf(&expect, "%src=%d\n", code ? "" : want, code) > 0);
        if (strcmp(got, expect) != 0)
          fail_msg("placer export --format %s %s on %s:\n--- library\n%s--- command line\n%s",
                   placer_export_formats[i]->name, profiles[p], cli_fixtures[fx], expect, got);
        free(expect);
        free(got);
        free(want);
        free(notes);
      }
      unload(&l);
    }
  free(tests_dir);
}

/* The formats' table is PLACER_EXPORT_FORMATS's line: each entry's own name
 * is the one the line gives it (export-NAME.c spells it once more, in its
 * struct), in that order, and --format takes exactly those words. */
static void test_table_is_the_line(void **state) {
  (void)state;
  static const char *const names[] = {
#define NAME(name) #name,
    PLACER_EXPORT_FORMATS(NAME)
#undef NAME
  };
  assert_int_equal(placer_export_n_formats, N(names));
  char words[512] = "";
  for (size_t i = 0; i < N(names); i++) {
    assert_string_equal(placer_export_formats[i]->name, names[i]);
    assert_ptr_equal(placer_export_format_find(names[i]), placer_export_formats[i]);
    snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s%s", i ? "|" : "", names[i]);
  }
  assert_string_equal(PLACER_EXPORT_FORMAT_NAMES, words);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table_is_the_line),
    cmocka_unit_test(test_golden_exports),
    cmocka_unit_test(test_cli_matches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
