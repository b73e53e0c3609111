/* lib/statedir.c: the state directories placer trusts and the one way it
 * reads them back (a directory others can write, a symbolic link, a FIFO,
 * a file of another owner or writable by others, a file too large: each
 * refused with one line, nothing blocks), the lock that its holder may
 * remove, the tidy-up of a directory with nothing recorded, the boot and
 * directory a state file was written for; and lib/fsfile.c's write, which
 * never follows a link planted at its temporary name. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fsfile.h"
#include "lib/statedir.h"
#include "test_support.h"

static char base[64];

static int setup(void **state) {
  (void)state;
  snprintf(base, sizeof(base), "/tmp/test_statedir.XXXXXX");
  return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", base, base);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *in_base(const char *rel) {
  static char path[4][256];
  static int next;
  char *p = path[next++ % 4];
  snprintf(p, 256, "%s/%s", base, rel);
  return p;
}

/* Opening PATH is refused (exit 2) with a message holding WANT. */
static void refused(const char *path, bool create, const char *want) {
  struct placer_statedir d;
  struct placer_error *err = NULL;
  assert_int_equal(placer_statedir_open(path, create, &d, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  if (strstr(err->msg, want) == NULL)
    fail_msg("'%s' lacks '%s'", err->msg, want);
  placer_error_free(err);
  placer_statedir_close(&d);
}

static void test_directories(void **state) {
  (void)state;
  struct placer_statedir d;
  struct placer_error *err = NULL;
  /* missing and not to be made: nothing recorded, no error, nothing made */
  assert_int_equal(placer_statedir_open(in_base("s"), false, &d, &err), 0);
  assert_int_equal(d.fd, -1);
  assert_int_equal(access(in_base("s"), F_OK), -1);
  char *text = NULL;
  assert_int_equal(placer_statedir_read(&d, "state.json", 1024, &text, NULL, &err), 1);
  placer_statedir_close(&d);
  /* made (with its parents) when asked, named by its device and inode */
  assert_int_equal(placer_statedir_open(in_base("a/b/s"), true, &d, &err), 0);
  assert_true(d.fd >= 0);
  struct stat st;
  assert_int_equal(stat(in_base("a/b/s"), &st), 0);
  char id[64];
  snprintf(id, sizeof(id), "%llu:%llu:", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  assert_true(strncmp(d.id, id, strlen(id)) == 0 && strlen(d.id) > strlen(id));
  char first[PLACER_STATEDIR_ID_MAX];
  snprintf(first, sizeof(first), "%s", d.id);
  placer_statedir_close(&d);
  /* made anew (likely in the same inode): another directory, another id */
  assert_int_equal(rmdir(in_base("a/b/s")), 0);
  assert_int_equal(placer_statedir_open(in_base("a/b/s"), true, &d, &err), 0);
  assert_string_not_equal(d.id, first);
  placer_statedir_close(&d);

  /* others may write it: refused, and so is one below a directory others may write */
  assert_int_equal(chmod(in_base("a/b/s"), 0777), 0);
  refused(in_base("a/b/s"), false, "writable by others (mode 0777): placer keeps state only where root alone");
  assert_int_equal(chmod(in_base("a/b/s"), 0755), 0);
  assert_int_equal(chmod(in_base("a"), 0777), 0);
  refused(in_base("a/b/s"), false, "above it is writable by others (mode 0777)");
  /* a sticky one above (/tmp) is fine: nobody else can rename our directory in it */
  assert_int_equal(chmod(in_base("a"), 01777), 0);
  assert_int_equal(placer_statedir_open(in_base("a/b/s"), false, &d, &err), 0);
  placer_statedir_close(&d);
  assert_int_equal(chmod(in_base("a"), 0755), 0);
  /* a link is never followed to a state, not even to a good one */
  assert_int_equal(symlink(in_base("a/b/s"), in_base("link")), 0);
  refused(in_base("link"), true, "a symbolic link (placer never follows one to its state)");
  refused(in_base("link/"), false, "a symbolic link");
  /* a file where the directory should be */
  test_write_file(in_base("file"), "x");
  refused(in_base("file"), true, "a regular file");
  refused("/", false, "name a directory of its own");
  if (geteuid() == 0) { /* another user's directory */
    assert_int_equal(mkdir(in_base("theirs"), 0755), 0);
    assert_int_equal(chown(in_base("theirs"), 65534, 65534), 0);
    refused(in_base("theirs"), false, "owned by uid 65534, not by root");
  }
}

/* Reading NAME of D is refused with a message holding WANT, at once. */
static void read_refused(const struct placer_statedir *d, const char *name, const char *want) {
  char *text = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_statedir_read(d, name, 1 << 20, &text, NULL, &err), -1);
  assert_null(text);
  if (strstr(err->msg, want) == NULL)
    fail_msg("'%s' lacks '%s'", err->msg, want);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  placer_error_free(err);
}

static void test_files(void **state) {
  (void)state;
  struct placer_statedir d;
  struct placer_error *err = NULL;
  assert_int_equal(placer_statedir_open(in_base("s"), true, &d, &err), 0);
  test_write_file(in_base("s/good.json"), "{}");
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(placer_statedir_read(&d, "good.json", 1024, &text, &len, &err), 0);
  assert_string_equal(text, "{}");
  free(text);
  assert_true(placer_statedir_has(&d, "good.json"));
  assert_false(placer_statedir_has(&d, "none.json"));

  assert_int_equal(mkfifo(in_base("s/fifo.json"), 0644), 0); /* would block a plain open forever */
  read_refused(&d, "fifo.json", "state file '");
  read_refused(&d, "fifo.json", "/s/fifo.json': a FIFO, not a regular file placer wrote");
  assert_int_equal(symlink(in_base("s/good.json"), in_base("s/link.json")), 0);
  read_refused(&d, "link.json", "a symbolic link (placer never follows one to its state)");
  test_write_file(in_base("s/open.json"), "{}");
  assert_int_equal(chmod(in_base("s/open.json"), 0666), 0);
  read_refused(&d, "open.json", "writable by others (mode 0666)");
  assert_int_equal(mkdir(in_base("s/dir.json"), 0755), 0);
  read_refused(&d, "dir.json", "a directory, not a regular file");
  int fd = open(in_base("s/big.json"), O_WRONLY | O_CREAT, 0644);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, 2 << 20), 0);
  close(fd);
  read_refused(&d, "big.json", "larger than 1 MiB");
  if (geteuid() == 0) {
    test_write_file(in_base("s/theirs.json"), "{}");
    assert_int_equal(chown(in_base("s/theirs.json"), 65534, 65534), 0);
    read_refused(&d, "theirs.json", "owned by uid 65534, not by root: placer did not write it");
  }
  placer_statedir_close(&d);
}

static void test_lock(void **state) {
  (void)state;
  struct placer_statedir d;
  struct placer_error *err = NULL;
  assert_int_equal(placer_statedir_open(in_base("s"), true, &d, &err), 0);
  int shared = -1, fd = -1, again = -1;
  /* nobody ever locked it: a shared lock is no lock, and makes no file */
  assert_int_equal(placer_statedir_lock(&d, "lock", false, &shared, NULL, &err), 0);
  assert_int_equal(shared, -1);
  assert_false(placer_statedir_has(&d, "lock"));
  assert_int_equal(placer_statedir_lock(&d, "lock", true, &fd, NULL, &err), 0);
  assert_true(fd >= 0);
  assert_int_equal(placer_statedir_lock(&d, "lock", true, &again, NULL, &err), 1); /* busy */
  assert_int_equal(placer_statedir_lock(&d, "lock", false, &shared, NULL, &err), 1);
  /* its holder removes it: the next one makes and takes a new one */
  placer_statedir_unlock_remove(&d, "lock", fd);
  assert_false(placer_statedir_has(&d, "lock"));
  assert_int_equal(placer_statedir_lock(&d, "lock", true, &again, NULL, &err), 0);
  close(again);
  /* a lock file its holder made goes with the lock; one that was there stays */
  char *made = NULL;
  assert_int_equal(placer_statedir_lock(&d, "made", true, &fd, &made, &err), 0);
  assert_non_null(made);
  assert_true(strstr(made, "/s/made") != NULL);
  placer_statedir_unlock(fd, made);
  free(made);
  assert_false(placer_statedir_has(&d, "made"));
  test_write_file(in_base("s/made"), "");
  assert_int_equal(placer_statedir_lock(&d, "made", true, &fd, &made, &err), 0);
  assert_null(made);
  placer_statedir_unlock(fd, made);
  assert_true(placer_statedir_has(&d, "made"));
  /* a FIFO at the lock's name is refused, without blocking */
  assert_int_equal(unlink(in_base("s/lock")), 0);
  assert_int_equal(mkfifo(in_base("s/lock"), 0644), 0);
  assert_int_equal(placer_statedir_lock(&d, "lock", false, &shared, NULL, &err), -1);
  assert_non_null(strstr(err->msg, "a FIFO, not a regular file"));
  placer_error_clear(&err);
  placer_statedir_close(&d);
}

static void test_tidy(void **state) {
  (void)state;
  static const char *const files[] = { "state.json", "run", NULL };
  static const char *const strays[] = { "state.log", NULL };
  static const char *const locks[] = { "lock", NULL };
  struct placer_statedir d;
  struct placer_error *err = NULL;
  assert_int_equal(placer_statedir_open(in_base("s"), true, &d, &err), 0);
  int fd = -1;
  assert_int_equal(placer_statedir_lock(&d, "lock", true, &fd, NULL, &err), 0);
  test_write_file(in_base("s/state.json"), "{}");
  test_write_file(in_base("s/state.log"), "{\"log_seq\": 1}\n");
  /* something recorded: everything stays, its log too */
  placer_statedir_tidy(in_base("s"), files, strays, locks);
  assert_true(placer_statedir_has(&d, "lock"));
  assert_true(placer_statedir_has(&d, "state.log"));
  /* nothing recorded, but the lock is held: it stays */
  assert_int_equal(unlink(in_base("s/state.json")), 0);
  placer_statedir_tidy(in_base("s"), files, strays, locks);
  assert_true(placer_statedir_has(&d, "lock"));
  close(fd);
  /* anything else in it: the lock goes, and the log of no state.json (a save killed between
   * removing the file and its log); the directory stays */
  test_write_file(in_base("s/notes.txt"), "mine");
  placer_statedir_tidy(in_base("s"), files, strays, locks);
  assert_false(placer_statedir_has(&d, "lock"));
  assert_false(placer_statedir_has(&d, "state.log"));
  assert_int_equal(access(in_base("s"), F_OK), 0);
  /* a directory at the log's name is not the log: it stays, and so does the state directory */
  assert_int_equal(unlink(in_base("s/notes.txt")), 0);
  assert_int_equal(mkdir(in_base("s/state.log"), 0755), 0);
  placer_statedir_close(&d);
  placer_statedir_tidy(in_base("s"), files, strays, locks);
  assert_int_equal(access(in_base("s/state.log"), F_OK), 0);
  /* nothing at all: the directory goes too */
  assert_int_equal(rmdir(in_base("s/state.log")), 0);
  placer_statedir_tidy(in_base("s"), files, strays, locks);
  assert_int_equal(access(in_base("s"), F_OK), -1);
}

static void test_binding(void **state) {
  (void)state;
  struct placer_statedir d;
  struct placer_error *err = NULL;
  assert_int_equal(placer_statedir_open(in_base("s"), true, &d, &err), 0);
  assert_true(strlen(placer_boot_id()) == 36);
  assert_int_equal(placer_statedir_check_binding(&d, "f.json", placer_boot_id(), d.id, &err), 0);
  assert_int_equal(placer_statedir_check_binding(&d, "f.json", NULL, NULL, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_SYSTEM);
  assert_non_null(strstr(err->msg, "/s/f.json records no boot and directory: this placer did not write it"));
  placer_error_clear(&err);
  assert_int_equal(placer_statedir_check_binding(&d, "f.json", "00000000-0000-0000-0000-000000000000", d.id, &err), -1);
  assert_non_null(strstr(err->msg, "was written in another boot (00000000-0000-0000-0000-000000000000)"));
  placer_error_clear(&err);
  assert_int_equal(placer_statedir_check_binding(&d, "f.json", placer_boot_id(), "1:2", &err), -1);
  assert_non_null(strstr(err->msg, "was written for another directory (1:2; this one is "));
  placer_error_clear(&err);
  placer_statedir_close(&d);
}

/* A link (or FIFO) planted at the temporary name of an atomic write is
 * replaced, never written through. */
static void test_write_no_follow(void **state) {
  (void)state;
  assert_int_equal(mkdir(in_base("s"), 0755), 0);
  test_write_file(in_base("victim"), "precious\n");
  assert_int_equal(symlink(in_base("victim"), in_base("s/.state.json.tmp")), 0);
  struct placer_error *err = NULL;
  assert_int_equal(placer_file_replace(in_base("s"), "state.json", "{}", &err), 0);
  char *text = test_read_file(in_base("victim"));
  assert_string_equal(text, "precious\n");
  free(text);
  text = test_read_file(in_base("s/state.json"));
  assert_string_equal(text, "{}\n");
  free(text);
  assert_int_equal(mkfifo(in_base("s/.state.json.tmp"), 0644), 0);
  assert_int_equal(placer_file_replace(in_base("s"), "state.json", "{ }", &err), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_directories, setup, teardown),
    cmocka_unit_test_setup_teardown(test_files, setup, teardown),
    cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
    cmocka_unit_test_setup_teardown(test_tidy, setup, teardown),
    cmocka_unit_test_setup_teardown(test_binding, setup, teardown),
    cmocka_unit_test_setup_teardown(test_write_no_follow, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
