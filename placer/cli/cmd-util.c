/* Helpers shared by the subcommands' option parsing. */
#include <getopt.h>
#include <stdio.h>

#include "cli/commands.h"
#include "lib/error.h"

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

int placer_print_json(json_t *doc, FILE *out) {
  if (doc == NULL)
    return -1;
  int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(doc);
  if (rc < 0 || fputc('\n', out) == EOF)
    return -1;
  return 0;
}

int placer_finish_output(const char *command, int print_rc) {
  if (print_rc < 0 || fflush(stdout) != 0) {
    fprintf(stderr, "placer %s: writing output failed\n", command);
    return PLACER_EXIT_SYSTEM;
  }
  return PLACER_EXIT_OK;
}
