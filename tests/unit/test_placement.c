/* The model of a placed instance (placement.c) and writing it
 * (placement-write.c), through a writer that records what it is asked to
 * write instead of writing it (fio's null engine shape): every value with
 * its default, the role's weight and quota on the role's first instance,
 * the IRQs steered for each instance, and a switch between placements (what
 * bench does between variants) writing each value that changes exactly
 * once and nothing else. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cpulist.h"
#include "placement.h"
#include "proc.h"
#include "profile/profile.h"
#include "test_support.h"

/* ------------------------------------------------------------------ the recording writer */

#define MAX_GROUPS 64
#define MAX_WRITES 512

struct recorded_group {
  char *where;
  struct placer_group_values v;
};
struct recorded_write {
  char *where;
  enum placer_setting s; /* PLACER_SETTING_N: created */
};
struct recorder {
  struct recorded_group groups[MAX_GROUPS];
  size_t n_groups;
  struct recorded_write writes[MAX_WRITES];
  size_t n_writes;
};

static struct recorded_group *find_group(struct recorder *r, const char *where) {
  for (size_t i = 0; i < r->n_groups; i++)
    if (strcmp(r->groups[i].where, where) == 0)
      return &r->groups[i];
  return NULL;
}

static void record(struct recorder *r, const char *where, enum placer_setting s) {
  assert_true(r->n_writes < MAX_WRITES);
  r->writes[r->n_writes++] = (struct recorded_write){ strdup(where), s };
}

static bool rec_exists(void *ctx, const char *where) {
  return find_group(ctx, where) != NULL;
}

static int rec_create(void *ctx, const char *where, const char *mark, bool *unmarked, struct placer_error **err) {
  (void)mark;
  (void)err;
  struct recorder *r = ctx;
  assert_null(find_group(r, where));
  assert_true(r->n_groups < MAX_GROUPS);
  /* a new group holds what a new v2 group does: empty cpus and mems, no limit, the default weight */
  r->groups[r->n_groups++] = (struct recorded_group){
    strdup(where), { strdup(""), strdup(""), PLACER_CGROUP_UNLIMITED, PLACER_CGROUP_WEIGHT_DEFAULT, 0, 0 }
  };
  record(r, where, PLACER_SETTING_N);
  *unmarked = false;
  return 0;
}

static int rec_read(void *ctx, const char *where, unsigned settings, struct placer_group_values *now,
                    struct placer_error **err) {
  (void)settings;
  (void)err;
  const struct recorded_group *g = find_group(ctx, where);
  assert_non_null(g); /* placer_placed_write makes a group before it reads it */
  *now = g->v;
  now->cpus = strdup(g->v.cpus);
  now->mems = strdup(g->v.mems);
  return 0;
}

static int rec_update(void *ctx, const char *where, enum placer_setting s, const struct placer_group_values *want,
                      struct placer_error **err) {
  (void)err;
  struct recorder *r = ctx;
  struct recorded_group *g = find_group(r, where);
  assert_non_null(g);
  switch (s) {
  case PLACER_SETTING_CPUS:
    free(g->v.cpus);
    g->v.cpus = strdup(want->cpus);
    break;
  case PLACER_SETTING_MEMS:
    free(g->v.mems);
    g->v.mems = strdup(want->mems);
    break;
  case PLACER_SETTING_MEMORY_LIMIT: g->v.memory_limit = want->memory_limit; break;
  case PLACER_SETTING_CPU_WEIGHT: g->v.cpu_weight = want->cpu_weight; break;
  case PLACER_SETTING_CPU_QUOTA: g->v.cpu_quota = want->cpu_quota; break;
  case PLACER_SETTING_N: fail_msg("update of no setting");
  }
  record(r, where, s);
  return 0;
}

static int rec_attach(void *ctx, const char *where, pid_t pid, struct placer_error **err) {
  (void)ctx, (void)where, (void)pid, (void)err;
  fail_msg("writing values attaches nothing");
  return -1;
}

static int rec_destroy(void *ctx, const char *where, struct placer_error **err) {
  (void)ctx, (void)where, (void)err;
  fail_msg("writing values destroys nothing");
  return -1;
}

static const struct placer_writer_ops recorder_ops = {
  .name = "recorder",
  .exists = rec_exists,
  .create = rec_create,
  .read = rec_read,
  .update = rec_update,
  .attach = rec_attach,
  .destroy = rec_destroy,
};

static void recorder_forget_writes(struct recorder *r) {
  for (size_t i = 0; i < r->n_writes; i++)
    free(r->writes[i].where);
  r->n_writes = 0;
}

static void recorder_clear(struct recorder *r) {
  recorder_forget_writes(r);
  for (size_t i = 0; i < r->n_groups; i++) {
    free(r->groups[i].where);
    placer_group_values_clear(&r->groups[i].v);
  }
  r->n_groups = 0;
}

static size_t writes_of(const struct recorder *r, const char *where, enum placer_setting s) {
  size_t n = 0;
  for (size_t i = 0; i < r->n_writes; i++)
    n += strcmp(r->writes[i].where, where) == 0 && r->writes[i].s == s;
  return n;
}

/* ------------------------------------------------------------------ plans */

struct variant {
  struct placer_profile *profile;
  struct placer_plan *plan;
  struct placer_placement *pl;
};

/* PROFILE (a shipped one) with the --set assignments SETS, planned on TOPO
 * and placed under "t". */
static void variant_make(struct variant *v, const struct placer_topology *topo, const char *profile,
                         const char *const *sets) {
  struct placer_error *err = NULL;
  v->profile = test_profile_load(profile);
  for (size_t i = 0; sets && sets[i]; i++)
    if (placer_profile_set(v->profile, sets[i], &err) < 0)
      fail_msg("%s: --set %s: %s", profile, sets[i], err->msg);
  v->plan = test_plan_ok(topo, v->profile);
  if (placer_placement_compute(v->plan, "t", NULL, 0, &v->pl, &err) < 0)
    fail_msg("%s: placement: %s", profile, err->msg);
}

static void variant_free(struct variant *v) {
  placer_placement_free(v->pl);
  placer_plan_free(v->plan);
  placer_profile_free(v->profile);
}

/* ------------------------------------------------------------------ tests */

static void test_model_values(void **state) {
  (void)state;
  struct placer_topology *topo = test_topo_load("24em64t-2n6c2t-pci.xml");
  const char *sets[] = { "fio.cpu.weight=900", "osd.cpu.quota=0.5", NULL };
  struct variant pinned, unpinned;
  variant_make(&pinned, topo, "demo-local", sets);
  variant_make(&unpinned, topo, "unpinned", NULL);

  const struct placer_placed *fio = placer_placement_find(pinned.pl, "fio.0");
  const struct placer_placed *osd0 = placer_placement_find(pinned.pl, "osd.0");
  const struct placer_placed *osd1 = placer_placement_find(pinned.pl, "osd.1");
  assert_non_null(fio);
  assert_non_null(osd0);
  assert_non_null(osd1);
  assert_null(placer_placement_find(pinned.pl, "osd.2"));
  assert_string_equal(osd1->group, "t/osd/osd.1");
  assert_string_equal(osd1->role_group, "t/osd");
  /* the plan's values, and which of them the plan gives itself */
  cleanup_free char *fio_cpus = placer_cpulist_format(fio->inst->cpus);
  assert_string_equal(fio->values.cpus, fio_cpus);
  assert_int_equal(fio->values.memory_limit, 512ull << 20);
  assert_int_equal(fio->values.cpu_weight, 900);
  assert_int_equal(fio->values.planned, PLACER_GROUP_SETTINGS);
  assert_int_equal(osd0->values.cpu_weight, PLACER_CGROUP_WEIGHT_DEFAULT); /* a default, not planned */
  assert_false(osd0->values.planned & PLACER_SETTING_BIT(PLACER_SETTING_CPU_WEIGHT));
  /* the role's weight is the sum of its instances'; its quota is the role's; the first instance carries them */
  assert_int_equal(fio->role.cpu_weight, 900);
  assert_int_equal(osd0->role.cpu_weight, 200);
  assert_int_equal(osd0->role.cpu_quota, 500);
  assert_int_equal(osd0->role_writes, PLACER_ROLE_SETTINGS);
  assert_int_equal(osd1->role_writes, 0);
  assert_int_equal(fio->role.cpu_quota, 0);

  /* unpinned: every allowed PU and every node are values like any other */
  const struct placer_placed *u = placer_placement_find(unpinned.pl, "osd.0");
  cleanup_free char *all = placer_cpulist_format(topo->allowed_cpus);
  assert_string_equal(u->values.cpus, all);
  assert_false(u->values.planned & PLACER_SETTING_BIT(PLACER_SETTING_CPUS));
  assert_int_equal(u->role.cpu_quota, 0);
  assert_false(u->role.planned & PLACER_SETTING_BIT(PLACER_SETTING_CPU_QUOTA));

  variant_free(&pinned);
  variant_free(&unpinned);
  placer_topology_free(topo);
}

/* A plan built by hand: instances ROLES[i].0 with no cpus of note. */
static struct placer_plan *hand_plan(const char *const *roles, size_t n) {
  struct placer_plan *plan = calloc(1, sizeof(*plan));
  assert_non_null(plan);
  plan->instances = calloc(n, sizeof(*plan->instances));
  plan->n_instances = n;
  for (size_t i = 0; i < n; i++) {
    struct placer_instance *inst = &plan->instances[i];
    inst->role = strdup(roles[i]);
    assert_true(asprintf(&inst->name, "%s.0", roles[i]) > 0);
    inst->cpus = hwloc_bitmap_alloc();
    inst->mems = hwloc_bitmap_alloc();
    hwloc_bitmap_set(inst->cpus, 0);
    hwloc_bitmap_set(inst->mems, 0);
  }
  return plan;
}

static void hand_plan_free(struct placer_plan *plan) {
  for (size_t i = 0; i < plan->n_instances; i++) {
    free(plan->instances[i].role);
    free(plan->instances[i].name);
    hwloc_bitmap_free(plan->instances[i].cpus);
    hwloc_bitmap_free(plan->instances[i].mems);
  }
  free(plan->instances);
  free(plan->irqs);
  free(plan);
}

static void test_irqs_and_refusals(void **state) {
  (void)state;
  const char *roles[] = { "a", "b", "ab" };
  struct placer_plan *plan = hand_plan(roles, 3);
  /* an IRQ of a.0, one of a rule of two instances, a top-level one, one of ab.0 (not a.0's) */
  plan->irqs = calloc(4, sizeof(*plan->irqs));
  plan->n_irqs = 4;
  plan->irqs[0].instance = "a.0";
  plan->irqs[1].instance = "b.0+a.0";
  plan->irqs[2].instance = NULL;
  plan->irqs[3].instance = "ab.0";
  struct placer_placement *pl = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_placement_compute(plan, "t", NULL, 0, &pl, &err), 0);
  const struct placer_placed *a = placer_placement_find(pl, "a.0"), *b = placer_placement_find(pl, "b.0"),
                             *ab = placer_placement_find(pl, "ab.0");
  assert_int_equal(a->n_irqs, 2);
  assert_int_equal(a->irqs[0], 0);
  assert_int_equal(a->irqs[1], 1);
  assert_int_equal(b->n_irqs, 1);
  assert_int_equal(b->irqs[0], 1);
  assert_int_equal(ab->n_irqs, 1);
  assert_int_equal(ab->irqs[0], 3);
  placer_placement_free(pl);
  hand_plan_free(plan);

  /* two roles whose names meet once sanitized: one group, refused */
  const char *clash[] = { "x y", "x_y" };
  plan = hand_plan(clash, 2);
  assert_int_equal(placer_placement_compute(plan, "t", NULL, 0, &pl, &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  assert_string_equal(err->msg, "x y.0 and x_y.0 would share the group t/x_y/x_y.0");
  placer_error_clear(&err);
  plan->instances[1].cpu_weight = 10001; /* and a weight outside cgroup's range */
  assert_int_equal(placer_placement_compute(plan, "t", NULL, 0, &pl, &err), -1);
  assert_string_equal(err->msg, "x_y.0: cpu weight 10001 is outside 1..10000");
  placer_error_clear(&err);
  hand_plan_free(plan);
}

/* One more process for an instance of a running placement (the watcher's
 * way in): bound with its descendants after the same checks as --pid, and
 * never to a second instance. */
static void test_bind_one_pid(void **state) {
  (void)state;
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    pid_t grandchild = fork();
    if (grandchild == 0)
      pause();
    pause();
    _exit(0);
  }
  const char *roles[] = { "a", "b" };
  struct placer_plan *plan = hand_plan(roles, 2);
  struct placer_placement *pl = NULL;
  struct placer_error *err = NULL;
  assert_int_equal(placer_placement_compute(plan, "t", NULL, 0, &pl, &err), 0);
  assert_int_equal(placer_placement_bind(pl, NULL, 0, false, &err), 0); /* no matcher: nothing, a note */
  struct placer_placed *a = &pl->v[0], *b = &pl->v[1];
  assert_string_equal(a->note, "no process: the profile gives no matcher and no --pid a.0=PID was given");
  /* the child's own child shows up in /proc a moment after the fork */
  pid_t *desc = NULL;
  size_t n = 0;
  for (int i = 0; i < 200 && n == 0; i++) {
    free(desc);
    desc = NULL;
    assert_int_equal(placer_proc_descendants(child, NULL, 0, &desc, &n, &err), 0);
    if (n == 0)
      usleep(10000);
  }
  assert_int_equal(n, 1);
  assert_int_equal(placer_placement_bind_pid(pl, a, child, &err), 0);
  assert_int_equal(a->n_procs, 2);
  assert_int_equal(a->procs[0].pid, child);
  assert_int_equal(a->procs[0].root_pid, 0);
  assert_int_equal(a->procs[1].pid, desc[0]);
  assert_int_equal(a->procs[1].root_pid, child);
  assert_null(a->note);
  /* the same process, or its child, for another instance: refused */
  assert_int_equal(placer_placement_bind_pid(pl, b, desc[0], &err), -1);
  assert_int_equal(err->exit_code, PLACER_EXIT_USAGE);
  char want[128];
  snprintf(want, sizeof(want), "b.0: pid %d is bound by a.0", (int)desc[0]);
  assert_string_equal(err->msg, want);
  placer_error_clear(&err);
  /* what placer never binds */
  assert_int_equal(placer_placement_bind_pid(pl, b, 1, &err), -1);
  assert_non_null(strstr(err->msg, "b.0: pid 1: that is PID 1"));
  placer_error_clear(&err);
  assert_int_equal(placer_placement_bind_pid(pl, b, getpid(), &err), -1);
  placer_error_clear(&err);
  assert_int_equal(b->n_procs, 0);
  /* nothing has exited: nothing forgotten */
  assert_int_equal(placer_placement_forget_exited(pl), 0);
  assert_int_equal(a->n_procs, 2);
  kill(desc[0], SIGKILL); /* an orphan once its parent is gone: killed first */
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  /* both gone (the grandchild killed too, a zombie until init reaps it: not the process bound):
   * both forgotten, so that a pid the kernel reuses is bound anew, by whichever instance claims it */
  for (int i = 0; i < 500 && placer_proc_is_same(a->procs[1].pid, a->procs[1].start_time); i++)
    usleep(10000);
  assert_int_equal(placer_placement_forget_exited(pl), 2);
  assert_int_equal(a->n_procs, 0);
  free(desc);
  placer_placement_free(pl);
  hand_plan_free(plan);
}

/* Every value of every group of TO that differs from FROM's was written
 * once by the switch, and no other. */
static void assert_switch_wrote_once(const struct recorder *r, const struct placer_placement *from,
                                     const struct placer_placement *to) {
  size_t expected = 0;
  for (size_t i = 0; i < to->n; i++) {
    const struct placer_placed *p = &to->v[i], *was = placer_placement_find(from, p->inst->name);
    assert_non_null(was);
    for (enum placer_setting s = 0; s < PLACER_SETTING_N; s++) {
      if (PLACER_GROUP_SETTINGS & PLACER_SETTING_BIT(s)) {
        size_t want = placer_group_value_equal(s, &was->values, &p->values) ? 0 : 1;
        if (writes_of(r, p->group, s) != want)
          fail_msg("%s %s: written %zu times, want %zu", p->group, placer_setting_name(s), writes_of(r, p->group, s),
                   want);
        expected += want;
      }
      if (p->role_writes & PLACER_SETTING_BIT(s)) {
        size_t want = placer_group_value_equal(s, &was->role, &p->role) ? 0 : 1;
        if (writes_of(r, p->role_group, s) != want)
          fail_msg("%s %s: written %zu times, want %zu", p->role_group, placer_setting_name(s),
                   writes_of(r, p->role_group, s), want);
        expected += want;
      }
    }
  }
  assert_int_equal(r->n_writes, expected); /* nothing else: no group made again, no value twice */
}

static void test_switch_writes_each_value_once(void **state) {
  (void)state;
  struct placer_topology *topo = test_topo_load("24em64t-2n6c2t-pci.xml");
  const char *heavy[] = { "fio.cpu.weight=900", "osd.cpu.quota=0.5", NULL };
  struct variant a, b, c;
  variant_make(&a, topo, "demo-local", NULL);
  variant_make(&b, topo, "demo-local", heavy);
  variant_make(&c, topo, "unpinned", NULL);
  struct recorder r = { .n_groups = 0 };
  struct placer_writer w = { &recorder_ops, &r };
  struct placer_error *err = NULL;

  /* the first placement makes every level once and writes what a new group does not hold */
  assert_int_equal(placer_placement_write(&w, a.pl, &err), 0);
  assert_int_equal(writes_of(&r, "t", PLACER_SETTING_N), 1);
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_N), 1);
  assert_int_equal(writes_of(&r, "t/osd/osd.1", PLACER_SETTING_N), 1);
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_CPU_WEIGHT), 1);       /* 200, once for both OSDs */
  assert_int_equal(writes_of(&r, "t/osd/osd.0", PLACER_SETTING_CPU_WEIGHT), 0); /* the default a new group has */
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_CPU_QUOTA), 0);

  /* pinned -> a weight and a quota -> unpinned -> pinned: each change once */
  const struct variant *order[] = { &a, &b, &c, &a, &c, &b };
  for (size_t k = 1; k < sizeof(order) / sizeof(order[0]); k++) {
    recorder_forget_writes(&r);
    assert_int_equal(placer_placement_write(&w, order[k]->pl, &err), 0);
    assert_switch_wrote_once(&r, order[k - 1]->pl, order[k]->pl);
    assert_true(r.n_writes > 0);
  }
  /* unpinned after a quota: the quota back to none and every PU, as values */
  cleanup_free char *all = placer_cpulist_format(topo->allowed_cpus);
  recorder_forget_writes(&r);
  assert_int_equal(placer_placement_write(&w, c.pl, &err), 0);
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_CPU_QUOTA), 1);
  assert_int_equal(find_group(&r, "t/osd")->v.cpu_quota, 0);
  assert_string_equal(find_group(&r, "t/osd/osd.0")->v.cpus, all);
  assert_string_equal(find_group(&r, "t/fio/fio.0")->v.cpus, all);
  assert_int_equal(find_group(&r, "t/fio")->v.cpu_weight, 100);
  /* the same placement again writes nothing */
  recorder_forget_writes(&r);
  assert_int_equal(placer_placement_write(&w, c.pl, &err), 0);
  assert_int_equal(r.n_writes, 0);

  recorder_clear(&r);
  variant_free(&a);
  variant_free(&b);
  variant_free(&c);
  placer_topology_free(topo);
}

/* One instance placed alone (what starts a neighbour or ceph-fuse, and exec's
 * own group): its group's values and its role's quota; the role's weight,
 * which needs the plan, is left alone (never written as 0). */
static void test_one_instance_alone(void **state) {
  (void)state;
  struct placer_topology *topo = test_topo_load("24em64t-2n6c2t-pci.xml");
  const char *quota[] = { "osd.cpu.quota=0.5", NULL };
  struct variant v;
  variant_make(&v, topo, "demo-local", quota);
  const struct placer_instance *osd1 = placer_plan_find(v.plan, "osd.1");
  struct placer_placed p;
  struct placer_error *err = NULL;
  assert_int_equal(placer_placed_of_instance(osd1, "t/osd/osd.1", &p, &err), 0);
  assert_string_equal(p.role_group, "t/osd");
  assert_int_equal(p.role_writes, PLACER_SETTING_BIT(PLACER_SETTING_CPU_QUOTA));
  struct recorder r = { .n_groups = 0 };
  struct placer_writer w = { &recorder_ops, &r };
  assert_int_equal(placer_placed_write(&w, &p, PLACER_GROUP_SETTINGS, p.role_writes, NULL, NULL, NULL, &err), 0);
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_CPU_QUOTA), 1);
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_CPU_WEIGHT), 0);
  assert_int_equal(writes_of(&r, "t/osd/osd.1", PLACER_SETTING_MEMORY_LIMIT), 1);
  /* the role's values alone, as run and exec write them with the plan's model: the weight, the quota kept */
  recorder_forget_writes(&r);
  const struct placer_placed *full = placer_placement_find(v.pl, "osd.1");
  assert_int_equal(placer_placed_write(&w, full, 0, PLACER_ROLE_SETTINGS, NULL, NULL, NULL, &err), 0);
  assert_int_equal(r.n_writes, 1);
  assert_int_equal(writes_of(&r, "t/osd", PLACER_SETTING_CPU_WEIGHT), 1);
  assert_int_equal(find_group(&r, "t/osd")->v.cpu_weight, 200);
  placer_placed_clear(&p);
  recorder_clear(&r);
  variant_free(&v);
  placer_topology_free(topo);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_model_values),
    cmocka_unit_test(test_irqs_and_refusals),
    cmocka_unit_test(test_switch_writes_each_value_once),
    cmocka_unit_test(test_one_instance_alone),
    cmocka_unit_test(test_bind_one_pid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
