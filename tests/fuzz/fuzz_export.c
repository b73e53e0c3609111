/* Fuzz every `placer export` writer: a fuzzed profile planned on fixture
 * topologies, every format rendered.  Each render succeeds with units that
 * are well-formed in their syntax (XML parses, INI lines, YAML loads, shell
 * words) and hand no CPU of Ceph or the host to VMs or pods
 * (tests/export_check.c), or fails with one line and no output. */
#include "export/export.h"
#include "export_check.h"
#include "fuzz.h"
#include "plan/plan.h"
#include "profile/profile.h"

/* Small fixtures with and without SMT, one and two NUMA nodes' worth of
 * variety; loaded once. */
static const char *const fixtures[] = {
  PLACER_SOURCE_DIR "/tests/fixtures/crafted-hci-2s16c-8nvme.xml",
  PLACER_SOURCE_DIR "/tests/fixtures/mpibind-cts1-quartz-smt1.xml",
  PLACER_SOURCE_DIR "/tests/fixtures/24em64t-2n6c2t-pci.xml",
};
#define N_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static struct placer_topology *topologies[N_FIXTURES];

static void load_topologies(void) {
  for (size_t i = 0; i < N_FIXTURES; i++) {
    if (topologies[i])
      continue;
    struct placer_error *err = NULL;
    if (placer_topology_load(fixtures[i], &topologies[i], &err) < 0) {
      fprintf(stderr, "fuzz_export: %s\n", err->msg);
      abort();
    }
  }
}

static void render_all(const struct placer_topology *topo, const struct placer_profile *profile,
                       const struct placer_plan *plan) {
  hwloc_bitmap_t guest = hwloc_bitmap_alloc();
  for (size_t f = 0; f < placer_export_n_formats; f++) {
    const struct placer_export_format *fmt = placer_export_formats[f];
    struct placer_export_input in = { .plan = plan, .profile = profile, .topo = topo };
    struct placer_export_output *out = NULL;
    struct placer_error *err = NULL;
    if (placer_export_render(fmt, &in, &out, &err) < 0) {
      FUZZ_CHECK(out == NULL && err != NULL);
      FUZZ_CHECK(strchr(err->msg, '\n') == NULL);
      FUZZ_CHECK(err->exit_code == PLACER_EXIT_USAGE);
      placer_error_free(err);
      continue;
    }
    FUZZ_CHECK(out->n_units > 0);
    char why[1024];
    for (size_t u = 0; u < out->n_units; u++) {
      const char *bad = export_check_syntax(out->units[u].syntax, out->units[u].text, why, sizeof(why));
      if (bad)
        fprintf(stderr, "fuzz_export: %s: %s: %s\n", fmt->name, out->units[u].name, bad);
      FUZZ_CHECK(bad == NULL);
    }
    const char *bad = export_check_output(fmt->name, out, plan, guest, why, sizeof(why));
    if (bad)
      fprintf(stderr, "fuzz_export: %s: %s\n", fmt->name, bad);
    FUZZ_CHECK(bad == NULL);
    placer_export_output_free(out);
  }
  hwloc_bitmap_free(guest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  load_topologies();
  struct placer_profile *profile = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("fuzz.yaml", (const char *)data, size, &profile, &err) < 0) {
    placer_error_free(err);
    return 0;
  }
  for (size_t i = 0; i < N_FIXTURES; i++) {
    struct placer_plan *plan = NULL;
    if (placer_plan_compute(topologies[i], profile, &plan, &err) < 0) {
      placer_error_clear(&err);
      continue;
    }
    render_all(topologies[i], profile, plan);
    placer_plan_free(plan);
  }
  placer_profile_free(profile);
  return 0;
}
