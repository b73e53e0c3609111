/* The role kinds and match kinds: one table each, as profiles, plans and the
 * state file spell them. */
#include "role.h"

#include <stddef.h>
#include <string.h>

#include "lib/array.h"

const char *const placer_role_kind_names[] = {
  [PLACER_KIND_CEPH_OSD] = "ceph-osd",
  [PLACER_KIND_CEPH_MDS] = "ceph-mds",
  [PLACER_KIND_CEPH_MON] = "ceph-mon",
  [PLACER_KIND_CEPH_MGR] = "ceph-mgr",
  [PLACER_KIND_VM] = "vm",
  [PLACER_KIND_FIO] = "fio",
  [PLACER_KIND_GENERIC] = "generic",
  NULL,
};

/* Ceph's daemons: matched by --id, started by bench's cluster, never handed to a VM manager. */
static const bool kind_is_ceph[] = {
  [PLACER_KIND_CEPH_OSD] = true, [PLACER_KIND_CEPH_MDS] = true, [PLACER_KIND_CEPH_MON] = true,
  [PLACER_KIND_CEPH_MGR] = true, [PLACER_KIND_GENERIC] = false,
};

const char *placer_role_kind_name(enum placer_role_kind kind) {
  return (unsigned)kind <= PLACER_KIND_GENERIC ? placer_role_kind_names[kind] : "?";
}

bool placer_role_kind_is_ceph(enum placer_role_kind kind) {
  return (unsigned)kind < N_OF(kind_is_ceph) && kind_is_ceph[kind];
}

const char *placer_match_kind_name(enum placer_match_kind kind) {
  switch (kind) {
  case PLACER_MATCH_NONE: return "none";
  case PLACER_MATCH_CEPH_ID: return "ceph_id";
  case PLACER_MATCH_CONTAINER: return "container";
  case PLACER_MATCH_QEMU_NAME: return "qemu_name";
  case PLACER_MATCH_PIDFILE: return "pidfile";
  case PLACER_MATCH_CMDLINE: return "cmdline";
  case PLACER_MATCH_PROXMOX_VMID: return "proxmox_vmid";
  }
  return "?";
}

const char *placer_ceph_id_problem(enum placer_role_kind kind, const char *id) {
  static const char id_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";
  if (id == NULL || *id == '\0')
    return "an empty id";
  if (strspn(id, id_chars) != strlen(id))
    return "only letters, digits, '_', '.' and '-' (cephadm's ServiceSpec.validate)";
  if (kind == PLACER_KIND_CEPH_OSD && (strspn(id, "0123456789") != strlen(id) || strlen(id) > 9))
    return "an OSD id is a number (ceph osd create gives 0, 1, ...)";
  if (kind == PLACER_KIND_CEPH_MDS && *id >= '0' && *id <= '9')
    return "ceph-mds exits on an id that starts with a digit (\"MDS names may not start with a numeric digit\")";
  return NULL;
}

const char *placer_ceph_id_default(enum placer_role_kind kind) {
  return kind == PLACER_KIND_CEPH_MDS ? "{role}-{index}" : "{index}";
}
