/* lib/fileset.c on real directories under /tmp: a set written, written again
 * (nothing changes), a smaller set (only the files the manifest lists go,
 * a directory placer made goes when empty, a file of the user's stays),
 * symbolic links and other things where the set goes refused with nothing
 * changed, manifests placer cannot have written refused or left alone,
 * the dry run, and a failure half-way (a file size limit that stops the
 * manifest, written last) putting every file back as it was. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fileset.h"
#include "test_support.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))
#define MANIFEST ".placer-export.t"
#define HEADER                                                                         \
  "# Written by the test: the files it wrote here. The next run into this directory\n" \
  "# removes those it no longer writes, and nothing else.\n"

struct tmp {
  char dir[80];   /* the set's directory */
  char outer[64]; /* a directory beside it, what a symbolic link points to */
  char path[512]; /* scratch */
};

static int setup(void **state) {
  struct tmp *t = calloc(1, sizeof(*t));
  snprintf(t->outer, sizeof(t->outer), "/tmp/placer-test-fileset-XXXXXX");
  if (mkdtemp(t->outer) == NULL)
    return -1;
  snprintf(t->dir, sizeof(t->dir), "%s/d", t->outer);
  mkdir(t->dir, 0755);
  *state = t;
  return 0;
}

static int teardown(void **state) {
  struct tmp *t = *state;
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->outer);
  int rc = system(cmd);
  free(t);
  return rc == 0 ? 0 : -1;
}

static const char *at(struct tmp *t, const char *rel) {
  snprintf(t->path, sizeof(t->path), "%s/%s", t->outer, rel);
  return t->path;
}

/* Every entry under the outer directory, hidden ones too: type, mode, link
 * target, and each file's checksum: what "nothing changed" compares.
 * Written beside the outer directory, not in it. */
static char *snapshot(struct tmp *t) {
  char cmd[512];
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && { find . -printf '%%p %%y %%m %%l\\n' | LC_ALL=C sort && "
           "find . -type f -exec md5sum {} + | LC_ALL=C sort; } >'%s.snapshot'",
           t->outer, t->outer);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof(cmd), "%s.snapshot", t->outer);
  char *text = test_read_file(cmd);
  assert_non_null(text);
  unlink(cmd);
  return text;
}

/* The file REL under the outer directory holds TEXT. */
static void expect_file(struct tmp *t, const char *rel, const char *text) {
  char *s = test_read_file(at(t, rel));
  if (s == NULL || strcmp(s, text) != 0)
    fail_msg("%s holds '%s', expected '%s'", rel, s ? s : "(nothing)", text);
  free(s);
}

/* Write the set; the error's message (caller frees) or NULL. */
static char *write_set(struct tmp *t, const struct placer_fileset_file *files, size_t n, bool dry,
                       struct placer_fileset_changes *changes) {
  struct placer_error *err = NULL;
  struct placer_fileset_changes mine;
  if (changes == NULL)
    changes = &mine;
  if (placer_fileset_write(t->dir, MANIFEST, "the test", files, n, dry, changes, &err) < 0) {
    assert_null(strchr(err->msg, '\n'));
    char *msg = strdup(err->msg);
    placer_error_free(err);
    return msg;
  }
  if (changes == &mine)
    placer_fileset_changes_free(&mine);
  return NULL;
}

/* Write the set: it must succeed, writing WRITTEN files and removing REMOVED. */
static void expect_changes(struct tmp *t, const struct placer_fileset_file *files, size_t n, bool dry, size_t written,
                           size_t removed) {
  struct placer_fileset_changes c;
  char *msg = write_set(t, files, n, dry, &c);
  if (msg)
    fail_msg("refused: %s", msg);
  if (c.written.n != written || c.removed.n != removed)
    fail_msg("%zu written, %zu removed; expected %zu and %zu", c.written.n, c.removed.n, written, removed);
  placer_fileset_changes_free(&c);
}

#define F(name, text) \
  { name, text, sizeof(text) - 1 }

static const struct placer_fileset_file big[] = {
  F("a.conf", "a\n"),
  F("u1.d/50.conf", "one\n"),
  F("u2.d/50.conf", "two\n"),
  F("u3.d/50.conf", "three\n"),
};

static void test_write_again_and_smaller(void **state) {
  struct tmp *t = *state;
  expect_changes(t, big, N(big), false, 4, 0);
  expect_file(t, "d/u2.d/50.conf", "two\n");
  expect_file(t, "d/" MANIFEST,
              HEADER "made u1.d\nmade u2.d\nmade u3.d\nwrote a.conf\nwrote u1.d/50.conf\nwrote u2.d/50.conf\n"
                     "wrote u3.d/50.conf\n");

  /* the same set: nothing written, not even the manifest */
  char *before = snapshot(t);
  struct stat st1, st2;
  assert_int_equal(stat(at(t, "d/a.conf"), &st1), 0);
  expect_changes(t, big, N(big), false, 0, 0);
  char *after = snapshot(t);
  assert_string_equal(before, after);
  assert_int_equal(stat(at(t, "d/a.conf"), &st2), 0);
  assert_int_equal(st1.st_ino, st2.st_ino);
  free(before);
  free(after);

  /* the user's files beside placer's: none is ever removed */
  test_write_file(at(t, "d/u3.d/10-mine.conf"), "mine\n");
  test_write_file(at(t, "d/notes.txt"), "mine\n");
  /* a smaller set, one file changed: u2.d goes whole (placer made it, it is
   * empty), u3.d keeps the user's file */
  static const struct placer_fileset_file small[] = { F("a.conf", "A\n"), F("u1.d/50.conf", "one\n") };
  struct placer_fileset_changes c;
  assert_null(write_set(t, small, N(small), true, &c));
  assert_int_equal(c.written.n, 1);
  assert_string_equal(c.written.items[0], "a.conf");
  assert_int_equal(c.removed.n, 2);
  assert_string_equal(c.removed.items[0], "u2.d/50.conf");
  assert_string_equal(c.removed.items[1], "u3.d/50.conf");
  placer_fileset_changes_free(&c);
  assert_int_equal(access(at(t, "d/u2.d/50.conf"), F_OK), 0); /* the dry run removed nothing */
  expect_changes(t, small, N(small), false, 1, 2);
  assert_int_equal(access(at(t, "d/u2.d"), F_OK), -1);
  assert_int_equal(access(at(t, "d/u3.d/50.conf"), F_OK), -1);
  expect_file(t, "d/u3.d/10-mine.conf", "mine\n");
  expect_file(t, "d/notes.txt", "mine\n");
  expect_file(t, "d/a.conf", "A\n");
  expect_file(t, "d/" MANIFEST, HEADER "made u1.d\nwrote a.conf\nwrote u1.d/50.conf\n");
  /* nothing of placer's left behind: no temporary file, no old copy */
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "test -z \"$(find '%s' -name '.placer-[0-9]*')\"", t->dir);
  assert_int_equal(system(cmd), 0);
}

/* What the set must never write through, replace or remove: refused in
 * one line, and nothing changed anywhere. */
static void test_refusals(void **state) {
  struct tmp *t = *state;
  assert_null(write_set(t, big, N(big), false, NULL));
  test_write_file(at(t, "secret"), "precious\n");
  mkdir(at(t, "elsewhere"), 0755);
  static const struct {
    const char *setup, *says;
  } cases[] = {
    /* a symbolic link where a subdirectory goes (placer's own, replaced) */
    { "rm -r d/u1.d && ln -s ../elsewhere d/u1.d", "u1.d is a symbolic link (placer writes through none)" },
    /* ... and where a file goes */
    { "rm d/a.conf && ln -s ../secret d/a.conf", "a.conf is a symbolic link (placer writes through none), not a file" },
    { "rm d/a.conf && mkdir d/a.conf", "a.conf is a directory, not a file placer replaces" },
    { "rm d/a.conf && mkfifo d/a.conf", "a.conf is a FIFO, not a file placer replaces" },
    { "rm -r d/u1.d && : >d/u1.d", "u1.d is a regular file, not a directory placer writes into" },
    /* manifests placer cannot have written */
    { "ln -sf ../secret d/" MANIFEST, MANIFEST " is a symbolic link (placer writes through none), not the list" },
    { "chmod 0666 d/" MANIFEST, MANIFEST " is writable by other users: not a list placer can have written" },
    { "echo 'wrote ../secret' >>d/" MANIFEST, MANIFEST ":10: not a line placer writes" },
    { "echo 'wrote .hidden' >>d/" MANIFEST, MANIFEST ":10: not a line placer writes" },
    { "echo 'wrote a/b/c' >>d/" MANIFEST, MANIFEST ":10: not a line placer writes" },
    { "echo 'rm -rf /' >>d/" MANIFEST, MANIFEST ":10: not a line placer writes" },
    { "rm d/" MANIFEST " && mkfifo d/" MANIFEST, MANIFEST " is a FIFO: not a list placer can have written" },
  };
  for (size_t i = 0; i < N(cases); i++) {
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "cd '%s' && rm -rf d elsewhere/* && mkdir d", t->outer);
    assert_int_equal(system(cmd), 0);
    assert_null(write_set(t, big, N(big), false, NULL));
    snprintf(cmd, sizeof(cmd), "cd '%s' && %s", t->outer, cases[i].setup);
    assert_int_equal(system(cmd), 0);
    char *before = snapshot(t);
    for (int dry = 0; dry < 2; dry++) {
      char *msg = write_set(t, big, N(big), dry, NULL);
      if (msg == NULL || strstr(msg, cases[i].says) == NULL)
        fail_msg("case %zu: '%s' does not say '%s'", i, msg ? msg : "(written)", cases[i].says);
      free(msg);
    }
    char *after = snapshot(t);
    if (strcmp(before, after) != 0)
      fail_msg("case %zu (%s) changed something:\n%s\n----\n%s", i, cases[i].setup, before, after);
    free(before);
    free(after);
  }
  expect_file(t, "secret", "precious\n");
  /* a name no set may have */
  static const struct placer_fileset_file bad[] = { F("../x", "x") };
  char *msg = write_set(t, bad, 1, false, NULL);
  assert_non_null(msg);
  assert_non_null(strstr(msg, "'../x' is not a name placer writes into a directory"));
  free(msg);
}

/* A manifest that names what is no longer a file placer wrote: a symbolic
 * link, or a file under a subdirectory that became a link, is left alone. */
static void test_stale_not_a_file(void **state) {
  struct tmp *t = *state;
  assert_null(write_set(t, big, N(big), false, NULL));
  test_write_file(at(t, "secret"), "precious\n");
  mkdir(at(t, "elsewhere"), 0755);
  test_write_file(at(t, "elsewhere/50.conf"), "precious\n");
  char cmd[512];
  snprintf(cmd, sizeof(cmd),
           "cd '%s' && rm d/a.conf && ln -s ../secret d/a.conf && rm -r d/u2.d && "
           "ln -s ../elsewhere d/u2.d",
           t->outer);
  assert_int_equal(system(cmd), 0);
  static const struct placer_fileset_file other[] = { F("b.conf", "b\n") };
  expect_changes(t, other, N(other), false, 1, 2); /* u1.d's and u3.d's removed */
  struct stat st;
  assert_int_equal(lstat(at(t, "d/a.conf"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(lstat(at(t, "d/u2.d"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  expect_file(t, "secret", "precious\n");
  expect_file(t, "elsewhere/50.conf", "precious\n");
}

/* A failure after some files were put in place: the manifest, written
 * last, hits the file size limit (as a full disk would stop it); every
 * file is back as it was, the stale ones too, and no temporary file is
 * left.  In a child, whose limit the test process does not share. */
static void test_roll_back(void **state) {
  struct tmp *t = *state;
  char name[64][32];
  struct placer_fileset_file many[64];
  for (size_t i = 0; i < N(many); i++) {
    snprintf(name[i], sizeof(name[i]), "u%02zu.d/50.conf", i);
    many[i] = (struct placer_fileset_file){ name[i], "old\n", 4 };
  }
  assert_null(write_set(t, many, N(many), false, NULL));
  /* the new set: the first half changed, the second half gone, one new */
  struct placer_fileset_file next[33];
  for (size_t i = 0; i < 32; i++)
    next[i] = (struct placer_fileset_file){ name[i], "new\n", 4 };
  next[32] = (struct placer_fileset_file){ "z.conf", "new\n", 4 };
  char *before = snapshot(t);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = { 1024, 1024 }; /* each file fits, the manifest (~1.6 KiB) does not */
    setrlimit(RLIMIT_FSIZE, &lim);
    struct placer_error *err = NULL;
    struct placer_fileset_changes c;
    int rc = placer_fileset_write(t->dir, MANIFEST, "the test", next, N(next), false, &c, &err);
    _exit(rc == -1 && err->exit_code == PLACER_EXIT_SYSTEM && strstr(err->msg, "write " MANIFEST ": File too large")
              ? 0
              : 1);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  char *after = snapshot(t);
  assert_string_equal(before, after);
  free(before);
  free(after);
  /* and without the limit it goes through */
  expect_changes(t, next, N(next), false, 33, 32);
  expect_file(t, "d/u00.d/50.conf", "new\n");
  assert_int_equal(access(at(t, "d/u63.d"), F_OK), -1);
}

/* A manifest another user owns is not trusted (root only: chown). */
static void test_manifest_owner(void **state) {
  struct tmp *t = *state;
  if (geteuid() != 0)
    skip();
  assert_null(write_set(t, big, N(big), false, NULL));
  assert_int_equal(chown(at(t, "d/" MANIFEST), 65534, 65534), 0);
  char *before = snapshot(t);
  char *msg = write_set(t, big, 1, false, NULL);
  assert_non_null(msg);
  assert_non_null(strstr(msg, MANIFEST " is owned by another user: not a list placer can have written"));
  free(msg);
  char *after = snapshot(t);
  assert_string_equal(before, after);
  free(before);
  free(after);
}

/* The directory itself. */
static void test_check_dir(void **state) {
  struct tmp *t = *state;
  struct placer_error *err = NULL;
  assert_int_equal(placer_fileset_check_dir(t->dir, &err), 0);
  assert_int_equal(symlink(t->dir, at(t, "link")), 0);
  static const struct {
    const char *rel, *says;
  } bad[] = {
    { "link", "a symbolic link (placer writes through none: name the directory itself)" },
    { "missing", "No such file or directory" },
    { "d/" MANIFEST, "not a directory" },
  };
  assert_null(write_set(t, big, 1, false, NULL));
  for (size_t i = 0; i < N(bad); i++) {
    assert_int_equal(placer_fileset_check_dir(at(t, bad[i].rel), &err), -1);
    assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
    assert_string_equal(err->msg, bad[i].says);
    placer_error_clear(&err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_write_again_and_smaller, setup, teardown),
    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
    cmocka_unit_test_setup_teardown(test_stale_not_a_file, setup, teardown),
    cmocka_unit_test_setup_teardown(test_roll_back, setup, teardown),
    cmocka_unit_test_setup_teardown(test_manifest_owner, setup, teardown),
    cmocka_unit_test_setup_teardown(test_check_dir, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
