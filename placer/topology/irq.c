/* The node's interrupts (irq.h): /proc/interrupts parsed, /proc/irq/N read,
 * and each device's IRQs found through the PCI function above it in sysfs. */
#include "topology/irq.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/string-list.h"
#include "lib/textfile.h"

/* Far above any real node (a few thousand IRQs, a few thousand CPUs). */
#define MAX_CPU_COLUMN 65536u
#define MAX_IRQ 1000000u

const char *placer_irq_target_name(enum placer_irq_target t) {
  switch (t) {
  case PLACER_IRQ_TO_NONE: return "none";
  case PLACER_IRQ_TO_OWN: return "own";
  case PLACER_IRQ_TO_RESERVE: return "reserve";
  case PLACER_IRQ_TO_NIC_CORES: return "nic_cores";
  case PLACER_IRQ_TO_CPUS: return "cpus";
  }
  return "?";
}

const char *placer_irq_dev_kind_name(enum placer_irq_dev_kind k) {
  switch (k) {
  case PLACER_IRQ_DEV_BLOCK: return "block device";
  case PLACER_IRQ_DEV_NET: return "NIC";
  case PLACER_IRQ_DEV_PCI: return "PCI device";
  }
  return "?";
}

void placer_irq_path(char *buf, size_t len, const char *root, unsigned irq, const char *file) {
  snprintf(buf, len, "%s/proc/irq/%u/%s", root ? root : "", irq, file);
}

/* ------------------------------------------------------------------ /proc/interrupts */

void placer_interrupts_clear(struct placer_interrupts *in) {
  for (size_t i = 0; i < in->n_lines; i++) {
    free(in->lines[i].counts);
    free(in->lines[i].rest);
  }
  free(in->lines);
  memset(in, 0, sizeof(*in));
}

/* TEXT with runs of blanks squeezed to one and the ends trimmed; LEN bytes. */
static char *squeeze(const char *text, size_t len) {
  char *out = malloc(len + 1);
  if (out == NULL)
    return NULL;
  size_t n = 0;
  bool blank = false;
  for (size_t i = 0; i < len; i++) {
    if (isspace((unsigned char)text[i])) {
      blank = n > 0;
      continue;
    }
    if (blank)
      out[n++] = ' ';
    blank = false;
    out[n++] = text[i];
  }
  out[n] = '\0';
  return out;
}

int placer_interrupts_parse(const char *text, struct placer_interrupts *out, struct placer_error **err) {
  memset(out, 0, sizeof(*out));
  const char *eol = strchr(text, '\n');
  size_t header_len = eol ? (size_t)(eol - text) : strlen(text);
  /* The header names the CPU of each count column: "CPU0 CPU1 CPU3". */
  unsigned *column_cpu = NULL;
  size_t n_columns = 0;
  for (const char *p = text; p < text + header_len;) {
    while (p < text + header_len && isspace((unsigned char)*p))
      p++;
    if (p >= text + header_len)
      break;
    char *end;
    if (strncmp(p, "CPU", 3) != 0 || !isdigit((unsigned char)p[3])) {
      free(column_cpu);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "/proc/interrupts: header word '%.*s' is not CPUn",
                              (int)strcspn(p, " \t\n"), p);
    }
    unsigned long cpu = strtoul(p + 3, &end, 10);
    if (cpu >= MAX_CPU_COLUMN) {
      free(column_cpu);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "/proc/interrupts: CPU column %lu is out of range", cpu);
    }
    unsigned *bigger = realloc(column_cpu, (n_columns + 1) * sizeof(*bigger));
    if (bigger == NULL) {
      free(column_cpu);
      return placer_error_oom(err, NULL);
    }
    column_cpu = bigger;
    column_cpu[n_columns++] = (unsigned)cpu;
    if (cpu + 1 > out->n_cpus)
      out->n_cpus = (unsigned)cpu + 1;
    p = end;
  }
  if (n_columns == 0) {
    free(column_cpu);
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "/proc/interrupts: no CPU columns in its header");
  }
  for (const char *line = eol ? eol + 1 : text + header_len; *line;) {
    const char *next = strchr(line, '\n');
    const char *line_end = next ? next : line + strlen(line);
    const char *p = line;
    while (p < line_end && isspace((unsigned char)*p))
      p++;
    char *end;
    errno = 0;
    unsigned long irq = isdigit((unsigned char)*p) ? strtoul(p, &end, 10) : ULONG_MAX;
    if (irq < MAX_IRQ && errno == 0 && *end == ':' && end < line_end) {
      struct placer_interrupts_line *bigger = realloc(out->lines, (out->n_lines + 1) * sizeof(*bigger));
      uint64_t *counts = calloc(out->n_cpus, sizeof(*counts));
      if (bigger)
        out->lines = bigger;
      if (bigger == NULL || counts == NULL) {
        free(counts);
        free(column_cpu);
        placer_interrupts_clear(out);
        return placer_error_oom(err, NULL);
      }
      p = end + 1;
      for (size_t c = 0; c < n_columns; c++) {
        const char *q = p;
        while (q < line_end && (*q == ' ' || *q == '\t'))
          q++;
        if (q >= line_end || !isdigit((unsigned char)*q))
          break;
        counts[column_cpu[c]] = strtoull(q, &end, 10);
        p = end;
      }
      struct placer_interrupts_line *l = &out->lines[out->n_lines++];
      l->irq = (unsigned)irq;
      l->counts = counts;
      l->rest = squeeze(p, (size_t)(line_end - p));
      if (l->rest == NULL) {
        free(column_cpu);
        placer_interrupts_clear(out);
        return placer_error_oom(err, NULL);
      }
    }
    line = next ? next + 1 : line_end;
  }
  free(column_cpu);
  return 0;
}

int placer_interrupts_counts(const struct placer_interrupts *in, unsigned irq, uint64_t **counts, unsigned *n_cpus) {
  for (size_t i = 0; i < in->n_lines; i++) {
    if (in->lines[i].irq != irq)
      continue;
    uint64_t *copy = calloc(in->n_cpus ? in->n_cpus : 1, sizeof(*copy));
    if (copy == NULL)
      return -1;
    memcpy(copy, in->lines[i].counts, in->n_cpus * sizeof(*copy));
    *counts = copy;
    *n_cpus = in->n_cpus;
    return 0;
  }
  return -1;
}

/* ------------------------------------------------------------------ files below the root */

static char *join(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *join(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    s = NULL;
  va_end(ap);
  return s;
}

/* The first line of PATH, without its newline; NULL when unreadable. */
static char *first_line(const char *path) {
  char *text = NULL;
  if (placer_textfile_read_path(path, 1 << 16, &text, NULL) < 0)
    return NULL;
  text[strcspn(text, "\n")] = '\0';
  return text;
}

static bool is_number(const char *s) {
  return *s && s[strspn(s, "0123456789")] == '\0' && strlen(s) < 10;
}

/* "0000:00:02.0": domain:bus:device.function in hex. */
static bool is_pci_address(const char *s) {
  static const char shape[] = "xxxx:xx:xx.x";
  if (strlen(s) != sizeof(shape) - 1)
    return false;
  for (size_t i = 0; shape[i]; i++)
    if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
      return false;
  return true;
}

static int compare_unsigned(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

static int compare_string(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in DIR (not "." or ".."), sorted; none when DIR cannot be read. */
static int list_dir(const char *dir, struct placer_string_list *names) {
  *names = (struct placer_string_list){ 0 };
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0;
  struct dirent *de;
  int rc = 0;
  while (rc == 0 && (de = readdir(d)) != NULL)
    if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
      rc = placer_string_list_add(names, de->d_name);
  closedir(d);
  if (rc < 0)
    placer_string_list_free(names);
  else if (names->n)
    qsort(names->items, names->n, sizeof(*names->items), compare_string);
  return rc;
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------------ IRQs */

static struct placer_irq *irq_slot(struct placer_irq_inventory *inv, unsigned irq) {
  for (size_t i = 0; i < inv->n_irqs; i++)
    if (inv->irqs[i].irq == irq)
      return &inv->irqs[i];
  struct placer_irq *bigger = realloc(inv->irqs, (inv->n_irqs + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return NULL;
  inv->irqs = bigger;
  struct placer_irq *q = &inv->irqs[inv->n_irqs++];
  memset(q, 0, sizeof(*q));
  q->irq = irq;
  return q;
}

/* Queue IRQs the kernel spreads over the CPUs itself (pci_alloc_irq_vectors_affinity):
 * NVMe's I/O queues (nvme0q1..; nvme0q0, the admin queue, is not) and virtio-blk's request
 * queues.  Kernels before 6.x leave their smp_affinity_list writable (the write fails with
 * EIO): the name tells the plan before apply tries. */
static bool managed_by_name(const char *name) {
  const char *q = strstr(name, "q");
  if (strncmp(name, "nvme", 4) == 0 && q && q > name + 4 && q[1] >= '1' && q[1] <= '9' &&
      strspn(name + 4, "0123456789") == (size_t)(q - name - 4) && strspn(q + 1, "0123456789") == strlen(q + 1))
    return true;
  const char *req = strstr(name, "-req.");
  return strncmp(name, "virtio", 6) == 0 && req && strspn(name + 6, "0123456789") == (size_t)(req - name - 6) &&
         req[5] && strspn(req + 5, "0123456789") == strlen(req + 5);
}

/* /proc/irq/N: affinity, effective affinity, whether user space may set it (the kernel
 * leaves smp_affinity read-only for managed IRQs), and the handlers' directories. */
static int read_proc_irq(const char *root, struct placer_irq *q) {
  char path[PATH_MAX];
  placer_irq_path(path, sizeof(path), root, q->irq, "smp_affinity_list");
  q->affinity = first_line(path);
  struct stat st;
  q->managed = q->affinity && stat(path, &st) == 0 && (st.st_mode & S_IWUSR) == 0;
  placer_irq_path(path, sizeof(path), root, q->irq, "effective_affinity_list");
  q->effective = first_line(path);
  placer_irq_path(path, sizeof(path), root, q->irq, "");
  struct placer_string_list names;
  if (list_dir(path, &names) < 0)
    return -1;
  char *joined = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&joined, &size);
  if (f == NULL) {
    placer_string_list_free(&names);
    return -1;
  }
  bool any = false;
  for (size_t i = 0; i < names.n; i++) {
    char sub[PATH_MAX];
    snprintf(sub, sizeof(sub), "%s%s", path, names.items[i]);
    if (!is_dir(sub))
      continue;
    fprintf(f, "%s%s", any ? "," : "", names.items[i]);
    any = true;
  }
  placer_string_list_free(&names);
  if (fclose(f) != 0)
    return -1;
  if (any && q->name == NULL)
    q->name = joined;
  else
    free(joined);
  return 0;
}

char *placer_irq_read_name(const char *root, unsigned irq) {
  char path[PATH_MAX];
  placer_irq_path(path, sizeof(path), root, irq, "");
  if (!is_dir(path))
    return NULL;
  struct placer_irq q = { .irq = irq };
  if (read_proc_irq(root ? root : "", &q) < 0) {
    free(q.affinity);
    free(q.effective);
    return NULL;
  }
  free(q.affinity);
  free(q.effective);
  return q.name ? q.name : strdup("");
}

int placer_interrupts_read(const char *root, struct placer_interrupts *out, struct placer_error **err) {
  cleanup_free char *path = join("%s/proc/interrupts", root);
  cleanup_free char *text = NULL;
  if (path == NULL)
    return placer_error_oom(err, NULL);
  if (placer_textfile_read_path(path, PLACER_TEXTFILE_MAX_BYTES, &text, NULL) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "read %s", path);
  return placer_interrupts_parse(text, out, err);
}

static int load_irqs(const char *root, struct placer_irq_inventory *inv, struct placer_error **err) {
  struct placer_interrupts in;
  if (placer_interrupts_read(root, &in, err) < 0)
    return -1;
  inv->n_cpus = in.n_cpus;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < in.n_lines; i++) {
    struct placer_irq *q = irq_slot(inv, in.lines[i].irq);
    if (q == NULL) {
      rc = placer_error_oom(err, NULL);
      break;
    }
    q->counts = TAKE_PTR(in.lines[i].counts);
    q->desc = TAKE_PTR(in.lines[i].rest);
    /* "CHIP HWIRQ-TYPE NAME": the last word names the handler when /proc/irq/N has
     * no directory for it; the directories win (a shared line lists every handler). */
    const char *last = strrchr(q->desc, ' ');
    if (last && last != strchr(q->desc, ' ') && (q->name = strdup(last + 1)) == NULL)
      rc = placer_error_oom(err, NULL);
  }
  placer_interrupts_clear(&in);
  if (rc < 0)
    return -1;
  /* IRQs with a /proc/irq directory but no line (none handles them) are of no use here. */
  for (size_t i = 0; i < inv->n_irqs; i++) {
    struct placer_irq *q = &inv->irqs[i];
    char *from_line = q->name;
    q->name = NULL;
    if (read_proc_irq(root, q) < 0) {
      free(from_line);
      return placer_error_oom(err, NULL);
    }
    if (q->name == NULL)
      q->name = from_line;
    else
      free(from_line);
    if (q->name == NULL && (q->name = strdup("")) == NULL)
      return placer_error_oom(err, NULL);
    q->managed = q->managed || managed_by_name(q->name);
  }
  for (size_t i = 0; i < inv->n_irqs; i++)
    if (inv->irqs[i].counts == NULL && (inv->irqs[i].counts = calloc(inv->n_cpus ? inv->n_cpus : 1, 8)) == NULL)
      return placer_error_oom(err, NULL);
  qsort(inv->irqs, inv->n_irqs, sizeof(*inv->irqs), compare_unsigned); /* irq is the first member */
  return 0;
}

/* ------------------------------------------------------------------ devices */

/* The PCI function at or above the sysfs directory REAL (a resolved path), not above
 * ROOT_SYS; NULL when there is none (a virtual or platform device). */
static char *pci_function_of(const char *real, const char *root_sys) {
  cleanup_free char *path = strdup(real);
  if (path == NULL)
    return NULL;
  size_t floor = strlen(root_sys);
  for (;;) {
    char *slash = strrchr(path, '/');
    if (slash == NULL || (size_t)(slash - path) < floor)
      return NULL;
    if (is_pci_address(slash + 1))
      return strdup(path);
    *slash = '\0';
  }
}

static int read_pci_irqs(const char *fn_dir, struct placer_irq_dev *dev) {
  cleanup_free char *msi = join("%s/msi_irqs", fn_dir);
  struct placer_string_list names;
  if (msi == NULL || list_dir(msi, &names) < 0)
    return -1;
  for (size_t i = 0; i < names.n; i++) {
    if (!is_number(names.items[i]))
      continue;
    unsigned *bigger = realloc(dev->irqs, (dev->n_irqs + 1) * sizeof(*bigger));
    if (bigger == NULL) {
      placer_string_list_free(&names);
      return -1;
    }
    dev->irqs = bigger;
    dev->irqs[dev->n_irqs++] = (unsigned)strtoul(names.items[i], NULL, 10);
  }
  placer_string_list_free(&names);
  if (dev->n_irqs) {
    qsort(dev->irqs, dev->n_irqs, sizeof(*dev->irqs), compare_unsigned);
    return 0;
  }
  /* No MSI: the INTx line the function raises (0 when it has none). */
  cleanup_free char *irq_file = join("%s/irq", fn_dir);
  cleanup_free char *line = irq_file ? first_line(irq_file) : NULL;
  if (line && is_number(line) && strtoul(line, NULL, 10) > 0) {
    if ((dev->irqs = malloc(sizeof(*dev->irqs))) == NULL)
      return -1;
    dev->irqs[0] = (unsigned)strtoul(line, NULL, 10);
    dev->n_irqs = 1;
    dev->legacy = true;
  }
  return 0;
}

static int add_device(struct placer_irq_inventory *inv, const char *name, enum placer_irq_dev_kind kind,
                      const char *fn_dir) {
  struct placer_irq_dev *bigger = realloc(inv->devs, (inv->n_devs + 1) * sizeof(*bigger));
  if (bigger == NULL)
    return -1;
  inv->devs = bigger;
  struct placer_irq_dev *dev = &inv->devs[inv->n_devs++];
  memset(dev, 0, sizeof(*dev));
  dev->kind = kind;
  dev->numa_node = -1;
  if ((dev->name = strdup(name)) == NULL)
    return -1;
  if (fn_dir == NULL)
    return 0;
  const char *base = strrchr(fn_dir, '/');
  if ((dev->pci_busid = strdup(base ? base + 1 : fn_dir)) == NULL)
    return -1;
  cleanup_free char *node_file = join("%s/numa_node", fn_dir);
  cleanup_free char *node = node_file ? first_line(node_file) : NULL;
  if (node && (is_number(node) || strcmp(node, "-1") == 0))
    dev->numa_node = (int)strtol(node, NULL, 10);
  return read_pci_irqs(fn_dir, dev);
}

/* Every entry of ROOT/sys/CLASS_DIR that is a real device: its PCI function's IRQs. */
static int load_class(const char *root, const char *class_dir, enum placer_irq_dev_kind kind,
                      struct placer_irq_inventory *inv, struct placer_error **err) {
  cleanup_free char *dir = join("%s/sys/%s", root, class_dir), *root_sys = join("%s/sys", root);
  char root_real[PATH_MAX];
  if (dir == NULL || root_sys == NULL)
    return placer_error_oom(err, NULL);
  if (realpath(root_sys, root_real) == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "%s", root_sys);
  struct placer_string_list names;
  if (list_dir(dir, &names) < 0)
    return placer_error_oom(err, NULL);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < names.n; i++) {
    char path[PATH_MAX], real[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, names.items[i]);
    if (realpath(path, real) == NULL || strstr(real, "/devices/virtual/"))
      continue;
    cleanup_free char *fn = NULL;
    if (kind == PLACER_IRQ_DEV_PCI) {
      if (!is_pci_address(names.items[i]))
        continue;
      fn = strdup(real);
    } else {
      char partition[PATH_MAX + 16], device[PATH_MAX + 16], device_real[PATH_MAX];
      snprintf(partition, sizeof(partition), "%s/partition", path);
      if (kind == PLACER_IRQ_DEV_BLOCK && access(partition, F_OK) == 0)
        continue; /* a partition raises its disk's IRQs: name the disk */
      snprintf(device, sizeof(device), "%s/device", path);
      if (realpath(device, device_real) == NULL)
        continue;                                   /* no device behind it */
      fn = pci_function_of(device_real, root_real); /* NULL: not on PCI, no IRQs of its own */
    }
    if (add_device(inv, names.items[i], kind, fn) < 0)
      rc = placer_error_oom(err, NULL);
  }
  placer_string_list_free(&names);
  return rc;
}

int placer_irq_inventory_load(const char *root, struct placer_irq_inventory **out, struct placer_error **err) {
  if (root == NULL)
    root = "";
  struct placer_irq_inventory *inv = calloc(1, sizeof(*inv));
  if (inv == NULL)
    return placer_error_oom(err, NULL);
  if (load_irqs(root, inv, err) < 0 || load_class(root, "class/block", PLACER_IRQ_DEV_BLOCK, inv, err) < 0 ||
      load_class(root, "class/net", PLACER_IRQ_DEV_NET, inv, err) < 0 ||
      load_class(root, "bus/pci/devices", PLACER_IRQ_DEV_PCI, inv, err) < 0) {
    placer_irq_inventory_free(inv);
    return -1;
  }
  *out = inv;
  return 0;
}

void placer_irq_inventory_free(struct placer_irq_inventory *inv) {
  if (inv == NULL)
    return;
  for (size_t i = 0; i < inv->n_irqs; i++) {
    free(inv->irqs[i].name);
    free(inv->irqs[i].desc);
    free(inv->irqs[i].affinity);
    free(inv->irqs[i].effective);
    free(inv->irqs[i].counts);
  }
  free(inv->irqs);
  for (size_t i = 0; i < inv->n_devs; i++) {
    free(inv->devs[i].name);
    free(inv->devs[i].pci_busid);
    free(inv->devs[i].irqs);
  }
  free(inv->devs);
  free(inv);
}

const struct placer_irq_dev *placer_irq_inventory_device(const struct placer_irq_inventory *inv, const char *name) {
  static const enum placer_irq_dev_kind order[] = { PLACER_IRQ_DEV_BLOCK, PLACER_IRQ_DEV_NET, PLACER_IRQ_DEV_PCI };
  for (size_t k = 0; inv && k < 3; k++)
    for (size_t i = 0; i < inv->n_devs; i++)
      if (inv->devs[i].kind == order[k] && strcmp(inv->devs[i].name, name) == 0)
        return &inv->devs[i];
  return NULL;
}

const struct placer_irq *placer_irq_inventory_irq(const struct placer_irq_inventory *inv, unsigned irq) {
  for (size_t i = 0; inv && i < inv->n_irqs; i++)
    if (inv->irqs[i].irq == irq)
      return &inv->irqs[i];
  return NULL;
}
