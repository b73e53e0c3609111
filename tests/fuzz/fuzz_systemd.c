/* Fuzz what the systemd backend reads from others: /proc/PID/cgroup and
 * the unit in its path, `systemctl show` output, and a Ceph daemon's
 * ceph.conf (cephconf.c). */
#include "cephconf.h"
#include "fuzz.h"
#include "systemd-unit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  struct placer_error *err = NULL;

  char *path = NULL;
  int rc = placer_systemd_cgroup2_path(text, &path, &err);
  FUZZ_CHECK((rc == 0) == (err == NULL));
  placer_error_free(err);
  err = NULL;
  char *unit = NULL, *ucg = NULL;
  if (rc == 0 && placer_systemd_unit_from_cgroup(path, &unit, &ucg, &err) == 0) {
    /* a unit placer would name in a path is a valid unit name below its group */
    FUZZ_CHECK(placer_systemd_unit_name_is_valid(unit));
    FUZZ_CHECK(strncmp(path, ucg, strlen(ucg)) == 0);
    FUZZ_CHECK(strstr(unit, "/") == NULL);
  }
  FUZZ_CHECK(err == NULL || strchr(err->msg, '\n') == NULL);
  placer_error_free(err);
  free(unit);
  free(ucg);
  free(path);

  for (size_t i = 0; placer_systemd_show_keys[i]; i++)
    free(placer_systemd_show_value(text, placer_systemd_show_keys[i]));

  struct placer_ceph_numa n;
  placer_ceph_numa_init(&n);
  placer_ceph_numa_from_conf(&n, text, "ceph.conf", "osd.3");
  FUZZ_CHECK(n.auto_affinity >= -1 && n.auto_affinity <= 1);
  FUZZ_CHECK(n.numa_node >= -1 && n.numa_node < 4096);
  char *w = placer_ceph_numa_warning(&n, "osd.3", "0-1");
  free(w);
  free(text);
  return 0;
}
