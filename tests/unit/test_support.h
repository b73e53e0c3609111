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
/* What a state file written for DIR in this boot records (lib/statedir.h):
 * "\"boot_id\": \"...\", \"state_id\": \"DEV:INO\", " to put in a crafted
 * one; static buffer.  Fails the test when DIR cannot be opened. */
const char *test_state_binding(const char *dir);
/* PLACER_UPDATE_GOLDEN is set (not "0"): the golden tests write their files. */
bool test_updating_golden(void);
/* ACTUAL against the golden file tests/GOLDEN_RELATIVE, byte for byte: the
 * test fails (ACTUAL left beside it as .actual for diff -u) when they differ
 * or the file is missing; with PLACER_UPDATE_GOLDEN the file (and its
 * directories) is written: review the diff. */
void test_compare_golden(const char *golden_relative, const char *actual);

/* The fixture topologies: every .xml file under tests/fixtures, sorted (at
 * most CAP names of under 128 bytes). */
size_t test_list_fixtures(char names[][128], size_t cap);

/* Look-ups the tests use as oracles (placer itself needs neither). */
struct placer_topology;
/* The NUMA node with OS index OS_INDEX, NULL when absent. */
const struct placer_numa_node *placer_topology_numa_by_os(const struct placer_topology *topo, unsigned os_index);
/* The core holding PU PU_OS_INDEX, NULL when absent. */
const struct placer_core *placer_topology_core_of_pu(const struct placer_topology *topo, unsigned pu_os_index);

/* Planner tests (test_planner*.c): fail the test on any error. */
struct placer_profile;
struct placer_plan;
/* tests/fixtures/FIXTURE, or the live machine when FIXTURE is NULL. */
struct placer_topology *test_topo_load(const char *fixture);
/* A captured node (fixtures/irq/NAME: its hwloc XML, /proc and /sys) with its
 * IRQs read from a copy of the tree in /tmp (the modes of its `modes` file
 * applied); test_topo_captured_done frees it and removes the copy. */
struct placer_topology *test_topo_captured(const char *name);
void test_topo_captured_done(struct placer_topology *topo);
/* profiles/NAME.yaml */
struct placer_profile *test_profile_load(const char *name);
/* A profile from TEXT, named inline.yaml in messages. */
struct placer_profile *test_profile_text(const char *text);
struct placer_plan *test_plan_ok(const struct placer_topology *topo, const struct placer_profile *profile);
/* A plan that must fail with exit 3 (no partial plan): its message (caller frees). */
char *test_plan_infeasible(const struct placer_topology *topo, const struct placer_profile *profile);
/* A warning starts with PREFIX. */
bool test_plan_has_warning(const struct placer_plan *plan, const char *prefix);
/* The plan as JSON text (caller frees). */
char *test_plan_json(const struct placer_plan *plan);
/* The plan as `placer plan` prints it (caller frees). */
char *test_plan_text(const struct placer_plan *plan);
/* The invariants every plan keeps (docs/profiles.md, "What a plan guarantees"). */
void test_plan_invariants(const struct placer_topology *topo, const struct placer_profile *profile,
                          const struct placer_plan *plan);

#endif
