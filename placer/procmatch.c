/* Finding an instance's processes: /proc cmdline scans (ceph daemons, qemu,
 * fnmatch patterns), `podman inspect` run without a shell, pid files. */
#include "procmatch.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/subprocess.h"
#include "lib/pid-list.h"
#include "lib/textfile.h"

/* podman inspect normally answers in well under a second; a hung podman
 * must not hang apply. */
#define PODMAN_TIMEOUT_MS 30000

/* ------------------------------------------------------------------ command lines */

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

const char *placer_ceph_binary(enum placer_role_kind kind) {
  switch (kind) {
  case PLACER_KIND_CEPH_OSD: return "ceph-osd";
  case PLACER_KIND_CEPH_MDS: return "ceph-mds";
  case PLACER_KIND_CEPH_MON: return "ceph-mon";
  case PLACER_KIND_CEPH_MGR: return "ceph-mgr";
  default: return NULL;
  }
}

/* "-n osd.3": the part after the daemon type must be ID, and the type must
 * be the binary's ("osd" for ceph-osd) when the binary is known. */
static bool ceph_name_matches(const char *name, const char *binary, const char *id) {
  const char *dot = strchr(name, '.');
  if (dot == NULL || strcmp(dot + 1, id) != 0)
    return false;
  if (binary == NULL)
    return true;
  const char *type = binary + strlen("ceph-");
  return (size_t)(dot - name) == strlen(type) && strncmp(name, type, strlen(type)) == 0;
}

bool placer_cmdline_is_ceph_daemon(const struct placer_cmdline *cl, const char *binary, const char *id) {
  if (cl->argc == 0 || id == NULL || *id == '\0')
    return false;
  const char *exe = base_name(cl->argv[0]);
  if (binary ? strcmp(exe, binary) != 0 : strncmp(exe, "ceph-", 5) != 0)
    return false;
  if (binary == NULL)
    binary = exe;
  for (size_t i = 1; i < cl->argc; i++) {
    const char *a = cl->argv[i];
    const char *next = i + 1 < cl->argc ? cl->argv[i + 1] : NULL;
    if (strcmp(a, "--") == 0)
      break;
    if ((strcmp(a, "--id") == 0 || strcmp(a, "-i") == 0) && next)
      return strcmp(next, id) == 0;
    if (strncmp(a, "--id=", 5) == 0)
      return strcmp(a + 5, id) == 0;
    if (strncmp(a, "-i", 2) == 0 && a[2] != '\0')
      return strcmp(a + 2, id) == 0;
    if ((strcmp(a, "--name") == 0 || strcmp(a, "-n") == 0) && next)
      return ceph_name_matches(next, binary, id);
    if (strncmp(a, "--name=", 7) == 0)
      return ceph_name_matches(a + 7, binary, id);
  }
  return false;
}

static bool is_qemu_binary(const char *argv0) {
  const char *exe = base_name(argv0);
  return strncmp(exe, "qemu-system-", 12) == 0 || strcmp(exe, "qemu-kvm") == 0 || strcmp(exe, "kvm") == 0;
}

/* Next item of a qemu option string ("a=b,c=d"; ",," is a literal comma)
 * into BUF, unescaped; returns the rest or NULL at the end. */
static const char *qemu_opt_next(const char *s, char *buf, size_t len) {
  size_t o = 0;
  while (*s) {
    if (*s == ',') {
      if (s[1] == ',') {
        if (o + 1 < len)
          buf[o++] = ',';
        s += 2;
        continue;
      }
      s++;
      break;
    }
    if (o + 1 < len)
      buf[o++] = *s;
    s++;
  }
  buf[o] = '\0';
  return s;
}

/* Value of KEY in a qemu option string; IMPLIED_KEY names the key of a
 * first item given without "key=". */
static bool qemu_opt_get(const char *opts, const char *key, const char *implied_key, char *out, size_t len) {
  char item[1024];
  bool first = true;
  const char *p = opts;
  while (*p) {
    p = qemu_opt_next(p, item, sizeof(item));
    char *eq = strchr(item, '=');
    if (eq == NULL) {
      if (first && implied_key && strcmp(key, implied_key) == 0) {
        snprintf(out, len, "%s", item);
        return true;
      }
    } else {
      *eq = '\0';
      if (strcmp(item, key) == 0) {
        snprintf(out, len, "%s", eq + 1);
        return true;
      }
    }
    first = false;
  }
  return false;
}

bool placer_cmdline_is_qemu_guest(const struct placer_cmdline *cl, const char *name) {
  if (cl->argc == 0 || name == NULL || !is_qemu_binary(cl->argv[0]))
    return false;
  for (size_t i = 1; i + 1 < cl->argc; i++) {
    if (strcmp(cl->argv[i], "-name") != 0 && strcmp(cl->argv[i], "--name") != 0)
      continue;
    char guest[1024];
    if (qemu_opt_get(cl->argv[i + 1], "guest", "guest", guest, sizeof(guest)) && strcmp(guest, name) == 0)
      return true;
  }
  return false;
}

int placer_cmdline_qmp_socket(const struct placer_cmdline *cl, char **path) {
  if (cl->argc == 0 || !is_qemu_binary(cl->argv[0]))
    return -1;
  char buf[1024];
  for (size_t i = 1; i + 1 < cl->argc; i++) {
    const char *a = cl->argv[i], *v = cl->argv[i + 1];
    if ((strcmp(a, "-qmp") == 0 || strcmp(a, "--qmp") == 0) && strncmp(v, "unix:", 5) == 0) {
      qemu_opt_next(v + 5, buf, sizeof(buf));
      if (*buf)
        return (*path = strdup(buf)) ? 0 : -1;
    }
  }
  /* -mon chardev=ID,mode=control with -chardev socket,id=ID,path=PATH */
  for (size_t i = 1; i + 1 < cl->argc; i++) {
    if (strcmp(cl->argv[i], "-mon") != 0 && strcmp(cl->argv[i], "--mon") != 0)
      continue;
    char id[256], mode[64];
    if (!qemu_opt_get(cl->argv[i + 1], "chardev", "chardev", id, sizeof(id)))
      continue;
    if (qemu_opt_get(cl->argv[i + 1], "mode", NULL, mode, sizeof(mode)) && strcmp(mode, "control") != 0)
      continue;
    for (size_t j = 1; j + 1 < cl->argc; j++) {
      if (strcmp(cl->argv[j], "-chardev") != 0 && strcmp(cl->argv[j], "--chardev") != 0)
        continue;
      const char *opts = cl->argv[j + 1];
      char backend[64], cid[256];
      qemu_opt_next(opts, backend, sizeof(backend));
      if (strcmp(backend, "socket") != 0 || !qemu_opt_get(opts, "id", NULL, cid, sizeof(cid)) || strcmp(cid, id) != 0)
        continue;
      if (qemu_opt_get(opts, "path", NULL, buf, sizeof(buf)) && *buf)
        return (*path = strdup(buf)) ? 0 : -1;
    }
  }
  return -1;
}

bool placer_cmdline_matches_pattern(const struct placer_cmdline *cl, const char *pattern) {
  if (cl->argc == 0 || pattern == NULL)
    return false;
  cleanup_free char *joined = placer_cmdline_join(cl);
  return joined && fnmatch(pattern, joined, 0) == 0;
}

int placer_parse_pid_text(const char *text, pid_t *pid) {
  const char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  if (!isdigit((unsigned char)*p))
    return -1;
  errno = 0;
  char *end;
  long v = strtol(p, &end, 10);
  while (isspace((unsigned char)*end))
    end++;
  if (errno || *end != '\0' || v <= 0 || v > 0x3fffffff)
    return -1;
  *pid = (pid_t)v;
  return 0;
}

const char *placer_proxmox_run_dir(void) {
  const char *dir = getenv("PLACER_PROXMOX_RUN_DIR");
  return dir && *dir ? dir : "/var/run/qemu-server";
}

char *placer_match_describe(enum placer_role_kind kind, const struct placer_match *match) {
  char *s = NULL;
  const char *v = match->value ? match->value : "";
  int ret = -1;
  switch (match->kind) {
  case PLACER_MATCH_NONE: ret = asprintf(&s, "no matcher (only --pid binds it)"); break;
  case PLACER_MATCH_CEPH_ID: {
    const char *bin = placer_ceph_binary(kind);
    ret = asprintf(&s, "%s --id %s", bin ? bin : "ceph-*", v);
    break;
  }
  case PLACER_MATCH_CONTAINER: ret = asprintf(&s, "podman container '%s'", v); break;
  case PLACER_MATCH_QEMU_NAME: ret = asprintf(&s, "qemu -name guest=%s", v); break;
  case PLACER_MATCH_PIDFILE: ret = asprintf(&s, "pid file %s", v); break;
  case PLACER_MATCH_CMDLINE: ret = asprintf(&s, "cmdline '%s'", v); break;
  case PLACER_MATCH_PROXMOX_VMID:
    ret = asprintf(&s, "Proxmox VMID %s (%s/%s.pid)", v, placer_proxmox_run_dir(), v);
    break;
  }
  return ret < 0 ? NULL : s;
}

/* ------------------------------------------------------------------ finding */

/* The kernel's flag of its own threads (PF_KTHREAD, field 9 of /proc/PID/stat). */
#define KTHREAD_FLAG 0x00200000u

/* Is PID one of placer's ancestors (its shell, sshd, ..., PID 1)?  A
 * process forks its children, so an ancestor started no later than placer
 * did: one started after it is none, without a read of each ancestor's
 * stat (the watcher asks it of every process it binds). */
static bool is_ancestor(pid_t pid) {
  static uint64_t self_start;
  uint64_t start = 0;
  struct placer_error *gone = NULL;
  if (self_start == 0 && placer_proc_start_time(getpid(), &self_start, &gone) < 0)
    placer_error_clear(&gone);
  if (self_start != 0 && placer_proc_start_time(pid, &start, &gone) == 0 && start > self_start)
    return false;
  placer_error_clear(&gone);
  pid_t p = getppid();
  for (int depth = 0; p > 0 && depth < 4096; depth++) {
    if (p == pid)
      return true;
    if (p == 1)
      break;
    p = placer_proc_parent(p);
  }
  return false;
}

const char *placer_proc_never_bound(pid_t pid) {
  if (pid == 1)
    return "PID 1, the init of the whole system";
  if (pid == getpid())
    return "placer itself";
  unsigned flags = 0;
  char state = placer_task_state(pid, pid, &flags);
  if (state != '\0' && state != '?' && (flags & KTHREAD_FLAG))
    return "a kernel thread";
  if (is_ancestor(pid))
    return "one of placer's own ancestors (the shell or service that runs it)";
  return NULL;
}

/* A process that can be bound: alive (not a zombie), a user process (kernel
 * threads have an empty cmdline), and none placer never binds. */
static bool bindable(pid_t pid) {
  char state = placer_proc_state(pid);
  return state != '\0' && state != 'Z' && state != 'X' && placer_proc_never_bound(pid) == NULL;
}

static bool pid_in(const pid_t *pids, size_t n, pid_t pid) {
  for (size_t k = 0; k < n; k++)
    if (pids[k] == pid)
      return true;
  return false;
}

/* The tree PID belongs to among PIDS: the parent of its topmost ancestor
 * in PIDS (workers a supervisor forked share it: stress-ng's, a service's),
 * or, when that ancestor is a child of PID 1 or of the kernel, the ancestor
 * itself, negated so that it never equals a parent's pid (everything
 * descends from PID 1: it joins nothing). */
static pid_t tree_key(const pid_t *pids, size_t n, pid_t pid) {
  pid_t top = pid, p = placer_proc_parent(pid);
  for (int depth = 0; p > 1 && depth < 4096; depth++) {
    if (pid_in(pids, n, p))
      top = p;
    p = placer_proc_parent(p);
  }
  pid_t parent = placer_proc_parent(top);
  return parent > 2 ? parent : -top;
}

size_t placer_proc_count_trees(const pid_t *pids, size_t n) {
  size_t trees = 0;
  cleanup_free pid_t *keys = calloc(n ? n : 1, sizeof(*keys));
  if (keys == NULL)
    return n; /* counted as unrelated: the caller refuses rather than binds */
  for (size_t i = 0; i < n; i++) {
    pid_t key = tree_key(pids, n, pids[i]);
    if (!pid_in(keys, trees, key))
      keys[trees++] = key;
  }
  return trees;
}

static bool cmdline_test(enum placer_role_kind kind, const struct placer_match *m, const struct placer_cmdline *cl) {
  switch (m->kind) {
  case PLACER_MATCH_CEPH_ID: return placer_cmdline_is_ceph_daemon(cl, placer_ceph_binary(kind), m->value);
  case PLACER_MATCH_QEMU_NAME: return placer_cmdline_is_qemu_guest(cl, m->value);
  case PLACER_MATCH_CMDLINE: return placer_cmdline_matches_pattern(cl, m->value);
  default: return false;
  }
}

/* The pid file of a PIDFILE or PROXMOX_VMID match (qemu-server starts
 * every guest with -pidfile /var/run/qemu-server/VMID.pid); NULL for the
 * other kinds and on ENOMEM. */
static char *pidfile_path(const struct placer_match *m) {
  const char *v = m->value ? m->value : "";
  char *path = NULL;
  if (m->kind == PLACER_MATCH_PIDFILE)
    return strdup(v);
  if (m->kind == PLACER_MATCH_PROXMOX_VMID && asprintf(&path, "%s/%s.pid", placer_proxmox_run_dir(), v) >= 0)
    return path;
  return NULL;
}

bool placer_procmatch_process(enum placer_role_kind kind, const struct placer_match *match, pid_t pid,
                              const struct placer_cmdline *cl) {
  if (cmdline_test(kind, match, cl))
    return true;
  cleanup_free char *path = pidfile_path(match);
  cleanup_free char *text = NULL;
  pid_t recorded = 0;
  return path && placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) == 0 &&
         placer_parse_pid_text(text, &recorded) == 0 && recorded == pid;
}

static int scan_proc(enum placer_role_kind kind, const struct placer_match *m, struct placer_pid_list *found,
                     struct placer_error **err) {
  DIR *dir = opendir("/proc");
  if (dir == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "open /proc");
  struct dirent *de;
  int ret = 0;
  while ((de = readdir(dir)) != NULL) {
    char *end;
    long v = strtol(de->d_name, &end, 10);
    if (*end != '\0' || v <= 0)
      continue;
    pid_t pid = (pid_t)v;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    cleanup_free char *raw = NULL;
    size_t len = 0;
    if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &raw, &len) < 0 || len == 0)
      continue; /* gone meanwhile, or a kernel thread */
    struct placer_cmdline cl;
    if (placer_cmdline_split(raw, len, &cl) < 0) {
      ret = placer_error_oom(err, NULL);
      break;
    }
    bool hit = cmdline_test(kind, m, &cl);
    placer_cmdline_clear(&cl);
    if (hit && bindable(pid) && placer_pid_list_add(found, pid) < 0) {
      ret = placer_error_oom(err, NULL);
      break;
    }
  }
  closedir(dir);
  return ret;
}

/* First line of TEXT, trimmed, at most 200 bytes; caller frees. */
static char *first_line(const char *text) {
  while (isspace((unsigned char)*text))
    text++;
  size_t len = strcspn(text, "\n");
  if (len > 200)
    len = 200;
  while (len > 0 && isspace((unsigned char)text[len - 1]))
    len--;
  return strndup(text, len);
}

static int find_container(const char *name, struct placer_pid_list *found, char **why, struct placer_error **err) {
  const char *podman = getenv("PLACER_PODMAN");
  if (podman == NULL || *podman == '\0')
    podman = "podman";
  char *argv[] = { (char *)podman, "inspect", "--type", "container", "-f", "{{.State.Pid}}", (char *)name, NULL };
  cleanup_free char *out = NULL, *errout = NULL;
  int status = 0;
  if (placer_subprocess_capture(argv, NULL, PODMAN_TIMEOUT_MS, &out, &errout, &status, err) < 0)
    return placer_error_prefix(err, "podman inspect '%s'", name);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    cleanup_free char *line = first_line(*errout ? errout : out);
    if (why && asprintf(why, "podman inspect: %s", line && *line ? line : "failed") < 0)
      *why = NULL;
    return 0;
  }
  pid_t pid = 0;
  if (placer_parse_pid_text(out, &pid) < 0) {
    /* "0": the container exists but does not run. */
    if (why && (*why = strdup("the container is not running")) == NULL)
      return placer_error_oom(err, NULL);
    return 0;
  }
  if (!bindable(pid)) {
    const char *never = placer_proc_never_bound(pid);
    if (why && asprintf(why, "podman says pid %d, which %s%s", (int)pid, never ? "is never bound: " : "is not running",
                        never ? never : "") < 0)
      *why = NULL;
    return 0;
  }
  if (placer_pid_list_add(found, pid) < 0)
    return placer_error_oom(err, NULL);
  return 0;
}

static int find_pidfile(const char *path, struct placer_pid_list *found, char **why, struct placer_error **err) {
  cleanup_free char *text = NULL;
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0) {
    if (why && asprintf(why, "cannot read %s: %s", path, strerror(errno)) < 0)
      *why = NULL;
    return 0;
  }
  pid_t pid = 0;
  if (placer_parse_pid_text(text, &pid) < 0) {
    if (why && asprintf(why, "%s does not hold a pid", path) < 0)
      *why = NULL;
    return 0;
  }
  if (!bindable(pid)) {
    const char *never = placer_proc_never_bound(pid);
    if (why && (never ? asprintf(why, "%s names pid %d, which is never bound: %s", path, (int)pid, never)
                      : asprintf(why, "stale pid file: pid %d is not running", (int)pid)) < 0)
      *why = NULL;
    return 0;
  }
  if (placer_pid_list_add(found, pid) < 0)
    return placer_error_oom(err, NULL);
  return 0;
}

int placer_procmatch_find(enum placer_role_kind kind, const struct placer_match *match, pid_t **pids, size_t *n,
                          char **why, struct placer_error **err) {
  struct placer_pid_list found = { 0 };
  if (why)
    *why = NULL;
  int ret = 0;
  switch (match->kind) {
  case PLACER_MATCH_NONE: break;
  case PLACER_MATCH_CEPH_ID:
  case PLACER_MATCH_QEMU_NAME:
  case PLACER_MATCH_CMDLINE:
    if (match->value == NULL || *match->value == '\0')
      ret = placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "empty %s match", placer_match_kind_name(match->kind));
    else
      ret = scan_proc(kind, match, &found, err);
    break;
  case PLACER_MATCH_CONTAINER: ret = find_container(match->value ? match->value : "", &found, why, err); break;
  case PLACER_MATCH_PIDFILE:
  case PLACER_MATCH_PROXMOX_VMID: {
    cleanup_free char *path = pidfile_path(match);
    ret = path ? find_pidfile(path, &found, why, err) : placer_error_oom(err, NULL);
    break;
  }
  }
  if (ret < 0) {
    placer_pid_list_free(&found);
    if (why) {
      free(*why);
      *why = NULL;
    }
    return -1;
  }
  placer_pid_list_sort(&found);
  *pids = placer_pid_list_take(&found, n);
  return 0;
}
