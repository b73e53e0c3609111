/* A driver of the watcher's core (placer/watch/) for its tests and its
 * benchmark, until `placer watch` applies a profile through apply's
 * transaction (issue #40):
 *
 *   watchd [--scan] [--interval MS] [--metrics ADDR] [--metrics-file FILE] [--irq N:NAME]... RULE...
 *
 * RULE is INSTANCE=GROUP=CPUS=KIND:VALUE, e.g.
 * "storm=placer-t-x/w/storm=1=cmdline:storm-child m placer-t-x *" (KIND
 * cmdline, ceph-id, qemu-name, pidfile or container, as a profile's match:
 * keys; CPUS "-" for unpinned).  In the order `placer watch` will follow:
 * the watcher is made first (a metrics address in use or malformed: one
 * line, exit 2, nothing created), then each rule's group is created with
 * its cpus and the root's mems (what apply does, here by hand), then the
 * watcher runs until SIGTERM (exit 0) or SIGINT (130), leaving the groups
 * and what it placed in them: the test removes them.  One line per action
 * on stdout. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup.h"
#include "watch/watch.h"

#define MAX_RULES 16
#define MAX_IRQS 16

static void log_line(void *ctx, const char *line) {
  (void)ctx;
  printf("%s\n", line);
  fflush(stdout);
}

static int die(struct placer_error *err) {
  fprintf(stderr, "watchd: %s\n", err && err->msg ? err->msg : "error");
  int code = err ? err->exit_code : 4;
  placer_error_free(err);
  return code;
}

static int usage(const char *why) {
  fprintf(stderr,
          "watchd: %s\nusage: watchd [--scan] [--interval MS] [--metrics ADDR] [--metrics-file FILE] "
          "[--irq N:NAME]... INSTANCE=GROUP=CPUS=KIND:VALUE...\n",
          why);
  return 2;
}

static const struct {
  const char *name;
  enum placer_match_kind kind;
} kinds[] = {
  { "cmdline", PLACER_MATCH_CMDLINE }, { "ceph-id", PLACER_MATCH_CEPH_ID },     { "qemu-name", PLACER_MATCH_QEMU_NAME },
  { "pidfile", PLACER_MATCH_PIDFILE }, { "container", PLACER_MATCH_CONTAINER },
};

/* INSTANCE=GROUP=CPUS=KIND:VALUE, split in place; the role is the
 * instance's name up to its first dot, in ROLE. */
static int parse_rule(char *text, struct placer_watch_rule *r, char role[64]) {
  char *group = strchr(text, '=');
  char *cpus = group ? strchr(group + 1, '=') : NULL;
  char *kind = cpus ? strchr(cpus + 1, '=') : NULL;
  char *value = kind ? strchr(kind + 1, ':') : NULL;
  if (value == NULL)
    return -1;
  *group++ = *cpus++ = *kind++ = *value++ = '\0';
  *r = (struct placer_watch_rule){ .instance = text, .group = group, .cpus = strcmp(cpus, "-") ? cpus : NULL };
  r->kind = strncmp(text, "osd.", 4) == 0 ? PLACER_KIND_CEPH_OSD : PLACER_KIND_GENERIC;
  snprintf(role, 64, "%.*s", (int)strcspn(text, "."), text);
  r->role = role;
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (strcmp(kind, kinds[i].name) == 0) {
      r->match = (struct placer_match){ kinds[i].kind, value };
      return 0;
    }
  return -1;
}

int main(int argc, char **argv) {
  struct placer_watch_options opts = { 0 };
  struct placer_watch_rule rules[MAX_RULES];
  char roles[MAX_RULES][64];
  struct placer_watch_irq irqs[MAX_IRQS];
  size_t n_rules = 0, n_irqs = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--scan") == 0) {
      opts.scan = true;
    } else if (strcmp(a, "--interval") == 0 && v) {
      opts.interval_ms = (unsigned)atoi(v), i++;
    } else if (strcmp(a, "--metrics") == 0 && v) {
      opts.metrics_addr = v, i++;
    } else if (strcmp(a, "--metrics-file") == 0 && v) {
      opts.metrics_file = v, i++;
    } else if (strcmp(a, "--irq") == 0 && v && n_irqs < MAX_IRQS) {
      char *colon = strchr(v, ':');
      irqs[n_irqs++] = (struct placer_watch_irq){ (unsigned)atoi(v), colon ? colon + 1 : "" };
      i++;
    } else if (a[0] != '-' && n_rules < MAX_RULES) {
      if (parse_rule(argv[i], &rules[n_rules], roles[n_rules]) < 0)
        return usage("a rule is INSTANCE=GROUP=CPUS=KIND:VALUE");
      n_rules++;
    } else {
      return usage("unknown option or too many rules");
    }
  }
  if (n_rules == 0)
    return usage("no rule");

  struct placer_error *err = NULL;
  struct placer_cgroup *cg = NULL;
  if (placer_cgroup_open(NULL, &cg, &err) < 0)
    return die(err);
  struct placer_watch_hooks hooks = { .log = log_line };
  struct placer_watch *w = NULL;
  if (placer_watch_new(&opts, &hooks, cg, &w, &err) < 0 || placer_watch_set_rules(w, rules, n_rules, &err) < 0 ||
      placer_watch_set_irqs(w, irqs, n_irqs, &err) < 0) {
    placer_watch_free(w);
    placer_cgroup_close(cg);
    return die(err);
  }
  /* What apply does before watch keeps it: the groups, with their values. */
  char *mems = NULL;
  if (placer_cgroup_read_effective(cg, "", NULL, &mems, &err) < 0)
    goto fail;
  for (size_t i = 0; i < n_rules; i++) {
    const struct placer_watch_rule *r = &rules[i];
    if (placer_cgroup_create(cg, r->group, &err) < 0 ||
        (r->cpus && placer_cgroup_set_cpus(cg, r->group, r->cpus, &err) < 0) ||
        placer_cgroup_set_mems(cg, r->group, mems, &err) < 0)
      goto fail;
  }
  free(mems);
  mems = NULL;
  int signo = 0;
  if (placer_watch_run(w, &signo, &err) < 0)
    goto fail;
  placer_watch_free(w);
  placer_cgroup_close(cg);
  return signo == SIGINT ? 130 : 0;
fail:
  free(mems);
  placer_watch_free(w);
  placer_cgroup_close(cg);
  return die(err);
}
