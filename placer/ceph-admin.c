/* A Ceph daemon's admin socket: one command and its reply within a
 * deadline, the socket a running daemon listens on, and an option's value
 * as the daemon runs with it (ceph-admin.h). */
#include "ceph-admin.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/textfile.h"

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until FD is ready for EVENTS or DEADLINE passes: 0 ready, -1 with errno (ETIMEDOUT). */
static int wait_for(int fd, short events, long long deadline) {
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    struct pollfd p = { .fd = fd, .events = events };
    int rc = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
    if (rc > 0)
      return 0;
    if (rc < 0 && errno != EINTR)
      return -1;
  }
}

/* LEN bytes of BUF out, or -1 with errno. */
static int send_all(int fd, const char *buf, size_t len, long long deadline) {
  while (len > 0) {
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
    if (w > 0) {
      buf += w;
      len -= (size_t)w;
    } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
      return -1;
    } else if (wait_for(fd, POLLOUT, deadline) < 0) {
      return -1;
    }
  }
  return 0;
}

/* LEN bytes into BUF; *GOT how many came (short: the daemon closed the socket, errno 0). */
static int recv_all(int fd, char *buf, size_t len, long long deadline, size_t *got) {
  *got = 0;
  while (*got < len) {
    ssize_t r = recv(fd, buf + *got, len - *got, 0);
    if (r > 0) {
      *got += (size_t)r;
    } else if (r == 0) {
      errno = 0;
      return -1;
    } else if (errno != EAGAIN && errno != EINTR) {
      return -1;
    } else if (wait_for(fd, POLLIN, deadline) < 0) {
      return -1;
    }
  }
  return 0;
}

/* Connected to SOCKET_PATH (and to PEER's socket when PEER > 0): 0 and
 * *FD; 1 with WHY. */
static int connect_to(const char *socket_path, pid_t peer, long long deadline, int *fd_out, char *why, size_t why_len) {
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  if (strlen(socket_path) >= sizeof(addr.sun_path)) {
    snprintf(why, why_len, "admin socket %s: a path longer than %zu bytes", socket_path, sizeof(addr.sun_path) - 1);
    return 1;
  }
  strcpy(addr.sun_path, socket_path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(why, why_len, "admin socket %s: socket: %s", socket_path, strerror(errno));
    return 1;
  }
  if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 &&
      (errno != EINPROGRESS || wait_for(fd, POLLOUT, deadline) < 0)) {
    snprintf(why, why_len, "admin socket %s: %s", socket_path, strerror(errno));
    close(fd);
    return 1;
  }
  if (peer > 0) {
    /* the process that listens on it, as the kernel recorded at listen() */
    struct ucred cred = { 0 };
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid != peer) {
      snprintf(why, why_len, "admin socket %s: held by pid %d, not by pid %d: not asked", socket_path, (int)cred.pid,
               (int)peer);
      close(fd);
      return 1;
    }
  }
  *fd_out = fd;
  return 0;
}

int placer_ceph_admin_command(const char *socket_path, pid_t peer, const char *command, unsigned timeout_ms,
                              size_t max_reply, char **out, size_t *out_len, char *why, size_t why_len) {
  long long deadline = now_ms() + timeout_ms;
  int fd = -1;
  if (connect_to(socket_path, peer, deadline, &fd, why, why_len) != 0)
    return 1;
  int rc = 1;
  uint32_t be_len = 0;
  size_t got = 0;
  char *reply = NULL;
  if (send_all(fd, command, strlen(command) + 1, deadline) < 0) { /* the NUL ends the command */
    snprintf(why, why_len, "admin socket %s: sending the command: %s", socket_path,
             errno == ETIMEDOUT ? "no room in its socket in time" : strerror(errno));
    goto out;
  }
  if (recv_all(fd, (char *)&be_len, sizeof(be_len), deadline, &got) < 0) {
    snprintf(why, why_len, "admin socket %s: no answer in %u ms%s%s", socket_path, timeout_ms,
             errno && errno != ETIMEDOUT ? ": " : "", errno && errno != ETIMEDOUT ? strerror(errno) : "");
    goto out;
  }
  size_t len = ntohl(be_len);
  if (len > max_reply) {
    snprintf(why, why_len, "admin socket %s: a reply of %zu bytes (at most %zu expected)", socket_path, len, max_reply);
    goto out;
  }
  reply = malloc(len + 1);
  if (reply == NULL) {
    errno = ENOMEM;
    rc = -1;
    goto out;
  }
  if (recv_all(fd, reply, len, deadline, &got) < 0) {
    snprintf(why, why_len, "admin socket %s: %zu of %zu bytes of its reply in %u ms", socket_path, got, len,
             timeout_ms);
    goto out;
  }
  reply[len] = '\0';
  if (strncmp(reply, "ERROR:", 6) == 0) { /* the daemon's own refusal, one line of it */
    snprintf(why, why_len, "admin socket %s: %.*s", socket_path, (int)strcspn(reply, "\n"), reply);
    goto out;
  }
  *out = reply;
  *out_len = len;
  reply = NULL;
  rc = 0;
out:
  free(reply);
  close(fd);
  return rc;
}

/* ---- the socket a process listens on */

/* The inodes of the sockets PID holds open ("socket:[INODE]" in /proc/PID/fd). */
static size_t socket_inodes(pid_t pid, unsigned long *inodes, size_t cap) {
  char dir[64];
  snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && n < cap) {
    char link[PATH_MAX], target[64];
    snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
    ssize_t len = readlink(link, target, sizeof(target) - 1);
    if (len <= 0)
      continue;
    target[len] = '\0';
    unsigned long inode;
    if (sscanf(target, "socket:[%lu]", &inode) == 1)
      inodes[n++] = inode;
  }
  closedir(d);
  return n;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Whether this process and PID see the same mounts (then PID's paths are ours). */
static bool same_mounts(pid_t pid) {
  char mine[64] = "", theirs[64] = "", link[64];
  snprintf(link, sizeof(link), "/proc/%d/ns/mnt", (int)pid);
  ssize_t a = readlink("/proc/self/ns/mnt", mine, sizeof(mine) - 1);
  ssize_t b = readlink(link, theirs, sizeof(theirs) - 1);
  return a > 0 && b > 0 && a == b && memcmp(mine, theirs, (size_t)a) == 0;
}

int placer_ceph_admin_socket_of(pid_t pid, char *path, size_t path_len, char *why, size_t why_len) {
  unsigned long inodes[4096]; /* a daemon's sockets: an OSD holds a few hundred */
  char *text = NULL, file[64];
  snprintf(file, sizeof(file), "/proc/%d/net/unix", (int)pid);
  int rc = 1;
  size_t n = socket_inodes(pid, inodes, sizeof(inodes) / sizeof(inodes[0]));
  if (n == 0 || placer_textfile_read_path(file, 16 << 20, &text, NULL) < 0) {
    snprintf(why, why_len, "pid %d holds no socket (or has gone)", (int)pid);
    goto out;
  }
  /* "Num RefCount Protocol Flags Type St Inode Path": a listener has
   * __SO_ACCEPTCON (0x10000) in Flags */
  char found[sizeof(((struct sockaddr_un *)0)->sun_path) + 1] = "", only[sizeof(found)] = "";
  size_t n_listening = 0;
  for (char *line = strchr(text, '\n'); line && *line; line = strchr(line, '\n')) {
    line++;
    unsigned long flags = 0, inode = 0;
    int at = 0;
    if (sscanf(line, "%*s %*s %*s %lx %*s %*s %lu %n", &flags, &inode, &at) < 2 || at == 0 || !(flags & 0x10000))
      continue;
    size_t len = strcspn(line + at, "\n");
    if (len == 0 || len >= sizeof(found) || line[at] == '@')
      continue; /* no path, or an abstract socket */
    bool mine = false;
    for (size_t i = 0; i < n && !mine; i++)
      mine = inodes[i] == inode;
    if (!mine)
      continue;
    char p[sizeof(found)];
    snprintf(p, sizeof(p), "%.*s", (int)len, line + at);
    n_listening++;
    snprintf(only, sizeof(only), "%s", p);
    if (ends_with(p, ".asok") && !*found)
      snprintf(found, sizeof(found), "%s", p);
  }
  if (!*found && n_listening == 1)
    snprintf(found, sizeof(found), "%s", only);
  if (!*found) {
    snprintf(why, why_len, "pid %d listens on no admin socket (no Unix socket of its own ending in .asok)", (int)pid);
    goto out;
  }
  int len = same_mounts(pid) ? snprintf(path, path_len, "%s", found)
                             : snprintf(path, path_len, "/proc/%d/root%s", (int)pid, found);
  if (len < 0 || (size_t)len >= path_len) {
    snprintf(why, why_len, "pid %d: its admin socket %s is too long a path to reach", (int)pid, found);
    goto out;
  }
  rc = 0;
out:
  free(text);
  return rc;
}

int placer_ceph_admin_config_get(pid_t pid, const char *key, unsigned timeout_ms, char *value, size_t value_len,
                                 char *socket, size_t socket_len, char *why, size_t why_len) {
  char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
  if (placer_ceph_admin_socket_of(pid, path, sizeof(path), why, why_len) != 0)
    return 1;
  if (socket)
    snprintf(socket, socket_len, "%s", path);
  json_t *cmd = json_pack("{s:s, s:s}", "prefix", "config get", "var", key);
  char *command = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
  json_decref(cmd);
  if (command == NULL) {
    errno = ENOMEM;
    return -1;
  }
  char *reply = NULL;
  size_t len = 0;
  int rc = placer_ceph_admin_command(path, pid, command, timeout_ms, 64 << 10, &reply, &len, why, why_len);
  free(command);
  if (rc != 0)
    return rc;
  /* {"KEY": "VALUE"}: the daemon prints every value as a string */
  json_t *doc = json_loadb(reply, len, 0, NULL);
  json_t *v = json_object_get(doc, key);
  rc = 1;
  if (json_is_string(v) && json_string_length(v) < value_len) {
    snprintf(value, value_len, "%s", json_string_value(v));
    rc = 0;
  } else if (json_is_integer(v)) {
    snprintf(value, value_len, "%lld", (long long)json_integer_value(v));
    rc = 0;
  } else {
    snprintf(why, why_len, "admin socket %s: config get %s: no value for it in the reply (%.60s)", path, key, reply);
  }
  json_decref(doc);
  free(reply);
  return rc;
}
