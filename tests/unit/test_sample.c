/* Measurement parsers and readers on files captured from this project's kind of
 * machine: a ceph-osd (pid 29132, 59 threads) under fio rbd 4K randwrite,
 * snapshotted twice 3 s apart (tests/fixtures/proc/osd-under-load/{before,after}
 * used as the proc root), and the cgroup CPU files of v1 and v2 hierarchies.
 * Expected values were read from the files with python3. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "bench/sample.h"
#include "cgroup/cgroup.h"
#include "test_support.h"
#include "lib/textfile.h"

static char *fixture(const char *rel) {
  char *text = NULL;
  struct placer_error *err = NULL;
  if (placer_textfile_read(test_data_path(rel), &text, &err) < 0)
    fail_msg("%s", err->msg);
  return text;
}

static char *fixture_dir(const char *rel) {
  return strdup(test_data_path(rel));
}

/* A group's CPU usage by what its directory holds (v1 cpuacct.usage, else
 * v2 cpu.stat), through the cgroup layer's parsers: the fixtures and this
 * process's own group need no placer_cgroup handle. */
static int placer_cgroup_dir_cpu_usage_ns(const char *dir, uint64_t *out_ns, struct placer_error **err) {
  /* cpuacct.usage first: in a v1 cpu,cpuacct directory cpu.stat also exists
   * but holds only throttling counters. */
  static const struct {
    const char *file;
    int (*parse)(const char *text, uint64_t *out_ns, struct placer_error **err);
  } by_file[] = { { "cpuacct.usage", placer_cgroup_parse_cpuacct_usage },
                  { "cpu.stat", placer_cgroup_parse_cpu_stat } };
  for (size_t i = 0; i < sizeof(by_file) / sizeof(by_file[0]); i++) {
    cleanup_free char *path = NULL, *text = NULL;
    if (asprintf(&path, "%s/%s", dir, by_file[i].file) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, ENOMEM, "cgroup CPU usage");
    if (access(path, F_OK) != 0)
      continue;
    if (placer_textfile_read(path, &text, err) < 0 || by_file[i].parse(text, out_ns, err) < 0)
      return placer_error_prefix(err, "cgroup CPU usage of '%s'", dir);
    return 0;
  }
  return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                          "cgroup CPU usage of '%s': neither cpuacct.usage (v1) nor cpu.stat (v2) is there", dir);
}

static void test_cgroup_cpu(void **state) {
  uint64_t ns = 0;
  struct placer_error *err = NULL;
  char *dir = fixture_dir("fixtures/cgroup-cpu/v1-cpuacct");
  assert_int_equal(placer_cgroup_dir_cpu_usage_ns(dir, &ns, &err), 0);
  assert_int_equal(ns, 807219828208ull);
  free(dir);
  /* cpu,cpuacct: cpu.stat is the v1 one (throttling only); cpuacct.usage wins. */
  dir = fixture_dir("fixtures/cgroup-cpu/v1-cpu-cpuacct");
  assert_int_equal(placer_cgroup_dir_cpu_usage_ns(dir, &ns, &err), 0);
  assert_int_equal(ns, 807222588079ull);
  free(dir);
  /* v2: usage_usec 797486247 -> ns. */
  dir = fixture_dir("fixtures/cgroup-cpu/v2");
  assert_int_equal(placer_cgroup_dir_cpu_usage_ns(dir, &ns, &err), 0);
  assert_int_equal(ns, 797486247000ull);
  free(dir);
  /* A v1 cpu-only directory has no usage figure at all. */
  dir = fixture_dir("fixtures/cgroup-cpu/v1-cpu-only");
  assert_int_equal(placer_cgroup_dir_cpu_usage_ns(dir, &ns, &err), -1);
  assert_non_null(strstr(err->msg, "no \"usage_usec\" line"));
  assert_non_null(strstr(err->msg, "v1-cpu-only"));
  placer_error_free(err);
  free(dir);
  err = NULL;
  assert_int_equal(placer_cgroup_dir_cpu_usage_ns("/nonexistent/placer/osd.0", &ns, &err), -1);
  assert_non_null(strstr(err->msg, "neither cpuacct.usage (v1) nor cpu.stat (v2)"));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_cgroup_parse_cpuacct_usage("12x\n", &ns, &err), -1);
  placer_error_free(err);
  /* found by tests/fuzz: the error quoted the whole file, newlines and all */
  err = NULL;
  assert_int_equal(placer_cgroup_parse_cpuacct_usage("nr_periods 0\nnr_throttled 0\n", &ns, &err), -1);
  assert_string_equal(err->msg, "cpuacct.usage: not a number: \"nr_periods 0\"");
  placer_error_free(err);
  /* and usage_usec * 1000 wrapped around */
  err = NULL;
  assert_int_equal(placer_cgroup_parse_cpu_stat("usage_usec 18446744073709551615\n", &ns, &err), -1);
  assert_non_null(strstr(err->msg, "out of range"));
  placer_error_free(err);
}

static void test_parse_stat(void **state) {
  struct placer_sample_task t;
  struct placer_error *err = NULL;
  char *text = fixture("fixtures/proc/osd-under-load/after/29132/stat");
  assert_int_equal(placer_sample_parse_stat(text, &t, &err), 0);
  assert_int_equal(t.pid, 29132);
  assert_string_equal(t.comm, "ceph-osd");
  assert_int_equal(t.state, 'S');
  assert_int_equal(t.utime_ticks, 125);
  assert_int_equal(t.stime_ticks, 59);
  assert_int_equal(t.num_threads, 59);
  assert_int_equal(t.start_ticks, 80908);
  assert_int_equal(t.last_cpu, 0);
  assert_int_equal(placer_sample_task_cpu_ns(&t, 100), 1840000000ull);
  assert_int_equal(placer_sample_task_cpu_ns(&t, 0), 0);
  free(text);
  /* A real process named "x) (y z": the name runs to the last ')'. */
  text = fixture("fixtures/proc/odd-comm.stat");
  assert_int_equal(placer_sample_parse_stat(text, &t, &err), 0);
  assert_int_equal(t.pid, 18291);
  assert_string_equal(t.comm, "x) (y z");
  assert_int_equal(t.start_ticks, 86707);
  assert_int_equal(t.last_cpu, 1);
  free(text);
  assert_int_equal(placer_sample_parse_stat("12 (short) S 1 2 3\n", &t, &err), -1);
  assert_non_null(strstr(err->msg, "field 7 missing"));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_sample_parse_stat("garbage", &t, &err), -1);
  placer_error_free(err);
}

static void test_parse_status(void **state) {
  struct placer_sample_mem m;
  struct placer_error *err = NULL;
  char *text = fixture("fixtures/proc/osd-under-load/after/29132/status");
  assert_int_equal(placer_sample_parse_status(text, &m, &err), 0);
  assert_int_equal(m.rss_bytes, 175192ull * 1024);
  assert_int_equal(m.hwm_bytes, 175488ull * 1024);
  assert_int_equal(m.threads, 59);
  free(text);
  /* A kernel thread has no memory of its own. */
  text = fixture("fixtures/proc/kthreadd.status");
  assert_int_equal(placer_sample_parse_status(text, &m, &err), 0);
  assert_int_equal(m.rss_bytes, 0);
  assert_int_equal(m.hwm_bytes, 0);
  assert_int_equal(m.threads, 1);
  free(text);
}

static void test_process_reader(void **state) {
  char *root = fixture_dir("fixtures/proc/osd-under-load/before");
  struct placer_sample_task t;
  struct placer_sample_mem m;
  struct placer_error *err = NULL;
  assert_int_equal(placer_sample_process(root, 29132, &t, &m, &err), 0);
  assert_int_equal(t.utime_ticks + t.stime_ticks, 36);
  assert_int_equal(m.hwm_bytes, 81964ull * 1024);
  assert_int_equal(placer_sample_process(root, 4242, &t, NULL, &err), -1);
  assert_non_null(strstr(err->msg, "sample process 4242"));
  placer_error_free(err);
  free(root);
}

static void test_busiest_threads(void **state) {
  char *before_root = fixture_dir("fixtures/proc/osd-under-load/before");
  char *after_root = fixture_dir("fixtures/proc/osd-under-load/after");
  struct placer_sample_task *before = NULL, *after = NULL;
  size_t nb = 0, na = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_sample_threads(before_root, 29132, &before, &nb, &err), 0);
  assert_int_equal(placer_sample_threads(after_root, 29132, &after, &na, &err), 0);
  assert_int_equal(nb, 59);
  assert_int_equal(na, 59);
  assert_int_equal(before[0].pid, 29132); /* sorted by TID: the main thread first */
  struct placer_sample_thread_cpu *d = NULL;
  size_t nd = 0;
  assert_int_equal(placer_sample_thread_deltas(before, nb, after, na, &d, &nd, &err), 0);
  assert_int_equal(nd, 59);
  /* python3: bstore_kv_sync 30 ticks, msgr-worker-1 23, tp_osd_tp 17, then
   * bstore_kv_final and tp_osd_tp at 15 (ties by TID), 138 ticks in all. */
  assert_string_equal(d[0].comm, "bstore_kv_sync");
  assert_int_equal(d[0].tid, 30183);
  assert_int_equal(d[0].cpu_ticks, 30);
  assert_string_equal(d[1].comm, "msgr-worker-1");
  assert_int_equal(d[1].cpu_ticks, 23);
  assert_string_equal(d[2].comm, "tp_osd_tp");
  assert_int_equal(d[2].cpu_ticks, 17);
  assert_int_equal(d[3].tid, 30184);
  assert_string_equal(d[3].comm, "bstore_kv_final");
  assert_int_equal(d[4].tid, 30208);
  uint64_t sum = 0;
  for (size_t i = 0; i < nd; i++)
    sum += d[i].cpu_ticks;
  assert_int_equal(sum, 138);
  free(d);
  /* A thread that is not in `before` (or is a new one reusing a TID) counts from 0. */
  after[0].start_ticks += 1;
  assert_int_equal(placer_sample_thread_deltas(before, nb, after, na, &d, &nd, &err), 0);
  for (size_t i = 0; i < nd; i++)
    if (d[i].tid == 29132)
      assert_int_equal(d[i].cpu_ticks, after[0].utime_ticks + after[0].stime_ticks);
  free(d);
  free(before);
  free(after);
  assert_int_equal(placer_sample_threads(before_root, 4242, &before, &nb, &err), -1);
  assert_non_null(strstr(err->msg, "threads of 4242"));
  placer_error_free(err);
  free(before_root);
  free(after_root);
}

static void test_core_utilisation(void **state) {
  char *b_root = fixture_dir("fixtures/proc/osd-under-load/before");
  char *a_root = fixture_dir("fixtures/proc/osd-under-load/after");
  struct placer_sample_cpu_times *b = NULL, *a = NULL;
  size_t nb = 0, na = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_sample_read_proc_stat(b_root, &b, &nb, &err), 0);
  assert_int_equal(placer_sample_read_proc_stat(a_root, &a, &na, &err), 0);
  assert_int_equal(nb, 3);
  assert_int_equal(b[0].cpu, -1);
  assert_int_equal(b[1].cpu, 0);
  assert_int_equal(b[2].cpu, 1);
  assert_int_equal(b[1].user, 22257);
  assert_int_equal(b[1].steal, 39);
  /* cpu0: busy 366 of 367 ticks; cpu1: 364 of 366; all: 728 of 732. */
  assert_true(fabs(placer_sample_cpu_busy(&b[1], &a[1]) - 366.0 / 367.0) < 1e-12);
  assert_true(fabs(placer_sample_cpu_busy(&b[2], &a[2]) - 364.0 / 366.0) < 1e-12);
  assert_true(fabs(placer_sample_cpu_busy(&b[0], &a[0]) - 728.0 / 732.0) < 1e-12);
  assert_true(isnan(placer_sample_cpu_busy(&a[1], &a[1])));
  assert_true(isnan(placer_sample_cpu_busy(&a[1], &b[1])));
  free(b);
  free(a);
  /* Old kernels have fewer columns: 4 are enough. */
  assert_int_equal(placer_sample_parse_proc_stat("cpu  1 2 3 4\ncpu0 1 2 3 4\n", &b, &nb, &err), 0);
  assert_int_equal(nb, 2);
  assert_int_equal(b[1].idle, 4);
  free(b);
  assert_int_equal(placer_sample_parse_proc_stat("intr 1 2\n", &b, &nb, &err), -1);
  placer_error_free(err);
  free(b_root);
  free(a_root);
}

static void test_device_writes(void **state) {
  char *b_root = fixture_dir("fixtures/proc/osd-under-load/before");
  char *a_root = fixture_dir("fixtures/proc/osd-under-load/after");
  struct placer_sample_disk *b = NULL, *a = NULL;
  size_t nb = 0, na = 0;
  struct placer_error *err = NULL;
  assert_int_equal(placer_sample_read_diskstats(b_root, &b, &nb, &err), 0);
  assert_int_equal(placer_sample_read_diskstats(a_root, &a, &na, &err), 0);
  assert_int_equal(nb, 10);
  assert_string_equal(b[8].name, "vda");
  assert_int_equal(b[8].major, 254);
  assert_int_equal(b[8].write_ios, 690389);
  assert_int_equal(b[8].write_sectors, 28178808);
  assert_int_equal(b[8].read_sectors, 7962842);
  /* vda: 28689648 - 28178808 sectors of 512 bytes. */
  const char *devs[] = { "vda" };
  uint64_t bytes = 0;
  assert_int_equal(placer_sample_disk_written_bytes(b, nb, a, na, devs, 1, &bytes, &err), 0);
  assert_int_equal(bytes, (28689648ull - 28178808ull) * 512);
  const char *two[] = { "vda", "zram0" };
  assert_int_equal(placer_sample_disk_written_bytes(b, nb, a, na, two, 2, &bytes, &err), 0);
  assert_int_equal(bytes, (28689648ull - 28178808ull) * 512);
  const char *missing[] = { "nvme0n1" };
  assert_int_equal(placer_sample_disk_written_bytes(b, nb, a, na, missing, 1, &bytes, &err), -1);
  assert_non_null(strstr(err->msg, "'nvme0n1'"));
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_sample_disk_written_bytes(a, na, b, nb, devs, 1, &bytes, &err), -1);
  assert_non_null(strstr(err->msg, "went backwards"));
  placer_error_free(err);
  err = NULL;
  free(b);
  free(a);
  assert_int_equal(placer_sample_parse_diskstats(" 8 0 sda 1 2 3\n", &b, &nb, &err), -1);
  assert_non_null(strstr(err->msg, "line 1"));
  placer_error_free(err);
  free(b_root);
  free(a_root);
}

static uint64_t process_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cgroup directory holding this process's CPU accounting, or NULL: the v1
 * cpuacct hierarchy, else a pure v2 one. */
static char *own_cpu_cgroup(void) {
  char *text = NULL, *dir = NULL, *save = NULL;
  struct placer_error *err = NULL;
  if (placer_textfile_read("/proc/self/cgroup", &text, &err) < 0) {
    placer_error_free(err);
    return NULL;
  }
  bool pure_v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
  for (char *line = strtok_r(text, "\n", &save); line && dir == NULL; line = strtok_r(NULL, "\n", &save)) {
    /* "ID:CONTROLLERS:PATH" */
    char *controllers = strchr(line, ':'), *path = controllers ? strchr(controllers + 1, ':') : NULL;
    if (path == NULL)
      continue;
    *path++ = '\0';
    controllers++;
    const char *mounts[2] = { NULL, NULL };
    if (strcmp(controllers, "cpuacct") == 0 || strcmp(controllers, "cpu,cpuacct") == 0) {
      mounts[0] = "/sys/fs/cgroup/cpuacct";
      mounts[1] = "/sys/fs/cgroup/cpu,cpuacct";
    } else if (controllers[0] == '\0' && pure_v2) {
      mounts[0] = "/sys/fs/cgroup";
    }
    for (size_t i = 0; i < 2 && mounts[i] && dir == NULL; i++)
      if (asprintf(&dir, "%s%s", mounts[i], path) > 0 && access(dir, F_OK) != 0) {
        free(dir);
        dir = NULL;
      }
  }
  free(text);
  return dir;
}

/* The readers on the live /proc and cgroup files of this very process: burn
 * CPU, and the figures must move by what the kernel's own clock says. */
static void test_live_self(void **state) {
  if (access("/proc/self/stat", R_OK) != 0)
    skip();
  struct placer_sample_task t0, t1;
  struct placer_sample_mem mem;
  struct placer_error *err = NULL;
  long hz = sysconf(_SC_CLK_TCK);
  char *cg = own_cpu_cgroup();
  uint64_t cg0 = 0, cg1 = 0;
  if (cg && placer_cgroup_dir_cpu_usage_ns(cg, &cg0, &err) < 0)
    fail_msg("%s", err->msg);
  assert_int_equal(placer_sample_process("/proc", getpid(), &t0, &mem, &err), 0);
  uint64_t c0 = process_cpu_ns();
  volatile uint64_t spin = 0;
  do {
    for (int i = 0; i < 1000000; i++)
      spin += (uint64_t)i;
    assert_int_equal(placer_sample_process("/proc", getpid(), &t1, NULL, &err), 0);
  } while (placer_sample_task_cpu_ns(&t1, hz) < placer_sample_task_cpu_ns(&t0, hz) + 200000000ull &&
           process_cpu_ns() - c0 < 3000000000ull);
  (void)spin; /* the work is the point: volatile keeps it */
  uint64_t c1 = process_cpu_ns();
  double sampled = (double)(placer_sample_task_cpu_ns(&t1, hz) - placer_sample_task_cpu_ns(&t0, hz));
  double clock = (double)(c1 - c0);
  /* Tick accounting is coarse (1/hz at each end). */
  assert_true(fabs(sampled - clock) <= 3e9 / (double)hz + 0.05 * clock);
  assert_int_equal(t1.pid, getpid());
  assert_true(mem.rss_bytes > 0 && mem.hwm_bytes >= mem.rss_bytes);
  struct placer_sample_task *threads = NULL;
  size_t n = 0;
  assert_int_equal(placer_sample_threads("/proc", getpid(), &threads, &n, &err), 0);
  assert_true(n >= 1);
  assert_int_equal(threads[0].pid, getpid());
  free(threads);
  if (cg) {
    if (placer_cgroup_dir_cpu_usage_ns(cg, &cg1, &err) < 0)
      fail_msg("%s", err->msg);
    /* The group holds this process (and maybe more): at least our CPU. */
    assert_true((double)(cg1 - cg0) >= 0.9 * clock);
    free(cg);
  }
  struct placer_sample_cpu_times *cpus = NULL;
  assert_int_equal(placer_sample_read_proc_stat("/proc", &cpus, &n, &err), 0);
  assert_true(n >= 2 && cpus[0].cpu == -1 && cpus[1].cpu >= 0);
  free(cpus);
  struct placer_sample_disk *disks = NULL;
  if (access("/proc/diskstats", R_OK) == 0) {
    assert_int_equal(placer_sample_read_diskstats("/proc", &disks, &n, &err), 0);
    free(disks);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cgroup_cpu),      cmocka_unit_test(test_parse_stat),
    cmocka_unit_test(test_parse_status),    cmocka_unit_test(test_process_reader),
    cmocka_unit_test(test_busiest_threads), cmocka_unit_test(test_core_utilisation),
    cmocka_unit_test(test_device_writes),   cmocka_unit_test(test_live_self),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
