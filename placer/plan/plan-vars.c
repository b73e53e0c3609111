/* The template placeholders of one planned instance ({id}, {name}, {cpus}, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpulist.h"
#include "lib/substitute.h"
#include "plan/plan.h"

static void add_var(struct placer_subst_vars *v, const char *key, const char *value) {
  if (v->n < PLACER_SUBST_MAX_VARS) {
    v->vars[v->n].key = key;
    v->vars[v->n].value = value;
    v->n++;
  }
}

static void set_list(char *buf, size_t len, hwloc_const_bitmap_t set) {
  buf[0] = '\0';
  if (set == NULL)
    return;
  char *s = placer_cpulist_format(set);
  if (s)
    snprintf(buf, len, "%s", s);
  free(s);
}

void placer_subst_vars_from_instance(const struct placer_instance *inst, struct placer_subst_vars *out) {
  memset(out, 0, sizeof(*out));
  snprintf(out->storage[0], sizeof(out->storage[0]), "%u", inst->index);
  set_list(out->storage[1], sizeof(out->storage[1]), inst->cpus);
  set_list(out->storage[2], sizeof(out->storage[2]), inst->mems);
  add_var(out, "id", out->storage[0]);
  add_var(out, "index", out->storage[0]);
  add_var(out, "name", inst->name);
  add_var(out, "role", inst->role);
  add_var(out, "device", inst->device);
  add_var(out, "nic", inst->nic);
  add_var(out, "cpus", out->storage[1]);
  add_var(out, "mems", out->storage[2]);
}
