/* The systemd backend's state file (apply-systemd-state.c): what it records
 * reads back the same, it names its backend (status and reset are
 * dispatched on that), and an emptied state removes the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply-systemd-internal.h"
#include "test_support.h"

static void test_round_trip(void **state) {
  (void)state;
  char dir[] = "/tmp/test_apply_systemd_state.XXXXXX";
  assert_non_null(mkdtemp(dir));
  struct sd_state s = { 0 };
  s.dir = strdup(dir);
  s.profile_name = strdup("p");
  s.applied_at = strdup("2025-01-02T03:04:05Z");
  s.persist = true;
  s.v = calloc(1, sizeof(*s.v));
  s.n = 1;
  struct sd_instance *si = &s.v[0];
  si->name = strdup("osd.0");
  si->role = strdup("osd");
  si->kind = PLACER_KIND_CEPH_OSD;
  si->match = strdup("ceph-osd --id 0");
  si->unit = strdup("ceph-osd@0.service");
  si->cgroup = strdup("/system.slice/ceph-osd@0.service");
  si->cpus = strdup("2-3");
  si->mems = strdup("0");
  si->has_memory_limit = true;
  si->memory_bytes = 1ull << 30;
  si->cpu_weight = 300;
  si->previous[SD_ALLOWED_CPUS] = strdup("");
  si->created[SD_ALLOWED_CPUS] = true;
  si->dropin = strdup("/etc/systemd/system/ceph-osd@0.service.d/50-placer.conf");
  si->procs = calloc(1, sizeof(*si->procs));
  si->procs[0] = (struct placer_state_process){ .pid = 4505, .start_time = 1234567 };
  si->n_procs = 1;
  struct placer_error *err = NULL;
  assert_int_equal(sd_state_save(&s, &err), 0);

  char path[300];
  snprintf(path, sizeof(path), "%s/%s", dir, SD_STATE_FILE);
  char *text = test_read_file(path);
  assert_non_null(text);
  json_t *doc = json_loads(text, 0, NULL);
  assert_non_null(doc);
  assert_string_equal(json_string_value(json_object_get(doc, "backend")), "systemd");
  json_decref(doc);
  free(text);
  const struct placer_apply_backend_ops *ops = NULL;
  assert_int_equal(placer_apply_backend_recorded(dir, &ops, &err), 0);
  assert_ptr_equal(ops, &placer_apply_backend_systemd);

  struct sd_state b;
  assert_int_equal(sd_state_load(dir, &b, &err), 0);
  assert_string_equal(b.profile_name, "p");
  assert_string_equal(b.applied_at, "2025-01-02T03:04:05Z");
  assert_true(b.persist);
  assert_int_equal(b.n, 1);
  const struct sd_instance *bi = &b.v[0];
  assert_string_equal(bi->name, "osd.0");
  assert_int_equal(bi->kind, PLACER_KIND_CEPH_OSD);
  assert_string_equal(bi->unit, "ceph-osd@0.service");
  assert_string_equal(bi->cgroup, "/system.slice/ceph-osd@0.service");
  assert_string_equal(bi->cpus, "2-3");
  assert_string_equal(bi->mems, "0");
  assert_true(bi->has_memory_limit);
  assert_int_equal(bi->memory_bytes, 1ull << 30);
  assert_int_equal(bi->cpu_weight, 300);
  assert_string_equal(bi->previous[SD_ALLOWED_CPUS], "");
  assert_null(bi->previous[SD_MEMORY_MAX]);
  assert_true(bi->created[SD_ALLOWED_CPUS]);
  assert_false(bi->created[SD_CPU_WEIGHT]);
  assert_string_equal(bi->dropin, "/etc/systemd/system/ceph-osd@0.service.d/50-placer.conf");
  assert_int_equal(bi->n_procs, 1);
  assert_int_equal(bi->procs[0].pid, 4505);
  assert_int_equal(bi->procs[0].start_time, 1234567);
  sd_state_clear(&b);

  /* nothing left to undo: the file goes, and nothing is recorded any more */
  sd_instance_clear(&s.v[0]);
  s.n = 0;
  assert_int_equal(sd_state_save(&s, &err), 0);
  assert_int_equal(access(path, F_OK), -1);
  assert_int_equal(placer_apply_backend_recorded(dir, &ops, &err), 0);
  assert_ptr_equal(ops, &placer_apply_backend_cgroupfs);
  assert_int_equal(sd_state_save(&s, &err), 0); /* twice is fine */
  sd_state_clear(&s);
  assert_int_equal(rmdir(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
