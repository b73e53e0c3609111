/* Helpers shared by the unit tests. */
#ifndef PLACER_TEST_SUPPORT_H
#define PLACER_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* Absolute path of a file under tests/ (PLACER_TEST_DATA); static buffer. */
const char *test_data_path(const char *relative);
/* Whole file as a NUL-terminated string, or NULL; caller frees. */
char *test_read_file(const char *path);
/* TEXT against the golden file RELATIVE (under tests/): fails the test
 * showing both when they differ; with PLACER_UPDATE_GOLDEN set, (re)writes
 * the file first, its directories too (review the diff). */
void test_check_golden(const char *relative, const char *text);

/* Look-ups the tests use as oracles (placer itself needs neither). */
struct placer_topology;
/* The NUMA node with OS index OS_INDEX, NULL when absent. */
const struct placer_numa_node *placer_topology_numa_by_os(const struct placer_topology *topo, unsigned os_index);
/* The core holding PU PU_OS_INDEX, NULL when absent. */
const struct placer_core *placer_topology_core_of_pu(const struct placer_topology *topo, unsigned pu_os_index);

#endif
