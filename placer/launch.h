/* Launch backends: start one planned instance already placed, tell whether
 * it still runs, stop it, clean up after it.  A backend is an ops table in
 * the shape of fio's ioengines: "exec" starts a plain process inside its
 * cgroup from its first instruction; "podman" runs a container with the
 * planned cpuset and memory.  The argv a backend builds comes from pure
 * functions (podman-argv.c, vm.c) that unit tests check without podman. */
#ifndef PLACER_LAUNCH_H
#define PLACER_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"
#include "runspec.h"

/* What to start: one plan instance and its role's run config, with every
 * template already substituted.  Strings are borrowed. */
struct placer_launch_spec {
  const char *instance; /* "osd.0" */
  const char *role;     /* "osd" */
  const char *profile;  /* profile name, for labels */
  const char *group;    /* cgroup of the instance, "placer/osd/osd.0" */
  bool pinned;          /* false: cpus/mems are not restricted */
  const char *cpus;     /* kernel list syntax, "" when not pinned */
  const char *mems;
  bool has_memory_limit;
  uint64_t memory_bytes;
  char **argv;       /* NULL-terminated; argv[0] is looked up in PATH */
  char **env;        /* "K=V" set on top of placer's own environment (exec) or in the container */
  const char *image; /* podman */
  enum placer_network network;
  char **volumes;              /* podman --volume values, "HOST:CONTAINER[:OPTS]" */
  char **extra_args;           /* podman options placed before the image */
  const char *container_name;  /* podman */
  const char *log_path;        /* stdout and stderr of the instance (appended); NULL: /dev/null */
  const char *containers_conf; /* podman: CONTAINERS_CONF for every podman call */
  unsigned stop_timeout_s;     /* SIGTERM, then SIGKILL after this long */
};

/* What was started: enough to find, check and stop it after placer exited
 * (runstate.c stores it). */
struct placer_launch_record {
  char *profile;
  char *instance;
  char *role;
  char *backend;                 /* ops name */
  pid_t pid;                     /* the instance's main process (podman: the container's init) */
  unsigned long long start_time; /* /proc/PID/stat starttime: a reused PID is not ours */
  char *group;                   /* where placer placed it: "placer/osd/osd.0" (podman: its cgroup parent) */
  char *container_name;          /* podman, else NULL */
  char *container_id;            /* podman, else NULL */
  char *container_cgroup;        /* podman: the container's own group below group, else NULL */
  char *log_path;
  char *accel;     /* vm: "tcg" or "kvm", else NULL */
  char *joined_by; /* how it got into its group before its first instruction:
                                "clone3" (CLONE_INTO_CGROUP), "cgroup.procs" (written by the
                                child before execve), "runc" (podman) */
  char **argv;     /* what was run (podman: the podman argv) */
  unsigned stop_timeout_s;
  long long started_at; /* unix time */
  bool unmarked;        /* its group could not be marked (placer_cgroup_mark): stop has no mark to check */
  unsigned seq;         /* position in the plan: stop goes in reverse */
};
void placer_launch_record_clear(struct placer_launch_record *rec);

enum {
  PLACER_LAUNCH_F_CONTAINER = 1u << 0,  /* runs an image; spec->image is required */
  PLACER_LAUNCH_F_OWN_CGROUP = 1u << 1, /* the backend makes the instance's final group itself */
};

struct placer_launch_ops {
  const char *name;
  unsigned flags;
  /* Start SPEC; on success fill *rec (the caller frees it with
   * placer_launch_record_clear).  The group spec->group exists and holds the
   * instance's cpus/mems/memory when this is called. */
  int (*start)(struct placer_cgroup *cg, const struct placer_launch_spec *spec, struct placer_launch_record *rec,
               struct placer_error **err);
  /* Whether what REC names still runs (not a zombie, not a reused PID). */
  bool (*is_running)(const struct placer_launch_record *rec);
  /* SIGTERM (podman stop), wait up to rec->stop_timeout_s, then SIGKILL.
   * Stopping something that is already gone is not an error. */
  int (*stop)(struct placer_cgroup *cg, const struct placer_launch_record *rec, struct placer_error **err);
  /* Remove what the instance left behind: the container, every process
   * still in its group, the groups themselves. */
  int (*cleanup)(struct placer_cgroup *cg, const struct placer_launch_record *rec, struct placer_error **err);
};

extern const struct placer_launch_ops placer_launch_exec;
extern const struct placer_launch_ops placer_launch_podman;

/* By name ("exec", "podman"); NULL when unknown. */
const struct placer_launch_ops *placer_launch_find(const char *name);

/* Helpers shared by the backends (launch.c). */
/* Field 22 of /proc/PID/stat (placer_proc_start_time); 0 when PID is gone. */
unsigned long long placer_launch_start_time(pid_t pid);
/* REC's process still runs: its PID is alive, not a zombie, and has the
 * recorded start time (a record without one never matches: its PID may
 * have been reused). */
bool placer_launch_record_alive(const struct placer_launch_record *rec);
/* SIGTERM to every process in GROUP (and in every group below it, in every
 * hierarchy), wait up to TIMEOUT_S for it to be empty, then SIGKILL what is
 * left and wait again (bounded).  Fails naming the PIDs that survived.  A
 * PID reused by an unrelated process meanwhile is never signalled. */
int placer_launch_kill_group(struct placer_cgroup *cg, const char *group, unsigned timeout_s,
                             struct placer_error **err);
/* placer_cgroup_remove (GROUP in every hierarchy, once no process is left);
 * PRUNE: also the ancestors that are left empty ("placer/osd", "placer"). */
int placer_launch_remove_group(struct placer_cgroup *cg, const char *group, bool prune, struct placer_error **err);
/* containers.conf to use: $PLACER_CONTAINERS_CONF, else the one shipped next
 * to the executable (placer_data_file(): ../containers, ../share/placer/containers), else
 * the source tree's.
 * Caller frees; NULL when none exists. */
char *placer_containers_conf_path(void);

#endif
