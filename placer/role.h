/* What a role is, shared by the profile that declares it and the plan that
 * places its instances: its kind and how apply finds its processes. */
#ifndef PLACER_ROLE_H
#define PLACER_ROLE_H

#include <stdbool.h>

enum placer_role_kind {
  PLACER_KIND_CEPH_OSD,
  PLACER_KIND_CEPH_MDS,
  PLACER_KIND_CEPH_MON,
  PLACER_KIND_CEPH_MGR,
  PLACER_KIND_VM,
  PLACER_KIND_FIO,
  PLACER_KIND_GENERIC,
};

/* How apply finds the running process(es) of an instance.  Values are
 * already substituted for the instance ("--id 3", container "ceph-osd-3"). */
enum placer_match_kind {
  PLACER_MATCH_NONE,         /* only --pid INSTANCE=PID binds it */
  PLACER_MATCH_CEPH_ID,      /* ceph daemon of the role's kind with --id VALUE / -i VALUE */
  PLACER_MATCH_CONTAINER,    /* podman container named VALUE */
  PLACER_MATCH_QEMU_NAME,    /* qemu with -name guest=VALUE (or -name VALUE) */
  PLACER_MATCH_PIDFILE,      /* pid read from the file VALUE */
  PLACER_MATCH_CMDLINE,      /* fnmatch(3) pattern VALUE on the NUL->space joined cmdline */
  PLACER_MATCH_PROXMOX_VMID, /* the Proxmox VE guest VMID VALUE: its pid in /var/run/qemu-server/VMID.pid */
};
#define PLACER_MATCH_N_KINDS (PLACER_MATCH_PROXMOX_VMID + 1)

struct placer_match {
  enum placer_match_kind kind;
  char *value; /* NULL for PLACER_MATCH_NONE */
};

const char *placer_role_kind_name(enum placer_role_kind kind);
/* The kinds' names, indexed by kind, NULL after the last (the profile's enum field). */
extern const char *const placer_role_kind_names[];
/* A Ceph daemon's kind (osd, mds, mon, mgr). */
bool placer_role_kind_is_ceph(enum placer_role_kind kind);
const char *placer_match_kind_name(enum placer_match_kind kind);
/* Why ID cannot name a Ceph daemon of KIND (a short reason), or NULL when it
 * can: the characters cephadm allows ([A-Za-z0-9_.-]), an OSD's a number, an
 * MDS's not starting with a digit (ceph-mds refuses it at start). */
const char *placer_ceph_id_problem(enum placer_role_kind kind, const char *id);
/* The ceph_id template of a Ceph role without a match key: "{index}"
 * (osd.3 is ceph-osd --id 3), for an MDS "{role}-{index}" (mds-0). */
const char *placer_ceph_id_default(enum placer_role_kind kind);

#endif
