/* placer_test_ceph_counters: Ceph's counters read by placer's own code
 * (bench/ceph-counters-read.c, results/ceph-counters*.c) for
 * tests/integration/ceph_counters.sh, on a cluster of libexec/ceph-cluster.sh.
 *
 *   run DIR TIMEOUT_MS CSV -- CMD [ARG...]   every OSD's and MDS's perf dump (DIR/daemons,
 *       DIR/run/ceph-NAME.asok) before and after CMD; the run's counters as summary.json
 *       holds them on stdout, as ceph-counters.csv into CSV; exit 1 when CMD failed
 *   read DAEMON SOCKET TIMEOUT_MS            one read: "ok N_COUNTERS MS" or "missing MS WHY"
 *   csv-check CSV                            read CSV back: "RUN DAEMON STATE N_COUNTERS" a
 *       line; a damaged file: its one line on stderr and the reader's exit code */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/ceph-counters-read.h"
#include "results/ceph-counters.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void) {
  fprintf(stderr, "usage: placer_test_ceph_counters run DIR TIMEOUT_MS CSV -- CMD [ARG...] | read DAEMON SOCKET "
                  "TIMEOUT_MS | csv-check CSV\n");
  return 2;
}

static int die(struct placer_error *err) {
  fprintf(stderr, "placer_test_ceph_counters: %s\n", err->msg);
  return err->exit_code;
}

/* The OSDs and MDSs of the cluster in DIR, in start order. */
static size_t cluster_daemons(const char *dir, struct placer_bench_ceph_daemon *d, size_t cap) {
  char path[512], line[128];
  snprintf(path, sizeof(path), "%s/daemons", dir);
  FILE *f = fopen(path, "r");
  size_t n = 0;
  enum placer_ceph_daemon_type type;
  while (f && n < cap && fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = '\0';
    if (placer_ceph_daemon_type_of(line, &type) < 0)
      continue;
    char *socket = NULL;
    if (asprintf(&socket, "%s/run/ceph-%s.asok", dir, line) < 0)
      exit(4);
    d[n].daemon = strdup(line);
    d[n++].socket = socket;
  }
  if (f)
    fclose(f);
  return n;
}

static int cmd_run(int argc, char **argv) {
  if (argc < 7 || strcmp(argv[5], "--") != 0)
    return usage();
  struct placer_bench_ceph_daemon d[64];
  size_t n = cluster_daemons(argv[2], d, 64);
  unsigned timeout_ms = (unsigned)atoi(argv[3]);
  struct placer_bench_ceph_snapshot before, after;
  struct placer_ceph_run_counters run;
  struct placer_error *err = NULL;
  if (placer_bench_ceph_snapshot_take(d, n, timeout_ms, &before, &err) < 0)
    return die(err);
  double t0 = now_s();
  pid_t pid = fork();
  if (pid == 0) { /* its output goes to stderr: stdout is the counters' */
    dup2(2, 1);
    execvp(argv[6], argv + 6);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  double duration_s = now_s() - t0;
  if (placer_bench_ceph_snapshot_take(d, n, timeout_ms, &after, &err) < 0 ||
      placer_bench_ceph_snapshot_delta(d, &before, &after, &run, &err) < 0)
    return die(err);
  json_t *j = placer_ceph_run_counters_to_json(&run, duration_s);
  json_object_set_new(j, "duration_s", json_real(duration_s));
  json_dumpf(j, stdout, JSON_INDENT(1));
  putchar('\n');
  FILE *csv = fopen(argv[4], "w");
  if (csv == NULL) {
    perror(argv[4]);
    return 4;
  }
  placer_ceph_csv_write_header(csv);
  placer_ceph_csv_write_run(csv, "test", 0, "alone", "load", &run);
  fclose(csv);
  json_decref(j);
  placer_ceph_run_counters_free(&run);
  placer_bench_ceph_snapshot_free(&before);
  placer_bench_ceph_snapshot_free(&after);
  for (size_t i = 0; i < n; i++) {
    free((char *)d[i].daemon);
    free((char *)d[i].socket);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int cmd_read(int argc, char **argv) {
  if (argc != 5)
    return usage();
  struct placer_ceph_counters c;
  struct placer_error *err = NULL;
  char why[256];
  double t0 = now_s();
  int rc = placer_bench_ceph_counters_read(argv[2], argv[3], (unsigned)atoi(argv[4]), &c, why, sizeof(why), &err);
  long ms = (long)((now_s() - t0) * 1000);
  if (rc < 0)
    return die(err);
  if (rc > 0) {
    printf("missing %ld %s\n", ms, why);
    return 0;
  }
  printf("ok %zu %ld\n", c.n, ms);
  placer_ceph_counters_free(&c);
  return 0;
}

static int cmd_csv_check(int argc, char **argv) {
  if (argc != 3)
    return usage();
  struct placer_ceph_csv_run *runs;
  size_t n;
  struct placer_error *err = NULL;
  if (placer_ceph_csv_load(argv[2], &runs, &n, &err) < 0)
    return die(err);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < runs[i].counters.n; k++) {
      const struct placer_ceph_delta *d = &runs[i].counters.daemons[k];
      printf("%s-r%u %s %s %zu\n", runs[i].variant, runs[i].repeat, d->daemon, placer_ceph_delta_state_names[d->state],
             d->n);
    }
  placer_ceph_csv_runs_free(runs, n);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  if (strcmp(argv[1], "run") == 0)
    return cmd_run(argc, argv);
  if (strcmp(argv[1], "read") == 0)
    return cmd_read(argc, argv);
  if (strcmp(argv[1], "csv-check") == 0)
    return cmd_csv_check(argc, argv);
  return usage();
}
