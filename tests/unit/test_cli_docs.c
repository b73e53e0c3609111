/* The installed documentation agrees with the command line: for every command,
 * the man page that the build wrote (build/doc/man1/placer-CMD.1.gz), the
 * bash completion (build/doc/completion/placer) and `placer CMD --help` list
 * the same options, each with or without a value alike; the synopsis names
 * every option; the parser accepts every documented option; and the
 * completion script completes commands and options in bash. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_support.h"

#define MAX_ITEMS 64

/* A sorted set of option names; "name=" for one that takes a value. */
struct names {
  char *item[MAX_ITEMS];
  size_t n;
};

static void names_add(struct names *s, const char *name, size_t len, int has_value) {
  char buf[128];
  if (len == 0) /* exec's "-- COMMAND" */
    return;
  snprintf(buf, sizeof(buf), "%.*s%s", (int)len, name, has_value ? "=" : "");
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->item[i], buf) == 0)
      return;
  assert_true(s->n < MAX_ITEMS);
  s->item[s->n++] = strdup(buf);
}

static int compare_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The set as one line, sorted; static buffer per call site. */
static char *names_join(struct names *s, char *buf, size_t size) {
  qsort(s->item, s->n, sizeof(s->item[0]), compare_str);
  buf[0] = '\0';
  for (size_t i = 0; i < s->n; i++) {
    strncat(buf, s->item[i], size - strlen(buf) - 2);
    strcat(buf, " ");
  }
  return buf;
}

static void names_free(struct names *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->item[i]);
  s->n = 0;
}

/* stdout of a shell command line; its exit status in *STATUS. */
static char *capture(const char *cmd, int *status) {
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t cap = 1 << 16, len = 0;
  char *out = malloc(cap);
  assert_non_null(out);
  size_t n;
  while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (len + 1 == cap) {
      cap *= 2;
      out = realloc(out, cap);
      assert_non_null(out);
    }
  }
  out[len] = '\0';
  int st = pclose(p);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

static const char *bin(void) {
  const char *b = getenv("PLACER_BIN");
  if (b == NULL)
    skip();
  return b;
}

static const char *doc_dir(void) {
  const char *d = getenv("PLACER_DOC_DIR");
  if (d == NULL)
    skip();
  return d;
}

static size_t option_name_len(const char *p) {
  size_t n = 0;
  while (islower((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '-')
    n++;
  return n;
}

/* --help: the "options:" list ("  --name VALUE   help": one blank before a
 * value, two or more or a newline before the help) and the usage lines. */
static void help_names(const char *text, struct names *options, struct names *synopsis) {
  const char *end = strstr(text, "\n\n");
  for (const char *p = text; p && p < end && (p = strstr(p, "--")) != NULL && p < end; p += 2)
    if (p[-1] == ' ' || p[-1] == '[')
      names_add(synopsis, p + 2, option_name_len(p + 2), 0);
  const char *list = strstr(text, "\noptions:\n");
  assert_non_null(list);
  for (const char *line = list + 10; strncmp(line, "  --", 4) == 0 || strncmp(line, "    ", 4) == 0;) {
    if (strncmp(line, "  --", 4) == 0) {
      size_t n = option_name_len(line + 4);
      const char *after = line + 4 + n;
      names_add(options, line + 4, n, after[0] == ' ' && after[1] != ' ');
    }
    line = strchr(line, '\n');
    assert_non_null(line);
    line++;
  }
}

/* The roff section after ".SH NAME\n" up to the next .SH, as a new string. */
static char *man_section(const char *roff, const char *name) {
  char head[64];
  snprintf(head, sizeof(head), "\n.SH %s\n", name);
  const char *start = strstr(roff, head);
  if (start == NULL)
    return NULL;
  start += strlen(head);
  const char *end = strstr(start, "\n.SH ");
  return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* "\fB\-\-na\-me\fR" at P: the name with "\-" as "-" into OUT; its length in the source. */
static size_t man_option_at(const char *p, char *out, size_t size) {
  const char *q = p + strlen("\\fB\\-\\-");
  size_t n = 0;
  while (*q && strncmp(q, "\\fR", 3) != 0 && n + 1 < size) {
    if (strncmp(q, "\\-", 2) == 0) {
      out[n++] = '-';
      q += 2;
    } else {
      out[n++] = *q++;
    }
  }
  out[n] = '\0';
  return (size_t)(q - p);
}

static void man_names(const char *roff, struct names *options, struct names *synopsis) {
  char name[128];
  char *syn = man_section(roff, "SYNOPSIS"), *opts = man_section(roff, "OPTIONS");
  assert_non_null(syn);
  assert_non_null(opts);
  for (const char *p = syn; (p = strstr(p, "\\fB\\-\\-")) != NULL; p++) {
    man_option_at(p, name, sizeof(name));
    names_add(synopsis, name, strlen(name), 0);
  }
  for (const char *p = opts; (p = strstr(p, ".TP\n\\fB\\-\\-")) != NULL; p++) {
    const char *tag = p + 4;
    const char *after = tag + man_option_at(tag, name, sizeof(name)) + 3; /* past \fR */
    names_add(options, name, strlen(name), *after == ' ');
  }
  free(syn);
  free(opts);
}

/* _placer_options' line for CMD: "  CMD) REPLY='--a=kind --b' ;;". */
static void completion_names(const char *script, const char *cmd, struct names *options) {
  char head[64];
  snprintf(head, sizeof(head), "\n  %s) REPLY='", cmd);
  const char *p = strstr(script, head);
  assert_non_null(p);
  p += strlen(head);
  const char *end = strchr(p, '\'');
  while (p < end) {
    const char *word = p + 2, *stop = word;
    while (stop < end && *stop != ' ')
      stop++;
    const char *eq = memchr(word, '=', (size_t)(stop - word));
    names_add(options, word, (size_t)((eq ? eq : stop) - word), eq != NULL);
    p = stop + 1;
  }
}

static void test_every_command_agrees(void **state) {
  (void)state;
  char cmdline[1024], a[4096], b[4096];
  int status;
  snprintf(cmdline, sizeof(cmdline), "'%s' help --commands", bin());
  char *commands = capture(cmdline, &status);
  assert_int_equal(status, 0);
  snprintf(cmdline, sizeof(cmdline), "%s/completion/placer", doc_dir());
  char *script = test_read_file(cmdline);
  assert_non_null(script);
  size_t checked = 0;
  for (char *save = NULL, *cmd = strtok_r(commands, "\n", &save); cmd; cmd = strtok_r(NULL, "\n", &save)) {
    struct names help = { 0 }, help_syn = { 0 }, man = { 0 }, man_syn = { 0 }, comp = { 0 };
    snprintf(cmdline, sizeof(cmdline), "'%s' %s --help", bin(), cmd);
    char *text = capture(cmdline, &status);
    assert_int_equal(status, 0);
    snprintf(cmdline, sizeof(cmdline), "gzip -dc '%s/man1/placer-%s.1.gz'", doc_dir(), cmd);
    char *roff = capture(cmdline, &status);
    if (status != 0)
      fail_msg("%s: no man page (%s)", cmd, cmdline);
    help_names(text, &help, &help_syn);
    man_names(roff, &man, &man_syn);
    completion_names(script, cmd, &comp);
    if (help.n < 1 || strcmp(names_join(&help, a, sizeof(a)), names_join(&man, b, sizeof(b))) != 0)
      fail_msg("placer %s: --help lists\n  %s\nits man page\n  %s", cmd, a, b);
    if (strcmp(a, names_join(&comp, b, sizeof(b))) != 0)
      fail_msg("placer %s: --help lists\n  %s\nthe bash completion\n  %s", cmd, a, b);
    if (strcmp(names_join(&help_syn, a, sizeof(a)), names_join(&man_syn, b, sizeof(b))) != 0)
      fail_msg("placer %s: the usage of --help names\n  %s\nthe man page's SYNOPSIS\n  %s", cmd, a, b);
    /* every option but --help is in the synopsis, and nothing else */
    for (size_t i = 0; i < help.n; i++) {
      char name[128];
      snprintf(name, sizeof(name), "%s", help.item[i]);
      name[strcspn(name, "=")] = '\0';
      int found = strcmp(name, "help") == 0;
      for (size_t k = 0; k < help_syn.n && !found; k++)
        found = strcmp(help_syn.item[k], name) == 0;
      if (!found)
        fail_msg("placer %s: --%s is not in the usage line(s)", cmd, name);
    }
    for (size_t k = 0; k < help_syn.n; k++) {
      int found = 0;
      for (size_t i = 0; i < help.n && !found; i++)
        found = strncmp(help.item[i], help_syn.item[k], strlen(help_syn.item[k])) == 0 &&
                (help.item[i][strlen(help_syn.item[k])] == '\0' || help.item[i][strlen(help_syn.item[k])] == '=');
      if (!found)
        fail_msg("placer %s: the usage names --%s, which is not an option", cmd, help_syn.item[k]);
    }
    /* the parser knows every documented option: "--NAME [x] --help" never says "unknown option" */
    for (size_t i = 0; i < help.n; i++) {
      char name[128];
      snprintf(name, sizeof(name), "%s", help.item[i]);
      size_t eq = strcspn(name, "=");
      int value = name[eq] == '=';
      name[eq] = '\0';
      snprintf(cmdline, sizeof(cmdline), "'%s' %s --%s %s --help 2>&1 >/dev/null", bin(), cmd, name, value ? "x" : "");
      char *err = capture(cmdline, &status);
      if (strstr(err, "unknown option") || strstr(err, "needs a value"))
        fail_msg("placer %s --%s: %s", cmd, name, err);
      free(err);
    }
    names_free(&help);
    names_free(&help_syn);
    names_free(&man);
    names_free(&man_syn);
    names_free(&comp);
    free(text);
    free(roff);
    checked++;
  }
  assert_true(checked >= 13);
  free(commands);
  free(script);
}

/* placer(1) lists every command; a command that does not exist has no page. */
static void test_main_page(void **state) {
  (void)state;
  char cmdline[1024];
  int status;
  snprintf(cmdline, sizeof(cmdline), "gzip -dc '%s/man1/placer.1.gz'", doc_dir());
  char *roff = capture(cmdline, &status);
  assert_int_equal(status, 0);
  char *commands = man_section(roff, "COMMANDS");
  assert_non_null(commands);
  snprintf(cmdline, sizeof(cmdline), "'%s' help --commands", bin());
  char *names = capture(cmdline, &status);
  for (char *save = NULL, *cmd = strtok_r(names, "\n", &save); cmd; cmd = strtok_r(NULL, "\n", &save)) {
    char want[64];
    snprintf(want, sizeof(want), ".B placer %s\n", cmd);
    if (strstr(commands, want) == NULL)
      fail_msg("placer(1) does not list '%s'", cmd);
  }
  for (const char *section = "EXIT STATUS\0ENVIRONMENT\0FILES\0SEE ALSO\0"; *section; section += strlen(section) + 1) {
    char *s = man_section(roff, section);
    if (s == NULL)
      fail_msg("placer(1) has no %s", section);
    free(s);
  }
  snprintf(cmdline, sizeof(cmdline), "'%s' help --man nosuch 2>&1", bin());
  char *err = capture(cmdline, &status);
  assert_int_equal(status, 2);
  assert_non_null(strstr(err, "unknown command 'nosuch'"));
  free(err);
  free(names);
  free(commands);
  free(roff);
}

/* The completion in bash, as readline calls it ("--NAME=VALUE" is split into --NAME, = and VALUE). */
static void test_completion_in_bash(void **state) {
  (void)state;
  char cmdline[4096];
  int status;
  snprintf(cmdline, sizeof(cmdline),
           "cd '%s' && bash -c '. \"$0\"; t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _placer; "
           "echo \"${COMPREPLY[*]}\"; }; t placer pl; t placer plan --to; t placer apply --backend s; "
           "t placer plan --topology fixtures/32em; t placer help re; t placer size --json --vm-m; "
           "t placer plan --topology = fixtures/32em; t placer apply --backend =; t placer apply --backend = c' "
           "'%s/completion/placer'",
           getenv("PLACER_TEST_DATA") ? getenv("PLACER_TEST_DATA") : ".", doc_dir());
  char *out = capture(cmdline, &status);
  assert_int_equal(status, 0);
  assert_string_equal(out, "plan\n--topology\nsystemd\nfixtures/32em64t-2n8c2t-pci-normalio.xml\nreset report\n"
                           "--vm-memory\nfixtures/32em64t-2n8c2t-pci-normalio.xml\nauto cgroupfs systemd\ncgroupfs\n");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_command_agrees),
    cmocka_unit_test(test_main_page),
    cmocka_unit_test(test_completion_in_bash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
