/* Running kmedoids_mpi under mpirun from a variant or a test, and the result file it writes.
 *
 * Output of every k-medoids variant (the harness's flat buffer, and the body of a result file):
 *   int32 steps, int32 zero, double objective[iters + 1], int32 medoids[k], int32 assign[n]
 * (see kmedoids_ref.h for what each holds). A result file is the 32-byte header
 *   char magic[8] "KMRES\0\0\1", int64 n, int32 k, int32 iters, int64 body bytes
 * followed by that body. */
#ifndef GR_ALGORITHMS_KMEDOIDS_KM_MPIRUN_H
#define GR_ALGORITHMS_KMEDOIDS_KM_MPIRUN_H

#include <stddef.h>
#include <stdint.h>

#include "kmedoids_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where each part of the output lies. */
struct km_out_layout {
  size_t objective, medoids, assign, bytes; /* byte offsets, total size */
};
struct km_out_layout km_out_layout(int64_t n, int k, int iters);
/* Write res into the flat output buffer (every byte). */
void km_out_pack(const struct km_result *res, void *out);

/* Write res to a result file. 0, or -1 with why. */
int km_result_write(const char *path, const struct km_result *res, char *why, size_t len);
/* Read a result file for (n, k, iters) into out (km_out_layout(...).bytes). 0, or -1 with why. */
int km_result_read(const char *path, int64_t n, int k, int iters, void *out, char *why, size_t len);

/* Path of the kmedoids_mpi executable: $KMEDOIDS_MPI, else beside /proc/self/exe, else in its
 * parent folder. 0, or -1 with why. */
int km_find_mpi_exe(char *path, size_t len, char *why, size_t why_len);

/* Run `mpirun -np ranks exe args...` (args NULL-terminated) with Open MPI's settings for this
 * environment: --oversubscribe, --bind-to none, and as root --allow-run-as-root plus
 * OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1; $KMEDOIDS_MPIRUN names another launcher. Each launch has its
 * own session directory (a private folder under $TMPDIR, removed afterwards), so concurrent
 * launches share no Open MPI state on disk. Its output goes to a temporary file whose last lines
 * are copied to log. Killed (with its ranks) after timeout_s.
 * Returns its exit status, KM_MPIRUN_NOT_FOUND when the launcher could not be started, 128 + the
 * signal when it was killed, or -1 when it could not be forked (log says why). */
#define KM_MPIRUN_NOT_FOUND 127
int km_mpirun(int ranks, const char *exe, const char *const *args, double timeout_s, char *log,
              size_t len);

#ifdef __cplusplus
}
#endif

#endif
