/* The node's IRQ files as apply, status and reset use them (apply-irq.h):
 * an IRQ's list written (never creating a file), a line of /proc/irq/N read,
 * below a root that tests point at a captured tree;
 * and the paths and programs this placer uses for irqbalance and its unit. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "lib/cpulist.h"
#include "lib/textfile.h"
#include "systemd-unit.h"

void irq_etc_defaults(struct irq_etc *etc, const struct placer_apply_options *opt) {
  etc->systemctl = "systemctl";
  etc->etc_dir = PLACER_SYSTEMD_ETC_DIR;
  etc->defaults = opt && opt->irqbalance_defaults ? opt->irqbalance_defaults : "/etc/default/irqbalance";
  etc->initd = opt && opt->irqbalance_initd ? opt->irqbalance_initd : "/etc/init.d/irqbalance";
  etc->root = opt && opt->irq_root ? opt->irq_root : "";
}

char *irq_read_line(const char *root, unsigned irq, const char *file, int *saved_errno) {
  char path[PATH_MAX];
  placer_irq_path(path, sizeof(path), root, irq, file);
  char *text = NULL;
  if (placer_textfile_read_path(path, 4096, &text, NULL) < 0) {
    *saved_errno = errno;
    return NULL;
  }
  text[strcspn(text, "\n")] = '\0';
  return text;
}

enum irq_now irq_now(const char *root, const struct placer_state_irq *q, char **now, char **name) {
  int saved = 0;
  *now = irq_read_line(root, q->irq, "smp_affinity_list", &saved);
  *name = placer_irq_read_name(root, q->irq);
  if (*name == NULL || (q->name && *q->name && strcmp(*name, q->name) != 0))
    return IRQ_NOW_GONE;
  if (q->planned && !q->managed && (*now == NULL || !placer_cpulist_equal(*now, q->planned)))
    return IRQ_NOW_MOVED;
  return IRQ_NOW_AS_PLANNED;
}

int irq_write_affinity(const char *root, unsigned irq, const char *list, struct placer_error **err) {
  char path[PATH_MAX];
  placer_irq_path(path, sizeof(path), root, irq, "smp_affinity_list");
  /* never O_CREAT: a missing IRQ is an error, not a new file */
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s", path);
  size_t len = strlen(list);
  ssize_t n = write(fd, list, len);
  int saved = errno;
  if (close(fd) < 0 && n == (ssize_t)len) {
    n = -1;
    saved = errno;
  }
  if (n != (ssize_t)len)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, n < 0 ? saved : EIO, "write '%s' to %s", list, path);
  return 0;
}
