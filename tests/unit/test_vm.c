/* vm roles (vm.c): the qemu command line of a client guest and the choice
 * between KVM and TCG, from captured /proc/cpuinfo text. */
#include <stdlib.h>
#include <string.h>

#include "lib/substitute.h"
#include "test_support.h"
#include "vm.h"

static struct placer_vm_params base(void) {
  struct placer_vm_params p = {
    .name = "vm.0",
    .accel = PLACER_VM_ACCEL_TCG,
    .vcpus = 2,
    .memory_bytes = 512ull << 20,
    .kernel = "/var/tmp/vm/vmlinux",
    .initrd = "/var/tmp/vm/initramfs.cpio.gz",
    .work = "cpu",
    .seconds = 30,
    .work_memory_bytes = 64ull << 20,
    .console_path = "/run/placer/run/p/vm.0.console",
  };
  return p;
}

static void test_tcg_argv(void **state) {
  (void)state;
  struct placer_vm_params p = base();
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_vm_qemu_argv(&p, &argv, &err), 0);
  char *q = placer_argv_quote(argv);
  assert_string_equal(q, "qemu-system-x86_64 -accel tcg -name guest=vm.0,debug-threads=on -smp 2 -m 512M "
                         "-kernel /var/tmp/vm/vmlinux -initrd /var/tmp/vm/initramfs.cpio.gz "
                         "-append 'console=ttyS0 quiet panic=-1 placer.mode=work placer.work=cpu placer.seconds=30 "
                         "placer.mem_mb=64' -nic none -no-reboot -display none -monitor none "
                         "-serial file:/run/placer/run/p/vm.0.console");
  free(q);
  placer_argv_free(argv);
}

static void test_kvm_argv(void **state) {
  (void)state;
  struct placer_vm_params p = base();
  p.accel = PLACER_VM_ACCEL_KVM;
  p.append = "placer.interval=2";
  p.console_path = NULL;
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_vm_qemu_argv(&p, &argv, &err), 0);
  assert_string_equal(argv[1], "-accel");
  assert_string_equal(argv[2], "kvm");
  assert_string_equal(argv[3], "-cpu");
  assert_string_equal(argv[4], "host");
  size_t n = placer_argv_len(argv);
  assert_string_equal(argv[n - 1], "null"); /* -serial null without a console file */
  bool found = false;
  for (size_t i = 0; argv[i]; i++)
    found = found || (strstr(argv[i], "placer.mem_mb=64 placer.interval=2") != NULL);
  assert_true(found);
  placer_argv_free(argv);
}

static void expect_refused(struct placer_vm_params *p, const char *fragment) {
  char **argv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_vm_qemu_argv(p, &argv, &err), -1);
  assert_null(argv);
  if (err == NULL || strstr(err->msg, fragment) == NULL)
    fail_msg("error '%s' does not mention '%s'", err ? err->msg : "(none)", fragment);
  placer_error_free(err);
}

/* -m is whole MiB, rounded up, also for sizes where adding a MiB first
 * would wrap around (it used to give "-m 0M"). */
static void test_memory_rounding(void **state) {
  (void)state;
  const struct {
    uint64_t bytes;
    const char *want;
  } cases[] = {
    { 512ull << 20, "512M" },
    { (512ull << 20) + 1, "513M" },
    { UINT64_MAX, "17592186044416M" },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct placer_vm_params p = base();
    p.memory_bytes = cases[i].bytes;
    char **argv = NULL;
    struct placer_error *err = NULL;
    assert_int_equal(placer_vm_qemu_argv(&p, &argv, &err), 0);
    size_t k = 0;
    while (argv[k] && strcmp(argv[k], "-m") != 0)
      k++;
    assert_non_null(argv[k]);
    assert_string_equal(argv[k + 1], cases[i].want);
    placer_argv_free(argv);
  }
}

static void test_refusals(void **state) {
  (void)state;
  struct placer_vm_params p = base();
  p.name = "vm,0";
  expect_refused(&p, "without ','");
  p = base();
  p.name = "vm 0";
  expect_refused(&p, "without ','");
  p = base();
  p.kernel = NULL;
  expect_refused(&p, "PLACER_VM_KERNEL");
  p = base();
  p.console_path = "/tmp/a,b";
  expect_refused(&p, "must not contain ','");
  p = base();
  p.accel = PLACER_VM_ACCEL_AUTO;
  expect_refused(&p, "resolved");
}

static const char cpuinfo_vmx[] = "processor\t: 0\nvendor_id\t: GenuineIntel\n"
                                  "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr vmx smx est tm2\n"
                                  "bugs\t\t: spectre_v1\n\n";
static const char cpuinfo_svm[] = "processor\t: 0\nflags\t\t: fpu svm lahf_lm\n";
/* This project's machines: a KVM guest without nested virtualization. */
static const char cpuinfo_none[] = "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                                   "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic hypervisor lahf_lm cmp_legacy\n"
                                   "vmx flags\t: vnmi\n"; /* a "vmx flags" line alone does not count */
static const char cpuinfo_lookalike[] = "flags\t\t: fpu svmx vmxe\n";

static void test_choose_accel(void **state) {
  (void)state;
  const char *why = NULL;
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_vmx, true, &why), PLACER_VM_ACCEL_KVM);
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_svm, true, &why), PLACER_VM_ACCEL_KVM);
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_none, true, &why), PLACER_VM_ACCEL_TCG);
  assert_non_null(strstr(why, "vmx/svm"));
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_lookalike, true, &why), PLACER_VM_ACCEL_TCG);
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_vmx, false, &why), PLACER_VM_ACCEL_TCG);
  assert_non_null(strstr(why, "/dev/kvm"));
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, NULL, true, &why), PLACER_VM_ACCEL_TCG);
  /* Asked for explicitly: taken as asked. */
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_KVM, cpuinfo_none, false, &why), PLACER_VM_ACCEL_KVM);
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_TCG, cpuinfo_vmx, true, &why), PLACER_VM_ACCEL_TCG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tcg_argv), cmocka_unit_test(test_kvm_argv),     cmocka_unit_test(test_memory_rounding),
    cmocka_unit_test(test_refusals), cmocka_unit_test(test_choose_accel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
