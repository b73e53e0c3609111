/* Helpers shared by the subcommands' option parsing. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "apply/apply.h"
#include "lib/error.h"
#include "plan/plan.h"
#include "profile/profile.h"

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
  /* 6 digits: a plan's cpu_share 0.3333 prints so, not as 0.33329999999999999. */
  int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
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

static bool env_unsigned(const char *name, unsigned *out) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0')
    return false;
  char *end;
  errno = 0;
  unsigned long n = strtoul(v, &end, 10);
  if (*end != '\0' || errno || n > UINT_MAX || *v == '-')
    return false;
  *out = (unsigned)n;
  return true;
}

void placer_apply_faults_from_env(struct placer_apply_faults *out) {
  *out = (struct placer_apply_faults){ 0 };
  out->fail = env_unsigned("PLACER_FAULT_AFTER_STEPS", &out->after_steps);
  const char *mode = getenv("PLACER_FAULT_MODE");
  out->sigkill = mode && strcmp(mode, "sigkill") == 0;
  env_unsigned("PLACER_STEP_DELAY_MS", &out->step_delay_ms);
}

int placer_error_report(struct placer_error *err) {
  if (err == NULL)
    return PLACER_EXIT_OK;
  fprintf(stderr, "placer: %s\n", err->msg);
  int code = err->exit_code ? err->exit_code : PLACER_EXIT_SYSTEM;
  placer_error_free(err);
  return code;
}

int placer_cli_load_plan(const char *profile_path, const char *const *sets, size_t n_sets, const char *xml_path,
                         struct placer_profile **profile, struct placer_topology **topo, struct placer_plan **plan,
                         struct placer_error **err) {
  *profile = NULL;
  *topo = NULL;
  *plan = NULL;
  int rc = placer_profile_load(profile_path, profile, err);
  for (size_t i = 0; rc == 0 && i < n_sets; i++)
    rc = placer_profile_set(*profile, sets[i], err);
  if (rc == 0)
    rc = placer_topology_load(xml_path, topo, err);
  if (rc == 0)
    rc = placer_plan_compute(*topo, *profile, plan, err);
  if (rc < 0) {
    placer_profile_free(*profile);
    placer_topology_free(*topo);
    *profile = NULL;
    *topo = NULL;
  }
  return rc;
}

int placer_cli_add_set(struct placer_cli_sets *sets, const char *command, const char *value) {
  if (sets->n == PLACER_CLI_MAX_SETS) {
    fprintf(stderr, "placer %s: at most %d --set\n", command, PLACER_CLI_MAX_SETS);
    return -1;
  }
  sets->items[sets->n++] = value;
  return 0;
}
