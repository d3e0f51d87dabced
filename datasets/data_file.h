/* Opening a dataset file for a loader. Loaders read regular files only: a directory, a device or
 * a pipe has no size to check a header against before allocating (a directory reports a size of
 * 2^63 - 1 on some file systems, /dev/zero never ends), so each is refused with a message naming
 * the file and what it is. */
#ifndef GR_DATASETS_DATA_FILE_H
#define GR_DATASETS_DATA_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Open path for binary reading; *size is its size in bytes. Never blocks: the file is opened
 * non-blocking and its type checked on what was opened (a FIFO is refused at once). 0 ok; -1 with why ("cannot open 'x':
 * ...", "'x' is a directory, not a regular file"), *f left NULL. */
int data_file_open(const char *path, FILE **f, uint64_t *size, char *why, size_t len);

/* The content hash of the file at path: 64-bit FNV-1a over its bytes (a case reading the file
 * carries it, so a changed file is a new case). Regular files only, as data_file_open. 0 ok; -1
 * with why naming the file. */
int data_file_hash(const char *path, uint64_t *hash, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
