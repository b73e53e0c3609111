/* Block devices and network interfaces with their NUMA locality.  hwloc
 * gives the PCI ones; on a live machine /sys adds what hwloc does not see and
 * the facts hwloc does not record (rotational flag, link speed). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/topology-internal.h"
#include "lib/textfile.h"

static hwloc_obj_t pci_ancestor(hwloc_obj_t obj) {
  for (hwloc_obj_t p = obj->parent; p; p = p->parent)
    if (p->type == HWLOC_OBJ_PCI_DEVICE)
      return p;
  return NULL;
}

/* Locality is known only for a device on PCI whose bus hwloc attached below
 * the machine level (or when there is a single NUMA node): never guessed. */
static hwloc_bitmap_t locality_of(const struct placer_topology *topo, hwloc_obj_t osdev) {
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  if (pci_ancestor(osdev) == NULL)
    return nodes;
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo->hw, osdev);
  if (anc == NULL || (anc->parent == NULL && topo->n_numa_nodes > 1))
    return nodes;
  hwloc_bitmap_copy(nodes, anc->nodeset);
  return nodes;
}

/* First line of DIR/NAME/LEAF without its newline; NULL when unreadable. */
static char *read_sys_line(const char *dir, const char *name, const char *leaf) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/%s/%s", dir, name, leaf);
  char *line = NULL;
  if (placer_textfile_read_path(path, 4096, &line, NULL) < 0)
    return NULL;
  line[strcspn(line, "\n")] = '\0';
  return line;
}

/* nvme by name; sdX and hdX by the kernel's rotational flag (reliable for SCSI
 * and ATA); anything else (virtio, xen, md) is unknown: those flags lie. */
static enum placer_device_kind block_kind(const char *name, bool live) {
  if (strncmp(name, "nvme", 4) == 0)
    return PLACER_DEVICE_NVME;
  if (!live || (strncmp(name, "sd", 2) != 0 && strncmp(name, "hd", 2) != 0))
    return PLACER_DEVICE_UNKNOWN;
  cleanup_free char *rot = read_sys_line("/sys/block", name, "queue/rotational");
  if (rot == NULL)
    return PLACER_DEVICE_UNKNOWN;
  return strcmp(rot, "1") == 0 ? PLACER_DEVICE_HDD : PLACER_DEVICE_SSD;
}

static char *dup_info(hwloc_obj_t obj, const char *key) {
  const char *v = hwloc_obj_get_info_by_name(obj, key);
  return v ? strdup(v) : NULL;
}

static char *pci_busid_of(hwloc_obj_t pci) {
  if (pci == NULL)
    return NULL;
  char *s = NULL;
  if (asprintf(&s, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain, pci->attr->pcidev.bus, pci->attr->pcidev.dev,
               pci->attr->pcidev.func) < 0)
    return NULL;
  return s;
}

static int add_blockdev(struct placer_topology *topo, hwloc_obj_t osdev) {
  struct placer_blockdev *bd = &topo->blockdevs[topo->n_blockdevs++];
  hwloc_obj_t pci = pci_ancestor(osdev);
  bd->name = strdup(osdev->name);
  bd->kind = block_kind(osdev->name, topo->is_live);
  if (bd->kind == PLACER_DEVICE_UNKNOWN && pci && pci->attr->pcidev.class_id == 0x0108)
    bd->kind = PLACER_DEVICE_NVME;
  const char *size_kib = hwloc_obj_get_info_by_name(osdev, "Size");
  bd->size_bytes = size_kib ? strtoull(size_kib, NULL, 10) * 1024 : 0;
  bd->pci_busid = pci_busid_of(pci);
  bd->model = dup_info(osdev, "Model");
  bd->numa_nodes = locality_of(topo, osdev);
  return bd->name && bd->numa_nodes ? 0 : -1;
}

static uint64_t live_nic_speed(const char *name) {
  cleanup_free char *speed = read_sys_line("/sys/class/net", name, "speed");
  long v = speed ? strtol(speed, NULL, 10) : 0;
  return v > 0 ? (uint64_t)v : 0;
}

static int add_nic(struct placer_topology *topo, hwloc_obj_t osdev) {
  struct placer_nic *nic = &topo->nics[topo->n_nics++];
  nic->name = strdup(osdev->name);
  nic->pci_busid = pci_busid_of(pci_ancestor(osdev));
  nic->address = dup_info(osdev, "Address");
  nic->speed_mbps = topo->is_live ? live_nic_speed(osdev->name) : 0;
  hwloc_obj_t pci = pci_ancestor(osdev);
  nic->pci_link_gbps = pci ? pci->attr->pcidev.linkspeed : 0;
  nic->ethernet = nic->address && strlen(nic->address) == 17;
  nic->numa_nodes = locality_of(topo, osdev);
  return nic->name && nic->numa_nodes ? 0 : -1;
}

static bool have_blockdev(const struct placer_topology *topo, const char *name) {
  for (size_t i = 0; i < topo->n_blockdevs; i++)
    if (strcmp(topo->blockdevs[i].name, name) == 0)
      return true;
  return false;
}

/* Live block devices hwloc did not list (e.g. not on PCI): real devices
 * only, locality from the nearest numa_node file up their sysfs path. */
static int add_live_blockdevs(struct placer_topology *topo, size_t cap) {
  DIR *dir = opendir("/sys/block");
  if (dir == NULL)
    return 0;
  struct dirent *de;
  int rc = 0;
  while ((de = readdir(dir)) != NULL && topo->n_blockdevs < cap) {
    if (de->d_name[0] == '.' || have_blockdev(topo, de->d_name))
      continue;
    char link[PATH_MAX], real[PATH_MAX];
    snprintf(link, sizeof(link), "/sys/block/%s", de->d_name);
    if (realpath(link, real) == NULL || strstr(real, "/devices/virtual/"))
      continue;
    struct placer_blockdev *bd = &topo->blockdevs[topo->n_blockdevs++];
    bd->name = strdup(de->d_name);
    bd->kind = block_kind(de->d_name, true);
    cleanup_free char *sectors = read_sys_line("/sys/block", de->d_name, "size");
    bd->size_bytes = sectors ? strtoull(sectors, NULL, 10) * 512 : 0;
    bd->numa_nodes = hwloc_bitmap_alloc();
    for (char *slash; (slash = strrchr(real, '/')) && slash != real; *slash = '\0') {
      cleanup_free char *node = read_sys_line(real, ".", "numa_node");
      if (node) {
        long v = strtol(node, NULL, 10);
        if (v >= 0)
          hwloc_bitmap_set(bd->numa_nodes, (unsigned)v);
        break;
      }
    }
    if (bd->name == NULL || bd->numa_nodes == NULL) {
      rc = -1;
      break;
    }
  }
  closedir(dir);
  return rc;
}

static int compare_blockdev(const void *a, const void *b) {
  return strcmp(((const struct placer_blockdev *)a)->name, ((const struct placer_blockdev *)b)->name);
}

static int compare_nic(const void *a, const void *b) {
  return strcmp(((const struct placer_nic *)a)->name, ((const struct placer_nic *)b)->name);
}

int placer_topology_collect_io(struct placer_topology *topo) {
  size_t n_osdevs = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo->hw, o)) != NULL;)
    n_osdevs++;
  size_t block_cap = n_osdevs + (topo->is_live ? 256 : 0);
  topo->blockdevs = calloc(block_cap + 1, sizeof(*topo->blockdevs));
  topo->nics = calloc(n_osdevs + 1, sizeof(*topo->nics));
  if (topo->blockdevs == NULL || topo->nics == NULL)
    return -1;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo->hw, o)) != NULL;) {
    if (o->name == NULL)
      continue;
    int rc = 0;
    if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_BLOCK)
      rc = add_blockdev(topo, o);
    else if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK)
      rc = add_nic(topo, o);
    if (rc < 0)
      return -1;
  }
  if (topo->is_live && add_live_blockdevs(topo, block_cap) < 0)
    return -1;
  qsort(topo->blockdevs, topo->n_blockdevs, sizeof(*topo->blockdevs), compare_blockdev);
  qsort(topo->nics, topo->n_nics, sizeof(*topo->nics), compare_nic);
  return 0;
}

void placer_topology_free_io(struct placer_topology *topo) {
  for (size_t i = 0; i < topo->n_blockdevs; i++) {
    free(topo->blockdevs[i].name);
    free(topo->blockdevs[i].pci_busid);
    free(topo->blockdevs[i].model);
    hwloc_bitmap_free(topo->blockdevs[i].numa_nodes);
  }
  for (size_t i = 0; i < topo->n_nics; i++) {
    free(topo->nics[i].name);
    free(topo->nics[i].pci_busid);
    free(topo->nics[i].address);
    hwloc_bitmap_free(topo->nics[i].numa_nodes);
  }
  free(topo->blockdevs);
  free(topo->nics);
}
