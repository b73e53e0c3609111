/* Internal to reading a study (study.c, study-sweep.c, and the workload
 * kinds' keys in workload-*.c): errors at a key with its place in the file,
 * the parsers several keys share, and the study's workloads by name
 * (study-keys.c). */
#ifndef PLACER_BENCH_STUDY_INTERNAL_H
#define PLACER_BENCH_STUDY_INTERNAL_H

#include "bench/study.h"
#include "profile/profile-yaml.h"

size_t study_seq_len(const yaml_node_t *v);
yaml_node_t *study_seq_item(struct pyaml_walk *w, const yaml_node_t *v, size_t i);
/* A scalar's text, else what the node is ("a list", "a mapping"): for
 * "expected one of ..., got '...'". */
const char *study_scalar_or_kind(const yaml_node_t *v);
/* "parse study: out of memory". */
int study_oom(struct pyaml_walk *w);
/* *SLOT = a copy of VALUE unless set: 0, or -1 out of memory. */
int study_set_default(char **slot, const char *value);
/* An error at KEY of the mapping SECTION ("cluster"; NULL: the top level),
 * FILE:LINE:COL of the key when it is there, else of the section. */
int study_key_error(struct pyaml_walk *w, yaml_node_t *root, const char *section, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "90%" or 0.9, in (0, 1], into the double at the field's offset; the same
 * into *X. */
int study_parse_fraction(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);
int study_parse_fraction_value(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, double *x);
/* 1 when NAME is one of the study's workloads ("4k-randwrite"), or with
 * OR_CURVE a curve of its load steps ("4k-randwrite" of
 * "4k-randwrite@iodepth16"), 0 when not, -1 out of memory. */
int study_has_workload(const struct placer_study *s, const char *name, bool or_curve);

/* study-sweep.c: sweep.values' parser, and the sweep checked (a placement
 * sweep's variants made). */
int study_parse_sweep_values(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);
int study_check_sweep(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root);

/* study-curves.c: workloads.load (a block workload's key), slo's keys,
 * max_time, and the checks across them once the study is read. */
int study_parse_load(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);
int study_parse_max_time(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target);
extern const struct pyaml_schema study_slo_schema;
int study_check_curves(struct pyaml_walk *w, struct placer_study *s, yaml_node_t *root);

#endif
