/* The manual pages in roff (man(7) macros): placer(1) and placer-CMD(1),
 * made from the same struct placer_cli_command as `placer CMD --help`.
 * CMake writes them at build time by running `placer help --man`. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/help-text.h"

/* LEN bytes of S as roff text: backslashes and hyphens escaped (a hyphen in
 * placer's text is nearly always part of an option or a name: \- keeps it a
 * plain ASCII hyphen-minus that can be copied), newlines as spaces, and a
 * line that would start with a control character protected. */
static void man_text(FILE *out, const char *s, size_t len, bool line_start) {
  for (size_t i = 0; i < len; i++) {
    char c = s[i] == '\n' ? ' ' : s[i];
    if (line_start && (c == '.' || c == '\''))
      fputs("\\&", out);
    line_start = false;
    if (c == '\\')
      fputs("\\e", out);
    else if (c == '-')
      fputs("\\-", out);
    else
      fputc(c, out);
  }
}

static bool is_word_char(char c) {
  return isalnum((unsigned char)c) || strchr("_.=%,/+:-", c) != NULL;
}

/* A synopsis or an option's value name with the usual markup: options and
 * literal words bold, placeholders (upper case) italic, brackets, bars and
 * ellipses roman. */
static void man_markup(FILE *out, const char *s) {
  while (*s) {
    if (!is_word_char(*s) || (s[0] == '.' && s[1] == '.')) {
      size_t n = s[0] == '.' ? strspn(s, ".") : 1;
      man_text(out, s, n, false);
      s += n;
      continue;
    }
    size_t n = 0;
    while (s[n] && is_word_char(s[n]) && !(s[n] == '.' && s[n + 1] == '.'))
      n++;
    fputs(isupper((unsigned char)s[0]) ? "\\fI" : "\\fB", out);
    man_text(out, s, n, false);
    fputs("\\fR", out);
    s += n;
  }
}

/* Paragraphs separated by blank lines, each one filled. */
static void man_paragraphs(FILE *out, const char *text) {
  bool first = true;
  for (const char *p = text; *p;) {
    size_t len = placer_cli_paragraph_end(p);
    if (!first)
      fputs(".PP\n", out);
    man_text(out, p, len, true);
    fputc('\n', out);
    first = false;
    p += len;
    while (*p == '\n')
      p++;
  }
}

/* Lines "TERM what it means" as a tagged list. */
static void man_terms(FILE *out, const char *text) {
  for (const char *line = text; *line;) {
    size_t len = strcspn(line, "\n"), term = strcspn(line, " ");
    if (term > len)
      term = len;
    fputs(".TP\n.B ", out);
    man_text(out, line, term, false);
    fputc('\n', out);
    const char *what = line + term + (term < len);
    man_text(out, what, (size_t)(line + len - what), true);
    fputc('\n', out);
    line += len + (line[len] == '\n');
  }
}

static void man_option(FILE *out, const struct placer_cli_option *o) {
  fputs(".TP\n\\fB\\-\\-", out);
  man_text(out, o->name, strlen(o->name), false);
  fputs("\\fR", out);
  if (o->arg) {
    fputc(' ', out);
    man_markup(out, o->arg);
  }
  fputc('\n', out);
  man_text(out, o->help, strlen(o->help), true);
  fputc('\n', out);
}

/* "$ command" lines in a no-fill block, the other lines as paragraphs. */
static void man_examples(FILE *out, const char *text) {
  for (const char *line = text; *line;) {
    size_t len = strcspn(line, "\n");
    if (len == 0) {
      line++;
      continue;
    }
    if (strncmp(line, "$ ", 2) == 0) {
      fputs(".PP\n.RS 4\n.nf\n", out);
      while (strncmp(line, "$ ", 2) == 0) {
        man_text(out, line, len, true);
        fputc('\n', out);
        line += len + (line[len] == '\n');
        len = strcspn(line, "\n");
      }
      fputs(".fi\n.RE\n", out);
      continue;
    }
    fputs(".PP\n", out);
    man_text(out, line, len, true);
    fputc('\n', out);
    line += len + (line[len] == '\n');
  }
}

/* "placer-apply(1), lstopo(1)" as cross references. */
static void man_see_also(FILE *out, const char *first, const char *list) {
  fputs(".SH SEE ALSO\n", out);
  bool any = false;
  for (const char *lists[] = { first, list }, **l = lists; l < lists + 2; l++) {
    for (const char *p = *l; p && *p;) {
      size_t len = strcspn(p, ",");
      const char *paren = memchr(p, '(', len);
      if (any)
        fputs(",\n", out);
      fputs(".BR ", out);
      man_text(out, p, paren ? (size_t)(paren - p) : len, false);
      if (paren) {
        fputc(' ', out);
        fwrite(paren, 1, (size_t)(p + len - paren), out);
      }
      any = true;
      p += len;
      while (*p == ',' || *p == ' ')
        p++;
    }
  }
  fputc('\n', out);
}

int placer_cli_print_man(const struct placer_cli_command *cmd, FILE *out) {
  const struct placer_cli_command *doc = cmd ? cmd : &placer_cli_main;
  char page[64], title[64];
  snprintf(page, sizeof(page), cmd ? "placer-%s" : "placer", doc->name);
  for (size_t i = 0; i <= strlen(page); i++)
    title[i] = (char)toupper((unsigned char)page[i]);
  fprintf(out, ".\\\" %s(1), made by 'placer help --man%s%s' from %s; edit that file, not this page.\n", page,
          cmd ? " " : "", cmd ? cmd->name : "", cmd ? "placer/cli/cmd-*.c" : "placer/cli/main.c");
  fprintf(out, ".TH %s 1 \"\" \"placer %s\" \"placer manual\"\n", title, PLACER_VERSION);
  /* no hyphenation, ragged right: paths and option names stay whole */
  fputs(".nh\n.ad l\n", out);
  fputs(".SH NAME\n", out);
  man_text(out, page, strlen(page), true);
  fputs(" \\- ", out);
  man_text(out, doc->summary, strlen(doc->summary), false);
  fputs("\n.SH SYNOPSIS\n", out);
  for (size_t i = 0; i < sizeof(doc->synopsis) / sizeof(doc->synopsis[0]) && doc->synopsis[i]; i++) {
    if (i > 0)
      fputs(".br\n", out);
    fputs(".B placer", out);
    if (cmd) {
      fputc(' ', out);
      man_text(out, cmd->name, strlen(cmd->name), false);
    }
    fputc('\n', out);
    if (*doc->synopsis[i]) {
      man_markup(out, doc->synopsis[i]);
      fputc('\n', out);
    }
  }
  fputs(".SH DESCRIPTION\n", out);
  man_paragraphs(out, doc->description);
  if (cmd == NULL) {
    fputs(".SH COMMANDS\n", out);
    for (size_t i = 0; i < placer_cli_n_commands; i++) {
      const struct placer_cli_command *c = placer_cli_commands[i];
      fprintf(out, ".TP\n.B placer %s\n", c->name);
      man_text(out, c->summary, strlen(c->summary), true);
      fputc('\n', out);
    }
  }
  fputs(".SH OPTIONS\n", out);
  for (const struct placer_cli_option *o = doc->options; o && o->name; o++)
    man_option(out, o);
  man_option(out, &placer_cli_help_option);
  fputs(".SH EXIT STATUS\n", out);
  man_terms(out, doc->exit_status);
  if (doc->environment) {
    fputs(".SH ENVIRONMENT\n", out);
    man_terms(out, doc->environment);
  }
  if (doc->files) {
    fputs(".SH FILES\n", out);
    man_terms(out, doc->files);
  }
  if (doc->examples) {
    fputs(".SH EXAMPLES\n", out);
    man_examples(out, doc->examples);
  }
  if (cmd) {
    man_see_also(out, "placer(1)", doc->see_also);
    return ferror(out) ? -1 : 0;
  }
  /* placer(1) refers to every command's page */
  char *pages = NULL;
  size_t len = 0;
  FILE *list = open_memstream(&pages, &len);
  if (list == NULL)
    return -1;
  for (size_t i = 0; i < placer_cli_n_commands; i++)
    fprintf(list, "%splacer-%s(1)", i ? ", " : "", placer_cli_commands[i]->name);
  int rc = fclose(list);
  if (rc == 0)
    man_see_also(out, pages, doc->see_also);
  free(pages);
  return rc != 0 || ferror(out) ? -1 : 0;
}
