/* placer size on measured results (tests/fixtures/results/sweep-2osd, a real
 * bench run) and the crafted 2-socket 8-NVMe node: the answer to "how many
 * VMs fit beside 8 NVMe OSDs on this node", checked against the plan's own
 * accounting and against TripleO's formula worked out here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "size/size.h"
#include "test_support.h"

static struct placer_topology *crafted(void) {
  struct placer_topology *topo = NULL;
  struct placer_error *err = NULL;
  if (placer_topology_load(test_data_path("fixtures/crafted-hci-2s16c-8nvme.xml"), &topo, &err) < 0)
    fail_msg("topology: %s", err->msg);
  return topo;
}

static struct placer_profile *hci_nvme(void) {
  struct placer_profile *p = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_load(test_data_path("../profiles/hci-nvme.yaml"), &p, &err) < 0)
    fail_msg("profile: %s", err->msg);
  return p;
}

static struct placer_bench_results *recorded(void) {
  struct placer_bench_results *r = NULL;
  struct placer_error *err = NULL;
  if (placer_bench_results_load_dir(test_data_path("fixtures/results/sweep-2osd"), &r, &err) < 0)
    fail_msg("results: %s", err->msg);
  return r;
}

static struct placer_size_result *size_ok(struct placer_bench_results *r, const struct placer_size_options *opt) {
  struct placer_topology *topo = crafted();
  struct placer_profile *profile = hci_nvme();
  struct placer_size_result *res = NULL;
  struct placer_error *err = NULL;
  if (placer_size_compute(r ? &r : NULL, r ? 1 : 0, topo, profile, opt, &res, &err) < 0)
    fail_msg("size: %s", err->msg);
  placer_profile_free(profile);
  placer_topology_free(topo);
  return res;
}

/* What every answer must hold: the plan's VMs are the ones counted, each
 * on one node, and no node gives out more threads or memory than it has. */
static void check_accounting(const struct placer_size_result *res) {
  unsigned vms = 0, osds = 0;
  for (size_t n = 0; n < res->n_nodes; n++) {
    const struct placer_size_node *s = &res->nodes[n];
    vms += s->vms;
    osds += s->osds;
    assert_true(s->host_pus + s->osd_pus + s->other_pus + s->vm_pus + s->free_pus == s->pus);
    assert_true(s->vms * res->opt.vm_vcpus <= s->vm_pus);
    assert_true(s->host_memory + s->osd_memory + s->other_memory + s->vm_memory <= s->memory_bytes);
    assert_true(s->vm_memory == (uint64_t)s->vms * (res->opt.vm_memory_bytes + res->opt.vm_overhead_bytes));
  }
  assert_int_equal(vms, res->vms);
  assert_int_equal(osds, res->osds);
  for (size_t i = 0; i < res->plan->n_instances; i++) {
    const struct placer_instance *inst = &res->plan->instances[i];
    if (inst->kind == PLACER_KIND_VM)
      assert_true(inst->numa_node >= 0 && hwloc_bitmap_weight(inst->mems) == 1);
  }
}

/* TripleO, by hand: 2 x 192 GB, 8 OSDs x 5 GiB, 4 GiB host, guests of
 * 4 GiB + 0.5 GiB; 64 threads less 8 OSDs x 1 core x 2 threads, 2 vCPUs. */
static void check_tripleo(const struct placer_size_result *res) {
  uint64_t mem = 2 * 192000000000ull;
  uint64_t left = mem - (4ull << 30) - 8 * (5ull << 30);
  assert_int_equal(res->tripleo_vms_by_memory, (unsigned)(left / ((4ull << 30) + (512ull << 20))));
  assert_int_equal(res->tripleo_vms_by_cpu, (64 - 16) / 2);
  assert_int_equal(res->tripleo_vms, 24);
}

static void test_recorded_default(void **state) {
  (void)state;
  struct placer_bench_results *r = recorded();
  struct placer_size_options opt;
  placer_size_options_default(&opt);
  struct placer_size_result *res = size_ok(r, &opt);
  assert_int_equal(res->osds, 8);
  assert_int_equal(res->measured_osds, 2);
  assert_int_equal(res->n_workloads, 2);
  /* write costs more CPU than read per I/O: the write sizes the OSDs */
  assert_string_equal(res->workloads[res->sizing].name, "4k-randwrite");
  const struct placer_size_workload *w = &res->workloads[res->sizing];
  assert_true(w->n_runs >= 2);
  assert_true(w->cpu_ms_per_io > 0.1 && w->cpu_ms_per_io < 5);
  /* writes scale by target / measured replicas: 3/2 */
  assert_true(fabs(w->cpu_ms_per_io_target / w->cpu_ms_per_io - 1.5) < 0.01);
  /* the shipped profile's 6 threads per OSD, 4 GiB target + 20% */
  assert_int_equal(res->osd_threads, 6);
  assert_true(fabs(w->iops_per_osd - 6000.0 / w->cpu_ms_per_io_target) < 1);
  assert_true(res->osd_memory_bytes == (uint64_t)((double)(4ull << 30) * 1.2));
  check_accounting(res);
  check_tripleo(res);
  /* 8 x 6 threads fill both sockets: the VMs get node 1's last three cores */
  assert_int_equal(res->vms, 3);
  assert_int_equal(res->nodes[0].vms, 0);
  assert_int_equal(res->nodes[1].vms, 3);
  placer_size_result_free(res);
  placer_bench_results_free(r);
}

/* The sizing question of docs/size.md: 8 NVMe OSDs that must each serve
 * 3,000 4K random-write IOPS (client I/O, 3 replicas) on the crafted node. */
static void test_recorded_target_iops(void **state) {
  (void)state;
  struct placer_bench_results *r = recorded();
  struct placer_size_options opt;
  placer_size_options_default(&opt);
  opt.target_iops = 3000;
  struct placer_size_result *res = size_ok(r, &opt);
  const struct placer_size_workload *w = &res->workloads[res->sizing];
  unsigned need = (unsigned)ceil(3000 * w->cpu_ms_per_io_target / 1000);
  assert_int_equal(w->threads_needed, need);
  /* whole cores (SMT-2): the threads rounded up to an even number */
  assert_int_equal(res->osd_threads, need + need % 2);
  check_accounting(res);
  /* what is left after the host, the MDS and 8 OSDs, 2 vCPUs a guest */
  unsigned left = 0;
  for (size_t n = 0; n < res->n_nodes; n++)
    left += res->nodes[n].vm_pus;
  assert_int_equal(res->vms, left / 2);
  /* on the recorded costs: 4 threads (2 cores) per OSD; 11 guests, 4 on node 0 beside the MDS, 7 on node 1 */
  assert_int_equal(res->osd_threads, 4);
  assert_int_equal(res->vms, 11);
  assert_int_equal(res->nodes[0].vms, 4);
  assert_int_equal(res->nodes[1].vms, 7);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(placer_size_print_text(res, f), 0);
  fclose(f);
  assert_non_null(strstr(text, "fit beside 8 OSDs"));
  assert_non_null(strstr(text, "TripleO HCI formula: 24 VMs"));
  printf("%s", text); /* the docs quote this */
  free(text);
  json_t *j = placer_size_to_json(res);
  assert_int_equal(json_integer_value(json_object_get(j, "vms")), res->vms);
  assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "tripleo"), "vms")), 24);
  assert_int_equal(json_array_size(json_object_get(j, "numa_nodes")), 2);
  json_decref(j);
  placer_size_result_free(res);
  placer_bench_results_free(r);
}

static void test_given_figures(void **state) {
  (void)state;
  struct placer_size_options opt;
  placer_size_options_default(&opt);
  opt.given_cpu_ms_per_io = 0.5;
  opt.given_rss_bytes = 6ull << 30; /* above the target: the RSS sizes the memory */
  opt.target_iops = 4000;           /* 2 threads = 1 core */
  struct placer_size_result *res = size_ok(NULL, &opt);
  assert_int_equal(res->osd_threads, 2);
  assert_true(res->osd_memory_bytes == (uint64_t)((double)(6ull << 30) * 1.2));
  check_accounting(res);
  assert_true(res->vms > 3);
  placer_size_result_free(res);
}

static void test_errors(void **state) {
  (void)state;
  struct placer_topology *topo = crafted();
  struct placer_profile *profile = hci_nvme();
  struct placer_size_options opt;
  placer_size_options_default(&opt);
  struct placer_size_result *res = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_size_compute(NULL, 0, topo, profile, &opt, &res, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_string_equal(err->msg, "size: give a results directory or the figures (--cpu-ms-per-io)");
  placer_error_free(err);
  err = NULL;
  struct placer_bench_results *r = recorded();
  opt.workload = "64k-write";
  assert_int_equal(placer_size_compute(&r, 1, topo, profile, &opt, &res, &err), -1);
  assert_string_equal(err->msg, "size: no measured workload '64k-write'");
  placer_error_free(err);
  err = NULL;
  assert_int_equal(placer_bench_results_load_dir("/nonexistent", &r, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
  placer_bench_results_free(r);
  placer_profile_free(profile);
  placer_topology_free(topo);
}

/* The command line: the same answer in JSON, usage errors exit 2. */
static void test_cli(void **state) {
  (void)state;
  const char *bin = getenv("PLACER_BIN");
  if (bin == NULL)
    skip();
  char *dir = strdup(test_data_path(""));
  char cmd[4096];
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && '%s' size --topology fixtures/crafted-hci-2s16c-8nvme.xml --target-iops 3000 --json "
           "fixtures/results/sweep-2osd",
           dir, bin);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  json_error_t jerr;
  json_t *j = json_loadf(p, 0, &jerr);
  assert_int_equal(pclose(p), 0);
  if (j == NULL)
    fail_msg("placer size --json: %s", jerr.text);
  assert_string_equal(json_string_value(json_object_get(j, "format")), "placer-size");
  assert_int_equal(json_integer_value(json_object_get(j, "vms")), 11);
  assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "osd"), "threads")), 4);
  json_decref(j);
  static const char *const bad[] = {
    "size",                                   /* no results, no figures */
    "size --vm-vcpus 0 --cpu-ms-per-io 1",    /* out of range */
    "size --headroom lots --cpu-ms-per-io 1", /* not a number */
    "size --validate golden/bench/ab.json",   /* not a validation file */
    "size --bogus",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >/dev/null 2>&1", dir, bin, bad[i]);
    int rc = system(cmd);
    if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 2)
      fail_msg("placer %s: exit %d, expected 2", bad[i], WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
  }
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_recorded_default),
    cmocka_unit_test(test_recorded_target_iops),
    cmocka_unit_test(test_given_figures),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
