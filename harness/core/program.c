/* SPDX-License-Identifier: Apache-2.0 */
/* gr_run_program (<gpuregress/util.h>): a helper program of an algorithm (kmedoids' mpirun
 * launch) through the harness's one fork site, child.c: its own process group, killed whole on
 * the deadline and when the caller dies. */
#include <errno.h>

#include <gpuregress/util.h>

#include "child.h"

int gr_run_program(const char *const *argv, const char *const *env, int log_fd, double timeout_s)
{
  if (!argv || !argv[0] || log_fd < 0) {
    errno = EINVAL;
    return -1;
  }
  struct child c;
  child_init(&c);
  c.what = argv[0];
  c.argv = argv;
  c.env = env;
  c.log_fd = log_fd;
  if (child_start(&c))
    return -1;
  return child_finish(&c, !child_wait(&c, timeout_s), NULL, 0);
}
