/* `gpuregress help` and `gpuregress completion bash|zsh|fish`: the command tables (options.h)
 * printed for a person, for the man page and for three shells. Every option a table holds is
 * offered by every shell (tests/options.sh drives each shell to check it). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "registry.h"

/* --status-file FILE: taken by main.c for every command */
static const struct cli_opt status_opt = {"status-file", 0, 0, "FILE", CLI_FILE, NULL,
                                          "key=value lines for scripts when the command ends"};

static const struct cli_command *find_command(const char *name)
{
  for (size_t i = 0; i < cli_n_commands; i++)
    if (!strcmp(cli_commands[i].cmd->name, name))
      return cli_commands[i].cmd;
  return NULL;
}

/* the first line of s, without the characters that a shell's quoting or zsh's spec syntax
 * would take for their own ([, ], :, ', \, `, $) */
static const char *first_line(const char *s, char *buf, size_t len)
{
  size_t j = 0;
  for (size_t i = 0; s[i] && s[i] != '\n' && j + 1 < len; i++)
    if (!strchr("[]:'\\`$\"", s[i]))
      buf[j++] = s[i];
  buf[j] = 0;
  return buf;
}

static void print_targets(FILE *f, const char *sep)
{
  for (size_t i = 0, shown = 0; i < registry_count; i++) {
    const struct gr_algorithm *a = registry[i];
    if (a->flags & GR_ALG_HIDDEN)
      continue;
    fprintf(f, "%s%s", shown++ ? sep : "", a->name);
    for (size_t j = 0; j < a->n_variants; j++)
      fprintf(f, "%s%s/%s", sep, a->name, a->variants[j].name);
  }
}

static void print_commands(FILE *f, const char *sep)
{
  for (size_t i = 0; i < cli_n_commands; i++)
    fprintf(f, "%s%s", i ? sep : "", cli_commands[i].cmd->name);
}

/* ---- bash ------------------------------------------------------------------------------------ */

static void bash_long(void *ctx, const struct cli_opt *o)
{
  fprintf(ctx, " --%s", o->name);
}

/* the case arm of one value kind: "--a | -a | --b) ACTION ;;" over the options of that kind */
struct bash_arm {
  FILE *f;
  enum cli_kind kind;
  const char *words; /* CLI_WORDS: only the options with these words */
  int n;
};

static void bash_arm_opt(void *ctx, const struct cli_opt *o)
{
  struct bash_arm *a = ctx;
  if (!o->value || o->kind != a->kind || (a->words && strcmp(a->words, o->words ? o->words : "")))
    return;
  fprintf(a->f, "%s--%s", a->n++ ? " | " : "    ", o->name);
  if (o->short_name)
    fprintf(a->f, " | -%c", o->short_name);
}

static void bash_words_arm(void *ctx, const struct cli_opt *o)
{
  struct bash_arm *a = ctx;
  if (!o->value || o->kind != CLI_WORDS)
    return;
  fprintf(a->f, "    --%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n", o->name,
          o->words);
}

static void bash_arms(FILE *f, const struct cli_command *c)
{
  static const struct {
    enum cli_kind kind;
    const char *action;
  } acts[] = {
      {CLI_FILE, "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;"},
      {CLI_DIR, "COMPREPLY=($(compgen -d -- \"$cur\")); return ;;"},
      {CLI_TARGET, "COMPREPLY=($(compgen -W \"$targets\" -- \"$cur\")); return ;;"},
      {CLI_VARIANT, "_gpuregress_variants; return ;;"},
      {CLI_COMMAND, "COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")); return ;;"},
      {CLI_NONE, "return ;; # a value: nothing to offer"},
  };
  fputs("    case $prev in\n", f);
  for (size_t k = 0; k < sizeof acts / sizeof *acts; k++) {
    struct bash_arm a = {f, acts[k].kind, NULL, 0};
    cli_each_opt(c, bash_arm_opt, &a);
    if (a.n)
      fprintf(f, ") %s\n", acts[k].action);
  }
  struct bash_arm w = {f, CLI_WORDS, NULL, 0};
  cli_each_opt(c, bash_words_arm, &w);
  fputs("    esac\n", f);
}

static const char *bash_operand(enum cli_kind k)
{
  switch (k) {
  case CLI_TARGET: return "COMPREPLY=($(compgen -W \"$targets\" -- \"$cur\"))";
  case CLI_FILE: return "COMPREPLY=($(compgen -f -- \"$cur\"))";
  case CLI_DIR: return "COMPREPLY=($(compgen -d -- \"$cur\"))";
  case CLI_COMMAND: return "COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))";
  default: return NULL;
  }
}

static void print_bash(FILE *f)
{
  fputs("# bash completion of gpuregress (generated from its option tables by\n"
        "# 'gpuregress completion bash')\n"
        "_gpuregress_variants() {\n"
        "  local alg=${COMP_WORDS[2]%% *} t\n"
        "  alg=${alg#\\'}; alg=${alg#\\\"}\n"
        "  for t in $targets; do [[ $t == \"$alg\"/* ]] && COMPREPLY+=($(compgen -W \"${t#*/}\" -- \"$cur\")); done\n"
        "}\n"
        "_gpuregress() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "  local commands='",
        f);
  print_commands(f, " ");
  fputs("'\n  local targets='", f);
  print_targets(f, " ");
  fputs("'\n  COMPREPLY=()\n"
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        "    COMPREPLY=($(compgen -W \"$commands --help --version\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  [ \"$prev\" = --status-file ] && { COMPREPLY=($(compgen -f -- \"$cur\")); return; }\n"
        "  local opts='' operands=''\n"
        "  case ${COMP_WORDS[1]} in\n",
        f);
  for (size_t i = 0; i < cli_n_commands; i++) {
    const struct cli_command *c = cli_commands[i].cmd;
    fprintf(f, "  %s)\n    opts='--status-file", c->name);
    cli_each_opt(c, bash_long, f);
    fputs("'\n", f);
    bash_arms(f, c);
    const char *op = bash_operand(c->operand);
    if (c->operand == CLI_WORDS)
      fprintf(f, "    operands='%s'\n", c->operand_words);
    else if (op)
      fprintf(f, "    operands='%s'\n", c->operand == CLI_TARGET   ? "$targets"
                                        : c->operand == CLI_COMMAND ? "$commands"
                                        : c->operand == CLI_DIR     ? "-d"
                                                                    : "-f");
    fputs("    ;;\n", f);
  }
  fputs("  esac\n"
        "  if [[ $cur == -* ]]; then\n"
        "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
        "  elif [ \"$operands\" = -f ]; then\n"
        "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "  elif [ \"$operands\" = -d ]; then\n"
        "    COMPREPLY=($(compgen -d -- \"$cur\"))\n"
        "  elif [ -n \"$operands\" ]; then\n"
        "    eval \"COMPREPLY=(\\$(compgen -W \\\"$operands\\\" -- \\\"\\$cur\\\"))\"\n"
        "  fi\n"
        "}\n",
        f);
  fprintf(f, "complete -o default -F _gpuregress gpuregress\n");
  if (strcmp(gr_runner_name(), "gpuregress"))
    fprintf(f, "complete -o default -F _gpuregress %s\n", gr_runner_name());
}

/* ---- zsh ------------------------------------------------------------------------------------- */

static const char *zsh_action(enum cli_kind k, const char *words, char *buf, size_t len)
{
  switch (k) {
  case CLI_FILE: return "_files";
  case CLI_DIR: return "_files -/";
  case CLI_TARGET: return "($targets)";
  case CLI_VARIANT: return "($variants)";
  case CLI_COMMAND: return "($commands)";
  case CLI_WORDS: gr_fmt(buf, len, "(%s)", words); return buf;
  default: return " ";
  }
}

static void zsh_opt(void *ctx, const struct cli_opt *o)
{
  FILE *f = ctx;
  char desc[256], act[512], val[128];
  first_line(o->help, desc, sizeof desc);
  const char *a = zsh_action(o->kind, o->words, act, sizeof act);
  char excl[80] = "";
  if (o->short_name) { /* -d and --db exclude each other */
    gr_fmt(excl, sizeof excl, "(-%c --%s)", o->short_name, o->name);
    if (o->value)
      fprintf(f, "    '%s-%c+[%s]:%s:'\"%s\" \\\n", excl, o->short_name, desc,
              first_line(o->value, val, sizeof val), a);
    else
      fprintf(f, "    '%s-%c[%s]' \\\n", excl, o->short_name, desc);
  }
  if (o->value)
    fprintf(f, "    '%s--%s=[%s]:%s:'\"%s\" \\\n", excl, o->name, desc,
            first_line(o->value, val, sizeof val), a);
  else
    fprintf(f, "    '%s--%s[%s]' \\\n", excl, o->name, desc);
}

static void print_zsh(FILE *f)
{
  fputs("#compdef gpuregress\n"
        "# zsh completion of gpuregress (generated from its option tables by\n"
        "# 'gpuregress completion zsh')\n"
        "_gpuregress() {\n"
        "  local -a commands targets variants\n"
        "  commands=(",
        f);
  print_commands(f, " ");
  fputs(")\n  targets=(", f);
  print_targets(f, " ");
  fputs(")\n"
        "  if (( CURRENT == 2 )); then\n"
        "    compadd -a commands\n"
        "    return\n"
        "  fi\n"
        "  local cmd=$words[2] alg=${words[3]%% *}\n"
        "  alg=${alg#[\\'\\\"]}\n"
        "  variants=(${(M)targets:#$alg/*})\n"
        "  variants=(${variants#*/})\n"
        "  shift words\n"
        "  (( CURRENT-- ))\n"
        "  case $cmd in\n",
        f);
  for (size_t i = 0; i < cli_n_commands; i++) {
    const struct cli_command *c = cli_commands[i].cmd;
    char act[512];
    fprintf(f, "  %s)\n    _arguments -s \\\n", c->name);
    cli_each_opt(c, zsh_opt, f);
    zsh_opt(f, &status_opt);
    if (c->operand != CLI_NONE)
      fprintf(f, "    '*:operand:'\"%s\"\n", zsh_action(c->operand, c->operand_words, act, sizeof act));
    else
      fputs("    '*:argument: '\n", f);
    fputs("    ;;\n", f);
  }
  fputs("  esac\n"
        "}\n"
        "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
        "  _gpuregress \"$@\"\n"
        "else\n"
        "  compdef _gpuregress gpuregress\n"
        "fi\n",
        f);
}

/* ---- fish ------------------------------------------------------------------------------------ */

struct fish_ctx {
  FILE *f;
  const char *cmd;
};

static void fish_opt(void *ctx, const struct cli_opt *o)
{
  struct fish_ctx *x = ctx;
  char desc[256];
  fprintf(x->f, "complete -c gpuregress -n '__fish_seen_subcommand_from %s' -l %s", x->cmd,
          o->name);
  if (o->short_name)
    fprintf(x->f, " -s %c", o->short_name);
  if (o->value) {
    switch (o->kind) {
    case CLI_FILE: fputs(" -r -F", x->f); break;
    case CLI_DIR: fputs(" -x -a '(__fish_complete_directories)'", x->f); break;
    case CLI_WORDS: fprintf(x->f, " -x -a '%s'", o->words); break;
    case CLI_TARGET: fputs(" -x -a '$__gpuregress_targets'", x->f); break;
    case CLI_COMMAND: fputs(" -x -a '$__gpuregress_commands'", x->f); break;
    default: fputs(" -x", x->f); break;
    }
  }
  fprintf(x->f, " -d '%s'\n", first_line(o->help, desc, sizeof desc));
}

static void print_fish(FILE *f)
{
  fputs("# fish completion of gpuregress (generated from its option tables by\n"
        "# 'gpuregress completion fish')\n"
        "set -g __gpuregress_commands ",
        f);
  print_commands(f, " ");
  fputs("\nset -g __gpuregress_targets ", f);
  print_targets(f, " ");
  fputs("\ncomplete -c gpuregress -f\n", f);
  for (size_t i = 0; i < cli_n_commands; i++) {
    char desc[256];
    fprintf(f, "complete -c gpuregress -n __fish_use_subcommand -a %s -d '%s'\n",
            cli_commands[i].cmd->name, first_line(cli_commands[i].summary, desc, sizeof desc));
  }
  for (size_t i = 0; i < cli_n_commands; i++) {
    const struct cli_command *c = cli_commands[i].cmd;
    struct fish_ctx x = {f, c->name};
    cli_each_opt(c, fish_opt, &x);
    fish_opt(&x, &status_opt);
    const char *cond = "complete -c gpuregress -n '__fish_seen_subcommand_from";
    switch (c->operand) {
    case CLI_TARGET: fprintf(f, "%s %s' -a '$__gpuregress_targets'\n", cond, c->name); break;
    case CLI_COMMAND: fprintf(f, "%s %s' -a '$__gpuregress_commands'\n", cond, c->name); break;
    case CLI_WORDS: fprintf(f, "%s %s' -a '%s'\n", cond, c->name, c->operand_words); break;
    case CLI_FILE: fprintf(f, "%s %s' -F\n", cond, c->name); break;
    default: break;
    }
  }
}

/* ---- the commands ------------------------------------------------------------------------------ */

static const struct cli_opt completion_options[] = {CLI_HELP_OPT, {0}};
const struct cli_command cli_completion_cmd = {
    .name = "completion",
    .synopsis = "bash|zsh|fish",
    .about = "Print the completion script of a shell, made from the commands' option tables:\n"
             "  source <(gpuregress completion bash)\n"
             "  gpuregress completion zsh > ~/.zfunc/_gpuregress   (a folder of $fpath)\n"
             "  gpuregress completion fish > ~/.config/fish/completions/gpuregress.fish\n"
             "An installed tree has them where the shells look (share/bash-completion/completions,\n"
             "share/zsh/site-functions, share/fish/vendor_completions.d).",
    .opts = completion_options,
    .operand = CLI_WORDS,
    .operand_words = "bash zsh fish",
};

int cmd_completion(int argc, char **argv)
{
  int c;
  while ((c = cli_next(&cli_completion_cmd, argc, argv)) != -1) {
    if (c == CLI_HELP)
      return cli_help(&cli_completion_cmd);
    return cli_opt_error("completion", c, argv);
  }
  if (optind != argc - 1)
    return cli_usage_error("completion", "name one shell: bash, zsh or fish");
  const char *sh = argv[optind];
  if (!strcmp(sh, "bash"))
    print_bash(stdout);
  else if (!strcmp(sh, "zsh"))
    print_zsh(stdout);
  else if (!strcmp(sh, "fish"))
    print_fish(stdout);
  else
    return cli_usage_error("completion", "unknown shell '%s': bash, zsh or fish", sh);
  return 0;
}

enum { OPT_MAN = 256, OPT_OPTIONS };
static const struct cli_opt help_options[] = {
    {"man", OPT_MAN, 0, NULL, CLI_NONE, NULL,
     "the options of every command as the man page's roff (the build puts them into it)"},
    {"options", OPT_OPTIONS, 0, NULL, CLI_NONE, NULL,
     "CMD's long options, one a line, for scripts and tests"},
    CLI_HELP_OPT,
    {0},
};
const struct cli_command cli_help_cmd = {
    .name = "help",
    .synopsis = "[CMD]\n--man\n--options CMD",
    .about = "A command's usage and options (the same as 'gpuregress CMD --help'); without CMD,\n"
             "the list of commands.",
    .opts = help_options,
    .operand = CLI_COMMAND,
};

static void print_long(void *ctx, const struct cli_opt *o)
{
  fprintf(ctx, "--%s\n", o->name);
}

int cmd_help(int argc, char **argv)
{
  int c, man = 0, list = 0;
  while ((c = cli_next(&cli_help_cmd, argc, argv)) != -1) {
    switch (c) {
    case CLI_HELP: return cli_help(&cli_help_cmd);
    case OPT_MAN: man = 1; break;
    case OPT_OPTIONS: list = 1; break;
    default: return cli_opt_error("help", c, argv);
    }
  }
  if (man) {
    for (size_t i = 0; i < cli_n_commands; i++)
      cli_print_man(stdout, cli_commands[i].cmd);
    return 0;
  }
  if (optind == argc) {
    if (list)
      return cli_usage_error("help", "--options needs a command");
    for (size_t i = 0; i < cli_n_commands; i++)
      printf("  %-10s %s\n", cli_commands[i].cmd->name, cli_commands[i].summary);
    return 0;
  }
  if (optind != argc - 1)
    return cli_usage_error("help", "name one command");
  char shown[64];
  const struct cli_command *cmd = find_command(argv[optind]);
  if (!cmd)
    return cli_usage_error("help", "unknown command '%s'",
                           gr_printable(shown, sizeof shown, argv[optind]));
  if (list) {
    cli_each_opt(cmd, print_long, stdout);
    print_long(stdout, &status_opt);
    return 0;
  }
  return cli_help(cmd);
}
