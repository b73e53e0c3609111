/* Putting a placed instance in force through a writer (placement.h): the
 * missing levels of its group made, each value that differs from what is
 * there written once, the role group's values by the instance that carries
 * them.  apply journals each step through the hooks; bench's switch, run
 * and exec write directly. */
#include "placement.h"

#include <stdlib.h>
#include <string.h>

#include "lib/path-levels.h"

struct create_level {
  const struct placer_writer *w;
  const struct placer_placed *p;
  const char *mark;
  const struct placer_write_hooks *hooks;
  struct placer_string_list *made;
  int unmarked_any;
};

/* One level of the group: made (and journaled) when missing. */
static int create_level(void *ctx, const struct placer_path_level *level, struct placer_error **err) {
  struct create_level *c = ctx;
  const char *path = level->path;
  if (c->w->ops->exists(c->w->ctx, path) || (c->made && placer_string_list_has(c->made, path)))
    return 0;
  const struct placer_write_hooks *hooks = c->hooks;
  int go = hooks ? hooks->before(hooks->ctx, c->p, PLACER_WRITE_CREATE, path, PLACER_SETTING_N, NULL, NULL, err) : 0;
  if (go < 0)
    return -1;
  if (c->made && placer_string_list_addf(c->made, "%s", path) < 0)
    return placer_error_oom(err, NULL);
  bool unmarked = false;
  if (go == 0) {
    if (c->w->ops->create(c->w->ctx, path, c->mark, &unmarked, err) < 0 ||
        (hooks && hooks->after(hooks->ctx, c->p, PLACER_WRITE_CREATE, unmarked, err) < 0))
      return -1;
    if (unmarked)
      c->unmarked_any = 1;
  }
  return 0;
}

/* Each missing level of GROUP, parents first. */
static int create_levels(const struct placer_writer *w, const struct placer_placed *p, const char *group,
                         const char *mark, const struct placer_write_hooks *hooks, struct placer_string_list *made,
                         int *unmarked_any, struct placer_error **err) {
  struct create_level c = { .w = w, .p = p, .mark = mark, .hooks = hooks, .made = made };
  if (placer_path_each_level(group, create_level, &c, err) < 0)
    return -1;
  if (c.unmarked_any)
    *unmarked_any = 1;
  return 0;
}

/* The ORDER of SETTINGS that WHERE holds and WANT says otherwise, written. */
static int write_values(const struct placer_writer *w, const struct placer_placed *p, const char *where,
                        const enum placer_setting *order, size_t n, unsigned settings,
                        const struct placer_group_values *want, const struct placer_write_hooks *hooks,
                        struct placer_error **err) {
  if (settings == 0)
    return 0;
  struct placer_group_values now = { 0 };
  if (w->ops->read(w->ctx, where, settings, &now, err) < 0)
    return -1;
  int ret = 0;
  for (size_t i = 0; ret == 0 && i < n; i++) {
    enum placer_setting s = order[i];
    if (!(settings & PLACER_SETTING_BIT(s)) || placer_group_value_equal(s, &now, want))
      continue;
    int go = hooks ? hooks->before(hooks->ctx, p, PLACER_WRITE_UPDATE, where, s, &now, want, err) : 0;
    if (go == 0 && (w->ops->update(w->ctx, where, s, want, err) < 0 ||
                    (hooks && hooks->after(hooks->ctx, p, PLACER_WRITE_UPDATE, false, err) < 0)))
      go = -1;
    if (go < 0)
      ret = -1;
  }
  placer_group_values_clear(&now);
  return ret;
}

/* The instance's own values in the order a new v2 cpuset takes them; the
 * role's quota before its weight (as apply has always journaled them). */
static const enum placer_setting group_order[] = { PLACER_SETTING_CPUS, PLACER_SETTING_MEMS,
                                                   PLACER_SETTING_MEMORY_LIMIT, PLACER_SETTING_CPU_WEIGHT };
static const enum placer_setting role_order[] = { PLACER_SETTING_CPU_QUOTA, PLACER_SETTING_CPU_WEIGHT };

int placer_placed_write_values(const struct placer_writer *w, const struct placer_placed *p, const char *where,
                               unsigned group_settings, const struct placer_write_hooks *hooks,
                               struct placer_error **err) {
  return write_values(w, p, where, group_order, 4, group_settings & PLACER_GROUP_SETTINGS, &p->values, hooks, err);
}

int placer_placed_write(const struct placer_writer *w, const struct placer_placed *p, unsigned group_settings,
                        unsigned role_settings, const char *mark, const struct placer_write_hooks *hooks,
                        struct placer_string_list *made, struct placer_error **err) {
  int unmarked = 0;
  if (create_levels(w, p, p->group, mark, hooks, made, &unmarked, err) < 0 ||
      write_values(w, p, p->group, group_order, 4, group_settings & PLACER_GROUP_SETTINGS, &p->values, hooks, err) <
          0 ||
      write_values(w, p, p->role_group, role_order, 2, role_settings & PLACER_ROLE_SETTINGS, &p->role, hooks, err) < 0)
    return -1;
  return unmarked;
}

int placer_placement_write(const struct placer_writer *w, const struct placer_placement *pl,
                           struct placer_error **err) {
  for (size_t i = 0; i < pl->n; i++) {
    const struct placer_placed *p = &pl->v[i];
    if (placer_placed_write(w, p, PLACER_GROUP_SETTINGS, p->role_writes, NULL, NULL, NULL, err) < 0)
      return placer_error_prefix(err, "%s", p->inst->name);
  }
  return 0;
}

int placer_instance_place_group_marked(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                       const char *mark, struct placer_error **err) {
  struct placer_placed p;
  if (placer_placed_of_instance(inst, group, &p, err) < 0)
    return -1;
  struct placer_writer w = placer_writer_cgroupfs(cg);
  int rc = placer_placed_write(&w, &p, PLACER_GROUP_SETTINGS, p.role_writes, mark, NULL, NULL, err);
  placer_placed_clear(&p);
  return rc;
}

int placer_instance_place_group(struct placer_cgroup *cg, const struct placer_instance *inst, const char *group,
                                struct placer_error **err) {
  return placer_instance_place_group_marked(cg, inst, group, NULL, err) < 0 ? -1 : 0;
}
