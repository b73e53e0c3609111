/* vm roles (vm.c): the qemu command line of a client guest and the choice
 * between KVM and TCG, from captured /proc/cpuinfo text. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
  /* A usable KVM: the flags decide. */
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_vmx, PLACER_VM_KVM_OK, &why),
                   PLACER_VM_ACCEL_KVM);
  assert_string_equal(why, "/dev/kvm and vmx/svm present");
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_svm, PLACER_VM_KVM_OK, &why),
                   PLACER_VM_ACCEL_KVM);
  /* No vmx/svm flag (this project's machines, a KVM guest without nested virtualization). */
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_none, PLACER_VM_KVM_OK, &why),
                   PLACER_VM_ACCEL_TCG);
  assert_string_equal(why, "no vmx/svm flag in /proc/cpuinfo: KVM guests stall here");
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_lookalike, PLACER_VM_KVM_OK, &why),
                   PLACER_VM_ACCEL_TCG);
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, NULL, PLACER_VM_KVM_OK, &why), PLACER_VM_ACCEL_TCG);
  assert_non_null(strstr(why, "vmx/svm"));
  /* Every way /dev/kvm can be unusable comes first, whatever the flags say, each with its reason. */
  static const struct {
    enum placer_vm_kvm_probe kvm;
    const char *why;
  } unusable[] = {
    { PLACER_VM_KVM_ABSENT, "no usable /dev/kvm: there is none" },
    { PLACER_VM_KVM_NOT_CHARDEV, "no usable /dev/kvm: it is not a character device" },
    { PLACER_VM_KVM_NO_OPEN, "no usable /dev/kvm: it does not open" },
    { PLACER_VM_KVM_BAD_API, "no usable /dev/kvm: KVM_GET_API_VERSION does not answer 12" },
  };
  for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++) {
    assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_vmx, unusable[i].kvm, &why),
                     PLACER_VM_ACCEL_TCG);
    assert_string_equal(why, unusable[i].why);
    assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_AUTO, cpuinfo_none, unusable[i].kvm, &why),
                     PLACER_VM_ACCEL_TCG);
    assert_string_equal(why, unusable[i].why);
  }
  /* Asked for explicitly: taken as asked. */
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_KVM, cpuinfo_none, PLACER_VM_KVM_ABSENT, &why),
                   PLACER_VM_ACCEL_KVM);
  assert_int_equal(placer_vm_choose_accel(PLACER_VM_ACCEL_TCG, cpuinfo_vmx, PLACER_VM_KVM_OK, &why),
                   PLACER_VM_ACCEL_TCG);
}

/* The probe on this machine: whatever /dev/kvm is here, probing it creates and changes nothing. */
static void test_probe_kvm_creates_nothing(void **state) {
  (void)state;
  struct stat before, after;
  int had = stat("/dev/kvm", &before) == 0;
  enum placer_vm_kvm_probe kvm = placer_vm_probe_kvm();
  int has = stat("/dev/kvm", &after) == 0;
  assert_int_equal(had, has);
  if (!had) {
    assert_int_equal(kvm, PLACER_VM_KVM_ABSENT);
  } else {
    assert_int_equal(before.st_mode, after.st_mode);
    assert_int_equal(before.st_ino, after.st_ino);
    if (!S_ISCHR(before.st_mode))
      assert_int_equal(kvm, PLACER_VM_KVM_NOT_CHARDEV);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tcg_argv),        cmocka_unit_test(test_kvm_argv),
    cmocka_unit_test(test_memory_rounding), cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_choose_accel),    cmocka_unit_test(test_probe_kvm_creates_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
