/* placer export --format irqbalance (issue #36, finding 9): the IRQs the plan
 * steers banned (--banirq, as apply --irqbalance ban does) with the node's own
 * IRQ numbers, named when they are another node's; a leftover
 * IRQBALANCE_BANNED_CPUS emptied (irqbalance 1.8+ reads it before the list);
 * the mask irqbalance 1.7 reads; RHEL's file named beside Debian's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export_check.h"
#include "export_support.h"
#include "test_support.h"

/* TEXT sourced by sh after LEFTOVER (what the operator's file already held),
 * as the service reads its environment file: the three variables irqbalance
 * reads, "CPULIST|CPUS|ARGS". */
static char *sourced(const char *leftover, const char *text) {
  char path[] = "/tmp/placer-test-irqbalance-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "%s%s", leftover, text);
  fclose(f);
  char cmd[512];
  snprintf(
      cmd, sizeof(cmd),
      "sh -c '. \"$0\" && printf \"%%s|%%s|%%s\" \"$IRQBALANCE_BANNED_CPULIST\" \"${IRQBALANCE_BANNED_CPUS-unset}\" "
      "\"$IRQBALANCE_ARGS\"' %s",
      path);
  FILE *p = popen(cmd, "r");
  char buf[4096] = "";
  size_t n = fread(buf, 1, sizeof(buf) - 1, p);
  buf[n] = '\0';
  assert_int_equal(pclose(p), 0);
  unlink(path);
  return strdup(buf);
}

static void test_banirq_live(void **state) {
  struct loaded l = { 0 };
  struct placer_error *err = NULL;
  l.topo = test_topo_captured("hostvm");
  static const char yaml[] = "reserve: { cores: 1 }\nirqs:\n  - { device: vda, to: reserve }\n"
                             "  - { device: \"0000:00:05.0\", to: \"1\" }\n"
                             "roles:\n  - { name: a, kind: generic, cpu: { threads: 1 } }\n";
  assert_int_equal(placer_profile_parse("t.yaml", yaml, strlen(yaml), &l.profile, &err), 0);
  assert_int_equal(placer_plan_compute(l.topo, l.profile, &l.plan, &err), 0);
  assert_true(l.plan->irqs_known);
  char *text = rendered(&l, "irqbalance");
  /* every IRQ the plan steers (vda's config, virtio-rng's), in the plan's order; not vda's request queue (36),
   * which the kernel manages and irqbalance cannot move */
  char want[256] = "\nIRQBALANCE_ARGS=\"", args[256] = "";
  size_t steered = 0;
  for (size_t i = 0; i < l.plan->n_irqs; i++)
    if (l.plan->irqs[i].to) {
      snprintf(args + strlen(args), sizeof(args) - strlen(args), "%s--banirq=%u", steered++ ? " " : "",
               l.plan->irqs[i].irq);
      assert_int_not_equal(l.plan->irqs[i].irq, 36);
    }
  assert_int_equal(steered, 3);
  snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s\"\n", args);
  if (strstr(text, want) == NULL)
    fail_msg("no '%s' in\n%s", want, text);
  char why[256];
  assert_null(export_check_syntax(PLACER_EXPORT_SHELL, text, why, sizeof(why)));
  /* the service's view, with the operator's old mask still above */
  char *env = sourced("IRQBALANCE_BANNED_CPUS=2\nIRQBALANCE_ARGS=--debug\n", text);
  snprintf(want, sizeof(want), "1||%s", args);
  assert_string_equal(env, want);
  free(env);
  free(text);
  placer_plan_free(l.plan);
  placer_profile_free(l.profile);
  test_topo_captured_done(l.topo);
}

static void test_other_node(void **state) {
  struct loaded l;
  load_file("crafted-hci-2s16c-8nvme.xml", "../profiles/hci-nvme.yaml", &l);
  char *msg = NULL;
  struct placer_export_output *out = render(&l, "irqbalance", &msg);
  const char *text = out->units[0].text;
  assert_non_null(strstr(text, "(format irqbalance, for irqbalance 1.9)"));
  assert_non_null(strstr(text, "/etc/default/irqbalance (Debian, Ubuntu) or /etc/sysconfig/irqbalance (RHEL, Fedora, "
                               "SUSE)"));
  assert_non_null(strstr(text, "\nIRQBALANCE_BANNED_CPUS=\nIRQBALANCE_BANNED_CPULIST=6-31,34-63\n"));
  assert_non_null(strstr(text, "# The plan steers the IRQs of ens1f0, ens1f1, nvme0n1, nvme1n1, nvme2n1, nvme3n1, "
                               "nvme4n1, nvme5n1, nvme6n1, nvme7n1: their numbers are the node's own"));
  assert_null(strstr(text, "IRQBALANCE_ARGS"));
  assert_int_equal(out->notes.n, 1);
  char *env = sourced("IRQBALANCE_BANNED_CPUS=ffffffff\n", text);
  assert_string_equal(env, "6-31,34-63||");
  free(env);
  placer_export_output_free(out);
  /* irqbalance 1.7 reads the mask only: bits 6-31 and 34-63 */
  l.target = "1.7";
  out = render(&l, "irqbalance", &msg);
  assert_non_null(strstr(out->units[0].text, "\nIRQBALANCE_BANNED_CPUS=fffffffc,ffffffc0\n"));
  assert_null(strstr(out->units[0].text, "CPULIST"));
  placer_export_output_free(out);
  l.target = "2.0";
  expect_refusal(&l, "irqbalance", "irqbalance: --target 2.0: placer writes for irqbalance 1.7, 1.8, 1.9");
  unload(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_banirq_live),
    cmocka_unit_test(test_other_node),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
