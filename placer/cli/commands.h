/* The subcommands; main.c dispatches to these through one static table.
 * Each returns a process exit code (enum placer_exit) and prints its own
 * errors through placer_error_report(). */
#ifndef PLACER_COMMANDS_H
#define PLACER_COMMANDS_H

#include <jansson.h>
#include <stdio.h>

#include "lib/error.h"

int cmd_topo(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* --threshold: "5%", "5" or "0.05" as a fraction in (0, 1); -1 when not one. */
int placer_cli_parse_threshold(const char *s, double *out);
int cmd_size(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Subcommands parse options with getopt_long(argc, argv, ":", ...) (options
 * may follow operands, as users expect; "+:" only for commands that pass a
 * command line through after "--") and opterr = 0; on '?' or ':' they return
 * placer_usage_error(): one precise line on stderr, exit 2. */
int placer_usage_error(const char *command, int getopt_rc, int argc, char **argv);

/* Print "placer: MSG" on stderr, free ERR, return its exit code: where the
 * errors of the library (which never prints) end up. */
int placer_error_report(struct placer_error *err);

/* Print DOC indented with keys in insertion order and a newline; takes DOC
 * (NULL fails).  -1 when writing failed. */
int placer_print_json(json_t *doc, FILE *out);
/* Flush stdout; when PRINT_RC < 0 or flushing fails, one line on stderr and
 * PLACER_EXIT_SYSTEM, else PLACER_EXIT_OK. */
int placer_finish_output(const char *command, int print_rc);

/* A crash or hang of hwloc's XML importer on a user's file becomes one
 * error line and exit 2 (xml-guard.c); main() calls it once. */
void placer_cli_guard_xml_loads(void);

/* apply's test hooks from PLACER_FAULT_AFTER_STEPS, PLACER_FAULT_MODE=sigkill
 * and PLACER_STEP_DELAY_MS (docs/apply.md); all off when unset. */
struct placer_apply_faults;
void placer_apply_faults_from_env(struct placer_apply_faults *out);

#endif
