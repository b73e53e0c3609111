/* The node's interrupts: which IRQs each block device, NIC and PCI function
 * raises (sysfs), where each may and does go (/proc/irq/N) and how many it
 * raised on each CPU (/proc/interrupts).  Everything is read below a root
 * directory ("" for the machine itself, a captured tree in tests); the
 * parsers are pure.  Part of the topology module: the node as placer sees
 * it.  Reference: docs/profiles.md, "IRQs". */
#ifndef PLACER_IRQ_H
#define PLACER_IRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/* Where a profile sends a device's IRQs (irqs[].to, roles[].irqs). */
enum placer_irq_target {
  PLACER_IRQ_TO_NONE,      /* left where they are */
  PLACER_IRQ_TO_OWN,       /* roles only: the instance's own cpus */
  PLACER_IRQ_TO_RESERVE,   /* the host's reserved cores */
  PLACER_IRQ_TO_NIC_CORES, /* the cores reserved for NIC interrupts (reserve.nics) */
  PLACER_IRQ_TO_CPUS,      /* a cpu list given in the profile */
};
const char *placer_irq_target_name(enum placer_irq_target t);

enum placer_irq_dev_kind {
  PLACER_IRQ_DEV_BLOCK, /* /sys/class/block/NAME */
  PLACER_IRQ_DEV_NET,   /* /sys/class/net/NAME */
  PLACER_IRQ_DEV_PCI,   /* /sys/bus/pci/devices/ADDRESS */
};
const char *placer_irq_dev_kind_name(enum placer_irq_dev_kind k);

struct placer_irq {
  unsigned irq;
  char *name;       /* the handlers' names, from /proc/irq/N/NAME/ ("virtio1-req.0"; a shared line
                     * "uhci_hcd:usb1,virtio3"); else the last word of its /proc/interrupts line */
  char *desc;       /* its /proc/interrupts line after the counts ("PCI-MSIX-0000:00:02.0 1-edge
                     * virtio1-req.0"); NULL when it has none */
  char *affinity;   /* smp_affinity_list ("0-1"); NULL when unreadable */
  char *effective;  /* effective_affinity_list; NULL when the kernel has none */
  bool managed;     /* the kernel manages its affinity (NVMe and virtio-blk queues it spreads over
                     * the CPUs): smp_affinity_list is read-only (recent kernels), or the name says
                     * so (nvme0q1, virtio1-req.0); writing it fails with EIO */
  uint64_t *counts; /* interrupts per CPU (by OS index, n_cpus of the inventory) */
};

struct placer_irq_dev {
  char *name; /* "vda", "eth0", "0000:00:02.0" */
  enum placer_irq_dev_kind kind;
  char *pci_busid; /* the PCI function whose interrupts these are; NULL when not on PCI */
  int numa_node;   /* the PCI function's numa_node; -1 when unknown */
  unsigned *irqs;  /* msi_irqs/ in number order, else the one legacy line */
  size_t n_irqs;
  bool legacy; /* an INTx line (no MSI): other devices may share it */
};

struct placer_irq_inventory {
  struct placer_irq *irqs; /* by number */
  size_t n_irqs;
  unsigned n_cpus;             /* length of every counts array: the highest CPU column + 1 */
  struct placer_irq_dev *devs; /* block devices, NICs, PCI functions; each kind by name */
  size_t n_devs;
};

/* /proc/interrupts: the count columns ("CPU0 CPU1 ..." of the header, offline CPUs absent)
 * and every numbered line.  Lines of other sources (NMI, LOC, ...) are skipped. */
struct placer_interrupts_line {
  unsigned irq;
  uint64_t *counts; /* by CPU OS index, n_cpus */
  char *rest;       /* the text after the counts, blanks squeezed: "PCI-MSIX-0000:00:02.0 1-edge virtio1-req.0" */
};
struct placer_interrupts {
  unsigned n_cpus;
  struct placer_interrupts_line *lines;
  size_t n_lines;
};
/* Parse the text of /proc/interrupts (pure).  A line that is not "N: counts..." is
 * skipped; a header without CPU columns is an error (PLACER_EXIT_SYSTEM). */
int placer_interrupts_parse(const char *text, struct placer_interrupts *out, struct placer_error **err);
void placer_interrupts_clear(struct placer_interrupts *in);
/* ROOT/proc/interrupts read and parsed (ROOT "" for this machine). */
int placer_interrupts_read(const char *root, struct placer_interrupts *out, struct placer_error **err);

/* Read the inventory below ROOT ("" for this machine): /proc/interrupts and /proc/irq/N/
 * for the IRQs, /sys/class/block, /sys/class/net and /sys/bus/pci/devices for the devices
 * (virtual ones skipped: loop, lo, bridges).  A device's IRQs are those of the PCI function
 * above it in sysfs (vda -> 0000:00:02.0 -> msi_irqs/).  Errors name the file. */
int placer_irq_inventory_load(const char *root, struct placer_irq_inventory **out, struct placer_error **err);
void placer_irq_inventory_free(struct placer_irq_inventory *inv);

/* Look-ups; NULL when absent.  A device is named as a block device, a NIC or a PCI address
 * (block devices first, then NICs, then PCI functions). */
const struct placer_irq_dev *placer_irq_inventory_device(const struct placer_irq_inventory *inv, const char *name);
const struct placer_irq *placer_irq_inventory_irq(const struct placer_irq_inventory *inv, unsigned irq);

/* Each CPU's count of IRQ now, from the text of /proc/interrupts (pure): *counts gets
 * n_cpus values (caller frees).  -1 when the IRQ is not there. */
int placer_interrupts_counts(const struct placer_interrupts *in, unsigned irq, uint64_t **counts, unsigned *n_cpus);

/* The handlers of IRQ now (as placer_irq.name), "" when it has none; NULL when
 * /proc/irq/IRQ is not there (below ROOT). */
char *placer_irq_read_name(const char *root, unsigned irq);

/* "PATH" of /proc/irq/N/FILE below ROOT into BUF. */
void placer_irq_path(char *buf, size_t len, const char *root, unsigned irq, const char *file);

#endif
