/* The run's page of `gpuregress plot`: OUT/dashboard/index.html (dashboard.c). Included by
 * plot.c only. */
#ifndef GR_DASHBOARD_H
#define GR_DASHBOARD_H

#include <stddef.h>

#include "template.h"
#include "view.h"

/* Write c->dash/index.html (and the same page as run-RUN.html, which the index of nights links
 * to) from the template beside the binary. 0 ok; -1 with why (the template is missing or
 * broken, the page cannot be written). */
int dashboard_write(struct plot_ctx *c, char *why, size_t len);

/* The open regressions of the run's verdict into v ("open", "has_open", counts:
 * dashboard_open.c). */
void dashboard_open(const struct plot_ctx *c, struct tpl_view *v);

/* The comparison with the baseline into v ("changes", or "no_base" without one:
 * dashboard_changes.c). */
void dashboard_changes(const struct plot_ctx *c, struct tpl_view *v);

#endif
