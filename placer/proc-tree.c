/* The process tree below a process: its children (from
 * /proc/PID/task/TID/children, or from every process's PPid where the
 * kernel has no children files) and their descendants, breadth first. */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/pid-list.h"
#include "lib/textfile.h"

static bool pid_in(const pid_t *v, size_t n, pid_t pid) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == pid)
      return true;
  return false;
}

int placer_proc_stat_ppid(const char *stat_text, pid_t *out) {
  /* "PID (comm) S PPID ...": comm may hold spaces and ')'. */
  const char *p = strrchr(stat_text, ')');
  char state;
  int ppid;
  if (p == NULL || sscanf(p + 1, " %c %d", &state, &ppid) != 2 || ppid < 0)
    return -1;
  *out = (pid_t)ppid;
  return 0;
}

pid_t placer_proc_parent(pid_t pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
  cleanup_free char *text = NULL;
  pid_t ppid = 0;
  if (placer_textfile_read_path(path, 4096, &text, NULL) < 0 || placer_proc_stat_ppid(text, &ppid) < 0)
    return 0;
  return ppid;
}

/* Breadth first from ROOT; CHILDREN_OF lists a pid's children into the
 * vector.  Stop pids are neither listed nor descended into. */
typedef int (*children_fn)(void *ctx, pid_t pid, struct placer_pid_list *out);

static int walk(pid_t root, const pid_t *stop, size_t n_stop, children_fn children_of, void *ctx, pid_t **out,
                size_t *n_out) {
  struct placer_pid_list found = { 0 };
  struct placer_pid_list kids = { 0 };
  pid_t at = root;
  for (size_t next = 0;; at = found.pids[next++]) {
    kids.n = 0;
    if (children_of(ctx, at, &kids) < 0)
      goto oom;
    for (size_t i = 0; i < kids.n; i++) {
      pid_t kid = kids.pids[i];
      /* A cycle cannot happen in a real tree, but a table read over time
       * (PIDs reused meanwhile) could show one. */
      if (kid == root || pid_in(stop, n_stop, kid) || placer_pid_list_has(&found, kid))
        continue;
      if (placer_pid_list_add(&found, kid) < 0)
        goto oom;
    }
    if (next == found.n)
      break;
  }
  placer_pid_list_free(&kids);
  *out = placer_pid_list_take(&found, n_out);
  return 0;
oom:
  placer_pid_list_free(&kids);
  placer_pid_list_free(&found);
  return -1;
}

struct table_ctx {
  const struct placer_proc_parent *table;
  size_t n;
};

static int table_children(void *ctx, pid_t pid, struct placer_pid_list *out) {
  const struct table_ctx *t = ctx;
  for (size_t i = 0; i < t->n; i++)
    if (t->table[i].ppid == pid && t->table[i].pid != pid && placer_pid_list_add(out, t->table[i].pid) < 0)
      return -1;
  return 0;
}

int placer_proc_tree_descendants(const struct placer_proc_parent *table, size_t n, pid_t root, const pid_t *stop,
                                 size_t n_stop, pid_t **out, size_t *n_out) {
  struct table_ctx ctx = { table, n };
  return walk(root, stop, n_stop, table_children, &ctx, out, n_out);
}

static bool is_zombie(pid_t pid) {
  char state = placer_proc_state(pid);
  return state == 'Z' || state == 'X' || state == '\0';
}

/* The children of every thread of PID (the kernel lists a child under the
 * thread that forked it); zombies left out.  Gone: none. */
static int children_files(void *ctx, pid_t pid, struct placer_pid_list *out) {
  (void)ctx;
  cleanup_free pid_t *tids = NULL;
  size_t n_tids = 0;
  struct placer_error *gone = NULL;
  if (placer_task_list(pid, &tids, &n_tids, &gone) < 0) {
    placer_error_clear(&gone);
    return 0;
  }
  for (size_t i = 0; i < n_tids; i++) {
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tids[i]);
    cleanup_free char *text = NULL;
    if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
      continue; /* the thread exited meanwhile */
    for (char *p = text, *end; *p; p = end) {
      long kid = strtol(p, &end, 10);
      if (end == p)
        break;
      if (kid > 0 && !is_zombie((pid_t)kid) && placer_pid_list_add(out, (pid_t)kid) < 0)
        return -1;
    }
  }
  return 0;
}

int placer_proc_each_stat(const char *proc_root, placer_proc_stat_fn fn, void *ctx) {
  DIR *dir = opendir(proc_root);
  if (dir == NULL)
    return -1;
  struct dirent *de;
  int ret = 0;
  while (ret == 0 && (de = readdir(dir)) != NULL) {
    char *end;
    long pid = strtol(de->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || end == de->d_name)
      continue;
    char path[4200];
    snprintf(path, sizeof(path), "%s/%ld/stat", proc_root, pid);
    cleanup_free char *text = NULL;
    if (placer_textfile_read_path(path, 4096, &text, NULL) < 0)
      continue; /* ended meanwhile */
    ret = fn(ctx, (pid_t)pid, text);
  }
  int saved = errno;
  closedir(dir);
  errno = saved;
  return ret;
}

struct table {
  struct placer_proc_parent *v;
  size_t n, cap;
};

static int add_parent(void *ctx, pid_t pid, const char *stat_text) {
  struct table *t = ctx;
  pid_t ppid;
  if (placer_proc_stat_ppid(stat_text, &ppid) < 0 || is_zombie(pid))
    return 0;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    struct placer_proc_parent *bigger = realloc(t->v, cap * sizeof(*bigger));
    if (bigger == NULL) {
      errno = ENOMEM;
      return -1;
    }
    t->v = bigger, t->cap = cap;
  }
  t->v[t->n++] = (struct placer_proc_parent){ pid, ppid };
  return 0;
}

/* Every live process with its parent, from /proc/N/stat. */
static int read_table(struct placer_proc_parent **out, size_t *n_out) {
  struct table t = { 0 };
  if (placer_proc_each_stat("/proc", add_parent, &t) < 0) {
    free(t.v);
    return -1;
  }
  *out = t.v;
  *n_out = t.n;
  return 0;
}

static bool have_children_files(void) {
  static int have = -1;
  if (have < 0) {
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    have = access(path, R_OK) == 0;
  }
  return have;
}

int placer_proc_descendants(pid_t root, const pid_t *stop, size_t n_stop, pid_t **out, size_t *n_out,
                            struct placer_error **err) {
  /* placer never binds itself, nor what it runs (podman inspect, ...). */
  pid_t *all_stop = malloc((n_stop + 1) * sizeof(*all_stop));
  if (all_stop == NULL)
    return placer_error_oom(err, NULL);
  if (n_stop)
    memcpy(all_stop, stop, n_stop * sizeof(*stop));
  all_stop[n_stop] = getpid();
  int ret;
  if (have_children_files()) {
    ret = walk(root, all_stop, n_stop + 1, children_files, NULL, out, n_out);
    if (ret < 0)
      ret = placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "descendants of pid %d: out of memory", (int)root);
  } else {
    struct placer_proc_parent *table = NULL;
    size_t n = 0;
    if (read_table(&table, &n) < 0)
      ret = placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "descendants of pid %d: read /proc", (int)root);
    else if ((ret = placer_proc_tree_descendants(table, n, root, all_stop, n_stop + 1, out, n_out)) < 0)
      ret = placer_error_set(err, PLACER_EXIT_SYSTEM, ENOMEM, "descendants of pid %d: out of memory", (int)root);
    free(table);
  }
  free(all_stop);
  return ret;
}
