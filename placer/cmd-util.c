/* Helpers shared by the subcommands' option parsing. */
#include <getopt.h>
#include <stdio.h>

#include "commands.h"
#include "error.h"

int placer_usage_error(const char *command, int getopt_rc, int argc, char **argv) {
  const char *arg = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "";
  if (getopt_rc == ':')
    fprintf(stderr, "placer %s: option '%s' needs a value\n", command, arg);
  else if (optopt)
    fprintf(stderr, "placer %s: unknown option '-%c' (see 'placer %s --help')\n", command, optopt, command);
  else
    fprintf(stderr, "placer %s: unknown option '%s' (see 'placer %s --help')\n", command, arg, command);
  return PLACER_EXIT_USAGE;
}
