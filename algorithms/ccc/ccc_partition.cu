/* Stage 1 of every CCC variant, and the host side the pair kernels share.
 *
 * Partitioning: one block per feature, the feature's values in shared memory; each object's tie
 * group is counted directly (lt = values below, eq = values equal: O(n^2) per feature, 1e6
 * comparisons at n = 1000, cheaper than a sort at these sizes and exact), its fine label is
 * #{t : 2 num_t m < (2 lt + eq + 1) den_t} (ccc_math.h). A categorical feature's fine label is its
 * code. Missing values (NaN) and the padding up to the label stride get CCC_MISSING. The block
 * then records the feature's metadata: L, parts, categorical, and which parts have at least two
 * clusters among the present objects (the smallest and largest fine label decide it).
 *
 * The values in shared memory are padded with NaN up to a multiple of CCC_PART_VEC, and the
 * counting loop reads them CCC_PART_VEC at a time (four 16-byte loads; the loop is not unrolled
 * further, so there is no remainder) over the padded length: a NaN is neither below nor equal to
 * any value, so the padding counts nothing, and the allocation holds every byte the loop reads.
 * Issue 23: with n floats exactly and a scalar loop unrolled 8 times, ptxas merged the
 * remainder's loads into a 16-byte LDS.128 issued before the remainder's count was checked,
 * reading up to 12 bytes past the allocation (memcheck: invalid __shared__ read of size 16 at
 * this loop). Timed on the H100 (ccc_time, partition, medians): 23.0 -> 23.4 ms at n = 20000,
 * 0.51 -> 0.49 ms at n = 1000, 0.31 -> 0.28 ms at n = 891 (mixed), 59.6 -> 52.5 ms at n = 40000;
 * 32 values a step in eight counter chains was slower at n <= 20000. */
#include <cuda_runtime.h>
#include <string.h>

#include "ccc.h"
#include "ccc_common.cuh"
#include <gpuregress/gpu.h>

#define CCC_PART_THREADS 256
#define CCC_PART_VEC 16 /* values per step of the counting loop; the shared copy's padding */

static __host__ __device__ inline int ccc_part_padded(int n)
{
  return (n + CCC_PART_VEC - 1) / CCC_PART_VEC * CCC_PART_VEC;
}

/* kernels */

static __global__ void __launch_bounds__(CCC_PART_THREADS)
    ccc_partition_kernel(const float *values, const uint8_t *cat_k, int n, int stride,
                         const struct ccc_layout lay, uint8_t *labels, uint32_t *meta)
{
  extern __shared__ __align__(16) float sv[]; /* ccc_part_padded(n) values */
  __shared__ int present, lo_fine, hi_fine;
  const int f = blockIdx.x, padded = ccc_part_padded(n);
  const float *x = values + (size_t)f * n;
  if (threadIdx.x == 0) {
    present = 0;
    lo_fine = 255;
    hi_fine = -1;
  }
  int mine = 0;
  for (int o = threadIdx.x; o < n; o += blockDim.x) {
    float v = x[o];
    sv[o] = v;
    mine += !isnan(v);
  }
  for (int o = n + threadIdx.x; o < padded; o += blockDim.x)
    sv[o] = __int_as_float(0x7fc00000);
  __syncthreads();
  atomicAdd(&present, mine);
  __syncthreads();
  const int cat = cat_k[f];
  const long long m2 = 2ll * present;
  int lo = 255, hi = -1;
  uint8_t *out = labels + (size_t)f * stride;
  for (int o = threadIdx.x; o < stride; o += blockDim.x) {
    int lab = CCC_MISSING;
    float v = o < n ? sv[o] : __int_as_float(0x7fc00000);
    if (!isnan(v)) {
      if (cat) {
        lab = (int)v;
      } else {
        int lt = 0, eq = 0;
        const float4 *s4 = reinterpret_cast<const float4 *>(sv);
#pragma unroll 1
        for (int u = 0; u < padded / 4; u += 4) {
          const float4 a = s4[u], b = s4[u + 1], c = s4[u + 2], d = s4[u + 3];
          lt += (a.x < v) + (a.y < v) + (a.z < v) + (a.w < v) + (b.x < v) + (b.y < v) +
                (b.z < v) + (b.w < v) + (c.x < v) + (c.y < v) + (c.z < v) + (c.w < v) +
                (d.x < v) + (d.y < v) + (d.z < v) + (d.w < v);
          eq += (a.x == v) + (a.y == v) + (a.z == v) + (a.w == v) + (b.x == v) + (b.y == v) +
                (b.z == v) + (b.w == v) + (c.x == v) + (c.y == v) + (c.z == v) + (c.w == v) +
                (d.x == v) + (d.y == v) + (d.z == v) + (d.w == v);
        }
        long long key = 2ll * lt + eq + 1;
        lab = 0;
        for (int t = 0; t < lay.L - 1; t++)
          lab += m2 * lay.num[t] < key * lay.den[t];
      }
      lo = min(lo, lab);
      hi = max(hi, lab);
    }
    out[o] = (uint8_t)lab;
  }
  atomicMin(&lo_fine, lo);
  atomicMax(&hi_fine, hi);
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  unsigned valid = 0;
  int parts = cat ? 1 : lay.parts, L = cat ? cat : lay.L;
  if (hi_fine > lo_fine) {
    if (cat) {
      valid = 1;
    } else {
      for (int p = 0; p < lay.parts; p++) { /* labels of the extremes in part p differ */
        const uint8_t *b = lay.bnd + lay.off[p];
        int la = 0, lb = 0;
        for (int c = 1; c < p + 2; c++) {
          la += b[c] <= lo_fine;
          lb += b[c] <= hi_fine;
        }
        valid |= (unsigned)(la != lb) << p;
      }
    }
  }
  meta[f] = (uint32_t)L | (uint32_t)parts << 8 | (uint32_t)(cat != 0) << 12 | valid << 16;
}

/* launchers and host helpers */

extern "C" void ccc_partition_launch(const struct ccc_gpu *g, void *stream)
{
  struct ccc_layout lay;
  ccc_layout_init(&lay, g->n);
  size_t smem = (size_t)ccc_part_padded(g->n) * sizeof(float);
  GR_CUDA_CHECK(cudaFuncSetAttribute(ccc_partition_kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  if (g->features > 0) {
    ccc_partition_kernel<<<g->features, CCC_PART_THREADS, smem, (cudaStream_t)stream>>>(
        g->values, g->cat_k, g->n, (int)ccc_label_stride(g->n), lay, g->labels, g->meta);
    GR_CUDA_LAUNCH_CHECK();
  }
}

void ccc_pair_params_init(const struct ccc_gpu *g, size_t extra, struct ccc_pair_params *pp,
                          size_t *smem)
{
  struct ccc_layout lay;
  ccc_layout_init(&lay, g->n);
  memset(pp, 0, sizeof *pp);
  pp->features = g->features;
  pp->sw = g->lmax + 1;
  pp->parts = lay.parts;
  pp->stride = (int)ccc_label_stride(g->n);
  pp->pairs = (long long)g->features * (g->features - 1) / 2;
  memcpy(pp->tab + CCC_TAB_BND, lay.bnd, sizeof lay.bnd);
  memcpy(pp->tab + CCC_TAB_OFF, lay.off, sizeof lay.off);
  for (int c = 0; c <= CCC_MAX_CAT; c++)
    pp->tab[CCC_TAB_IDENT + c] = (uint8_t)c;
  /* numeric x numeric part pairs, costliest (k_p * k_q cells) first: the snake order of
   * ccc_pair_run's rounds then gives each lane a similar number of cells */
  int jobs = 0;
  for (int cost = CCC_MAX_K * CCC_MAX_K; cost >= 4; cost--)
    for (int p = 0; p < lay.parts; p++)
      for (int q = 0; q < lay.parts; q++)
        if ((p + 2) * (q + 2) == cost)
          pp->tab[CCC_TAB_JOBS + jobs++] = (uint8_t)(p << 4 | q);
  pp->warp_bytes = (int)(ccc_table_bytes(pp->sw) + 2 * CCC_MAX_PARTS * 8 + (extra + 15) / 16 * 16);
  *smem = CCC_TAB_BYTES + (size_t)CCC_WARPS * pp->warp_bytes;
}

int ccc_launch_with(const void *kernel, size_t extra, const struct ccc_gpu *g, void *stream)
{
  struct ccc_pair_params pp;
  size_t smem;
  int dev, optin, sms, per_sm = 0;
  ccc_pair_params_init(g, extra, &pp, &smem);
  GR_CUDA_CHECK(cudaGetDevice(&dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (smem > (size_t)optin)
    return 1;
  GR_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  GR_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CCC_WARPS * 32, smem));
  if (per_sm < 1)
    return 1;
  ccc_partition_launch(g, stream);
  if (pp.pairs > 0) {
    long long need = (pp.pairs + CCC_WARPS - 1) / CCC_WARPS;
    long long blocks = (long long)sms * per_sm < need ? (long long)sms * per_sm : need;
    const uint8_t *labels = g->labels;
    const uint32_t *meta = g->meta;
    double *ccc = g->ccc;
    uint8_t *idx = g->idx;
    void *args[] = {&pp, &labels, &meta, &ccc, &idx};
    GR_CUDA_CHECK(cudaLaunchKernel(kernel, dim3((unsigned)blocks), dim3(CCC_WARPS * 32), args, smem,
                                   (cudaStream_t)stream));
    GR_CUDA_LAUNCH_CHECK();
  }
  return 0;
}
