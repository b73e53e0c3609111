/* The subcommands; main.c dispatches to these through one static table.
 * Each returns a process exit code (enum placer_exit) and prints its own
 * errors through placer_error_report(). */
#ifndef PLACER_COMMANDS_H
#define PLACER_COMMANDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"

/* ------------------------------------------------------------ documentation
 * Each command is described once, by a struct placer_cli_command in its
 * cmd-*.c: its synopsis, description, options (name, getopt value, value
 * name, help), exit codes and examples.  getopt's option table, the text of
 * `placer CMD --help`, the man page placer-CMD(1) (`placer help --man CMD`)
 * and the bash completion (`placer help --bash-completion`) are all made
 * from it, so they cannot disagree (docs/ARCHITECTURE.md). */

/* What completes a value or an operand on the command line. */
enum placer_cli_complete {
  PLACER_CLI_TEXT = 0, /* a flag, or free text: nothing to offer */
  PLACER_CLI_XML,      /* *.xml files (and directories, to walk into) */
  PLACER_CLI_YAML,     /* *.yaml and *.yml files */
  PLACER_CLI_PROFILE,  /* *.yaml files and the names of the shipped profiles */
  PLACER_CLI_JSON,     /* *.json files */
  PLACER_CLI_DIR,      /* directories */
  PLACER_CLI_WORDS,    /* one of the words of the value's name: "auto|cgroupfs|systemd" */
  PLACER_CLI_COMMAND,  /* a placer command */
};

struct placer_cli_option {
  const char *name; /* the long name, without "--"; NULL ends a table */
  int val;          /* what getopt_long() returns for it */
  const char *arg;  /* the value's name ("FILE.xml"); NULL for a flag */
  enum placer_cli_complete complete;
  const char *help; /* one paragraph, sentences */
};

#define PLACER_CLI_MAX_OPTIONS 31

struct placer_cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;                     /* one line: placer --help, the man page's NAME */
  const char *synopsis[4];                 /* the command's forms after "placer NAME" */
  const char *description;                 /* paragraphs separated by a blank line */
  const struct placer_cli_option *options; /* --help is added to every command */
  enum placer_cli_complete operands;       /* what completes an operand */
  const char *exit_status;                 /* lines "CODE what it means" */
  const char *examples;                    /* "$ command line" lines, each followed by what it does */
  const char *environment;                 /* lines "NAME what it changes"; NULL: no such section */
  const char *files;                       /* lines "PATH what it holds"; NULL: no such section */
  const char *see_also;                    /* other pages, "placer-apply(1), lstopo(1)"; placer(1) is added */
};

/* placer(1) itself: what placer --help and the page's own sections say. */
extern const struct placer_cli_command placer_cli_main;

/* Every command, in the order placer --help lists them (main.c). */
extern const struct placer_cli_command *const placer_cli_commands[];
extern const size_t placer_cli_n_commands;

/* getopt_long()'s table for CMD's options plus --help ('h'), in OUT (at least
 * PLACER_CLI_MAX_OPTIONS + 2 entries); returns OUT. */
struct option;
const struct option *placer_cli_getopt_table(const struct placer_cli_command *cmd, struct option *out);
/* `placer CMD --help` on stdout; returns the exit code (0, or 4 when writing failed). */
int placer_cli_print_help(const struct placer_cli_command *cmd);
/* placer --help: the commands and their summaries. */
int placer_cli_print_overview(FILE *out);
/* The man page of CMD (NULL: placer(1)) in roff; -1 when writing failed. */
int placer_cli_print_man(const struct placer_cli_command *cmd, FILE *out);
/* The bash completion script; -1 when writing failed. */
int placer_cli_print_bash_completion(FILE *out);
/* The command called NAME, or NULL. */
const struct placer_cli_command *placer_cli_find(const char *name);

extern const struct placer_cli_command placer_cli_topo, placer_cli_plan, placer_cli_export, placer_cli_apply,
    placer_cli_status, placer_cli_reset, placer_cli_run, placer_cli_stop, placer_cli_exec, placer_cli_bench,
    placer_cli_compare, placer_cli_report, placer_cli_size, placer_cli_help, placer_cli_watch;

int cmd_topo(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* --threshold: "5%", "5" or "0.05" as a fraction in (0, 1); -1 when not one. */
int placer_cli_parse_threshold(const char *s, double *out);
int cmd_size(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* Subcommands parse options with getopt_long(argc, argv, ":", ...) (options
 * may follow operands, as users expect; "+:" only for commands that pass a
 * command line through after "--") and opterr = 0; on '?' or ':' they return
 * placer_usage_error(): one precise line on stderr, exit 2. */
int placer_usage_error(const char *command, int getopt_rc, int argc, char **argv);

/* The --set ROLE.KEY=VALUE assignments of plan, export and exec, in order. */
#define PLACER_CLI_MAX_SETS 64
struct placer_cli_sets {
  const char *items[PLACER_CLI_MAX_SETS];
  size_t n;
};
/* Add VALUE; past PLACER_CLI_MAX_SETS one line on stderr and -1 (exit 2). */
int placer_cli_add_set(struct placer_cli_sets *sets, const char *command, const char *value);

/* PROFILE loaded, the --set assignments SETS[0..N_SETS) applied, the topology
 * (XML_PATH, or live when NULL) loaded and the plan computed: what plan and
 * export start from.  On failure nothing is returned (all freed) and ERR set. */
struct placer_profile;
struct placer_topology;
struct placer_plan;
int placer_cli_load_plan(const char *profile_path, const char *const *sets, size_t n_sets, const char *xml_path,
                         struct placer_profile **profile, struct placer_topology **topo, struct placer_plan **plan,
                         struct placer_error **err);

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
