/* What trends.c (the data, the plots) and trends_pages.c (the pages) share; no other file
 * includes this. */
#ifndef GR_TRENDS_PRIVATE_H
#define GR_TRENDS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "store.h"

struct trend_series {
  struct history_series s; /* its arrays point into the two below */
  struct history_night *nights;
  struct history_change *changes;
  int plot; /* number of its plot within the algorithm (1..) */
};

struct trend_pos {
  int64_t run;
  size_t row;   /* index in nights */
  size_t night; /* 1-based position on the x axis, 0 when it has no timings */
};

struct trends {
  struct store_night *nights; /* every night up to the run, oldest first */
  size_t n_nights, cap_nights;
  int64_t *timed; /* the runs with timings: the x axis (night k = timed[k - 1]) */
  size_t n_timed;
  struct trend_pos *by_id;       /* every night by run id: its row and its night number (0 none),
                                  * for lookups in O(log n) (10^6 nights) */
  struct trend_series *s;
  size_t n, cap;
};

/* The night number (1-based position on the x axis) of run; 0 when it has none. */
size_t trends_night_of(const struct trends *t, int64_t run);
/* The night row of run, NULL when it is not one. */
const struct store_night *trends_night_row(const struct trends *t, int64_t run);
/* Append to a growing string; -1 when it is full. */
int trends_cat(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
