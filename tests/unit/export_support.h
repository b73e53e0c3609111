/* What the export unit tests share (tests/unit/test_export*.c): a plan of a
 * fixture and an inline profile, rendering a format of it, and refusals. */
#ifndef PLACER_TEST_EXPORT_SUPPORT_H
#define PLACER_TEST_EXPORT_SUPPORT_H

#include "export/export.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "topology/topology.h"

struct loaded {
  struct placer_topology *topo;
  struct placer_profile *profile;
  struct placer_plan *plan;
  struct placer_export_map *map;
  const char *target;     /* --target */
  const char *merge_path; /* --merge */
  const char *merge_text;
};

/* FIXTURE (a file of tests/fixtures/) planned with the profile YAML (or the
 * file PROFILE_PATH under tests/ for load_file); fails the test otherwise. */
void load_text(const char *fixture, const char *yaml, struct loaded *l);
void load_file(const char *fixture, const char *profile_path, struct loaded *l);
void unload(struct loaded *l);
/* Render FORMAT: its output (caller frees), or NULL and *msg the error
 * (which must be one line, exit 2). */
struct placer_export_output *render(struct loaded *l, const char *format, char **msg);
void expect_refusal(struct loaded *l, const char *format, const char *says);
/* The whole text of every unit as stdout shows it (caller frees). */
char *rendered(struct loaded *l, const char *format);
/* The profile YAML is refused (exit 2) with a message holding SAYS. */
void expect_profile_error(const char *yaml, const char *says);
/* export_check_output of FORMAT passes on OUT, and fails once unit UNIT's
 * text has FIND replaced by WRONG (as long): the check reads that value. */
void expect_check_reads(struct placer_export_output *out, const struct placer_plan *plan, const char *format,
                        size_t unit, const char *find, const char *wrong);

#endif
