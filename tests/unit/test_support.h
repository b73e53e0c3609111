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

#endif
