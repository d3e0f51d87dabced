/* Shared vocabulary of the harness: exit codes, verdicts, small utilities. */
#ifndef GR_GR_H
#define GR_GR_H

#include <stddef.h>
#include <stdint.h>

#include <gpuregress/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes: GR_EXIT_* of <gpuregress/util.h>. */

/* What the layers below the command line report besides a verdict; only the commands turn it
 * into an exit code (gr_status_exit), never by reading message text. */
enum gr_status {
  GR_STATUS_OK = 0,
  GR_STATUS_USAGE,  /* the user's input is unusable: a flag, a case text (GR_EXIT_USAGE) */
  GR_STATUS_NO_GPU, /* no usable CUDA device where one is required (GR_EXIT_ENV) */
  GR_STATUS_ENV,    /* another environment failure: a process that would not start (GR_EXIT_ENV) */
};
int gr_status_exit(enum gr_status s);

/* Exit code of a worker that hit a CUDA error (GR_CUDA_CHECK): the parent reports a crash. */
#define GR_WORKER_EXIT_CUDA 70

enum verdict {
  VERDICT_PASS,
  VERDICT_FAIL,
  VERDICT_CRASH,
  VERDICT_TIMEOUT,
  VERDICT_SKIP,
  VERDICT_CAUGHT,  /* historical variant: the bug was found */
  VERDICT_ESCAPED, /* historical variant: the bug survived the whole budget */
  VERDICT_ERROR,   /* the case itself is unusable here (needs more device memory than free) */
  VERDICT_COUNT_
};

const char *verdict_name(enum verdict v);
/* -1 if unknown */
int verdict_parse(const char *s);
/* fail, crash and timeout: the variant computed something wrong or did not finish */
int verdict_is_failure(enum verdict v);

#define now_seconds gr_now_seconds /* <gpuregress/util.h> */

/* v with an SI prefix and 3 significant digits ("1.23T", "640k"); returns buf */
const char *gr_si(double v, char *buf, size_t len);

/* 1 if what goes to fd may be coloured: a terminal, and NO_COLOR unset or empty (no-color.org);
 * every coloured output asks this. */
int gr_color(int fd);

/* gr_parse_i64, gr_parse_u64 (whole-string decimal parses: -1 on junk, overflow, a leading
 * blank or '+', or (u64) any sign), gr_fmt: <gpuregress/util.h>. */

/* Text read from a database or a file of another machine is data (doc/untrusted.md):
 * gr_name_ok: 1 when s can be the name of an algorithm, a variant or a kind as the registry has
 *   them: 1..GR_NAME_MAX characters of [A-Za-z0-9_.+-], the first a letter or a digit (no '/',
 *   no '..', no blank, no quote, no control character).
 * gr_is_printable: 1 when s is UTF-8 text without control characters (C0, DEL, C1);
 *   gr_printable writes s to dst with every other byte as \xNN (what a terminal may be shown),
 *   never cutting a character; returns dst.
 * gr_slug: a form of s safe in a file name: s itself when gr_name_ok, else '_' and 16 hex digits
 *   of its hash (never a valid name, so never the slug of another); returns dst.
 * gr_parse_date: 0 when s is a real UTC calendar date or time as the store writes them:
 *   YYYY-MM-DD, optionally followed by THH:MM or THH:MM:SS and a Z; -1 otherwise.
 * gr_date_instant: the same judgement, and the instant s names written into canon (when not
 *   NULL) as the store writes a start, YYYY-MM-DDTHH:MM:SSZ (a date alone is its midnight), so
 *   that comparing texts compares instants: "2026-11-12T01:00Z" and "2026-11-12T01:00:00Z" are
 *   one instant (as text ':' < 'Z' would put the first after the second). */
#define GR_NAME_MAX 64
int gr_name_ok(const char *s);
int gr_is_printable(const char *s);
char *gr_printable(char *dst, size_t len, const char *s);
char *gr_slug(char *dst, size_t len, const char *s);
int gr_parse_date(const char *s);
int gr_date_instant(const char *s, char *canon, size_t len);
/* s as one word of a POSIX shell: '...' with every ' written '\'' (git's sq_quote); "''" when
 * it does not fit. Returns dst. */
char *gr_sh_quote(char *dst, size_t len, const char *s);
/* The reproducer of a case, "RUNNER repro 'CASE' --variant VARIANT[ --repeat N]", built from
 * its parts alone, never from a stored command (doc/untrusted.md): the case text shell-quoted
 * whatever it holds, a variant that is not a name (gr_name_ok) quoted too, a runner that is not
 * one (NULL, "", or text from elsewhere) "gpuregress"; repeat <= 1 leaves --repeat out. Returns
 * dst ("" when it does not fit). */
char *gr_repro_command(char *dst, size_t len, const char *runner, const char *case_text,
                       const char *variant, long repeat);
/* The reproducer shown for an outcome that stored one (stored not NULL): gr_repro_command of its
 * shrunk (else first) case and variant; of the stored text only a --repeat count is taken, as a
 * number. Returns dst, or NULL when there is none. */
const char *gr_repro_shown(char *dst, size_t len, const char *runner, const char *stored,
                           const char *variant, const char *first, const char *shrunk);
/* The name the reproducers of this process call its runner by: "gpuregress" until the command
 * line sets it (cli: the name it was invoked by on PATH, else the runner's registered name). */
const char *gr_runner_name(void);
void gr_set_runner_name(const char *name);


#ifdef __cplusplus
}
#endif

#endif
