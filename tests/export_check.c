/* Checks on `placer export` output parsed back from its text
 * (export_check.h). */
#include "export_check.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/cpulist.h"

static const char *fail(char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return why;
}

/* ------------------------------------------------------------------ XML */

static bool name_char(char c, bool first) {
  return isalpha((unsigned char)c) || c == '_' || (!first && (isdigit((unsigned char)c) || c == '-' || c == '.'));
}

static const char *check_xml(const char *s, char *why, size_t len) {
  const char *stack[32];
  size_t depth = 0, roots = 0;
  const char *p = s;
  while (*p) {
    if (*p != '<') {
      if (depth == 0 && !isspace((unsigned char)*p))
        return fail(why, len, "text outside the root element at offset %ld", (long)(p - s));
      if (*p == '&' || *p == '>')
        return fail(why, len, "unescaped '%c' at offset %ld", *p, (long)(p - s));
      p++;
      continue;
    }
    if (strncmp(p, "<!--", 4) == 0) {
      const char *end = strstr(p + 4, "-->");
      if (end == NULL)
        return fail(why, len, "unterminated comment at offset %ld", (long)(p - s));
      const char *dd = strstr(p + 4, "--");
      if (dd != end)
        return fail(why, len, "\"--\" inside a comment at offset %ld", (long)(dd - s));
      p = end + 3;
      continue;
    }
    bool closing = p[1] == '/';
    const char *name = p + 1 + closing;
    const char *q = name;
    if (!name_char(*q, true))
      return fail(why, len, "bad tag at offset %ld", (long)(p - s));
    while (name_char(*q, false))
      q++;
    size_t nlen = (size_t)(q - name);
    if (closing) {
      if (*q != '>' || depth == 0 || strncmp(stack[depth - 1], name, nlen) != 0 ||
          name_char(stack[depth - 1][nlen], false))
        return fail(why, len, "unbalanced </%.*s> at offset %ld", (int)nlen, name, (long)(p - s));
      depth--;
      p = q + 1;
      continue;
    }
    /* attributes */
    while (true) {
      while (isspace((unsigned char)*q))
        q++;
      if (*q == '>' || (q[0] == '/' && q[1] == '>'))
        break;
      if (!name_char(*q, true))
        return fail(why, len, "bad attribute at offset %ld", (long)(q - s));
      while (name_char(*q, false))
        q++;
      if (*q != '=' || (q[1] != '\'' && q[1] != '"'))
        return fail(why, len, "unquoted attribute at offset %ld", (long)(q - s));
      char quote = q[1];
      const char *end = strchr(q + 2, quote);
      if (end == NULL)
        return fail(why, len, "unterminated attribute at offset %ld", (long)(q - s));
      for (const char *c = q + 2; c < end; c++)
        if (*c == '<' || *c == '&')
          return fail(why, len, "unescaped '%c' in an attribute at offset %ld", *c, (long)(c - s));
      q = end + 1;
    }
    if (depth == 0 && ++roots > 1)
      return fail(why, len, "a second root element at offset %ld", (long)(p - s));
    if (*q == '/') {
      p = q + 2;
      continue;
    }
    if (depth == sizeof(stack) / sizeof(stack[0]))
      return fail(why, len, "nested too deep");
    stack[depth++] = name;
    p = q + 1;
  }
  if (depth)
    return fail(why, len, "<%s...> not closed", stack[depth - 1]);
  if (roots != 1)
    return fail(why, len, "no root element");
  return NULL;
}

/* ------------------------------------------------------------------ lines */

typedef const char *(*line_check)(const char *line, size_t n, char *why, size_t len);

/* Every line but comments through CHECK; in a script, placer's own shell code
 * (between PLACER_EXPORT_SH_CODE_BEGIN and _END, fixed text with no name
 * from the input) is left to `sh -n` (tests/export/test_shell.py). */
static const char *each_line(const char *text, line_check check, char *why, size_t len) {
  unsigned no = 1;
  bool code = false;
  for (const char *p = text; *p; no++) {
    size_t n = strcspn(p, "\n");
    if (p[n] != '\n')
      return fail(why, len, "line %u: no newline at the end", no);
    bool begin = n == strlen(PLACER_EXPORT_SH_CODE_BEGIN) && strncmp(p, PLACER_EXPORT_SH_CODE_BEGIN, n) == 0;
    bool end = n == strlen(PLACER_EXPORT_SH_CODE_END) && strncmp(p, PLACER_EXPORT_SH_CODE_END, n) == 0;
    if (begin || end || code) {
      if ((begin && code) || (end && !code))
        return fail(why, len, "line %u: shell code markers out of order", no);
      code = begin || (code && !end);
      p += n + 1;
      continue;
    }
    while (n > 0 && isspace((unsigned char)*p)) {
      p++;
      n--;
    }
    if (n > 0 && *p != '#') {
      const char *bad = check(p, n, why, len);
      if (bad) {
        char copy[256];
        snprintf(copy, sizeof(copy), "%s", bad);
        return fail(why, len, "line %u: %s", no, copy);
      }
    }
    p += n + 1;
  }
  return code ? fail(why, len, "shell code not closed") : NULL;
}

static const char *ini_line(const char *line, size_t n, char *why, size_t len) {
  if (*line == ';')
    return NULL;
  if (*line == '[')
    return n > 2 && line[n - 1] == ']' && memchr(line + 1, ']', n - 2) == NULL ? NULL
                                                                               : fail(why, len, "bad section header");
  const char *eq = memchr(line, '=', n);
  if (eq == NULL || eq == line)
    return fail(why, len, "neither a section, a comment nor key=value");
  for (const char *c = line; c < eq; c++)
    if (!isalnum((unsigned char)*c) && !strchr("_.- ", *c))
      return fail(why, len, "bad key");
  return NULL;
}

/* Shell words: quotes balanced, no metacharacter outside single quotes. */
static const char *shell_words(const char *line, size_t n, char *why, size_t len) {
  bool quoted = false;
  for (size_t i = 0; i < n; i++) {
    char c = line[i];
    if (!quoted && c == '\\' && i + 1 < n && line[i + 1] == '\'') /* 'it'\''s' */
      i++;
    else if (c == '\'')
      quoted = !quoted;
    else if (!quoted && strchr(";&|<>()$`\\\"*?[]{}~!#", c) &&
             !(c == '#' && i > 0 && !isspace((unsigned char)line[i - 1])))
      return fail(why, len, "shell metacharacter '%c' outside quotes", c);
    else if ((unsigned char)c < 0x20 && c != '\t')
      return fail(why, len, "control character");
  }
  return quoted ? fail(why, len, "unbalanced quote") : NULL;
}

static const char *shell_assignment(const char *line, size_t n, char *why, size_t len) {
  size_t name = 0;
  while (name < n &&
         (isupper((unsigned char)line[name]) || line[name] == '_' || (name && isdigit((unsigned char)line[name]))))
    name++;
  if (name == 0 || name >= n || line[name] != '=')
    return fail(why, len, "not NAME=VALUE");
  /* a value in double quotes: words of plain characters, nothing the shell would expand */
  if (n - name >= 3 && line[name + 1] == '"' && line[n - 1] == '"') {
    for (size_t i = name + 2; i < n - 1; i++)
      if (!isalnum((unsigned char)line[i]) && !strchr("=,.:/_ -", line[i]))
        return fail(why, len, "'%c' in a quoted value", line[i]);
    return NULL;
  }
  for (size_t i = name + 1; i < n; i++)
    if (isspace((unsigned char)line[i]))
      return fail(why, len, "a blank in the value");
  return shell_words(line, n, why, len);
}

/* ------------------------------------------------------------------ YAML */

static const char *check_yaml(const char *text, char *why, size_t len) {
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser))
    return fail(why, len, "libyaml: out of memory");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  const char *bad = NULL;
  if (!yaml_parser_load(&parser, &doc)) {
    bad = fail(why, len, "YAML line %zu: %s", parser.problem_mark.line + 1, parser.problem ? parser.problem : "?");
  } else {
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root == NULL || root->type != YAML_MAPPING_NODE)
      bad = fail(why, len, "the YAML document is not a mapping");
    yaml_document_delete(&doc);
  }
  yaml_parser_delete(&parser);
  return bad;
}

const char *export_check_syntax(enum placer_export_syntax syntax, const char *text, char *why, size_t len) {
  switch (syntax) {
  case PLACER_EXPORT_XML: return check_xml(text, why, len);
  case PLACER_EXPORT_INI: return each_line(text, ini_line, why, len);
  case PLACER_EXPORT_YAML: return check_yaml(text, why, len);
  case PLACER_EXPORT_SCRIPT: return each_line(text, shell_words, why, len);
  case PLACER_EXPORT_SHELL: return each_line(text, shell_assignment, why, len);
  }
  return fail(why, len, "unknown syntax");
}

/* ------------------------------------------------------------------ what is handed out */

void export_check_kept(const struct placer_plan *plan, hwloc_bitmap_t out) {
  hwloc_bitmap_copy(out, plan->reserved_cpus);
  for (size_t i = 0; i < plan->n_instances; i++) {
    enum placer_role_kind k = plan->instances[i].kind;
    if (k == PLACER_KIND_CEPH_OSD || k == PLACER_KIND_CEPH_MDS || k == PLACER_KIND_CEPH_MON ||
        k == PLACER_KIND_CEPH_MGR)
      hwloc_bitmap_or(out, out, plan->instances[i].cpus);
  }
}

/* The cpu list right after PREFIX in LINE (up to a quote, a blank or the
 * end) ORed into SET; -1 when it does not parse. */
static int list_after(const char *line, const char *prefix, hwloc_bitmap_t set) {
  const char *p = strstr(line, prefix);
  if (p == NULL)
    return -1;
  p += strlen(prefix);
  char buf[4096];
  size_t n = strcspn(p, "'\" \n");
  if (n >= sizeof(buf))
    return -1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  int rc = placer_cpulist_parse(buf, one);
  if (rc == 0)
    hwloc_bitmap_or(set, set, one);
  hwloc_bitmap_free(one);
  return rc;
}

/* The shell words of LINE (single quotes and \' outside them, as
 * export_sh_word writes them), at most MAX of up to 255 bytes; how many. */
static int shell_split(const char *line, char words[][256], int max) {
  int n = 0;
  const char *p = line;
  while (*p && n < max) {
    while (*p == ' ')
      p++;
    if (*p == '\0')
      break;
    size_t len = 0;
    bool quoted = false;
    for (; *p && (quoted || *p != ' '); p++) {
      if (!quoted && p[0] == '\\' && p[1] == '\'') {
        p++;
      } else if (*p == '\'') {
        quoted = !quoted;
        continue;
      }
      if (len < 255)
        words[n][len++] = *p;
    }
    words[n++][len] = '\0';
  }
  return n;
}

static bool starts(const char *line, const char *prefix) {
  return strncmp(line, prefix, strlen(prefix)) == 0;
}

/* The instance a "# NAME (role ROLE)" or "<!-- NAME (role" line names. */
static const struct placer_instance *named(const struct placer_plan *plan, const char *line) {
  const char *p = line + (starts(line, "<!-- ") ? 5 : starts(line, "# ") ? 2 : 0);
  size_t n = strcspn(p, " ");
  if (strncmp(p + n, " (role ", 7) != 0)
    return NULL;
  for (size_t i = 0; i < plan->n_instances; i++)
    if (strlen(plan->instances[i].name) == n && strncmp(plan->instances[i].name, p, n) == 0)
      return &plan->instances[i];
  return NULL;
}

static const struct placer_instance *by_ceph_id(const struct placer_plan *plan, const char *who) {
  for (size_t i = 0; i < plan->n_instances; i++) {
    const struct placer_instance *inst = &plan->instances[i];
    const char *type = inst->kind == PLACER_KIND_CEPH_OSD ? "osd." : inst->kind == PLACER_KIND_CEPH_MDS ? "mds." : NULL;
    if (type && inst->match.value && starts(who, type) && strcmp(who + 4, inst->match.value) == 0)
      return inst;
  }
  return NULL;
}

struct scan {
  const struct placer_plan *plan;
  hwloc_bitmap_t guest, kubelet_reserved, a, b;
  const struct placer_instance *inst;
  char *why;
  size_t len;
};

static const char *list_equal(struct scan *s, const char *line, const char *prefix, hwloc_const_bitmap_t want,
                              const char *what) {
  hwloc_bitmap_zero(s->a);
  if (list_after(line, prefix, s->a) < 0)
    return fail(s->why, s->len, "cannot read the cpu list of '%s'", line);
  if (!hwloc_bitmap_isequal(s->a, want)) {
    char *w = placer_cpulist_format(want);
    const char *r = fail(s->why, s->len, "%s: '%s' but the plan says %s", what, line, w ? w : "?");
    free(w);
    return r;
  }
  return NULL;
}

/* One line of format NAME's output. */
static const char *scan_line(struct scan *s, const char *name, const char *line) {
  const struct placer_plan *plan = s->plan;
  if (named(plan, line))
    s->inst = named(plan, line);
  if (starts(line, "#") || starts(line, "<!--"))
    return NULL; /* a comment: names from input, never data */
  if (strcmp(name, "libvirt") == 0) {
    /* attributes in single quotes (the fragments) or double ones (libxml2's, --merge) */
    const char *cpuset = strstr(line, "cpuset='") ? "cpuset='" : "cpuset=\"";
    const char *nodeset = strstr(line, "nodeset='") ? "nodeset='" : "nodeset=\"";
    if (strstr(line, "<vcpu ") || strstr(line, "<vcpupin "))
      return list_after(line, cpuset, s->guest) < 0 ? fail(s->why, s->len, "bad cpuset in '%s'", line) : NULL;
    if (strstr(line, "<memory ") && strstr(line, nodeset) && s->inst)
      return list_equal(s, line, nodeset, s->inst->mems, s->inst->name);
  } else if (strcmp(name, "virsh") == 0) {
    if (starts(line, "pin_vcpus ")) {
      /* pin_vcpus DOMAIN LIST...: vCPU k on the (k mod n)-th LIST */
      char words[64][256];
      int n = shell_split(line, words, 64);
      for (int i = 2; i < n; i++)
        if (list_after(words[i], "", s->guest) < 0)
          return fail(s->why, s->len, "bad pin_vcpus '%s'", line);
      return n < 3 ? fail(s->why, s->len, "bad pin_vcpus '%s'", line) : NULL;
    }
    if (starts(line, "virsh numatune ") && s->inst) {
      /* the word after --nodeset (a domain name may hold "--nodeset" too) */
      char words[10][256];
      int n = shell_split(line, words, 10);
      for (int i = 3; i + 1 < n; i++)
        if (strcmp(words[i], "--nodeset") == 0)
          return list_equal(s, words[i + 1], "", s->inst->mems, s->inst->name);
      return fail(s->why, s->len, "no --nodeset in '%s'", line);
    }
  } else if (strcmp(name, "nova") == 0) {
    if (starts(line, "cpu_shared_set = ") || starts(line, "cpu_dedicated_set = "))
      return list_after(line, "= ", s->guest) < 0 ? fail(s->why, s->len, "bad '%s'", line) : NULL;
  } else if (strcmp(name, "proxmox") == 0) {
    if (starts(line, "qm set ")) {
      if (list_after(line, "--affinity ", s->guest) < 0)
        return fail(s->why, s->len, "bad '%s'", line);
      /* --numa0 cpus=...,hostnodes=A;B,memory=...,policy=bind: the host nodes are the plan's */
      char words[32][256];
      int n = shell_split(line, words, 32);
      for (int i = 0; s->inst && i + 1 < n; i++) {
        const char *h = strcmp(words[i], "--numa0") == 0 ? strstr(words[i + 1], "hostnodes=") : NULL;
        if (h == NULL)
          continue;
        char list[256];
        snprintf(list, sizeof(list), "%.*s", (int)strcspn(h + 10, ","), h + 10);
        for (char *c = list; *c; c++)
          *c = *c == ';' ? ',' : *c;
        if (!strstr(words[i + 1], "policy=bind"))
          return fail(s->why, s->len, "'%s' binds nothing", line);
        return list_equal(s, list, "", s->inst->mems, s->inst->name);
      }
    }
  } else if (strcmp(name, "kubelet") == 0) {
    if (starts(line, "reservedSystemCPUs: "))
      return list_after(line, ": \"", s->kubelet_reserved) < 0 ? fail(s->why, s->len, "bad '%s'", line) : NULL;
  } else if (strcmp(name, "systemd") == 0) {
    if (starts(line, "AllowedCPUs=") && s->inst) {
      if (s->inst->kind == PLACER_KIND_VM && list_after(line, "=", s->guest) < 0)
        return fail(s->why, s->len, "bad '%s'", line);
      return list_equal(s, line, "=", s->inst->cpus, s->inst->name);
    }
  } else if (strcmp(name, "tuned") == 0) {
    if (starts(line, "no_balance_cores="))
      return list_after(line, "=", s->guest) < 0 ? fail(s->why, s->len, "bad '%s'", line) : NULL;
  } else if (strcmp(name, "irqbalance") == 0) {
    if (starts(line, "IRQBALANCE_BANNED_CPULIST=")) {
      hwloc_bitmap_zero(s->a);
      if (list_after(line, "=", s->a) < 0)
        return fail(s->why, s->len, "bad '%s'", line);
      if (hwloc_bitmap_intersects(s->a, plan->reserved_cpus))
        return fail(s->why, s->len, "irqbalance bans the host reserve: '%s'", line);
    }
  } else if (strcmp(name, "ceph") == 0 && starts(line, "- \"--cpuset-cpus=") && s->inst) {
    /* a cephadm spec: its OSDs' container cpuset is their CPUs */
    return list_equal(s, line, "--cpuset-cpus=", s->inst->cpus, s->inst->name);
  } else if (strcmp(name, "ceph") == 0 && starts(line, "- \"--cpuset-mems=") && s->inst) {
    return list_equal(s, line, "--cpuset-mems=", s->inst->mems, s->inst->name);
  } else if (strcmp(name, "ceph") == 0 && (starts(line, "ceph config set ") || starts(line, "in_cpuset "))) {
    /* ceph config set WHO KEY VALUE, or in_cpuset WHO KEY VALUE (set with --osds-in-cpusets only) */
    char words[6][256];
    int shift = starts(line, "in_cpuset ") ? 2 : 0;
    if (shell_split(line, words, 6) != 6 - shift)
      return fail(s->why, s->len, "'%s' is not ceph config set WHO KEY VALUE", line);
    if (shift)
      for (int i = 5; i >= 3; i--)
        memcpy(words[i], words[i - 2], sizeof(words[i]));
    const struct placer_instance *inst = by_ceph_id(plan, words[3]);
    if (inst == NULL)
      return fail(s->why, s->len, "'%s' names no OSD or MDS of the plan", line);
    if (strstr(line, " osd_numa_node ")) {
      char want[32];
      snprintf(want, sizeof(want), " osd_numa_node %d", inst->numa_node);
      if (!strstr(line, want))
        return fail(s->why, s->len, "'%s' but the plan says node %d", line, inst->numa_node);
    }
    /* Crimson's sets by Tentacle's (20) and Squid's (19) names */
    bool reactors = strcmp(words[4], "crimson_cpu_set") == 0 || strcmp(words[4], "crimson_seastar_cpu_cores") == 0,
         bluestore = strcmp(words[4], "crimson_bluestore_cpu_set") == 0 ||
                     strcmp(words[4], "crimson_alien_thread_cpu_cores") == 0;
    if (reactors || bluestore) {
      hwloc_bitmap_t set = reactors ? s->a : s->b;
      hwloc_bitmap_zero(set);
      if (list_after(words[5], "", set) < 0)
        return fail(s->why, s->len, "bad '%s'", line);
      if (!hwloc_bitmap_isincluded(set, inst->cpus) || hwloc_bitmap_iszero(set))
        return fail(s->why, s->len, "'%s' is not within %s's CPUs", line, inst->name);
      if (bluestore && hwloc_bitmap_intersects(s->a, s->b))
        return fail(s->why, s->len, "%s: the reactors and BlueStore's threads share CPUs", inst->name);
    }
  }
  return NULL;
}

const char *export_check_output(const char *name, const struct placer_export_output *out,
                                const struct placer_plan *plan, hwloc_bitmap_t guest, char *why, size_t len) {
  struct scan s = { .plan = plan,
                    .guest = guest,
                    .kubelet_reserved = hwloc_bitmap_alloc(),
                    .a = hwloc_bitmap_alloc(),
                    .b = hwloc_bitmap_alloc(),
                    .why = why,
                    .len = len };
  hwloc_bitmap_zero(guest);
  const char *bad = NULL;
  bool kubelet_seen = false;
  for (size_t u = 0; u < out->n_units && bad == NULL; u++) {
    s.inst = NULL;
    const char *text = out->units[u].text;
    for (const char *p = text; *p && bad == NULL;) {
      size_t n = strcspn(p, "\n");
      char line[8192];
      snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), p);
      const char *l = line;
      while (isspace((unsigned char)*l))
        l++;
      kubelet_seen |= starts(l, "reservedSystemCPUs: ");
      bad = scan_line(&s, name, l);
      p += n + (p[n] == '\n');
    }
  }
  if (bad == NULL && strcmp(name, "kubelet") == 0) {
    if (!kubelet_seen) {
      bad = fail(why, len, "no reservedSystemCPUs");
    } else {
      /* pods get every CPU of the plan that is not reserved for the system */
      hwloc_bitmap_or(guest, plan->reserved_cpus, plan->free_cpus);
      for (size_t i = 0; i < plan->n_instances; i++)
        hwloc_bitmap_or(guest, guest, plan->instances[i].cpus);
      hwloc_bitmap_andnot(guest, guest, s.kubelet_reserved);
    }
  }
  hwloc_bitmap_t kept = hwloc_bitmap_alloc();
  export_check_kept(plan, kept);
  if (bad == NULL && hwloc_bitmap_intersects(guest, kept)) {
    hwloc_bitmap_and(kept, kept, guest);
    char *both = placer_cpulist_format(kept);
    bad = fail(why, len, "%s hands CPUs %s of Ceph or the host to VMs or pods", name, both ? both : "?");
    free(both);
  }
  hwloc_bitmap_free(kept);
  hwloc_bitmap_free(s.kubelet_reserved);
  hwloc_bitmap_free(s.a);
  hwloc_bitmap_free(s.b);
  return bad;
}
