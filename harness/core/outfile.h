/* Output files written whole: every file gpuregress writes for its user (the status file, a
 * report, plots' data files, dashboard pages, a JSON of benchmarks) goes through here, so that a
 * reader never sees half a file and a path that is not a file is never replaced.
 *
 * outfile_open looks at the path first, without following a link: absent, a regular file or a
 * symbolic link (the link itself is replaced, never the file it points to) is written through a
 * new temporary file in the same folder (PATH.tmp.XXXXXX, created exclusively) that
 * outfile_commit renames into place; a directory, a FIFO, a device or a socket is refused at
 * once, with a message naming it. Every failure (open, write, flush, close, rename: a full disk,
 * a missing or read-only folder) is reported with the path, and the temporary file removed. */
#ifndef GR_OUTFILE_H
#define GR_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct outfile {
  FILE *f; /* write here between open and commit */
  char path[PATH_MAX], tmp[PATH_MAX + 16];
};

/* 0 when path can take an output file (absent in an existing folder, a regular file or a
 * link); -1 with why otherwise ("'P' is a directory: ..."). Touches nothing. */
int outfile_check(const char *path, char *why, size_t len);
/* Begin writing path. 0 ok (o->f open); -1 with why. */
int outfile_open(struct outfile *o, const char *path, char *why, size_t len);
/* Finish: flush, close, rename into place. 0 ok; -1 with why (nothing replaced). */
int outfile_commit(struct outfile *o, char *why, size_t len);
/* Give up: close and remove the temporary file (no-op when none is open). */
void outfile_abort(struct outfile *o);

#ifdef __cplusplus
}
#endif

#endif
