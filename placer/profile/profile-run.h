/* The run: section of a profile role: what `placer run` starts for each
 * instance (backend, command, image, environment, network, stop timeout,
 * and for vm roles the guest).  Values are templates substituted per
 * instance (substitute.h).  Schema in docs/run.md. */
#ifndef PLACER_PROFILE_RUN_H
#define PLACER_PROFILE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#include "profile/profile.h"
#include "runspec.h"

enum placer_run_backend {
  PLACER_RUN_EXEC,
  PLACER_RUN_PODMAN,
};

enum placer_vm_accel {
  PLACER_VM_ACCEL_AUTO, /* kvm when the host can really run it, else tcg */
  PLACER_VM_ACCEL_TCG,
  PLACER_VM_ACCEL_KVM,
};

/* A vm role's guest: qemu with a kernel and an initramfs whose /init runs a
 * load (libexec/vm/init) for SECONDS, then powers off. */
struct placer_vm_config {
  unsigned vcpus;             /* default 1 */
  uint64_t memory_bytes;      /* guest RAM, default 512 MiB */
  unsigned seconds;           /* how long the load runs, default 3600 */
  char *work;                 /* the load, default "cpu" */
  uint64_t work_memory_bytes; /* working set of the load, default 64 MiB */
  char *kernel;               /* templates; NULL: $PLACER_VM_KERNEL */
  char *initrd;               /* NULL: $PLACER_VM_INITRD */
  enum placer_vm_accel accel;
  char *append; /* more kernel parameters, NULL when none */
};

struct placer_run_config {
  enum placer_run_backend backend;
  struct placer_string_list command;     /* argv templates (a string is split on blanks, no shell) */
  char *image;                           /* podman */
  struct placer_string_list env;         /* "KEY=value template", in profile order */
  enum placer_network network;           /* default none */
  unsigned stop_timeout_s;               /* default 10 */
  struct placer_string_list volumes;     /* podman --volume templates */
  struct placer_string_list podman_args; /* more podman run options (templates), before the image */
  bool has_vm;
  struct placer_vm_config vm;
  unsigned line; /* where run: starts */
};

/* The pyaml CUSTOM parser of a role's "run" key: fills
 * ((struct placer_role_spec *)target)->run. */
struct pyaml_walk;
struct pyaml_field;
int placer_profile_parse_run(struct pyaml_walk *w, const struct pyaml_field *field, yaml_node_t *value, void *target);
void placer_run_config_free(struct placer_run_config *run);

const char *placer_run_backend_name(enum placer_run_backend b);
const char *placer_vm_accel_name(enum placer_vm_accel a);

#endif
