/* placer's state directories and the one way it reads them back: trusted
 * only while root (or placer's own user) alone can change them; see
 * statedir.h. */
#include "lib/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fsfile.h"
#include "lib/textfile.h"

/* Owned by root or by us: nobody else could have written it. */
static bool trusted_owner(const struct stat *st) {
  return st->st_uid == 0 || st->st_uid == geteuid();
}

/* What is wrong with ST as a directory placer may trust (NULL: nothing);
 * STICKY_OK: a directory others may write but not rename or remove our
 * entries in (/tmp) is fine above the state directory. */
static const char *dir_problem(const struct stat *st, bool sticky_ok, char *buf, size_t len) {
  if (!S_ISDIR(st->st_mode)) {
    snprintf(buf, len, "%s, not a directory", placer_file_type_name((unsigned)st->st_mode));
    return buf;
  }
  if (!trusted_owner(st)) {
    snprintf(buf, len, "owned by uid %u, not by root", (unsigned)st->st_uid);
    return buf;
  }
  if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (st->st_mode & S_ISVTX))) {
    snprintf(buf, len, "writable by %s (mode %04o)", st->st_mode & S_IWOTH ? "others" : "its group",
             (unsigned)(st->st_mode & 07777));
    return buf;
  }
  return NULL;
}

static const char *file_problem(const struct stat *st, char *buf, size_t len) {
  if (!S_ISREG(st->st_mode)) {
    snprintf(buf, len, "%s, not a regular file placer wrote", placer_file_type_name((unsigned)st->st_mode));
    return buf;
  }
  if (!trusted_owner(st)) {
    snprintf(buf, len, "owned by uid %u, not by root: placer did not write it", (unsigned)st->st_uid);
    return buf;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(buf, len, "writable by %s (mode %04o): placer trusts only what root alone can change",
             st->st_mode & S_IWOTH ? "others" : "its group", (unsigned)(st->st_mode & 07777));
    return buf;
  }
  return NULL;
}

static int refuse_dir(struct placer_error **err, const char *path, const char *where, const char *why) {
  if (where)
    return placer_error_set(err, PLACER_EXIT_USAGE, EPERM,
                            "state directory '%s': '%s' above it is %s: placer keeps state only where root alone can "
                            "change it",
                            path, where, why);
  return placer_error_set(err, PLACER_EXIT_USAGE, EPERM,
                          "state directory '%s': %s: placer keeps state only where root alone can change it", path,
                          why);
}

/* Every directory from / down to REAL (a resolved path) may be trusted. */
static int check_ancestors(const char *path, const char *real, struct placer_error **err) {
  cleanup_free char *walk = strdup(real);
  if (walk == NULL)
    return placer_error_oom(err, NULL);
  size_t len = strlen(walk);
  for (size_t i = 1; i <= len; i++) {
    if (walk[i] != '/' && walk[i] != '\0')
      continue;
    char saved = walk[i];
    walk[i] = '\0';
    struct stat st;
    char why[160];
    const char *problem = stat(walk, &st) < 0 ? strerror(errno) : dir_problem(&st, true, why, sizeof(why));
    if (problem)
      return refuse_dir(err, path, walk, problem);
    walk[i] = saved;
  }
  struct stat root;
  char why[160];
  if (stat("/", &root) == 0 && dir_problem(&root, true, why, sizeof(why)))
    return refuse_dir(err, path, "/", why);
  return 0;
}

int placer_statedir_open(const char *path, bool create, struct placer_statedir *d, struct placer_error **err) {
  memset(d, 0, sizeof(*d));
  d->fd = -1;
  if (path == NULL || *path == '\0')
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL, "empty state directory");
  if ((d->path = strdup(path)) == NULL)
    return placer_error_oom(err, NULL);
  cleanup_free char *copy = strdup(path);
  if (copy == NULL)
    return placer_error_oom(err, NULL);
  size_t len = strlen(copy);
  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  char *slash = strrchr(copy, '/');
  const char *base = slash ? slash + 1 : copy;
  const char *parent = slash == NULL ? "." : slash == copy ? "/" : copy;
  if (slash)
    *slash = '\0';
  if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                            "state directory '%s': name a directory of its own (not '/', '.' or '..')", path);
  cleanup_free char *real = realpath(parent, NULL);
  if (real == NULL && errno == ENOENT && create) {
    if (placer_mkdir_p(parent, err) < 0)
      return placer_error_prefix(err, "state directory '%s'", path);
    real = realpath(parent, NULL);
  }
  if (real == NULL) {
    if (errno == ENOENT)
      return 0; /* nothing was ever recorded there */
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "state directory '%s'", path);
  }
  if (check_ancestors(path, real, err) < 0)
    return -1;
  cleanup_close int pfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "state directory '%s': open %s", path, real);
  int fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    if (mkdirat(pfd, base, 0755) < 0 && errno != EEXIST)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", path);
    fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) {
    int saved = errno;
    struct stat st;
    if (saved == ENOENT)
      return 0;
    if ((saved == ELOOP || saved == ENOTDIR) && fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0)
      return refuse_dir(err, path, NULL,
                        S_ISLNK(st.st_mode) ? "a symbolic link (placer never follows one to its state)"
                                            : placer_file_type_name((unsigned)st.st_mode));
    return placer_error_errno(err, PLACER_EXIT_USAGE, saved, "state directory '%s'", path);
  }
  struct stat st;
  char why[160];
  const char *problem = fstat(fd, &st) < 0 ? strerror(errno) : dir_problem(&st, false, why, sizeof(why));
  if (problem) {
    close(fd);
    return refuse_dir(err, path, NULL, problem);
  }
  d->fd = fd;
  /* DEV:INO alone names another directory once the inode is reused (rm -rf, then mkdir): with the
   * directory's birth (or the inode's generation) it names this one only */
  unsigned long long birth = 0;
  struct statx stx;
  unsigned generation = 0;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME, &stx) == 0 && (stx.stx_mask & STATX_BTIME))
    birth = (unsigned long long)stx.stx_btime.tv_sec * 1000000000ull + stx.stx_btime.tv_nsec;
  else if (ioctl(fd, FS_IOC_GETVERSION, &generation) == 0)
    birth = generation;
  snprintf(d->id, sizeof(d->id), "%llu:%llu:%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, birth);
  return 0;
}

void placer_statedir_close(struct placer_statedir *d) {
  if (d == NULL)
    return;
  if (d->fd >= 0)
    close(d->fd);
  free(d->path);
  memset(d, 0, sizeof(*d));
  d->fd = -1;
}

/* Open NAME in D without following a link or blocking on a FIFO, and check
 * it: the fd, or -1 with *missing (no such file) or ERR. */
static int open_file(const struct placer_statedir *d, const char *name, int flags, bool *missing,
                     struct placer_error **err) {
  *missing = false;
  int fd = openat(d->fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == ENOENT) {
      *missing = true;
      return -1;
    }
    if (errno == ELOOP)
      placer_error_set(err, PLACER_EXIT_USAGE, ELOOP,
                       "state file '%s/%s': a symbolic link (placer never follows one to its state)", d->path, name);
    else
      placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "state file '%s/%s'", d->path, name);
    return -1;
  }
  struct stat st;
  char why[160];
  const char *problem = fstat(fd, &st) < 0 ? strerror(errno) : file_problem(&st, why, sizeof(why));
  if (problem) {
    close(fd);
    placer_error_set(err, PLACER_EXIT_USAGE, EPERM, "state file '%s/%s': %s", d->path, name, problem);
    return -1;
  }
  return fd;
}

int placer_statedir_read(const struct placer_statedir *d, const char *name, size_t max, char **text, size_t *len,
                         struct placer_error **err) {
  if (d->fd < 0)
    return 1;
  bool missing;
  cleanup_close int fd = open_file(d, name, O_RDONLY, &missing, err);
  if (fd < 0)
    return missing ? 1 : -1;
  struct stat st;
  if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > max)
    return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG, "state file '%s/%s': larger than %zu MiB", d->path, name,
                            max >> 20);
  if (placer_textfile_read_fd(fd, max, text, len) < 0) {
    if (errno == EFBIG)
      return placer_error_set(err, PLACER_EXIT_USAGE, EFBIG, "state file '%s/%s': larger than %zu MiB", d->path, name,
                              max >> 20);
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s/%s", d->path, name);
  }
  return 0;
}

bool placer_statedir_has(const struct placer_statedir *d, const char *name) {
  struct stat st;
  return d->fd >= 0 && fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int placer_statedir_lock(const struct placer_statedir *d, const char *name, bool exclusive, int *fd, char **made,
                         struct placer_error **err) {
  *fd = -1;
  if (made)
    *made = NULL;
  if (d->fd < 0)
    return exclusive ? placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT, "state directory '%s' is gone", d->path) : 0;
  for (int tries = 0; tries < 100; tries++) {
    bool missing, created = false;
    int f = -1;
    if (exclusive) { /* made here, or there already */
      f = openat(d->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
      created = f >= 0;
      if (f < 0 && errno == ENOENT) /* the directory itself went (a reset tidied it up) */
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT,
                                "state directory '%s' was removed meanwhile (a reset ended): run the command again",
                                d->path);
    }
    if (f < 0)
      f = open_file(d, name, exclusive ? O_RDWR : O_RDONLY, &missing, err);
    else
      missing = false;
    if (f < 0 && missing && exclusive)
      continue; /* removed between the two opens: make it */
    if (f < 0) {
      if (missing && !exclusive)
        return 0; /* nobody ever took it */
      if (missing)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, ENOENT,
                                "state directory '%s' was removed meanwhile (a reset ended): run the command again",
                                d->path);
      return -1;
    }
    if (flock(f, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
      int saved = errno;
      close(f);
      if (saved == EWOULDBLOCK)
        return 1;
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "lock %s/%s", d->path, name);
    }
    /* Still the file NAME names?  Its holder may have removed it before we
     * got the lock (placer_statedir_unlock_remove): then take the new one. */
    struct stat held, now;
    if (fstat(f, &held) == 0 && fstatat(d->fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      if (created && made && asprintf(made, "%s/%s", d->path, name) < 0)
        *made = NULL;
      *fd = f;
      return 0;
    }
    close(f);
    if (!exclusive && fstatat(d->fd, name, &now, AT_SYMLINK_NOFOLLOW) < 0)
      return 0;
  }
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "lock %s/%s: it keeps being replaced", d->path, name);
}

void placer_statedir_unlock_remove(const struct placer_statedir *d, const char *name, int fd) {
  if (fd < 0)
    return;
  struct stat held, now;
  if (d->fd >= 0 && fstat(fd, &held) == 0 && fstatat(d->fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
      held.st_dev == now.st_dev && held.st_ino == now.st_ino)
    unlinkat(d->fd, name, 0);
  close(fd);
}

void placer_statedir_unlock(int fd, const char *made) {
  if (fd < 0)
    return;
  struct stat held, now;
  if (made && fstat(fd, &held) == 0 && lstat(made, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino)
    unlink(made);
  close(fd);
}

void placer_statedir_tidy(const char *dir, const char *const *files, const char *const *strays,
                          const char *const *locks) {
  struct placer_statedir d;
  struct placer_error *e = NULL;
  if (placer_statedir_open(dir, false, &d, &e) < 0 || d.fd < 0) {
    placer_error_free(e);
    placer_statedir_close(&d);
    return;
  }
  const char *held[8];
  int fds[8];
  size_t n = 0;
  bool ok = true;
  for (size_t i = 0; locks && locks[i] && ok; i++) {
    if (!placer_statedir_has(&d, locks[i]))
      continue;
    int fd = -1;
    ok = n < 8 && placer_statedir_lock(&d, locks[i], true, &fd, NULL, &e) == 0;
    placer_error_clear(&e);
    if (ok) {
      held[n] = locks[i];
      fds[n++] = fd;
    }
  }
  /* under the locks: nothing is recorded, so nobody needs them */
  for (size_t i = 0; files && files[i] && ok; i++)
    ok = !placer_statedir_has(&d, files[i]);
  struct stat st;
  for (size_t i = 0; strays && strays[i] && ok; i++)
    if (fstatat(d.fd, strays[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      unlinkat(d.fd, strays[i], 0); /* anything else of that name stays, and so does DIR */
  for (size_t k = 0; k < n; k++) {
    if (ok)
      placer_statedir_unlock_remove(&d, held[k], fds[k]);
    else
      close(fds[k]);
  }
  if (ok)
    rmdir(dir); /* only when empty: anything else in it stays, and so does the directory */
  placer_statedir_close(&d);
}

const char *placer_boot_id(void) {
  static char id[64];
  static bool read_once;
  if (!read_once) {
    char *text = NULL;
    if (placer_textfile_read_path("/proc/sys/kernel/random/boot_id", 256, &text, NULL) == 0) {
      text[strcspn(text, "\n")] = '\0';
      snprintf(id, sizeof(id), "%s", text);
    }
    free(text);
    read_once = true;
  }
  return id;
}

int placer_statedir_check_binding(const struct placer_statedir *d, const char *file, const char *boot_id,
                                  const char *state_id, struct placer_error **err) {
  if (boot_id == NULL || state_id == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s/%s records no boot and directory: this placer did not write it, and acts only on "
                            "what it recorded itself; nothing done (docs/apply.md, \"What placer trusts\")",
                            d->path, file);
  if (strcmp(boot_id, placer_boot_id()) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s/%s was written in another boot (%.36s), not this one: what it recorded is gone or "
                            "is not placer's now; nothing done (remove it by hand)",
                            d->path, file, boot_id);
  if (strcmp(state_id, d->id) != 0)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EPERM,
                            "%s/%s was written for another directory (%s; this one is %s): a copy is not a "
                            "placement placer made; nothing done (remove it by hand)",
                            d->path, file, state_id, d->id);
  return 0;
}

static int dup_or_null(const char *value, char **out) {
  *out = value ? strdup(value) : NULL;
  return value == NULL || *out ? 0 : -1;
}

int placer_statedir_load(const struct placer_statedir *d, const char *name, json_t **doc, char **boot_id,
                         char **state_id, struct placer_error **err) {
  *doc = NULL;
  cleanup_free char *text = NULL;
  size_t len = 0;
  int rc = placer_statedir_read(d, name, PLACER_STATEDIR_MAX_FILE_BYTES, &text, &len, err);
  if (rc < 0)
    return -1;
  if (rc == 1) /* nothing recorded: a new state, for this boot and directory */
    return dup_or_null(placer_boot_id(), boot_id) < 0 || dup_or_null(d->id, state_id) < 0 ? placer_error_oom(err, NULL)
                                                                                          : 0;
  json_error_t jerr;
  json_t *j = json_loadb(text, len, 0, &jerr);
  if (j == NULL)
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s/%s:%d: %s", d->path, name, jerr.line, jerr.text);
  const char *recorded_boot = json_string_value(json_object_get(j, "boot_id"));
  const char *recorded_dir = json_string_value(json_object_get(j, "state_id"));
  if (!json_is_object(j) || placer_statedir_check_binding(d, name, recorded_boot, recorded_dir, err) < 0) {
    if (!json_is_object(j))
      placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s/%s: not a JSON object", d->path, name);
    json_decref(j);
    return -1;
  }
  *doc = j;
  return 0;
}
