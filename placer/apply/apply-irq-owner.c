/* The node's IRQ owners (apply-irq.h): one placer state at a time steers an
 * IRQ.  Each steered IRQ has a record ROOT/run/placer-irq-owners/N.json
 * naming the state directory that steers it and the IRQ's list before any
 * placer did, made with O_EXCL by the apply that first steers it and
 * removed by the reset that writes that list back.  A second state that
 * would steer the same IRQ is refused while the owner still records it; an
 * owner whose state is gone (its directory removed by hand, another boot)
 * is taken over with its recorded list, so that after any order of resets
 * the IRQ is back where it was before placer.  docs/apply.md, "IRQs". */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply-irq.h"
#include "lib/fsfile.h"
#include "lib/statedir.h"

#define OWNERS_DIR "/run/placer-irq-owners"
#define OWNER_MAX_BYTES ((size_t)64 << 10)

struct owner {
  char *state; /* the owner's state directory */
  char *state_id;
  char *boot_id;
  char *original; /* the list before placer */
};

static void owner_clear(struct owner *o) {
  free(o->state);
  free(o->state_id);
  free(o->boot_id);
  free(o->original);
  memset(o, 0, sizeof(*o));
}

static char *owners_dir(const char *root) {
  char *dir = NULL;
  return asprintf(&dir, "%s%s", root ? root : "", OWNERS_DIR) < 0 ? NULL : dir;
}

static void file_name(char *buf, size_t len, unsigned irq) {
  snprintf(buf, len, "%u.json", irq);
}

static char *dup_key(json_t *doc, const char *key) {
  const char *v = json_string_value(json_object_get(doc, key));
  return v ? strdup(v) : NULL;
}

/* IRQ's record in D: 0 and *O, 1 when there is none, -1 when it is not one
 * placer wrote. */
static int read_owner(const struct placer_statedir *d, unsigned irq, struct owner *o, struct placer_error **err) {
  char name[32];
  file_name(name, sizeof(name), irq);
  cleanup_free char *text = NULL;
  int rc = placer_statedir_read(d, name, OWNER_MAX_BYTES, &text, NULL, err);
  if (rc != 0)
    return rc;
  json_t *doc = json_loads(text, 0, NULL);
  o->state = dup_key(doc, "state");
  o->state_id = dup_key(doc, "state_id");
  o->boot_id = dup_key(doc, "boot_id");
  o->original = dup_key(doc, "original");
  json_decref(doc);
  if (o->state && o->state_id && o->boot_id && o->original)
    return 0;
  owner_clear(o);
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s/%s: not an IRQ owner record placer wrote", d->path,
                          name);
}

static bool is_us(const struct owner *o, const struct placer_state *s) {
  return strcmp(o->state_id, s->state_id) == 0 && strcmp(o->boot_id, placer_boot_id()) == 0;
}

/* Does the owner's state still record IRQ: the same directory, this boot,
 * an irq.json that names it? */
static bool owner_alive(const struct owner *o, unsigned irq) {
  if (strcmp(o->boot_id, placer_boot_id()) != 0)
    return false;
  struct placer_statedir d;
  struct placer_error *e = NULL;
  cleanup_free char *text = NULL;
  bool alive = false;
  if (placer_statedir_open(o->state, false, &d, &e) == 0 && d.fd >= 0 && strcmp(d.id, o->state_id) == 0 &&
      placer_statedir_read(&d, PLACER_STATE_IRQ_FILE, PLACER_STATEDIR_MAX_FILE_BYTES, &text, NULL, &e) == 0) {
    json_t *doc = json_loads(text, 0, NULL);
    struct placer_state *s = calloc(1, sizeof(*s));
    if (s) {
      s->kind = &placer_state_irqs;
      s->lock_fd = -1;
    }
    if (doc && s && placer_state_from_json(doc, s, &e) == 0) {
      for (size_t i = 0; i < s->n_irqs && !alive; i++)
        alive = s->irqs[i].irq == irq;
      for (size_t i = 0; i < s->n_journal && !alive; i++)
        alive = s->journal[i].op == PLACER_JOURNAL_IRQ && s->journal[i].irq == irq;
    }
    json_decref(doc);
    placer_state_free(s);
  }
  placer_error_free(e);
  placer_statedir_close(&d);
  return alive;
}

static char *owner_text(const struct placer_state *s, unsigned irq, const char *name, const char *original) {
  char real[PATH_MAX];
  json_t *doc = json_object();
  json_object_set_new(doc, "irq", json_integer(irq));
  json_object_set_new(doc, "name", json_string(name));
  json_object_set_new(doc, "original", json_string(original));
  json_object_set_new(doc, "state", json_string(realpath(s->dir, real) ? real : s->dir));
  json_object_set_new(doc, "state_id", json_string(s->state_id));
  json_object_set_new(doc, "boot_id", json_string(placer_boot_id()));
  char *text = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  return text;
}

/* What an existing record means for S: 0 and *original (ours: NOW; a gone
 * owner's: its list), or the refusal. */
static int settle(const struct owner *o, const struct placer_state *s, unsigned irq, const char *name, const char *now,
                  char **original, struct placer_error **err) {
  if (is_us(o, s) || !owner_alive(o, irq)) {
    *original = strdup(is_us(o, s) ? now : o->original);
    return *original ? 0 : placer_error_oom(err, NULL);
  }
  return placer_error_set(err, PLACER_EXIT_USAGE, EBUSY,
                          "IRQ %u (%s) is steered by the placement in %s: one placer state steers an IRQ at a time; "
                          "run 'placer reset --state-dir %s' first",
                          irq, name, o->state, o->state);
}

int irq_owner_claim(const char *root, const struct placer_state *s, unsigned irq, const char *name, const char *now,
                    bool dry_run, char **original, enum irq_owner_claimed *how, struct placer_error **err) {
  *original = NULL;
  *how = IRQ_OWNER_FRESH;
  cleanup_free char *dir = owners_dir(root);
  if (dir == NULL)
    return placer_error_oom(err, NULL);
  char file[32];
  file_name(file, sizeof(file), irq);
  for (int attempt = 0; attempt < 4; attempt++) {
    struct placer_statedir d;
    struct owner o = { 0 };
    if (placer_statedir_open(dir, !dry_run, &d, err) < 0) {
      placer_statedir_close(&d);
      return placer_error_prefix(err, "IRQ owners");
    }
    int rc;
    if (!dry_run) {
      int fd = d.fd >= 0 ? openat(d.fd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
      if (fd >= 0) { /* the first to steer it: NOW is the list before placer */
        cleanup_free char *text = owner_text(s, irq, name, now);
        size_t len = text ? strlen(text) : 0;
        bool ok = text && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
        close(fd);
        if (!ok) {
          unlinkat(d.fd, file, 0);
          placer_statedir_close(&d);
          return placer_error_errno(err, PLACER_EXIT_SYSTEM, text ? errno : ENOMEM, "write %s/%s", dir, file);
        }
        placer_statedir_close(&d);
        *original = strdup(now);
        return *original ? 0 : placer_error_oom(err, NULL);
      }
      if (errno != EEXIST && errno != ENOENT) {
        int saved = errno;
        placer_statedir_close(&d);
        return placer_error_errno(err, PLACER_EXIT_SYSTEM, saved, "create %s/%s", dir, file);
      }
    }
    rc = read_owner(&d, irq, &o, err);
    if (rc == 1 && dry_run) {
      placer_statedir_close(&d);
      *original = strdup(now);
      return *original ? 0 : placer_error_oom(err, NULL);
    }
    if (rc == 1) { /* released (or its directory removed) meanwhile: again */
      placer_statedir_close(&d);
      continue;
    }
    if (rc == 0)
      rc = settle(&o, s, irq, name, now, original, err);
    if (rc == 0)
      *how = is_us(&o, s) ? IRQ_OWNER_OURS : IRQ_OWNER_TAKEN;
    /* a gone owner's record becomes ours, with its list */
    if (rc == 0 && !dry_run && !is_us(&o, s)) {
      cleanup_free char *text = owner_text(s, irq, name, *original);
      rc = text ? placer_file_replace(dir, file, text, err) : placer_error_oom(err, NULL);
    }
    owner_clear(&o);
    placer_statedir_close(&d);
    if (rc < 0) {
      free(*original);
      *original = NULL;
    }
    return rc;
  }
  return placer_error_set(err, PLACER_EXIT_SYSTEM, EAGAIN, "IRQ %u: its owner record %s/%s keeps changing", irq, dir,
                          file);
}

char *irq_owner_other(const char *root, const struct placer_state *s, unsigned irq) {
  cleanup_free char *dir = owners_dir(root);
  struct placer_statedir d;
  struct placer_error *e = NULL;
  struct owner o = { 0 };
  char *other = NULL;
  if (dir && placer_statedir_open(dir, false, &d, &e) == 0 && read_owner(&d, irq, &o, &e) == 0 && !is_us(&o, s) &&
      owner_alive(&o, irq))
    other = TAKE_PTR(o.state);
  owner_clear(&o);
  placer_error_free(e);
  placer_statedir_close(&d);
  return other;
}

void irq_owner_release(const char *root, const struct placer_state *s, unsigned irq) {
  cleanup_free char *dir = owners_dir(root);
  struct placer_statedir d;
  struct placer_error *e = NULL;
  struct owner o = { 0 };
  char file[32];
  file_name(file, sizeof(file), irq);
  if (dir && placer_statedir_open(dir, false, &d, &e) == 0 && read_owner(&d, irq, &o, &e) == 0 && is_us(&o, s))
    unlinkat(d.fd, file, 0);
  owner_clear(&o);
  placer_error_free(e);
  placer_statedir_close(&d);
  if (dir)
    placer_statedir_tidy(dir, NULL, NULL, NULL); /* gone with its last record */
}
