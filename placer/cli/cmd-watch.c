/* placer watch: option parsing and the log on stdout; the work is in
 * watch/watch-apply.c, on the watcher's core (watch/watch.h). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply.h"
#include "cli/commands.h"
#include "watch/watch-apply.h"

static const struct placer_cli_option watch_options[] = {
  { "state-dir", 'd', "DIR", PLACER_CLI_DIR,
    "Where the state, its journal and the lock are kept (default $PLACER_STATE_DIR, else /run/placer)." },
  { "on-drift", 'o', "fix|report", PLACER_CLI_WORDS,
    "What to do about a group value or a steered IRQ someone changed: fix (the default) puts it back; report "
    "counts and logs it and leaves it." },
  { "metrics", 'm', "ADDR", PLACER_CLI_TEXT,
    "Serve the metrics in Prometheus's text format at http://ADDR/metrics: HOST:PORT with an IPv4 address or "
    "localhost, [IPv6]:PORT, or :PORT for 127.0.0.1 (port 0: the kernel picks one, the log says which)." },
  { "metrics-file", 'f', "FILE", PLACER_CLI_TEXT,
    "Also write them to FILE every interval, atomically (name it *.prom for node_exporter's textfile collector)." },
  { "interval", 'i', "MS", PLACER_CLI_TEXT,
    "How often the group values and IRQs are checked, the pid files read, the metrics file written, and /proc "
    "scanned where the proc connector is not available (default 2000, 10 to 3600000)." },
  { "backend", 'b', PLACER_APPLY_BACKEND_NAMES, PLACER_CLI_WORDS,
    "Who puts the profile in force, as placer apply's --backend: auto (the default) is systemd where PID 1 is "
    "systemd (/run/systemd/system exists), else cgroupfs. systemd sets each instance's unit's properties and moves "
    "no process; cgroupfs moves processes into placer's own groups." },
  { "scan", 's', NULL, PLACER_CLI_TEXT,
    "Scan /proc every interval even where the kernel's proc connector is available (short processes are "
    "missed)." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_watch = {
  .name = "watch",
  .run = cmd_watch,
  .summary = "apply a profile and keep it in force as processes, groups and IRQs change",
  .synopsis = { "[--state-dir DIR] [--on-drift fix|report] [--metrics ADDR] [--metrics-file FILE] [--interval MS] "
                "[--backend BACKEND] [--scan] PROFILE" },
  .description =
      "Apply PROFILE as placer apply does (the same transaction and state, through the backend --backend names: "
      "systemd where PID 1 is systemd, else cgroupfs), then stay in the foreground and keep it in force: every "
      "process that starts and matches an instance (seen through the kernel's proc connector, else a scan of /proc "
      "every interval) is placed: with cgroupfs moved into its group with its threads and descendants, journaled so "
      "that placer reset puts it back; with systemd its unit (a service or a scope) gets the instance's properties "
      "with systemctl set-property --runtime, recorded first so that placer reset sets them back, and the process "
      "stays in its unit (a process in no unit, in init.scope or in another instance's unit is logged and left). "
      "Every interval the groups' values (or the units' properties) and the steered IRQs' affinities are compared "
      "with the plan and put back (or, with --on-drift report, counted and logged), and a new IRQ of the profile's "
      "devices plans the profile again, which steers it. An instance with no process is said, not an error. One "
      "line per action on standard output.\n\n"
      "The state lock is held for the watcher's whole life: placer apply, placer reset and a second watcher on "
      "the same state directory are refused meanwhile. SIGHUP reads PROFILE again: a valid one that fits is "
      "applied as a transaction, else one line is logged and the running plan stays. SIGTERM and SIGINT end it "
      "with the plan left in force; placer reset undoes it all afterwards, also after a watcher killed with -9 "
      "(a new one continues from the journal).",
  .options = watch_options,
  .operands = PLACER_CLI_YAML,
  .exit_status = "0 stopped by SIGTERM or SIGINT, the plan left in force\n"
                 "2 bad command line or profile; a metrics address malformed or in use; a metrics file in no "
                 "directory; what placer apply refuses with 2 (another profile applied)\n"
                 "3 the plan does not fit this node; with the systemd backend, a process of an instance already "
                 "running in no unit or in init.scope, or PID 1 not systemd\n"
                 "4 not root; the state lock held (another watcher, an apply or a reset); the system refused a "
                 "change (everything rolled back)",
  .examples = "Keep a profile in force, with metrics for Prometheus on port 9101:\n"
              "$ placer watch --metrics :9101 /etc/placer/profile.yaml\n"
              "Only say what drifts, into a file node_exporter reads:\n"
              "$ placer watch --on-drift report --metrics-file /var/lib/node_exporter/placer.prom profile.yaml\n"
              "As a service (the Debian package ships the unit):\n"
              "$ systemctl enable --now placer-watch.service",
  .environment = "PLACER_STATE_DIR the state directory when --state-dir is not given\n"
                 "PLACER_CGROUP_PREFIX the top group of placer's groups",
  .files = "/etc/placer/profile.yaml the profile placer-watch.service keeps in force",
  .see_also = "placer-apply(1), placer-status(1), placer-reset(1)",
};

static void log_line(void *ctx, const char *line) {
  (void)ctx;
  printf("%s\n", line);
  fflush(stdout);
}

int cmd_watch(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_watch, table);
  struct placer_watch_apply_options opt = { .log = log_line };
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (c) {
    case 'd': opt.state_dir = optarg; break;
    case 'o':
      if (strcmp(optarg, "fix") != 0 && strcmp(optarg, "report") != 0) {
        fprintf(stderr, "placer watch: --on-drift wants fix or report, got '%s'\n", optarg);
        return PLACER_EXIT_USAGE;
      }
      opt.report_only = strcmp(optarg, "report") == 0;
      break;
    case 'm': opt.watch.metrics_addr = optarg; break;
    case 'f': opt.watch.metrics_file = optarg; break;
    case 'i': {
      char *end = NULL;
      unsigned long ms = strtoul(optarg, &end, 10);
      if (*optarg < '0' || *optarg > '9' || *end != '\0' || ms < PLACER_WATCH_INTERVAL_MS_MIN ||
          ms > PLACER_WATCH_INTERVAL_MS_MAX) {
        fprintf(stderr, "placer watch: --interval wants milliseconds from %u to %u, got '%s'\n",
                PLACER_WATCH_INTERVAL_MS_MIN, PLACER_WATCH_INTERVAL_MS_MAX, optarg);
        return PLACER_EXIT_USAGE;
      }
      opt.watch.interval_ms = (unsigned)ms;
      break;
    }
    case 's': opt.watch.scan = true; break;
    case 'b':
      if (!placer_apply_backend_known(optarg)) {
        fprintf(stderr, "placer watch: --backend wants one of %s, got '%s'\n", PLACER_APPLY_BACKEND_NAMES, optarg);
        return PLACER_EXIT_USAGE;
      }
      opt.backend = optarg;
      break;
    case 'h': return placer_cli_print_help(&placer_cli_watch);
    default: return placer_usage_error("watch", c, argc, argv);
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "placer watch: missing PROFILE (see 'placer watch --help')\n");
    return PLACER_EXIT_USAGE;
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "placer watch: unexpected argument '%s'\n", argv[optind + 1]);
    return PLACER_EXIT_USAGE;
  }
  opt.profile_path = argv[optind];
  struct placer_error *err = NULL;
  int signo = 0;
  if (placer_watch_apply(&opt, &signo, &err) < 0)
    return placer_error_report(err);
  return PLACER_EXIT_OK;
}
