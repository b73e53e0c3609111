/* What a neighbour runs as: a study's neighbours[].kind (and, for stress-ng,
 * its backend).  One ops table per way of running it, one file each
 * (neighbour-stress-ng.c, neighbour-podman.c, neighbour-vm.c), as the targets
 * (target.h); bench_neighbours[] in neighbour.c lists them, and a study names
 * a kind by the name in its tables, whose keys it takes.  Adding a kind: its
 * file, its line in the table and its extern below; test_bench_neighbour
 * checks every table of bench_neighbours[] is whole (bench_neighbour_ops_check). */
#ifndef PLACER_BENCH_NEIGHBOUR_H
#define PLACER_BENCH_NEIGHBOUR_H

#include <stdbool.h>

#include "bench/run.h"
#include "bench/study.h"
#include "launch.h"

enum bench_neighbour_flag {
  BENCH_NEIGHBOUR_GUEST = 1u << 0, /* a qemu guest: needs a kernel and initramfs; its threads (vCPUs) are listed */
  BENCH_NEIGHBOUR_RSS = 1u << 1,   /* its workers are plain processes in its group: their peak RSS is sampled */
};

struct bench_neighbour_ops {
  const char *name;                  /* in messages: "stress-ng", "stress-ng in podman", "vm" */
  const char *kind;                  /* the study's neighbours[].kind: "stress-ng", "vm" */
  enum placer_study_backend backend; /* the study's backend (a kind with none: exec) */
  /* The study keys of this kind beyond every neighbour's (name, role, kind,
   * intensity), NULL after the last; another kind's key is refused. */
  const char *const *keys;
  /* The kind's defaults and its checks across those keys: 0, or -1 with
   * *KEY the key at fault and *WHY the reason (*WHY NULL: out of memory).
   * May be NULL. */
  int (*settle)(struct placer_study_neighbour *nb, const char **key, const char **why);
  unsigned flags;                         /* enum bench_neighbour_flag */
  const char *program;                    /* what must be installed to run it */
  const char *unit;                       /* what the intensity counts: "stress-ng workers" */
  const char *rate_unit;                  /* what its rate counts: "bogo ops/s" */
  unsigned start_limit_ms;                /* how long it may take to start working */
  const char *late;                       /* what did not happen in time: "stress-ng did not start" */
  const struct placer_launch_ops *launch; /* is_running and stop of P->rec */
  /* P->argv and what else it needs (its console, its container) for
   * INTENSITY, into SPEC. */
  int (*prepare)(const struct placer_bench_neighbour_env *env, unsigned intensity,
                 struct placer_bench_neighbour_proc *p, struct placer_launch_spec *spec, struct placer_error **err);
  /* Start it placed in P->group; P->rec what launch's is_running and stop
   * understand. */
  int (*start)(const struct placer_bench_neighbour_env *env, struct placer_bench_neighbour_proc *p,
               const struct placer_launch_spec *spec, struct placer_error **err);
  /* After it started (vm: pin the vCPUs); CPUS its instance's.  May be NULL. */
  int (*started)(struct placer_bench_neighbour_proc *p, const char *cpus, unsigned intensity,
                 struct placer_error **err);
  /* Whether it works yet, WAITED_MS after it started. */
  bool (*working)(struct placer_bench_neighbour_proc *p, unsigned waited_ms);
  /* The start of the measured window (vm: the guest's progress now).  May be NULL. */
  void (*mark)(struct placer_bench_neighbour_proc *p);
  /* Its work rate over the window, NAN when there is none; may end its work
   * (stress-ng prints its metrics when interrupted). */
  double (*rate)(struct placer_bench_neighbour_proc *p);
  /* What is left after launch->stop (the container, the zombie).  May be NULL. */
  int (*cleanup)(struct placer_cgroup *cg, struct placer_bench_neighbour_proc *p, struct placer_error **err);
};

/* The ways to run a neighbour, NULL after the last (a kind's first is its
 * exec backend's). */
extern const struct bench_neighbour_ops *const bench_neighbours[];
/* The table of KIND run by BACKEND; NULL when there is none (a study
 * refuses those: backend only goes with kind stress-ng). */
const struct bench_neighbour_ops *bench_neighbour(const char *kind, enum placer_study_backend backend);
/* Whether OPS's kind takes study key KEY (its own, or every neighbour's). */
bool bench_neighbour_takes(const struct bench_neighbour_ops *ops, const char *key);
/* NULL when OPS is whole and consistent, else what is wrong with it. */
const char *bench_neighbour_ops_check(const struct bench_neighbour_ops *ops);

/* Start P through `placer exec` (placed and accounted with its children
 * from its first instruction): the start of the kinds run by exec. */
int bench_neighbour_start_placed(const struct placer_bench_neighbour_env *env, struct placer_bench_neighbour_proc *p,
                                 const struct placer_launch_spec *spec, struct placer_error **err);
/* Wait (up to 5 s) for P to end, reaping it when REAP (our child). */
void bench_neighbour_wait_ended(struct placer_bench_neighbour_proc *p, bool reap);
/* Reap P if it was our child and has ended: the cleanup of the kinds run by exec. */
int bench_neighbour_reap(struct placer_cgroup *cg, struct placer_bench_neighbour_proc *p, struct placer_error **err);
/* stress-ng's keys and their defaults and checks, in either backend
 * (neighbour-stress-ng.c). */
extern const char *const bench_neighbour_stress_keys[];
int bench_neighbour_stress_settle(struct placer_study_neighbour *nb, const char **key, const char **why);
/* stress-ng's argv for neighbour NB (neighbour-stress-ng.c). */
int bench_neighbour_stress_argv(const struct placer_study_neighbour *nb, unsigned intensity, unsigned seconds,
                                char ***out);
/* The rate in stress-ng's log P->log (it has ended): NAN when none. */
double bench_neighbour_stress_rate(const struct placer_bench_neighbour_proc *p);

extern const struct bench_neighbour_ops bench_neighbour_stress_ng, bench_neighbour_podman, bench_neighbour_vm;

#endif
