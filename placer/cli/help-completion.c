/* The bash completion script (`placer help --bash-completion`): the commands,
 * each command's options and what completes their values and operands, from
 * the same tables as --help and the man pages.  CMake writes it at build
 * time; the package installs it as share/bash-completion/completions/placer. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/help-text.h"

/* The kind as the script's _placer_values knows it; VALUE_NAME gives the
 * words of PLACER_CLI_WORDS ("auto|cgroupfs|systemd"). */
static void print_kind(FILE *out, enum placer_cli_complete kind, const char *value_name) {
  switch (kind) {
  case PLACER_CLI_TEXT: fputs("text", out); break;
  case PLACER_CLI_XML: fputs("xml", out); break;
  case PLACER_CLI_YAML: fputs("yaml", out); break;
  case PLACER_CLI_PROFILE: fputs("profile", out); break;
  case PLACER_CLI_JSON: fputs("json", out); break;
  case PLACER_CLI_DIR: fputs("dir", out); break;
  case PLACER_CLI_WORDS: fprintf(out, "words:%s", value_name ? value_name : ""); break;
  case PLACER_CLI_COMMAND: fputs("command", out); break;
  }
}

/* The engine; _placer_options and _placer_operand above it hold the data. */
static const char engine[] =
    "# _placer_values KIND CUR: COMPREPLY for a value of that kind.\n"
    "_placer_values() {\n"
    "  local kind=$1 cur=$2 d f n bin\n"
    "  case $kind in\n"
    "  xml | json)\n"
    "    compopt -o filenames 2>/dev/null\n"
    "    mapfile -t COMPREPLY < <(compgen -d -- \"$cur\"; compgen -f -X \"!*.$kind\" -- \"$cur\") ;;\n"
    "  yaml)\n"
    "    compopt -o filenames 2>/dev/null\n"
    "    mapfile -t COMPREPLY < <(compgen -d -- \"$cur\"; compgen -f -X '!*.yaml' -- \"$cur\"\n"
    "      compgen -f -X '!*.yml' -- \"$cur\") ;;\n"
    "  profile)\n"
    "    # files, and the shipped profiles by name, found as placer finds them:\n"
    "    # next to the executable (build tree) or in PREFIX/share/placer\n"
    "    _placer_values yaml \"$cur\"\n"
    "    bin=$(type -P \"${COMP_WORDS[0]}\") || return 0\n"
    "    for d in \"${bin%/*}/../profiles\" \"${bin%/*}/../share/placer/profiles\" \"${bin%/*}/../../profiles\"; do\n"
    "      [[ -d $d ]] || continue\n"
    "      for f in \"$d\"/*.yaml; do\n"
    "        n=${f##*/}\n"
    "        n=${n%.yaml}\n"
    "        [[ -f $f && $n == \"$cur\"* ]] && COMPREPLY+=(\"$n\")\n"
    "      done\n"
    "      break\n"
    "    done ;;\n"
    "  dir)\n"
    "    compopt -o filenames 2>/dev/null\n"
    "    mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;\n"
    "  words:*)\n"
    "    kind=${kind#words:}\n"
    "    mapfile -t COMPREPLY < <(compgen -W \"${kind//|/ }\" -- \"$cur\") ;;\n"
    "  command)\n"
    "    mapfile -t COMPREPLY < <(compgen -W \"$_placer_commands\" -- \"$cur\") ;;\n"
    "  esac\n"
    "}\n"
    "\n"
    "_placer() {\n"
    "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd=${COMP_WORDS[1]} REPLY w i\n"
    "  local names=()\n"
    "  COMPREPLY=()\n"
    "  if ((COMP_CWORD == 1)); then\n"
    "    mapfile -t COMPREPLY < <(compgen -W \"$_placer_commands --help --version\" -- \"$cur\")\n"
    "    return 0\n"
    "  fi\n"
    "  # placer exec PROFILE INSTANCE -- COMMAND...: after \"--\", a command line of its own\n"
    "  for ((i = 2; i < COMP_CWORD; i++)); do\n"
    "    if [[ ${COMP_WORDS[i]} == -- ]]; then\n"
    "      if ((i == COMP_CWORD - 1)); then\n"
    "        mapfile -t COMPREPLY < <(compgen -c -- \"$cur\" | sort -u)\n"
    "      else\n"
    "        compopt -o default 2>/dev/null\n"
    "      fi\n"
    "      return 0\n"
    "    fi\n"
    "  done\n"
    "  # \"--NAME=VALUE\": bash splits it at the \"=\" (COMP_WORDBREAKS) into --NAME, = and VALUE\n"
    "  if [[ $cur == = ]]; then\n"
    "    cur=\n"
    "  elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then\n"
    "    prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
    "  fi\n"
    "  _placer_options \"$cmd\"\n"
    "  # the value of an option given as \"--NAME VALUE\" or \"--NAME=VALUE\"\n"
    "  if [[ $prev == --?* ]]; then\n"
    "    for w in $REPLY; do\n"
    "      if [[ $w == \"$prev=\"* ]]; then\n"
    "        _placer_values \"${w#*=}\" \"$cur\"\n"
    "        return 0\n"
    "      fi\n"
    "    done\n"
    "  fi\n"
    "  if [[ $cur == -* ]]; then\n"
    "    for w in $REPLY; do names+=(\"${w%%=*}\"); done\n"
    "    mapfile -t COMPREPLY < <(compgen -W \"${names[*]}\" -- \"$cur\")\n"
    "    return 0\n"
    "  fi\n"
    "  _placer_operand \"$cmd\"\n"
    "  _placer_values \"$REPLY\" \"$cur\"\n"
    "}\n"
    "complete -F _placer placer\n";

int placer_cli_print_bash_completion(FILE *out) {
  fprintf(out,
          "# bash completion for placer(1) %s, made by 'placer help --bash-completion' from the tables\n"
          "# that make 'placer COMMAND --help' (placer/cli/cmd-*.c): edit those, not this file.\n"
          "# Completes the commands, each command's options, and the values and operands that are\n"
          "# files (profiles and studies *.yaml, topologies *.xml), directories or fixed words.\n\n",
          PLACER_VERSION);
  fputs("_placer_commands='", out);
  for (size_t i = 0; i < placer_cli_n_commands; i++)
    fprintf(out, "%s%s", i ? " " : "", placer_cli_commands[i]->name);
  fputs("'\n\n# _placer_options COMMAND: REPLY is its options, --NAME=KIND for one that takes a value.\n"
        "_placer_options() {\n  case $1 in\n",
        out);
  for (size_t i = 0; i < placer_cli_n_commands; i++) {
    const struct placer_cli_command *c = placer_cli_commands[i];
    fprintf(out, "  %s) REPLY='", c->name);
    for (const struct placer_cli_option *o = c->options; o && o->name; o++) {
      fprintf(out, "--%s", o->name);
      if (o->arg) {
        fputc('=', out);
        print_kind(out, o->complete, o->arg);
      }
      fputc(' ', out);
    }
    fprintf(out, "--%s' ;;\n", placer_cli_help_option.name);
  }
  fputs("  *) REPLY='' ;;\n  esac\n}\n\n# _placer_operand COMMAND: REPLY is what completes its operands.\n"
        "_placer_operand() {\n  case $1 in\n",
        out);
  for (size_t i = 0; i < placer_cli_n_commands; i++) {
    fprintf(out, "  %s) REPLY='", placer_cli_commands[i]->name);
    print_kind(out, placer_cli_commands[i]->operands, NULL);
    fputs("' ;;\n", out);
  }
  fputs("  *) REPLY='text' ;;\n  esac\n}\n\n", out);
  fputs(engine, out);
  return ferror(out) ? -1 : 0;
}
