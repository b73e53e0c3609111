/* The fio options a study may pass (workloads.fio_options), by allowlist.
 * fio 3.33 has about 200 options and 30 engines, and many of them name a
 * file, lay one out again, delete it or run a program; a denylist of the
 * dangerous ones was bypassed eight ways (--unlink, --ioengine=filedelete,
 * --offset, --mem=mmap:PATH, ... issue #35), so only what is listed here
 * reaches fio.  Every entry is in docs/bench.md with why it is safe; the
 * spelling is fio's own, exactly (its getopt is case- and dash-sensitive and
 * would take an abbreviation of an option that is not listed). */
#include "bench/fio-options.h"

#include <stdbool.h>
#include <string.h>

#include "bench/target.h"
#include "lib/array.h"

enum fio_value {
  VALUE_BOOL,   /* 0 or 1 */
  VALUE_NUMBER, /* a number with fio's units and lists: 4k, 10us, 1m,2m, 50% */
  VALUE_WORD,   /* one of the entry's words; a word ending in ':' takes numbers after it (zipf:1.2) */
};

static const struct fio_allowed {
  const char *name, *alias; /* as fio spells them */
  enum fio_value value;
  const char *words; /* VALUE_WORD: "a|b|c" */
} allowed[] = {
  /* the random offsets: which blocks of the study's region, never another region */
  { "randrepeat", NULL, VALUE_BOOL, NULL },
  { "allrandrepeat", NULL, VALUE_BOOL, NULL },
  { "randseed", NULL, VALUE_NUMBER, NULL },
  { "norandommap", NULL, VALUE_BOOL, NULL },
  { "random_generator", NULL, VALUE_WORD, "tausworthe|lfsr|tausworthe64" },
  { "random_distribution", NULL, VALUE_WORD, "random|zipf:|pareto:|normal:" },
  { "percentage_random", NULL, VALUE_NUMBER, NULL },
  { "rwmixread", NULL, VALUE_NUMBER, NULL },
  { "rwmixwrite", NULL, VALUE_NUMBER, NULL },
  { "rw_sequencer", NULL, VALUE_WORD, "sequential|identical" },
  { "ba", "blockalign", VALUE_NUMBER, NULL },
  /* how I/O is submitted and completed */
  { "iodepth_batch", "iodepth_batch_submit", VALUE_NUMBER, NULL },
  { "iodepth_batch_complete_min", "iodepth_batch_complete", VALUE_NUMBER, NULL },
  { "iodepth_batch_complete_max", NULL, VALUE_NUMBER, NULL },
  { "iodepth_low", NULL, VALUE_NUMBER, NULL },
  { "serialize_overlap", NULL, VALUE_BOOL, NULL },
  { "io_submit_mode", NULL, VALUE_WORD, "inline|offload" },
  { "fadvise_hint", NULL, VALUE_WORD, "0|1|random|sequential" },
  { "invalidate", NULL, VALUE_BOOL, NULL },
  /* flushes of what the study writes */
  { "fsync", NULL, VALUE_NUMBER, NULL },
  { "fdatasync", NULL, VALUE_NUMBER, NULL },
  { "end_fsync", NULL, VALUE_BOOL, NULL },
  { "fsync_on_close", NULL, VALUE_BOOL, NULL },
  { "sync", NULL, VALUE_WORD, "none|0|sync|1|dsync" },
  { "write_barrier", NULL, VALUE_NUMBER, NULL },
  /* the pace */
  { "thinktime", NULL, VALUE_NUMBER, NULL },
  { "thinktime_spin", NULL, VALUE_NUMBER, NULL },
  { "thinktime_blocks", NULL, VALUE_NUMBER, NULL },
  { "thinktime_blocks_type", NULL, VALUE_WORD, "complete|issue" },
  { "rate", NULL, VALUE_NUMBER, NULL },
  { "rate_min", "ratemin", VALUE_NUMBER, NULL },
  { "rate_iops", NULL, VALUE_NUMBER, NULL },
  { "rate_iops_min", NULL, VALUE_NUMBER, NULL },
  { "rate_process", NULL, VALUE_WORD, "linear|poisson" },
  { "rate_cycle", "ratecycle", VALUE_NUMBER, NULL },
  { "rate_ignore_thinktime", NULL, VALUE_BOOL, NULL },
  /* what the written blocks hold (compression, dedupe in the OSDs) */
  { "zero_buffers", NULL, VALUE_BOOL, NULL },
  { "refill_buffers", NULL, VALUE_BOOL, NULL },
  { "scramble_buffers", NULL, VALUE_BOOL, NULL },
  { "buffer_compress_percentage", NULL, VALUE_NUMBER, NULL },
  { "buffer_compress_chunk", NULL, VALUE_NUMBER, NULL },
  { "dedupe_percentage", NULL, VALUE_NUMBER, NULL },
  { "clocksource", NULL, VALUE_WORD, "gettimeofday|clock_gettime|cpu" },
  /* target file only: another of fio's built-in engines on the same file */
  { "ioengine", NULL, VALUE_WORD, "libaio|io_uring|psync|sync|pvsync|pvsync2|vsync|posixaio|null" },
};

/* What placer sets itself, named so that the message says which study key
 * to change instead (the rest gets the list's message). */
static const struct {
  const char *name, *why;
} placer_sets[] = {
  { "name", "placer sets it (each job is named after its workload)" },
  { "filename", "placer sets it (workloads.path for target file)" },
  { "output", "placer sets it (fio's JSON goes into the results directory)" },
  { "output-format", "placer sets it (json, which it reads)" },
  { "direct", "placer sets it (O_DIRECT on a file, so the page cache does not answer)" },
  { "buffered", "placer sets it (direct: O_DIRECT on a file, so the page cache does not answer)" },
  { "rw", "placer sets it (workloads.patterns)" },
  { "readwrite", "placer sets it (workloads.patterns)" },
  { "bs", "placer sets it (workloads.block_sizes)" },
  { "blocksize", "placer sets it (workloads.block_sizes)" },
  { "iodepth", "placer sets it (workloads.iodepth)" },
  { "numjobs", "placer sets it (workloads.numjobs)" },
  { "size", "placer sets it (workloads.size)" },
  { "runtime", "placer sets it (workloads.runtime)" },
  { "timeout", "placer sets it (fio's alias of runtime: workloads.runtime)" },
  { "time_based", "placer sets it" },
  { "ramp_time", "placer sets it (workloads.ramp)" },
  { "status-interval", "placer sets it (recovery runs)" },
  { "group_reporting", "placer sets it" },
  { "clientname", "placer sets it (cluster.client)" },
  { "pool", "placer sets it (cluster.pool)" },
  { "rbdname", "placer sets it (cluster.image)" },
};

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* A number as fio reads them: a digit first, then digits, unit letters,
 * '.', ',' (read,write), ':' and '%'; nothing that names a path ('/'), a
 * variable ('$') or an expression. */
static bool number_ok(const char *v) {
  if (!is_digit(*v) || strlen(v) > 32)
    return false;
  for (; *v; v++)
    if (!is_digit(*v) && !(*v >= 'a' && *v <= 'z') && !(*v >= 'A' && *v <= 'Z') && !strchr(".,:%", *v))
      return false;
  return true;
}

static bool word_ok(const char *v, const char *words) {
  for (const char *w = words; *w;) {
    size_t len = strcspn(w, "|");
    if (w[len - 1] == ':' ? strncmp(v, w, len) == 0 && number_ok(v + len) : strlen(v) == len && strncmp(v, w, len) == 0)
      return true;
    w += len + (w[len] == '|');
  }
  return false;
}

const char *bench_fio_option_refused(const char *opt, const struct bench_target_ops *target) {
  for (const char *p = opt; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      return *p == '\n' ? "no option may hold a newline" : "no option may hold a control byte";
  const char *eq = strchr(opt, '=');
  if (strncmp(opt, "--", 2) != 0 || eq == NULL || eq == opt + 2)
    return "expected --key=value";
  const char *key = opt + 2, *value = eq + 1;
  size_t n = (size_t)(eq - key);
  for (size_t i = 0; i < N_OF(placer_sets); i++)
    if (strlen(placer_sets[i].name) == n && strncmp(placer_sets[i].name, key, n) == 0)
      return placer_sets[i].why;
  const struct fio_allowed *a = NULL;
  for (size_t i = 0; a == NULL && i < N_OF(allowed); i++)
    if ((strlen(allowed[i].name) == n && strncmp(allowed[i].name, key, n) == 0) ||
        (allowed[i].alias && strlen(allowed[i].alias) == n && strncmp(allowed[i].alias, key, n) == 0))
      a = &allowed[i];
  if (a == NULL)
    return "not one of the fio options a study may pass (the list: docs/bench.md, \"The fio options a study may "
           "pass\"; spelled as fio spells it, no abbreviation)";
  if (strcmp(a->name, "ioengine") == 0) {
    if (!(target->flags & BENCH_TARGET_LOCAL_PATH))
      return "placer sets it for a Ceph target";
    if (!word_ok(value, a->words))
      return "not an engine a study may use (libaio, io_uring, psync, sync, pvsync, pvsync2, vsync, posixaio, null: "
             "the others delete, create, truncate or allocate files, run programs or reach the network)";
    return NULL;
  }
  bool ok = a->value == VALUE_BOOL     ? strcmp(value, "0") == 0 || strcmp(value, "1") == 0
            : a->value == VALUE_NUMBER ? number_ok(value)
                                       : word_ok(value, a->words);
  if (ok)
    return NULL;
  switch (a->value) {
  case VALUE_BOOL: return "expected 0 or 1";
  case VALUE_NUMBER: return "expected a number (digits, fio's units, ',' ':' '.' '%'; no path)";
  default: return "not one of the values a study may give it (docs/bench.md)";
  }
}

const char *bench_fio_option_allowed(size_t n, const char **alias) {
  if (n >= N_OF(allowed))
    return NULL;
  *alias = allowed[n].alias;
  return allowed[n].name;
}
