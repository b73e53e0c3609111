/* Fuzz `placer export --map`'s parser: a map it takes names each instance
 * once, sorted, with a value, neither empty nor holding a control byte or
 * the blanks around it, the instance no '='; a lookup of each instance
 * finds its value, and its line is in the text.  Or a refusal of one line
 * naming the file and the line. */
#include "export/export.h"
#include "fuzz.h"

static bool clean(const char *s) {
  if (*s == '\0' || *s == ' ' || *s == '\t' || s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t')
    return false;
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return false;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  unsigned lines = 1;
  for (const char *p = text; *p; p++)
    lines += *p == '\n';
  struct placer_export_map *map = NULL;
  struct placer_error *err = NULL;
  int rc = placer_export_map_parse("fuzz.map", text, &map, &err);
  FUZZ_CHECK((rc == 0) == (err == NULL) && (rc == 0) == (map != NULL));
  if (rc < 0) {
    FUZZ_CHECK(strncmp(err->msg, "fuzz.map:", 9) == 0 && strchr(err->msg, '\n') == NULL);
    placer_error_free(err);
  } else {
    for (size_t i = 0; i < map->n; i++) {
      const struct placer_export_map_entry *e = &map->entries[i];
      FUZZ_CHECK(clean(e->instance) && clean(e->value) && strchr(e->instance, '=') == NULL && e->instance[0] != '#');
      FUZZ_CHECK(e->line >= 1 && e->line <= lines);
      FUZZ_CHECK(i == 0 || strcmp(map->entries[i - 1].instance, e->instance) < 0);
      FUZZ_CHECK(placer_export_map_get(map, e->instance) == e->value);
    }
    placer_export_map_free(map);
  }
  free(text);
  return 0;
}
