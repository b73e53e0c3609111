/* Files shipped with placer (profiles, containers.conf, the cluster and
 * guest scripts), found the same way wherever placer runs from. */
#ifndef PLACER_DATAFILE_H
#define PLACER_DATAFILE_H

/* The readable file REL ("profiles/demo-local.yaml"): $ENV_OVERRIDE when
 * that variable is set and non-empty (a full path, taken as is), else REL
 * next to the executable's directory (build/placer -> ../REL; a build in a
 * subdirectory -> ../../REL; PREFIX/bin/placer -> PREFIX/share/placer/REL,
 * or PREFIX/libexec/placer/NAME for REL "libexec/NAME": the scripts placer
 * runs), else in the source tree placer was built from.  Caller frees; NULL when
 * none exists.  ENV_OVERRIDE may be NULL. */
char *placer_data_file(const char *env_override, const char *rel);

/* DIR/REL when it is readable, else NULL.  Caller frees. */
char *placer_path_if_readable(const char *dir, const char *rel);

#endif
