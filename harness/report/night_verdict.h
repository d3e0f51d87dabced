/* A night's verdict in the index of nights (the run's page): this night's as judged now,
 * another's as recorded with it by `compare --record`, with ci/nightly's exit code beside it. */
#ifndef GR_NIGHT_VERDICT_H
#define GR_NIGHT_VERDICT_H

#include "store.h"
#include "template.h"
#include "view.h"

/* The verdict of night n into its row r of the index of nights: verdict (the recorded result
 * name, "-" none), label, badge, verdict_summary, exit_code, nightly_exit. */
void dashboard_night_verdict(const struct plot_ctx *c, const struct store_night *n,
                             struct tpl_view *r);

#endif
