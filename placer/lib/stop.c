/* The stop flag that SIGINT, SIGTERM and SIGHUP raise; see stop.h. */
#include "lib/stop.h"

#include <string.h>

volatile sig_atomic_t placer_stop_requested = 0;

static void on_stop_signal(int sig) {
  (void)sig;
  placer_stop_requested = 1;
}

void placer_stop_catch(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: sleeps and waits return early */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}
