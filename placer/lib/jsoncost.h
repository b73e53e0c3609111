/* What parsing a JSON text would cost in memory, found by one pass over its
 * bytes before a parser (jansson) builds it: a parser spends 30 to 100 bytes
 * on each value of a few bytes ("0,", "{}"), so the size of a file says
 * little about the memory it takes to read (64 MB of results took 1.9 GB). */
#ifndef PLACER_JSONCOST_H
#define PLACER_JSONCOST_H

#include <stddef.h>
#include <stdint.h>

/* An upper bound of what jansson allocates for TEXT (LEN bytes), in bytes:
 * per object, array, member, string and scalar, as measured with glibc's
 * malloc, with room to spare.  -1 when a string is longer than MAX_STRING
 * bytes (*line: the line it starts on) or the text ends inside one; the
 * text is not otherwise checked (the parser does that). */
int placer_json_cost(const char *text, size_t len, size_t max_string, uint64_t *cost, size_t *line);

#endif
