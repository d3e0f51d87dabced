/* Reading compute-sanitizer's log (`gpuregress sanitize`): each finding with its kernel, its
 * source file:line and the case that showed it, and matching findings against an algorithm's
 * list of examined ones (alg.h, sanitizer_explained).
 *
 * A finding is a report line of the tool ("========= Invalid __shared__ read of size 16 bytes",
 * "========= Error: Race reported between Write access at ...", "========= Program hit
 * cudaErrorInvalidValue ...") and the indented lines under it; its place is the first "at" line
 * ("at KERNEL(ARGS)+0xOFF in FILE:LINE", or the older "at 0xOFF in FILE:LINE:KERNEL(ARGS)"; FILE
 * and LINE only where the code was built with -lineinfo). The case is the last "case: TEXT" line
 * that `gpuregress repro --in-process` printed (and flushed) before the report: the tool reports
 * a kernel's errors when it ends, before the next case starts. Findings that agree in what,
 * kernel and place are counted as one. */
#ifndef GR_SANITIZER_LOG_H
#define GR_SANITIZER_LOG_H

#include <stdio.h>

#include "case.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAN_LOG_MAX 16 /* distinct findings kept; the rest are counted in total */

struct san_finding {
  char what[192];    /* the report line: "Invalid __shared__ read of size 16 bytes" */
  char kernel[160];  /* "ccc_partition_kernel" (no arguments, no offset); "" none (an API error) */
  char where[192];   /* "algorithms/ccc/ccc_partition.cu:57" (from algorithms/ or harness/ on),
                        "" without line information */
  char other[192];   /* racecheck: the other access's place ("" none) */
  char case_text[GR_CASE_TEXT_LEN]; /* the case that showed it first; "" unknown */
  long count;        /* reports that agree with this one */
};

struct san_log {
  struct san_finding f[SAN_LOG_MAX];
  int n;           /* distinct findings in f */
  long total;      /* reports, all of them */
  long summary;    /* the tool's "ERROR SUMMARY: N errors" (racecheck: its N errors), -1 none */
};

/* Parses the log in in; returns 0 (a log without findings is a valid, empty result). */
int san_log_parse(FILE *in, struct san_log *out);

/* The explanation in list (NULL-terminated "VARIANT TOOL KERNEL[@PLACE]: why"; VARIANT may be
 * '*', any variant; KERNEL a substring of the finding's kernel; PLACE, when given, the end of
 * its file:line, e.g. "avos_common.cuh:702" or "avos_common.cuh") that covers finding f of tool
 * on variant, or NULL. Malformed entries match nothing (san_explained_check names them). */
const char *san_explained(const char *const *list, const char *variant, const char *tool,
                          const struct san_finding *f);

/* 0 when every entry of list is well formed: a variant of names (or '*'), a known tool, a
 * kernel, a reason of at least a few words; else -1 with why. */
int san_explained_check(const char *const *list, const char *const *variants, int n_variants,
                        char *why, size_t len);

/* "WHAT in KERNEL at WHERE (N reports) | case 'TEXT'": what the lane stores and prints. */
void san_finding_format(const struct san_finding *f, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
