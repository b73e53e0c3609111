/* A storm of short processes for the watcher's tests and benchmark
 * (tests/integration/watch_storm.sh, bench/watch-latency.sh):
 *
 *   storm --rate N --seconds T --tag TAG --in GROUP --lines K --out FILE [--every E] [--life-ms L]
 *         [--patience-ms P]
 *
 * starts N processes a second for T seconds (posix_spawn of itself), one in
 * E (default 10) with the command line "storm-child m TAG ..." that a
 * watcher rule matches ("storm-child m TAG *"), the others "storm-child o
 * TAG ...".  Each child lives L ms (default 50); a matching one not placed
 * by then waits on up to P ms in all (default L: a test that must see every
 * one placed gives it time, a benchmark that counts misses does not).  A
 * matching child takes
 * its own clock as its first instruction, then reads /proc/self/cgroup
 * (every 0.1 ms for 20 ms, then every ms) until K of its lines name GROUP
 * ("/placer-t-x/w/storm": it is in the group in every hierarchy the
 * watcher moves it in): the time between is what it saw of exec to placed,
 * an upper bound (its exec came a little before its first instruction; the
 * poll is up to 0.1 ms late).  Not placed within P ms: missed.  Any
 * other child checks once, at its end, whether it was moved there
 * (touched).  Each child appends one line to FILE ("m PID PLACED NS",
 * "o PID TOUCHED"); the parent waits for all, then prints one summary line
 * and exits 0 (1 when it could not start them).  Built static by CMake,
 * so an exec costs little beside what it measures. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t) {
  struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

/* How many lines of /proc/self/cgroup end in ":GROUP". */
static int lines_in(const char *group) {
  char buf[4096];
  int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  size_t glen = strlen(group);
  int count = 0;
  for (char *line = buf; *line;) {
    char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len > glen && line[len - glen - 1] == ':' && memcmp(line + len - glen, group, glen) == 0)
      count++;
    if (end == NULL)
      break;
    line = end + 1;
  }
  return count;
}

static void append(const char *path, const char *line) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return;
  /* O_APPEND and one write under PIPE_BUF: lines of children never mix. */
  ssize_t ignored = write(fd, line, strlen(line));
  (void)ignored;
  close(fd);
}

/* storm-child m|o TAG GROUP LINES LIFE_MS PATIENCE_MS FILE */
static int child(char **argv) {
  uint64_t t0 = now_ns();
  bool matching = strcmp(argv[1], "m") == 0;
  const char *group = argv[3];
  int want = atoi(argv[4]);
  uint64_t deadline = t0 + (uint64_t)atoll(argv[5]) * 1000000u;
  uint64_t give_up = t0 + (uint64_t)atoll(argv[6]) * 1000000u;
  char line[128];
  if (matching) {
    uint64_t placed_at = 0;
    for (uint64_t t = t0; t < (give_up > deadline ? give_up : deadline); t = now_ns()) {
      if (lines_in(group) >= want) {
        placed_at = now_ns();
        break;
      }
      struct timespec pause = { 0, t - t0 < 20000000u ? 100000L : 1000000L };
      nanosleep(&pause, NULL);
    }
    /* A child kept off the CPU past its end by the others may have been
     * placed meanwhile: one last look before it counts as missed. */
    if (placed_at == 0 && lines_in(group) >= want)
      placed_at = now_ns();
    sleep_until(deadline);
    snprintf(line, sizeof(line), "m %d %d %llu\n", (int)getpid(), placed_at != 0,
             (unsigned long long)(placed_at ? placed_at - t0 : 0));
  } else {
    sleep_until(deadline);
    snprintf(line, sizeof(line), "o %d %d\n", (int)getpid(), lines_in(group) > 0);
  }
  append(argv[7], line);
  return 0;
}

static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static double percentile_ms(const uint64_t *sorted, size_t n, double p) {
  if (n == 0)
    return 0;
  size_t k = (size_t)(p * (double)(n - 1) + 0.5); /* nearest rank */
  return (double)sorted[k] / 1e6;
}

static int summarize(const char *path, unsigned started, unsigned matching, double seconds) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    perror("storm: read the children's lines");
    return 1;
  }
  unsigned m_lines = 0, placed = 0, o_lines = 0, touched = 0;
  uint64_t *lat = calloc(matching ? matching : 1, sizeof(*lat));
  char kind;
  int pid, flag;
  unsigned long long ns;
  char buf[128];
  while (fgets(buf, sizeof(buf), f)) {
    if (sscanf(buf, "m %d %d %llu", &pid, &flag, &ns) == 3 && buf[0] == 'm') {
      m_lines++;
      if (flag && lat && placed < matching)
        lat[placed++] = ns;
    } else if (sscanf(buf, "%c %d %d", &kind, &pid, &flag) == 3 && kind == 'o') {
      o_lines++;
      touched += flag != 0;
    }
  }
  fclose(f);
  qsort(lat, placed, sizeof(*lat), by_value);
  printf("storm: started %u (%u matching) in %.2f s (%.0f/s); matching: %u placed, %u missed, %u reported; others: %u "
         "touched, %u reported; seen by the children, exec to placed: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
         started, matching, seconds, seconds > 0 ? started / seconds : 0, placed, matching - placed, m_lines, touched,
         o_lines, percentile_ms(lat, placed, 0.5), percentile_ms(lat, placed, 0.99),
         placed ? (double)lat[placed - 1] / 1e6 : 0);
  free(lat);
  return m_lines == matching && o_lines == started - matching ? 0 : 1;
}

int main(int argc, char **argv) {
  if (strcmp(argv[0], "storm-child") == 0 && argc == 8)
    return child(argv);
  unsigned rate = 0, seconds = 0, every = 10, life_ms = 50, patience_ms = 0, lines = 1;
  const char *tag = NULL, *group = NULL, *out = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (strcmp(k, "--rate") == 0)
      rate = (unsigned)atoi(v);
    else if (strcmp(k, "--seconds") == 0)
      seconds = (unsigned)atoi(v);
    else if (strcmp(k, "--every") == 0)
      every = (unsigned)atoi(v);
    else if (strcmp(k, "--life-ms") == 0)
      life_ms = (unsigned)atoi(v);
    else if (strcmp(k, "--patience-ms") == 0)
      patience_ms = (unsigned)atoi(v);
    else if (strcmp(k, "--lines") == 0)
      lines = (unsigned)atoi(v);
    else if (strcmp(k, "--tag") == 0)
      tag = v;
    else if (strcmp(k, "--in") == 0)
      group = v;
    else if (strcmp(k, "--out") == 0)
      out = v;
  }
  if (argc % 2 == 0 || rate == 0 || seconds == 0 || every == 0 || !tag || !group || !out) {
    fprintf(stderr, "usage: storm --rate N --seconds T --tag TAG --in GROUP --lines K --out FILE [--every E] "
                    "[--life-ms L] [--patience-ms P]\n");
    return 2;
  }
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(out);
    return 1;
  }
  close(fd);
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (len <= 0) {
    perror("storm: /proc/self/exe");
    return 1;
  }
  self[len] = '\0';
  char lines_text[16], life_text[16], patience_text[16];
  snprintf(lines_text, sizeof(lines_text), "%u", lines);
  snprintf(life_text, sizeof(life_text), "%u", life_ms);
  snprintf(patience_text, sizeof(patience_text), "%u", patience_ms > life_ms ? patience_ms : life_ms);
  unsigned total = rate * seconds, matching = 0, started = 0, running = 0;
  uint64_t t_start = now_ns();
  for (unsigned i = 0; i < total; i++) {
    sleep_until(t_start + (uint64_t)i * 1000000000u / rate);
    bool m = i % every == 0;
    char *child_argv[] = { "storm-child", m ? "m" : "o", (char *)tag, (char *)group, lines_text,
                           life_text,     patience_text, (char *)out, NULL };
    pid_t pid;
    int ret = posix_spawn(&pid, self, NULL, NULL, child_argv, environ);
    if (ret != 0) {
      fprintf(stderr, "storm: posix_spawn: %s\n", strerror(ret));
      break;
    }
    started++, running++;
    matching += m;
    while (running > 0 && waitpid(-1, NULL, WNOHANG) > 0)
      running--;
  }
  double spent = (double)(now_ns() - t_start) / 1e9;
  while (running > 0 && waitpid(-1, NULL, 0) > 0)
    running--;
  int ret = summarize(out, started, matching, spent);
  return started == total ? ret : 1;
}
