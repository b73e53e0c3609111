/* The one module of apply's state files (state.h): opening one (the
 * directory checked, its lock taken, the file read through lib/statedir.h
 * and bound to its boot and directory), saving it atomically, its journal
 * (a record added and saved before its step, the replay of an undo), and
 * what every kind of file records beside its own part (the transactions,
 * the journal: state-journal.c; the kinds: state-groups.c, state-units.c,
 * state-irqs.c). */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fsfile.h"
#include "lib/statedir.h"

const char *placer_state_default_dir(void) {
  const char *dir = getenv("PLACER_STATE_DIR");
  return dir && *dir ? dir : PLACER_STATE_DEFAULT_DIR;
}

static const struct placer_state_kind *kind_of(const struct placer_state *s) {
  return s->kind ? s->kind : &placer_state_groups;
}

/* ------------------------------------------------------------------ freeing */

static void state_clear_fields(struct placer_state *s) {
  const struct placer_state_kind *kind = kind_of(s);
  kind->clear(s);
  free(s->boot_id);
  free(s->state_id);
  free(s->backend);
  free(s->profile_name);
  free(s->profile_path);
  free(s->applied_at);
  for (size_t i = 0; i < s->n_journal; i++)
    placer_journal_entry_clear(&s->journal[i]);
  free(s->journal);
  s->boot_id = s->state_id = s->backend = s->profile_name = s->profile_path = s->applied_at = NULL;
  s->journal = NULL;
  s->n_journal = 0;
  s->last_txn = s->pending_txn = 0;
  s->pending_pid = 0;
}

void placer_state_free(struct placer_state *state) {
  if (state == NULL)
    return;
  state_clear_fields(state);
  placer_state_log_close(state);
  placer_statedir_unlock(state->lock_fd, state->lock_made); /* releases the flock */
  free(state->lock_made);
  free(state->dir);
  free(state);
}

bool placer_state_is_empty(const struct placer_state *state) {
  return !kind_of(state)->holds(state) && state->n_journal == 0 && state->pending_txn == 0;
}

/* ------------------------------------------------------------------ JSON */

json_t *placer_state_to_json(const struct placer_state *s) {
  const struct placer_state_kind *kind = kind_of(s);
  json_t *j = json_object();
  if (j == NULL)
    return NULL;
  bool oom = json_object_set_new(j, "schema", json_integer(PLACER_STATE_SCHEMA)) < 0 ||
             json_object_set_new(j, "boot_id", placer_json_str_or_null(s->boot_id)) < 0 ||
             json_object_set_new(j, "state_id", placer_json_str_or_null(s->state_id)) < 0 || kind->to_json(s, j) < 0;
  if (!oom && kind->journaled) {
    json_t *journal = json_array();
    oom = journal == NULL || json_object_set_new(j, "last_txn", json_integer(s->last_txn)) < 0 ||
          json_object_set_new(j, "pending_txn", s->pending_txn ? json_integer(s->pending_txn) : json_null()) < 0 ||
          json_object_set_new(j, "pending_pid", s->pending_txn ? json_integer(s->pending_pid) : json_null()) < 0 ||
          (s->log_seq && /* only then: state files of older placers read the same */
           json_object_set_new(j, "log_seq", json_integer((json_int_t)s->log_seq)) < 0);
    for (size_t i = 0; !oom && i < s->n_journal; i++) {
      json_t *e = placer_journal_entry_to_json(&s->journal[i], kind->op_names);
      oom = e == NULL || json_array_append_new(journal, e) < 0;
    }
    oom = oom || json_object_set_new(j, "journal", journal) < 0;
  }
  if (oom) {
    json_decref(j);
    return NULL;
  }
  return j;
}

int placer_state_from_json(json_t *j, struct placer_state *s, struct placer_error **err) {
  const struct placer_state_kind *kind = kind_of(s);
  uint64_t v;
  if (!json_is_object(j))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "not a JSON object");
  if (placer_state_json_uint(j, "schema", UINT32_MAX, !kind->journaled, &v, "state", err) < 0)
    return -1;
  if (v != PLACER_STATE_SCHEMA && (kind->journaled || v != 0))
    return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "schema %llu, this placer reads %d", (unsigned long long)v,
                            PLACER_STATE_SCHEMA);
  if (placer_state_json_dup(j, "boot_id", &s->boot_id, "state", err) < 0 ||
      placer_state_json_dup(j, "state_id", &s->state_id, "state", err) < 0)
    return -1;
  if (kind->journaled) {
    if (placer_state_json_uint(j, "last_txn", UINT32_MAX, false, &v, "state", err) < 0)
      return -1;
    s->last_txn = (unsigned)v;
    if (placer_state_json_uint(j, "pending_txn", UINT32_MAX, true, &v, "state", err) < 0)
      return -1;
    s->pending_txn = (unsigned)v;
    if (placer_state_json_uint(j, "pending_pid", INT32_MAX, true, &v, "state", err) < 0)
      return -1;
    s->pending_pid = (pid_t)v;
    if (placer_state_json_uint(j, "log_seq", INT64_MAX, true, &s->log_seq, "state", err) < 0)
      return -1;
    json_t *journal = json_object_get(j, "journal");
    size_t n = json_array_size(journal);
    if (n > PLACER_STATE_MAX_RECORDS)
      return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%zu journal records: more than a state holds (%d)", n,
                              PLACER_STATE_MAX_RECORDS);
    if (n && (s->journal = calloc(n, sizeof(*s->journal))) == NULL)
      return placer_error_oom(err, NULL);
    for (size_t i = 0; i < n; i++) {
      s->n_journal = i + 1;
      if (placer_journal_entry_from_json(json_array_get(journal, i), kind->op_names, &s->journal[i], i, err) < 0)
        return -1;
    }
  }
  return kind->from_json(j, s, err);
}

/* ------------------------------------------------------------------ files */

int placer_state_open_kind(const char *dir, const struct placer_state_kind *kind, enum placer_state_lock lock,
                           struct placer_state **out, bool *busy, struct placer_error **err) {
  if (busy)
    *busy = false;
  struct placer_statedir d;
  if (placer_statedir_open(dir, lock == PLACER_STATE_LOCK_EXCLUSIVE, &d, err) < 0) {
    placer_statedir_close(&d);
    return -1;
  }
  struct placer_state *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->dir = strdup(dir)) == NULL) {
    free(s);
    placer_statedir_close(&d);
    return placer_error_oom(err, NULL);
  }
  s->kind = kind;
  s->lock_fd = -1;
  s->log_fd = -1;
  int rc = 0;
  if (lock != PLACER_STATE_NO_LOCK) {
    rc = placer_statedir_lock(&d, kind->lock, lock == PLACER_STATE_LOCK_EXCLUSIVE, &s->lock_fd, &s->lock_made, err);
    if (rc == 1 && lock == PLACER_STATE_LOCK_EXCLUSIVE)
      rc = placer_error_set(err, PLACER_EXIT_SYSTEM, EWOULDBLOCK,
                            "another placer apply or reset is running (it holds %s/%s)", dir, kind->lock);
    else if (rc == 1) {
      if (busy)
        *busy = true;
      rc = 0;
    }
  }
  json_t *j = NULL;
  if (rc == 0)
    rc = placer_statedir_load(&d, kind->file, &j, &s->boot_id, &s->state_id, err);
  if (rc == 0 && j) /* the records appended since it was written */
    rc = placer_state_log_merge(&d, kind, j, err);
  placer_statedir_close(&d);
  if (rc == 0 && j) {
    free(s->boot_id); /* the file's own, checked by the load */
    free(s->state_id);
    s->boot_id = s->state_id = NULL;
    if (placer_state_from_json(j, s, err) < 0)
      rc = placer_error_prefix(err, "%s/%s", dir, kind->file);
  }
  json_decref(j);
  if (rc < 0) {
    placer_state_free(s);
    return -1;
  }
  *out = s;
  return 0;
}

int placer_state_open(const char *dir, enum placer_state_lock lock, struct placer_state **out, bool *busy,
                      struct placer_error **err) {
  return placer_state_open_kind(dir, &placer_state_groups, lock, out, busy, err);
}

int placer_state_save(struct placer_state *s, struct placer_error **err) {
  const struct placer_state_kind *kind = kind_of(s);
  cleanup_free char *path = NULL;
  if (asprintf(&path, "%s/%s", s->dir, kind->file) < 0)
    return placer_error_oom(err, NULL);
  /* The file written takes in what the log held: a log_seq of its own, and
   * the log of the old one removed once it is in place (read before, it
   * holds the records the new file has; left by a kill, another log_seq). */
  bool logged = kind->log && (s->journal_appends || s->log_seq != 0);
  if (logged) {
    placer_state_log_close(s);
    s->log_seq = placer_state_log_next_seq(s->log_seq);
  }
  if (placer_state_is_empty(s)) { /* nothing applied, nothing to undo: the file goes */
    if (unlink(path) < 0 && errno != ENOENT)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", path);
    return logged ? placer_state_log_restart(s, false, err) : 0;
  }
  json_t *doc = placer_state_to_json(s);
  cleanup_free char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
  json_decref(doc);
  if (text == NULL)
    return placer_error_oom(err, kind->file);
  int rc = s->volatile_saves ? placer_file_replace_volatile(s->dir, kind->file, text, strlen(text), err)
                             : placer_file_replace(s->dir, kind->file, text, err);
  if (rc < 0 || !logged)
    return rc;
  struct placer_error *log_err = NULL;
  if (placer_state_log_restart(s, s->journal_appends, &log_err) < 0)
    placer_error_free(log_err); /* the file holds it all: the next record saves it whole again */
  return 0;
}

int placer_state_journal_add(struct placer_state *s, struct placer_journal_entry *entry, struct placer_error **err) {
  struct placer_journal_entry *bigger = realloc(s->journal, (s->n_journal + 1) * sizeof(*bigger));
  if (bigger == NULL) {
    placer_journal_entry_clear(entry);
    return placer_error_oom(err, NULL);
  }
  s->journal = bigger;
  s->journal[s->n_journal++] = *entry;
  memset(entry, 0, sizeof(*entry));
  /* Appended to the log that goes with the file as it is, else saved whole. */
  int rc = s->journal_appends && s->log_open ? placer_state_log_append(s, &s->journal[s->n_journal - 1], err)
                                             : placer_state_save(s, err);
  if (rc < 0) {
    /* Not recorded, so the step must not happen: forget it again. */
    placer_journal_entry_clear(&s->journal[--s->n_journal]);
    return placer_error_prefix(err, "%s journal", kind_of(s)->file);
  }
  return 0;
}

void placer_state_journal_remove(struct placer_state *s, size_t i) {
  if (i >= s->n_journal)
    return;
  placer_journal_entry_clear(&s->journal[i]);
  memmove(&s->journal[i], &s->journal[i + 1], (s->n_journal - i - 1) * sizeof(*s->journal));
  s->n_journal--;
}

size_t placer_state_journal_undo(struct placer_state *s, unsigned txn, placer_journal_undo_fn undo, void *ctx,
                                 struct placer_string_list *failures) {
  size_t n_failed = 0;
  for (size_t i = s->n_journal; i-- > 0;) {
    if (txn != 0 && s->journal[i].txn != txn)
      continue;
    struct placer_error *err = NULL;
    if (undo(ctx, s, i, &err) < 0) {
      placer_string_list_addf(failures, "%s", err ? err->msg : "failed");
      placer_error_free(err);
      n_failed++;
      continue;
    }
    placer_state_journal_remove(s, i);
  }
  /* Saved once, not after each record (a journal of 10,000 records would be
   * rewritten and fsynced 10,000 times): replaying is idempotent, newest
   * first, so a replay killed meanwhile replays the same records again. */
  struct placer_error *save_err = NULL;
  if (placer_state_save(s, &save_err) < 0) {
    placer_string_list_addf(failures, "%s", save_err->msg);
    placer_error_free(save_err);
    n_failed++;
  }
  return n_failed;
}

bool placer_state_file_exists(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  struct stat st;
  return lstat(path, &st) == 0;
}

void placer_state_dir_tidy(const char *dir) {
  static const char *const files[] = { PLACER_STATE_FILE, PLACER_STATE_SYSTEMD_FILE, PLACER_STATE_IRQ_FILE,
                                       PLACER_STATE_RUN_DIR, NULL };
  static const char *const strays[] = { PLACER_STATE_LOG_FILE, NULL }; /* state.json's tail, of no state.json */
  static const char *const locks[] = { PLACER_STATE_LOCK_FILE, PLACER_STATE_IRQ_LOCK_FILE, NULL };
  placer_statedir_tidy(dir, files, strays, locks);
}
