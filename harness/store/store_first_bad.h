/* The first bad commit of an open regression (schema 11, issue 37): what `gpuregress bisect --db`
 * named, kept with the regression (its benchmark and the run it opened on) and shown with it
 * (banner, JUnit, JSON, index of nights) until it closes. */
#ifndef GR_STORE_FIRST_BAD_H
#define GR_STORE_FIRST_BAD_H

#include <stddef.h>
#include <stdint.h>

struct store;

struct store_first_bad {
  char sha[65];         /* 40 (SHA-1) or 64 (SHA-256) hex digits */
  char subject[256];    /* printable (a database from elsewhere: gr_printable) */
  char author_date[40];
  char found_at[32];
};

/* Record first bad commit sha (40 or 64 hex digits; subject, author date) for the regression of the
 * benchmark (algorithm, variant, params, seed, l2) open on the latest recorded night. 0 ok; 1 no
 * such regression is open (why says so); -1 with why (a bad sha, a database error). */
int store_set_first_bad(struct store *st, const char *algorithm, const char *variant,
                        const char *params, uint64_t seed, const char *l2, const char *sha,
                        const char *subject, const char *author_date, char *why, size_t len);
/* The first bad commit recorded for the regression of that benchmark opened on opened_run: 1
 * found (*out; a row whose sha is not a full sha is ignored), 0 none (also a database
 * older than schema 11), -1 a database error. */
int store_get_first_bad(struct store *st, const char *algorithm, const char *variant,
                        const char *params, uint64_t seed, const char *l2, int64_t opened_run,
                        struct store_first_bad *out);

#endif
