/* A growable list of process IDs: the PIDs of a cgroup.procs file, the
 * threads of a process, a process tree. */
#ifndef PLACER_PID_LIST_H
#define PLACER_PID_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct placer_pid_list {
  pid_t *pids;
  size_t n, cap;
};

/* Add PID: 0, or -1 out of memory (the list unchanged). */
int placer_pid_list_add(struct placer_pid_list *l, pid_t pid);
/* Add PID unless it is there already. */
int placer_pid_list_add_new(struct placer_pid_list *l, pid_t pid);
bool placer_pid_list_has(const struct placer_pid_list *l, pid_t pid);
/* In ascending order. */
void placer_pid_list_sort(struct placer_pid_list *l);
/* The PIDs for the caller to free (NULL when none); the list is empty after. */
pid_t *placer_pid_list_take(struct placer_pid_list *l, size_t *n);
void placer_pid_list_free(struct placer_pid_list *l);

#endif
