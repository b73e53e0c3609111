/* A stop asked for by a signal (SIGINT, SIGTERM, SIGHUP): a flag that the
 * long waits look at (bench's runs, report's gnuplot), so that what placer
 * started is stopped and its temporary files go before it exits 130,
 * instead of dying in the middle with them left behind. */
#ifndef PLACER_STOP_H
#define PLACER_STOP_H

#include <signal.h>

extern volatile sig_atomic_t placer_stop_requested;

/* SIGINT, SIGTERM and SIGHUP raise placer_stop_requested (without
 * SA_RESTART: a sleep or a wait returns early to look at it). */
void placer_stop_catch(void);

#endif
