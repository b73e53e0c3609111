/* The fio options a study may pass (workloads.fio_options): an allowlist,
 * each entry with why it is safe (docs/bench.md, "The fio options a study
 * may pass"). */
#ifndef PLACER_BENCH_FIO_OPTIONS_H
#define PLACER_BENCH_FIO_OPTIONS_H

#include <stddef.h>

#include "bench/study.h"

/* NULL when OPT ("--key=value") may go to fio for a study of TARGET, else
 * why not: an option that is not on the list (in any spelling but fio's
 * own exact one: no abbreviation, no other case, no '-' for '_'), a value
 * that is not one the entry allows (an engine not on the list, a path, a
 * control byte). */
const char *bench_fio_option_refused(const char *opt, const struct bench_target_ops *target);

/* The list, for the test that keeps docs/bench.md in step: the Nth
 * option's name and its alias (NULL: none); NULL past the last. */
const char *bench_fio_option_allowed(size_t n, const char **alias);

#endif
