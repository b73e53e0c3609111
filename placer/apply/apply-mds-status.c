/* placer status, both backends: each applied MDS's mds_cache_memory_limit
 * as the running daemon has it, against the plan's (half its memory limit:
 * what `placer export --format ceph` writes).  Read over the daemon's own
 * admin socket (ceph-admin.h): the socket the process itself listens on,
 * checked to be its own, so a status never asks another process. */
#include "apply/apply-mds-status.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "ceph-admin.h"
#include "lib/units.h"
#include "plan/plan.h"
#include "proc.h"

static const char option[] = "mds_cache_memory_limit";

static void add_line(json_t *inst, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_line(json_t *inst, const char *key, const char *fmt, ...) {
  char *msg = NULL;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&msg, fmt, ap) < 0)
    msg = NULL;
  va_end(ap);
  json_t *list = json_object_get(inst, key);
  if (!json_is_array(list))
    json_object_set_new(inst, key, list = json_array());
  json_array_append_new(list, json_string(msg ? msg : "?"));
  free(msg);
}

/* "4.0 GiB (4294967296)" */
static void bytes_text(uint64_t bytes, char *buf, size_t len) {
  char human[32];
  placer_format_bytes(bytes, human, sizeof(human));
  snprintf(buf, len, "%s (%" PRIu64 ")", human, bytes);
}

/* One ceph-mds process PID of instance INST: its value against WANT.
 * Returns 1 on drift, 0 otherwise, -1 out of memory. */
static int check_daemon(json_t *inst, json_t *daemons, pid_t pid, uint64_t want) {
  char value[64], socket[sizeof(((struct sockaddr_un *)0)->sun_path) + 1] = "", why[512];
  int rc = placer_ceph_admin_config_get(pid, option, PLACER_MDS_STATUS_TIMEOUT_MS, value, sizeof(value), socket,
                                        sizeof(socket), why, sizeof(why));
  if (rc < 0)
    return -1;
  json_t *d = json_object();
  json_object_set_new(d, "pid", json_integer(pid));
  json_object_set_new(d, "admin_socket", *socket ? json_string(socket) : json_null());
  json_array_append_new(daemons, d);
  if (rc > 0) {
    json_object_set_new(d, "running", json_null());
    json_object_set_new(d, "not_read", json_string(why));
    add_line(inst, "notes", "%s of pid %d (ceph-mds) not checked: %s", option, (int)pid, why);
    return 0;
  }
  char *end = NULL;
  errno = 0;
  unsigned long long running = strtoull(value, &end, 10);
  if (errno || end == value || *end != '\0') {
    json_object_set_new(d, "running", json_null());
    json_object_set_new(d, "not_read", json_string(value));
    add_line(inst, "notes", "%s of pid %d (ceph-mds) not checked: it says '%s', not a number of bytes", option,
             (int)pid, value);
    return 0;
  }
  json_object_set_new(d, "running", json_integer((json_int_t)running));
  char have[64], planned[64];
  bytes_text(running, have, sizeof(have));
  bytes_text(want, planned, sizeof(planned));
  if (running == want) {
    add_line(inst, "notes", "%s %s in the running ceph-mds (pid %d), as planned", option, have, (int)pid);
    return 0;
  }
  add_line(inst, "drift",
           "%s %s in the running ceph-mds (pid %d), planned %s: half its memory limit (placer export "
           "--format ceph sets it)",
           option, have, (int)pid, planned);
  return 1;
}

static int check_instance(json_t *inst, bool *drift) {
  json_t *memory = json_object_get(json_object_get(inst, "planned"), "memory_bytes");
  if (!json_is_integer(memory) || json_integer_value(memory) <= 0)
    return 0; /* no memory limit planned: the daemon's cache is not the plan's */
  uint64_t want = placer_mds_cache_limit((uint64_t)json_integer_value(memory));
  json_t *check = json_object(), *daemons = json_array();
  json_object_set_new(check, "planned", json_integer((json_int_t)want));
  json_object_set_new(check, "daemons", daemons);
  json_object_set_new(inst, option, check);
  size_t k;
  json_t *p;
  bool differs = false;
  json_array_foreach(json_object_get(inst, "processes"), k, p) {
    pid_t pid = (pid_t)json_integer_value(json_object_get(p, "pid"));
    char *comm = pid > 0 ? placer_proc_comm(pid) : NULL; /* read anew: the document's is what it was */
    bool is_mds = comm && strcmp(comm, "ceph-mds") == 0;
    free(comm);
    if (!is_mds)
      continue;
    int rc = check_daemon(inst, daemons, pid, want);
    if (rc < 0)
      return -1;
    differs |= rc > 0;
  }
  if (differs) {
    json_object_set_new(inst, "ok", json_false());
    *drift = true;
  }
  return 0;
}

int apply_mds_status(json_t *doc, bool *drift, struct placer_error **err) {
  size_t i;
  json_t *inst;
  bool any = false;
  json_array_foreach(json_object_get(doc, "instances"), i, inst) {
    const char *kind = json_string_value(json_object_get(inst, "kind"));
    if (kind == NULL || strcmp(kind, "ceph-mds") != 0)
      continue;
    if (check_instance(inst, &any) < 0)
      return placer_error_oom(err, "status of the MDS");
  }
  if (any) {
    json_object_set_new(doc, "drift", json_true());
    *drift = true;
  }
  return 0;
}
