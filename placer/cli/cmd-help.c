/* placer help [--man] [COMMAND]: the overview, a command's --help, the man
 * pages in roff, the bash completion; CMake makes the installed man pages
 * and completion script with it, from the same tables as --help. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/commands.h"
#include "lib/error.h"

static const struct placer_cli_option help_options[] = {
  { "man", 'm', NULL, PLACER_CLI_TEXT,
    "Print the manual page of COMMAND (without one: placer(1)) in roff, as installed; "
    "placer help --man plan | man -l - shows it." },
  { "bash-completion", 'b', NULL, PLACER_CLI_TEXT,
    "Print the bash completion script, as installed in /usr/share/bash-completion/completions/placer; "
    "source <(placer help --bash-completion) loads it into the running shell." },
  { "commands", 'c', NULL, PLACER_CLI_TEXT, "Print the names of the commands, one a line." },
  { NULL, 0, NULL, 0, NULL },
};

const struct placer_cli_command placer_cli_help = {
  .name = "help",
  .run = cmd_help,
  .summary = "describe placer or a command; print the man pages or the bash completion",
  .synopsis = { "[COMMAND]", "--man [COMMAND]", "--bash-completion", "--commands" },
  .description = "Without options, what placer COMMAND --help prints, or without COMMAND the list of "
                 "commands. The manual pages and the bash completion script are made from the same "
                 "description of each command, so what they say about options agrees with --help.",
  .options = help_options,
  .operands = PLACER_CLI_COMMAND,
  .exit_status = "0 printed\n2 bad command line or unknown COMMAND",
  .examples = "Read the manual page of placer apply without installing placer:\n"
              "$ placer help --man apply | man -l -\n"
              "Complete placer's command lines in the running shell:\n"
              "$ source <(placer help --bash-completion)",
  .see_also = "man(1)",
};

int cmd_help(int argc, char **argv) {
  struct option table[PLACER_CLI_MAX_OPTIONS + 2];
  const struct option *options = placer_cli_getopt_table(&placer_cli_help, table);
  bool man = false, completion = false, commands = false;
  int opt;
  opterr = 0;
  optind = 0;
  while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
    switch (opt) {
    case 'm': man = true; break;
    case 'b': completion = true; break;
    case 'c': commands = true; break;
    case 'h': return placer_cli_print_help(&placer_cli_help);
    default: return placer_usage_error("help", opt, argc, argv);
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "placer help: unexpected argument '%s'\n", argv[optind + 1]);
    return PLACER_EXIT_USAGE;
  }
  if (man + completion + commands > 1 || ((completion || commands) && optind < argc)) {
    fprintf(stderr, "placer help: --man, --bash-completion and --commands go alone (see 'placer help --help')\n");
    return PLACER_EXIT_USAGE;
  }
  const struct placer_cli_command *cmd = NULL;
  if (optind < argc && (cmd = placer_cli_find(argv[optind])) == NULL) {
    fprintf(stderr, "placer help: unknown command '%s' (see 'placer --help')\n", argv[optind]);
    return PLACER_EXIT_USAGE;
  }
  int rc = 0;
  if (completion) {
    rc = placer_cli_print_bash_completion(stdout);
  } else if (commands) {
    for (size_t i = 0; i < placer_cli_n_commands; i++)
      printf("%s\n", placer_cli_commands[i]->name);
  } else if (man) {
    rc = placer_cli_print_man(cmd, stdout);
  } else if (cmd) {
    return placer_cli_print_help(cmd);
  } else {
    rc = placer_cli_print_overview(stdout);
  }
  return placer_finish_output("help", rc);
}
