/* placer apply / status / reset: option parsing and printing; the work is
 * in apply.c, status.c and apply-undo.c. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "cli/commands.h"
#include "plan.h"
#include "profile.h"
#include "state.h"
#include "topology.h"
#include "lib/units.h"

static const char apply_usage[] =
    "usage: placer apply PROFILE [--topology FILE.xml] [--dry-run] [--strict] [--json]\n"
    "                    [--pid INSTANCE=PID]... [--qmp INSTANCE=SOCKET]...\n"
    "                    [--state-dir DIR] [--cgroup-prefix PATH]\n"
    "                    [--backend auto|cgroupfs|systemd] [--persist]\n"
    "                    [--restart rolling [--health-cmd CMD] [--health-timeout S]]\n"
    "                    [--irqbalance refuse|ban|ignore] [--irqs-only]\n"
    "Plan PROFILE for this node, check that the whole plan can be applied, then put it in\n"
    "force with cgroups: groups PREFIX/ROLE/INSTANCE with the planned cpus, mems, memory\n"
    "limit and cpu weight, every matching process (all its threads) moved in, VM vCPU threads\n"
    "pinned one per PU.  A failure part-way rolls everything back.  Applying the same plan\n"
    "again changes nothing.\n"
    "  --dry-run            print what would change; change nothing\n"
    "  --json               print the result as one JSON document (docs/apply.md)\n"
    "  --strict             an instance with no running process is an error\n"
    "  --pid INSTANCE=PID   bind PID to INSTANCE instead of using the profile's matcher\n"
    "  --qmp INSTANCE=SOCK  ask this QMP socket for the VM's vCPU threads\n"
    "  --state-dir DIR      state and lock (default $PLACER_STATE_DIR or /run/placer)\n"
    "  --cgroup-prefix PATH top group (default $PLACER_CGROUP_PREFIX or 'placer')\n"
    "  --backend NAME       cgroupfs: placer's own groups; systemd: the daemons' units through\n"
    "                       systemctl set-property --runtime; auto (default): systemd when PID 1\n"
    "                       is systemd, else cgroupfs\n"
    "  --persist            systemd: also drop-ins /etc/systemd/system/UNIT.d/50-placer.conf, so\n"
    "                       the placement survives a daemon restart and a reboot\n"
    "  --restart rolling    systemd: then restart the units one at a time, healthy in between,\n"
    "                       and check every thread\n"
    "  --health-cmd CMD     with --restart: sh -c CMD must exit 0 before and after each restart\n"
    "                       (Ceph: 'ceph health | grep -q HEALTH_OK')\n"
    "  --health-timeout S   how long to wait for health and for each unit (default 300)\n"
    "  --irqbalance MODE    when irqbalance runs and the profile steers IRQs (irqs:): ban keeps it\n"
    "                       off them and off the instances' cpus and restarts it; ignore goes on\n"
    "                       (it may move them again); refuse (the default): apply refuses\n"
    "  --irqs-only          steer the profile's IRQs only (what the boot unit of --persist runs)\n";

static const char status_usage[] =
    "usage: placer status [--json] [--state-dir DIR]\n"
    "For every applied instance: planned against actual group values, where each process\n"
    "is, and every thread's Cpus_allowed_list / Mems_allowed_list.  Exit 0 when all match,\n"
    "1 when anything drifted.\n";

static const char reset_usage[] = "usage: placer reset [--json] [--state-dir DIR]\n"
                                  "Undo what apply did: processes back to their original groups, changed values back,\n"
                                  "placer's groups removed.  Works after an interrupted apply; safe to run twice.\n";

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
    if (r->backend && strcmp(r->backend, "systemd") == 0 && ri->group)
      fprintf(out, "unit %s: ", ri->group);
    if (ri->n_bound == 0)
      fprintf(out, "%s", ri->note ? ri->note : "no process");
    for (size_t k = 0; k < ri->n_bound; k++) {
      fprintf(out, "%s pid %d %s (%zu thread%s)",
              k            ? ","
              : r->dry_run ? "would bind"
                           : "bound",
              (int)ri->bound[k].pid, ri->bound[k].comm ? ri->bound[k].comm : "?", ri->bound[k].n_threads,
              ri->bound[k].n_threads == 1 ? "" : "s");
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
    fprintf(out, "irq %-6u %s (%s%s%s): ", q->irq, q->name, q->device, q->instance ? ", " : "",
            q->instance ? q->instance : "");
    if (q->note)
      fprintf(out, "%s\n", q->note);
    else if (q->managed)
      fprintf(out, "managed by the kernel, completes on cpu %s\n", q->effective ? q->effective : "?");
    else if (q->changed)
      fprintf(out, "%s cpus %s (was %s)\n", r->dry_run ? "would be on" : "on", q->to, q->from ? q->from : "?");
    else
      fprintf(out, "on cpus %s already\n", q->to);
  }
  /* through systemd, what was done is a handful of commands: show them */
  for (size_t i = 0; !r->dry_run && r->backend && strcmp(r->backend, "systemd") == 0 && i < r->n_actions; i++)
    fprintf(out, "done: %s\n", r->actions[i]);
  for (size_t i = 0; i < r->n_notes; i++)
    fprintf(out, "note: %s\n", r->notes[i]);
  const char *name = r->profile_name ? r->profile_name : "?";
  char where[64];
  if (r->backend && strcmp(r->backend, "systemd") == 0)
    snprintf(where, sizeof(where), "systemd units");
  else if (r->backend && strcmp(r->backend, "irqs") == 0)
    snprintf(where, sizeof(where), "IRQs only");
  else
    snprintf(where, sizeof(where), "cgroup %s", r->cgroup_mode);
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
  static const struct option options[] = {
    { "topology", required_argument, NULL, 't' },
    { "dry-run", no_argument, NULL, 'n' },
    { "strict", no_argument, NULL, 's' },
    { "json", no_argument, NULL, 'j' },
    { "pid", required_argument, NULL, 'p' },
    { "qmp", required_argument, NULL, 'q' },
    { "state-dir", required_argument, NULL, 'd' },
    { "cgroup-prefix", required_argument, NULL, 'P' },
    { "backend", required_argument, NULL, 'b' },
    { "persist", no_argument, NULL, 'k' },
    { "restart", required_argument, NULL, 'r' },
    { "health-cmd", required_argument, NULL, 'H' },
    { "health-timeout", required_argument, NULL, 'T' },
    { "irqbalance", required_argument, NULL, 'I' },
    { "irqs-only", no_argument, NULL, 'O' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct placer_apply_options opt = { 0 };
  placer_apply_faults_from_env(&opt.faults);
  const char *xml_path = NULL;
  bool json = false;
  struct placer_instance_arg *pids = NULL, *qmps = NULL;
  size_t n_pids = 0, n_qmps = 0;
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
    case 'P': opt.prefix = optarg; break;
    case 'b':
      if (placer_apply_backend_parse(optarg, &opt.backend) < 0) {
        fprintf(stderr, "placer apply: --backend wants auto, cgroupfs or systemd, got '%s'\n", optarg);
        goto out;
      }
      break;
    case 'k': opt.persist = true; break;
    case 'r':
      if (strcmp(optarg, "rolling") != 0) {
        fprintf(stderr, "placer apply: --restart wants 'rolling', got '%s'\n", optarg);
        goto out;
      }
      opt.restart_rolling = true;
      break;
    case 'H': opt.health_cmd = optarg; break;
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
    case 'T': {
      char *end = NULL;
      unsigned long s = strtoul(optarg, &end, 10);
      if (end == optarg || *end || s == 0 || s > 86400) {
        fprintf(stderr, "placer apply: --health-timeout wants seconds (1..86400), got '%s'\n", optarg);
        goto out;
      }
      opt.health_timeout_s = (unsigned)s;
      break;
    }
    case 'h':
      fputs(apply_usage, stdout);
      rc = PLACER_EXIT_OK;
      goto out;
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
  if ((opt.health_cmd || opt.health_timeout_s) && !opt.restart_rolling) {
    fprintf(stderr, "placer apply: --health-cmd and --health-timeout go with --restart rolling\n");
    goto out;
  }

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
  static const struct option options[] = {
    { "json", no_argument, NULL, 'j' },
    { "state-dir", required_argument, NULL, 'd' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *state_dir = NULL;
  bool json = false;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'j': json = true; break;
    case 'd': state_dir = optarg; break;
    case 'h': fputs(status_usage, stdout); return PLACER_EXIT_OK;
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
  static const struct option options[] = {
    { "json", no_argument, NULL, 'j' },
    { "state-dir", required_argument, NULL, 'd' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *state_dir = NULL;
  bool json = false;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'j': json = true; break;
    case 'd': state_dir = optarg; break;
    case 'h': fputs(reset_usage, stdout); return PLACER_EXIT_OK;
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
