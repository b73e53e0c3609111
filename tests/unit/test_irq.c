/* The IRQ inventory (placer/irq.c): /proc/interrupts parsed, and the tree captured from
 * this project's VM (tests/fixtures/irq/hostvm: vda on 0000:00:02.0 with virtio1-config and
 * the managed virtio1-req.0, eth0 virtio-net on 0000:00:03.0) read as the machine itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology/irq.h"
#include "test_support.h"

/* A copy of fixtures/irq/NAME in a scratch directory with the modes of its `modes` file
 * (git keeps none): the root to load.  Static buffer. */
static const char *fixture_root(const char *name) {
  static char root[512];
  char src[512];
  snprintf(src, sizeof(src), "%s", test_data_path("fixtures/irq"));
  snprintf(root, sizeof(root), "/tmp/test-irq-%d-%s", (int)getpid(), name);
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -a '%s/%s' '%s'", root, src, name, root);
  assert_int_equal(system(cmd), 0);
  char modes[600];
  snprintf(modes, sizeof(modes), "%s/modes", root);
  FILE *f = fopen(modes, "r");
  assert_non_null(f);
  char path[256];
  unsigned mode;
  while (fscanf(f, "%255s %o", path, &mode) == 2) {
    char full[800];
    snprintf(full, sizeof(full), "%s/%s", root, path);
    assert_int_equal(chmod(full, mode), 0);
  }
  fclose(f);
  return root;
}

static void remove_root(const char *root) {
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
  assert_int_equal(system(cmd), 0);
}

static void parse_interrupts_text(void **state) {
  (void)state;
  /* Offline CPU 2 has no column; NMI/LOC lines and ERR's single count are skipped. */
  const char text[] = "           CPU0       CPU1       CPU3\n"
                      "  0:         44          0          0   IO-APIC   2-edge      timer\n"
                      " 11:          0          0          3   IO-APIC  11-fasteoi   uhci_hcd:usb1, virtio3\n"
                      " 36:          0    6425978          7 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
                      " 40:          5\n"
                      "NMI:          0          0          0   Non-maskable interrupts\n"
                      "ERR:          0\n";
  struct placer_interrupts in;
  struct placer_error *err = NULL;
  assert_int_equal(placer_interrupts_parse(text, &in, &err), 0);
  assert_int_equal(in.n_cpus, 4);
  assert_int_equal(in.n_lines, 4);
  assert_int_equal(in.lines[2].irq, 36);
  assert_int_equal(in.lines[2].counts[0], 0);
  assert_int_equal(in.lines[2].counts[1], 6425978);
  assert_int_equal(in.lines[2].counts[2], 0);
  assert_int_equal(in.lines[2].counts[3], 7);
  assert_string_equal(in.lines[2].rest, "PCI-MSIX-0000:00:02.0 1-edge virtio1-req.0");
  assert_string_equal(in.lines[1].rest, "IO-APIC 11-fasteoi uhci_hcd:usb1, virtio3");
  assert_int_equal(in.lines[3].counts[0], 5); /* a short line: the counts it has */
  assert_int_equal(in.lines[3].counts[1], 0);
  assert_string_equal(in.lines[3].rest, "");
  uint64_t *counts = NULL;
  unsigned n = 0;
  assert_int_equal(placer_interrupts_counts(&in, 11, &counts, &n), 0);
  assert_int_equal(n, 4);
  assert_int_equal(counts[3], 3);
  free(counts);
  assert_int_equal(placer_interrupts_counts(&in, 12, &counts, &n), -1);
  placer_interrupts_clear(&in);

  assert_int_equal(placer_interrupts_parse("  0: 1 2\n", &in, &err), -1);
  assert_non_null(strstr(err->msg, "is not CPUn"));
  placer_error_clear(&err);
  assert_int_equal(placer_interrupts_parse("\n", &in, &err), -1);
  assert_non_null(strstr(err->msg, "no CPU columns"));
  placer_error_clear(&err);
}

static void inventory_of_this_vm(void **state) {
  (void)state;
  const char *root = fixture_root("hostvm");
  struct placer_irq_inventory *inv = NULL;
  struct placer_error *err = NULL;
  if (placer_irq_inventory_load(root, &inv, &err) < 0)
    fail_msg("load: %s", err->msg);
  assert_int_equal(inv->n_cpus, 2);

  const struct placer_irq_dev *vda = placer_irq_inventory_device(inv, "vda");
  assert_non_null(vda);
  assert_int_equal(vda->kind, PLACER_IRQ_DEV_BLOCK);
  assert_string_equal(vda->pci_busid, "0000:00:02.0");
  assert_int_equal(vda->numa_node, -1); /* a one-node VM: the kernel does not say */
  assert_int_equal(vda->n_irqs, 2);
  assert_int_equal(vda->irqs[0], 35);
  assert_int_equal(vda->irqs[1], 36);
  assert_false(vda->legacy);
  const struct placer_irq *config = placer_irq_inventory_irq(inv, 35);
  const struct placer_irq *req = placer_irq_inventory_irq(inv, 36);
  assert_string_equal(config->name, "virtio1-config");
  assert_false(config->managed);
  assert_string_equal(req->name, "virtio1-req.0");
  assert_true(req->managed); /* its smp_affinity_list is read-only: the block layer spread it */
  assert_string_equal(req->affinity, "0-1");
  assert_string_equal(req->effective, "1");
  assert_int_equal(req->counts[0], 0);
  assert_true(req->counts[1] > 1000000); /* every vda completion on CPU 1 */

  const struct placer_irq_dev *eth0 = placer_irq_inventory_device(inv, "eth0");
  assert_non_null(eth0);
  assert_int_equal(eth0->kind, PLACER_IRQ_DEV_NET);
  assert_string_equal(eth0->pci_busid, "0000:00:03.0");
  assert_int_equal(eth0->n_irqs, 3);
  assert_string_equal(placer_irq_inventory_irq(inv, eth0->irqs[1])->name, "virtio2-input.0");

  /* the same function by its PCI address; virtual devices are not there */
  const struct placer_irq_dev *fn = placer_irq_inventory_device(inv, "0000:00:02.0");
  assert_non_null(fn);
  assert_int_equal(fn->kind, PLACER_IRQ_DEV_PCI);
  assert_int_equal(fn->n_irqs, 2);
  assert_null(placer_irq_inventory_device(inv, "lo"));
  assert_null(placer_irq_inventory_device(inv, "loop0"));
  assert_null(placer_irq_inventory_device(inv, "zram0"));
  assert_null(placer_irq_inventory_device(inv, "nvme9n1"));
  /* the host bridge raises nothing but is a PCI function all the same */
  const struct placer_irq_dev *bridge = placer_irq_inventory_device(inv, "0000:00:00.0");
  assert_non_null(bridge);
  assert_int_equal(bridge->n_irqs, 0);

  /* IRQs by number, with the handler names from /proc/irq/N/ */
  for (size_t i = 1; i < inv->n_irqs; i++)
    assert_true(inv->irqs[i - 1].irq < inv->irqs[i].irq);
  assert_string_equal(placer_irq_inventory_irq(inv, 26)->name, "ttyS0");
  placer_irq_inventory_free(inv);
  remove_root(root);
}

static void inventory_missing_root(void **state) {
  (void)state;
  struct placer_irq_inventory *inv = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_irq_inventory_load("/nonexistent-root", &inv, &err), -1);
  assert_non_null(strstr(err->msg, "/nonexistent-root/proc/interrupts"));
  placer_error_clear(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(parse_interrupts_text),
    cmocka_unit_test(inventory_of_this_vm),
    cmocka_unit_test(inventory_missing_root),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
