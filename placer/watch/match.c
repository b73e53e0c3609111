/* Which instance a new process belongs to, decided from one read of its
 * command line through procmatch's tests (the same ones apply finds
 * processes with), and the default way of placing it: into its instance's
 * group with its threads and descendants. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "procmatch.h"
#include "watch.h"

bool placer_watch_rule_is_slow(const struct placer_watch_rule *rule) {
  return rule->match.kind == PLACER_MATCH_CONTAINER;
}

int placer_watch_match(const struct placer_watch_rule *rules, size_t n_rules, pid_t pid, size_t *index,
                       struct placer_error **err) {
  if (pid == getpid())
    return PLACER_WATCH_MATCH_NONE;
  struct placer_cmdline cl = { 0 };
  struct placer_error *unreadable = NULL;
  if (placer_proc_read_cmdline(pid, &cl, &unreadable) < 0) {
    int errno_value = unreadable->errno_value;
    placer_error_free(unreadable);
    /* ENOENT, ESRCH: it exited before we read it, which storms do all the
     * time. */
    return errno_value == ENOMEM ? placer_error_oom(err, "match a new process") : PLACER_WATCH_MATCH_GONE;
  }
  /* An empty command line: a kernel thread, or a process that has exited
   * and is a zombie now. */
  if (cl.argc == 0) {
    placer_cmdline_clear(&cl);
    return PLACER_WATCH_MATCH_GONE;
  }
  int result = PLACER_WATCH_MATCH_NONE;
  for (size_t i = 0; i < n_rules; i++) {
    const struct placer_watch_rule *r = &rules[i];
    if (placer_watch_rule_is_slow(r) || !placer_procmatch_process(r->kind, &r->match, pid, &cl))
      continue;
    if (result == PLACER_WATCH_MATCH_ONE) {
      /* apply refuses a process that two instances claim; so does watch */
      result = PLACER_WATCH_MATCH_AMBIGUOUS;
      break;
    }
    result = PLACER_WATCH_MATCH_ONE;
    *index = i;
  }
  placer_cmdline_clear(&cl);
  return result;
}

/* Has PID exited (or is it a zombie now)?  Then an error about it is not
 * one. */
static bool gone(pid_t pid) {
  char state = placer_proc_state(pid);
  return state == '\0' || state == 'Z' || state == 'X';
}

/* Move PID into GROUP unless it is there: 0 (*moved says whether it was
 * moved), 1 when it exited before it could be, -1 on an error.  Each error
 * is dropped when the process has exited meanwhile. */
static int move_one(struct placer_cgroup *cg, const char *group, pid_t pid, bool *moved, struct placer_error **err) {
  *moved = false;
  struct placer_cgroup_membership m = { { 0 } };
  if (placer_cgroup_pid_membership(cg, pid, &m, err) < 0) {
    if (!gone(pid))
      return -1;
    placer_error_clear(err);
    return 1;
  }
  bool there = placer_cgroup_membership_is(cg, &m, group);
  placer_cgroup_membership_clear(&m);
  if (there)
    return 0;
  if (placer_cgroup_attach_pid(cg, group, pid, err) < 0) {
    if (!gone(pid))
      return -1;
    /* ESRCH: a write of cgroup.procs found no such process, it was never
     * moved.  Anything else: the kernel took every write and the process
     * ended while its threads were being checked, a move done. */
    bool written = *err && (*err)->errno_value != ESRCH;
    placer_error_clear(err);
    *moved = written;
    return written ? 0 : 1;
  }
  *moved = true;
  return 0;
}

int placer_watch_place_cgroup(struct placer_cgroup *cg, const char *group, pid_t pid, enum placer_watch_placed *out,
                              struct placer_error **err) {
  bool moved = false;
  int ret = move_one(cg, group, pid, &moved, err);
  if (ret < 0)
    return placer_error_prefix(err, "place pid %d in %s", (int)pid, group);
  if (ret == 1) {
    *out = PLACER_WATCH_GONE;
    return 0;
  }
  /* Children it forked before it was moved stayed behind; those born after
   * are in the group already. */
  cleanup_free pid_t *desc = NULL;
  size_t n_desc = 0;
  if (placer_proc_descendants(pid, NULL, 0, &desc, &n_desc, err) < 0) {
    if (!gone(pid))
      return placer_error_prefix(err, "place pid %d in %s", (int)pid, group);
    placer_error_clear(err);
    n_desc = 0;
  }
  for (size_t i = 0; i < n_desc; i++) {
    bool kid_moved = false;
    if (move_one(cg, group, desc[i], &kid_moved, err) < 0)
      return placer_error_prefix(err, "place pid %d (a child of %d) in %s", (int)desc[i], (int)pid, group);
    moved = moved || kid_moved;
  }
  *out = moved ? PLACER_WATCH_PLACED : PLACER_WATCH_ALREADY;
  return 0;
}
