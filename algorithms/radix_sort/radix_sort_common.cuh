/* The pipeline the v1..v3 radix_sort variants share: the chunk plan, the histogram and scan
 * kernels, the block-wide scan helper, and the driver that runs the 4 passes around a variant's
 * scatter kernel. Every variant file includes this and passes its own scatter kernel to
 * rs_sort; nothing else differs between them.
 *
 * Plan: tiles of RADIX_SORT_TILE keys, the last one partial; chunks of tiles_per_chunk
 * consecutive tiles, at most one chunk per block that fits on the device at once (one wave,
 * from the occupancy of the variant's scatter kernel), so the per-chunk histograms stay small
 * (256 x chunks counters) whatever n is.
 *
 * Per pass (shift = 8 p):
 *   rs_histogram_kernel  one block per chunk: hist[d * nchunks + c] = keys of chunk c with digit d
 *   rs_scan_kernel       one block per digit: hist row d becomes its exclusive scan over chunks,
 *                        totals[d] = keys with digit d
 *   scatter (variant)    one block per chunk: base[d] = (keys with a digit < d) + hist[d][c];
 *                        tile by tile, rank the tile's keys stably by digit in shared memory,
 *                        write them out at base[d] + rank within the digit, advance base.
 * Buffers ping-pong in -> alt -> out -> alt -> out, so the sorted keys end in the output and the
 * input is never written. */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"

#define RS_WARPS (RADIX_SORT_BLOCK / 32)
#define RS_FULL 0xffffffffu

/* the scatter kernel's signature, the same for every variant and for keys or pairs */
typedef void (*rs_scatter_fn)(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_out,
                              uint32_t *vals_out, int n, int shift, const uint32_t *hist,
                              const uint32_t *totals, int nchunks, int tiles_per_chunk, int ntiles);

/* device helpers */

__device__ static inline uint32_t rs_digit(uint32_t key, int shift)
{
  return (key >> shift) & (RADIX_SORT_RADIX - 1);
}

/* Lanes of the warp whose digit equals this lane's (all 32 lanes active). */
__device__ static inline uint32_t rs_warp_match(uint32_t digit)
{
  uint32_t peers = RS_FULL;
#pragma unroll
  for (int b = 0; b < RADIX_SORT_BITS; b++) {
    uint32_t bit = (digit >> b) & 1u;
    uint32_t set = __ballot_sync(RS_FULL, bit);
    peers &= bit ? set : ~set;
  }
  return peers;
}

/* Exclusive scan of v over the block (WARPS warps: RADIX_SORT_BLOCK threads unless told, all of
 * them calling); *total gets the block's sum in every thread. s_warp holds WARPS values; the
 * helper synchronises before writing it, so consecutive calls may share it. */
template <int WARPS = RS_WARPS>
__device__ static inline uint32_t rs_block_exclusive_scan(uint32_t v, uint32_t *s_warp,
                                                          uint32_t *total)
{
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint32_t x = v;
  for (int o = 1; o < 32; o <<= 1) {
    uint32_t y = __shfl_up_sync(RS_FULL, x, o);
    if (lane >= o)
      x += y;
  }
  __syncthreads();
  if (lane == 31)
    s_warp[warp] = x;
  __syncthreads();
  uint32_t before = 0, sum = 0;
  for (int w = 0; w < WARPS; w++) {
    uint32_t c = s_warp[w];
    before += w < warp ? c : 0;
    sum += c;
  }
  *total = sum;
  return before + x - v;
}

/* Where chunk c of this pass starts for the digit of this thread (threadIdx.x = digit): the keys
 * of all smaller digits plus the keys of digit d in chunks before c. */
__device__ static inline uint32_t rs_chunk_base(const uint32_t *hist, const uint32_t *totals,
                                                int nchunks, uint32_t *s_warp)
{
  uint32_t all;
  uint32_t start = rs_block_exclusive_scan(totals[threadIdx.x], s_warp, &all);
  return start + hist[(size_t)threadIdx.x * nchunks + blockIdx.x];
}

/* Asynchronous copy of one word global -> shared (cp.async, sm_80+): no register holds it, so a
 * block can fetch its next tile while it works on this one. Zero-filled when !valid (src is then
 * not read). Completed per thread by rs_cp_async_wait; visible to the block after a barrier. */
__device__ static inline void rs_cp_async4(uint32_t *dst, const uint32_t *src, bool valid)
{
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src),
               "r"(valid ? 4 : 0)
               : "memory");
}

__device__ static inline void rs_cp_async_commit(void)
{
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most `pending` of this thread's most recent groups are still in flight. */
template <int pending> __device__ static inline void rs_cp_async_wait(void)
{
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

/* Start copying tile `tile` (keys, and values when vals_in) into s_k / s_v in input order, one
 * cp.async per word, coalesced; words past n are zero-filled. Does not commit the group. */
__device__ static inline void rs_stage_tile(uint32_t *s_k, uint32_t *s_v, const uint32_t *keys_in,
                                            const uint32_t *vals_in, int n, int tile)
{
  int base = tile * RADIX_SORT_TILE;
#pragma unroll 4
  for (int i = threadIdx.x; i < RADIX_SORT_TILE; i += RADIX_SORT_BLOCK) {
    bool valid = base + i < n;
    int at = valid ? base + i : 0; /* a readable address even when nothing is read */
    rs_cp_async4(s_k + i, keys_in + at, valid);
    if (vals_in)
      rs_cp_async4(s_v + i, vals_in + at, valid);
  }
}

/* kernels */

static __global__ __launch_bounds__(RADIX_SORT_BLOCK) void rs_histogram_kernel(
    const uint32_t *__restrict__ keys, int n, int shift, uint32_t *__restrict__ hist, int nchunks,
    int tiles_per_chunk)
{
  __shared__ uint32_t s_hist[RS_WARPS * RADIX_SORT_RADIX]; /* one histogram per warp */
  int tid = threadIdx.x, warp = tid / 32;
  for (int i = tid; i < RS_WARPS * RADIX_SORT_RADIX; i += RADIX_SORT_BLOCK)
    s_hist[i] = 0;
  __syncthreads();
  uint32_t *h = s_hist + warp * RADIX_SORT_RADIX;
  size_t begin = (size_t)blockIdx.x * tiles_per_chunk * RADIX_SORT_TILE;
  size_t end = begin + (size_t)tiles_per_chunk * RADIX_SORT_TILE;
  if (end > (size_t)n)
    end = (size_t)n;
  size_t i = begin;
  if (((uintptr_t)keys & 15) == 0) { /* begin is a multiple of the tile: uint4 loads */
    const uint4 *k4 = (const uint4 *)(keys + begin);
    size_t quads = (end - begin) / 4;
    for (size_t q = tid; q < quads; q += 8 * RADIX_SORT_BLOCK) {
      uint4 v[8];
#pragma unroll
      for (int u = 0; u < 8; u++) {
        size_t qu = q + (size_t)u * RADIX_SORT_BLOCK;
        v[u] = qu < quads ? k4[qu] : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < 8; u++) {
        if (q + (size_t)u * RADIX_SORT_BLOCK < quads) {
          atomicAdd(&h[rs_digit(v[u].x, shift)], 1u);
          atomicAdd(&h[rs_digit(v[u].y, shift)], 1u);
          atomicAdd(&h[rs_digit(v[u].z, shift)], 1u);
          atomicAdd(&h[rs_digit(v[u].w, shift)], 1u);
        }
      }
    }
    i = begin + quads * 4;
  }
  for (i += tid; i < end; i += RADIX_SORT_BLOCK)
    atomicAdd(&h[rs_digit(keys[i], shift)], 1u);
  __syncthreads();
  uint32_t sum = 0;
  for (int w = 0; w < RS_WARPS; w++)
    sum += s_hist[w * RADIX_SORT_RADIX + tid];
  hist[(size_t)tid * nchunks + blockIdx.x] = sum;
}

static __global__
__launch_bounds__(RADIX_SORT_BLOCK) void rs_scan_kernel(uint32_t *__restrict__ hist, int nchunks,
                                                        uint32_t *__restrict__ totals)
{
  __shared__ uint32_t s_warp[RS_WARPS];
  uint32_t *row = hist + (size_t)blockIdx.x * nchunks;
  uint32_t carry = 0;
  for (int base = 0; base < nchunks; base += RADIX_SORT_BLOCK) {
    int i = base + (int)threadIdx.x;
    uint32_t v = i < nchunks ? row[i] : 0, sum;
    uint32_t ex = rs_block_exclusive_scan(v, s_warp, &sum);
    if (i < nchunks)
      row[i] = carry + ex;
    carry += sum;
  }
  if (threadIdx.x == 0)
    totals[blockIdx.x] = carry;
}

/* driver */

struct rs_plan {
  int ntiles, nchunks, tiles_per_chunk;
  size_t keys_alt, vals_alt, hist, totals, bytes; /* offsets into the scratch, and its size */
};

static inline size_t rs_align(size_t x)
{
  return (x + 255) & ~(size_t)255;
}

/* The plan of a sort of n keys with this scatter kernel (dynamic shared memory `smem` bytes) on
 * the current device. blocks_per_sm caches the occupancy query (0 = not asked yet); the first
 * call also allows the kernel its dynamic shared memory. */
static inline void rs_plan_make(rs_scatter_fn scatter, size_t smem, int *blocks_per_sm, int n,
                                int pairs, struct rs_plan *p)
{
  static int sm_count; /* per translation unit; one device per process */
  if (!sm_count) {
    int dev;
    GR_CUDA_CHECK(cudaGetDevice(&dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
  }
  if (!*blocks_per_sm) {
    GR_CUDA_CHECK(cudaFuncSetAttribute((const void *)scatter,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks_per_sm, (const void *)scatter, RADIX_SORT_BLOCK, smem));
    if (*blocks_per_sm < 1)
      *blocks_per_sm = 1;
  }
  int max_chunks = sm_count * *blocks_per_sm;
  p->ntiles = (int)(((size_t)n + RADIX_SORT_TILE - 1) / RADIX_SORT_TILE);
  p->tiles_per_chunk = p->ntiles ? (p->ntiles + max_chunks - 1) / max_chunks : 1;
  p->nchunks = p->ntiles ? (p->ntiles + p->tiles_per_chunk - 1) / p->tiles_per_chunk : 0;
  size_t data = rs_align((size_t)n * sizeof(uint32_t));
  p->keys_alt = 0;
  p->vals_alt = data;
  p->hist = data * (pairs ? 2 : 1);
  p->totals = p->hist + rs_align((size_t)RADIX_SORT_RADIX * (size_t)p->nchunks * sizeof(uint32_t));
  p->bytes = p->totals + rs_align(RADIX_SORT_RADIX * sizeof(uint32_t));
}

static inline void rs_trace_record(int slot, cudaStream_t stream)
{
  if (radix_sort_trace)
    GR_CUDA_CHECK(cudaEventRecord(((cudaEvent_t *)radix_sort_trace)[slot], stream));
}

/* The whole sort with the given scatter kernels (keys-only and pairs instantiations, asking for
 * smem[0] and smem[1] bytes of dynamic shared memory), in the launcher contract of radix_sort.h.
 * occupancy caches one query per instantiation. */
static inline int rs_sort(rs_scatter_fn scatter_keys, rs_scatter_fn scatter_pairs,
                          const size_t smem[2], int occupancy[2], void *d_temp, size_t *temp_bytes,
                          const uint32_t *keys_in, uint32_t *keys_out, const uint32_t *vals_in,
                          uint32_t *vals_out, int n, void *stream)
{
  int pairs = vals_in != NULL;
  rs_scatter_fn scatter = pairs ? scatter_pairs : scatter_keys;
  struct rs_plan p;
  rs_plan_make(scatter, smem[pairs], &occupancy[pairs], n, pairs, &p);
  if (!d_temp) {
    *temp_bytes = p.bytes;
    return 0;
  }
  if (n <= 0)
    return 0;
  cudaStream_t s = (cudaStream_t)stream;
  char *t = (char *)d_temp;
  uint32_t *keys_alt = (uint32_t *)(t + p.keys_alt), *vals_alt = (uint32_t *)(t + p.vals_alt);
  uint32_t *hist = (uint32_t *)(t + p.hist), *totals = (uint32_t *)(t + p.totals);
  rs_trace_record(0, s);
  for (int pass = 0; pass < RADIX_SORT_PASSES; pass++) {
    /* in -> alt, alt -> out, out -> alt, alt -> out */
    const uint32_t *src_k = pass == 0 ? keys_in : pass % 2 ? keys_alt : keys_out;
    const uint32_t *src_v = pass == 0 ? vals_in : pass % 2 ? vals_alt : vals_out;
    uint32_t *dst_k = pass % 2 ? keys_out : keys_alt;
    uint32_t *dst_v = pass % 2 ? vals_out : vals_alt;
    int shift = pass * RADIX_SORT_BITS;
    rs_histogram_kernel<<<p.nchunks, RADIX_SORT_BLOCK, 0, s>>>(src_k, n, shift, hist, p.nchunks,
                                                               p.tiles_per_chunk);
    GR_CUDA_LAUNCH_CHECK();
    rs_trace_record(1 + 3 * pass, s);
    rs_scan_kernel<<<RADIX_SORT_RADIX, RADIX_SORT_BLOCK, 0, s>>>(hist, p.nchunks, totals);
    GR_CUDA_LAUNCH_CHECK();
    rs_trace_record(2 + 3 * pass, s);
    scatter<<<p.nchunks, RADIX_SORT_BLOCK, smem[pairs], s>>>(
        src_k, pairs ? src_v : NULL, dst_k, pairs ? dst_v : NULL, n, shift, hist, totals, p.nchunks,
        p.tiles_per_chunk, p.ntiles);
    GR_CUDA_LAUNCH_CHECK();
    rs_trace_record(3 + 3 * pass, s);
  }
  return 0;
}
