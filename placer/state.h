/* placer's state directory: what apply put in force and how to undo it.
 * STATE_DIR/state.json is rewritten atomically (write, fsync, rename) before
 * every mutating step, so it is a journal: after a crash (even SIGKILL),
 * reset undoes exactly the steps that may have happened.  STATE_DIR/lock is
 * flock(2)ed by apply and reset.  The directory and its files are read
 * through lib/statedir.h (trusted only while root alone can change them),
 * and a state is taken only for what placer itself recorded: the boot and
 * directory it was written for, every group under its own prefix.
 * Format: docs/apply.md. */
#ifndef PLACER_STATE_H
#define PLACER_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "lib/error.h"
#include "plan.h"

#define PLACER_STATE_SCHEMA 1
#define PLACER_STATE_DEFAULT_DIR "/run/placer"
#define PLACER_STATE_FILE "state.json"
#define PLACER_STATE_LOCK_FILE "lock"
/* What else a state directory holds: the systemd backend's state, the IRQs'
 * state and lock (apply-systemd*.c, apply-irq*.c), placer run's records. */
#define PLACER_STATE_SYSTEMD_FILE "systemd.json"
#define PLACER_STATE_IRQ_FILE "irq.json"
#define PLACER_STATE_IRQ_LOCK_FILE "irq.lock"
#define PLACER_STATE_RUN_DIR "run"
/* What a state may hold: far above a real placement, far below what would
 * make reading or replaying it slow. */
#define PLACER_STATE_MAX_INSTANCES 10000
#define PLACER_STATE_MAX_RECORDS 100000
#define PLACER_STATE_MAX_THREADS 100000 /* threads of one move, processes of one instance */

/* One undo record, written before the step it undoes. */
enum placer_journal_op {
  PLACER_JOURNAL_CREATE,   /* group was created: remove it */
  PLACER_JOURNAL_SET,      /* a value of an existing group changed: write previous back */
  PLACER_JOURNAL_MOVE,     /* a process moved: back to original, threads' affinity back */
  PLACER_JOURNAL_AFFINITY, /* one thread's affinity changed: previous back */
};

struct placer_thread_affinity {
  pid_t tid;
  char *cpus;
};

struct placer_journal_entry {
  unsigned txn; /* which apply wrote it */
  enum placer_journal_op op;
  char *group;                              /* CREATE, SET; MOVE: where the process went */
  enum placer_setting setting;              /* SET */
  char *previous;                           /* SET: the value before (the raw file: "max" or bytes for
                                               memory_limit, v1 cpu.shares or v2 cpu.weight, "QUOTA PERIOD"
                                               in v2 cpu.max syntax also for v1's two files); AFFINITY: the
                                               cpus before */
  pid_t pid;                                /* MOVE, AFFINITY */
  uint64_t start_time;                      /* MOVE, AFFINITY: with pid, names one process */
  pid_t tid;                                /* AFFINITY */
  char *instance;                           /* MOVE */
  struct placer_cgroup_membership original; /* MOVE */
  struct placer_thread_affinity *threads;   /* MOVE: every thread's cpus before */
  size_t n_threads;
  bool unmarked; /* CREATE: the cgroupfs kept no mark on it (no xattrs, or no CAP_SYS_ADMIN) */
};

struct placer_state_process {
  pid_t pid;
  uint64_t start_time;
};

/* One instance as applied: the plan's values and the processes bound. */
struct placer_state_instance {
  char *name;
  char *role;
  enum placer_role_kind kind;
  char *group;
  bool pinned;
  char *cpus;
  char *mems;
  bool has_memory_limit;
  uint64_t memory_bytes;
  unsigned cpu_weight; /* 0: left at the default */
  unsigned cpu_quota;  /* the role group's (the instance group's parent) quota, 1/1000 core; 0: none */
  bool pin_vcpus;
  struct placer_match match;
  char *qmp_socket;                   /* given with --qmp, or NULL */
  bool by_pid;                        /* bound with --pid: status checks those (and their trees), not the matcher */
  struct placer_state_process *procs; /* bound; their descendants are found anew each time */
  size_t n_procs;
};

struct placer_state {
  char *dir;         /* not stored */
  int lock_fd;       /* not stored; -1 when not locked */
  char *lock_made;   /* not stored: the lock file this process made (removed with the lock), or NULL */
  char *boot_id;     /* the boot it was written in (placer_boot_id()) */
  char *state_id;    /* the directory it was written for ("DEV:INO"): the mark its groups carry */
  char *backend;     /* the apply backend that wrote it ("cgroupfs"); NULL in a state from before the record */
  char *cgroup_mode; /* "v1" / "v2" */
  char *cgroup_root; /* "/sys/fs/cgroup" */
  char *prefix;      /* top group, "placer" */
  char *profile_name;
  char *profile_path;
  char *topology_source;
  char *applied_at; /* RFC 3339 UTC of the last successful apply */
  unsigned last_txn;
  unsigned pending_txn; /* 0 when no apply is in progress or interrupted */
  pid_t pending_pid;    /* the placer process of pending_txn */
  struct placer_state_instance *instances;
  size_t n_instances;
  struct placer_journal_entry *journal;
  size_t n_journal;
};

enum placer_state_lock {
  PLACER_STATE_NO_LOCK,
  PLACER_STATE_LOCK_SHARED,    /* status: tolerate a busy lock (state->lock_fd stays -1) */
  PLACER_STATE_LOCK_EXCLUSIVE, /* apply, reset: a busy lock is an error */
};

/* $PLACER_STATE_DIR, else /run/placer (static or environment storage). */
const char *placer_state_default_dir(void);
/* Open DIR (created when LOCK is exclusive), take the lock, read state.json
 * (an empty state when there is none).  *busy (may be NULL) tells a shared
 * lock that an apply/reset holds the lock.  A directory or file placer may
 * not trust is refused (PLACER_EXIT_USAGE), as is a state written in
 * another boot or for another directory (PLACER_EXIT_SYSTEM). */
int placer_state_open(const char *dir, enum placer_state_lock lock, struct placer_state **out, bool *busy,
                      struct placer_error **err);
/* Write state.json atomically; an empty state (nothing applied, nothing to
 * undo) removes it instead. */
int placer_state_save(struct placer_state *state, struct placer_error **err);
/* DIR/NAME from DOC (taken over), written atomically (placer_file_replace),
 * or removed when DOC is NULL (nothing left to record).  WHAT names it in
 * an out-of-memory error.  The state files of apply (state.json, irq.json)
 * are written through this. */
int placer_state_file_write(const char *dir, const char *name, json_t *doc, const char *what,
                            struct placer_error **err);
/* Append ENTRY (taken over, also on failure) and save. */
int placer_state_journal_add(struct placer_state *state, struct placer_journal_entry *entry, struct placer_error **err);
/* Drop journal entry I (its undo is done); not saved. */
void placer_state_journal_remove(struct placer_state *state, size_t i);
bool placer_state_is_empty(const struct placer_state *state);
void placer_state_free(struct placer_state *state); /* also releases the lock */
/* With nothing applied, nothing to undo and nothing run recorded in DIR,
 * its locks go, and DIR with them when it is then empty: no state directory
 * outlives what it recorded (reset, stop and a refused apply call it). */
void placer_state_dir_tidy(const char *dir);

void placer_journal_entry_clear(struct placer_journal_entry *e);
void placer_state_instance_clear(struct placer_state_instance *inst);
void placer_state_clear_instances(struct placer_state *state);

/* Pure conversions (unit-tested round trip).  from_json refuses what placer
 * never writes: a group outside the state's prefix (an instance's group is
 * PREFIX/ROLE/NAME, a created group the prefix, a level of it or below it),
 * an unsafe original group, more records than the bounds above. */
json_t *placer_state_to_json(const struct placer_state *state);
int placer_state_from_json(json_t *json, struct placer_state *state, struct placer_error **err);

/* A recorded memory_limit value: "max" (PLACER_CGROUP_UNLIMITED) or bytes
 * in decimal; -1 for anything else (never read as 0). */
int placer_memory_limit_parse(const char *text, uint64_t *bytes);

const char *placer_journal_op_name(enum placer_journal_op op);

#endif
