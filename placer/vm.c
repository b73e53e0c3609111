/* qemu guests for vm roles: argv, KVM or TCG, vCPU pinning; see vm.h. */
#include "vm.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/substitute.h"
#include "lib/textfile.h"
#include "proc.h"
#include "topology/topology.h"
#include "vcpu.h"

static bool has_any(const char *s, const char *bytes) {
  return s && strpbrk(s, bytes) != NULL;
}

int placer_vm_qemu_argv(const struct placer_vm_params *p, char ***out, struct placer_error **err) {
  if (p->name == NULL || *p->name == '\0' || has_any(p->name, ", \t\n="))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "vm name '%s': qemu needs one without ',', '=' or blanks",
                            p->name ? p->name : "");
  if (p->kernel == NULL || *p->kernel == '\0' || p->initrd == NULL || *p->initrd == '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, 0,
                            "vm %s: no guest kernel/initramfs (set run.vm.kernel and run.vm.initrd, or "
                            "PLACER_VM_KERNEL and PLACER_VM_INITRD; libexec/vm/build-initramfs.sh builds them)",
                            p->name);
  if (p->console_path && has_any(p->console_path, ","))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "vm %s: console path '%s' must not contain ','", p->name,
                            p->console_path);
  if (p->work && has_any(p->work, " \t\n"))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "vm %s: bad work '%s'", p->name, p->work);
  if (p->vcpus == 0 || p->memory_bytes < (16ull << 20))
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "vm %s: needs at least 1 vCPU and 16 MiB", p->name);
  if (p->accel != PLACER_VM_ACCEL_TCG && p->accel != PLACER_VM_ACCEL_KVM)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "vm %s: accel must be resolved to tcg or kvm", p->name);

  char **argv = NULL;
  char *s = NULL;
  bool ok = true;
#define PUSH(x) (ok = ok && placer_argv_push(&argv, (x)) == 0)
#define PUSHF(...)                                                                \
  do {                                                                            \
    s = NULL;                                                                     \
    ok = ok && asprintf(&s, __VA_ARGS__) >= 0 && placer_argv_push(&argv, s) == 0; \
    free(s);                                                                      \
  } while (0)
  PUSH(p->qemu ? p->qemu : "qemu-system-x86_64");
  PUSH("-accel");
  PUSH(p->accel == PLACER_VM_ACCEL_KVM ? "kvm" : "tcg");
  if (p->accel == PLACER_VM_ACCEL_KVM) {
    PUSH("-cpu");
    PUSH("host");
  }
  PUSH("-name");
  PUSHF("guest=%s,debug-threads=on", p->name);
  PUSH("-smp");
  PUSHF("%u", p->vcpus);
  PUSH("-m");
  /* Whole MiB, rounded up without overflowing near UINT64_MAX. */
  PUSHF("%" PRIu64 "M", (p->memory_bytes >> 20) + ((p->memory_bytes & ((1u << 20) - 1)) != 0));
  PUSH("-kernel");
  PUSH(p->kernel);
  PUSH("-initrd");
  PUSH(p->initrd);
  PUSH("-append");
  PUSHF("console=ttyS0 quiet panic=-1 placer.mode=work placer.work=%s placer.seconds=%u placer.mem_mb=%" PRIu64 "%s%s",
        p->work ? p->work : "cpu", p->seconds, p->work_memory_bytes >> 20, p->append ? " " : "",
        p->append ? p->append : "");
  PUSH("-nic");
  PUSH("none");
  PUSH("-no-reboot");
  PUSH("-display");
  PUSH("none");
  PUSH("-monitor");
  PUSH("none");
  PUSH("-serial");
  if (p->console_path)
    PUSHF("file:%s", p->console_path);
  else
    PUSH("null");
#undef PUSH
#undef PUSHF
  if (!ok) {
    placer_argv_free(argv);
    return placer_error_oom(err, "qemu argv");
  }
  *out = argv;
  return 0;
}

/* A "flags" line of /proc/cpuinfo names FLAG as a whole word. */
static bool cpuinfo_has_flag(const char *cpuinfo, const char *flag) {
  size_t flen = strlen(flag);
  for (const char *line = cpuinfo; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (strncmp(line, "flags", 5) == 0) {
      const char *colon = memchr(line, ':', len);
      for (const char *p = colon; p && p < line + len; p++) {
        if ((p[-1] == ' ' || p[-1] == ':' || p[-1] == '\t') && (size_t)(line + len - p) >= flen &&
            strncmp(p, flag, flen) == 0 && (p + flen == line + len || p[flen] == ' ' || p[flen] == '\t'))
          return true;
      }
    }
    line = end ? end + 1 : NULL;
  }
  return false;
}

enum placer_vm_accel placer_vm_choose_accel(enum placer_vm_accel requested, const char *cpuinfo,
                                            enum placer_vm_kvm_probe kvm, const char **why) {
  if (requested == PLACER_VM_ACCEL_TCG) {
    *why = "asked for tcg";
    return PLACER_VM_ACCEL_TCG;
  }
  if (requested == PLACER_VM_ACCEL_KVM) {
    *why = "asked for kvm";
    return PLACER_VM_ACCEL_KVM;
  }
  switch (kvm) {
  case PLACER_VM_KVM_ABSENT: *why = "no usable /dev/kvm: there is none"; return PLACER_VM_ACCEL_TCG;
  case PLACER_VM_KVM_NOT_CHARDEV: *why = "no usable /dev/kvm: it is not a character device"; return PLACER_VM_ACCEL_TCG;
  case PLACER_VM_KVM_NO_OPEN: *why = "no usable /dev/kvm: it does not open"; return PLACER_VM_ACCEL_TCG;
  case PLACER_VM_KVM_BAD_API:
    *why = "no usable /dev/kvm: KVM_GET_API_VERSION does not answer 12";
    return PLACER_VM_ACCEL_TCG;
  case PLACER_VM_KVM_OK: break;
  }
  if (cpuinfo == NULL || !(cpuinfo_has_flag(cpuinfo, "vmx") || cpuinfo_has_flag(cpuinfo, "svm"))) {
    *why = "no vmx/svm flag in /proc/cpuinfo: KVM guests stall here";
    return PLACER_VM_ACCEL_TCG;
  }
  *why = "/dev/kvm and vmx/svm present";
  return PLACER_VM_ACCEL_KVM;
}

enum placer_vm_kvm_probe placer_vm_probe_kvm(void) {
  struct stat st;
  if (stat("/dev/kvm", &st) < 0)
    return PLACER_VM_KVM_ABSENT;
  if (!S_ISCHR(st.st_mode))
    return PLACER_VM_KVM_NOT_CHARDEV;
  int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC | O_NOCTTY); /* never O_CREAT */
  if (fd < 0)
    return PLACER_VM_KVM_NO_OPEN;
  int version = ioctl(fd, KVM_GET_API_VERSION, 0);
  close(fd);
  return version == KVM_API_VERSION ? PLACER_VM_KVM_OK : PLACER_VM_KVM_BAD_API;
}

enum placer_vm_accel placer_vm_detect_accel(enum placer_vm_accel requested, const char **why) {
  enum placer_vm_kvm_probe kvm = placer_vm_probe_kvm();
  char *cpuinfo = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read("/proc/cpuinfo", &cpuinfo, &e) < 0)
    placer_error_free(e);
  enum placer_vm_accel a = placer_vm_choose_accel(requested, cpuinfo, kvm, why);
  free(cpuinfo);
  return a;
}

int placer_vm_pin_vcpus(pid_t pid, const char *cpus, unsigned vcpus, unsigned timeout_ms, char **summary,
                        struct placer_error **err) {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == NULL || placer_cpulist_parse(cpus, set) < 0 || hwloc_bitmap_iszero(set)) {
    hwloc_bitmap_free(set);
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "pin vCPUs: bad cpu list '%s'", cpus);
  }
  struct placer_vcpu *v = NULL;
  size_t n = 0;
  const char *source = NULL;
  struct timespec ts = { 0, 20 * 1000000L };
  for (unsigned waited = 0;; waited += 20) {
    free(v);
    v = NULL;
    n = 0;
    struct placer_error *e = NULL;
    if (placer_vcpu_find(pid, NULL, &v, &n, &source, &e) < 0) {
      placer_error_free(e);
      n = 0;
    }
    if (n >= vcpus || waited >= timeout_ms)
      break;
    nanosleep(&ts, NULL);
  }
  if (n < vcpus) {
    free(v);
    hwloc_bitmap_free(set);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, 0, "qemu %d: %zu of %u vCPU threads after %u ms", (int)pid, n,
                            vcpus, timeout_ms);
  }
  char *text = strdup("");
  int ret = 0;
  for (size_t i = 0; i < n && ret == 0; i++) {
    int pu = placer_cpulist_nth(set, v[i].cpu_index);
    char one[16];
    snprintf(one, sizeof(one), "%d", pu);
    ret = placer_task_set_affinity(v[i].tid, one, err);
    if (ret < 0) {
      placer_error_prefix(err, "pin vCPU %u (thread %d)", v[i].cpu_index, (int)v[i].tid);
      break;
    }
    char *grown = NULL;
    if (text && asprintf(&grown, "%s%svcpu%u->%d", text, *text ? " " : "", v[i].cpu_index, pu) >= 0) {
      free(text);
      text = grown;
    }
  }
  free(v);
  hwloc_bitmap_free(set);
  if (ret < 0) {
    free(text);
    return -1;
  }
  if (summary)
    *summary = text;
  else
    free(text);
  return 0;
}
