/* The metrics over HTTP, served from the watcher's epoll loop without a
 * thread: a non-blocking listener, and per client a request read up to its
 * blank line, one answer written whole (GET /metrics: the text format;
 * HEAD the same without the body; anything else 404, 405 or 400) and the
 * connection closed, as Prometheus's scraper and curl expect of a simple
 * exporter.  A client that stalls is dropped at its deadline. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watch-internal.h"

struct http_client {
  int fd;
  uint64_t deadline_ms;
  char request[WATCH_HTTP_MAX_REQUEST];
  size_t request_len;
  char *response; /* once the request is whole */
  size_t response_len, sent;
};

struct watch_http {
  int fd;
  char address[64];
  struct watch_loop *loop;
  watch_http_body_fn body;
  void *body_ctx;
  struct http_client *clients[WATCH_HTTP_MAX_CLIENTS];
};

static int bad_address(const char *text, const char *why, struct placer_error **err) {
  return placer_error_set(err, PLACER_EXIT_USAGE, EINVAL,
                          "metrics address '%s': %s (HOST:PORT, [IPv6]:PORT or :PORT, e.g. 127.0.0.1:9101)", text, why);
}

int watch_http_parse_address(const char *text, struct sockaddr_storage *ss, socklen_t *len, struct placer_error **err) {
  char host[64] = "";
  const char *port_text;
  if (text[0] == '[') {
    const char *close = strchr(text, ']');
    if (close == NULL || close[1] != ':' || (size_t)(close - text - 1) >= sizeof(host))
      return bad_address(text, "an IPv6 address goes in brackets before ':PORT'", err);
    memcpy(host, text + 1, (size_t)(close - text - 1));
    port_text = close + 2;
  } else {
    const char *colon = strrchr(text, ':');
    if (colon && strchr(text, ':') != colon)
      return bad_address(text, "an IPv6 address goes in brackets", err);
    if (colon) {
      if ((size_t)(colon - text) >= sizeof(host))
        return bad_address(text, "the host is too long", err);
      memcpy(host, text, (size_t)(colon - text));
      port_text = colon + 1;
    } else {
      port_text = text;
    }
  }
  char *end;
  errno = 0;
  long port = strtol(port_text, &end, 10);
  if (*port_text < '0' || *port_text > '9' || *end != '\0' || errno || port < 0 || port > 65535)
    return bad_address(text, "the port is not a number from 0 to 65535", err);
  memset(ss, 0, sizeof(*ss));
  if (*host == '\0' || strcmp(host, "localhost") == 0)
    strcpy(host, "127.0.0.1");
  struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
  if (text[0] != '[' && inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    *len = sizeof(*v4);
  } else if (text[0] == '[' && inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    *len = sizeof(*v6);
  } else {
    return bad_address(text, "the host is not an IP address (no names are resolved, but localhost)", err);
  }
  return 0;
}

static void format_address(const struct sockaddr_storage *ss, char *buf, size_t size) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
    snprintf(buf, size, "[%s]:%u", host, (unsigned)ntohs(v6->sin6_port));
  } else {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;
    inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
    snprintf(buf, size, "%s:%u", host, (unsigned)ntohs(v4->sin_port));
  }
}

int watch_http_open(const char *addr, struct watch_http **out, struct placer_error **err) {
  struct sockaddr_storage ss;
  socklen_t len = 0;
  if (watch_http_parse_address(addr, &ss, &len, err) < 0)
    return -1;
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "metrics address %s: socket", addr);
  /* A restarted watcher binds again at once, past its old connections'
   * TIME_WAIT; a listener that is still there is refused all the same. */
  int one = 1;
  (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
    int saved = errno;
    close(fd);
    /* In use, or not an address of this machine: both are the user's to fix. */
    int code =
        saved == EADDRINUSE || saved == EADDRNOTAVAIL || saved == EACCES ? PLACER_EXIT_USAGE : PLACER_EXIT_SYSTEM;
    return placer_error_errno(err, code, saved, "metrics address %s", addr);
  }
  struct watch_http *h = calloc(1, sizeof(*h));
  if (h == NULL) {
    close(fd);
    return placer_error_oom(err, NULL);
  }
  h->fd = fd;
  len = sizeof(ss);
  if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
    format_address(&ss, h->address, sizeof(h->address));
  else
    snprintf(h->address, sizeof(h->address), "%s", addr);
  *out = h;
  return 0;
}

const char *watch_http_address(const struct watch_http *h) {
  return h->address;
}

static void drop_client(struct watch_http *h, size_t slot) {
  struct http_client *c = h->clients[slot];
  if (c == NULL)
    return;
  if (h->loop)
    watch_loop_remove(h->loop, c->fd);
  close(c->fd);
  free(c->response);
  free(c);
  h->clients[slot] = NULL;
}

static int respond(struct http_client *c, const char *status, const char *content_type, const char *extra_header,
                   const char *body, size_t body_len, bool head_only) {
  char *head = NULL;
  int head_len =
      asprintf(&head, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n", status,
               content_type, body_len, extra_header ? extra_header : "");
  if (head_len < 0)
    return -1;
  size_t total = (size_t)head_len + (head_only ? 0 : body_len);
  char *all = malloc(total);
  if (all == NULL) {
    free(head);
    return -1;
  }
  memcpy(all, head, (size_t)head_len);
  if (!head_only && body_len)
    memcpy(all + head_len, body, body_len);
  free(head);
  c->response = all;
  c->response_len = total;
  c->sent = 0;
  return 0;
}

static int plain(struct http_client *c, const char *status, const char *extra_header, const char *text) {
  return respond(c, status, "text/plain; charset=utf-8", extra_header, text, strlen(text), false);
}

enum watch_http_route watch_http_route(const char *request, bool *head_only) {
  char method[16], target[256], version[16];
  char line[300];
  *head_only = false;
  size_t line_len = strcspn(request, "\r\n");
  if (line_len >= sizeof(line))
    return WATCH_HTTP_TOO_LONG;
  memcpy(line, request, line_len);
  line[line_len] = '\0';
  char extra;
  /* Exactly three words, the last HTTP/1.x (1.0 and 1.1 alike) */
  if (sscanf(line, "%15s %255s %15s %c", method, target, version, &extra) != 3 || strncmp(version, "HTTP/1.", 7) != 0 ||
      version[7] == '\0' || version[8] != '\0')
    return WATCH_HTTP_BAD_REQUEST;
  *head_only = strcmp(method, "HEAD") == 0;
  if (strcmp(method, "GET") != 0 && !*head_only)
    return WATCH_HTTP_BAD_METHOD;
  target[strcspn(target, "?")] = '\0';
  if (strcmp(target, "/") == 0)
    return WATCH_HTTP_ROOT;
  return strcmp(target, "/metrics") == 0 ? WATCH_HTTP_METRICS : WATCH_HTTP_NOT_FOUND;
}

/* The answer to a whole request; -1 only out of memory. */
static int answer(struct watch_http *h, struct http_client *c) {
  bool head_only = false;
  switch (watch_http_route(c->request, &head_only)) {
  case WATCH_HTTP_TOO_LONG: return plain(c, "414 URI Too Long", NULL, "request line too long\n");
  case WATCH_HTTP_BAD_REQUEST: return plain(c, "400 Bad Request", NULL, "bad request\n");
  case WATCH_HTTP_BAD_METHOD: return plain(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n", "only GET and HEAD\n");
  case WATCH_HTTP_NOT_FOUND: return plain(c, "404 Not Found", NULL, "not found: the metrics are at /metrics\n");
  case WATCH_HTTP_ROOT: return plain(c, "200 OK", NULL, "placer watch: the metrics are at /metrics\n");
  case WATCH_HTTP_METRICS: break;
  }
  cleanup_free char *text = NULL;
  size_t len = 0;
  struct placer_error *failed = NULL;
  if (h->body(h->body_ctx, &text, &len, &failed) < 0) {
    /* One scrape failing is the scraper's to see; the watcher goes on. */
    int ret = plain(c, "500 Internal Server Error", NULL, failed && failed->msg ? failed->msg : "error");
    placer_error_free(failed);
    return ret;
  }
  return respond(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", NULL, text, len, head_only);
}

static int client_ready(void *ctx, int fd, uint32_t events, struct placer_error **err);

static size_t slot_of(struct watch_http *h, int fd) {
  for (size_t i = 0; i < WATCH_HTTP_MAX_CLIENTS; i++)
    if (h->clients[i] && h->clients[i]->fd == fd)
      return i;
  return WATCH_HTTP_MAX_CLIENTS;
}

/* Write what the socket takes; the client is dropped when all is sent or
 * it went away. */
static int client_write(struct watch_http *h, size_t slot, struct placer_error **err) {
  struct http_client *c = h->clients[slot];
  while (c->sent < c->response_len) {
    ssize_t n = send(c->fd, c->response + c->sent, c->response_len - c->sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return watch_loop_modify(h->loop, c->fd, EPOLLOUT, err);
    if (n <= 0)
      break;
    c->sent += (size_t)n;
  }
  drop_client(h, slot);
  return 0;
}

static int client_ready(void *ctx, int fd, uint32_t events, struct placer_error **err) {
  struct watch_http *h = ctx;
  size_t slot = slot_of(h, fd);
  if (slot == WATCH_HTTP_MAX_CLIENTS)
    return 0;
  struct http_client *c = h->clients[slot];
  if (c->response)
    return client_write(h, slot, err);
  for (;;) {
    size_t room = sizeof(c->request) - 1 - c->request_len;
    if (room == 0) {
      if (plain(c, "431 Request Header Fields Too Large", NULL, "request too large\n") < 0)
        return placer_error_oom(err, "metrics: answer");
      return client_write(h, slot, err);
    }
    ssize_t n = recv(fd, c->request + c->request_len, room, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return 0; /* more to come */
    if (n <= 0) {
      drop_client(h, slot); /* it closed, or reset */
      return 0;
    }
    c->request_len += (size_t)n;
    c->request[c->request_len] = '\0';
    if (strstr(c->request, "\r\n\r\n") || strstr(c->request, "\n\n"))
      break;
  }
  if (answer(h, c) < 0)
    return placer_error_oom(err, "metrics: answer");
  return client_write(h, slot, err);
}

static int listener_ready(void *ctx, int fd, uint32_t events, struct placer_error **err) {
  struct watch_http *h = ctx;
  for (;;) {
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      /* EAGAIN: all taken; EMFILE and the like: the next scrape retries. */
      return 0;
    }
    size_t slot = 0;
    while (slot < WATCH_HTTP_MAX_CLIENTS && h->clients[slot])
      slot++;
    struct http_client *c = slot < WATCH_HTTP_MAX_CLIENTS ? calloc(1, sizeof(*c)) : NULL;
    if (c == NULL) {
      close(cfd); /* too many at once (or no memory): this one is refused */
      continue;
    }
    c->fd = cfd;
    c->deadline_ms = watch_monotonic_ns() / 1000000u + WATCH_HTTP_CLIENT_TIMEOUT_MS;
    h->clients[slot] = c;
    if (watch_loop_add(h->loop, cfd, EPOLLIN, client_ready, h, err) < 0) {
      close(cfd);
      free(c);
      h->clients[slot] = NULL;
      return -1;
    }
  }
}

int watch_http_attach(struct watch_http *h, struct watch_loop *loop, watch_http_body_fn body, void *ctx,
                      struct placer_error **err) {
  h->loop = loop;
  h->body = body;
  h->body_ctx = ctx;
  return watch_loop_add(loop, h->fd, EPOLLIN, listener_ready, h, err);
}

void watch_http_expire(struct watch_http *h, uint64_t now_ms) {
  for (size_t i = 0; i < WATCH_HTTP_MAX_CLIENTS; i++)
    if (h->clients[i] && now_ms >= h->clients[i]->deadline_ms)
      drop_client(h, i);
}

void watch_http_detach(struct watch_http *h) {
  for (size_t i = 0; i < WATCH_HTTP_MAX_CLIENTS; i++)
    drop_client(h, i);
  if (h->loop)
    watch_loop_remove(h->loop, h->fd);
  h->loop = NULL;
}

void watch_http_free(struct watch_http *h) {
  if (h == NULL)
    return;
  watch_http_detach(h);
  close(h->fd);
  free(h);
}
