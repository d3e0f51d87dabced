/* Trends: the history of every benchmark, drawn and paged (trends.c). Included by plot.c and
 * dashboard.c; includes view.h and template.h only. */
#ifndef GR_TRENDS_H
#define GR_TRENDS_H

#include <stddef.h>

#include "template.h"
#include "view.h"

/* Read the history up to c->run into c->trends (NULL when it cannot be read: no trends). */
void trends_load(struct plot_ctx *c);
void trends_free(struct trends *t);
/* plots/trend_ALG.dat and one plot per benchmark and GPU model (plots/trend_ALG_K.svg). */
void trends_plot(struct plot_ctx *c);
/* dashboard/history-ALG.html for every algorithm with trends. 0 ok; -1 with why. */
int trends_pages(struct plot_ctx *c, char *why, size_t len);
/* The index of nights and the links to the history pages, into the run page's view. */
void trends_index(struct plot_ctx *c, struct tpl_view *v);

#endif
