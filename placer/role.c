/* Names of the role kinds and match kinds, as profiles, plans and the
 * state file spell them. */
#include "role.h"

const char *placer_role_kind_name(enum placer_role_kind kind) {
  switch (kind) {
  case PLACER_KIND_CEPH_OSD: return "ceph-osd";
  case PLACER_KIND_CEPH_MDS: return "ceph-mds";
  case PLACER_KIND_CEPH_MON: return "ceph-mon";
  case PLACER_KIND_CEPH_MGR: return "ceph-mgr";
  case PLACER_KIND_VM: return "vm";
  case PLACER_KIND_FIO: return "fio";
  case PLACER_KIND_GENERIC: return "generic";
  }
  return "?";
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
