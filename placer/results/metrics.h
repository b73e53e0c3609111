/* The arithmetic of placer bench: storage cost per client operation, write
 * amplification, interference ratios and the balance point of a sweep. Pure. */
#ifndef PLACER_BENCH_METRICS_H
#define PLACER_BENCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes the devices wrote (the /proc/diskstats delta of sectors written times
 * 512, summed over the devices backing the OSDs) per byte the clients wrote
 * (fio's write io_bytes). NAN when the clients wrote nothing. */
double placer_bench_write_amplification(uint64_t device_bytes_written, uint64_t client_bytes_written);

/* Milliseconds of CPU the daemons used per client I/O: cpu_ns / 1e6 / ios.
 * NAN when there was no I/O. */
double placer_bench_cpu_ms_per_io(uint64_t cpu_ns, uint64_t client_ios);

/* with / alone: "storage with neighbour / storage alone", "neighbour with
 * storage / neighbour alone". NAN when either is NAN or alone is not > 0. */
double placer_bench_ratio(double with, double alone);

/* One step of a sweep (e.g. the number of cores the neighbours get). */
struct placer_bench_sweep_step {
  double level;          /* what the sweep varies; ascending order not required */
  double storage;        /* the storage metric at this step (median over repeats) */
  double neighbour_kept; /* the neighbours' rate with storage running over their solo rate
                            (median over passes, each against its own pass's solo run) */
};

struct placer_bench_balance_criteria {
  double storage_baseline;       /* the storage metric without neighbours */
  double storage_min_fraction;   /* e.g. 0.90 */
  double neighbour_min_fraction; /* e.g. 0.85 */
  bool storage_lower_is_better;  /* a latency: the step passes when baseline/value >= fraction */
};

struct placer_bench_balance {
  bool found;         /* some step passes, and so does every lower step */
  size_t index;       /* the highest such step (into the steps array) */
  double level;       /* its level; NAN when !found */
  bool passes_beyond; /* a step above the first failing one passes again (noise?) */
  size_t n_passing;   /* steps that pass on their own */
};

/* True when this step keeps both fractions (a NAN metric fails). */
bool placer_bench_step_passes(const struct placer_bench_sweep_step *step,
                              const struct placer_bench_balance_criteria *c);
/* The balance point: the highest level up to which every step keeps the storage
 * metric >= storage_min_fraction of its baseline AND the neighbours' rate >=
 * neighbour_min_fraction of their solo rate. Steps are taken in ascending level
 * order; "up to" means a pass at a higher level after a failure does not count
 * (it is reported in passes_beyond). A step whose level is NAN or repeats an
 * earlier step's level is ignored. */
void placer_bench_balance_point(const struct placer_bench_sweep_step *steps, size_t n,
                                const struct placer_bench_balance_criteria *c, struct placer_bench_balance *out);

#endif
