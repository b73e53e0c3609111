/* The journal's append-only tail (state.h): a state whose journal grows by
 * one record per step many times a second (placer watch: a move for each
 * process it places) appends each record as one line to STATE_DIR/state.log
 * instead of rewriting state.json, and the next full save takes the lines
 * in and starts a new log.  Which log belongs to which state.json: the
 * log's first line names the state's log_seq (a new value at every save of
 * the file), its boot and directory; a log of another log_seq was left by a
 * save killed before it removed it, and holds nothing state.json lacks.  A
 * record is one write(2) of a line ending in a newline: a last line without
 * it was torn by a kill and is left out (its step had not begun); a broken
 * line before the last is refused, as a broken state.json is. */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/statedir.h"

/* ------------------------------------------------------------------ writing */

static const struct placer_state_kind *kind_of(const struct placer_state *s) {
  return s->kind ? s->kind : &placer_state_groups;
}

static int log_path(const struct placer_state *s, char **path, struct placer_error **err) {
  if (asprintf(path, "%s/%s", s->dir, kind_of(s)->log) < 0) {
    *path = NULL;
    return placer_error_oom(err, NULL);
  }
  return 0;
}

/* One line written whole, fsynced unless the state's saves are volatile. */
static int write_line(struct placer_state *s, const char *text, struct placer_error **err) {
  size_t len = strlen(text);
  cleanup_free char *line = malloc(len + 2);
  if (line == NULL)
    return placer_error_oom(err, NULL);
  memcpy(line, text, len);
  line[len] = '\n';
  line[len + 1] = '\0';
  for (size_t off = 0; off < len + 1;) {
    ssize_t n = write(s->log_fd, line + off, len + 1 - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return placer_error_errno(err, PLACER_EXIT_SYSTEM, n < 0 ? errno : EIO, "write %s/%s", s->dir, kind_of(s)->log);
    off += (size_t)n;
  }
  if (!s->volatile_saves && fdatasync(s->log_fd) < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "write %s/%s", s->dir, kind_of(s)->log);
  return 0;
}

void placer_state_log_close(struct placer_state *s) {
  if (s->log_open)
    close(s->log_fd);
  s->log_open = false;
  s->log_fd = -1;
}

uint64_t placer_state_log_next_seq(uint64_t seq) {
  if (seq != 0)
    return seq + 1;
  /* A state begun anew: past any log_seq a log left behind could name. */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int placer_state_log_restart(struct placer_state *s, bool open_new, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (log_path(s, &path, err) < 0)
    return -1;
  placer_state_log_close(s);
  if (unlink(path) < 0 && errno != ENOENT)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "remove %s", path);
  if (!open_new)
    return 0;
  /* Made anew (the unlink above took away whatever had the name). */
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return placer_error_errno(err, PLACER_EXIT_SYSTEM, errno, "create %s", path);
  s->log_fd = fd;
  s->log_open = true;
  json_t *head = json_pack("{s:I, s:o, s:o}", "log_seq", (json_int_t)s->log_seq, "boot_id",
                           placer_json_str_or_null(s->boot_id), "state_id", placer_json_str_or_null(s->state_id));
  cleanup_free char *text = head ? json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(head);
  if (text == NULL || write_line(s, text, err) < 0) {
    if (text == NULL)
      placer_error_oom(err, NULL);
    placer_state_log_close(s); /* the next record saves the whole file instead */
    return -1;
  }
  return 0;
}

int placer_state_log_append(struct placer_state *s, const struct placer_journal_entry *e, struct placer_error **err) {
  json_t *j = placer_journal_entry_to_json(e, kind_of(s)->op_names);
  cleanup_free char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(j);
  if (text == NULL)
    return placer_error_oom(err, NULL);
  if (write_line(s, text, err) < 0) {
    /* A part of the line may be there: no more lines after it. */
    placer_state_log_close(s);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ reading */

/* The value of KEY in DOC as a string, "" when it is none. */
static const char *str_of(json_t *doc, const char *key) {
  const char *v = json_string_value(json_object_get(doc, key));
  return v ? v : "";
}

int placer_state_log_merge(const struct placer_statedir *d, const struct placer_state_kind *kind, json_t *doc,
                           struct placer_error **err) {
  json_t *seq = json_object_get(doc, "log_seq");
  if (kind->log == NULL || !json_is_integer(seq))
    return 0; /* never appended to since it was written */
  cleanup_free char *text = NULL;
  size_t len = 0;
  int rc = placer_statedir_read(d, kind->log, PLACER_STATEDIR_MAX_FILE_BYTES, &text, &len, err);
  if (rc != 0)
    return rc < 0 ? -1 : 0;
  json_t *journal = json_object_get(doc, "journal");
  json_t *last_txn = json_object_get(doc, "last_txn");
  if (!json_is_array(journal) || !json_is_integer(last_txn))
    return 0; /* state.json's own check refuses it */
  json_int_t top_txn = json_integer_value(last_txn);
  size_t line_no = 0;
  for (char *p = text; p < text + len; line_no++) {
    char *nl = memchr(p, '\n', (size_t)(text + len - p));
    if (nl == NULL)
      break; /* torn by a kill: that record's step never began */
    json_error_t jerr;
    json_t *rec = json_loadb(p, (size_t)(nl - p), 0, &jerr);
    p = nl + 1;
    if (line_no == 0) {
      /* Another log_seq: a log an interrupted save left, all in state.json. */
      bool ours = rec && json_is_integer(json_object_get(rec, "log_seq")) &&
                  json_integer_value(json_object_get(rec, "log_seq")) == json_integer_value(seq);
      bool bound = ours && strcmp(str_of(rec, "boot_id"), str_of(doc, "boot_id")) == 0 &&
                   strcmp(str_of(rec, "state_id"), str_of(doc, "state_id")) == 0;
      json_decref(rec);
      if (!ours)
        return 0;
      if (!bound)
        return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s/%s: written for another boot or directory than %s",
                                d->path, kind->log, kind->file);
      continue;
    }
    if (!json_is_object(rec)) {
      json_decref(rec);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "%s/%s:%zu: %s", d->path, kind->log, line_no + 1,
                              rec ? "not a JSON object" : jerr.text);
    }
    json_t *txn = json_object_get(rec, "txn");
    if (json_is_integer(txn) && json_integer_value(txn) > top_txn)
      top_txn = json_integer_value(txn);
    if (json_array_size(journal) >= PLACER_STATE_MAX_RECORDS) {
      json_decref(rec);
      return placer_error_set(err, PLACER_EXIT_SYSTEM, E2BIG, "%s/%s: more journal records than a state holds (%d)",
                              d->path, kind->log, PLACER_STATE_MAX_RECORDS);
    }
    if (json_array_append_new(journal, rec) < 0)
      return placer_error_oom(err, NULL);
  }
  if (json_object_set_new(doc, "last_txn", json_integer(top_txn)) < 0)
    return placer_error_oom(err, NULL);
  return 0;
}
