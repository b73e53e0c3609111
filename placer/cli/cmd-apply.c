/* placer apply / status / reset: option parsing and printing; the work is
 * in apply-backend.c, behind it the backends (apply-internal.h). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply.h"
#include "cli/commands.h"
#include "plan/plan.h"
#include "profile/profile.h"
#include "state.h"
#include "topology/topology.h"
#include "lib/units.h"

static const struct placer_cli_option apply_options[] = {
  { "topology", 't', "FILE.xml", PLACER_CLI_XML,
    "Plan on the topology an hwloc XML file describes instead of asking hwloc (the processes still run here)." },
  { "dry-run", 'n', NULL, PLACER_CLI_TEXT, "Print what would change; change nothing." },
  { "strict", 's', NULL, PLACER_CLI_TEXT, "An instance with no running process is an error (exit 3)." },
  { "json", 'j', NULL, PLACER_CLI_TEXT, "Print the result as one JSON document (apply.md)." },
  { "pid", 'p', "INSTANCE=PID", PLACER_CLI_TEXT,
    "Bind PID to INSTANCE instead of finding it with the profile's matcher. May be repeated." },
  { "qmp", 'q', "INSTANCE=SOCKET", PLACER_CLI_TEXT,
    "Ask the VM's QMP socket for its vCPU threads instead of reading their names. May be repeated." },
  { "state-dir", 'd', "DIR", PLACER_CLI_DIR,
    "Where the state and the lock are kept (default $PLACER_STATE_DIR, else /run/placer)." },
  { "cgroup-prefix", 'P', "PATH", PLACER_CLI_TEXT,
    "The top group of placer's groups (default $PLACER_CGROUP_PREFIX, else placer)." },
  { "backend", 'b', PLACER_APPLY_BACKEND_NAMES, PLACER_CLI_WORDS,
    "cgroupfs: placer's own groups; systemd: the daemons' units, through systemctl set-property --runtime; "
    "auto (the default): systemd when PID 1 is systemd, else cgroupfs." },
  { "persist", 'k', NULL, PLACER_CLI_TEXT,
    "With systemd: also write drop-ins /etc/systemd/system/UNIT.d/50-placer.conf, so that the placement "
    "survives a restart of the daemon and a reboot." },
  { "restart", 'r', "rolling", PLACER_CLI_WORDS,
    "With systemd: then restart the units one at a time, healthy in between, and check every thread." },
  { "health-cmd", 'H', "CMD", PLACER_CLI_TEXT,
    "With --restart: sh -c CMD must exit 0 before and after each restart (Ceph: "
    "'ceph health | grep -q HEALTH_OK')." },
  { "health-timeout", 'T', "S", PLACER_CLI_TEXT,
    "With --restart: how long to wait, in seconds, for health and for each unit (default 300)." },
  { "irqbalance", 'I', "refuse|ban|ignore", PLACER_CLI_WORDS,
    "When irqbalance runs and the profile steers IRQs (irqs:): refuse (the default) changes nothing; ban keeps "
    "it off the steered IRQs and off the instances' CPUs, and restarts it; ignore goes on (it may move them "
    "again)." },
  { "irqs-only", 'O', NULL, PLACER_CLI_TEXT,
    "Steer the profile's IRQs only, no group and no unit (what the boot unit of --persist runs)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_apply = {
  .name = "apply",
  .run = cmd_apply,
  .summary = "put running daemons, VMs and fio in their planned cgroups",
  .synopsis = { "[--topology FILE.xml] [--dry-run] [--strict] [--json] [--pid INSTANCE=PID]... "
                "[--qmp INSTANCE=SOCKET]... [--state-dir DIR] [--cgroup-prefix PATH] "
                "[--backend BACKEND] [--persist] "
                "[--restart rolling [--health-cmd CMD] [--health-timeout S]] [--irqbalance refuse|ban|ignore] "
                "[--irqs-only] PROFILE" },
  .description =
      "Plan PROFILE for this node, check that the whole plan can be applied, then put it in force with cgroups: "
      "groups PREFIX/ROLE/INSTANCE with the planned CPUs, memory nodes, memory limit and CPU weight, every "
      "matching process (all its threads, and its descendants) moved in, VM vCPU threads pinned one per PU. "
      "Ceph daemons are found by their id, containers by name, qemu VMs by -name, others by pid file or command "
      "line pattern. A failure part-way rolls everything back. Applying the same plan again changes nothing. "
      "What was done is journaled in the state directory, for placer status and placer reset.\n\n"
      "Where PID 1 is systemd, the placement goes through the daemons' units instead (--backend).\n\n"
      "A profile with irqs: also steers the IRQs of its devices and NICs (/proc/irq/N/smp_affinity_list), "
      "before the groups or units and journaled like them; the kernel's managed IRQs (NVMe queues) are "
      "reported, never failed on. With --persist and systemd, a oneshot unit places them again at boot.",
  .options = apply_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 applied, or nothing to change\n"
                 "2 bad command line, profile or topology file; a --pid of a process that does not run, of PID 1, "
                 "of placer's own ancestors or of a kernel thread; a matcher finding more unrelated process trees "
                 "than the profile has instances; one PID matched by two instances; another profile already "
                 "applied; an IRQ another state directory steers; an irqs: device not here; irqbalance running "
                 "without --irqbalance; a state directory others can write\n"
                 "3 the plan does not fit this node (or its cgroups); with --strict, an instance without a process; "
                 "--backend systemd where PID 1 is not systemd\n"
                 "4 the system refused a change (everything rolled back), or the lock is held",
  .examples = "See what applying a profile would do, then do it and check:\n"
              "$ placer apply --dry-run profile.yaml\n"
              "$ placer apply profile.yaml\n"
              "$ placer status\n"
              "Through systemd, kept across reboots, restarting the OSDs one at a time while Ceph stays healthy:\n"
              "$ placer apply --backend systemd --persist --restart rolling --health-cmd 'ceph health | grep -q "
              "HEALTH_OK' profile.yaml",
  .environment = "PLACER_STATE_DIR the state directory when --state-dir is not given\n"
                 "PLACER_CGROUP_PREFIX the top group when --cgroup-prefix is not given",
  .see_also = "placer-status(1), placer-reset(1), placer-plan(1), cgroups(7), systemctl(1)",
};

static const struct placer_cli_option state_options[] = {
  { "json", 'j', NULL, PLACER_CLI_TEXT, "Print the result as one JSON document (apply.md)." },
  { "state-dir", 'd', "DIR", PLACER_CLI_DIR,
    "Where apply kept its state (default $PLACER_STATE_DIR, else /run/placer)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_status = {
  .name = "status",
  .run = cmd_status,
  .summary = "planned vs actual placement; exit 1 on drift",
  .synopsis = { "[--json] [--state-dir DIR]" },
  .description = "For every instance that placer apply put in force: planned against actual group values, "
                 "the groups each process is in, every thread's Cpus_allowed_list and Mems_allowed_list, and "
                 "memory locality: the share of the process's resident pages on its planned NUMA nodes "
                 "(/proc/PID/numa_maps); for an MDS, the mds_cache_memory_limit it runs with (asked over its own "
                 "admin socket) against the plan's, half its memory limit.",
  .options = state_options,
  .exit_status = "0 everything is as planned (or nothing was applied)\n"
                 "1 drift: a value, a process or a thread is not where the plan put it, or an MDS runs with "
                 "another cache\n"
                 "2 bad command line; a state directory or file placer may not trust (a link, a FIFO, writable by "
                 "others)\n"
                 "4 the state or the system could not be read; a state written in another boot or for another "
                 "directory",
  .examples = "Fail a monitoring check when a daemon has left its CPUs:\n"
              "$ placer status --json > status.json || echo drift",
  .environment = "PLACER_STATE_DIR the state directory when --state-dir is not given",
  .see_also = "placer-apply(1), placer-reset(1)",
};

const struct placer_cli_command placer_cli_reset = {
  .name = "reset",
  .run = cmd_reset,
  .summary = "undo apply: processes back, placer's groups removed",
  .synopsis = { "[--json] [--state-dir DIR]" },
  .description = "Undo what placer apply did: processes back in their original groups, the values it changed "
                 "restored, placer's groups removed. Works after an interrupted apply or a crash; safe to run "
                 "twice (nothing to reset). Acts only on what placer itself made and can still recognise: a state "
                 "written for this directory in this boot, groups that carry placer's mark, processes where placer "
                 "put them, the IRQs this state steers, placer's own files and commands.",
  .options = state_options,
  .exit_status = "0 reset, or nothing to reset\n"
                 "2 bad command line; a state directory or file placer may not trust (a link, a FIFO, writable by "
                 "others)\n"
                 "4 something could not be undone (the message names it and it stays recorded for the next "
                 "reset), the state could not be read, or the lock is held; a state that records what placer did "
                 "not make (another boot or directory, a group without its mark, a program or path placer does not "
                 "use): nothing done",
  .examples = "$ placer reset",
  .environment = "PLACER_STATE_DIR the state directory when --state-dir is not given",
  .see_also = "placer-apply(1), placer-status(1)",
};

static int add_instance_arg(const char *option, const char *text, struct placer_instance_arg **list, size_t *n) {
  const char *eq = strchr(text, '=');
  if (eq == NULL || eq == text || eq[1] == '\0') {
    fprintf(stderr, "placer apply: %s wants INSTANCE=VALUE, got '%s'\n", option, text);
    return -1;
  }
  struct placer_instance_arg *bigger = realloc(*list, (*n + 1) * sizeof(*bigger));
  if (bigger != NULL)
    *list = bigger; /* the old block may be gone now, whatever happens next */
  char *instance = bigger ? strndup(text, (size_t)(eq - text)) : NULL;
  if (instance == NULL) {
    fprintf(stderr, "placer apply: out of memory\n");
    return -1;
  }
  (*list)[(*n)++] = (struct placer_instance_arg){ instance, eq + 1 };
  return 0;
}

/* The options only some backends take, by the name the backend's table
 * gives them (apply.h: struct placer_apply_setting): apply says which
 * backend takes one and refuses it for another. */
static const struct {
  int val;
  const char *name;
} backend_settings[] = { { 'k', "persist" }, { 'r', "restart" }, { 'H', "health-cmd" }, { 'T', "health-timeout" } };

/* The setting of option VAL into SETTINGS (the last one given wins). */
static void add_setting(struct placer_apply_setting *settings, size_t *n, int val, const char *value) {
  for (size_t k = 0; k < sizeof(backend_settings) / sizeof(backend_settings[0]); k++) {
    if (backend_settings[k].val != val)
      continue;
    size_t i = 0;
    while (i < *n && strcmp(settings[i].name, backend_settings[k].name) != 0)
      i++;
    settings[i] = (struct placer_apply_setting){ backend_settings[k].name, value };
    *n += i == *n;
  }
}

static void free_instance_args(struct placer_instance_arg *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    free((char *)list[i].instance);
  free(list);
}

static void print_report(const struct placer_apply_report *r, FILE *out) {
  size_t n_bound = 0;
  for (size_t i = 0; i < r->n_instances; i++) {
    const struct placer_apply_instance_report *ri = &r->instances[i];
    char mem[32] = "none";
    if (ri->has_memory_limit)
      placer_format_bytes(ri->memory_bytes, mem, sizeof(mem));
    fprintf(out, "%-10s cpus %s  mems %s  mem %s  ", ri->name, ri->cpus, ri->mems, mem);
    if (r->placed_in && ri->group)
      fprintf(out, "%s %s: ", r->placed_in, ri->group);
    if (ri->n_bound == 0)
      fprintf(out, "%s", ri->note ? ri->note : "no process");
    for (size_t k = 0; k < ri->n_bound; k++) {
      fprintf(out, "%s pid %d ", k ? "," : r->dry_run ? "would bind" : "bound", (int)ri->bound[k].pid);
      placer_text_put(out, ri->bound[k].comm);
      fprintf(out, " (%zu thread%s)", ri->bound[k].n_threads, ri->bound[k].n_threads == 1 ? "" : "s");
      if (ri->bound[k].n_descendants)
        fprintf(out, " + %zu child%s", ri->bound[k].n_descendants, ri->bound[k].n_descendants == 1 ? "" : "ren");
    }
    if (ri->n_vcpus_pinned)
      fprintf(out, "; %zu vCPUs pinned one per PU (found by %s)", ri->n_vcpus_pinned, ri->vcpu_source);
    fputc('\n', out);
    n_bound += ri->n_bound;
  }
  for (size_t i = 0; i < r->n_irqs; i++) {
    const struct placer_apply_irq_report *q = &r->irqs[i];
    fprintf(out, "irq %-6u ", q->irq);
    placer_text_put(out, q->name);
    fputs(" (", out);
    placer_text_put(out, q->device);
    fprintf(out, "%s%s): ", q->instance ? ", " : "", q->instance ? q->instance : "");
    if (q->note) {
      placer_text_put(out, q->note);
      fputc('\n', out);
    } else if (q->managed)
      fprintf(out, "managed by the kernel, completes on cpu %s\n", q->effective ? q->effective : "?");
    else if (q->changed)
      fprintf(out, "%s cpus %s (was %s)\n", r->dry_run ? "would be on" : "on", q->to, q->from ? q->from : "?");
    else
      fprintf(out, "on cpus %s already\n", q->to);
  }
  /* a backend whose actions are a handful of commands: each said */
  for (size_t i = 0; !r->dry_run && r->shows_actions && i < r->n_actions; i++)
    fprintf(out, "done: %s\n", r->actions[i]);
  for (size_t i = 0; i < r->n_notes; i++) {
    fputs("note: ", out);
    placer_text_put(out, r->notes[i]);
    fputc('\n', out);
  }
  const char *name = r->profile_name ? r->profile_name : "?", *where = r->where;
  if (r->dry_run) {
    for (size_t i = 0; i < r->n_actions; i++)
      fprintf(out, "would: %s\n", r->actions[i]);
    fprintf(out, "dry run: %u change%s would be made for profile %s (%s); nothing was changed\n", r->steps,
            r->steps == 1 ? "" : "s", name, where);
  } else if (r->steps == 0) {
    fprintf(out,
            "nothing to change: profile %s is already in force (%zu instances, %zu processes bound; %s, "
            "state %s)\n",
            name, r->n_instances, n_bound, where, r->state_dir);
  } else {
    fprintf(out, "applied profile %s: %zu instances, %zu processes bound, %u changes (%s, state %s)\n", name,
            r->n_instances, n_bound, r->steps, where, r->state_dir);
  }
}

int cmd_apply(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_apply, table);
  struct placer_apply_options opt = { 0 };
  placer_apply_faults_from_env(&opt.faults);
  const char *xml_path = NULL;
  bool json = false;
  struct placer_instance_arg *pids = NULL, *qmps = NULL;
  size_t n_pids = 0, n_qmps = 0;
  struct placer_apply_setting settings[sizeof(backend_settings) / sizeof(backend_settings[0])];
  size_t n_settings = 0;
  int opt_c, rc = PLACER_EXIT_USAGE;
  opterr = 0;
  while ((opt_c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt_c) {
    case 't': xml_path = optarg; break;
    case 'n': opt.dry_run = true; break;
    case 's': opt.strict = true; break;
    case 'j': json = true; break;
    case 'p':
      if (add_instance_arg("--pid", optarg, &pids, &n_pids) < 0)
        goto out;
      break;
    case 'q':
      if (add_instance_arg("--qmp", optarg, &qmps, &n_qmps) < 0)
        goto out;
      break;
    case 'd': opt.state_dir = optarg; break;
    case 'P':
      if (*optarg == '\0') { /* not "the default": a typo or an empty variable */
        fprintf(stderr, "placer apply: --cgroup-prefix is empty; name the top group (the default is placer)\n");
        goto out;
      }
      opt.prefix = optarg;
      break;
    case 'b':
      if (!placer_apply_backend_known(optarg)) {
        fprintf(stderr, "placer apply: --backend wants one of %s, got '%s'\n", PLACER_APPLY_BACKEND_NAMES, optarg);
        goto out;
      }
      opt.backend = optarg;
      break;
    case 'k':
    case 'r':
    case 'H':
    case 'T': add_setting(settings, &n_settings, opt_c, opt_c == 'k' ? NULL : optarg); break;
    case 'I':
      if (strcmp(optarg, "refuse") == 0) /* the default, spelled out by the boot unit */
        opt.irqbalance = PLACER_IRQBALANCE_REFUSE;
      else if (strcmp(optarg, "ban") == 0)
        opt.irqbalance = PLACER_IRQBALANCE_BAN;
      else if (strcmp(optarg, "ignore") == 0)
        opt.irqbalance = PLACER_IRQBALANCE_IGNORE;
      else {
        fprintf(stderr, "placer apply: --irqbalance wants refuse, ban or ignore, got '%s'\n", optarg);
        goto out;
      }
      break;
    case 'O': opt.irqs_only = true; break;
    case 'h': rc = placer_cli_print_help(&placer_cli_apply); goto out;
    default: rc = placer_usage_error("apply", opt_c, argc, argv); goto out;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "placer apply: missing PROFILE (see 'placer apply --help')\n");
    goto out;
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "placer apply: unexpected argument '%s'\n", argv[optind + 1]);
    goto out;
  }
  opt.pids = pids, opt.n_pids = n_pids, opt.qmps = qmps, opt.n_qmps = n_qmps;
  opt.settings = settings, opt.n_settings = n_settings;

  struct placer_error *err = NULL;
  struct placer_profile *profile = NULL;
  struct placer_topology *topo = NULL;
  struct placer_plan *plan = NULL;
  struct placer_apply_report *report = NULL;
  if (placer_profile_load(argv[optind], &profile, &err) < 0 || placer_topology_load(xml_path, &topo, &err) < 0 ||
      placer_plan_compute(topo, profile, &plan, &err) < 0 || placer_apply(plan, &opt, &report, &err) < 0) {
    rc = placer_error_report(err);
  } else {
    int print_rc = 0;
    if (json)
      print_rc = placer_print_json(placer_apply_report_json(report), stdout);
    else
      print_report(report, stdout);
    rc = placer_finish_output("apply", ferror(stdout) ? -1 : print_rc);
  }
  placer_apply_report_free(report);
  placer_plan_free(plan);
  placer_topology_free(topo);
  placer_profile_free(profile);
out:
  free_instance_args(pids, n_pids);
  free_instance_args(qmps, n_qmps);
  return rc;
}

int cmd_status(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_status, table);
  const char *state_dir = NULL;
  bool json = false;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'j': json = true; break;
    case 'd': state_dir = optarg; break;
    case 'h': return placer_cli_print_help(&placer_cli_status);
    default: return placer_usage_error("status", opt, argc, argv);
    }
  }
  if (optind < argc) {
    fprintf(stderr, "placer status: unexpected argument '%s'\n", argv[optind]);
    return PLACER_EXIT_USAGE;
  }
  struct placer_error *err = NULL;
  json_t *doc = NULL;
  bool drift = false;
  if (placer_status(state_dir, &doc, &drift, &err) < 0)
    return placer_error_report(err);
  int rc;
  if (json) {
    rc = placer_print_json(doc, stdout); /* takes DOC */
  } else {
    rc = placer_status_print_text(doc, stdout);
    json_decref(doc);
  }
  if (placer_finish_output("status", rc) != PLACER_EXIT_OK)
    return PLACER_EXIT_SYSTEM;
  return drift ? PLACER_EXIT_DRIFT : PLACER_EXIT_OK;
}

int cmd_reset(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_reset, table);
  const char *state_dir = NULL;
  bool json = false;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'j': json = true; break;
    case 'd': state_dir = optarg; break;
    case 'h': return placer_cli_print_help(&placer_cli_reset);
    default: return placer_usage_error("reset", opt, argc, argv);
    }
  }
  if (optind < argc) {
    fprintf(stderr, "placer reset: unexpected argument '%s'\n", argv[optind]);
    return PLACER_EXIT_USAGE;
  }
  struct placer_error *err = NULL;
  struct placer_reset_result res;
  if (placer_reset_run(state_dir, &res, &err) < 0)
    return placer_error_report(err);
  int print_rc = 0;
  if (json)
    print_rc = placer_print_json(placer_reset_result_json(&res), stdout);
  else
    for (size_t i = 0; i < res.n_lines; i++)
      printf("%s\n", res.lines[i]);
  placer_reset_result_clear(&res);
  return placer_finish_output("reset", ferror(stdout) ? -1 : print_rc);
}
