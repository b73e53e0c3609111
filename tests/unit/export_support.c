/* The export unit tests' shared part (export_support.h). */
#include "export_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_check.h"
#include "test_support.h"

void load_text(const char *fixture, const char *yaml, struct loaded *l) {
  char relative[256];
  snprintf(relative, sizeof(relative), "fixtures/%s", fixture);
  struct placer_error *err = NULL;
  *l = (struct loaded){ 0 };
  if (placer_topology_load(test_data_path(relative), &l->topo, &err) < 0 ||
      placer_profile_parse("t.yaml", yaml, strlen(yaml), &l->profile, &err) < 0 ||
      placer_plan_compute(l->topo, l->profile, &l->plan, &err) < 0)
    fail_msg("%s: %s", fixture, err->msg);
}

void unload(struct loaded *l) {
  placer_export_map_free(l->map);
  placer_plan_free(l->plan);
  placer_profile_free(l->profile);
  placer_topology_free(l->topo);
}

/* Render FORMAT: its output (caller frees), or NULL and *msg the error. */
struct placer_export_output *render(struct loaded *l, const char *format, char **msg) {
  const struct placer_export_format *fmt = placer_export_format_find(format);
  assert_non_null(fmt);
  struct placer_export_input in = { .plan = l->plan,
                                    .profile = l->profile,
                                    .topo = l->topo,
                                    .map = l->map,
                                    .target = l->target,
                                    .merge_path = l->merge_path,
                                    .merge_text = l->merge_text };
  struct placer_export_output *out = NULL;
  struct placer_error *err = NULL;
  *msg = NULL;
  if (placer_export_render(fmt, &in, &out, &err) < 0) {
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    assert_null(strchr(err->msg, '\n'));
    *msg = strdup(err->msg);
    placer_error_free(err);
    return NULL;
  }
  return out;
}

void expect_refusal(struct loaded *l, const char *format, const char *says) {
  char *msg = NULL;
  struct placer_export_output *out = render(l, format, &msg);
  if (out)
    fail_msg("%s: rendered, expected a refusal saying '%s'", format, says);
  if (strstr(msg, says) == NULL)
    fail_msg("%s: '%s' does not say '%s'", format, msg, says);
  free(msg);
}

/* The whole text of every unit. */
char *rendered(struct loaded *l, const char *format) {
  char *msg = NULL;
  struct placer_export_output *out = render(l, format, &msg);
  if (out == NULL)
    fail_msg("%s: %s", format, msg);
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  placer_export_print(out, f);
  fclose(f);
  placer_export_output_free(out);
  return text;
}

void expect_profile_error(const char *yaml, const char *says) {
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_profile_parse("p.yaml", yaml, strlen(yaml), &p, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, says) == NULL)
    fail_msg("'%s' does not say '%s'", err->msg, says);
  placer_error_free(err);
}

void load_file(const char *fixture, const char *profile_path, struct loaded *l) {
  char relative[256];
  snprintf(relative, sizeof(relative), "fixtures/%s", fixture);
  struct placer_error *err = NULL;
  *l = (struct loaded){ 0 };
  if (placer_topology_load(test_data_path(relative), &l->topo, &err) < 0 ||
      placer_profile_load(test_data_path(profile_path), &l->profile, &err) < 0 ||
      placer_plan_compute(l->topo, l->profile, &l->plan, &err) < 0)
    fail_msg("%s with %s: %s", fixture, profile_path, err->msg);
}

void expect_check_reads(struct placer_export_output *out, const struct placer_plan *plan, const char *format,
                        size_t unit, const char *find, const char *wrong) {
  char why[512];
  hwloc_bitmap_t guest = hwloc_bitmap_alloc();
  assert_null(export_check_output(format, out, plan, guest, why, sizeof(why)));
  char *saved = out->units[unit].text, *bad = strdup(saved), *at = strstr(bad, find);
  assert_non_null(at);
  assert_int_equal(strlen(wrong), strlen(find));
  memcpy(at, wrong, strlen(wrong));
  out->units[unit].text = bad;
  const char *problem = export_check_output(format, out, plan, guest, why, sizeof(why));
  out->units[unit].text = saved;
  free(bad);
  hwloc_bitmap_free(guest);
  if (problem == NULL)
    fail_msg("%s: the check passes with '%s' in place of '%s'", format, wrong, find);
}
