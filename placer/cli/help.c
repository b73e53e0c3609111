/* `placer CMD --help` and `placer --help`, and getopt's option table, all
 * made from the commands' struct placer_cli_command (commands.h). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/help-text.h"
#include "lib/error.h"

/* Where --help wraps its text: an 80-column terminal. */
#define HELP_WIDTH 79
/* The column where an option's help starts when its name fits before it. */
#define HELP_OPTION_COLUMN 26

const struct placer_cli_option placer_cli_help_option = {
  "help", 'h', NULL, PLACER_CLI_TEXT, "Print the usage, the options and the exit codes, and exit."
};

const struct option *placer_cli_getopt_table(const struct placer_cli_command *cmd, struct option *out) {
  size_t n = 0;
  for (const struct placer_cli_option *o = cmd->options; o && o->name; o++) {
    if (n == PLACER_CLI_MAX_OPTIONS) {
      /* a programming error that the first --help of the command shows */
      fprintf(stderr, "placer %s: more than %d options; raise PLACER_CLI_MAX_OPTIONS\n", cmd->name,
              PLACER_CLI_MAX_OPTIONS);
      abort();
    }
    out[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
  }
  out[n++] = (struct option){ "help", no_argument, NULL, 'h' };
  out[n] = (struct option){ NULL, 0, NULL, 0 };
  return out;
}

const struct placer_cli_command *placer_cli_find(const char *name) {
  for (size_t i = 0; i < placer_cli_n_commands; i++)
    if (strcmp(placer_cli_commands[i]->name, name) == 0)
      return placer_cli_commands[i];
  return NULL;
}

size_t placer_cli_next_word(const char *s, size_t *start) {
  size_t i = *start;
  while (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')
    i++;
  *start = i;
  size_t len = 0;
  while (s[i + len] && s[i + len] != ' ' && s[i + len] != '\n' && s[i + len] != '\t')
    len++;
  return len;
}

size_t placer_cli_paragraph_end(const char *s) {
  const char *end = strstr(s, "\n\n");
  return end ? (size_t)(end - s) : strlen(s);
}

/* Print the LEN bytes of TEXT word by word from column COL, wrapping to
 * column INDENT; ends the last line. */
static void print_wrapped(FILE *out, const char *text, size_t len, int col, int indent) {
  char *copy = strndup(text, len);
  if (copy == NULL)
    return;
  bool first = true;
  size_t pos = 0, n;
  while ((n = placer_cli_next_word(copy, &pos)) > 0) {
    if (!first && col + 1 + (int)n > HELP_WIDTH) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    } else if (!first) {
      fputc(' ', out);
      col++;
    }
    fwrite(copy + pos, 1, n, out);
    col += (int)n;
    pos += n;
    first = false;
  }
  fputc('\n', out);
  free(copy);
}

/* A synopsis form wrapped so that no [...] group is split. */
static void print_synopsis(FILE *out, const char *lead, const char *name, const char *form) {
  int indent = fprintf(out, "%s%s%s", lead, name, *form ? " " : "");
  int col = indent;
  const char *p = form;
  bool first = true;
  while (*p) {
    const char *q = p;
    int depth = 0;
    while (*q && (depth > 0 || *q != ' ')) {
      depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
      q++;
    }
    int n = (int)(q - p);
    if (!first && col + 1 + n > HELP_WIDTH) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    } else if (!first) {
      fputc(' ', out);
      col++;
    }
    fwrite(p, 1, (size_t)n, out);
    col += n;
    first = false;
    p = *q ? q + 1 : q;
  }
  fputc('\n', out);
}

static void print_option(FILE *out, const struct placer_cli_option *o) {
  int col = fprintf(out, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
  if (col + 2 > HELP_OPTION_COLUMN) {
    fputc('\n', out);
    col = 0;
  }
  fprintf(out, "%*s", HELP_OPTION_COLUMN - col, "");
  print_wrapped(out, o->help, strlen(o->help), HELP_OPTION_COLUMN, HELP_OPTION_COLUMN);
}

int placer_cli_print_help(const struct placer_cli_command *cmd) {
  FILE *out = stdout;
  cleanup_free char *name = NULL;
  if (asprintf(&name, "placer %s", cmd->name) < 0)
    return PLACER_EXIT_SYSTEM;
  for (size_t i = 0; i < sizeof(cmd->synopsis) / sizeof(cmd->synopsis[0]) && cmd->synopsis[i]; i++)
    print_synopsis(out, i == 0 ? "usage: " : "       ", name, cmd->synopsis[i]);
  for (const char *p = cmd->description; *p;) {
    size_t len = placer_cli_paragraph_end(p);
    fputc('\n', out);
    print_wrapped(out, p, len, 0, 0);
    p += len;
    while (*p == '\n')
      p++;
  }
  fprintf(out, "\noptions:\n");
  for (const struct placer_cli_option *o = cmd->options; o && o->name; o++)
    print_option(out, o);
  print_option(out, &placer_cli_help_option);
  fprintf(out, "\nexit status:\n");
  for (const char *line = cmd->exit_status; *line;) {
    size_t len = strcspn(line, "\n"), code = strcspn(line, " ");
    int col = fprintf(out, "  %-4.*s ", (int)code, line);
    print_wrapped(out, line + code, len - code, col, 7);
    line += len + (line[len] == '\n');
  }
  fprintf(out, "\nThe manual page: man placer-%s (or placer help --man %s | man -l -).\n", cmd->name, cmd->name);
  return placer_finish_output(cmd->name, ferror(out) ? -1 : 0);
}

int placer_cli_print_overview(FILE *out) {
  fprintf(out, "usage: placer COMMAND [OPTIONS] [ARGS]\n"
               "       placer --version\n\ncommands:\n");
  for (size_t i = 0; i < placer_cli_n_commands; i++)
    fprintf(out, "  %-8s %s\n", placer_cli_commands[i]->name, placer_cli_commands[i]->summary);
  fprintf(out, "\n'placer COMMAND --help' describes each command; 'man placer-COMMAND' in full.\n");
  return ferror(out) ? -1 : 0;
}
