/* Fuzz the /proc parsers with one input each: PID/stat (apply's start
 * time, bench's samples), PID/status (allowed lists, memory), PID/cmdline,
 * PID/cgroup, mountinfo, /proc/stat and /proc/diskstats. */
#include "bench/sample.h"
#include "cgroup/cgroup-internal.h"
#include "cgroup/cgroup.h"
#include "fuzz.h"
#include "proc.h"
#include "procmatch.h"

/* A parser's result: 0 and no error, or -1 and one line. */
static void check_error(int rc, struct placer_error **err) {
  FUZZ_CHECK((rc == 0) == (*err == NULL));
  FUZZ_CHECK(*err == NULL || strchr((*err)->msg, '\n') == NULL);
  placer_error_free(*err);
  *err = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  struct placer_error *err = NULL;
  int rc;

  uint64_t start, field;
  placer_proc_stat_start_time(text, &start);
  char comm[17];
  if (placer_proc_stat_comm(text, comm, sizeof(comm)) == 0)
    FUZZ_CHECK(strlen(comm) < sizeof(comm));
  placer_proc_stat_field(text, 48, &field);
  struct placer_sample_task task;
  rc = placer_sample_parse_stat(text, &task, &err);
  check_error(rc, &err);
  struct placer_sample_mem mem;
  rc = placer_sample_parse_status(text, &mem, &err);
  check_error(rc, &err);
  free(placer_proc_status_field(text, "Cpus_allowed_list"));
  free(placer_proc_status_field(text, "Mems_allowed_list"));

  struct placer_cmdline cl = { 0 };
  if (placer_cmdline_split((const char *)data, size, &cl) == 0) {
    free(placer_cmdline_join(&cl));
    placer_cmdline_clear(&cl);
  }

  char *path = NULL;
  if (placer_cgroup_proc_lookup(text, "cpuset", &path) == 0)
    free(path);
  path = NULL;
  if (placer_cgroup_proc_lookup(text, NULL, &path) == 0)
    free(path);

  char *mount_point = NULL, *mount_root = NULL;
  if (cg_mountinfo_lookup(text, "/sys/fs/cgroup", "cpuset", &mount_point, &mount_root) == 0) {
    free(mount_point);
    free(mount_root);
  }
  mount_point = mount_root = NULL;
  if (cg_mountinfo_lookup(text, "/sys/fs/cgroup/placer", NULL, &mount_point, &mount_root) == 0) {
    free(mount_point);
    free(mount_root);
  }
  struct placer_cgroup_hier *hier = NULL;
  size_t n = 0;
  if (cg_mountinfo_children(text, "/sys/fs/cgroup", &hier, &n) == 0) {
    for (size_t i = 0; i < n; i++) {
      free(hier[i].mount_point);
      free(hier[i].mount_root);
    }
    free(hier);
  }

  struct placer_sample_cpu_times *cpus = NULL;
  n = 0;
  rc = placer_sample_parse_proc_stat(text, &cpus, &n, &err);
  check_error(rc, &err);
  if (rc == 0) {
    if (n > 0)
      placer_sample_cpu_busy(&cpus[0], &cpus[n - 1]);
    free(cpus);
  }
  struct placer_sample_disk *disks = NULL;
  n = 0;
  rc = placer_sample_parse_diskstats(text, &disks, &n, &err);
  check_error(rc, &err);
  if (rc == 0)
    free(disks);

  pid_t pid;
  placer_parse_pid_text(text, &pid);
  free(text);
  return 0;
}
