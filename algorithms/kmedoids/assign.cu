/* k-medoids kernels every GPU variant shares: self similarities (once per dataset) and the
 * assignment (sources staged per block, medoids streamed through shared memory, the dataset
 * resident across iterations).
 *
 * Assignment tiles hold up to 1024 source centroids (about 17 signatures of 60) in registers; the
 * k medoids stream past them. Per centroid pair: 7 FFMA, one MUFU.EX2, one FFMA, plus two
 * broadcast LDS.128 per 4 pairs (74 registers, 3 blocks of 256 per SM). Measured on an H100 80GB
 * HBM3 (test_kmedoids_bench, CUDA events, median): 5.72e8 SQFD distances/s for 1e5 objects of
 * 50..70 centroids against k = 256 medoids (2.06e12 centroid pairs/s, about 60% of the FP32 issue
 * limit at the 1.98 GHz clock); 1.93e8/s at 10..200 centroids (mean 105). Target was 5e8/s. */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "kmedoids.h"
#include "kmedoids_common.cuh"

/* device helpers */

/* Epilogue of the assignment: running minimum per source, a later medoid only if strictly closer. */
struct km_assign_epi {
  int32_t *assign;
  double *mind;
  __device__ void init(km_tile_smem &sm, int nsrc)
  {
    for (int ls = threadIdx.x; ls < nsrc; ls += KM_BLOCK) {
      sm.acc[ls] = __longlong_as_double(0x7ff0000000000000ll); /* +inf */
      sm.arg[ls] = 0;
    }
  }
  __device__ void setup(km_tile_smem &sm, int ncent) {}
  __device__ void begin(int to) {}
  __device__ bool active() const { return true; }
  __device__ bool wants(const km_tile_smem &sm, int ls) const { return true; }
  __device__ void pair(km_tile_smem &sm, int ls, int m, double dist)
  {
    if (dist < sm.acc[ls]) {
      sm.acc[ls] = dist;
      sm.arg[ls] = m;
    }
  }
  __device__ void end_target(km_tile_smem &sm, int m, int to) {}
  __device__ void finish(km_tile_smem &sm, int nsrc)
  {
    for (int ls = threadIdx.x; ls < nsrc; ls += KM_BLOCK) {
      assign[sm.sobj[ls]] = sm.arg[ls];
      mind[sm.sobj[ls]] = sm.acc[ls];
    }
  }
};

/* kernels */

#define KM_SELF_BLOCK (KM_MAX_SIG / KM_PER_THREAD)

/* self[o] = cross(o, o), one block per object, the tile's arithmetic. */
static __global__ void __launch_bounds__(KM_SELF_BLOCK) km_self_kernel(km_dev_data d, double *self)
{
  __shared__ float4 tgt[2 * KM_MAX_SIG];
  __shared__ float rows[KM_MAX_SIG];
  const float4 *cent = (const float4 *)d.cent;
  int o = blockIdx.x, c0 = d.off[o], nt = d.off[o + 1] - c0, tid = threadIdx.x;
  km_src s;
#pragma unroll
  for (int r = 0; r < KM_PER_THREAD; r++) {
    int q = tid * KM_PER_THREAD + r;
    if (q < nt)
      km_load_src(cent, c0 + q, d.scale, s, r);
    else
      km_clear_src(s, r);
  }
  for (int e = tid; e < 2 * nt; e += blockDim.x) {
    float4 x = cent[2 * c0 + e];
    if (e & 1)
      x.w = km_ex2(x.w);
    tgt[e] = x;
  }
  __syncthreads();
  float acc[KM_PER_THREAD];
  km_rows(s, tgt, nt, acc);
#pragma unroll
  for (int r = 0; r < KM_PER_THREAD; r++)
    if (tid * KM_PER_THREAD + r < nt)
      rows[tid * KM_PER_THREAD + r] = acc[r];
  __syncthreads();
  if (tid < 32) {
    double v = km_source_sum(rows, 0, nt, tid);
    if (tid == 0)
      self[o] = v;
  }
}

static __global__ void __launch_bounds__(KM_BLOCK) km_assign_kernel(km_dev_data d,
                                                                    const int32_t *ids,
                                                                    const km_tile *tiles,
                                                                    const int32_t *medoids, int k,
                                                                    int32_t *assign, double *mind)
{
  __shared__ km_tile_smem sm;
  km_tile t = tiles[blockIdx.x];
  km_assign_epi epi{assign, mind};
  km_tile_run(d, ids + t.src, t.nsrc, medoids, k, epi, sm);
}

/* launchers */

extern "C" void km_self_launch(const struct km_dev_data *d, int n, double *self, void *stream)
{
  if (n <= 0)
    return;
  km_self_kernel<<<n, KM_SELF_BLOCK, 0, (cudaStream_t)stream>>>(*d, self);
  GR_CUDA_LAUNCH_CHECK();
}

extern "C" void km_assign_launch(const struct km_dev_data *d, const int32_t *ids,
                                 const struct km_tile *tiles, int n_tiles, const int32_t *medoids,
                                 int k, int32_t *assign, double *mind, void *stream)
{
  if (n_tiles <= 0)
    return;
  km_assign_kernel<<<n_tiles, KM_BLOCK, 0, (cudaStream_t)stream>>>(*d, ids, tiles, medoids, k,
                                                                   assign, mind);
  GR_CUDA_LAUNCH_CHECK();
}
