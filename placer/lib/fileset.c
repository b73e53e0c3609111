/* A set of files written into a directory as one; see fileset.h.  Every
 * path below DIR is reached from DIR's descriptor, one component at a time
 * and never through a symbolic link (openat, fstatat with
 * AT_SYMLINK_NOFOLLOW), so what was checked is what is written. */
#include "lib/fileset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/textfile.h"

/* A manifest lists a set's files: far above any set placer writes. */
#define MANIFEST_MAX_BYTES ((size_t)4 << 20)
#define NAME_MAX_BYTES 255

enum todo {
  TODO_KEEP,    /* its bytes are there already */
  TODO_CREATE,  /* new */
  TODO_REPLACE, /* there with other bytes */
  TODO_REMOVE,  /* stale: the manifest lists it, the set no longer has it */
  TODO_SKIP,    /* stale, but gone or no longer a file placer wrote: left alone */
};

struct sub {
  char *name;       /* "" for DIR itself */
  int fd;           /* -1 while it does not exist */
  bool needed;      /* a file of the set goes into it */
  bool made_before; /* the old manifest says placer made it */
  bool made_now;
};

struct item {
  const char *name; /* NAME or SUB/NAME: the set's, or cut out of the old manifest */
  const char *base; /* the part after SUB/ */
  size_t sub;
  const struct placer_fileset_file *file; /* NULL: a stale file of the manifest */
  enum todo todo;
  char tmp[48]; /* the new bytes, staged beside it */
  char old[48]; /* a link to the old file, kept until the manifest is in place */
  bool staged, kept_old, done;
};

struct job {
  const char *manifest;
  int dfd;
  struct sub *subs;
  size_t n_subs;
  struct item *items;
  size_t n_items;
  char *old_text;     /* the old manifest, cut in place; NULL when none */
  char *text;         /* the new one */
  bool manifest_same; /* the new manifest's bytes are there already */
  char manifest_tmp[48];
  unsigned serial; /* temporary names */
  struct placer_error **err;
};

void placer_fileset_changes_free(struct placer_fileset_changes *changes) {
  placer_string_list_free(&changes->written);
  placer_string_list_free(&changes->removed);
}

static bool valid_component(const char *s, size_t len) {
  if (len == 0 || len > NAME_MAX_BYTES || s[0] == '.')
    return false;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == '/')
      return false;
  return true;
}

/* NAME or SUB/NAME, each a valid component; *sub_len the length of SUB (0: none). */
static bool valid_name(const char *name, size_t *sub_len) {
  const char *slash = strchr(name, '/');
  *sub_len = slash ? (size_t)(slash - name) : 0;
  if (slash == NULL)
    return valid_component(name, strlen(name));
  return valid_component(name, *sub_len) && valid_component(slash + 1, strlen(slash + 1));
}

static const char *type_name(mode_t mode) {
  return S_ISLNK(mode) ? "a symbolic link (placer writes through none)" : placer_file_type_name((unsigned)mode);
}

/* ------------------------------------------------------------------ the check */

int placer_fileset_check_dir(const char *dir, struct placer_error **err) {
  struct stat st;
  if (fstatat(AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return placer_error_set(err, PLACER_EXIT_USAGE, errno, "%s", strerror(errno));
  if (S_ISLNK(st.st_mode))
    return placer_error_set(err, PLACER_EXIT_USAGE, ELOOP,
                            "a symbolic link (placer writes through none: name the directory itself)");
  if (!S_ISDIR(st.st_mode))
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOTDIR, "not a directory");
  if (access(dir, W_OK | X_OK) != 0)
    return placer_error_errno(err, PLACER_EXIT_USAGE, errno, "cannot write into it");
  return 0;
}

static int by_name(const void *a, const void *b) {
  const struct item *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  /* the set's file first: a name in both the set and the manifest is the set's */
  return c ? c : (x->file == NULL) - (y->file == NULL);
}

static int sub_by_name(const void *a, const void *b) {
  return strcmp(((const struct sub *)a)->name, ((const struct sub *)b)->name);
}

/* The index of SUB (LEN bytes of NAME) in the sorted subs; n_subs when none. */
static size_t find_sub(const struct job *j, const char *name, size_t len) {
  size_t lo = 0, hi = j->n_subs;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const char *s = j->subs[mid].name;
    int c = strncmp(s, name, len);
    if (c == 0)
      c = s[len] != '\0';
    if (c == 0)
      return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return j->n_subs;
}

/* The old manifest, when there is one: its lines checked, its files added
 * to the items as stale (the set's own replace them once sorted), *made
 * the subdirectories it says placer made.  A manifest is trusted only as
 * far as this user can have written it. */
static int read_manifest(struct job *j, struct placer_string_list *made) {
  cleanup_close int fd = openat(j->dfd, j->manifest, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return 0;
  struct stat st;
  if (fd < 0 && errno == ELOOP && fstatat(j->dfd, j->manifest, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return placer_error_set(j->err, PLACER_EXIT_USAGE, 0, "%s is %s, not the list of files placer writes there",
                            j->manifest, type_name(st.st_mode));
  if (fd < 0 || fstat(fd, &st) < 0)
    return placer_error_errno(j->err, PLACER_EXIT_USAGE, errno, "%s", j->manifest);
  const char *why = NULL;
  if (!S_ISREG(st.st_mode))
    why = type_name(st.st_mode);
  else if (st.st_uid != geteuid())
    why = "owned by another user";
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    why = "writable by other users";
  else if ((size_t)st.st_size > MANIFEST_MAX_BYTES)
    why = "larger than 4 MiB";
  if (why)
    return placer_error_set(
        j->err, PLACER_EXIT_USAGE, 0,
        "%s is %s: not a list placer can have written (remove it, and the files it names, to start over)", j->manifest,
        why);
  size_t len = 0;
  if (placer_textfile_read_fd(fd, MANIFEST_MAX_BYTES, &j->old_text, &len) < 0)
    return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "read %s", j->manifest);
  if (memchr(j->old_text, '\0', len))
    return placer_error_set(j->err, PLACER_EXIT_USAGE, 0, "%s: a NUL byte: not a list placer writes", j->manifest);
  size_t cap = j->n_items;
  unsigned line = 1;
  for (char *p = j->old_text; *p; line++) {
    char *nl = strchr(p, '\n');
    if (nl)
      *nl = '\0';
    size_t sub_len = 0;
    if (*p == '#' || *p == '\0') {
      /* a comment */
    } else if (strncmp(p, "made ", 5) == 0 && valid_component(p + 5, strlen(p + 5))) {
      if (placer_string_list_add(made, p + 5) < 0)
        return placer_error_oom(j->err, NULL);
    } else if (strncmp(p, "wrote ", 6) == 0 && valid_name(p + 6, &sub_len)) {
      if (j->n_items == cap) {
        cap = cap ? cap * 2 : 16;
        struct item *grown = realloc(j->items, cap * sizeof(*grown));
        if (grown == NULL)
          return placer_error_oom(j->err, NULL);
        j->items = grown;
      }
      j->items[j->n_items++] = (struct item){ .name = p + 6 };
    } else {
      return placer_error_set(
          j->err, PLACER_EXIT_USAGE, 0,
          "%s:%u: not a line placer writes (remove the file, and the files it names, to start over)", j->manifest,
          line);
    }
    if (nl == NULL)
      break;
    p = nl + 1;
  }
  return 0;
}

/* The items sorted, a name twice dropped (or refused when the set has it
 * twice), and the subdirectories they go into, sorted. */
static int index_items(struct job *j, const struct placer_string_list *made) {
  qsort(j->items, j->n_items, sizeof(*j->items), by_name);
  size_t kept = 0;
  for (size_t i = 0; i < j->n_items; i++) {
    if (kept > 0 && strcmp(j->items[kept - 1].name, j->items[i].name) == 0) {
      if (j->items[i].file)
        return placer_error_set(j->err, PLACER_EXIT_USAGE, 0, "'%s' twice in one set of files", j->items[i].name);
      continue;
    }
    j->items[kept++] = j->items[i];
  }
  j->n_items = kept;
  /* DIR itself, and every SUB (sorted names, so the same SUB's files are next to each other) */
  j->subs = calloc(j->n_items + 1, sizeof(*j->subs));
  if (j->subs == NULL || (j->subs[0].name = strdup("")) == NULL)
    return placer_error_oom(j->err, NULL);
  j->subs[0].fd = j->dfd;
  j->n_subs = 1;
  const char *last = NULL;
  size_t last_len = 0;
  for (size_t i = 0; i < j->n_items; i++) {
    const char *slash = strchr(j->items[i].name, '/');
    if (slash == NULL)
      continue;
    size_t len = (size_t)(slash - j->items[i].name);
    if (last && len == last_len && strncmp(last, j->items[i].name, len) == 0)
      continue;
    struct sub *s = &j->subs[j->n_subs];
    if ((s->name = strndup(j->items[i].name, len)) == NULL)
      return placer_error_oom(j->err, NULL);
    s->fd = -1;
    j->n_subs++;
    last = j->items[i].name;
    last_len = len;
  }
  qsort(j->subs, j->n_subs, sizeof(*j->subs), sub_by_name); /* "" stays first */
  for (size_t i = 0; i < j->n_items; i++) {
    struct item *it = &j->items[i];
    const char *slash = strchr(it->name, '/');
    it->sub = slash ? find_sub(j, it->name, (size_t)(slash - it->name)) : 0;
    it->base = slash ? slash + 1 : it->name;
    if (it->file)
      j->subs[it->sub].needed = true;
  }
  for (size_t i = 0; i < made->n; i++) {
    size_t s = find_sub(j, made->items[i], strlen(made->items[i]));
    if (s < j->n_subs && s > 0)
      j->subs[s].made_before = true;
  }
  return 0;
}

/* Do the LEN bytes of DATA equal the regular file NAME in FD?  Reads at
 * most LEN + 1 bytes, whatever the file's size. */
static bool same_bytes(int fd, const char *name, const char *data, size_t len) {
  cleanup_close int f = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (f < 0 || fstat(f, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
    return false;
  cleanup_free char *buf = malloc(len + 1);
  size_t got = 0;
  while (buf && got < len + 1) {
    ssize_t n = read(f, buf + got, len + 1 - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  return buf && got == len && memcmp(buf, data, len) == 0;
}

/* What each item needs, each subdirectory opened: a symbolic link or
 * anything but a directory or file where the set goes is refused. */
static int survey(struct job *j) {
  for (size_t s = 1; s < j->n_subs; s++) {
    struct sub *sub = &j->subs[s];
    struct stat st;
    if (fstatat(j->dfd, sub->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT)
        return placer_error_errno(j->err, PLACER_EXIT_USAGE, errno, "%s", sub->name);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (sub->needed)
        return placer_error_set(j->err, PLACER_EXIT_USAGE, 0, "%s is %s, not a directory placer writes into", sub->name,
                                type_name(st.st_mode));
      continue; /* its stale files are no longer placer's: left alone */
    }
    sub->fd = openat(j->dfd, sub->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub->fd < 0)
      return placer_error_errno(j->err, PLACER_EXIT_USAGE, errno, "%s", sub->name);
    if (sub->needed && faccessat(sub->fd, ".", W_OK | X_OK, 0) != 0)
      return placer_error_errno(j->err, PLACER_EXIT_USAGE, errno, "%s: cannot write into it", sub->name);
  }
  for (size_t i = 0; i < j->n_items; i++) {
    struct item *it = &j->items[i];
    int fd = j->subs[it->sub].fd;
    struct stat st;
    bool there = fd >= 0 && fstatat(fd, it->base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (fd >= 0 && !there && errno != ENOENT)
      return placer_error_errno(j->err, PLACER_EXIT_USAGE, errno, "%s", it->name);
    if (it->file == NULL)
      it->todo = there && S_ISREG(st.st_mode) ? TODO_REMOVE : TODO_SKIP;
    else if (!there)
      it->todo = TODO_CREATE;
    else if (!S_ISREG(st.st_mode))
      return placer_error_set(j->err, PLACER_EXIT_USAGE, 0, "%s is %s, not a file placer replaces", it->name,
                              type_name(st.st_mode));
    else
      it->todo = same_bytes(fd, it->base, it->file->data, it->file->len) ? TODO_KEEP : TODO_REPLACE;
  }
  return 0;
}

static int manifest_text(struct job *j, const char *writer) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (f == NULL)
    return placer_error_oom(j->err, NULL);
  fprintf(f,
          "# Written by %s: the files it wrote here. The next run into this directory\n"
          "# removes those it no longer writes, and nothing else.\n",
          writer);
  for (size_t s = 1; s < j->n_subs; s++)
    if (j->subs[s].needed && (j->subs[s].made_before || j->subs[s].fd < 0))
      fprintf(f, "made %s\n", j->subs[s].name);
  for (size_t i = 0; i < j->n_items; i++)
    if (j->items[i].file)
      fprintf(f, "wrote %s\n", j->items[i].name);
  if (fclose(f) != 0) {
    free(text);
    return placer_error_oom(j->err, NULL);
  }
  j->text = text;
  j->manifest_same = same_bytes(j->dfd, j->manifest, text, size);
  return 0;
}

/* ------------------------------------------------------------------ the commit */

static void temp_name(struct job *j, char *out, size_t size) {
  snprintf(out, size, ".placer-%ld-%u", (long)getpid(), j->serial++);
}

/* Write LEN bytes of DATA into a new temporary file in FD, synced; its
 * name into OUT.  0, or -1 with errno. */
static int stage(struct job *j, int fd, const char *data, size_t len, char *out, size_t size) {
  int f;
  do {
    temp_name(j, out, size);
    f = openat(fd, out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  } while (f < 0 && errno == EEXIST);
  if (f < 0)
    return -1;
  int saved = 0;
  for (size_t off = 0; off < len && saved == 0;) {
    ssize_t n = write(f, data + off, len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      saved = n < 0 ? errno : EIO;
    else
      off += (size_t)n;
  }
  /* a full disk may only show here (delayed allocation) */
  if (saved == 0 && fsync(f) < 0)
    saved = errno;
  if (close(f) < 0 && saved == 0)
    saved = errno;
  if (saved) {
    unlinkat(fd, out, 0);
    out[0] = '\0';
    errno = saved;
    return -1;
  }
  return 0;
}

/* A second name for NAME in FD, so that it can be put back; into OUT. */
static int keep_old(struct job *j, int fd, const char *name, char *out, size_t size) {
  int rc;
  do {
    temp_name(j, out, size);
    rc = linkat(fd, name, fd, out, 0);
  } while (rc < 0 && errno == EEXIST);
  if (rc < 0)
    out[0] = '\0';
  return rc;
}

/* Undo everything done so far, in reverse: DIR as it was. */
static void roll_back(struct job *j) {
  if (j->manifest_tmp[0])
    unlinkat(j->dfd, j->manifest_tmp, 0);
  for (size_t i = j->n_items; i-- > 0;) {
    struct item *it = &j->items[i];
    int fd = j->subs[it->sub].fd;
    if (it->done && it->kept_old)
      renameat(fd, it->old, fd, it->base); /* the old bytes back over the new, or back where they were */
    else if (it->done)
      unlinkat(fd, it->base, 0); /* new: gone again */
    else if (it->kept_old)
      unlinkat(fd, it->old, 0);
    if (it->staged && !it->done)
      unlinkat(fd, it->tmp, 0);
  }
  for (size_t s = 1; s < j->n_subs; s++)
    if (j->subs[s].made_now)
      unlinkat(j->dfd, j->subs[s].name, AT_REMOVEDIR);
}

static int commit(struct job *j) {
  for (size_t s = 1; s < j->n_subs; s++) {
    struct sub *sub = &j->subs[s];
    if (!sub->needed || sub->fd >= 0)
      continue;
    if (mkdirat(j->dfd, sub->name, 0755) < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", sub->name);
    sub->made_now = true;
    sub->fd = openat(j->dfd, sub->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub->fd < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "%s", sub->name);
  }
  /* every new file's bytes first: a full disk stops here, before anything is replaced */
  for (size_t i = 0; i < j->n_items; i++) {
    struct item *it = &j->items[i];
    if (it->todo != TODO_CREATE && it->todo != TODO_REPLACE)
      continue;
    if (stage(j, j->subs[it->sub].fd, it->file->data, it->file->len, it->tmp, sizeof(it->tmp)) < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "write %s", it->name);
    it->staged = true;
  }
  for (size_t i = 0; i < j->n_items; i++) {
    struct item *it = &j->items[i];
    int fd = j->subs[it->sub].fd;
    if (it->todo == TODO_REPLACE || it->todo == TODO_REMOVE) {
      if (keep_old(j, fd, it->base, it->old, sizeof(it->old)) < 0)
        return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "link %s", it->name);
      it->kept_old = true;
    }
    if (it->todo == TODO_REMOVE && unlinkat(fd, it->base, 0) < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "remove %s", it->name);
    if ((it->todo == TODO_CREATE || it->todo == TODO_REPLACE) && renameat(fd, it->tmp, fd, it->base) < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "rename %s", it->name);
    it->done = it->todo == TODO_CREATE || it->todo == TODO_REPLACE || it->todo == TODO_REMOVE;
  }
  /* the manifest last: once it is in place, the set is */
  if (!j->manifest_same) {
    if (stage(j, j->dfd, j->text, strlen(j->text), j->manifest_tmp, sizeof(j->manifest_tmp)) < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "write %s", j->manifest);
    if (renameat(j->dfd, j->manifest_tmp, j->dfd, j->manifest) < 0)
      return placer_error_errno(j->err, PLACER_EXIT_SYSTEM, errno, "rename %s", j->manifest);
    j->manifest_tmp[0] = '\0';
  }
  return 0;
}

/* After the commit: the old bytes dropped, the directories placer made and
 * no longer needs removed when empty, the renames synced. */
static void finish(struct job *j) {
  for (size_t i = 0; i < j->n_items; i++)
    if (j->items[i].kept_old)
      unlinkat(j->subs[j->items[i].sub].fd, j->items[i].old, 0);
  for (size_t s = 1; s < j->n_subs; s++) {
    struct sub *sub = &j->subs[s];
    if (sub->fd >= 0)
      fsync(sub->fd);
    if (!sub->needed && sub->made_before && sub->fd >= 0)
      unlinkat(j->dfd, sub->name, AT_REMOVEDIR); /* fails, and leaves it, when anything else is in it */
  }
  fsync(j->dfd);
}

static int report(const struct job *j, struct placer_fileset_changes *changes) {
  *changes = (struct placer_fileset_changes){ { 0 }, { 0 } };
  for (size_t i = 0; i < j->n_items; i++) {
    const struct item *it = &j->items[i];
    int rc = 0;
    if (it->todo == TODO_CREATE || it->todo == TODO_REPLACE)
      rc = placer_string_list_add(&changes->written, it->name);
    else if (it->todo == TODO_REMOVE)
      rc = placer_string_list_add(&changes->removed, it->name);
    if (rc < 0) {
      placer_fileset_changes_free(changes);
      return placer_error_oom(j->err, NULL);
    }
  }
  return 0;
}

static void job_free(struct job *j) {
  for (size_t s = 0; s < j->n_subs; s++) {
    if (s > 0 && j->subs[s].fd >= 0)
      close(j->subs[s].fd);
    free(j->subs[s].name);
  }
  free(j->subs);
  free(j->items);
  free(j->old_text);
  free(j->text);
  if (j->dfd >= 0)
    close(j->dfd);
}

int placer_fileset_write(const char *dir, const char *manifest, const char *writer,
                         const struct placer_fileset_file *files, size_t n, bool dry,
                         struct placer_fileset_changes *changes, struct placer_error **err) {
  struct job j = { .manifest = manifest, .dfd = -1, .err = err };
  struct placer_string_list made = { 0 };
  int rc = placer_fileset_check_dir(dir, err);
  if (rc == 0) {
    j.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (j.dfd < 0)
      rc = placer_error_errno(err, PLACER_EXIT_USAGE, errno, "open");
  }
  if (rc == 0 && (j.items = calloc(n ? n : 1, sizeof(*j.items))) == NULL)
    rc = placer_error_oom(err, NULL);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    size_t sub_len;
    if (!valid_name(files[i].name, &sub_len))
      rc = placer_error_set(j.err, PLACER_EXIT_USAGE, 0, "'%s' is not a name placer writes into a directory",
                            files[i].name);
    j.items[j.n_items++] = (struct item){ .name = files[i].name, .file = &files[i] };
  }
  if (rc == 0)
    rc = read_manifest(&j, &made);
  if (rc == 0)
    rc = index_items(&j, &made);
  if (rc == 0)
    rc = survey(&j);
  if (rc == 0)
    rc = manifest_text(&j, writer);
  if (rc == 0 && !dry) {
    rc = commit(&j);
    if (rc < 0)
      roll_back(&j);
    else
      finish(&j);
  }
  if (rc == 0)
    rc = report(&j, changes);
  placer_string_list_free(&made);
  job_free(&j);
  return rc;
}
