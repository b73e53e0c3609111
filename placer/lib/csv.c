/* CSV fields written and rows split (RFC 4180); see csv.h. */
#include "lib/csv.h"

#include <math.h>
#include <string.h>

void placer_csv_write_field(FILE *f, const char *s, bool last) {
  if (s && strpbrk(s, ",\"\r\n")) {
    fputc('"', f);
    for (const char *p = s; *p; p++) {
      if (*p == '"')
        fputc('"', f);
      fputc(*p, f);
    }
    fputc('"', f);
  } else if (s) {
    fputs(s, f);
  }
  fputc(last ? '\n' : ',', f);
}

void placer_csv_write_number(FILE *f, double x, bool last) {
  if (isnan(x))
    fputc(last ? '\n' : ',', f);
  else
    fprintf(f, "%.10g%c", x, last ? '\n' : ',');
}

int placer_csv_split_row(char **text, size_t *len, char **fields, size_t max, const char **why) {
  char *p = *text, *end = *text + *len;
  char *nl = memchr(p, '\n', *len);
  if (nl == NULL) {
    *why = "the row has no end of line (the file is cut short)";
    return -1;
  }
  size_t n = 0;
  for (;;) {
    if (n == max) {
      *why = "too many fields";
      return -1;
    }
    char *out = p, *start = p;
    fields[n++] = start;
    if (*p == '"') { /* quoted: up to the quote not doubled */
      for (p++;; p++) {
        if (p >= nl) {
          *why = "a quoted field is not closed on its line";
          return -1;
        }
        if (*p == '"' && p[1] == '"') {
          *out++ = '"';
          p++;
        } else if (*p == '"') {
          p++;
          break;
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
          *why = "a control byte in a field";
          return -1;
        } else {
          *out++ = *p;
        }
      }
      if (*p != ',' && p != nl) {
        *why = "text after a closing quote";
        return -1;
      }
    } else {
      for (; *p != ',' && p != nl; p++) {
        if (*p == '"') {
          *why = "a quote inside an unquoted field";
          return -1;
        }
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
          *why = "a control byte in a field";
          return -1;
        }
      }
      out = p;
    }
    bool last = p == nl;
    *out = '\0';
    p++;
    if (last)
      break;
  }
  *len = (size_t)(end - p);
  *text = p;
  return (int)n;
}
