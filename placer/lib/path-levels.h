/* The levels of a slash-separated group path, parents first: "placer",
 * "placer/osd", "placer/osd/osd.0".  Making a group, marking what was made
 * and asking what is missing all walk them in this order; one walk for all. */
#ifndef PLACER_PATH_LEVELS_H
#define PLACER_PATH_LEVELS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

struct placer_path_level {
  const char *path;   /* the path up to this level: "placer/osd" */
  const char *parent; /* the level above ("placer"), NULL at the first level */
  size_t index;       /* 0 for the first level */
  bool last;          /* the whole path */
};

/* FN returns 0 to go on, > 0 to stop there (that value is returned), < 0 on
 * an error it set in *ERR (returned as -1). */
typedef int (*placer_path_level_fn)(void *ctx, const struct placer_path_level *level, struct placer_error **err);

/* Calls FN for each level of PATH, parents first: 0 when every call returned
 * 0, the first positive value, or -1 (FN's error, or out of memory). */
int placer_path_each_level(const char *path, placer_path_level_fn fn, void *ctx, struct placer_error **err);

#endif
