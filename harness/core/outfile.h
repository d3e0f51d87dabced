/* Output files written whole: every file gpuregress writes for its user (the status file, a
 * report, plots' data files, dashboard pages, a JSON of benchmarks) goes through here, so that a
 * reader never sees half a file and a path that is not a file is never replaced.
 *
 * outfile_open looks at the path first, without following a link: absent, a regular file or a
 * symbolic link (the link itself is replaced, never the file it points to) is written through a
 * new temporary file in the same folder (PATH.tmp.XXXXXX, created exclusively; PATH's own name
 * cut so that the temporary's fits NAME_MAX) that
 * outfile_commit renames into place; a directory, a FIFO, a device or a socket is refused at
 * once, with a message naming it. Every failure (open, write, flush, close, rename: a full disk,
 * a missing or read-only folder) is reported with the path, and the temporary file removed.
 *
 * Outputs another program writes by name (gnuplot's `set output`, SQLite's database of export
 * --format db) are written inside a private folder (outfile_tmpdir: mode 0700, created
 * exclusively in the output's folder, so nothing can be planted in it), then moved into place:
 * outfile_place replaces as outfile_commit does, outfile_place_new never replaces anything (a
 * file, a link, even a dangling one: "exists"), atomically, so of two writers racing to one
 * name the second is told it exists. */
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

/* A new private folder beside path (in path's folder: PATH_FOLDER/.gr-tmp.XXXXXX) into dst. 0 ok;
 * -1 with why naming path (no folder, not writable). */
int outfile_tmpdir(char *dst, size_t len, const char *path, char *why, size_t wlen);
/* Remove the private folder dir and every file left in it (no-op for "" or NULL). */
void outfile_tmpdir_remove(const char *dir);
/* Rename tmp onto path where outfile_check accepts path (absent, a regular file, a link: the
 * link replaced). 0 ok; -1 with why naming path (tmp is left for the caller). */
int outfile_place(const char *tmp, const char *path, char *why, size_t len);
/* Rename tmp to path only where nothing is at path (no link followed): 0 ok; -1 with why,
 * "'PATH' exists: ..." when something is (tmp is left for the caller). */
int outfile_place_new(const char *tmp, const char *path, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
