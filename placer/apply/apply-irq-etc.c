/* Shared by both apply backends: what placer writes under /etc for the IRQ
 * placement, each file journaled before it is written (apply-irq.h):
 * irqbalance's ban (a drop-in where systemd runs irqbalance, else a marked
 * block in /etc/default/irqbalance and the init script's restart) and the
 * boot unit of --persist. Every file names the state directory it belongs
 * to, so that a reset after a reboot (which forgot the journal in /run)
 * still finds and removes it. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "lib/cpulist.h"
#include "lib/fsfile.h"
#include "lib/subprocess.h"
#include "lib/textfile.h"

#define IRQBALANCE_UNIT "irqbalance.service"
#define BLOCK_BEGIN "# placer: begin (state "
#define BLOCK_END "# placer: end\n"

pid_t irq_irqbalance_pid(const char *root) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s/proc", root);
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0;
  pid_t found = 0;
  struct dirent *de;
  while (found == 0 && (de = readdir(d)) != NULL) {
    if (de->d_name[0] < '1' || de->d_name[0] > '9')
      continue;
    char path[PATH_MAX + 300];
    snprintf(path, sizeof(path), "%s/%s/stat", dir, de->d_name);
    cleanup_free char *stat = NULL;
    if (placer_textfile_read_path(path, 4096, &stat, NULL) < 0)
      continue;
    /* "PID (comm) S ...": a zombie irqbalance moves nothing */
    const char *close = strrchr(stat, ')');
    if (strstr(stat, "(irqbalance)") && close && close[1] == ' ' && close[2] != 'Z')
      found = (pid_t)strtol(de->d_name, NULL, 10);
  }
  closedir(d);
  return found;
}

/* Each command of irqbalance's, at most this long. */
#define COMMAND_TIMEOUT_MS 60000

int irq_run_action(const struct irq_etc *etc, enum placer_journal_action action, struct placer_error **err) {
  switch (action) {
  case PLACER_ACTION_DAEMON_RELOAD: {
    char *argv[] = { (char *)etc->systemctl, "daemon-reload", NULL };
    return apply_systemctl(argv, COMMAND_TIMEOUT_MS, NULL, err);
  }
  case PLACER_ACTION_RESTART_IRQBALANCE_UNIT: {
    char *argv[] = { (char *)etc->systemctl, "try-restart", IRQBALANCE_UNIT, NULL };
    return apply_systemctl(argv, COMMAND_TIMEOUT_MS, NULL, err);
  }
  case PLACER_ACTION_RESTART_IRQBALANCE_SCRIPT: {
    char *argv[] = { (char *)etc->initd, "restart", NULL };
    return apply_systemctl(argv, COMMAND_TIMEOUT_MS, NULL, err); /* any command: its exit status and stderr */
  }
  }
  return 0;
}

/* ------------------------------------------------------------------ journaled files */

static char *read_or_null(const char *path, int *saved_errno) {
  char *text = NULL;
  *saved_errno = 0;
  if (placer_textfile_read_path(path, 1 << 20, &text, NULL) < 0) {
    *saved_errno = errno;
    return NULL;
  }
  return text;
}

/* Journal an action (undone after what is journaled later). */
static int journal_action(struct placer_state *s, unsigned txn, enum placer_journal_action action,
                          struct placer_error **err) {
  struct placer_journal_entry e = { .txn = txn, .op = PLACER_JOURNAL_ACTION, .action = action };
  return placer_state_journal_add(s, &e, err);
}

/* Write TEXT to PATH (atomically), journaled with what it held before.  *changed is
 * false when it already held TEXT (nothing journaled, nothing written). */
static int write_journaled(struct placer_state *s, unsigned txn, const char *path, const char *text, bool *changed,
                           struct placer_error **err) {
  int saved;
  cleanup_free char *before = read_or_null(path, &saved);
  if (before == NULL && saved != ENOENT)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "read %s", path);
  *changed = before == NULL || strcmp(before, text) != 0;
  if (!*changed)
    return 0;
  cleanup_free char *dir = strdup(path);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  char *slash = strrchr(dir, '/');
  *slash = '\0';
  struct stat st;
  bool make_dir = stat(dir, &st) < 0;
  struct placer_journal_entry e = { .txn = txn, .op = PLACER_JOURNAL_FILE, .path = strdup(path) };
  if (e.path == NULL || (before && (e.previous = strdup(before)) == NULL) ||
      (make_dir && (e.dir_created = strdup(dir)) == NULL)) {
    placer_journal_entry_clear(&e);
    return placer_error_oom(err, NULL);
  }
  if (placer_state_journal_add(s, &e, err) < 0)
    return -1;
  if (make_dir && mkdir(dir, 0755) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", dir);
  return placer_file_replace_bytes(dir, slash + 1, text, strlen(text), err);
}

/* ------------------------------------------------------------------ irqbalance's ban */

static bool systemd_runs(const char *unit, const struct irq_etc *etc) {
  if (access("/run/systemd/system", F_OK) != 0)
    return false;
  char *argv[] = { (char *)etc->systemctl, "is-active", "--quiet", (char *)unit, NULL };
  struct placer_error *e = NULL;
  int rc = apply_systemctl(argv, COMMAND_TIMEOUT_MS, NULL, &e);
  placer_error_free(e);
  return rc == 0;
}

void irq_etc_paths(const struct irq_etc *etc, char *dropin, char *unit, char *link, size_t len) {
  snprintf(dropin, len, "%s/%s.d/50-placer.conf", etc->etc_dir, IRQBALANCE_UNIT);
  snprintf(unit, len, "%s/%s", etc->etc_dir, IRQ_UNIT_NAME);
  snprintf(link, len, "%s/multi-user.target.wants/%s", etc->etc_dir, IRQ_UNIT_NAME);
}

int irq_irqbalance_ban_check(const struct irq_etc *etc, bool *through_systemd, struct placer_error **err) {
  *through_systemd = systemd_runs(IRQBALANCE_UNIT, etc);
  if (*through_systemd || access(etc->initd, X_OK) == 0)
    return 0;
  return placer_error_set(err, PLACER_EXIT_SYSTEM, 0,
                          "irqbalance runs, but neither through systemd nor with an init script %s that could "
                          "restart it with the ban; stop it, or use --irqbalance ignore",
                          etc->initd);
}

/* TEXT without the block placer wrote there for STATE_DIR (all of TEXT when none). */
static char *without_block(const char *text, const char *state_dir) {
  char begin[PATH_MAX + 64];
  snprintf(begin, sizeof(begin), "%s%s;", BLOCK_BEGIN, state_dir);
  const char *b = strstr(text, begin);
  const char *e = b ? strstr(b, BLOCK_END) : NULL;
  if (b == NULL || e == NULL)
    return strdup(text);
  char *out = NULL;
  if (asprintf(&out, "%.*s%s", (int)(b - text), text, e + strlen(BLOCK_END)) < 0)
    return NULL;
  return out;
}

int irq_irqbalance_ban(const struct irq_etc *etc, struct placer_state *s, unsigned txn, const unsigned *irqs, size_t n,
                       const char *banned, struct placer_string_list *actions, struct placer_error **err) {
  char *args = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&args, &size);
  if (f == NULL)
    return placer_error_oom(err, NULL);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s--banirq=%u", i ? " " : "", irqs[i]);
  if (fclose(f) != 0)
    return placer_error_oom(err, NULL);
  cleanup_free char *banirqs = args;
  bool changed = false, through_systemd = false;
  if (irq_irqbalance_ban_check(etc, &through_systemd, err) < 0)
    return -1;
  if (through_systemd) {
    /* A drop-in: distribution-neutral.  Values of the same variables in its
     * EnvironmentFile= would win (systemd reads those after Environment=). */
    char path[PATH_MAX], unit[PATH_MAX], link[PATH_MAX];
    irq_etc_paths(etc, path, unit, link, sizeof(path));
    cleanup_free char *text = NULL;
    if (asprintf(&text,
                 "# Written by 'placer apply --irqbalance ban' (state %s); 'placer reset' removes it.\n"
                 "[Service]\n%sEnvironment=IRQBALANCE_BANNED_CPULIST=%s\nEnvironment=\"IRQBALANCE_ARGS=%s\"\n",
                 s->dir, *banned ? "" : "# no cpu to ban: ", banned, banirqs) < 0)
      return placer_error_oom(err, NULL);
    if (journal_action(s, txn, PLACER_ACTION_RESTART_IRQBALANCE_UNIT, err) < 0 ||
        journal_action(s, txn, PLACER_ACTION_DAEMON_RELOAD, err) < 0 ||
        write_journaled(s, txn, path, text, &changed, err) < 0)
      return -1;
    if (changed && (irq_run_action(etc, PLACER_ACTION_DAEMON_RELOAD, err) < 0 ||
                    irq_run_action(etc, PLACER_ACTION_RESTART_IRQBALANCE_UNIT, err) < 0))
      return -1;
    return changed ? placer_string_list_addf(actions, "irqbalance: %s (%s; %s), restarted", path,
                                             *banned ? banned : "no cpu banned", banirqs)
                   : 0;
  }
  /* No systemd: the defaults file its init script sources, and the script's restart. */
  int saved;
  cleanup_free char *before = read_or_null(etc->defaults, &saved);
  if (before == NULL && saved != ENOENT)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "read %s", etc->defaults);
  cleanup_free char *kept = without_block(before ? before : "", s->dir);
  cleanup_free char *text = NULL;
  /* exported: the init script sources the file, and irqbalance reads the
   * cpu list from its environment */
  if (kept == NULL || asprintf(&text,
                               "%s%s" BLOCK_BEGIN "%s; 'placer reset' removes this block)\n"
                               "%sexport IRQBALANCE_BANNED_CPULIST=%s\n"
                               "export IRQBALANCE_ARGS=\"$IRQBALANCE_ARGS %s\"\n" BLOCK_END,
                               kept, *kept && kept[strlen(kept) - 1] != '\n' ? "\n" : "", s->dir, *banned ? "" : "#",
                               banned, banirqs) < 0)
    return placer_error_oom(err, NULL);
  if (journal_action(s, txn, PLACER_ACTION_RESTART_IRQBALANCE_SCRIPT, err) < 0 ||
      write_journaled(s, txn, etc->defaults, text, &changed, err) < 0)
    return -1;
  if (changed && irq_run_action(etc, PLACER_ACTION_RESTART_IRQBALANCE_SCRIPT, err) < 0)
    return -1;
  return changed ? placer_string_list_addf(actions, "irqbalance: %s (%s; %s), restarted with %s restart", etc->defaults,
                                           *banned ? banned : "no cpu banned", banirqs, etc->initd)
                 : 0;
}

/* ------------------------------------------------------------------ the boot unit */

int irq_persist_unit(const struct irq_etc *etc, struct placer_state *s, unsigned txn, const char *exe,
                     const char *profile_path, const char *profile_name, const char *irqbalance_mode,
                     struct placer_string_list *actions, struct placer_error **err) {
  char unit[PATH_MAX], wants_dir[PATH_MAX], link[PATH_MAX], dropin[PATH_MAX];
  irq_etc_paths(etc, dropin, unit, link, sizeof(unit));
  snprintf(wants_dir, sizeof(wants_dir), "%s/multi-user.target.wants", etc->etc_dir);
  cleanup_free char *profile_abs = realpath(profile_path, NULL);
  if (profile_abs == NULL)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "--persist: the profile '%s'", profile_path);
  cleanup_free char *text = NULL;
  /* Before irqbalance: at boot it starts after the IRQs are placed (and with
   * the ban, when there is one, already in its files). */
  if (asprintf(&text,
               "# Written by 'placer apply --persist' (profile %s, state %s); 'placer reset' removes it.\n"
               "[Unit]\nDescription=placer: the IRQ placement of profile %s\n"
               "After=local-fs.target systemd-modules-load.service systemd-udev-settle.service\n"
               "Before=irqbalance.service\n\n"
               "[Service]\nType=oneshot\nRemainAfterExit=yes\n"
               "ExecStart=%s apply --irqs-only --irqbalance %s --state-dir %s %s\n\n"
               "[Install]\nWantedBy=multi-user.target\n",
               profile_name, s->dir, profile_name, exe, irqbalance_mode, s->dir, profile_abs) < 0)
    return placer_error_oom(err, NULL);
  bool changed = false;
  if (journal_action(s, txn, PLACER_ACTION_DAEMON_RELOAD, err) < 0 ||
      write_journaled(s, txn, unit, text, &changed, err) < 0)
    return -1;
  free(s->unit_path);
  free(s->wants_path);
  s->unit_path = strdup(unit);
  s->wants_path = strdup(link);
  char target[PATH_MAX];
  ssize_t len = readlink(link, target, sizeof(target) - 1);
  bool linked = len > 0 && (size_t)len == strlen(unit) && strncmp(target, unit, (size_t)len) == 0;
  if (!linked) {
    struct stat st;
    struct placer_journal_entry e = { .txn = txn, .op = PLACER_JOURNAL_LINK, .path = strdup(link) };
    if (e.path == NULL || (stat(wants_dir, &st) < 0 && (e.dir_created = strdup(wants_dir)) == NULL)) {
      placer_journal_entry_clear(&e);
      return placer_error_oom(err, NULL);
    }
    bool make_dir = e.dir_created != NULL;
    if (placer_state_journal_add(s, &e, err) < 0)
      return -1;
    if (make_dir && mkdir(wants_dir, 0755) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "mkdir %s", wants_dir);
    if (symlink(unit, link) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "symlink %s", link);
  }
  if ((changed || !linked) && irq_run_action(etc, PLACER_ACTION_DAEMON_RELOAD, err) < 0)
    return -1;
  return changed || !linked ? placer_string_list_addf(actions, "boot unit %s, enabled (%s)", unit, link) : 0;
}

/* ------------------------------------------------------------------ after a reboot */

static bool names_state(const char *path, const char *state_dir) {
  int saved;
  cleanup_free char *text = read_or_null(path, &saved);
  char mark[PATH_MAX + 16];
  snprintf(mark, sizeof(mark), "state %s)", state_dir);
  return text && strstr(text, "placer") && strstr(text, mark);
}

int irq_etc_forget(const struct irq_etc *etc, const char *state_dir, struct placer_string_list *lines,
                   struct placer_error **err) {
  char unit[PATH_MAX], link[PATH_MAX], dropin[PATH_MAX], dropin_dir[PATH_MAX];
  irq_etc_paths(etc, dropin, unit, link, sizeof(unit));
  snprintf(dropin_dir, sizeof(dropin_dir), "%s/%s.d", etc->etc_dir, IRQBALANCE_UNIT);
  bool reload = false;
  if (names_state(unit, state_dir)) {
    if ((unlink(link) < 0 && errno != ENOENT) || unlink(unit) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", unit);
    reload = true;
    placer_string_list_addf(lines, "irqs: removed the boot unit %s (left by an apply --persist before a reboot)", unit);
  }
  bool dropin_gone = false;
  if (names_state(dropin, state_dir)) {
    if (unlink(dropin) < 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", dropin);
    rmdir(dropin_dir); /* only when placer's was the last */
    reload = dropin_gone = true;
    placer_string_list_addf(lines, "irqs: removed irqbalance's ban %s", dropin);
  }
  if (reload && access("/run/systemd/system", F_OK) == 0 && irq_run_action(etc, PLACER_ACTION_DAEMON_RELOAD, err) < 0)
    return -1;
  if (dropin_gone && irq_irqbalance_pid(etc->root) &&
      irq_run_action(etc, PLACER_ACTION_RESTART_IRQBALANCE_UNIT, err) < 0)
    return -1;
  int saved;
  cleanup_free char *text = read_or_null(etc->defaults, &saved);
  cleanup_free char *kept = text ? without_block(text, state_dir) : NULL;
  if (kept && strcmp(kept, text) != 0) {
    cleanup_free char *dir = strdup(etc->defaults);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash == NULL)
      return placer_error_oom(err, NULL);
    *slash = '\0';
    if (placer_file_replace_bytes(dir, slash + 1, kept, strlen(kept), err) < 0)
      return -1;
    placer_string_list_addf(lines, "irqs: removed irqbalance's ban from %s", etc->defaults);
    if (irq_irqbalance_pid(etc->root) && access(etc->initd, X_OK) == 0 &&
        irq_run_action(etc, PLACER_ACTION_RESTART_IRQBALANCE_SCRIPT, err) < 0)
      return -1;
  }
  return 0;
}
