/* Neighbour kind vm: a small qemu guest (libexec/vm/init's work mode)
 * started through `placer exec`, its vCPUs pinned when the role says so; its
 * rate the PLACER-WORK units per second its console reports over the
 * measured window. */
#include "bench/neighbour.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/textfile.h"
#include "vm.h"

int placer_bench_parse_guest_progress(const char *text, bool *started, double *units, double *elapsed_ms) {
  bool have = false;
  *started = strstr(text, "PLACER-WORK-START") != NULL;
  for (const char *p = text; (p = strstr(p, "PLACER-WORK")) != NULL; p++) {
    const char *rest = p + strlen("PLACER-WORK");
    if (strncmp(rest, "-START", 6) == 0)
      continue;
    const char *u = strstr(rest, "units=");
    const char *e = strstr(rest, "elapsed_ms=");
    const char *nl = strchr(rest, '\n');
    if (u == NULL || e == NULL || (nl && (u > nl || e > nl)))
      continue;
    char *end1, *end2;
    double uv = strtod(u + 6, &end1), ev = strtod(e + 11, &end2);
    if (end1 == u + 6 || end2 == e + 11)
      continue; /* a line cut short while the guest writes it */
    if (nl == NULL && (*end2 == '\0'))
      continue; /* the last line may still be being written */
    *units = uv;
    *elapsed_ms = ev;
    have = true;
  }
  return have ? 0 : -1;
}

static int read_console(const char *path, bool *started, double *units, double *ms) {
  char *text = NULL;
  struct placer_error *e = NULL;
  if (placer_textfile_read(path, &text, &e) < 0) {
    placer_error_free(e);
    *started = false;
    return -1;
  }
  int rc = placer_bench_parse_guest_progress(text, started, units, ms);
  free(text);
  return rc;
}

static int vm_prepare(const struct placer_bench_neighbour_env *env, unsigned intensity,
                      struct placer_bench_neighbour_proc *p, struct placer_launch_spec *spec,
                      struct placer_error **err) {
  (void)spec;
  const struct placer_study_neighbour *nb = p->spec;
  const struct placer_instance *inst = p->inst;
  if (env->vm_kernel == NULL || env->vm_initrd == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, 0, "neighbour '%s': no guest kernel and initramfs", nb->name);
  if (asprintf(&p->console, "%s/%s.%s.%s.console", env->log_dir, env->tag, nb->name, inst->name) < 0)
    return placer_error_oom(err, NULL);
  unlink(p->console);
  cleanup_free char *guest = NULL;
  if (asprintf(&guest, "bench-%s", inst->name) < 0)
    return placer_error_oom(err, NULL);
  const char *why;
  struct placer_vm_params params = {
    .name = guest,
    .accel = placer_vm_detect_accel(PLACER_VM_ACCEL_AUTO, &why),
    .vcpus = intensity,
    .memory_bytes = nb->memory_bytes,
    .kernel = env->vm_kernel,
    .initrd = env->vm_initrd,
    .work = "cpu",
    .seconds = env->max_seconds,
    .work_memory_bytes = nb->work_memory_bytes,
    .console_path = p->console,
  };
  return placer_vm_qemu_argv(&params, &p->argv, err);
}

static int vm_started(struct placer_bench_neighbour_proc *p, const char *cpus, unsigned intensity,
                      struct placer_error **err) {
  if (!p->inst->pin_vcpus)
    return 0;
  char *summary = NULL;
  if (placer_vm_pin_vcpus(p->rec.pid, cpus, intensity, 15000, &summary, err) < 0)
    return -1;
  free(summary);
  return 0;
}

/* Booted and printing progress. */
static bool vm_working(struct placer_bench_neighbour_proc *p, unsigned waited_ms) {
  (void)waited_ms;
  bool started;
  double u, ms;
  return read_console(p->console, &started, &u, &ms) == 0 && started;
}

static void vm_mark(struct placer_bench_neighbour_proc *p) {
  bool started;
  if (read_console(p->console, &started, &p->units0, &p->ms0) < 0) {
    p->units0 = 0; /* no progress line yet: the guest just started its work */
    p->ms0 = 0;
  }
}

static double vm_rate(struct placer_bench_neighbour_proc *p) {
  bool started;
  double u1, ms1;
  if (read_console(p->console, &started, &u1, &ms1) == 0 && ms1 > p->ms0)
    return (u1 - p->units0) / ((ms1 - p->ms0) / 1000.0);
  return NAN;
}

static const char *const vm_keys[] = { "kernel", "initrd", "memory", "work_memory", NULL };

const struct bench_neighbour_ops bench_neighbour_vm = {
  .name = "vm",
  .kind = "vm",
  .keys = vm_keys,
  .backend = PLACER_STUDY_BACKEND_EXEC,
  .flags = BENCH_NEIGHBOUR_GUEST,
  .program = "qemu-system-x86_64",
  .unit = "guest vCPUs",
  .rate_unit = "work units/s",
  .start_limit_ms = 120000,
  .late = "the guest did not report progress",
  .launch = &placer_launch_exec,
  .prepare = vm_prepare,
  .start = bench_neighbour_start_placed,
  .started = vm_started,
  .working = vm_working,
  .mark = vm_mark,
  .rate = vm_rate,
  .cleanup = bench_neighbour_reap,
};
