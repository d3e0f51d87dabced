/* The runner's worker processes (wproc.c), private to run/: runner.c drives them. */
#ifndef GR_WPROC_H
#define GR_WPROC_H

#include <stddef.h>

#include "alg.h"
#include "case.h"
#include "child.h"
#include "worker.h"

struct worker_arg {
  const struct gr_algorithm *a;
  const struct gr_variant *v;
};

struct wproc {
  struct child c;
  struct worker_arg arg;
};

#define WPROC_INTERRUPTED (-2) /* the run was interrupted (SIGINT, SIGTERM, SIGHUP) */

/* An idle worker of variant v of a; reads give up when *interrupted becomes nonzero. */
void wproc_init(struct wproc *w, const struct gr_algorithm *a, const struct gr_variant *v,
                volatile int *interrupted);

/* Start a worker and read its greeting. 1 ready; 0 the variant is skipped here, for want of a
 * GPU (why); -1 the worker could not start (why); WPROC_INTERRUPTED. */
int wproc_open(struct wproc *w, double timeout, char *why, size_t len);

/* Let a worker end by itself (EOF on its input), then make sure it did. */
void wproc_close(struct wproc *w);

/* Run one case in the worker, starting a worker first if none is alive. 0: res holds its
 * verdict; WPROC_INTERRUPTED: the run was interrupted while it ran, res (skip, "interrupted")
 * says nothing about the variant and is not recorded. */
int wproc_case(struct wproc *w, const struct gr_case *c, double watchdog,
                struct case_result *res);

#endif
