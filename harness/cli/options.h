/* One table per command (issue 39): each command describes its options once, as a table of
 * struct cli_opt, and parsing (getopt_long's table and optstring), `--help`, `gpuregress help
 * CMD`, the man page's options (gpuregress help --man) and the shell completions (bash, zsh,
 * fish: harness/cli/completion.c) all come from it. */
#ifndef GR_OPTIONS_H
#define GR_OPTIONS_H

#include <stdio.h>

/* What an option's value (or a command's operand) is, for completion. */
enum cli_kind {
  CLI_NONE,    /* a flag, or a value nothing can be offered for (a number, a text) */
  CLI_FILE,    /* a file name */
  CLI_DIR,     /* a folder */
  CLI_WORDS,   /* one of the words of `words` */
  CLI_TARGET,  /* ALG or ALG/VARIANT patterns of the registry */
  CLI_VARIANT, /* a variant of the algorithm named by the case on the line */
  CLI_COMMAND, /* a command of gpuregress */
};

struct cli_opt {
  const char *name;   /* the long name without "--"; NULL ends a table */
  int id;             /* what cli_next returns for it: its short letter, or a number >= 256 */
  int short_name;     /* its one-letter form, 0 when it has none */
  const char *value;  /* the value's name in the help ("FILE", "text|json|markdown"); NULL: a flag */
  enum cli_kind kind; /* what the value is (completion) */
  const char *words;  /* CLI_WORDS: the values, space-separated */
  const char *help;   /* what it does: lines separated by '\n', the first one short */
};

struct cli_command {
  const char *name;
  const char *synopsis; /* after "gpuregress NAME ": one line per form, '\n' between */
  const char *about;    /* what the command does (paragraphs separated by "\n\n") */
  const struct cli_opt *opts;   /* the command's own options */
  const struct cli_opt *shared; /* options it shares with other commands (run, fuzz), or NULL */
  const char *after;            /* printed after the options (exit codes, notes), or NULL */
  enum cli_kind operand;        /* what its operands are (completion) */
  const char *operand_words;    /* CLI_WORDS operands */
};

/* -d, --db FILE as most commands take it (STORE_DEFAULT_PATH: store.h) */
#define CLI_DB_OPT                                                                                 \
  {"db", 'd', 'd', "FILE", CLI_FILE, NULL, "SQLite database (default " STORE_DEFAULT_PATH ")"}

/* The help option every command has (-h, --help), and the value cli_next returns for it. */
#define CLI_HELP 'h'
#define CLI_HELP_OPT {"help", CLI_HELP, 'h', NULL, CLI_NONE, NULL, "this text"}

/* getopt_long over the command's table (cli_getopt's rules: a value taken from the next word
 * never starts with "--"); returns the option's id, ':' or '?' (cli_opt_error), -1 at the end. */
int cli_next(const struct cli_command *cmd, int argc, char **argv);
/* The command's help (usage, what it does, every option of its table) on f. */
void cli_print_help(FILE *f, const struct cli_command *cmd);
/* cli_print_help on stdout; returns 0 (for "case CLI_HELP: return cli_help(&cmd);"). */
int cli_help(const struct cli_command *cmd);
/* The man page's section of one command (roff, .SS COMMAND then .TP per option). */
void cli_print_man(FILE *f, const struct cli_command *cmd);
/* Calls fn for each option of the command (its own, then its shared ones). */
void cli_each_opt(const struct cli_command *cmd, void (*fn)(void *ctx, const struct cli_opt *o),
                  void *ctx);

/* Every command's table, in the order of `gpuregress --help` (harness/cli/main.c). */
struct cli_entry {
  const struct cli_command *cmd;
  int (*fn)(int argc, char **argv);
  const char *summary;
};
extern const struct cli_entry cli_commands[];
extern const size_t cli_n_commands;

/* The tables (each in its command's file). */
extern const struct cli_command cli_list_cmd, cli_run_cmd, cli_fuzz_cmd, cli_repro_cmd,
    cli_bench_cmd, cli_compare_cmd, cli_plot_cmd, cli_export_cmd, cli_history_cmd,
    cli_bisect_cmd, cli_ack_cmd, cli_import_cmd, cli_prune_cmd, cli_sanitize_cmd,
    cli_help_cmd, cli_completion_cmd;

/* gpuregress completion bash|zsh|fish (harness/cli/completion.c) and gpuregress help. */
int cmd_completion(int argc, char **argv);
int cmd_help(int argc, char **argv);

#endif
