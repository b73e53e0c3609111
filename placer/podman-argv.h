/* The podman command lines of the podman launch backend, built by pure
 * functions so that unit tests check them without podman.  Every value is
 * one argv element in "--option=value" form: nothing goes through a shell
 * and no value can be taken for another option. */
#ifndef PLACER_PODMAN_ARGV_H
#define PLACER_PODMAN_ARGV_H

#include <stdbool.h>

#include "lib/error.h"
#include "launch.h"

/* "podman run --detach --replace --name=... --cgroup-parent=/GROUP
 * --cpuset-cpus=... --cpuset-mems=... --memory=BYTES --network=none|host
 * --env=K=V ... IMAGE ARGV...".  Refuses (PLACER_EXIT_USAGE) a missing or
 * option-like image, a container name podman would refuse, and env entries
 * that are not KEY=VALUE with KEY a valid variable name. */
int placer_podman_run_argv(const struct placer_launch_spec *spec, char ***out, struct placer_error **err);

/* "podman stop --time=T NAME", "podman rm --force --ignore NAME",
 * "podman inspect --format=... NAME" (prints "PID CGROUP-PATH ID"). */
int placer_podman_stop_argv(const char *name, unsigned timeout_s, char ***out, struct placer_error **err);
int placer_podman_rm_argv(const char *name, char ***out, struct placer_error **err);
int placer_podman_inspect_argv(const char *name, char ***out, struct placer_error **err);

/* Container names podman accepts: [A-Za-z0-9][A-Za-z0-9_.-]*. */
bool placer_podman_name_is_valid(const char *name);
/* A container name for INSTANCE: "placer-" + INSTANCE with every other byte
 * mapped to '_'.  Caller frees; NULL on ENOMEM. */
char *placer_podman_container_name(const char *instance);

#endif
