/* The command tables read three ways: getopt_long's table for parsing, the help text, the man
 * page's options (options.h). */
#include "options.h"

#include <getopt.h>
#include <string.h>

#include "cli.h"

#define CLI_MAX_OPTS 64

void cli_each_opt(const struct cli_command *cmd, void (*fn)(void *ctx, const struct cli_opt *o),
                  void *ctx)
{
  for (const struct cli_opt *o = cmd->opts; o && o->name; o++)
    fn(ctx, o);
  for (const struct cli_opt *o = cmd->shared; o && o->name; o++)
    fn(ctx, o);
}

struct getopt_build {
  struct option longopts[CLI_MAX_OPTS + 1];
  char optstring[2 * CLI_MAX_OPTS + 2];
  size_t n, len;
};

static void add_getopt(void *ctx, const struct cli_opt *o)
{
  struct getopt_build *b = ctx;
  if (b->n >= CLI_MAX_OPTS)
    return; /* tests/options.sh checks that no table comes near the limit */
  b->longopts[b->n++] = (struct option){o->name, o->value ? required_argument : no_argument, NULL,
                                        o->id};
  if (o->short_name) {
    b->optstring[b->len++] = (char)o->short_name;
    if (o->value)
      b->optstring[b->len++] = ':';
  }
}

int cli_next(const struct cli_command *cmd, int argc, char **argv)
{
  /* built once per command: a command parses its own line only */
  static const struct cli_command *built;
  static struct getopt_build b;
  if (built != cmd) {
    memset(&b, 0, sizeof b);
    b.optstring[b.len++] = ':'; /* missing values reported as ':', getopt silent (opterr 0) */
    cli_each_opt(cmd, add_getopt, &b);
    built = cmd;
    opterr = 0;
  }
  return cli_getopt(argc, argv, b.optstring, b.longopts);
}

/* ---- help ------------------------------------------------------------------------------------ */

#define HELP_COLUMN 26 /* where an option's description starts */
#define HELP_WIDTH 96  /* and where its lines end at the latest */

static void print_opt(void *ctx, const struct cli_opt *o)
{
  FILE *f = ctx;
  char left[128];
  int n = snprintf(left, sizeof left, "  %c%c%s--%s%s%s", o->short_name ? '-' : ' ',
                   o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
                   o->value ? " " : "", o->value ? o->value : "");
  fputs(left, f);
  if (n + 2 > HELP_COLUMN) { /* a long option and value: the description on the next line */
    fputc('\n', f);
    n = 0;
  }
  /* the description filled to HELP_WIDTH columns, its line breaks taken as spaces */
  int col = 0;
  for (const char *h = o->help; *h;) {
    while (*h == ' ' || *h == '\n')
      h++;
    size_t w = strcspn(h, " \n");
    if (!w)
      break;
    if (col && col + 1 + (int)w > HELP_WIDTH - HELP_COLUMN) {
      fputc('\n', f);
      col = 0;
    }
    if (!col)
      fprintf(f, "%*s", HELP_COLUMN - n, "");
    else
      fputc(' ', f);
    n = 0;
    fprintf(f, "%.*s", (int)w, h);
    col += (col ? 1 : 0) + (int)w;
    h += w;
  }
  fputc('\n', f);
}

void cli_print_help(FILE *f, const struct cli_command *cmd)
{
  const char *s = cmd->synopsis;
  for (int first = 1; *s || first; first = 0) {
    size_t len = strcspn(s, "\n");
    fprintf(f, "%s gpuregress %s %.*s\n", first ? "usage:" : "      ", cmd->name, (int)len, s);
    s += len;
    if (*s == '\n')
      s++;
  }
  if (cmd->about && *cmd->about)
    fprintf(f, "\n%s\n", cmd->about);
  fputs("\noptions:\n", f);
  cli_each_opt(cmd, print_opt, f);
  if (cmd->after && *cmd->after)
    fprintf(f, "\n%s\n", cmd->after);
}

int cli_help(const struct cli_command *cmd)
{
  cli_print_help(stdout, cmd);
  return 0;
}

/* ---- the man page ------------------------------------------------------------------------------ */

/* s as roff text: backslashes doubled, '-' as "\-", a leading '.' or '\'' escaped */
static void roff(FILE *f, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    if ((i == 0 || s[i - 1] == '\n') && (s[i] == '.' || s[i] == '\''))
      fputs("\\&", f);
    if (s[i] == '\\')
      fputs("\\e", f);
    else if (s[i] == '-')
      fputs("\\-", f);
    else
      fputc(s[i], f);
  }
}

static void man_opt(void *ctx, const struct cli_opt *o)
{
  FILE *f = ctx;
  fputs(".TP\n", f);
  if (o->short_name)
    fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
  fputs("\\fB\\-\\-", f);
  roff(f, o->name, strlen(o->name));
  fputs("\\fR", f);
  if (o->value) {
    fputs(" \\fI", f);
    roff(f, o->value, strlen(o->value));
    fputs("\\fR", f);
  }
  fputc('\n', f);
  /* the description's lines joined: roff fills them */
  roff(f, o->help, strlen(o->help));
  fputc('\n', f);
}

void cli_print_man(FILE *f, const struct cli_command *cmd)
{
  fprintf(f, ".SS %s\n", cmd->name);
  const char *s = cmd->synopsis;
  while (*s) {
    size_t len = strcspn(s, "\n");
    fprintf(f, ".B gpuregress %s\n", cmd->name);
    roff(f, s, len);
    fputs("\n.br\n", f);
    s += len;
    if (*s == '\n')
      s++;
  }
  cli_each_opt(cmd, man_opt, f);
}
