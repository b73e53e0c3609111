/* What a role's run: section (profile-run.c) and the launch backends
 * (launch*.c, podman-argv.c) both need to know, so that the profile parser
 * depends on neither launch nor cgroup: the network modes, the bound on stop
 * timeouts, the syntax of an environment entry. */
#ifndef PLACER_RUNSPEC_H
#define PLACER_RUNSPEC_H

#include <stdbool.h>

enum placer_network {
  PLACER_NETWORK_NONE, /* no network namespace peers: loopback only (podman --network=none) */
  PLACER_NETWORK_HOST, /* the host's network (podman --network=host) */
};

/* The longest stop_timeout (seconds) a role, `stop --timeout` or a record may give. */
#define PLACER_RUN_STOP_TIMEOUT_MAX 3600

/* An environment entry "KEY=VALUE" with KEY [A-Za-z_][A-Za-z0-9_]*. */
bool placer_env_entry_is_valid(const char *entry);

#endif
