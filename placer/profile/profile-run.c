/* Parser of a role's run: section, on the schema walker of profile-yaml.c;
 * see profile-run.h. */
#include "profile/profile-run.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "profile/profile-yaml.h"
#include "lib/substitute.h"

#define RUN_AT(field) offsetof(struct placer_run_config, field)
#define VM_AT(field) offsetof(struct placer_vm_config, field)

static const char *const backend_names[] = { [PLACER_RUN_EXEC] = "exec", [PLACER_RUN_PODMAN] = "podman", NULL };
static const char *const network_names[] = { [PLACER_NETWORK_NONE] = "none", [PLACER_NETWORK_HOST] = "host", NULL };
static const char *const accel_names[] = {
  [PLACER_VM_ACCEL_AUTO] = "auto",
  [PLACER_VM_ACCEL_TCG] = "tcg",
  [PLACER_VM_ACCEL_KVM] = "kvm",
  NULL,
};

const char *placer_run_backend_name(enum placer_run_backend b) {
  return b <= PLACER_RUN_PODMAN ? backend_names[b] : "?";
}

const char *placer_vm_accel_name(enum placer_vm_accel a) {
  return a <= PLACER_VM_ACCEL_KVM ? accel_names[a] : "?";
}

static int nomem(struct pyaml_walk *w) {
  return placer_error_oom(w->err, "parse profile");
}

/* Every {placeholder} of S must be one substitute.c knows. */
static int check_template(struct pyaml_walk *w, yaml_node_t *v, const char *key, const char *s) {
  static const struct placer_subst_var probe[] = {
    { "id", "" },     { "index", "" }, { "name", "" }, { "role", "" },
    { "device", "" }, { "nic", "" },   { "cpus", "" }, { "mems", "" },
  };
  struct placer_error *e = NULL;
  char *out = NULL;
  if (placer_substitute(s, probe, N_OF(probe), &out, &e) < 0) {
    pyaml_walk_key_error(w, v, key, "%s", e ? e->msg : "bad template");
    placer_error_free(e);
    return -1;
  }
  free(out);
  return 0;
}

/* command: [argv...] (preferred) or "a string" split on blanks, with no
 * shell semantics: quotes and $ are ordinary characters. */
static int parse_command(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_run_config *run = target;
  placer_string_list_free(&run->command);
  if (pyaml_walk_is_scalar(v)) {
    char **argv = NULL;
    struct placer_error *e = NULL;
    if (placer_argv_split(pyaml_walk_scalar(v), &argv, &e) < 0) {
      placer_error_free(e);
      return pyaml_walk_key_error(w, v, f->key, "expected a command (a list of arguments, or a string)");
    }
    for (size_t i = 0; argv[i]; i++)
      if (placer_string_list_add(&run->command, argv[i]) < 0) {
        placer_argv_free(argv);
        return nomem(w);
      }
    placer_argv_free(argv);
  } else if (v->type == YAML_SEQUENCE_NODE) {
    size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0)
      return pyaml_walk_key_error(w, v, f->key, "must not be empty");
    for (size_t i = 0; i < n; i++) {
      yaml_node_t *item = yaml_document_get_node(w->doc, v->data.sequence.items.start[i]);
      char key[64];
      snprintf(key, sizeof(key), "%s[%zu]", f->key, i);
      /* An empty argument ("") is a legitimate argument. */
      if (!pyaml_walk_is_scalar(item))
        return pyaml_walk_key_error(w, item, key, "expected a string");
      if (placer_string_list_add(&run->command, pyaml_walk_scalar(item)) < 0)
        return nomem(w);
    }
  } else {
    return pyaml_walk_key_error(w, v, f->key, "expected a list of arguments or a string");
  }
  for (size_t i = 0; i < run->command.n; i++) {
    char key[64];
    snprintf(key, sizeof(key), "%s[%zu]", f->key, i);
    if (check_template(w, v, key, run->command.items[i]) < 0)
      return -1;
  }
  if (run->command.items[0][0] == '\0')
    return pyaml_walk_key_error(w, v, f->key, "the program (first argument) must not be empty");
  return 0;
}

/* env: {NAME: value, ...}; values are scalars (templates). */
static int parse_env(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_run_config *run = target;
  if (v->type != YAML_MAPPING_NODE)
    return pyaml_walk_key_error(w, v, f->key, "expected a mapping of NAME: value");
  placer_string_list_free(&run->env);
  for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
    yaml_node_t *val = yaml_document_get_node(w->doc, p->value);
    if (!pyaml_walk_is_scalar(k))
      return pyaml_walk_key_error(w, k, f->key, "a variable name must be a string");
    const char *name = pyaml_walk_scalar(k);
    char key[160];
    snprintf(key, sizeof(key), "%s.%s", f->key, name);
    cleanup_free char *entry = NULL;
    if (asprintf(&entry, "%s=%s", name, pyaml_walk_is_scalar(val) ? pyaml_walk_scalar(val) : "") < 0)
      return nomem(w);
    if (!placer_env_entry_is_valid(entry))
      return pyaml_walk_key_error(w, k, key, "'%s' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)", name);
    if (!pyaml_walk_is_scalar(val))
      return pyaml_walk_key_error(w, val, key, "expected a string value");
    for (size_t i = 0; i < run->env.n; i++)
      if (strncmp(run->env.items[i], entry, strlen(name) + 1) == 0)
        return pyaml_walk_key_error(w, k, key, "duplicate variable '%s'", name);
    if (check_template(w, val, key, pyaml_walk_scalar(val)) < 0)
      return -1;
    if (placer_string_list_add(&run->env, entry) < 0)
      return nomem(w);
  }
  return 0;
}

static const struct pyaml_field vm_fields[] = {
  { .key = "vcpus", .type = PYAML_FIELD_UINT, .offset = VM_AT(vcpus), .min = 1, .max = 1024 },
  { .key = "memory", .type = PYAML_FIELD_SIZE, .offset = VM_AT(memory_bytes), .min = 1 },
  { .key = "seconds", .type = PYAML_FIELD_UINT, .offset = VM_AT(seconds), .min = 1, .max = 100000000 },
  { .key = "work", .type = PYAML_FIELD_NAME, .offset = VM_AT(work) },
  { .key = "work_memory", .type = PYAML_FIELD_SIZE, .offset = VM_AT(work_memory_bytes), .min = 1 },
  { .key = "kernel", .type = PYAML_FIELD_STRING, .offset = VM_AT(kernel) },
  { .key = "initrd", .type = PYAML_FIELD_STRING, .offset = VM_AT(initrd) },
  { .key = "accel", .type = PYAML_FIELD_ENUM, .offset = VM_AT(accel), .names = accel_names },
  { .key = "append", .type = PYAML_FIELD_STRING, .offset = VM_AT(append) },
};
static const struct pyaml_schema vm_schema = { "vm", vm_fields, N_OF(vm_fields) };

static int parse_vm(struct pyaml_walk *w, const struct pyaml_field *f, yaml_node_t *v, void *target) {
  struct placer_run_config *run = target;
  size_t saved = pyaml_walk_push(w, ".%s", f->key);
  int rc = pyaml_walk_mapping(w, v, &vm_schema, &run->vm);
  if (rc == 0 && run->vm.work_memory_bytes >= run->vm.memory_bytes)
    rc = pyaml_walk_error(w, v, "work_memory must be less than the guest's memory");
  pyaml_walk_pop(w, saved);
  run->has_vm = true;
  return rc;
}

static const struct pyaml_field run_fields[] = {
  { .key = "backend", .type = PYAML_FIELD_ENUM, .offset = RUN_AT(backend), .names = backend_names },
  { .key = "command", .type = PYAML_FIELD_CUSTOM, .parse = parse_command },
  { .key = "image", .type = PYAML_FIELD_STRING, .offset = RUN_AT(image) },
  { .key = "env", .type = PYAML_FIELD_CUSTOM, .parse = parse_env },
  { .key = "network", .type = PYAML_FIELD_ENUM, .offset = RUN_AT(network), .names = network_names },
  { .key = "stop_timeout", .type = PYAML_FIELD_UINT, .offset = RUN_AT(stop_timeout_s), .max = 3600 },
  { .key = "volumes", .type = PYAML_FIELD_STRING_LIST, .offset = RUN_AT(volumes) },
  { .key = "podman_args", .type = PYAML_FIELD_STRING_LIST, .offset = RUN_AT(podman_args) },
  { .key = "vm", .type = PYAML_FIELD_CUSTOM, .parse = parse_vm },
};
static const struct pyaml_schema run_schema = { "run", run_fields, N_OF(run_fields) };

static void vm_defaults(struct placer_vm_config *vm) {
  vm->vcpus = 1;
  vm->memory_bytes = 512ull << 20;
  vm->seconds = 3600;
  vm->work_memory_bytes = 64ull << 20;
  vm->accel = PLACER_VM_ACCEL_AUTO;
}

int placer_profile_parse_run(struct pyaml_walk *w, const struct pyaml_field *field, yaml_node_t *v, void *target) {
  struct placer_role_spec *role = target;
  struct placer_run_config *run = calloc(1, sizeof(*run));
  if (run == NULL)
    return nomem(w);
  run->backend = PLACER_RUN_EXEC;
  run->network = PLACER_NETWORK_NONE;
  run->stop_timeout_s = 10;
  run->line = (unsigned)v->start_mark.line + 1;
  vm_defaults(&run->vm);
  placer_run_config_free(role->run);
  role->run = run;
  size_t saved = pyaml_walk_push(w, ".%s", field->key);
  int rc = pyaml_walk_mapping(w, v, &run_schema, run);
  if (rc < 0)
    goto out;
  yaml_node_t *image = pyaml_walk_lookup_key(w, v, "image");
  if (run->backend == PLACER_RUN_PODMAN && run->image == NULL) {
    rc = pyaml_walk_error(w, v, "backend podman needs 'image' (e.g. localhost/placer/ceph:latest)");
    goto out;
  }
  if (run->backend != PLACER_RUN_PODMAN) {
    static const char *const podman_only[] = { "image", "volumes", "podman_args", NULL };
    for (int i = 0; podman_only[i]; i++) {
      yaml_node_t *k = pyaml_walk_lookup_key(w, v, podman_only[i]);
      if (k) {
        rc = pyaml_walk_key_error(w, k, podman_only[i], "only goes with backend: podman");
        goto out;
      }
    }
  }
  if (image && (run->image[0] == '-' || strpbrk(run->image, " \t\n"))) {
    rc = pyaml_walk_key_error(w, image, "image", "'%s' is not an image name", run->image);
    goto out;
  }
  static const char *const templated[] = { "volumes", "podman_args", NULL };
  for (int i = 0; templated[i]; i++) {
    const struct placer_string_list *list = i == 0 ? &run->volumes : &run->podman_args;
    for (size_t j = 0; j < list->n; j++) {
      char key[64];
      snprintf(key, sizeof(key), "%s[%zu]", templated[i], j);
      if ((rc = check_template(w, pyaml_walk_lookup(w, v, templated[i]), key, list->items[j])) < 0)
        goto out;
    }
  }
  if (run->has_vm && run->backend != PLACER_RUN_EXEC) {
    rc = pyaml_walk_key_error(w, pyaml_walk_lookup_key(w, v, "vm"), "vm", "a vm runs with backend: exec");
    goto out;
  }
out:
  pyaml_walk_pop(w, saved);
  return rc;
}

void placer_run_config_free(struct placer_run_config *run) {
  if (run == NULL)
    return;
  placer_string_list_free(&run->command);
  free(run->image);
  placer_string_list_free(&run->env);
  placer_string_list_free(&run->volumes);
  placer_string_list_free(&run->podman_args);
  free(run->vm.work);
  free(run->vm.kernel);
  free(run->vm.initrd);
  free(run->vm.append);
  free(run);
}
