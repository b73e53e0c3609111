/* A growable list of process IDs (pid-list.h). */
#include "lib/pid-list.h"

#include <stdlib.h>

int placer_pid_list_add(struct placer_pid_list *l, pid_t pid) {
  if (l->n >= l->cap) {
    size_t cap = l->n < 8 ? 16 : 2 * l->n;
    pid_t *bigger = realloc(l->pids, cap * sizeof(*bigger));
    if (bigger == NULL)
      return -1;
    l->pids = bigger;
    l->cap = cap;
  }
  l->pids[l->n++] = pid;
  return 0;
}

bool placer_pid_list_has(const struct placer_pid_list *l, pid_t pid) {
  for (size_t i = 0; i < l->n; i++)
    if (l->pids[i] == pid)
      return true;
  return false;
}

int placer_pid_list_add_new(struct placer_pid_list *l, pid_t pid) {
  return placer_pid_list_has(l, pid) ? 0 : placer_pid_list_add(l, pid);
}

static int compare_pids(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

void placer_pid_list_sort(struct placer_pid_list *l) {
  if (l->n > 1)
    qsort(l->pids, l->n, sizeof(*l->pids), compare_pids);
}

pid_t *placer_pid_list_take(struct placer_pid_list *l, size_t *n) {
  pid_t *pids = l->pids;
  *n = l->n;
  l->pids = NULL;
  l->n = l->cap = 0;
  return pids;
}

void placer_pid_list_free(struct placer_pid_list *l) {
  if (l == NULL)
    return;
  free(l->pids);
  l->pids = NULL;
  l->n = l->cap = 0;
}
