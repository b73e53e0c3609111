/* A plan as a table for a person: one row per instance, then the warnings
 * the rows refer to by number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "lib/units.h"

enum {
  COL_INSTANCE,
  COL_ROLE,
  COL_NEAR,
  COL_NUMA,
  COL_L3,
  COL_CPUS,
  COL_SHARE,
  COL_MEMS,
  COL_MEMORY,
  COL_LOCALITY,
  COL_WARN,
  N_COLS
};

static const char *const headers[N_COLS] = {
  "INSTANCE", "ROLE", "DEVICE/NIC", "NUMA", "L3", "CPUS", "CPU SHARE", "MEMS", "MEMORY", "LOCALITY", "WARNINGS",
};

/* Warnings about an instance start with "NAME: ". */
static bool warning_is_about(const char *warning, const char *name) {
  size_t n = strlen(name);
  return strncmp(warning, name, n) == 0 && warning[n] == ':' && warning[n + 1] == ' ';
}

static char *instance_cell(const struct placer_plan *plan, size_t index, int col, const double *shares) {
  const struct placer_instance *inst = &plan->instances[index];
  char *s = NULL;
  char buf[64];
  switch (col) {
  case COL_INSTANCE: return strdup(inst->name);
  case COL_ROLE:
    if (asprintf(&s, "%s (%s)", inst->role, placer_role_kind_name(inst->kind)) < 0)
      return NULL;
    return s;
  case COL_NEAR:
    if (inst->device && inst->nic) {
      if (asprintf(&s, "%s/%s", inst->device, inst->nic) < 0)
        return NULL;
      return s;
    }
    return strdup(inst->device ? inst->device : inst->nic ? inst->nic : "-");
  case COL_NUMA:
    if (inst->numa_node < 0)
      return strdup(hwloc_bitmap_weight(inst->mems) > 1 ? "several" : "-");
    snprintf(buf, sizeof(buf), "%d", inst->numa_node);
    return strdup(buf);
  case COL_L3:
    /* the L3 domains (placer topo's "L3 #N") its cpus lie in */
    if (!inst->pinned)
      return strdup("any");
    if (hwloc_bitmap_iszero(inst->l3s))
      return strdup("-");
    return placer_cpulist_format(inst->l3s);
  case COL_CPUS:
    if (!inst->pinned)
      return strdup("any");
    s = placer_cpulist_format(inst->cpus);
    if (s && !inst->exclusive) {
      char *shared = NULL;
      if (asprintf(&shared, "%s (shared)", s) < 0)
        shared = NULL;
      free(s);
      return shared;
    }
    return s;
  case COL_SHARE:
    /* What it gets of its CPUs when every instance is busy (plan-weight.c). */
    snprintf(buf, sizeof(buf), "%.0f%%", 100.0 * shares[index]);
    return strdup(buf);
  case COL_MEMS:
    if (!inst->pinned)
      return strdup("any");
    return placer_cpulist_format(inst->mems);
  case COL_MEMORY:
    if (!inst->has_memory_limit)
      return strdup("-");
    placer_format_bytes(inst->memory_bytes, buf, sizeof(buf));
    return strdup(buf);
  case COL_LOCALITY: return strdup(placer_locality_name(inst->locality));
  case COL_WARN: {
    FILE *f;
    size_t size = 0;
    if ((f = open_memstream(&s, &size)) == NULL)
      return NULL;
    int n = 0;
    for (size_t i = 0; i < plan->n_warnings; i++)
      if (warning_is_about(plan->warnings[i], inst->name))
        fprintf(f, "%s[%zu]", n++ ? " " : "", i + 1);
    if (n == 0)
      fputs("-", f);
    fclose(f);
    return s;
  }
  }
  return NULL;
}

static void print_row(FILE *out, const char *const *row, const size_t *width) {
  for (int c = 0; c + 1 < N_COLS; c++)
    fprintf(out, "%-*s  ", (int)width[c], row[c]);
  fprintf(out, "%s\n", row[N_COLS - 1]);
}

/* Rows R..END-1 hold instances of one role placed identically (every cell
 * but the name equal): a run of 3 or more prints as one "vm.0..35" row, so
 * a node with dozens of guests in one pool still fits a screen. */
static size_t identical_run_end(const struct placer_plan *plan, char **cells, size_t r, size_t rows) {
  size_t end = r + 1;
  for (; end < rows; end++) {
    if (strcmp(plan->instances[end].role, plan->instances[r].role) != 0 ||
        plan->instances[end].index != plan->instances[end - 1].index + 1)
      break;
    for (int c = COL_INSTANCE + 1; c < N_COLS; c++)
      if (strcmp(cells[end * N_COLS + c], cells[r * N_COLS + c]) != 0)
        return end;
  }
  return end;
}

static int collapse_runs(const struct placer_plan *plan, char **cells, size_t rows, size_t *run_end) {
  for (size_t r = 0; r < rows;) {
    size_t end = identical_run_end(plan, cells, r, rows);
    if (end - r < 3)
      end = r + 1;
    run_end[r] = end;
    if (end - r >= 3) {
      char *name = NULL;
      if (asprintf(&name, "%s..%u", plan->instances[r].name, plan->instances[end - 1].index) < 0)
        return -1;
      free(cells[r * N_COLS + COL_INSTANCE]);
      cells[r * N_COLS + COL_INSTANCE] = name;
    }
    r = end;
  }
  return 0;
}

int placer_plan_print_text(const struct placer_plan *plan, FILE *out) {
  size_t rows = plan->n_instances;
  char **cells = calloc((rows ? rows : 1) * N_COLS, sizeof(char *));
  if (cells == NULL)
    return -1;
  cleanup_free size_t *run_end = calloc(rows ? rows : 1, sizeof(size_t));
  cleanup_free double *shares = calloc(rows ? rows : 1, sizeof(double));
  /* declared before the first goto: jumping past a cleanup variable's
   * initialization would free garbage at the return */
  cleanup_free char *reserved = NULL, *reserved_mems = NULL, *free_cpus = NULL;
  size_t width[N_COLS];
  int rc = -1;
  if (run_end == NULL || shares == NULL || placer_plan_weights(plan, NULL, shares) < 0)
    goto out;
  for (int c = 0; c < N_COLS; c++)
    width[c] = strlen(headers[c]);
  for (size_t r = 0; r < rows; r++)
    for (int c = 0; c < N_COLS; c++)
      if ((cells[r * N_COLS + c] = instance_cell(plan, r, c, shares)) == NULL)
        goto out;
  if (collapse_runs(plan, cells, rows, run_end) < 0)
    goto out;
  for (size_t r = 0; r < rows; r = run_end[r])
    for (int c = 0; c < N_COLS; c++)
      if (strlen(cells[r * N_COLS + c]) > width[c])
        width[c] = strlen(cells[r * N_COLS + c]);

  reserved = placer_cpulist_format(plan->reserved_cpus);
  reserved_mems = placer_cpulist_format(plan->reserved_mems);
  free_cpus = placer_cpulist_format(plan->free_cpus);
  char host_memory[32];
  placer_format_bytes(plan->reserved_memory_bytes, host_memory, sizeof(host_memory));
  fprintf(out, "profile  %s\n", plan->profile_name);
  fprintf(out, "topology %s: %u NUMA node%s, %u cores, %u PUs\n", plan->topology_source, plan->topo_numa_nodes,
          plan->topo_numa_nodes == 1 ? "" : "s", plan->topo_cores, plan->topo_pus);
  fprintf(out, "reserved cpus %s, mems %s, memory %s\n", reserved && *reserved ? reserved : "none",
          reserved_mems && *reserved_mems ? reserved_mems : "none", host_memory);
  fprintf(out, "free     cpus %s\n\n", free_cpus && *free_cpus ? free_cpus : "none");

  print_row(out, headers, width);
  for (size_t r = 0; r < rows; r = run_end[r])
    print_row(out, (const char *const *)&cells[r * N_COLS], width);
  bool quota_title = false;
  for (size_t r = 0; r < rows; r++) {
    const struct placer_instance *inst = &plan->instances[r];
    if (inst->cpu_quota == 0 || (r > 0 && strcmp(plan->instances[r - 1].role, inst->role) == 0))
      continue;
    if (!quota_title)
      fprintf(out, "\ncpu quota (on the role's group, all its instances together):\n");
    quota_title = true;
    fprintf(out, "  %s: %g cores\n", inst->role, inst->cpu_quota / 1000.0);
  }
  if (placer_plan_mds_print_text(plan, out) < 0 || placer_plan_irqs_print_text(plan, out) < 0)
    goto out;
  if (plan->n_warnings) {
    fprintf(out, "\nwarnings:\n");
    for (size_t i = 0; i < plan->n_warnings; i++)
      fprintf(out, "  [%zu] %s\n", i + 1, plan->warnings[i]);
  }
  rc = ferror(out) ? -1 : 0;
out:
  for (size_t i = 0; i < rows * N_COLS; i++)
    free(cells[i]);
  free(cells);
  return rc;
}
