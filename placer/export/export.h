/* `placer export`: the plan in the languages of the systems that own the
 * workloads (libvirt, Nova, Proxmox, kubelet, Ceph, systemd, tuned,
 * irqbalance), so that the next start or migration keeps it.  One writer per
 * format behind one ops table (export.c); each writer is a pure function of
 * the plan, the profile and the topology that returns text units (a file
 * each with --out).  Schema and worked examples: docs/export.md. */
#ifndef PLACER_EXPORT_H
#define PLACER_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/fileset.h"
#include "lib/string-list.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "topology/topology.h"

/* The syntax of a format's output: what its comments look like and what
 * the tests parse it back with. */
enum placer_export_syntax {
  PLACER_EXPORT_XML,    /* libvirt domain XML fragments */
  PLACER_EXPORT_INI,    /* nova.conf, systemd drop-ins, tuned variables: [section] and key=value */
  PLACER_EXPORT_YAML,   /* KubeletConfiguration */
  PLACER_EXPORT_SCRIPT, /* shell command lines (virsh, qm, ceph config set): "#!/bin/sh", "set -e" */
  PLACER_EXPORT_SHELL,  /* shell assignments a service sources (/etc/default/irqbalance) */
};

/* A script's own shell code (not from the input) stands between these two
 * lines; everything else in a script is shell words and comments. */
#define PLACER_EXPORT_SH_CODE_BEGIN "# -- placer's own shell code --"
#define PLACER_EXPORT_SH_CODE_END "# -- end of placer's own shell code --"

/* What a writer needs from the plan; the dispatcher checks these before the
 * writer runs, so a format the profile cannot express fails with one line. */
enum placer_export_needs {
  PLACER_EXPORT_NEEDS_PINNED = 1u << 0, /* a profile that pins (pin: true) */
  PLACER_EXPORT_NEEDS_VM = 1u << 1,     /* at least one vm instance */
  PLACER_EXPORT_NEEDS_CEPH = 1u << 2,   /* at least one OSD or MDS */
  /* hands CPUs to VMs: no vm instance may share a CPU with a Ceph daemon or
   * the host reserve (a VM manager could not keep them apart) */
  PLACER_EXPORT_GIVES_VM_CPUS = 1u << 3,
};

/* --map FILE: "INSTANCE=VALUE" lines naming each instance in the system a
 * format speaks to (a Proxmox VMID, a libvirt domain, a systemd unit, a
 * Ceph daemon id); '#' starts a comment line.  Bounded: a map names at most
 * every instance of a plan, and no plan comes near a million (max_count is
 * 100,000), so the limits cost a real map nothing and keep a runaway file
 * under 100 MiB of memory (the text, 24 bytes an entry, qsort's copy). */
#define PLACER_EXPORT_MAP_MAX_BYTES ((size_t)32 << 20)
#define PLACER_EXPORT_MAP_MAX_ENTRIES (1 << 20)
struct placer_export_map_entry {
  const char *instance; /* both cut out of the map's text */
  const char *value;
  unsigned line;
};
struct placer_export_map {
  char *file;
  char *text;                              /* the file's bytes, the entries' strings cut in place */
  struct placer_export_map_entry *entries; /* sorted by instance (each named once) */
  size_t n;
};

/* Errors name FILE:LINE (PLACER_EXIT_USAGE): a line that is not
 * INSTANCE=VALUE, a control byte (a NUL too), an instance named twice; the
 * first in the file's order.  Load: a regular file of at most
 * PLACER_EXPORT_MAP_MAX_BYTES (anything else one line, exit 2). */
int placer_export_map_parse(const char *file, const char *text, struct placer_export_map **out,
                            struct placer_error **err);
int placer_export_map_load(const char *path, struct placer_export_map **out, struct placer_error **err);
void placer_export_map_free(struct placer_export_map *map);
/* The value for INSTANCE, or NULL. */
const char *placer_export_map_get(const struct placer_export_map *map, const char *instance);
/* -1 (FILE:LINE: no instance 'X' in the plan ..., the first such line) when
 * MAP names an instance PLAN does not have. */
int placer_export_map_check(const struct placer_export_map *map, const struct placer_plan *plan,
                            struct placer_error **err);

/* --merge FILE: a domain XML or a KubeletConfiguration is kilobytes. */
#define PLACER_EXPORT_MERGE_MAX_BYTES ((size_t)4 << 20)

struct placer_export_input {
  const struct placer_plan *plan;
  const struct placer_profile *profile; /* the roles' specs: vCPUs, crimson, memory overhead */
  const struct placer_topology *topo;   /* cores and their PUs */
  const struct placer_export_map *map;  /* NULL: none */
  const char *target;                   /* --target RELEASE of the consumer; NULL: the newest it knows */
  /* --merge FILE: the consumer's own configuration, which the output keeps
   * all of but what placer owns (NULL: none) */
  const char *merge_path;
  const char *merge_text;
};

/* One file of output: NAME relative to --out (at most one '/': systemd's
 * UNIT.d/50-placer.conf), TEXT its whole content. */
struct placer_export_unit {
  char *name;
  char *text;
  enum placer_export_syntax syntax; /* the format's, or another for a unit beside it (a cephadm spec) */
};

struct placer_export_output {
  struct placer_export_unit *units;
  size_t n_units;
  struct placer_string_list notes; /* for a person (stderr): what was left out and why */
};

struct placer_export_writer; /* export-internal.h */

struct placer_export_format {
  const char *name;
  const char *summary;
  enum placer_export_syntax syntax;
  unsigned needs; /* enum placer_export_needs */
  /* The consumer's releases whose reading of the output differs, oldest
   * first, NULL-terminated (NULL: one output for all, --target refused);
   * the last is the default.  CONSUMER names them in the header. */
  const char *consumer;
  const char *const *targets;
  bool takes_merge; /* --merge FILE */
  int (*write)(const struct placer_export_input *in, struct placer_export_writer *w, struct placer_error **err);
};

/* The formats, in the order help lists them: one X(NAME) each, whose writer
 * is placer_export_NAME (export-NAME.c).  The table, --format's words, its
 * completion and man page follow from this line. */
#define PLACER_EXPORT_FORMATS(X) \
  X(libvirt) X(virsh) X(nova) X(proxmox) X(kubelet) X(openshift) X(ceph) X(systemd) X(tuned) X(irqbalance)
/* The names --format takes, "libvirt|virsh|...", from that line. */
#define PLACER_EXPORT_FORMAT_WORD(name) "|" #name
#define PLACER_EXPORT_FORMAT_NAMES (PLACER_EXPORT_FORMATS(PLACER_EXPORT_FORMAT_WORD) + 1)
extern const struct placer_export_format *const placer_export_formats[];
extern const size_t placer_export_n_formats;
const struct placer_export_format *placer_export_format_find(const char *name);

/* Render FMT for IN: every unit in memory, or an error (PLACER_EXIT_USAGE
 * for what the profile cannot express, one line naming what is missing)
 * and no output at all.  Deterministic. */
int placer_export_render(const struct placer_export_format *fmt, const struct placer_export_input *in,
                         struct placer_export_output **out, struct placer_error **err);
void placer_export_output_free(struct placer_export_output *out);

/* Every unit's text (stdout); with several, each after a line "==> NAME <=="
 * and the units apart by an empty line, as head(1) prints several files.
 * -1 when writing fails. */
int placer_export_print(const struct placer_export_output *out, FILE *f);
/* --out DIR must be an existing directory, not a symbolic link, that this
 * process can write into (PLACER_EXIT_USAGE otherwise); checked before
 * anything is rendered. */
int placer_export_check_dir(const char *dir, struct placer_error **err);
/* The units into DIR as one set (lib/fileset.h): each NAME (its
 * subdirectory made), a unit whose bytes are there left alone, the units an
 * earlier export of FMT wrote there and this one does not removed (the
 * manifest DIR/.placer-export.FMT lists them), all or nothing, through no
 * symbolic link.  DRY: nothing written; CHANGES says what is (would be). */
int placer_export_write_dir(const struct placer_export_format *fmt, const struct placer_export_output *out,
                            const char *dir, bool dry, struct placer_fileset_changes *changes,
                            struct placer_error **err);

#endif
