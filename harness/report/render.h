/* Pages from the templates of harness/report/ (dashboard.html, history.html) (template.h): what dashboard.c (the run's
 * page) and trends.c (the history pages) share. Includes view.h only. */
#ifndef GR_RENDER_H
#define GR_RENDER_H

#include <stddef.h>

#include "template.h"
#include "view.h"

/* Render the page template named name (beside the binary, share/NAME, installed
 * bin/../share/gpuregress/NAME, or in the source tree) with v into path (through a temporary
 * file). 0 ok; -1 with why. */
int render_page(const char *name, const struct tpl_view *v, const char *path, char *why,
                size_t len);
/* A plot of plots/NAME.svg into the list "plots" of v: its SVG, or why there is none. */
void render_add_plot(const struct plot_ctx *c, struct tpl_view *v, const char *name,
                     const char *alt);
/* The badge class of a verdict or a timing class: ok, meh or bad. */
const char *render_badge(const char *verdict);

#endif
