/* k-medoids score kernel for small clusters, shared by every GPU variant. A tile packs several
 * whole clusters (consecutive in the list, each sorted by content rank, at most 1024 centroids
 * together): sources and targets are the same positions, and each source meets only the targets
 * of its own cluster. A pair counts when the source ranks below the target (kmedoids.h); its
 * distance goes to both members' scores, in shared memory. A warp with no centroid of the target's
 * cluster ranked below it skips the row computation. Each score is complete inside its block, so
 * it is stored, not added. */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "kmedoids.h"
#include "kmedoids_common.cuh"

/* device helpers */

/* Epilogue: both members' scores per pair, in shared memory (a target is also a source here). */
struct km_small_epi {
  const int32_t *assign, *crank;
  unsigned long long *score; /* by object */
  int mycl[KM_PER_THREAD];   /* cluster of each of this thread's centroids, -1 past the end */
  int mycr[KM_PER_THREAD];   /* rank of their sources */
  int tcl, tcr;              /* cluster and rank of the current target */
  unsigned long long tsum;   /* lane 0: this warp's pairs with the current target */
  __device__ void init(km_tile_smem &sm, int nsrc)
  {
    for (int ls = threadIdx.x; ls < nsrc; ls += KM_BLOCK) {
      sm.facc[ls] = 0;
      sm.arg[ls] = assign[sm.sobj[ls]];
    }
  }
  __device__ void setup(km_tile_smem &sm, int ncent)
  {
#pragma unroll
    for (int r = 0; r < KM_PER_THREAD; r++) {
      int q = threadIdx.x * KM_PER_THREAD + r;
      mycl[r] = q < ncent ? sm.arg[sm.cmap[q]] : -1;
      mycr[r] = q < ncent ? sm.scr[sm.cmap[q]] : INT_MAX;
    }
  }
  __device__ void begin(int to)
  {
    tcl = assign[to];
    tcr = crank[to];
    tsum = 0;
  }
  __device__ bool active() const
  {
    bool mine = false;
#pragma unroll
    for (int r = 0; r < KM_PER_THREAD; r++)
      mine |= mycl[r] == tcl && mycr[r] < tcr;
    return __any_sync(KM_FULL, mine);
  }
  __device__ bool wants(const km_tile_smem &sm, int ls) const
  {
    return sm.arg[ls] == tcl && sm.scr[ls] < tcr;
  }
  __device__ void pair(km_tile_smem &sm, int ls, int m, double dist)
  {
    unsigned long long f = km_fixed(dist);
    atomicAdd(&sm.facc[ls], f); /* other warps may be adding to it as a target */
    tsum += f;
  }
  __device__ void end_target(km_tile_smem &sm, int m, int to)
  {
    if ((threadIdx.x & 31) == 0 && tsum)
      atomicAdd(&sm.facc[m], tsum); /* target m is source m */
  }
  __device__ void finish(km_tile_smem &sm, int nsrc)
  {
    for (int ls = threadIdx.x; ls < nsrc; ls += KM_BLOCK)
      score[sm.sobj[ls]] = sm.facc[ls];
  }
};

/* kernels */

static __global__ void __launch_bounds__(KM_BLOCK)
    km_score_small_kernel(km_dev_data d, const int32_t *list, const int32_t *assign,
                          const km_tile *tiles, unsigned long long *score)
{
  __shared__ km_tile_smem sm;
  km_tile t = tiles[blockIdx.x];
  km_small_epi epi;
  epi.assign = assign;
  epi.crank = d.crank;
  epi.score = score;
  km_tile_run(d, list + t.src, t.nsrc, list + t.tgt, t.ntgt, epi, sm);
}

/* launcher */

extern "C" void km_score_small_launch(const struct km_dev_data *d, const int32_t *list,
                                      const int32_t *assign, const struct km_tile *tiles,
                                      int n_tiles, unsigned long long *score, void *stream)
{
  if (n_tiles <= 0)
    return;
  km_score_small_kernel<<<n_tiles, KM_BLOCK, 0, (cudaStream_t)stream>>>(*d, list, assign, tiles,
                                                                        score);
  GR_CUDA_LAUNCH_CHECK();
}
