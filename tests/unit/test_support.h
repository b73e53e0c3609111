/* Helpers shared by the unit tests. */
#ifndef PLACER_TEST_SUPPORT_H
#define PLACER_TEST_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* Absolute path of a file under tests/ (PLACER_TEST_DATA); static buffer. */
const char *test_data_path(const char *relative);
/* Whole file as a NUL-terminated string, or NULL; caller frees. */
char *test_read_file(const char *path);
/* TEXT into PATH; fails the test when it cannot. */
void test_write_file(const char *path, const char *text);
/* The fixture topologies: every .xml file under tests/fixtures, sorted, at
 * most CAP names of up to 127 bytes. */
size_t test_list_fixtures(char names[][128], size_t cap);
/* PLACER_UPDATE_GOLDEN is set (not "0"): the golden tests write their files. */
bool test_updating_golden(void);
/* ACTUAL against the golden file tests/GOLDEN_RELATIVE, byte for byte: the
 * test fails (ACTUAL left beside it as .actual for diff -u) when they differ
 * or the file is missing; with PLACER_UPDATE_GOLDEN the file is written. */
void test_compare_golden(const char *golden_relative, const char *actual);

/* Look-ups the tests use as oracles (placer itself needs neither). */
struct placer_topology;
/* The NUMA node with OS index OS_INDEX, NULL when absent. */
const struct placer_numa_node *placer_topology_numa_by_os(const struct placer_topology *topo, unsigned os_index);
/* The core holding PU PU_OS_INDEX, NULL when absent. */
const struct placer_core *placer_topology_core_of_pu(const struct placer_topology *topo, unsigned pu_os_index);

#endif
