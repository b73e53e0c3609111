/* What /proc says about cgroups and tasks: /proc/PID/cgroup lines, cgroup
 * mounts in mountinfo, a process's threads and their allowed CPUs/nodes,
 * and per-thread affinity (vCPU pinning). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup-internal.h"

/* Does comma-separated LIST hold TOKEN exactly ("cpu" is not "cpuacct")? */
static bool list_has_token(const char *list, size_t list_len, const char *token) {
  size_t tlen = strlen(token);
  const char *p = list, *end = list + list_len;
  while (p < end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    if ((size_t)(stop - p) == tlen && strncmp(p, token, tlen) == 0)
      return true;
    p = stop + 1;
  }
  return false;
}

/* Lines look like "4:cpu,cpuacct:/a/b" (v1) or "0::/a/b" (v2).  The path
 * may itself contain ':' so only the first two separate fields. */
int placer_cgroup_proc_lookup(const char *content, const char *controller, char **path) {
  const char *line = content;
  while (line && *line) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    const char *c1 = memchr(line, ':', len);
    const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
    if (c2) {
      const char *ctrls = c1 + 1;
      size_t ctrls_len = (size_t)(c2 - ctrls);
      bool match = controller ? list_has_token(ctrls, ctrls_len, controller)
                              : (ctrls_len == 0 && c1 - line == 1 && line[0] == '0');
      if (match) {
        size_t plen = len - (size_t)(c2 + 1 - line);
        char *p = strndup(c2 + 1, plen);
        if (p == NULL)
          return -1;
        *path = p;
        return 0;
      }
    }
    line = eol ? eol + 1 : NULL;
  }
  return -1;
}

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo. */
static char *unescape_octal(const char *s, size_t len) {
  char *out = malloc(len + 1);
  if (out == NULL)
    return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '\\' && i + 3 < len && isdigit((unsigned char)s[i + 1]) && isdigit((unsigned char)s[i + 2]) &&
        isdigit((unsigned char)s[i + 3])) {
      out[o++] = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
      i += 3;
    } else {
      out[o++] = s[i];
    }
  }
  out[o] = '\0';
  return out;
}

/* Split one mountinfo line into the fields we need.  Format:
 * ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
struct mountinfo_fields {
  const char *root, *mount_point, *fstype, *superopts;
  size_t root_len, mount_point_len, fstype_len, superopts_len;
};

static int split_mountinfo_line(const char *line, size_t len, struct mountinfo_fields *f) {
  const char *field[16];
  size_t flen[16];
  size_t n = 0;
  const char *p = line, *end = line + len;
  while (p < end && n < 16) {
    while (p < end && *p == ' ')
      p++;
    if (p >= end)
      break;
    const char *start = p;
    while (p < end && *p != ' ')
      p++;
    field[n] = start;
    flen[n++] = (size_t)(p - start);
  }
  size_t dash = 0;
  for (size_t i = 6; i < n; i++)
    if (flen[i] == 1 && field[i][0] == '-') {
      dash = i;
      break;
    }
  if (dash == 0 || dash + 3 >= n)
    return -1;
  f->root = field[3], f->root_len = flen[3];
  f->mount_point = field[4], f->mount_point_len = flen[4];
  f->fstype = field[dash + 1], f->fstype_len = flen[dash + 1];
  f->superopts = field[dash + 3], f->superopts_len = flen[dash + 3];
  return 0;
}

/* Length of PATH without trailing slashes (but "/" stays "/"). */
static size_t trimmed_len(const char *path) {
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/')
    len--;
  return len;
}

/* Is MOUNT_POINT a direct child of ROOT? */
static bool is_child_of(const char *mount_point, const char *root) {
  size_t rlen = trimmed_len(root);
  if (strncmp(mount_point, root, rlen) != 0 || mount_point[rlen] != '/')
    return false;
  const char *rest = mount_point + rlen + 1;
  return *rest != '\0' && strchr(rest, '/') == NULL;
}

/* Is MOUNT_POINT ROOT itself or one of its ancestors?  Returns the part of
 * ROOT below it ("" when equal), or NULL. */
static const char *below_mount(const char *mount_point, const char *root) {
  size_t mlen = trimmed_len(mount_point), rlen = trimmed_len(root);
  if (strcmp(mount_point, "/") == 0)
    mlen = 0;
  if (mlen > rlen || strncmp(mount_point, root, mlen) != 0)
    return NULL;
  if (mlen == rlen)
    return "";
  if (root[mlen] != '/')
    return NULL;
  return root + mlen + 1;
}

int cg_mountinfo_lookup(const char *mountinfo, const char *root, const char *controller, char **mount_point,
                        char **mount_root) {
  const char *want_type = controller ? "cgroup" : "cgroup2";
  cleanup_free char *found_point = NULL, *found_root = NULL;
  size_t found_len = 0;
  for (const char *line = mountinfo; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    struct mountinfo_fields f;
    bool usable = split_mountinfo_line(line, len, &f) == 0 && f.fstype_len == strlen(want_type) &&
                  strncmp(f.fstype, want_type, f.fstype_len) == 0 &&
                  (controller == NULL || list_has_token(f.superopts, f.superopts_len, controller));
    line = eol ? eol + 1 : NULL;
    if (!usable)
      continue;
    cleanup_free char *mp = unescape_octal(f.mount_point, f.mount_point_len);
    cleanup_free char *mr = unescape_octal(f.root, f.root_len);
    if (mp == NULL || mr == NULL)
      return -1;
    if (controller) {
      /* v1: the first mount directly under ROOT; later duplicates (bind
       * mounts elsewhere) do not matter. */
      if (is_child_of(mp, root)) {
        *mount_point = TAKE_PTR(mp);
        *mount_root = TAKE_PTR(mr);
        return 0;
      }
      continue;
    }
    /* v2: the deepest cgroup2 mount holding ROOT; later mounts over the
     * same point win, as they hide the earlier ones. */
    const char *below = below_mount(mp, root);
    if (below == NULL || (found_point && strlen(mp) < found_len))
      continue;
    free(found_root);
    found_root = NULL;
    size_t mrlen = trimmed_len(mr);
    if (*below == '\0')
      found_root = strdup(mr);
    else if (asprintf(&found_root, "%.*s/%.*s", (int)(strcmp(mr, "/") == 0 ? 0 : mrlen), mr,
                      (int)(trimmed_len(root) - (size_t)(below - root)), below) < 0)
      found_root = NULL;
    if (found_root == NULL)
      return -1;
    found_len = strlen(mp);
    free(found_point);
    found_point = strndup(root, trimmed_len(root));
    if (found_point == NULL)
      return -1;
  }
  if (found_point == NULL)
    return -1;
  *mount_point = TAKE_PTR(found_point);
  *mount_root = TAKE_PTR(found_root);
  return 0;
}

int cg_mountinfo_children(const char *mountinfo, const char *root, struct placer_cgroup_hier **out, size_t *n) {
  struct placer_cgroup_hier *list = NULL;
  size_t count = 0;
  for (const char *line = mountinfo; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    struct mountinfo_fields f;
    bool usable =
        split_mountinfo_line(line, len, &f) == 0 && ((f.fstype_len == 6 && strncmp(f.fstype, "cgroup", 6) == 0) ||
                                                     (f.fstype_len == 7 && strncmp(f.fstype, "cgroup2", 7) == 0));
    line = eol ? eol + 1 : NULL;
    if (!usable)
      continue;
    char *mp = unescape_octal(f.mount_point, f.mount_point_len);
    char *mr = unescape_octal(f.root, f.root_len);
    if (mp == NULL || mr == NULL || !is_child_of(mp, root)) {
      free(mp);
      free(mr);
      if (mp == NULL || mr == NULL)
        goto nomem;
      continue;
    }
    size_t i = 0;
    while (i < count && strcmp(list[i].mount_point, mp) != 0)
      i++;
    if (i == count) {
      struct placer_cgroup_hier *bigger = realloc(list, (count + 1) * sizeof(*list));
      if (bigger == NULL) {
        free(mp);
        free(mr);
        goto nomem;
      }
      list = bigger;
      list[count++] = (struct placer_cgroup_hier){ 0 };
    }
    free(list[i].mount_point);
    free(list[i].mount_root);
    list[i].mount_point = mp;
    list[i].mount_root = mr;
  }
  *out = list;
  *n = count;
  return 0;
nomem:
  for (size_t i = 0; i < count; i++) {
    free(list[i].mount_point);
    free(list[i].mount_root);
  }
  free(list);
  return -1;
}

char *cg_path_from_proc(const char *mount_root, const char *proc_path) {
  if (proc_path[0] != '/')
    return NULL;
  size_t rlen = strlen(mount_root);
  while (rlen > 0 && mount_root[rlen - 1] == '/')
    rlen--;
  if (strncmp(proc_path, mount_root, rlen) != 0 || (proc_path[rlen] != '/' && proc_path[rlen] != '\0'))
    return NULL;
  const char *rest = proc_path + rlen;
  while (*rest == '/')
    rest++;
  return strdup(rest);
}

char *cg_path_to_proc(const char *mount_root, const char *group) {
  size_t rlen = strlen(mount_root);
  while (rlen > 0 && mount_root[rlen - 1] == '/')
    rlen--;
  char *s = NULL;
  if (group == NULL || *group == '\0') {
    if (asprintf(&s, "%.*s", (int)rlen, mount_root) < 0)
      return NULL;
    if (*s == '\0') {
      free(s);
      s = strdup("/");
    }
    return s;
  }
  if (asprintf(&s, "%.*s/%s", (int)rlen, mount_root, group) < 0)
    return NULL;
  return s;
}
