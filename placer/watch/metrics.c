/* Prometheus's text exposition format (version 0.0.4), as a scraper and
 * node_exporter's textfile collector parse it: "# HELP" and "# TYPE" once
 * per family before its samples, label values in double quotes with
 * backslash, double quote and newline escaped, floats as Go's ParseFloat
 * reads them ("+Inf", "NaN"), histograms as cumulative _bucket{le="..."}
 * lines ending with le="+Inf", then _sum and _count.  Pure: written into a
 * memory stream, checked names, no I/O. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch-internal.h"

/* Exec to placed: from a tenth of a millisecond (the connector's usual
 * case) to 10 s (the scan's worst), the 10 ms target a bound. */
const double watch_histogram_bounds_s[WATCH_HISTOGRAM_N_BOUNDS] = {
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};

static const char *const type_names[] = { "counter", "gauge", "histogram" };

bool watch_metric_name_is_valid(const char *name) {
  if (name == NULL || *name == '\0')
    return false;
  for (const char *p = name; *p; p++) {
    char c = *p;
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(p > name && c >= '0' && c <= '9'))
      return false;
  }
  return true;
}

bool watch_label_name_is_valid(const char *name) {
  if (name == NULL || *name == '\0' || strncmp(name, "__", 2) == 0) /* "__" is Prometheus's own */
    return false;
  for (const char *p = name; *p; p++) {
    char c = *p;
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(p > name && c >= '0' && c <= '9'))
      return false;
  }
  return true;
}

/* The length of the valid UTF-8 sequence at S (1..4), 0 when it is not one
 * (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF,
 * cut short). */
static size_t utf8_length(const unsigned char *s) {
  unsigned char c = s[0];
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned min;
  unsigned cp;
  if ((c & 0xe0) == 0xc0)
    len = 2, min = 0x80, cp = c & 0x1f;
  else if ((c & 0xf0) == 0xe0)
    len = 3, min = 0x800, cp = c & 0x0f;
  else if ((c & 0xf8) == 0xf0)
    len = 4, min = 0x10000, cp = c & 0x07;
  else
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) /* the NUL at the end stops here too */
      return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

/* S with backslash and newline escaped, and double quotes too when QUOTES;
 * invalid UTF-8 as U+FFFD (a scraper refuses the whole page otherwise). */
static char *escape(const char *s, bool quotes) {
  size_t cap = strlen(s) * 3 + 1; /* a byte becomes at most the 3 bytes of U+FFFD */
  char *out = malloc(cap);
  if (out == NULL)
    return NULL;
  char *o = out;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    size_t len = utf8_length(p);
    if (len == 0) {
      memcpy(o, "\xef\xbf\xbd", 3);
      o += 3, p++;
    } else if (*p == '\\' || *p == '\n' || (quotes && *p == '"')) {
      *o++ = '\\';
      *o++ = *p == '\n' ? 'n' : (char)*p;
      p++;
    } else {
      memcpy(o, p, len);
      o += len, p += len;
    }
  }
  *o = '\0';
  return out;
}

char *watch_metrics_escape_label(const char *value) {
  return escape(value, true);
}

char *watch_metrics_escape_help(const char *help) {
  return escape(help, false);
}

void watch_metrics_format_double(double v, char buf[32]) {
  if (isnan(v)) {
    strcpy(buf, "NaN");
    return;
  }
  if (isinf(v)) {
    strcpy(buf, v > 0 ? "+Inf" : "-Inf");
    return;
  }
  /* The shortest digits that read back as the same double (0.1 is "0.1",
   * not "0.10000000000000001"), laid out as Go's FormatFloat(v, 'g', -1)
   * does, which Prometheus's own clients write: an exponent below -4 or
   * from 6 up in e-notation ("1e-05", "1.2345675e+06"), else plain ("10"). */
  int digits = 1;
  char e_form[32];
  for (; digits < 17; digits++) {
    snprintf(e_form, sizeof(e_form), "%.*e", digits - 1, v);
    if (strtod(e_form, NULL) == v)
      break;
  }
  snprintf(e_form, sizeof(e_form), "%.*e", digits - 1, v);
  int exponent = atoi(strchr(e_form, 'e') + 1);
  if (exponent < -4 || exponent >= 6) {
    memcpy(buf, e_form, strlen(e_form) + 1);
    return;
  }
  int decimals = digits - 1 - exponent;
  snprintf(buf, 32, "%.*f", decimals > 0 ? decimals : 0, v);
}

int watch_metrics_text_open(struct watch_metrics_text *t, struct placer_error **err) {
  *t = (struct watch_metrics_text){ 0 };
  t->f = open_memstream(&t->buf, &t->len);
  return t->f ? 0 : placer_error_oom(err, "metrics");
}

int watch_metrics_text_close(struct watch_metrics_text *t, char **text, size_t *len, struct placer_error **err) {
  bool failed = t->bad || ferror(t->f);
  if (fclose(t->f) != 0)
    failed = true;
  t->f = NULL;
  if (failed) {
    free(t->buf);
    t->buf = NULL;
    return t->bad ? placer_error_set(err, PLACER_EXIT_SYSTEM, EINVAL, "metrics: a metric or label name is not valid")
                  : placer_error_oom(err, "metrics");
  }
  *text = TAKE_PTR(t->buf);
  *len = t->len;
  return 0;
}

void watch_metrics_family(struct watch_metrics_text *t, const char *name, const char *help,
                          enum watch_metric_type type) {
  if (t->bad || !watch_metric_name_is_valid(name)) {
    t->bad = true;
    return;
  }
  cleanup_free char *escaped = watch_metrics_escape_help(help);
  if (escaped == NULL) {
    t->bad = true;
    return;
  }
  fprintf(t->f, "# HELP %s %s\n# TYPE %s %s\n", name, escaped, name, type_names[type]);
}

/* NAME{labels, EXTRA="EXTRA_VALUE"} without the value; EXTRA may be NULL. */
static void sample_head(struct watch_metrics_text *t, const char *name, const char *suffix,
                        const struct watch_label *labels, size_t n_labels, const char *extra, const char *extra_value) {
  fputs(name, t->f);
  fputs(suffix, t->f);
  if (n_labels == 0 && extra == NULL)
    return;
  fputc('{', t->f);
  for (size_t i = 0; i <= n_labels; i++) {
    const char *label = i < n_labels ? labels[i].name : extra;
    const char *value = i < n_labels ? labels[i].value : extra_value;
    if (label == NULL)
      continue;
    cleanup_free char *escaped =
        watch_label_name_is_valid(label) ? watch_metrics_escape_label(value ? value : "") : NULL;
    if (escaped == NULL) {
      t->bad = true;
      return;
    }
    fprintf(t->f, "%s%s=\"%s\"", i ? "," : "", label, escaped);
  }
  fputc('}', t->f);
}

void watch_metrics_sample(struct watch_metrics_text *t, const char *name, const struct watch_label *labels,
                          size_t n_labels, double value) {
  if (t->bad)
    return;
  char buf[32];
  watch_metrics_format_double(value, buf);
  sample_head(t, name, "", labels, n_labels, NULL, NULL);
  fprintf(t->f, " %s\n", buf);
}

void watch_metrics_sample_u64(struct watch_metrics_text *t, const char *name, const struct watch_label *labels,
                              size_t n_labels, uint64_t value) {
  if (t->bad)
    return;
  sample_head(t, name, "", labels, n_labels, NULL, NULL);
  fprintf(t->f, " %" PRIu64 "\n", value);
}

void watch_histogram_observe(struct watch_histogram *h, uint64_t ns) {
  size_t b = 0;
  /* A bound is inclusive: an observation equal to it counts in its bucket. */
  while (b < WATCH_HISTOGRAM_N_BOUNDS && (double)ns > watch_histogram_bounds_s[b] * 1e9)
    b++;
  h->buckets[b]++;
  h->sum_ns += ns;
  h->count++;
}

void watch_metrics_histogram(struct watch_metrics_text *t, const char *name, const struct watch_label *labels,
                             size_t n_labels, const struct watch_histogram *h) {
  if (t->bad)
    return;
  uint64_t cumulative = 0;
  for (size_t b = 0; b <= WATCH_HISTOGRAM_N_BOUNDS; b++) {
    char le[32];
    if (b < WATCH_HISTOGRAM_N_BOUNDS)
      watch_metrics_format_double(watch_histogram_bounds_s[b], le);
    else
      strcpy(le, "+Inf");
    cumulative += h->buckets[b];
    sample_head(t, name, "_bucket", labels, n_labels, "le", le);
    fprintf(t->f, " %" PRIu64 "\n", cumulative);
  }
  char sum[32];
  watch_metrics_format_double((double)h->sum_ns / 1e9, sum);
  sample_head(t, name, "_sum", labels, n_labels, NULL, NULL);
  fprintf(t->f, " %s\n", sum);
  sample_head(t, name, "_count", labels, n_labels, NULL, NULL);
  fprintf(t->f, " %" PRIu64 "\n", h->count);
}
