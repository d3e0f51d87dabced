/* Helpers shared by the subcommands of the gpuregress binary (harness/main.c and the cmd_*
 * files): usage errors and strict number parsing. */
#ifndef GR_CLI_H
#define GR_CLI_H

#include <stdint.h>

/* Print "gpuregress CMD: <message>" and a pointer to --help on stderr; returns GR_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whole-string parse; -1 on junk or out of [lo, hi]. (Integers: gr_parse_u64 in gr.h.) */
int cli_parse_double(const char *s, double lo, double hi, double *out);

#endif
