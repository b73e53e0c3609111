/* The memory a JSON text costs to parse, before parsing it; see jsoncost.h. */
#include "lib/jsoncost.h"

#include <stdbool.h>

/* Bytes per element, above what jansson 2.14 takes on x86-64 (measured with
 * a million of each: "0" 40, "{}" 228, "[]" 134, "\"\"" 87, {"a":0} 337). */
enum {
  COST_OBJECT = 256,
  COST_ARRAY = 144,
  COST_MEMBER = 128, /* a key's hashtable pair, beside its string */
  COST_STRING = 96,  /* plus its length */
  COST_SCALAR = 48,
  COST_SLOT = 16, /* an array's or object's slot for one more element */
};

static bool ends_scalar(char c) {
  return c == ',' || c == ']' || c == '}' || c == ':' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '"' ||
         c == '[' || c == '{';
}

int placer_json_cost(const char *text, size_t len, size_t max_string, uint64_t *cost, size_t *line) {
  uint64_t c = 0;
  size_t ln = 1;
  for (size_t i = 0; i < len;) {
    char ch = text[i];
    if (ch == '"') {
      size_t start = i++, start_line = ln;
      while (i < len && text[i] != '"') {
        if (text[i] == '\n')
          ln++;
        i += text[i] == '\\' ? 2 : 1;
      }
      if (i >= len || i - start - 1 > max_string) {
        *line = start_line;
        return -1;
      }
      c += COST_STRING + (i - start);
      i++;
      continue;
    }
    switch (ch) {
    case '{': c += COST_OBJECT; break;
    case '[': c += COST_ARRAY; break;
    case ':': c += COST_MEMBER; break;
    case ',': c += COST_SLOT; break;
    case '\n': ln++; break;
    case ']':
    case '}':
    case ' ':
    case '\t':
    case '\r': break;
    default:
      /* a number or a literal: one value, however long */
      c += COST_SCALAR;
      while (i < len && !ends_scalar(text[i]))
        i++;
      continue;
    }
    i++;
  }
  *cost = c;
  return 0;
}
