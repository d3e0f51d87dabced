/* kmedoids v1_racy_score (historical). Scores of big clusters split over many blocks, as in
 * v2_gpu, but each block adds its parts of the scores (its sources', its targets') to the objects'
 * slots with a plain `+=`: a load, an add and a store, not one atomic operation. Blocks that share
 * a source chunk (one per target part) or a target part run together, so their read-modify-writes
 * interleave and updates are lost: a member whose score lost a part looks cheaper than it is and
 * is picked as the medoid.
 * From the MPI + CUDA k-medoids of doc/algorithms.md (big clusters computed by several blocks "which
 * synchronise using atomic operations"; the regression replaced the atomic by +=). Fixed in
 * v2_gpu by atomicAdd; diff the two files and the add is the only difference. Seen on an H100 and
 * an H200: caught at the 7th generated case of `test_cases kmedoids gpu` (the objective rose from
 * one step to the next), and 5 runs of 5 wrong at n = 1500, k = 2 (test_kmedoids_gpu). */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "kmedoids.h"
#include "kmedoids_common.cuh"

/* device helpers */

struct km_racy_add {
  __device__ static void add(unsigned long long *p, unsigned long long v) { *p += v; /* the bug: a read-modify-write race between blocks */ }
};

/* kernels */

static __global__ void __launch_bounds__(KM_BLOCK)
    km_score_big_kernel(km_dev_data d, const int32_t *list, const km_tile *tiles,
                        unsigned long long *score)
{
  __shared__ km_tile_smem sm;
  km_tile t = tiles[blockIdx.x];
  km_big_epi<km_racy_add> epi;
  epi.crank = d.crank;
  epi.score = score;
  km_tile_run(d, list + t.src, t.nsrc, list + t.tgt, t.ntgt, epi, sm);
}

/* launcher */

extern "C" void km_v1_racy_score_launch(const struct km_dev_data *d, const int32_t *list,
                                        const struct km_tile *tiles, int n_tiles,
                                        unsigned long long *score, void *stream)
{
  if (n_tiles <= 0)
    return;
  km_score_big_kernel<<<n_tiles, KM_BLOCK, 0, (cudaStream_t)stream>>>(*d, list, tiles, score);
  GR_CUDA_LAUNCH_CHECK();
}
