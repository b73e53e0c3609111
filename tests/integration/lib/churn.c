/* A load-test process for placer apply (apply_load.sh, bench/apply-speed.sh):
 * churn TAG N [PERIOD_MS] keeps N threads: N - 1 that sleep and one that,
 * every PERIOD_MS (default 10), starts a detached thread living 1-10 ms, so
 * threads are born and end all the time while placer moves and checks the
 * process (about 100 a second; 60 such processes are what a 2-core machine
 * takes).  TAG is only on the command line (for matching).  SIGTERM ends it.
 * Built by the test with cc -pthread (no dependency). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned period_ms = 10;
static pthread_attr_t small;

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static void *short_lived(void *arg) {
  sleep_ms(1 + (unsigned)(uintptr_t)arg % 10);
  return NULL;
}

static void *sleeper(void *arg) {
  for (;;)
    pause();
  return arg;
}

static void *churner(void *arg) {
  unsigned seed = (unsigned)getpid();
  for (;;) {
    sleep_ms(period_ms);
    pthread_t t;
    if (pthread_create(&t, &small, short_lived, (void *)(uintptr_t)rand_r(&seed)) == 0)
      pthread_detach(t);
  }
  return arg;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: churn TAG N [PERIOD_MS]\n");
    return 2;
  }
  int n = atoi(argv[2]);
  if (argc > 3)
    period_ms = (unsigned)atoi(argv[3]);
  pthread_attr_init(&small);
  pthread_attr_setstacksize(&small, 64 * 1024);
  for (int i = 0; i < n; i++) {
    pthread_t t;
    if (pthread_create(&t, &small, i == 0 ? churner : sleeper, NULL) != 0) {
      perror("churn: pthread_create");
      return 1;
    }
  }
  for (;;)
    pause();
}
