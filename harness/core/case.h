/* Cases: parse and format the one-line text form, validate, generate from a seed stream, and
 * propose simpler candidates for shrinking. The text form round-trips: case_format(case_parse(s))
 * gives back a canonical s. */
#ifndef GR_CASE_H
#define GR_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GR_CASE_TEXT_LEN, GR_CASE_PATH_LEN: alg.h */

/* Parse "ALG name=value ... seed=N". Every parameter of the algorithm must be given once, seed
 * too, except those with a default (alg->defaults), which case_format leaves out at it,
 * GR_PARAM_FILE ones (optional) and those the given files determine (see alg->data_params). A file
 * is read (hashed, loaded by the algorithm) here: missing or malformed, the case is refused
 * naming the file and the problem. 0 ok; -1 with why naming the offending token ("unknown
 * parameter 'q' in ..."); -2 a "data:" file is missing (dataset not fetched). */
#define case_parse gr_case_parse /* alg.h: the public name */
/* Canonical text form; returns buf. */
#define case_format gr_case_format
/* The parameters of c as text: case_format without the algorithm name and the seed ("n=891
 * k_a=50"; "" when it has none). */
void case_params_text(const struct gr_case *c, char *params, size_t len);
/* Range and cross-parameter checks (alg->validate). 0 ok, -1 with why. */
int case_validate(const struct gr_case *c, char *why, size_t len);

/* Parse value text for parameter p (a number, or the name of a choice). 0 ok, -1 with why. */
int case_param_value(const struct gr_param_spec *p, const char *val, int64_t *out, char *why,
                     size_t len);

/* Restrictions on generated cases from `fuzz` ranges such as "n=1..1000" or "dist=skewed". */
struct case_limits {
  size_t n;
  size_t index[GR_MAX_PARAMS];
  int64_t lo[GR_MAX_PARAMS], hi[GR_MAX_PARAMS];
};
/* Parse one "NAME=LO..HI" or "NAME=VALUE" of a parameter of a and add it to lim (enum values
 * are choice indices of a: a lim belongs to one algorithm). 0 ok, -1 with why (a parameter a
 * lacks, a value out of its range, a parameter given twice). */
int case_limits_add(const struct gr_algorithm *a, struct case_limits *lim, const char *spec,
                    char *why, size_t len);

/* Case number `index` of the stream of `seed`: params boundary-biased by alg->generate, the data
 * seed derived from (seed, index), limits applied, fixed up and valid. Deterministic. 0 ok; -1
 * when no valid case within lim was found (c then holds the lower edges, not valid). */
int case_generate(const struct gr_algorithm *a, uint64_t seed, uint64_t index,
                  const struct case_limits *lim, struct gr_case *c);

/* Simpler candidates of c for shrinking, most aggressive first: per parameter the minimum, half,
 * value - 1 (integers) and earlier choices (enums); each fixed up, valid and different from c.
 * Returns how many were written (at most max). */
size_t case_shrink_candidates(const struct gr_case *c, struct gr_case *out, size_t max);

/* gr_case_data_dir, gr_case_file, gr_case_has_files: alg.h (the public API). */

/* Value of a parameter by name (enum: choice index); -1 if the algorithm has no such param. */
int64_t case_get(const struct gr_case *c, const char *name);
/* Set a parameter by name; no-op if absent. */
void case_set(struct gr_case *c, const char *name, int64_t value);

#ifdef __cplusplus
}
#endif

#endif
