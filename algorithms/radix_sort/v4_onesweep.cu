/* radix_sort v4_onesweep (fixed). One read of the keys for all four digit histograms, then one
 * kernel per digit that ranks, publishes and scatters each tile in a single sweep (the design of
 * Adinets and Merrill's "Onesweep", 2022), where v1..v3 read the keys twice per digit (histogram,
 * then scatter) and wait on a scan kernel in between.
 *
 * Up front, os_histogram_kernel counts the 4 digits of every key at once (shared-memory atomics
 * per block, one global atomic per block and bin) and clears the first look-back buffer. Then per
 * digit, os_pass_kernel runs one block of 384 threads per tile of 384 x 24 = 9216 keys. A block
 * takes its tile index from an atomic counter, so tiles start in index order whatever order the
 * hardware starts blocks in: every tile a block waits on belongs to a block already running, and
 * the look-back cannot deadlock. The block loads its keys straight into registers (coalesced; warp
 * w owns the 32 x 24 keys of slice w, in input order; values wait in shared memory through
 * cp.async) and ranks them per warp 32 at a time: 8 ballots find the lanes holding the same digit,
 * the rank is the popcount of the lower ones plus the warp's running count of that digit in shared
 * memory (stable: slice order is input order). One block sync later, thread d sums digit d over
 * the warps and publishes the tile's count of d in the tile's look-back row, then walks back over
 * the rows of earlier tiles until it meets an inclusive prefix; tile 0 seeds the chain with the
 * output start of each digit (the exclusive scan of the up-front histogram), so a prefix is
 * directly an output position. A row entry is one 32-bit word, the flag in its top 2 bits (0
 * nothing yet, 1 this tile's count, 2 the inclusive prefix through this tile) and the count below,
 * stored and loaded whole (relaxed, gpu scope), so no reader can see a flag without its value. The
 * keys, then the values, go through shared memory into digit order, so each digit's run leaves the
 * block at consecutive output addresses. Each pass clears its tile's row of the next pass's
 * look-back buffer, so nothing runs between passes.
 *
 * Bytes per key: 4 (histogram read) + 4 x 8 (read + write per pass) + ~0.3 of look-back rows (1
 * KiB per tile of 9216 keys cleared, written and read back) = ~36.3, against the work model's
 * floor of 36 (v3: 48); pairs ~68.3 against 68 (v3: 80).
 *
 * The shape (issue 27). The pass is issue-bound, not DRAM-bound: ncu at 2^28 pairs (H100) saw
 * 57% of DRAM bandwidth, 63% SM throughput and 1.04G warp instructions per pass for 512 x 15
 * tiles, against CUB's 62% DRAM, 41% SM and 0.71G with 384 x 23 tiles. Two things moved it: the
 * register cap (__launch_bounds__ with MINB = 2: without it the templated kernel took 86-90
 * registers, one block of 512 per SM, 9.56 ms for 2^28 keys; the old one happened to get 64) and
 * longer tiles (fewer per-tile barriers,
 * scans and look-back rows per key, longer digit runs per store). A sweep of shapes on the H100
 * (scratch bench, cold L2, CUB in the same process, medians of 9), 2^28 keys / pairs vs CUB:
 * 512 x 15 (the previous shape) 1.013 / 1.055; 384 x 20 1.013 / 1.031; 384 x 24 0.937 / 1.000
 * (0.937 / 1.005 in a second run); 512 x 20 0.914 / 1.039; 384 x 28 0.910 / 1.060; 384 x 30
 * 0.927 / 1.193; 256 x 40 0.956 / 1.001; 256 x 30 0.960 / 1.036. Beyond ~64-85 registers the
 * pairs kernel spills (its values' output positions stay in registers between the key and the
 * value scatter), so 384 x 24 is taken for both: no spills, the best pairs time, keys at 0.94x
 * (a later sweep of pairs shapes: 384 x 23 1.004, 384 x 22 1.011, 448 x 20 1.015, 320 x 28
 * 1.023, 352 x 26 1.063, 384 x 24 1.007 in that run). Measured with the suite's own timing
 * (gpuregress bench, H100, cold L2, CUB in the same run): 2^28 pairs 8.706 ms against CUB's
 * 8.745 (0.996x), 2^28 keys 5.966 against 6.371 (0.937x); the scratch bench at 2^24: keys 0.458
 * against 0.470 ms (0.974x), pairs 0.606 against 0.614 (0.987x). Pairs are level with CUB, not
 * ahead: the pass still issues ~45% more instructions per key than CUB's (ranking by 8 ballots
 * and the second trip of the values through shared memory), the next thing to cut.
 * What did not work: __match_any_sync for the digit peers instead of the 8 ballots (1.46x CUB
 * for pairs, 1.60x for keys at 2^28: match.any is slow on the H100); permuting the values beside
 * the keys through a third shared buffer so that keys and values leave in one loop (384 x 20:
 * 8.95 against 8.99 ms, noise); taking the values into registers before the key scatter and
 * writing them in place (512 x 15: 2.44 against 2.30 ms at 2^26 pairs).
 *
 * Earlier measurements, 512 x 15 tiles (gpuregress bench, cold L2, CUB in the same run):
 * 2^28 keys 6.35 ms = 0.99x CUB (v3 10.22), 2^28 pairs 9.22 ms = 1.06x (v3 21.03), 2^24 keys
 * 0.457 ms = 0.97x, 2^24 pairs 0.624 ms = 1.01x; 51% and 66% of the copy bandwidth at 2^28. Where
 * the time goes at 2^28 (tests/test_radix_sort_gpu full, radix_sort_trace): the up-front histogram
 * with its memset and the clearing of 68 MiB of look-back rows 0.48 ms (keys read at 2.2 TB/s),
 * then each pass 1.47 ms for keys (8 bytes/key at 1.46 TB/s) and 2.19 ms for pairs (16 at 1.97):
 * the passes are 92% of the sort. The tile size mattered most: 256 threads x 15 keys (3840 a tile)
 * gave 6.80 ms for 2^28 keys and 11.81 for pairs, 1.06x and 1.35x CUB (digit runs half as long per
 * tile, twice the tiles to look back over and to pay the per-tile syncs for). Holding the values
 * in registers instead of shared memory took 106 registers (2 blocks of 256 per SM) and 12.22 ms
 * for 2^28 pairs. */
#include <cuda_runtime.h>

#include <gpuregress/gpu.h>
#include "radix_sort.h"
#include "radix_sort_common.cuh" /* rs_digit, rs_warp_match, rs_block_exclusive_scan, ... */

#define OS_HIST_THREADS 256 /* threads per block of the histogram kernel */
/* The pass kernel's shape, keys and pairs apart (a tile is threads x items keys). Overridable so
 * that a tuning build can try other shapes; the suite builds these. */
#ifndef OS_KEYS_THREADS
#define OS_KEYS_THREADS 384
#endif
#ifndef OS_KEYS_ITEMS
#define OS_KEYS_ITEMS 24
#endif
#ifndef OS_KEYS_MINB /* resident blocks per SM the keys kernel's registers allow */
#define OS_KEYS_MINB 2
#endif
#ifndef OS_PAIRS_THREADS
#define OS_PAIRS_THREADS 384
#endif
#ifndef OS_PAIRS_ITEMS
#define OS_PAIRS_ITEMS 24
#endif
#ifndef OS_PAIRS_MINB
#define OS_PAIRS_MINB 2
#endif
#define OS_KEYS_TILE (OS_KEYS_THREADS * OS_KEYS_ITEMS)
#define OS_PAIRS_TILE (OS_PAIRS_THREADS * OS_PAIRS_ITEMS)
/* dynamic shared memory of the pass kernel: the tile's keys, and its values for pairs */
#define OS_SMEM(pairs)                                                                             \
  ((pairs) ? (size_t)2 * OS_PAIRS_TILE * sizeof(uint32_t) : (size_t)OS_KEYS_TILE * sizeof(uint32_t))
#define OS_FLAG_COUNT (1u << 30)  /* look-back word: this tile's count */
#define OS_FLAG_PREFIX (2u << 30) /* look-back word: inclusive prefix */
#define OS_VALUE ((1u << 30) - 1) /* the count bits of a look-back word (n < 2^30) */
#define OS_HIST_BLOCKS_PER_SM 4

/* device helpers */

/* A look-back word, read from L2 (never a stale L1 copy). */
__device__ static inline uint32_t os_load_relaxed(const uint32_t *p)
{
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ static inline void os_store_relaxed(uint32_t *p, uint32_t v)
{
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Asynchronous copy of 16 bytes global -> shared (cp.async; both addresses 16-byte aligned),
 * zero-filled when !valid (src is then not read); the 16-byte rs_cp_async4. */
__device__ static inline void os_cp_async16(uint32_t *dst, const uint32_t *src, bool valid)
{
  unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
               "r"(valid ? 16 : 0)
               : "memory");
}

/* kernels */

/* hist[p * RADIX + d] += keys with digit d in byte p, over this block's share of the keys; the
 * block also clears its share of `clear` (clear_words words, a multiple of 4, 16-byte aligned). */
static __global__ __launch_bounds__(OS_HIST_THREADS) void os_histogram_kernel(
    const uint32_t *__restrict__ keys, int n, uint32_t *__restrict__ hist,
    uint32_t *__restrict__ clear, size_t clear_words)
{
  __shared__ uint32_t s_hist[RADIX_SORT_PASSES * RADIX_SORT_RADIX];
  int tid = threadIdx.x;
  size_t stride = (size_t)gridDim.x * OS_HIST_THREADS;
  size_t first = (size_t)blockIdx.x * OS_HIST_THREADS + tid;
  for (int i = tid; i < RADIX_SORT_PASSES * RADIX_SORT_RADIX; i += OS_HIST_THREADS)
    s_hist[i] = 0;
  uint4 *c4 = (uint4 *)clear;
  for (size_t q = first; q < clear_words / 4; q += stride)
    c4[q] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  size_t head = 0; /* keys before the first 16-byte boundary, counted one by one */
  if ((uintptr_t)keys & 15)
    head = (16 - ((uintptr_t)keys & 15)) / 4;
  if (head > (size_t)n)
    head = (size_t)n;
  const uint4 *k4 = (const uint4 *)(keys + head);
  size_t quads = ((size_t)n - head) / 4;
  for (size_t q = first; q < quads; q += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      size_t qu = q + u * stride;
      v[u] = qu < quads ? k4[qu] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      if (q + u * stride < quads) {
        uint32_t k[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
          for (int p = 0; p < RADIX_SORT_PASSES; p++)
            atomicAdd(&s_hist[p * RADIX_SORT_RADIX + rs_digit(k[j], p * RADIX_SORT_BITS)], 1u);
      }
    }
  }
  /* the head and the tail (at most 3 keys each) go to block 0 */
  if (blockIdx.x == 0 && tid < 6) {
    size_t i = tid < 3 ? (size_t)tid : head + quads * 4 + (size_t)(tid - 3);
    if ((tid < 3 && i < head) || (tid >= 3 && i < (size_t)n)) {
#pragma unroll
      for (int p = 0; p < RADIX_SORT_PASSES; p++)
        atomicAdd(&s_hist[p * RADIX_SORT_RADIX + rs_digit(keys[i], p * RADIX_SORT_BITS)], 1u);
    }
  }
  __syncthreads();
  for (int i = tid; i < RADIX_SORT_PASSES * RADIX_SORT_RADIX; i += OS_HIST_THREADS)
    if (s_hist[i])
      atomicAdd(&hist[i], s_hist[i]);
}

/* One digit pass: every block takes the next tile (counter), ranks it, publishes its digit counts
 * in row `tile` of `status` (look-back), and scatters its keys (and values when PAIRS) to their
 * output positions. hist: the up-front histogram of this digit (RADIX words). next: the look-back
 * rows of the next pass, whose row `tile` this block clears (NULL in the last pass). A tile is
 * THREADS x ITEMS keys; MINB blocks per SM cap the registers. */
template <bool PAIRS, int THREADS, int ITEMS, int MINB>
static __global__ __launch_bounds__(THREADS, MINB) void os_pass_kernel(
    const uint32_t *__restrict__ keys_in, const uint32_t *__restrict__ vals_in,
    uint32_t *__restrict__ keys_out, uint32_t *__restrict__ vals_out, int n, int shift,
    const uint32_t *__restrict__ hist, uint32_t *tile_counter, uint32_t *status,
    uint32_t *__restrict__ next)
{
  constexpr int WARPS = THREADS / 32, SLICE = 32 * ITEMS; /* a warp ranks a slice of the tile */
  constexpr int TILE = THREADS * ITEMS;
  static_assert(THREADS >= RADIX_SORT_RADIX && TILE < 65536, "tile shape (16-bit ranks)");
  extern __shared__ uint4 s_dynamic[];      /* OS_SMEM(PAIRS) bytes: */
  uint32_t *s_keys = (uint32_t *)s_dynamic; /* the tile in digit order (keys, then values) */
  uint32_t *s_vals = s_keys + TILE;      /* its values in input order (PAIRS) */
  __shared__ uint32_t s_counts[WARPS * RADIX_SORT_RADIX]; /* per warp and digit */
  __shared__ uint32_t s_base[RADIX_SORT_RADIX]; /* output position - tile position, per digit */
  __shared__ uint32_t s_warp[WARPS];
  __shared__ int s_tile;
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  bool digit_thread = tid < RADIX_SORT_RADIX; /* thread tid speaks for digit tid */
  uint32_t lanes_below = (1u << lane) - 1u;
  uint32_t *counts = s_counts + warp * RADIX_SORT_RADIX;

  if (tid == 0)
    s_tile = (int)atomicAdd(tile_counter, 1u);
#pragma unroll
  for (int d = lane; d < RADIX_SORT_RADIX; d += 32)
    counts[d] = 0;
  __syncthreads();
  int tile = s_tile;
  int tile_base = tile * TILE;
  int valid = min(TILE, n - tile_base);
  int slice = warp * SLICE + lane; /* this lane's tile position in round 0 */
  uint32_t *row = status + (size_t)tile * RADIX_SORT_RADIX;
  if (next && digit_thread)
    next[(size_t)tile * RADIX_SORT_RADIX + tid] = 0;

  uint32_t key[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; r++) /* padding is digit 255, ranks last, past `valid` */
    key[r] = slice + r * 32 < valid ? keys_in[tile_base + slice + r * 32] : 0xffffffffu;
  if (PAIRS) { /* the values wait in shared memory, no register holds them meanwhile */
    const uint32_t *src = vals_in + tile_base;
    if (valid == TILE && ((uintptr_t)src & 15) == 0) {
#pragma unroll
      for (int i = 4 * tid; i < TILE; i += 4 * THREADS)
        os_cp_async16(s_vals + i, src + i, true);
    } else {
      for (int i = tid; i < TILE; i += THREADS)
        rs_cp_async4(s_vals + i, src + (i < valid ? i : 0), i < valid);
    }
    rs_cp_async_commit();
  }

  /* rank within the warp's slice, 32 keys per round */
  uint32_t rank[(ITEMS + 1) / 2]; /* two 16-bit ranks (< SLICE) per register */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    uint32_t digit = rs_digit(key[r], shift);
    uint32_t peers = rs_warp_match(digit);
    uint32_t before = counts[digit];
    uint32_t my_rank = before + __popc(peers & lanes_below);
    rank[r / 2] = r % 2 ? rank[r / 2] | my_rank << 16 : my_rank;
    __syncwarp();
    if ((peers & lanes_below) == 0) /* the first lane holding this digit */
      counts[digit] = before + __popc(peers);
    __syncwarp();
  }
  __syncthreads();

  /* thread tid = digit: the tile's count (padding included, only in the last tile, whose
   * counts nobody reads), published at once; tile 0 publishes the inclusive prefix, seeded with
   * where the digit starts in the output */
  uint32_t count = 0;
#pragma unroll
  for (int w = 0; w < WARPS; w++)
    count += digit_thread ? s_counts[w * RADIX_SORT_RADIX + tid] : 0;
  uint32_t prefix = 0, all;
  if (tile == 0) {
    prefix = rs_block_exclusive_scan<WARPS>(digit_thread ? hist[tid] : 0, s_warp, &all);
    if (digit_thread)
      os_store_relaxed(row + tid, OS_FLAG_PREFIX | (prefix + count));
  } else if (digit_thread) {
    os_store_relaxed(row + tid, OS_FLAG_COUNT | count);
  }
  /* tile position of the digit */
  uint32_t start = rs_block_exclusive_scan<WARPS>(count, s_warp, &all);
  uint32_t run = start;
#pragma unroll
  for (int w = 0; w < WARPS; w++) {
    if (digit_thread) {
      uint32_t c = s_counts[w * RADIX_SORT_RADIX + tid];
      s_counts[w * RADIX_SORT_RADIX + tid] = run;
      run += c;
    }
  }
  __syncthreads();

  /* the tile's keys in digit order; rank becomes the tile position */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    uint32_t half = (rank[r / 2] >> (16 * (r % 2))) & 0xffffu;
    uint32_t pos = counts[rs_digit(key[r], shift)] + half;
    rank[r / 2] += (pos - half) << (16 * (r % 2));
    s_keys[pos] = key[r];
  }

  /* look back: sum the counts of earlier tiles until an inclusive prefix */
  if (tile > 0 && digit_thread) {
    const uint32_t *p = row;
    for (;;) {
      p -= RADIX_SORT_RADIX;
      uint32_t w;
      do
        w = os_load_relaxed(p + tid);
      while ((w & ~OS_VALUE) == 0);
      prefix += w & OS_VALUE;
      if (w & OS_FLAG_PREFIX)
        break;
    }
    os_store_relaxed(row + tid, OS_FLAG_PREFIX | (prefix + count));
  }
  if (digit_thread)
    s_base[tid] = prefix - start;
  __syncthreads();

  /* out, in runs of equal digits */
  uint32_t out[PAIRS ? ITEMS : 1]; /* output position of tile position tid + r * THREADS */
#pragma unroll
  for (int r = 0; r < ITEMS; r++) {
    int i = tid + r * THREADS;
    if (i < valid) {
      uint32_t k = s_keys[i];
      uint32_t g = s_base[rs_digit(k, shift)] + (uint32_t)i;
      keys_out[g] = k;
      if (PAIRS)
        out[r] = g;
    }
  }
  if (PAIRS) { /* the values take the keys' way through s_keys */
    rs_cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; r++)
      s_keys[(rank[r / 2] >> (16 * (r % 2))) & 0xffffu] = s_vals[slice + r * 32];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; r++) {
      int i = tid + r * THREADS;
      if (i < valid)
        vals_out[out[r]] = s_keys[i];
    }
  }
}

/* launcher */

/* The scratch: alternate keys (and values), the histograms and tile counters, two sets of
 * look-back rows. Offsets in bytes. */
struct os_plan {
  int ntiles;
  size_t keys_alt, vals_alt, hist, counters, status[2], status_bytes, bytes;
};

static size_t os_align(size_t x)
{
  return (x + 255) & ~(size_t)255;
}

static void os_plan_make(int n, int pairs, struct os_plan *p)
{
  size_t data = os_align((size_t)n * sizeof(uint32_t));
  const size_t tile = pairs ? OS_PAIRS_TILE : OS_KEYS_TILE;
  p->ntiles = (int)(((size_t)n + tile - 1) / tile);
  p->keys_alt = 0;
  p->vals_alt = data;
  p->hist = data * (pairs ? 2 : 1);
  p->counters = p->hist + RADIX_SORT_PASSES * RADIX_SORT_RADIX * sizeof(uint32_t);
  p->status_bytes = os_align((size_t)p->ntiles * RADIX_SORT_RADIX * sizeof(uint32_t));
  p->status[0] = p->counters + os_align(RADIX_SORT_PASSES * sizeof(uint32_t));
  p->status[1] = p->status[0] + p->status_bytes;
  p->bytes = p->status[1] + p->status_bytes;
}

static inline void os_trace_record(int slot, cudaStream_t stream)
{
  if (radix_sort_trace)
    GR_CUDA_CHECK(cudaEventRecord(((cudaEvent_t *)radix_sort_trace)[slot], stream));
}

extern "C" int radix_sort_v4_onesweep_launch(void *d_temp, size_t *temp_bytes,
                                             const uint32_t *keys_in, uint32_t *keys_out,
                                             const uint32_t *vals_in, uint32_t *vals_out, int n,
                                             void *stream)
{
  static int sm_count; /* one device per process */
  static int ready[2]; /* the pass kernel's dynamic shared memory limit is raised */
  int pairs = vals_in != NULL;
  void (*pass_kernel)(const uint32_t *, const uint32_t *, uint32_t *, uint32_t *, int, int,
                      const uint32_t *, uint32_t *, uint32_t *, uint32_t *) =
      pairs ? os_pass_kernel<true, OS_PAIRS_THREADS, OS_PAIRS_ITEMS, OS_PAIRS_MINB>
            : os_pass_kernel<false, OS_KEYS_THREADS, OS_KEYS_ITEMS, OS_KEYS_MINB>;
  const int threads = pairs ? OS_PAIRS_THREADS : OS_KEYS_THREADS;
  struct os_plan p;
  os_plan_make(n, pairs, &p);
  if (!d_temp) {
    *temp_bytes = p.bytes;
    return 0;
  }
  if (n <= 0)
    return 0;
  if (!sm_count) {
    int dev;
    GR_CUDA_CHECK(cudaGetDevice(&dev));
    GR_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
  }
  if (!ready[pairs]) {
    GR_CUDA_CHECK(cudaFuncSetAttribute((const void *)pass_kernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)OS_SMEM(pairs)));
    ready[pairs] = 1;
  }
  cudaStream_t s = (cudaStream_t)stream;
  char *t = (char *)d_temp;
  uint32_t *keys_alt = (uint32_t *)(t + p.keys_alt), *vals_alt = (uint32_t *)(t + p.vals_alt);
  uint32_t *hist = (uint32_t *)(t + p.hist), *counters = (uint32_t *)(t + p.counters);
  uint32_t *status[2] = {(uint32_t *)(t + p.status[0]), (uint32_t *)(t + p.status[1])};
  os_trace_record(0, s);
  GR_CUDA_CHECK(cudaMemsetAsync(hist, 0, p.status[0] - p.hist, s));
  os_histogram_kernel<<<sm_count * OS_HIST_BLOCKS_PER_SM, OS_HIST_THREADS, 0, s>>>(
      keys_in, n, hist, status[0], p.status_bytes / sizeof(uint32_t));
  GR_CUDA_LAUNCH_CHECK();
  for (int pass = 0; pass < RADIX_SORT_PASSES; pass++) {
    /* in -> alt, alt -> out, out -> alt, alt -> out */
    const uint32_t *src_k = pass == 0 ? keys_in : pass % 2 ? keys_alt : keys_out;
    const uint32_t *src_v = pass == 0 ? vals_in : pass % 2 ? vals_alt : vals_out;
    uint32_t *dst_k = pass % 2 ? keys_out : keys_alt;
    uint32_t *dst_v = pass % 2 ? vals_out : vals_alt;
    uint32_t *next = pass + 1 < RADIX_SORT_PASSES ? status[(pass + 1) % 2] : NULL;
    /* trace: the up-front histogram stands in pass 0's histogram slot; no scan kernel */
    os_trace_record(1 + 3 * pass, s);
    os_trace_record(2 + 3 * pass, s);
    pass_kernel<<<p.ntiles, threads, OS_SMEM(pairs), s>>>(
        src_k, pairs ? src_v : NULL, dst_k, pairs ? dst_v : NULL, n, pass * RADIX_SORT_BITS,
        hist + pass * RADIX_SORT_RADIX, counters + pass, status[pass % 2], next);
    GR_CUDA_LAUNCH_CHECK();
    os_trace_record(3 + 3 * pass, s);
  }
  return 0;
}
