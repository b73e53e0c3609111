/* placer's state directory: what apply put in force and how to undo it, in
 * one module for all of apply's state files (state.c): STATE_DIR/state.json
 * (the cgroupfs backend's groups), systemd.json (the systemd backend's
 * units) and irq.json (the IRQs), each a struct placer_state of its kind.
 * A file is rewritten atomically (write, fsync, rename) before every
 * mutating step, so it is a journal: after a crash (even SIGKILL), reset
 * undoes exactly the steps that may have happened (a state that records a
 * step many times a second appends each record to state.log instead, read
 * with state.json: state-log.c).  STATE_DIR/lock is
 * flock(2)ed by apply and reset (both backends), irq.lock by the IRQ part.
 * The directory and its files are read through lib/statedir.h (trusted only
 * while root alone can change them), and a state is taken only for what
 * placer itself recorded: the boot and directory it was written for, every
 * group under its own prefix, only the drop-ins placer writes.  Format:
 * docs/apply.md. */
#ifndef PLACER_STATE_H
#define PLACER_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"
#include "lib/json-str.h"
#include "lib/string-list.h"
#include "plan/plan.h"

#define PLACER_STATE_SCHEMA 1
#define PLACER_STATE_DEFAULT_DIR "/run/placer"
#define PLACER_STATE_FILE "state.json"
#define PLACER_STATE_LOG_FILE "state.log" /* state.json's journal's appended tail (state-log.c) */
#define PLACER_STATE_LOCK_FILE "lock"
#define PLACER_STATE_SYSTEMD_FILE "systemd.json"
#define PLACER_STATE_IRQ_FILE "irq.json"
#define PLACER_STATE_IRQ_LOCK_FILE "irq.lock"
/* placer run's records (runstate.c) */
#define PLACER_STATE_RUN_DIR "run"
/* What a state may hold: far above a real placement, far below what would
 * make reading or replaying it slow. */
#define PLACER_STATE_MAX_INSTANCES 10000
#define PLACER_STATE_MAX_RECORDS 100000
#define PLACER_STATE_MAX_THREADS 100000 /* threads of one move, processes of one instance */
#define PLACER_STATE_MAX_IRQS 65536     /* IRQs of one state, CPUs of one IRQ's counts */

/* ------------------------------------------------------------------ the journal */

/* One undo record, written before the step it undoes (state-journal.c). */
enum placer_journal_op {
  PLACER_JOURNAL_CREATE,   /* a group was created: remove it */
  PLACER_JOURNAL_SET,      /* a value of an existing group changed: write previous back */
  PLACER_JOURNAL_MOVE,     /* a process moved: back to original, threads' affinity back */
  PLACER_JOURNAL_AFFINITY, /* one thread's affinity changed: previous back */
  PLACER_JOURNAL_IRQ,      /* an IRQ's smp_affinity_list was written: previous back ("affinity" in irq.json) */
  PLACER_JOURNAL_FILE,     /* a file was written: previous content back, or removed (and its directory) */
  PLACER_JOURNAL_LINK,     /* a symlink was made: removed */
  PLACER_JOURNAL_ACTION,   /* a command to run when undoing, after what was journaled later is undone */
  PLACER_JOURNAL_N_OPS,
};

/* ACTION records: what undoing runs (never a command line from the file). */
enum placer_journal_action {
  PLACER_ACTION_DAEMON_RELOAD,             /* systemctl daemon-reload */
  PLACER_ACTION_RESTART_IRQBALANCE_UNIT,   /* systemctl try-restart irqbalance.service */
  PLACER_ACTION_RESTART_IRQBALANCE_SCRIPT, /* irqbalance's init script's restart */
};

struct placer_thread_affinity {
  pid_t tid;
  char *cpus;
};

struct placer_journal_entry {
  unsigned txn; /* which apply wrote it */
  enum placer_journal_op op;
  char *group;                 /* CREATE, SET; MOVE: where the process went */
  enum placer_setting setting; /* SET */
  char *previous;      /* SET: the value before (the raw file: "max" or bytes for memory_limit, v1 cpu.shares or v2
                      cpu.weight, "QUOTA PERIOD" in v2 cpu.max syntax also for v1's two files); AFFINITY, IRQ: the
                      cpus before; FILE: the content before, NULL when it did not exist */
  pid_t pid;           /* MOVE, AFFINITY */
  uint64_t start_time; /* MOVE, AFFINITY: with pid, names one process */
  pid_t tid;           /* AFFINITY */
  char *instance;      /* MOVE */
  struct placer_cgroup_membership original; /* MOVE */
  struct placer_thread_affinity *threads;   /* MOVE: every thread's cpus before */
  size_t n_threads;
  bool unmarked;                     /* CREATE: the cgroupfs kept no mark on it (no xattrs, or no CAP_SYS_ADMIN) */
  unsigned irq;                      /* IRQ */
  char *name;                        /* IRQ: its handlers when written, checked before writing back */
  char *path;                        /* FILE, LINK */
  char *dir_created;                 /* FILE, LINK: the directory placer made for it, or NULL */
  enum placer_journal_action action; /* ACTION */
};
void placer_journal_entry_clear(struct placer_journal_entry *e);
/* The name a record of OP has in any state file: "create", "set", "move",
 * "affinity" (a thread's or an IRQ's), "file", "link", "action". */
const char *placer_journal_op_name(enum placer_journal_op op);
/* One record as a file whose records are OP_NAMES (by op; NULL for one it
 * never holds) writes it, and back: a record that misses what its op needs
 * is refused, naming journal[INDEX] (state-journal.c). */
json_t *placer_journal_entry_to_json(const struct placer_journal_entry *e, const char *const *op_names);
int placer_journal_entry_from_json(json_t *j, const char *const *op_names, struct placer_journal_entry *e, size_t index,
                                   struct placer_error **err);

/* ------------------------------------------------------------------ what each file holds */

struct placer_state_process {
  pid_t pid;
  uint64_t start_time;
};

/* state.json: one instance as applied, the plan's values and the processes
 * bound (state-groups.c). */
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

/* systemd.json: one instance placed through its unit, and how to set the
 * unit back (state-units.c).  The properties, in this order: AllowedCPUs,
 * AllowedMemoryNodes, MemoryMax, CPUWeight (placer_state_unit_props). */
#define PLACER_STATE_UNIT_PROPS 4
extern const char *const placer_state_unit_props[PLACER_STATE_UNIT_PROPS];
struct placer_state_unit {
  char *name;
  char *role;
  enum placer_role_kind kind;
  char *match; /* how it was found, for the messages */
  char *unit;
  char *cgroup; /* the unit's group, "/system.slice/x.service" */
  char *cpus;   /* NULL: AllowedCPUs left as it is (unpinned) */
  char *mems;
  bool has_memory_limit;
  uint64_t memory_bytes;
  unsigned cpu_weight; /* 0: left */
  bool pin_vcpus;
  char *qmp_socket;
  char *previous[PLACER_STATE_UNIT_PROPS]; /* what `systemctl show` said before placer */
  bool created[PLACER_STATE_UNIT_PROPS];   /* the runtime drop-in set-property made */
  char *dropin;                            /* --persist: the drop-in file, or NULL */
  bool dropin_dir_created;                 /* and its UNIT.d directory */
  struct placer_state_process *procs;      /* the processes in the unit at apply */
  size_t n_procs;
};
void placer_state_unit_clear(struct placer_state_unit *u);
/* A copy of SRC into DST (cleared first); -1 when out of memory. */
int placer_state_unit_copy(struct placer_state_unit *dst, const struct placer_state_unit *src);

/* irq.json: an IRQ as apply left it, what status checks (state-irqs.c). */
struct placer_state_irq {
  unsigned irq;
  char *name;
  char *device;
  char *instance; /* NULL: top level */
  char *planned;  /* NULL: managed (reported, not steered) */
  bool managed;
  bool optional;    /* of an optional: device: gone with it is no drift (state-irqs.c: absent is false) */
  uint64_t *counts; /* each CPU's count when applied */
  unsigned n_cpus;
};

struct placer_state;
struct placer_statedir;
/* Which of the state files a struct placer_state is, and how its own part
 * reads and writes (state.c keeps what every one has: the boot and
 * directory, the transactions, the journal). */
struct placer_state_kind {
  const char *file;            /* in the state directory */
  const char *lock;            /* what an open with a lock takes */
  const char *log;             /* the file its journal's records may be appended to (journal_appends), or NULL */
  bool journaled;              /* it keeps a journal and its transaction numbers */
  const char *const *op_names; /* a journal op's name in this file, NULL for one it never holds */
  int (*to_json)(const struct placer_state *s, json_t *doc); /* its own keys into DOC; -1 when out of memory */
  int (*from_json)(json_t *doc, struct placer_state *s, struct placer_error **err);
  bool (*holds)(const struct placer_state *s); /* something applied, beside the journal */
  void (*clear)(struct placer_state *s);
};
extern const struct placer_state_kind placer_state_groups; /* state.json */
extern const struct placer_state_kind placer_state_units;  /* systemd.json */
extern const struct placer_state_kind placer_state_irqs;   /* irq.json */

struct placer_state {
  const struct placer_state_kind *kind; /* NULL: groups */
  /* Every state file. */
  char *dir;       /* not stored */
  int lock_fd;     /* not stored; -1 when not locked */
  char *lock_made; /* not stored: the lock file this process made (removed with the lock), or NULL */
  /* Not stored: saved atomically for readers but not fsynced (placer watch,
   * which records a move for each process it places and must not wait for
   * the disk each time).  What a state records is taken only in the boot
   * that wrote it: a kill -9 of placer keeps the page cache, and a crash of
   * the machine that could lose it ends the boot, the groups and the
   * processes it names. */
  bool volatile_saves;
  /* Not stored: each record placer_state_journal_add adds is appended to
   * the kind's log (one line) instead of the whole file rewritten; the
   * next placer_state_save takes them in (state-log.c).  For a journal
   * that grows many times a second (placer watch). */
  bool journal_appends;
  bool log_open; /* not stored: log_fd is the log of this log_seq, open for appending */
  int log_fd;
  uint64_t log_seq; /* "log_seq": which log goes with the file (0: none ever did); new at each save */
  char *boot_id;    /* the boot it was written in (placer_boot_id()) */
  char *state_id;   /* the directory it was written for ("DEV:INO:BIRTH"): the mark its groups carry */
  char *backend;    /* the apply backend that wrote it ("cgroupfs"); NULL in a state.json from before the record */
  char *profile_name;
  char *profile_path;
  char *applied_at;     /* RFC 3339 UTC of the last successful apply */
  unsigned last_txn;    /* journaled kinds */
  unsigned pending_txn; /* 0 when no apply is in progress or interrupted */
  pid_t pending_pid;    /* the placer process of pending_txn */
  struct placer_journal_entry *journal;
  size_t n_journal;
  /* state.json: the cgroupfs backend's groups. */
  char *cgroup_mode; /* "v1" / "v2" */
  char *cgroup_root; /* "/sys/fs/cgroup" */
  char *prefix;      /* top group, "placer" */
  char *topology_source;
  struct placer_state_instance *instances;
  size_t n_instances;
  /* systemd.json: the systemd backend's units. */
  bool persist; /* an apply --persist wrote drop-ins */
  struct placer_state_unit *units;
  size_t n_units;
  /* irq.json: the IRQs.  What apply used, recorded for the reader: reset
   * and status never take a path or program from here (a state naming
   * others is refused: apply-irq.c). */
  char *root;       /* "" or the scratch tree the IRQs were written below */
  char *systemctl;  /* for the undo actions */
  char *initd;      /* irqbalance's init script, for its restart */
  char *etc_dir;    /* systemd's /etc/systemd/system */
  char *defaults;   /* /etc/default/irqbalance */
  char *unit_path;  /* the boot unit placer made for --persist, or NULL */
  char *wants_path; /* its multi-user.target.wants link */
  struct placer_state_irq *irqs;
  size_t n_irqs;
};

/* ------------------------------------------------------------------ files */

enum placer_state_lock {
  PLACER_STATE_NO_LOCK,
  PLACER_STATE_LOCK_SHARED,    /* status: tolerate a busy lock (state->lock_fd stays -1) */
  PLACER_STATE_LOCK_EXCLUSIVE, /* apply, reset: a busy lock is an error */
};

/* $PLACER_STATE_DIR, else /run/placer (static or environment storage). */
const char *placer_state_default_dir(void);
/* Open DIR (created when LOCK is exclusive), take KIND's lock, read KIND's
 * file (an empty state when there is none).  *busy (may be NULL) tells a
 * shared lock that an apply/reset holds the lock.  A directory or file
 * placer may not trust is refused (PLACER_EXIT_USAGE), as is a state
 * written in another boot or for another directory (PLACER_EXIT_SYSTEM). */
int placer_state_open_kind(const char *dir, const struct placer_state_kind *kind, enum placer_state_lock lock,
                           struct placer_state **out, bool *busy, struct placer_error **err);
/* The same for state.json, the cgroupfs backend's. */
int placer_state_open(const char *dir, enum placer_state_lock lock, struct placer_state **out, bool *busy,
                      struct placer_error **err);
/* Write the file atomically; an empty state (nothing applied, nothing to
 * undo) removes it instead. */
int placer_state_save(struct placer_state *state, struct placer_error **err);
/* Append ENTRY (taken over, also on failure) and save: the step may then
 * happen (unrecorded, it must not: the entry is forgotten again). */
int placer_state_journal_add(struct placer_state *state, struct placer_journal_entry *entry, struct placer_error **err);
/* state-log.c, for state.c: the log closed; the next log_seq after SEQ
 * (0: a state begun anew, a value no earlier log can name); the log of the
 * state's log_seq made anew (OPEN_NEW; else only the old one removed); a
 * record appended as one line; the records of the log that goes with DOC
 * (a state file's JSON, as read from D) appended to its journal, its
 * last_txn raised to theirs. */
void placer_state_log_close(struct placer_state *s);
uint64_t placer_state_log_next_seq(uint64_t seq);
int placer_state_log_restart(struct placer_state *s, bool open_new, struct placer_error **err);
int placer_state_log_append(struct placer_state *s, const struct placer_journal_entry *e, struct placer_error **err);
int placer_state_log_merge(const struct placer_statedir *d, const struct placer_state_kind *kind, json_t *doc,
                           struct placer_error **err);
/* Drop journal entry I (its undo is done); not saved. */
void placer_state_journal_remove(struct placer_state *state, size_t i);
/* Undo the records of TXN (0: all), newest first, with UNDO: each undone
 * one leaves the journal, one that fails stays (its message into FAILURES).
 * The state is saved once at the end, not after each record: replaying is
 * idempotent, so a reset killed part-way replays the same records again and
 * ends where this one would have.  Returns how many could not be undone. */
typedef int (*placer_journal_undo_fn)(void *ctx, struct placer_state *state, size_t i, struct placer_error **err);
size_t placer_state_journal_undo(struct placer_state *state, unsigned txn, placer_journal_undo_fn undo, void *ctx,
                                 struct placer_string_list *failures);
bool placer_state_is_empty(const struct placer_state *state);
void placer_state_free(struct placer_state *state); /* also releases the lock; NULL is fine */
/* Is there an entry NAME in DIR (links not followed)? */
bool placer_state_file_exists(const char *dir, const char *name);
/* With nothing applied, nothing to undo and nothing run recorded in DIR,
 * its locks go, and DIR with them when it is then empty: no state directory
 * outlives what it recorded (reset, stop and a refused apply call it). */
void placer_state_dir_tidy(const char *dir);

void placer_state_instance_clear(struct placer_state_instance *inst);
void placer_state_clear_instances(struct placer_state *state);
void placer_state_clear_irqs(struct placer_state *state);

/* Pure conversions (unit-tested round trips), by the state's kind.
 * from_json refuses what placer never writes: in state.json a group outside
 * the state's prefix (an instance's group is PREFIX/ROLE/NAME, a created
 * group the prefix, a level of it or below it), an unsafe original group;
 * in systemd.json a drop-in but the one placer writes for its unit, a unit
 * group that is not an absolute path without "." or ".."; in every file
 * more records than the bounds above. */
json_t *placer_state_to_json(const struct placer_state *state);
int placer_state_from_json(json_t *json, struct placer_state *state, struct placer_error **err);

/* A recorded memory_limit value: "max" (PLACER_CGROUP_UNLIMITED) or bytes
 * in decimal; -1 for anything else (never read as 0). */
int placer_memory_limit_parse(const char *text, uint64_t *bytes);

/* state-json.c: reading and writing what the kinds' files hold, for
 * state*.c: a string or null; a string key copied (NULL when absent or
 * null; not a string: an error naming WHERE); an unsigned number up to MAX
 * (OPTIONAL: absent or null is 0). */
int placer_state_json_dup(json_t *obj, const char *key, char **out, const char *where, struct placer_error **err);
int placer_state_json_uint(json_t *obj, const char *key, uint64_t max, bool optional, uint64_t *out, const char *where,
                           struct placer_error **err);
/* The index of TEXT among N NAMES (a NULL name never matches); -1 when none. */
int placer_state_json_name(const char *text, const char *const *names, size_t n);
/* A role kind by its name ("ceph-osd"); -1 when none has it. */
int placer_state_json_role_kind(const char *name, enum placer_role_kind *out);
/* The processes of a record (pid and start time each), bounded. */
json_t *placer_state_processes_to_json(const struct placer_state_process *procs, size_t n);
int placer_state_processes_from_json(json_t *array, struct placer_state_process **out, size_t *n, const char *where,
                                     struct placer_error **err);

#endif
