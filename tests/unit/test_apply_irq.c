/* The IRQ part of apply, status and reset (apply-irq*.c) below a scratch root shaped like
 * this project's VM (a copy of tests/fixtures/irq/hostvm, whose smp_affinity_list files are
 * plain files here): the journal and its round trip, an IRQ gone between plan and apply (a
 * note), a write that fails part-way (everything rolled back), irqbalance refused, ignored
 * and banned through a defaults file and an init script of the test's own (and a dry run
 * refusing the ban the apply would refuse); one owner per IRQ between two state directories,
 * a gone owner taken over with its recorded list; a crafted irq.json naming a program, a
 * file or a nameless IRQ refused with nothing run or written; a journal of 10,000 records
 * replayed in well under a second.  The real /proc/irq is the integration tests'
 * (irq_host.sh, irq_numa_guest.sh, trust_apply.sh). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "apply/apply.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "test_support.h"

static char root[256], state_dir[300];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  if (system(cmd) != 0)
    fail_msg("%s failed", cmd);
}

static char *slurp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *slurp(const char *fmt, ...) {
  char path[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(path, sizeof(path), fmt, ap);
  va_end(ap);
  return test_read_file(path);
}

static int setup(void **state) {
  (void)state;
  snprintf(root, sizeof(root), "/tmp/test-apply-irq-%d", (int)getpid());
  snprintf(state_dir, sizeof(state_dir), "%s/state", root);
  sh("rm -rf '%s' && cp -a '%s' '%s'", root, test_data_path("fixtures/irq/hostvm"), root);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  sh("rm -rf '%s'", root);
  return 0;
}

#define ROLE_A "roles:\n  - name: a\n    kind: generic\n    cpu: { threads: 1 }\n    match: {}\n"

/* TEXT planned on the scratch root. */
static struct placer_plan *plan_from(const char *text, struct placer_topology **topo_out) {
  struct placer_profile *p = NULL;
  struct placer_topology *topo = NULL;
  struct placer_plan *plan = NULL;
  struct placer_error *err = NULL;
  if (placer_profile_parse("p.yaml", text, strlen(text), &p, &err) < 0 ||
      placer_topology_load(test_data_path("fixtures/irq/hostvm/topology.xml"), &topo, &err) < 0 ||
      placer_topology_load_irqs(topo, root, &err) < 0 || placer_plan_compute(topo, p, &plan, &err) < 0)
    fail_msg("plan: %s", err->msg);
  placer_profile_free(p);
  *topo_out = topo;
  return plan;
}

/* vda and the rng function to CPU 0 on the scratch root. */
static struct placer_plan *plan_here(struct placer_topology **topo_out) {
  return plan_from("irqs:\n  - { device: vda, to: \"0\" }\n  - { device: \"0000:00:05.0\", to: \"0\" }\n" ROLE_A,
                   topo_out);
}

static struct placer_apply_options options(void) {
  struct placer_apply_options opt = { 0 };
  opt.state_dir = state_dir;
  opt.irqs_only = true;
  opt.irq_root = root;
  return opt;
}

static void check_list(unsigned irq, const char *want) {
  char *text = slurp("%s/proc/irq/%u/smp_affinity_list", root, irq);
  assert_non_null(text);
  text[strcspn(text, "\n")] = '\0';
  assert_string_equal(text, want);
  free(text);
}

static void apply_status_reset(void **state) {
  (void)state;
  struct placer_topology *topo;
  struct placer_plan *plan = plan_here(&topo);
  struct placer_apply_options opt = options();
  struct placer_apply_report *report = NULL;
  struct placer_error *err = NULL;
  if (placer_apply(plan, &opt, &report, &err) < 0)
    fail_msg("apply: %s", err->msg);
  assert_int_equal(report->steps, 3); /* 35, 33, 34; 36 is managed */
  assert_int_equal(report->n_irqs, 4);
  check_list(35, "0");
  check_list(33, "0");
  check_list(34, "0");
  check_list(36, "0-1");
  placer_apply_report_free(report);

  /* the journal: each IRQ's list before, in the order written; a round trip keeps it */
  struct placer_state *s = NULL;
  assert_int_equal(irq_state_open(state_dir, false, &s, &err), 0);
  assert_int_equal(s->n_journal, 3);
  assert_int_equal(s->journal[0].irq, 35);
  assert_string_equal(s->journal[0].previous, "0-1");
  assert_string_equal(s->journal[0].name, "virtio1-config");
  assert_int_equal(s->n_irqs, 4);
  assert_true(s->irqs[1].managed);
  assert_null(s->irqs[1].planned);
  json_t *j = placer_state_to_json(s);
  struct placer_state *copy = calloc(1, sizeof(*copy));
  copy->kind = &placer_state_irqs;
  copy->lock_fd = -1;
  assert_int_equal(placer_state_from_json(j, copy, &err), 0);
  json_t *j2 = placer_state_to_json(copy);
  assert_true(json_equal(j, j2));
  json_decref(j);
  json_decref(j2);
  placer_state_free(copy);
  placer_state_free(s);

  /* again: nothing to change */
  assert_int_equal(placer_apply(plan, &opt, &report, &err), 0);
  assert_int_equal(report->steps, 0);
  placer_apply_report_free(report);

  /* status: ok, then drift when one moves */
  json_t *doc = json_object();
  bool drift = false;
  assert_int_equal(irq_status(state_dir, &opt, doc, &drift, &err), 0);
  assert_false(drift);
  assert_int_equal(json_array_size(json_object_get(doc, "irqs")), 4);
  json_decref(doc);
  sh("printf 1 >'%s/proc/irq/34/smp_affinity_list'", root);
  doc = json_object();
  assert_int_equal(irq_status(state_dir, &opt, doc, &drift, &err), 0);
  assert_true(drift);
  assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "irq_problems"), 0)),
                      "IRQ 34 (virtio4-input) of 0000:00:05.0: smp_affinity_list 1, planned 0 (moved by someone "
                      "else: irqbalance, a script?)");
  json_decref(doc);

  /* reset: the lists before placer, and no state */
  struct placer_reset_result res = { 0 };
  assert_int_equal(irq_reset(state_dir, &opt, &res, &err), 0);
  assert_true(res.changed);
  assert_int_equal(res.n_irqs_restored, 3);
  check_list(35, "0-1");
  check_list(33, "0-1");
  check_list(34, "0-1");
  assert_false(placer_state_file_exists(state_dir, PLACER_STATE_IRQ_FILE));
  placer_reset_result_clear(&res);
  placer_plan_free(plan);
  placer_topology_free(topo);
}

static void gone_and_refused(void **state) {
  (void)state;
  struct placer_topology *topo;
  struct placer_plan *plan = plan_here(&topo);
  struct placer_apply_options opt = options();
  struct placer_apply_report *report = NULL;
  struct placer_error *err = NULL;

  /* an IRQ that vanished since the plan: a note, the others applied */
  sh("mv '%s/proc/irq/33' '%s/irq33'", root, root);
  if (placer_apply(plan, &opt, &report, &err) < 0)
    fail_msg("apply: %s", err->msg);
  assert_int_equal(report->steps, 2);
  assert_string_equal(report->irqs[2].note,
                      "IRQ 33 (virtio4-config) of 0000:00:05.0 is gone since the plan was made: left out");
  placer_apply_report_free(report);
  struct placer_reset_result res = { 0 };
  assert_int_equal(irq_reset(state_dir, &opt, &res, &err), 0);
  placer_reset_result_clear(&res);
  sh("mv '%s/irq33' '%s/proc/irq/33'", root, root);

  /* a write that fails part-way (the last IRQ's file is a directory): exit 4, rolled back */
  sh("rm '%s/proc/irq/34/smp_affinity_list' && mkdir '%s/proc/irq/34/smp_affinity_list'", root, root);
  assert_int_equal(placer_apply(plan, &opt, &report, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  assert_non_null(strstr(err->msg, "(the 2 IRQ changes rolled back too)"));
  placer_error_clear(&err);
  check_list(35, "0-1");
  check_list(33, "0-1");
  assert_false(placer_state_file_exists(state_dir, PLACER_STATE_IRQ_FILE));
  placer_plan_free(plan);
  placer_topology_free(topo);
}

static void irqbalance_modes(void **state) {
  (void)state;
  struct placer_topology *topo;
  struct placer_plan *plan = plan_here(&topo);
  struct placer_apply_options opt = options();
  struct placer_apply_report *report = NULL;
  struct placer_error *err = NULL;
  /* an irqbalance below the root, a defaults file and an init script of the test's; the
   * one instance is on cpu 0: irqbalance is kept off it */
  char defaults[400], initd[400];
  snprintf(defaults, sizeof(defaults), "%s/etc-default-irqbalance", root);
  snprintf(initd, sizeof(initd), "%s/initd", root);
  sh("mkdir -p '%s/proc/4242' && echo '4242 (irqbalance) S 1 4242' >'%s/proc/4242/stat' && "
     "printf 'IRQBALANCE_ONESHOT=\\n' >'%s' && printf '#!/bin/sh\\necho \"$1\" >>%s/initd.log\\n' >'%s' && chmod 755 "
     "'%s'",
     root, root, defaults, root, initd, initd);
  opt.irqbalance_defaults = defaults;
  opt.irqbalance_initd = initd;

  assert_int_equal(placer_apply(plan, &opt, &report, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_non_null(strstr(err->msg, "irqbalance is running (pid 4242): it rebalances every 10 s and would move the 3 "
                                   "IRQs placer steers (35 virtio1-config, 33 virtio4-config, 34 virtio4-input)"));
  placer_error_clear(&err);
  check_list(35, "0-1");

  opt.irqbalance = PLACER_IRQBALANCE_IGNORE;
  assert_int_equal(placer_apply(plan, &opt, &report, &err), 0);
  assert_non_null(strstr(report->notes[0], "irqbalance is running (pid 4242) and may move the steered IRQs again"));
  placer_apply_report_free(report);
  struct placer_reset_result res = { 0 };
  assert_int_equal(irq_reset(state_dir, &opt, &res, &err), 0);
  placer_reset_result_clear(&res);

  opt.irqbalance = PLACER_IRQBALANCE_BAN;
  if (placer_apply(plan, &opt, &report, &err) < 0)
    fail_msg("ban: %s", err->msg);
  placer_apply_report_free(report);
  char *text = test_read_file(defaults), want[1024];
  snprintf(want, sizeof(want),
           "IRQBALANCE_ONESHOT=\n# placer: begin (state %s; 'placer reset' removes this block)\n"
           "export IRQBALANCE_BANNED_CPULIST=0\nexport IRQBALANCE_ARGS=\"$IRQBALANCE_ARGS --banirq=35 --banirq=33 "
           "--banirq=34\"\n# placer: end\n",
           state_dir);
  assert_string_equal(text, want);
  free(text);
  text = slurp("%s/initd.log", root);
  assert_string_equal(text, "restart\n");
  free(text);
  assert_int_equal(irq_reset(state_dir, &opt, &res, &err), 0);
  placer_reset_result_clear(&res);
  text = test_read_file(defaults);
  assert_string_equal(text, "IRQBALANCE_ONESHOT=\n");
  free(text);
  text = slurp("%s/initd.log", root);
  assert_string_equal(text, "restart\nrestart\n");
  free(text);
  placer_plan_free(plan);
  placer_topology_free(topo);
}

/* --irqbalance ban where it cannot be done (no systemd, no init script): the dry run
 * refuses as the apply does (exit 4), nothing written. */
static void irqbalance_ban_dry_run(void **state) {
  (void)state;
  struct placer_topology *topo;
  struct placer_plan *plan = plan_here(&topo);
  struct placer_apply_options opt = options();
  char initd[400];
  snprintf(initd, sizeof(initd), "%s/no-init-script", root);
  sh("mkdir -p '%s/proc/4242' && echo '4242 (irqbalance) S 1 4242' >'%s/proc/4242/stat'", root, root);
  opt.irqbalance = PLACER_IRQBALANCE_BAN;
  opt.irqbalance_initd = initd;
  struct placer_apply_report *report = NULL;
  struct placer_error *err = NULL;
  for (int dry = 1; dry >= 0; dry--) {
    opt.dry_run = dry;
    assert_int_equal(placer_apply(plan, &opt, &report, &err), -1);
    assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
    assert_non_null(strstr(err->msg, "irqbalance runs, but neither through systemd nor with an init script"));
    placer_error_clear(&err);
  }
  check_list(35, "0-1");
  assert_false(placer_state_file_exists(state_dir, PLACER_STATE_IRQ_FILE));
  placer_plan_free(plan);
  placer_topology_free(topo);
}

/* Two state directories and the same IRQs: the second refuses (one line, exit 2, a dry run
 * too) while the first steers them; after the first's reset it may steer them.  When the
 * first's directory is gone, the second takes them over with the lists the first recorded,
 * so its reset puts them back where they were before either. */
static void owners(void **state) {
  (void)state;
  struct placer_topology *topo;
  struct placer_plan *plan = plan_here(&topo);
  char other[400], owners_dir[400];
  snprintf(other, sizeof(other), "%s/state-b", root);
  snprintf(owners_dir, sizeof(owners_dir), "%s/run/placer-irq-owners", root);
  struct placer_apply_options a = options(), b = options();
  b.state_dir = other;
  struct placer_apply_report *report = NULL;
  struct placer_error *err = NULL;
  struct placer_reset_result res = { 0 };
  if (placer_apply(plan, &a, &report, &err) < 0)
    fail_msg("apply a: %s", err->msg);
  placer_apply_report_free(report);
  assert_int_equal(access(owners_dir, F_OK), 0);
  for (int dry = 1; dry >= 0; dry--) {
    b.dry_run = dry;
    assert_int_equal(placer_apply(plan, &b, &report, &err), -1);
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    char want[600];
    snprintf(want, sizeof(want), "IRQ 35 (virtio1-config) is steered by the placement in %s: one placer state steers",
             state_dir);
    if (strstr(err->msg, want) == NULL)
      fail_msg("%s", err->msg);
    placer_error_clear(&err);
  }
  b.dry_run = false;
  check_list(35, "0");
  assert_false(placer_state_file_exists(other, PLACER_STATE_IRQ_FILE));
  assert_int_equal(irq_reset(other, &b, &res, &err), 0); /* b has nothing */
  placer_reset_result_clear(&res);
  check_list(35, "0");
  assert_int_equal(irq_reset(state_dir, &a, &res, &err), 0);
  placer_reset_result_clear(&res);
  check_list(35, "0-1");
  assert_int_equal(access(owners_dir, F_OK), -1); /* gone with its last record */
  if (placer_apply(plan, &b, &report, &err) < 0)
    fail_msg("apply b once a is reset: %s", err->msg);
  placer_apply_report_free(report);
  assert_int_equal(irq_reset(other, &b, &res, &err), 0);
  placer_reset_result_clear(&res);

  /* a's directory removed by hand while it steers them: b takes over a's lists */
  if (placer_apply(plan, &a, &report, &err) < 0)
    fail_msg("apply a again: %s", err->msg);
  placer_apply_report_free(report);
  sh("rm -rf '%s'", state_dir);
  if (placer_apply(plan, &b, &report, &err) < 0)
    fail_msg("apply b over a gone: %s", err->msg);
  placer_apply_report_free(report);
  check_list(35, "0");
  assert_int_equal(irq_reset(other, &b, &res, &err), 0);
  placer_reset_result_clear(&res);
  check_list(35, "0-1");
  check_list(33, "0-1");
  check_list(34, "0-1");
  assert_int_equal(access(owners_dir, F_OK), -1);
  placer_plan_free(plan);
  placer_topology_free(topo);
}

/* An irq.json placer did not write (BODY after its boot and directory) is refused by reset,
 * with MSG, and nothing it names is run or written. */
static void crafted(const char *body, const char *msg) {
  sh("mkdir -p '%s' && chmod 755 '%s'", state_dir, state_dir);
  char path[400], text[2048];
  snprintf(path, sizeof(path), "%s/irq.json", state_dir);
  snprintf(text, sizeof(text), "{%s\"schema\": 1, \"profile\": \"p\", \"last_txn\": 1, %s}",
           test_state_binding(state_dir), body);
  test_write_file(path, text);
  struct placer_apply_options opt = options();
  struct placer_reset_result res = { 0 };
  struct placer_error *err = NULL;
  assert_int_equal(irq_reset(state_dir, &opt, &res, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  if (strstr(err->msg, msg) == NULL)
    fail_msg("'%s' lacks '%s'", err->msg, msg);
  placer_error_clear(&err);
  assert_int_equal(access(path, F_OK), 0); /* kept, for whoever looks into it */
}

static void crafted_states(void **state) {
  (void)state;
  char decoy[400], ran[400], body[1600];
  snprintf(decoy, sizeof(decoy), "%s/decoy", root);
  snprintf(ran, sizeof(ran), "%s/ran", root);
  sh("printf precious >'%s' && printf '#!/bin/sh\ntouch %s\n' >'%s/evil.sh' && chmod 755 '%s/evil.sh'", decoy, ran,
     root, root);
  /* a program to run as root */
  snprintf(body, sizeof(body),
           "\"systemctl\": \"%s/evil.sh\", \"journal\": [{\"txn\": 1, \"op\": \"action\", \"action\": "
           "\"daemon-reload\"}]",
           root);
  crafted(body, "it names systemctl '");
  snprintf(body, sizeof(body),
           "\"irqbalance_script\": \"%s/evil.sh\", \"journal\": [{\"txn\": 1, \"op\": \"action\", "
           "\"action\": \"restart-irqbalance-script\"}]",
           root);
  crafted(body, "it names irqbalance's init script '");
  /* a file to delete, a file to overwrite, a directory to remove */
  snprintf(body, sizeof(body),
           "\"journal\": [{\"txn\": 1, \"op\": \"file\", \"path\": \"%s\", \"previous\": null, "
           "\"dir_created\": null}]",
           decoy);
  crafted(body, "which is not a file placer writes: nothing done");
  snprintf(body, sizeof(body),
           "\"journal\": [{\"txn\": 1, \"op\": \"file\", \"path\": \"%s\", \"previous\": \"owned\", "
           "\"dir_created\": null}]",
           decoy);
  crafted(body, "which is not a file placer writes");
  snprintf(body, sizeof(body),
           "\"journal\": [{\"txn\": 1, \"op\": \"link\", \"path\": \"%s\", \"dir_created\": \"%s\"}]", decoy, root);
  crafted(body, "a link record of '");
  /* an IRQ no plan named, without its handler's name */
  crafted("\"journal\": [{\"txn\": 1, \"op\": \"affinity\", \"irq\": 35, \"previous\": \"1\"}]",
          "an affinity record of IRQ 35 without a name, which placer never writes");
  char *text = test_read_file(decoy);
  assert_string_equal(text, "precious");
  free(text);
  assert_int_equal(access(ran, F_OK), -1);
  check_list(35, "0-1");
}

/* A journal of 10,000 records is replayed without rewriting the state after each one. */
static void long_journal(void **state) {
  (void)state;
  sh("mkdir -p '%s' && printf 0 >'%s/proc/irq/35/smp_affinity_list'", state_dir, root);
  size_t cap = 10000 * 96 + 512, len = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  len += (size_t)snprintf(text, cap, "{%s\"schema\": 1, \"profile\": \"p\", \"last_txn\": 1, \"journal\": [",
                          test_state_binding(state_dir));
  for (int i = 0; i < 10000; i++)
    len += (size_t)snprintf(text + len, cap - len,
                            "%s{\"txn\": 1, \"op\": \"affinity\", \"irq\": 35, \"name\": \"virtio1-config\", "
                            "\"previous\": \"%s\"}",
                            i ? ", " : "", i == 0 ? "0-1" : "0");
  snprintf(text + len, cap - len, "]}");
  char path[400];
  snprintf(path, sizeof(path), "%s/irq.json", state_dir);
  test_write_file(path, text);
  free(text);
  struct placer_apply_options opt = options();
  struct placer_reset_result res = { 0 };
  struct placer_error *err = NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (irq_reset(state_dir, &opt, &res, &err) < 0)
    fail_msg("reset: %s", err->msg);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  print_message("reset of 10,000 journal records: %.2f s\n", secs);
  assert_true(secs < 5);
  assert_int_equal(res.n_irqs_restored, 1);
  placer_reset_result_clear(&res);
  check_list(35, "0-1"); /* the oldest record's list, replayed newest first */
  assert_false(placer_state_file_exists(state_dir, PLACER_STATE_IRQ_FILE));
}

/* An optional device removed (the rng function, hot-unplugged): applied again, it is pending
 * (said, nothing steered for it); the records of its IRQs are dropped, one gone (33) and one
 * whose number another device has now (34): that one is not "restored" with the removed
 * device's list, neither by this apply nor by reset. */
static void optional_device_removed(void **state) {
  (void)state;
  const char optional[] = "irqs:\n  - { device: vda, to: \"0\" }\n"
                          "  - { device: \"0000:00:05.0\", to: \"0\", optional: true }\n" ROLE_A;
  struct placer_topology *topo;
  struct placer_plan *plan = plan_from(optional, &topo);
  struct placer_apply_options opt = options();
  struct placer_apply_report *report = NULL;
  struct placer_error *err = NULL;
  if (placer_apply(plan, &opt, &report, &err) < 0)
    fail_msg("apply: %s", err->msg);
  assert_int_equal(report->steps, 3);
  check_list(34, "0");
  placer_apply_report_free(report);
  placer_plan_free(plan);
  placer_topology_free(topo);

  sh("rm -rf '%s/sys/bus/pci/devices/0000:00:05.0' && mv '%s/proc/irq/33' '%s/irq33'", root, root, root);
  sh("mv '%s/proc/irq/34/virtio4-input' '%s/proc/irq/34/nvme0q0' && printf 1 >'%s/proc/irq/34/smp_affinity_list'", root,
     root, root);
  /* before any apply (no watcher): its IRQs gone with the optional device are no drift, said as such;
   * the required device's IRQ moved still is */
  json_t *doc = json_object();
  bool drift = false; /* status only ever sets it */
  assert_int_equal(irq_status(state_dir, &opt, doc, &drift, &err), 0);
  if (drift)
    fail_msg("drift: %s", json_string_value(json_array_get(json_object_get(doc, "irq_problems"), 0)));
  size_t gone = 0, i;
  json_t *o;
  json_array_foreach(json_object_get(doc, "irqs"), i, o) {
    bool is_gone = json_is_true(json_object_get(o, "gone"));
    gone += is_gone;
    assert_true(json_is_true(json_object_get(o, "ok")));
    assert_int_equal(json_is_true(json_object_get(o, "optional")), is_gone);
  }
  assert_int_equal(gone, 2); /* 33 removed, 34 another handler's now */
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  assert_int_equal(irq_status_print_text(doc, out), 0);
  fclose(out);
  assert_non_null(strstr(text, "IRQ 33 virtio4-config (0000:00:05.0): gone with its optional device, steered again "
                               "when it is back;"));
  assert_null(strstr(text, "DRIFT"));
  free(text);
  json_decref(doc);
  struct placer_apply_irq_kept *kept = NULL;
  size_t n_kept = 0;
  assert_int_equal(placer_apply_irqs_keep(state_dir, root, false, &kept, &n_kept, &err), 0);
  for (size_t k = 0; k < n_kept; k++)
    assert_null(kept[k].line); /* the watcher's check: nothing to say or put back */
  placer_apply_irqs_kept_free(kept, n_kept);
  sh("printf 1 >'%s/proc/irq/35/smp_affinity_list'", root);
  doc = json_object();
  assert_int_equal(irq_status(state_dir, &opt, doc, &drift, &err), 0);
  assert_true(drift);
  assert_int_equal(json_array_size(json_object_get(doc, "irq_problems")), 1);
  json_decref(doc);
  sh("printf 0 >'%s/proc/irq/35/smp_affinity_list'", root);
  plan = plan_from(optional, &topo);
  assert_true(plan->irq_rules[1].pending);
  if (placer_apply(plan, &opt, &report, &err) < 0)
    fail_msg("apply: %s", err->msg);
  assert_int_equal(report->steps, 0);
  assert_int_equal(report->n_notes, 3);
  assert_string_equal(report->notes[0], "irqs: p.yaml:3:15: irqs[1]: 0000:00:05.0 not present: its IRQs are steered "
                                        "when it appears (placer watch, or the next apply)");
  assert_string_equal(report->notes[1], "irqs: IRQ 34 (virtio4-input) is now nvme0q0: its record dropped, nothing to "
                                        "put back");
  assert_string_equal(report->notes[2], "irqs: IRQ 33 (virtio4-config) is gone: its record dropped, nothing to put "
                                        "back");
  check_list(34, "1");
  placer_apply_report_free(report);
  struct placer_state *s = NULL;
  assert_int_equal(irq_state_open(state_dir, false, &s, &err), 0);
  assert_int_equal(s->n_journal, 1); /* vda's config IRQ, 35 */
  assert_int_equal(s->journal[0].irq, 35);
  placer_state_free(s);

  struct placer_reset_result res = { 0 };
  assert_int_equal(irq_reset(state_dir, &opt, &res, &err), 0);
  assert_int_equal(res.n_irqs_restored, 1);
  check_list(35, "0-1");
  check_list(34, "1");
  placer_reset_result_clear(&res);
  placer_plan_free(plan);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(apply_status_reset, setup, teardown),
    cmocka_unit_test_setup_teardown(gone_and_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(irqbalance_modes, setup, teardown),
    cmocka_unit_test_setup_teardown(irqbalance_ban_dry_run, setup, teardown),
    cmocka_unit_test_setup_teardown(owners, setup, teardown),
    cmocka_unit_test_setup_teardown(crafted_states, setup, teardown),
    cmocka_unit_test_setup_teardown(long_journal, setup, teardown),
    cmocka_unit_test_setup_teardown(optional_device_removed, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
