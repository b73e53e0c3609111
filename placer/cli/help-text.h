/* What help.c (--help), help-man.c (roff) and help-completion.c (bash) share
 * to walk the commands' documentation (commands.h). */
#ifndef PLACER_CLI_HELP_TEXT_H
#define PLACER_CLI_HELP_TEXT_H

#include <stddef.h>

#include "cli/commands.h"

/* --help, which every command has and no option table lists. */
extern const struct placer_cli_option placer_cli_help_option;

/* The next word of S at or after *START (skipping blanks and newlines, which
 * *START then points past); its length, 0 at the end. */
size_t placer_cli_next_word(const char *s, size_t *start);

/* The length of the paragraph S starts with (up to a blank line). */
size_t placer_cli_paragraph_end(const char *s);

#endif
