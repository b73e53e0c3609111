/* Whether a study's design can reach a conclusion at all: the smallest p
 * its repeats let the verdict's tests give (stats.h's exact distributions),
 * against the study's alpha.  Checked before the first run (placer bench
 * refuses a design that cannot conclude unless --allow-inconclusive), shown
 * by --dry-run and by the report. */
#ifndef PLACER_BENCH_DESIGN_H
#define PLACER_BENCH_DESIGN_H

#include <stdbool.h>
#include <stddef.h>

/* The most repeats a study may have (study.c's repeats: 1..100). */
#define PLACER_BENCH_DESIGN_MAX_REPEATS 100

struct placer_bench_design {
  bool compares;         /* two variants or more: there are changes to judge */
  unsigned repeats;      /* the repeats a verdict may be given on (fixed, or the dynamic minimum) */
  double alpha;          /* a change is significant when p < alpha */
  double min_p_paired;   /* Wilcoxon signed-rank, REPEATS pairs */
  double min_p_unpaired; /* Mann-Whitney, REPEATS vs REPEATS */
  double min_p;          /* the smaller: a verdict takes the smaller p of the two tests */
  bool can_conclude;     /* min_p < alpha (always true without changes to judge) */
  /* The least repeats with which each test can go below alpha (0: not
   * within PLACER_BENCH_DESIGN_MAX_REPEATS). */
  unsigned repeats_unpaired, repeats_paired;
};

void placer_bench_design_of(unsigned repeats, size_t n_variants, double alpha, struct placer_bench_design *out);

/* "3 repeats: a paired p cannot go below 0.25, an unpaired one below 0.10
 * (alpha 0.05); use at least 4 (6 for the paired test)" -- why a design
 * cannot conclude and the fix. */
void placer_bench_design_refusal(const struct placer_bench_design *d, char *buf, size_t len);
/* "6 repeats: the smallest p is 0.031 paired (Wilcoxon, 6 pairs) and 0.0022
 * unpaired (Mann-Whitney, 6 vs 6); alpha 0.05: a change can be
 * significant" -- the figure --dry-run prints. */
void placer_bench_design_describe(const struct placer_bench_design *d, char *buf, size_t len);

#endif
