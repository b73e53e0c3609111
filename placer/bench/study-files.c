/* The files a study names: a variant's profile (a shipped one by its name,
 * or a path from the study's directory) and the default study. */
#include "bench/study.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/datafile.h"
#include "profile/profile-yaml.h"

int placer_study_profile_path(const struct placer_study *s, const struct placer_study_variant *v, char **out,
                              struct placer_error **err) {
  const char *ref = v->profile;
  size_t len = strlen(ref);
  bool bare = strchr(ref, '/') == NULL && !(len > 5 && strcmp(ref + len - 5, ".yaml") == 0) &&
              !(len > 4 && strcmp(ref + len - 4, ".yml") == 0);
  if (!bare) {
    char *p = NULL;
    if (ref[0] == '/' || s->dir == NULL)
      p = strdup(ref);
    else if (asprintf(&p, "%s/%s", s->dir, ref) < 0)
      p = NULL;
    if (p == NULL)
      return placer_error_oom(err, "variant's profile path");
    *out = p;
    return 0;
  }
  cleanup_free char *file = NULL;
  if (asprintf(&file, "%s.yaml", ref) < 0)
    return placer_error_oom(err, "variant's profile path");
  const char *env = getenv("PLACER_PROFILES_DIR");
  char *found = env && *env ? placer_path_if_readable(env, file) : NULL;
  cleanup_free char *rel = NULL;
  if (found == NULL && asprintf(&rel, "profiles/%s", file) >= 0)
    found = placer_data_file(NULL, rel);
  if (found == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "variant '%s': no shipped profile '%s' (looked in $PLACER_PROFILES_DIR and placer's "
                            "profiles directory); give a path such as ./%s.yaml",
                            v->name, ref, ref);
  *out = found;
  return 0;
}

int placer_study_default_path(char **out, struct placer_error **err) {
  char *path = placer_data_file("PLACER_DEFAULT_STUDY", "studies/default.yaml");
  if (path == NULL)
    return placer_error_set(err, PLACER_EXIT_USAGE, ENOENT,
                            "no default study: studies/default.yaml is neither next to placer, in its share/placer, "
                            "nor in the source tree (set $PLACER_DEFAULT_STUDY)");
  /* "/usr/bin/../share/placer/studies/default.yaml" reads better resolved. */
  char *real = realpath(path, NULL);
  if (real) {
    free(path);
    path = real;
  }
  *out = path;
  return 0;
}

int placer_study_default_text(char **out, struct placer_error **err) {
  cleanup_free char *path = NULL;
  if (placer_study_default_path(&path, err) < 0)
    return -1;
  return pyaml_read_file("study", path, PYAML_MAX_BYTES, out, NULL, err);
}
