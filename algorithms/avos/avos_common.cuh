/* Device code shared by the AVOS variants: the product over the semiring, the row-private hash
 * tables, and the elementwise and CSR x CSR kernels as templates over an `Ops` class. Each variant
 * file defines its Ops (its avos_sum, its MSB helper, and whether rows too wide for a warp's table
 * fall back to a block and then to global memory) and instantiates avos_launch_common<Ops>. So
 * the historical variants that differ from the fixed one in a helper differ in that helper only:
 * `diff v1_unsigned_sum.cu v2_warp_hash.cu` shows the bug.
 *
 *   struct Ops {
 *     template <typename T> static __device__ T sum(T x, T y);   // avos_sum
 *     template <typename T> static __device__ int msb(T x);      // floor(log2 x), 0 for x <= 1
 *     static constexpr bool fallback;  // rows beyond a warp's table go to a block / global table
 *     static constexpr bool thread_rows;  // the thread tier below first (v2_warp_hash only)
 *   };
 *
 * Product kernels, tiers (fallback = true), each handing the rows it cannot hold to the next
 * through a device-side list (no host round trip):
 *   thread (thread_rows) a thread per row whose upper bound (S entries plus product terms) is at
 *          most AVOS_THREAD_TERMS: the row's distinct columns kept sorted in registers, each term
 *          merged by an unrolled compare-and-shift (no table, no atomics, no ranking: the row
 *          leaves in column order); wider rows are listed for the group tier. Most rows of a
 *          genealogy product are a few terms wide, where the group tier spent ~200 warp
 *          instructions a row on clearing, probing and ranking a table.
 *   group  8 lanes per row (4 rows a warp), then a whole warp per row: a row-private table of 8
 *          slots a lane (64, then AVOS_WARP_SLOTS = 256) in shared memory, sized from the row's
 *          upper bound (symbolic) or its exact count (numeric) at <= 50% load
 *   block  rows whose bound exceeds a warp's table: a block per row (persistent over a list) with
 *          a table of AVOS_BLOCK_SLOTS slots (2048 with split rows) in shared memory; the symbolic
 *          step gives a row up when it finds more than half as many distinct columns and lists it
 *          for:
 *   global a block per row with its table in global scratch, sized for the row.
 * With fallback = false the warp tier keeps every row it gets in its table capped at
 * AVOS_WARP_SLOTS: what does not fit is dropped (v1_hash_full_drop).
 *
 * Accumulation: a slot's value starts at 0, the identity of avos_sum, and each contribution is
 * folded in with a compare-and-swap loop applying Ops::sum: exact for any order of arrival. Keys
 * and values of all integer types live in 32-bit keys and 64-bit (sign-extended) values.
 *
 * Robustness: a column read from A is checked against B's rows before it indexes B, and every
 * write into C is checked against c_ptr, so a historical variant's garbage in one closure step
 * cannot make the next one touch memory out of bounds. */
#pragma once

#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "avos.h"
#include <gpuregress/gpu.h>

#define AVOS_EMPTY (-1)
#define AVOS_FULL_MASK 0xffffffffu
#define AVOS_GT 128           /* threads of a group-tier block */
#define AVOS_TINY_G 8         /* lanes per row in the first tier (64-slot tables) */
#define AVOS_WARP_SLOTS 256   /* slots of a warp's table (8 per lane) */
#define AVOS_BT 256           /* threads of a block-tier / global-tier block */
#define AVOS_BLOCK_SLOTS 4096 /* slots of a block's shared table */
#define AVOS_EW_THREADS 256   /* elementwise block */
#define AVOS_THREAD_TERMS 16  /* widest upper bound the thread tier takes (registers a row) */
#define AVOS_TT 128           /* threads of a thread-tier block */
#define AVOS_SPLIT_GROUP_TERMS 64 /* split rows, numeric: most terms an 8-lane group takes */
#define AVOS_SPLIT_WARP_TERMS 512 /* ... a warp takes; more go to a block */

/* helpers */

template <typename T> struct avos_traits;
template <> struct avos_traits<int8_t> {
  typedef uint8_t ut;
  enum { bits = 8 };
};
template <> struct avos_traits<int16_t> {
  typedef uint16_t ut;
  enum { bits = 16 };
};
template <> struct avos_traits<int32_t> {
  typedef uint32_t ut;
  enum { bits = 32 };
};
template <> struct avos_traits<int64_t> {
  typedef uint64_t ut;
  enum { bits = 64 };
};

/* Whether Ops asks for the split-row tiers (v3_split_rows: Ops::split_rows = true); false for an
 * Ops without the flag. With it: the block tiers place a row's terms on the lanes a warp window
 * at a time (avos_block_products_window) instead of a binary search a term; the numeric step
 * routes rows by their terms as well as their count (a row of few columns but thousands of terms
 * goes to a block, not one warp); persistent grids fill the SMs; and a slot's value is folded
 * with atomicMin, the slot starting at LLONG_MAX (Ops::sum must then be the signed minimum of
 * non-zero values, as avos_sum is). */
template <class O, class = void> struct avos_split {
  static constexpr bool value = false;
};
template <class O> struct avos_split<O, decltype((void)O::split_rows)> {
  static constexpr bool value = O::split_rows;
};

/* avos_product_notes (below) with the special cases decided by the right operand first, as
 * selects (split rows, v3_split_rows: the design notes' chain of eight tests took about 40
 * instructions a term in the fused block kernel, ncu, H200, stop 47). Equal to
 * avos_product_notes for every pair:
 * rhs = RED_ONE (-1): -1 for lhs = -1, else 0 for odd lhs (1 included), lhs for even;
 * rhs = BLACK_ONE (1): 0 for lhs = -1, else lhs for odd lhs (1 included), 0 for even;
 * any other rhs: lhs = -1 counts as 1, then the shift with its overflow test. */
template <class Ops, typename T>
__device__ __forceinline__ T avos_product_split(T lhs, T rhs, int *overflow)
{
  typedef typename avos_traits<T>::ut UT;
  if (lhs == 0 || rhs == 0)
    return 0;
  if (rhs == (T)-1)
    return lhs == (T)-1 ? (T)-1 : (lhs & 1) ? (T)0 : lhs;
  if (rhs == (T)1)
    return lhs != (T)-1 && (lhs & 1) ? lhs : (T)0;
  const UT x = lhs == (T)-1 ? (UT)1 : (UT)lhs, y = (UT)rhs;
  const int bit_position = Ops::template msb<T>(rhs);
  if (Ops::template msb<T>((T)x) + bit_position >= (int)avos_traits<T>::bits - 1) {
    *overflow = 1;
    return 0;
  }
  const UT mask = (UT)(((UT)1 << bit_position) - 1);
  return (T)((y & mask) | (UT)(x << bit_position));
}

/* avos_product (doc/algorithms.md), the shape of the original design notes, with overflow reported:
 * *overflow = 1 and 0 returned when MSB(x) + MSB(y) >= bits - 1. */
template <class Ops, typename T>
__device__ __forceinline__ T avos_product_notes(T lhs, T rhs, int *overflow)
{
  typedef typename avos_traits<T>::ut UT;
  UT x = (UT)lhs;
  UT y = (UT)rhs;
  if (x == 0 || y == 0)
    return 0;
  const T RED_ONE = (T)-1;
  const T BLACK_ONE = (T)1;
  if (lhs == RED_ONE && rhs == RED_ONE)
    return RED_ONE;
  if (lhs == BLACK_ONE && rhs == BLACK_ONE)
    return BLACK_ONE;
  if (lhs == RED_ONE && rhs == BLACK_ONE)
    return 0;
  if (lhs == BLACK_ONE && rhs == RED_ONE)
    return 0;
  if (lhs == RED_ONE)
    x = 1;
  if (rhs == RED_ONE)
    return (lhs & 1) ? (T)0 : (T)x;
  if (rhs == BLACK_ONE)
    return (lhs & 1) ? (T)x : (T)0;
  int bit_position = Ops::template msb<T>(rhs);
  if (Ops::template msb<T>((T)x) + bit_position >= (int)avos_traits<T>::bits - 1) {
    *overflow = 1;
    return 0;
  }
  UT mask = (UT)(((UT)1 << bit_position) - 1);
  return (T)((y & mask) | (UT)(x << bit_position));
}

/* The product of the matrix kernels: avos_product_split with split rows, else the notes' shape.
 * The elementwise kernel keeps the notes' shape for every variant: there the selects made
 * v3_split_rows' int32 product of 2^26 elements 6% slower than v2's (0.239 against 0.225 ms,
 * H200, stop 47), where in the fused block tier they saved instructions. */
template <class Ops, typename T>
__device__ __forceinline__ T avos_product(T lhs, T rhs, int *overflow)
{
  if constexpr (avos_split<Ops>::value)
    return avos_product_split<Ops, T>(lhs, rhs, overflow);
  else
    return avos_product_notes<Ops, T>(lhs, rhs, overflow);
}

__device__ __forceinline__ unsigned avos_pow2_at_least(unsigned long long x)
{
  unsigned p = 1;
  while (p < x && p < 0x80000000u)
    p <<= 1;
  return p;
}

/* Table slots for a row of at most `entries` distinct columns: load <= 50%, at least `floor`,
 * at most `cap` (a row beyond cap/2 entries overflows a capped table). */
__device__ __forceinline__ unsigned avos_slots(long long entries, unsigned floor, unsigned cap)
{
  unsigned s = avos_pow2_at_least(2ull * (unsigned long long)entries);
  return s < floor ? floor : s > cap ? cap : s;
}

__device__ __forceinline__ unsigned avos_hash(int key, unsigned mask)
{
  return ((unsigned)key * 2654435761u) & mask;
}

/* Insert key into an open-addressing table of mask+1 slots (shared or global): its slot, with
 * *is_new saying whether this call put it there; -1 with *is_new = false when the table is full
 * (the original design's hash_insert answers "not new" there, and the entry is dropped). */
__device__ __forceinline__ int avos_hash_insert(int *keys, unsigned mask, int key, bool *is_new)
{
  unsigned slot = avos_hash(key, mask);
  for (unsigned i = 0; i <= mask; i++) {
    unsigned probe = (slot + i) & mask;
    int cur = ((volatile int *)keys)[probe];
    if (cur == key) {
      *is_new = false;
      return (int)probe;
    }
    if (cur != AVOS_EMPTY)
      continue;
    int old = atomicCAS(&keys[probe], AVOS_EMPTY, key);
    if (old == AVOS_EMPTY) {
      *is_new = true;
      return (int)probe;
    }
    if (old == key) {
      *is_new = false;
      return (int)probe;
    }
  }
  *is_new = false;
  return -1;
}

/* Slots of a block tier's table: rows of more than half as many columns go to the global tier.
 * Split rows halve it, so that the numeric block tier's tables (36 KB a block) let 5 blocks share
 * an SM where v2's (72 KB) let 2: its rows are latency-bound. */
#define AVOS_SPLIT_BLOCK_SLOTS 2048
template <class Ops> __host__ __device__ constexpr int avos_block_slots(void)
{
  return avos_split<Ops>::value ? AVOS_SPLIT_BLOCK_SLOTS : AVOS_BLOCK_SLOTS;
}
template <class Ops> constexpr size_t avos_block_numeric_smem(void) /* keys, values, staging */
{
  return (size_t)avos_block_slots<Ops>() * 12 + (size_t)avos_block_slots<Ops>() / 2 * 12;
}

/* An empty slot's value: the identity of the fold (0 for avos_sum, LLONG_MAX for atomicMin). */
template <class Ops> __device__ __forceinline__ unsigned long long avos_empty_value(void)
{
  return avos_split<Ops>::value ? (unsigned long long)LLONG_MAX : 0ull;
}

/* *slot = Ops::sum(*slot, v), atomically (compare-and-swap on the sign-extended 64-bit value; with
 * split rows one atomicMin). */
template <class Ops, typename T>
__device__ __forceinline__ void avos_accumulate(unsigned long long *slot, T v)
{
  if constexpr (avos_split<Ops>::value) {
    if (*(volatile long long *)slot > (long long)v) /* most terms change nothing: no atomic */
      atomicMin((long long *)slot, (long long)v);
    return;
  }
  unsigned long long old = *(volatile unsigned long long *)slot;
  for (;;) {
    T cur = (T)(long long)old;
    T nv = Ops::template sum<T>(cur, v);
    if (nv == cur)
      return; /* sums are idempotent and only move one way: v would change nothing later */
    unsigned long long prev = atomicCAS(slot, old, (unsigned long long)(long long)nv);
    if (prev == old)
      return;
    old = prev;
  }
}

/* Lanes of a group of G (8 or 32) consecutive lanes, G dividing 32. */
template <int G> __device__ __forceinline__ unsigned avos_group_mask(void)
{
  const unsigned ones = G >= 32 ? AVOS_FULL_MASK : (1u << (G & 31)) - 1u;
  return ones << ((threadIdx.x & 31) & ~(unsigned)(G - 1));
}

/* T through a shuffle within a group of width G (src relative to the group) */
template <typename T, int G> __device__ __forceinline__ T avos_gshfl(unsigned mask, T v, int src)
{
  if (sizeof(T) == 8)
    return (T)__shfl_sync(mask, (long long)v, src, G);
  return (T)__shfl_sync(mask, (int)v, src, G);
}

template <int G> __device__ __forceinline__ long long avos_group_sum_ll(unsigned gmask, long long v)
{
  for (int off = G / 2; off > 0; off >>= 1)
    v += __shfl_xor_sync(gmask, v, off, G);
  return v;
}

/* A's entry aj of a row ending at aend (aval: A's values): its value, the start of its B row and
 * that row's length (0 terms for an entry past the row, a zero value or a column outside B). */
template <typename T>
__device__ __forceinline__ void avos_a_entry(const struct avos_args &a, const T *aval, int aj,
                                             int aend, T *av, int *bb, int *len)
{
  int n = 0, b = 0;
  T v = 0;
  if (aj < aend) {
    v = aval[aj];
    int k = a.a_idx[aj];
    if (v != 0 && (unsigned)k < (unsigned)a.inner) {
      b = a.b_ptr[k];
      n = a.b_ptr[k + 1] - b;
    }
  }
  *av = v;
  *bb = b;
  *len = n;
}

/* Calls f(col, a, b) for every stored product term A_row,k (x) B_k,col with a, b != 0, a group of
 * G lanes cooperating: the row of A is taken G entries at a time, their B rows laid end to end
 * and split evenly over the lanes (each lane finds its A entry by binary search over the lanes'
 * offsets). gl: the lane's index in its group. Returns the number of terms (the row's upper
 * bound), in every lane of the group. */
template <typename T, int G, class F>
__device__ __forceinline__ long long avos_group_products(const struct avos_args &a, int row, int gl,
                                                         unsigned gmask, F f)
{
  const T *aval = (const T *)a.a_val, *bval = (const T *)a.b_val;
  int abeg = a.a_ptr[row], aend = a.a_ptr[row + 1];
  long long all = 0;
  for (int a0 = abeg; a0 < aend; a0 += G) {
    int len, bb;
    T av;
    avos_a_entry(a, aval, a0 + gl, aend, &av, &bb, &len);
    int incl = len;
    for (int d = 1; d < G; d <<= 1) {
      int t = __shfl_up_sync(gmask, incl, d, G);
      if (gl >= d)
        incl += t;
    }
    int total = __shfl_sync(gmask, incl, G - 1, G);
    int excl = incl - len;
    all += total;
    for (int base = 0; base < total; base += G) {
      int p = base + gl, o = 0;
#pragma unroll
      for (int step = G / 2; step > 0; step >>= 1) {
        int e = __shfl_sync(gmask, excl, o + step, G);
        if (e <= p)
          o += step;
      }
      int o_bb = __shfl_sync(gmask, bb, o, G);
      int o_excl = __shfl_sync(gmask, excl, o, G);
      T o_av = avos_gshfl<T, G>(gmask, av, o);
      if (p < total) {
        int q = o_bb + (p - o_excl);
        T bv = bval[q];
        if (bv != 0)
          f(a.b_idx[q], o_av, bv);
      }
    }
  }
  return all;
}

/* Upper bound of a row's distinct columns: its S entries plus its product terms, in every lane
 * of the group; exact up to `limit`, and some value above `limit` once the partial sum passes it
 * (the row is then too wide for the tier asking, which needs no more). */
template <typename T, int G>
__device__ __forceinline__ long long avos_group_upper_bound(const struct avos_args &a, int row,
                                                            int gl, unsigned gmask, long long limit)
{
  const T *aval = (const T *)a.a_val;
  long long ub = a.s_ptr ? a.s_ptr[row + 1] - a.s_ptr[row] : 0;
  int abeg = a.a_ptr[row], aend = a.a_ptr[row + 1];
  for (int a0 = abeg; a0 < aend && ub <= limit; a0 += G) {
    long long part = 0;
    int p = a0 + gl;
    if (p < aend) {
      int k = a.a_idx[p];
      if (aval[p] != 0 && (unsigned)k < (unsigned)a.inner)
        part = a.b_ptr[k + 1] - a.b_ptr[k];
    }
    ub += avos_group_sum_ll<G>(gmask, part);
  }
  return ub;
}

/* One chunk of AVOS_BT entries of A's row (from a0, the row ending at aend) for the block tiers:
 * entry a0 + threadIdx.x's value, the start of its B row and that row's exclusive offset among
 * the chunk's terms into s_av, s_bb and s_excl (0 terms for an entry past the row, a zero value or
 * a column outside B). Returns the chunk's terms, in every thread; the caller synchronises before
 * reading the arrays. Must be called by the whole block. */
template <typename T>
__device__ __forceinline__ int
avos_block_chunk(const struct avos_args &a, int a0, int aend, int *s_excl, int *s_bb, T *s_av,
                 typename cub::BlockScan<int, AVOS_BT>::TempStorage &scan_tmp)
{
  const T *aval = (const T *)a.a_val;
  int len, bb;
  T av;
  avos_a_entry(a, aval, a0 + (int)threadIdx.x, aend, &av, &bb, &len);
  int excl, total;
  cub::BlockScan<int, AVOS_BT>(scan_tmp).ExclusiveSum(len, excl, total);
  s_excl[threadIdx.x] = excl;
  s_bb[threadIdx.x] = bb;
  s_av[threadIdx.x] = av;
  return total;
}

/* The block version of avos_group_products (NT threads): A's row taken NT entries at a time,
 * offsets from a block scan. Stops early (between terms) once *stop is set. Returns the number
 * of terms, in every thread. Must be called by the whole block. */
template <typename T, class F>
__device__ __forceinline__ long long avos_block_products(const struct avos_args &a, int row, F f,
                                                         volatile int *stop)
{
  typedef cub::BlockScan<int, AVOS_BT> scan_t;
  __shared__ typename scan_t::TempStorage scan_tmp;
  __shared__ int s_excl[AVOS_BT], s_bb[AVOS_BT];
  __shared__ T s_av[AVOS_BT];
  const T *bval = (const T *)a.b_val;
  int abeg = a.a_ptr[row], aend = a.a_ptr[row + 1];
  long long all = 0;
  for (int a0 = abeg; a0 < aend; a0 += AVOS_BT) {
    const int total = avos_block_chunk<T>(a, a0, aend, s_excl, s_bb, s_av, scan_tmp);
    __syncthreads();
    all += total;
    for (int p = (int)threadIdx.x; p < total; p += AVOS_BT) {
      if (stop && *stop)
        break;
      int lo = 0, hi = AVOS_BT - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (s_excl[mid] <= p)
          lo = mid;
        else
          hi = mid - 1;
      }
      int q = s_bb[lo] + (p - s_excl[lo]);
      T bv = bval[q];
      if (bv != 0)
        f(a.b_idx[q], s_av[lo], bv);
    }
    __syncthreads(); /* s_excl and scan_tmp are reused by the next chunk */
  }
  return all;
}

/* avos_block_products for split rows: the same chunks of AVOS_BT entries of A and the same scan of
 * their B rows' lengths, but a warp places 32 consecutive terms at once instead of each thread
 * searching 256 offsets for each of its terms (8 dependent shared loads a term, 29% of v2's
 * numeric block tier's stall samples): a ballot over 32 entries at a time, from the entry of the
 * warp's previous window, finds the entry of the window's first term (a binary search over the
 * chunk there was 26% of the fused block kernel's instructions: ncu, H200, stop 47), each lane
 * reads one entry's start from there, the starts inside the window become bits of one
 * word (__reduce_or_sync), and a lane's entry is the one whose start is the highest bit at or
 * below its own position. Stops between windows once *stop is set. Returns the row's number of
 * terms, in every thread. Must be called by the whole block. */
template <typename T, class F>
__device__ __forceinline__ long long avos_block_products_window(const struct avos_args &a, int row,
                                                                F f, volatile int *stop)
{
  typedef cub::BlockScan<int, AVOS_BT> scan_t;
  __shared__ typename scan_t::TempStorage scan_tmp;
  __shared__ int s_excl[AVOS_BT + 1], s_bb[AVOS_BT]; /* s_excl[AVOS_BT]: the chunk's total */
  __shared__ T s_av[AVOS_BT];
  __shared__ unsigned char s_own[AVOS_BT / 32][32]; /* a window's position -> its entry */
  const T *bval = (const T *)a.b_val;
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x & 31;
  int abeg = a.a_ptr[row], aend = a.a_ptr[row + 1];
  long long all = 0;
  for (int a0 = abeg; a0 < aend; a0 += AVOS_BT) {
    const int total = avos_block_chunk<T>(a, a0, aend, s_excl, s_bb, s_av, scan_tmp);
    if (threadIdx.x == 0)
      s_excl[AVOS_BT] = total;
    __syncthreads();
    all += total;
    int lo = 0; /* the last entry starting at or before base: it holds base */
    for (int base = warp * 32; base < total; base += AVOS_BT) {
      if (stop && __any_sync(AVOS_FULL_MASK, *stop)) /* the whole warp leaves or none */
        break;
      /* found from the previous window's entry (base only grows; s_excl[0] = 0), 32 entries a
       * ballot: the starts at or before base are a prefix of them, as s_excl never decreases */
      for (;;) {
        const int e = lo + lane;
        const unsigned le = __ballot_sync(AVOS_FULL_MASK, e < AVOS_BT && s_excl[e] <= base);
        lo += __popc(le) - 1;
        if (le != AVOS_FULL_MASK)
          break;
      }
      const int j = lo + lane;
      unsigned bit = 0;
      if (lane == 0) {
        bit = 1u;
        s_own[warp][0] = (unsigned char)lo;
      } else if (j < AVOS_BT) {
        int d = s_excl[j] - base;
        if (d < 32 && s_excl[j + 1] > s_excl[j]) { /* starts in the window, not empty */
          bit = 1u << d;
          s_own[warp][d] = (unsigned char)j;
        }
      }
      const unsigned starts = __reduce_or_sync(AVOS_FULL_MASK, bit);
      __syncwarp();
      const int o = s_own[warp][31 - __clz(starts & (AVOS_FULL_MASK >> (31 - lane)))];
      const int p = base + lane;
      if (p < total) {
        int q = s_bb[o] + (p - s_excl[o]);
        T bv = bval[q];
        if (bv != 0)
          f(a.b_idx[q], s_av[o], bv);
      }
      __syncwarp(); /* s_own is the next window's */
    }
    __syncthreads(); /* the chunk's arrays and scan_tmp are the next chunk's */
  }
  return all;
}

__device__ __forceinline__ void avos_note_cycle(const struct avos_args &a, int row, int col,
                                                long long v)
{
  if (col == row && (v < -1 || v > 1))
    atomicMin(&a.stats->cycle_vertex, (unsigned long long)row);
}

/* kernels */

/* Elementwise sum, 16 bytes per thread and step (a scalar tail). */
template <class Ops, typename T>
static __global__ void avos_sum_kernel(const T *__restrict__ x, const T *__restrict__ y,
                                       T *__restrict__ out, long long n)
{
  const int V = 16 / (int)sizeof(T);
  long long nvec = n / V, stride = (long long)gridDim.x * blockDim.x;
  long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long i = tid; i < nvec; i += stride) {
    uint4 va = ((const uint4 *)x)[i], vb = ((const uint4 *)y)[i], vc;
    const T *pa = (const T *)&va, *pb = (const T *)&vb;
    T *pc = (T *)&vc;
#pragma unroll
    for (int k = 0; k < V; k++)
      pc[k] = Ops::template sum<T>(pa[k], pb[k]);
    ((uint4 *)out)[i] = vc;
  }
  for (long long i = nvec * V + tid; i < n; i += stride)
    out[i] = Ops::template sum<T>(x[i], y[i]);
}

/* Elementwise product; an overflowing element is 0, counted, and its index kept if smallest. */
template <class Ops, typename T>
static __global__ void avos_product_kernel(const T *__restrict__ x, const T *__restrict__ y,
                                           T *__restrict__ out, long long n,
                                           struct avos_dev_stats *stats)
{
  const int V = 16 / (int)sizeof(T);
  long long nvec = n / V, stride = (long long)gridDim.x * blockDim.x;
  long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ovf = 0;
  unsigned long long first = AVOS_NONE;
  for (long long i = tid; i < nvec; i += stride) {
    uint4 va = ((const uint4 *)x)[i], vb = ((const uint4 *)y)[i], vc;
    const T *pa = (const T *)&va, *pb = (const T *)&vb;
    T *pc = (T *)&vc;
#pragma unroll
    for (int k = 0; k < V; k++) {
      int o = 0;
      pc[k] = avos_product_notes<Ops, T>(pa[k], pb[k], &o);
      if (o) {
        ovf++;
        unsigned long long at = (unsigned long long)(i * V + k);
        first = at < first ? at : first;
      }
    }
    ((uint4 *)out)[i] = vc;
  }
  for (long long i = nvec * V + tid; i < n; i += stride) {
    int o = 0;
    out[i] = avos_product_notes<Ops, T>(x[i], y[i], &o);
    if (o) {
      ovf++;
      first = (unsigned long long)i < first ? (unsigned long long)i : first;
    }
  }
  ovf = __reduce_add_sync(AVOS_FULL_MASK, ovf);
  for (int off = 16; off > 0; off >>= 1) {
    unsigned long long o = __shfl_xor_sync(AVOS_FULL_MASK, first, off);
    first = o < first ? o : first;
  }
  if ((threadIdx.x & 31) == 0 && ovf) {
    atomicAdd(&stats->overflow, (unsigned long long)ovf);
    atomicMin(&stats->first_overflow, first);
  }
}

/* A row's upper bound for the thread tier: its S entries plus its product terms (the B rows of
 * A's non-zero entries with a valid column), as avos_group_upper_bound counts them; stops
 * counting once past `limit`. */
template <typename T>
__device__ __forceinline__ long long avos_thread_upper_bound(const struct avos_args &a, int row,
                                                             long long limit)
{
  const T *aval = (const T *)a.a_val;
  long long ub = a.s_ptr ? a.s_ptr[row + 1] - a.s_ptr[row] : 0;
  const int aend = a.a_ptr[row + 1];
  for (int p = a.a_ptr[row]; p < aend && ub <= limit; p++) {
    int k = a.a_idx[p];
    if (aval[p] != 0 && (unsigned)k < (unsigned)a.inner)
      ub += a.b_ptr[k + 1] - a.b_ptr[k];
  }
  return ub;
}

/* Merge column col (value v, when VALS) into a sorted register list: cols ascending, the unused
 * tail at INT_MAX. An equal column folds v in with Ops::sum; a new one is inserted in place (the
 * list never overflows: the row's upper bound is at most N). Every index is a constant. */
template <class Ops, typename T, int N, bool VALS>
__device__ __forceinline__ void avos_list_merge(int (&cols)[N], T (&vals)[N], int col, T v)
{
  bool found = false;
#pragma unroll
  for (int j = 0; j < N; j++)
    if (cols[j] == col) {
      if (VALS)
        vals[j] = Ops::template sum<T>(vals[j], v);
      found = true;
    }
  if (found)
    return;
#pragma unroll
  for (int j = N - 1; j > 0; j--) { /* reads cols[j - 1] and cols[j] before either changes */
    const bool shift = cols[j - 1] > col, place = !shift && cols[j] > col;
    if (VALS)
      vals[j] = shift ? vals[j - 1] : place ? v : vals[j];
    cols[j] = shift ? cols[j - 1] : place ? col : cols[j];
  }
  if (cols[0] > col) {
    cols[0] = col;
    if (VALS)
      vals[0] = v;
  }
}

/* Thread tier, both steps: a thread per row (the grid covers every row). Rows whose upper bound
 * exceeds AVOS_THREAD_TERMS are left to the group tier: the symbolic step lists them in
 * group_list (warp-aggregated append), the numeric step skips them (the same bound picks the same
 * rows). SYMBOLIC: counts[row] = the row's distinct columns with a non-zero term. NUMERIC: the
 * row's entries, sorted by column, into C at c_ptr[row]; overflowed terms counted, cycles noted,
 * as the group tier does. */
template <class Ops, typename T, bool NUMERIC>
static __global__ void __launch_bounds__(AVOS_TT)
    avos_thread_rows_kernel(const struct avos_args a, int *group_list, unsigned *n_group)
{
  constexpr int N = AVOS_THREAD_TERMS;
  const int row = (int)(blockIdx.x * AVOS_TT + threadIdx.x);
  const int lane = threadIdx.x & 31;
  unsigned ovf = 0;
  bool wide = false;
  if (row < a.rows) {
    const long long ub = avos_thread_upper_bound<T>(a, row, N);
    wide = ub > N;
    if (!wide) {
      int cols[N];
      T vals[N];
#pragma unroll
      for (int j = 0; j < N; j++) {
        cols[j] = INT_MAX;
        vals[j] = 0;
      }
      if (a.s_ptr)
        for (int p = a.s_ptr[row]; p < a.s_ptr[row + 1]; p++) {
          T v = ((const T *)a.s_val)[p];
          if (v != 0)
            avos_list_merge<Ops, T, N, NUMERIC>(cols, vals, a.s_idx[p], v);
        }
      const T *aval = (const T *)a.a_val, *bval = (const T *)a.b_val;
      const int aend = a.a_ptr[row + 1];
      for (int p = a.a_ptr[row]; p < aend; p++) {
        const T x = aval[p];
        const int k = a.a_idx[p];
        if (x == 0 || (unsigned)k >= (unsigned)a.inner)
          continue;
        const int bend = a.b_ptr[k + 1];
        for (int q = a.b_ptr[k]; q < bend; q++) {
          const T y = bval[q];
          if (y == 0)
            continue;
          int o = 0;
          const T v = avos_product<Ops, T>(x, y, &o);
          if (NUMERIC)
            ovf += o;
          if (v == 0)
            continue;
          const int col = a.b_idx[q];
          if (NUMERIC)
            avos_note_cycle(a, row, col, (long long)v);
          avos_list_merge<Ops, T, N, NUMERIC>(cols, vals, col, v);
        }
      }
      int n = 0;
#pragma unroll
      for (int j = 0; j < N; j++)
        n += cols[j] != INT_MAX;
      if (!NUMERIC) {
        a.counts[row] = n;
      } else {
        const int cbeg = a.c_ptr[row], cnt = a.c_ptr[row + 1] - cbeg;
#pragma unroll
        for (int j = 0; j < N; j++)
          if (j < n && j < cnt && cbeg + j < a.c_cap) {
            a.c_idx[cbeg + j] = cols[j];
            ((T *)a.c_val)[cbeg + j] = vals[j];
          }
      }
    }
  }
  if (!NUMERIC) { /* one append per warp for its wide rows */
    const unsigned m = __ballot_sync(AVOS_FULL_MASK, wide);
    unsigned base = 0;
    if (m && lane == 0)
      base = atomicAdd(n_group, (unsigned)__popc(m));
    base = __shfl_sync(AVOS_FULL_MASK, base, 0);
    if (wide)
      group_list[base + __popc(m & ((1u << lane) - 1u))] = row;
  } else {
    ovf = __reduce_add_sync(AVOS_FULL_MASK, ovf);
    if (lane == 0 && ovf)
      atomicAdd(&a.stats->overflow, (unsigned long long)ovf);
  }
}

/* Symbolic, group tier: G lanes per row (8: the first tier, 32: a warp), a row-private table of
 * up to 8*G slots in shared memory sized from the row's upper bound. list == NULL: group t of
 * the grid takes row t (the grid covers every row); else the groups go over list[0 .. *nlist).
 * A row whose bound exceeds the table goes on the warp tier's list or, beyond a warp's table and
 * with the fallback, on the block tier's; without the fallback a warp keeps it in its capped
 * table. */
template <class Ops, typename T, int G>
static __global__ void __launch_bounds__(AVOS_GT)
    avos_symbolic_group_kernel(const struct avos_args a, const int *list, const unsigned *nlist,
                               int *warp_list, unsigned *n_warp, int *block_list, unsigned *n_block)
{
  constexpr int SL = 8 * G, GPB = AVOS_GT / G;
  __shared__ int table[GPB][SL];
  const int gl = threadIdx.x & (G - 1), gi = threadIdx.x / G;
  const unsigned gmask = avos_group_mask<G>();
  int *keys = table[gi];
  const unsigned n = list ? *nlist : (unsigned)a.rows;
  const unsigned stride = list ? gridDim.x * GPB : n;
  for (unsigned t = blockIdx.x * GPB + gi; t < n; t += stride) {
    const int row = list ? list[t] : (int)t;
    long long ub = avos_group_upper_bound<T, G>(a, row, gl, gmask, AVOS_WARP_SLOTS / 2);
    long long ube = ub < a.cols ? ub : a.cols;
    if (ube == 0) {
      if (gl == 0)
        a.counts[row] = 0;
      continue;
    }
    if (ube > SL / 2) {
      if (G < 32 && (ube <= AVOS_WARP_SLOTS / 2 || !Ops::fallback)) {
        if (gl == 0)
          warp_list[atomicAdd(n_warp, 1u)] = row;
        continue;
      }
      if (Ops::fallback) {
        if (gl == 0)
          block_list[atomicAdd(n_block, 1u)] = row;
        continue;
      }
    }
    const unsigned slots = avos_slots(ube, G, SL);
    for (unsigned s = gl; s < slots; s += G)
      keys[s] = AVOS_EMPTY;
    __syncwarp(gmask);
    bool is_new;
    if (a.s_ptr)
      for (int p = a.s_ptr[row] + gl; p < a.s_ptr[row + 1]; p += G)
        if (((const T *)a.s_val)[p] != 0)
          avos_hash_insert(keys, slots - 1, a.s_idx[p], &is_new);
    avos_group_products<T, G>(a, row, gl, gmask, [&](int col, T x, T y) {
      int o = 0;
      if (avos_product<Ops, T>(x, y, &o) != 0)
        avos_hash_insert(keys, slots - 1, col, &is_new);
    });
    __syncwarp(gmask);
    unsigned c = 0;
    for (unsigned s = gl; s < slots; s += G)
      c += keys[s] != AVOS_EMPTY;
    c = __reduce_add_sync(gmask, c);
    if (gl == 0)
      a.counts[row] = (int)c;
    __syncwarp(gmask); /* the table is reused by the group's next row */
  }
}

/* The group tiers' row, numeric: its table (slots, a power of two) cleared, S's entries and every
 * product term folded in (overflowed terms counted in *ovf, cycles noted). Called by the group. */
template <class Ops, typename T, int G>
__device__ __forceinline__ void avos_group_fill(const struct avos_args &a, int row, int *keys,
                                                unsigned long long *vals, unsigned slots, int gl,
                                                unsigned gmask, unsigned *ovf)
{
  for (unsigned s = gl; s < slots; s += G) {
    keys[s] = AVOS_EMPTY;
    vals[s] = avos_empty_value<Ops>();
  }
  __syncwarp(gmask);
  bool is_new;
  if (a.s_ptr)
    for (int p = a.s_ptr[row] + gl; p < a.s_ptr[row + 1]; p += G) {
      T v = ((const T *)a.s_val)[p];
      if (v == 0)
        continue;
      int slot = avos_hash_insert(keys, slots - 1, a.s_idx[p], &is_new);
      if (slot >= 0)
        avos_accumulate<Ops, T>(&vals[slot], v);
    }
  avos_group_products<T, G>(a, row, gl, gmask, [&](int col, T x, T y) {
    int o = 0;
    T v = avos_product<Ops, T>(x, y, &o);
    *ovf += o;
    if (v == 0)
      return;
    avos_note_cycle(a, row, col, (long long)v);
    int slot = avos_hash_insert(keys, slots - 1, col, &is_new);
    if (slot >= 0) /* a full table drops the entry: reachable only without the fallback */
      avos_accumulate<Ops, T>(&vals[slot], v);
  });
  __syncwarp(gmask);
}

/* The group's table compacted into sk / sv and written in column order (each entry's rank = the
 * number of smaller columns) to idx[r] / val[r] for ranks r < limit. Returns the entries found,
 * in every lane of the group. */
template <typename T, int G>
__device__ __forceinline__ int
avos_group_emit(const int *keys, const unsigned long long *vals, int *sk, unsigned long long *sv,
                unsigned slots, int gl, unsigned gmask, int *idx, T *val, long long limit)
{
  const int lane = threadIdx.x & 31;
  int n = 0;
  for (unsigned s0 = 0; s0 < slots; s0 += G) {
    int key = keys[s0 + gl];
    bool occ = key != AVOS_EMPTY;
    unsigned m = __ballot_sync(gmask, occ) & gmask;
    if (occ) {
      int pos = n + __popc(m & ((1u << lane) - 1u));
      sk[pos] = key;
      sv[pos] = vals[s0 + gl];
    }
    n += __popc(m);
  }
  __syncwarp(gmask);
  for (int i = gl; i < n; i += G) {
    int key = sk[i], r = 0;
    for (int j = 0; j < n; j++)
      r += sk[j] < key;
    if (r < limit) {
      idx[r] = key;
      val[r] = (T)(long long)sv[i];
    }
  }
  return n;
}

/* Numeric, group tier: the row's entries accumulated in a table sized from its exact count,
 * compacted, and written in column order (each entry's rank = the number of smaller columns).
 * Rows wider than the table go on the warp or block tier's list as in the symbolic step (with the
 * fallback, rows beyond the block tier are on the global list already). The first tier (list == NULL) also
 * counts the overflowed terms of rows left empty. */
template <class Ops, typename T, int G>
static __global__ void __launch_bounds__(AVOS_GT)
    avos_numeric_group_kernel(const struct avos_args a, const int *list, const unsigned *nlist,
                              int *warp_list, unsigned *n_warp, int *block_list, unsigned *n_block)
{
  constexpr int SL = 8 * G, GPB = AVOS_GT / G;
  __shared__ int tkeys[GPB][SL];
  __shared__ unsigned long long tvals[GPB][SL];
  __shared__ int skeys[GPB][SL];
  __shared__ unsigned long long svals[GPB][SL];
  const int gl = threadIdx.x & (G - 1), gi = threadIdx.x / G;
  const unsigned gmask = avos_group_mask<G>();
  int *keys = tkeys[gi], *sk = skeys[gi];
  unsigned long long *vals = tvals[gi], *sv = svals[gi];
  const unsigned n_rows = list ? *nlist : (unsigned)a.rows;
  const unsigned stride = list ? gridDim.x * GPB : n_rows;
  unsigned ovf = 0;
  for (unsigned t = blockIdx.x * GPB + gi; t < n_rows; t += stride) {
    const int row = list ? list[t] : (int)t;
    const int cbeg = a.c_ptr[row], cnt = a.c_ptr[row + 1] - cbeg;
    if constexpr (avos_split<Ops>::value) {
      const int off = a.stash_off ? a.stash_off[row] : -1;
      if (off >= 0) { /* the symbolic step computed it whole (overflows counted there) */
        if (G < 32 && cnt > 4 * G) { /* a warp copies the long ones */
          if (gl == 0)
            warp_list[atomicAdd(n_warp, 1u)] = row;
          continue;
        }
        const long long lim = a.c_cap - cbeg < cnt ? a.c_cap - cbeg : cnt;
#pragma unroll 4
        for (int i = gl; i < lim; i += G) {
          a.c_idx[cbeg + i] = a.stash_idx[off + i];
          ((T *)a.c_val)[cbeg + i] = ((const T *)a.stash_val)[off + i];
        }
        continue;
      }
    }
    if (cnt <= 0) { /* no entry, but its terms may have overflowed */
      avos_group_products<T, G>(a, row, gl, gmask, [&](int col, T x, T y) {
        int o = 0;
        avos_product<Ops, T>(x, y, &o);
        ovf += o;
      });
      continue;
    }
    if constexpr (avos_split<Ops>::value && G < 32) { /* by terms as well as by count */
      long long ub = avos_group_upper_bound<T, G>(a, row, gl, gmask, AVOS_SPLIT_WARP_TERMS);
      if (ub > AVOS_SPLIT_GROUP_TERMS || cnt > SL / 2) {
        if (gl == 0) {
          if (ub <= AVOS_SPLIT_WARP_TERMS && cnt <= AVOS_WARP_SLOTS / 2)
            warp_list[atomicAdd(n_warp, 1u)] = row;
          else if (cnt <= avos_block_slots<Ops>() / 2) /* wider rows: on the global list */
            block_list[atomicAdd(n_block, 1u)] = row;
        }
        continue;
      }
    }
    if (cnt > SL / 2) {
      if (G < 32 && (cnt <= AVOS_WARP_SLOTS / 2 || !Ops::fallback)) {
        if (gl == 0)
          warp_list[atomicAdd(n_warp, 1u)] = row;
        continue;
      }
      if (Ops::fallback) { /* rows beyond the block tier are on the global list already */
        if (gl == 0 && cnt <= avos_block_slots<Ops>() / 2)
          block_list[atomicAdd(n_block, 1u)] = row;
        continue;
      }
    }
    const unsigned slots = avos_slots(cnt, G, SL);
    avos_group_fill<Ops, T, G>(a, row, keys, vals, slots, gl, gmask, &ovf);
    avos_group_emit<T, G>(keys, vals, sk, sv, slots, gl, gmask, a.c_idx + cbeg, (T *)a.c_val + cbeg,
                          a.c_cap - cbeg < cnt ? a.c_cap - cbeg : cnt);
    __syncwarp(gmask); /* the tables are reused by the group's next row */
  }
  ovf = __reduce_add_sync(gmask, ovf);
  if (gl == 0 && ovf)
    atomicAdd(&a.stats->overflow, (unsigned long long)ovf);
}

/* The terms of row `row` of the result, for the block tiers (the whole block calls it): S's nonzero
 * entries, then the nonzero products of A's row with B, each passed to f(col, value) by the
 * thread that holds it. NUMERIC: overflows counted in *ovf and cycles noted (the symbolic pass
 * needs neither). Stops early once *stop is set (avos_block_products). Returns the number of
 * entries of S plus the number of products, in every thread: an upper bound on the row's count. */
template <class Ops, typename T, bool NUMERIC, class F>
__device__ __forceinline__ long long avos_block_row(const struct avos_args &a, int row, F f,
                                                    volatile int *stop, unsigned *ovf)
{
  long long ub = 0;
  if (a.s_ptr) {
    ub = a.s_ptr[row + 1] - a.s_ptr[row];
    for (int p = a.s_ptr[row] + threadIdx.x; p < a.s_ptr[row + 1]; p += AVOS_BT) {
      T v = ((const T *)a.s_val)[p];
      if (v != 0)
        f(a.s_idx[p], v);
    }
  }
  auto term = [&](int col, T x, T y) {
    int o = 0;
    T v = avos_product<Ops, T>(x, y, &o);
    if (NUMERIC)
      *ovf += o;
    if (v == 0)
      return;
    if (NUMERIC)
      avos_note_cycle(a, row, col, (long long)v);
    f(col, v);
  };
  if constexpr (avos_split<Ops>::value)
    ub += avos_block_products_window<T>(a, row, term, stop);
  else
    ub += avos_block_products<T>(a, row, term, stop);
  return ub;
}

/* The numeric pass of one row in a block tier: the row's hash table (keys and values, `slots` a
 * power of two, in shared or global memory) cleared, *s_n zeroed for the compaction that follows,
 * every term of the row accumulated; the block synchronised at the end. */
template <class Ops, typename T>
__device__ __forceinline__ void avos_block_accumulate(const struct avos_args &a, int row, int *keys,
                                                      unsigned long long *vals, unsigned slots,
                                                      int *s_n, unsigned *ovf)
{
  for (unsigned s = threadIdx.x; s < slots; s += AVOS_BT) {
    keys[s] = AVOS_EMPTY;
    vals[s] = avos_empty_value<Ops>();
  }
  if (threadIdx.x == 0)
    *s_n = 0;
  __syncthreads();
  avos_block_row<Ops, T, true>(
      a, row,
      [&](int col, T v) {
        bool is_new;
        int slot = avos_hash_insert(keys, slots - 1, col, &is_new);
        if (slot >= 0)
          avos_accumulate<Ops, T>(&vals[slot], v);
      },
      (volatile int *)0, ovf);
  __syncthreads();
}

/* A block tier's table (slots) compacted into skeys / svals (at most `staged`, *s_n zero on entry)
 * and written in column order to idx[r] / val[r] for ranks r < limit. The whole block calls it. */
template <typename T>
__device__ __forceinline__ void avos_block_emit(const int *keys, const unsigned long long *vals,
                                                int *skeys, unsigned long long *svals,
                                                unsigned slots, int staged, int *s_n, int *idx,
                                                T *val, long long limit)
{
  for (unsigned s = threadIdx.x; s < slots; s += AVOS_BT)
    if (keys[s] != AVOS_EMPTY) {
      int pos = atomicAdd(s_n, 1);
      if (pos < staged) {
        skeys[pos] = keys[s];
        svals[pos] = vals[s];
      }
    }
  __syncthreads();
  int n = *s_n < staged ? *s_n : staged;
  for (int i = threadIdx.x; i < n; i += AVOS_BT) {
    int key = skeys[i], r = 0;
    for (int j = 0; j < n; j++)
      r += skeys[j] < key;
    if (r < limit) {
      idx[r] = key;
      val[r] = (T)(long long)svals[i];
    }
  }
}

/* avos_block_emit for split rows, ranking in O(n) expected where avos_block_emit compares every
 * pair (n^2 / 256 compares a thread: about as many instructions as the row's terms in the 21k
 * closure's heavy rows): the entries are put into AVOS_BT buckets of the range of their columns
 * (a shared histogram, its scan, a scatter into tmp), and an entry's rank is its bucket's start
 * plus the smaller columns in its bucket. tmp: at least `staged` ints (the hash table's keys, no
 * longer needed). The whole block calls it. */
template <typename T>
__device__ __forceinline__ void
avos_block_emit_buckets(const int *keys, const unsigned long long *vals, int *skeys,
                        unsigned long long *svals, unsigned slots, int staged, int *s_n, int *idx,
                        T *val, long long limit, int *tmp)
{
  typedef cub::BlockScan<int, AVOS_BT> scan_t;
  __shared__ typename scan_t::TempStorage scan_tmp;
  __shared__ int s_start[AVOS_BT], s_fill[AVOS_BT], s_lo, s_hi;
  if (threadIdx.x == 0) {
    s_lo = INT_MAX;
    s_hi = INT_MIN;
  }
  s_fill[threadIdx.x] = 0;
  __syncthreads();
  int lo = INT_MAX, hi = INT_MIN;
  for (unsigned s = threadIdx.x; s < slots; s += AVOS_BT) {
    const int key = keys[s];
    if (key != AVOS_EMPTY) {
      int pos = atomicAdd(s_n, 1);
      if (pos < staged) {
        skeys[pos] = key;
        svals[pos] = vals[s];
      }
      lo = min(lo, key);
      hi = max(hi, key);
    }
  }
  lo = __reduce_min_sync(AVOS_FULL_MASK, lo);
  hi = __reduce_max_sync(AVOS_FULL_MASK, hi);
  if ((threadIdx.x & 31) == 0 && lo <= hi) {
    atomicMin(&s_lo, lo);
    atomicMax(&s_hi, hi);
  }
  __syncthreads();
  /* a bucket by a float scale: any bucket that never decreases with the column ranks right, and
   * this is 4 instructions where (key - base) * AVOS_BT / span in 64 bits was a division routine
   * (ncu, H200, stop 47) */
  const int n = *s_n < staged ? *s_n : staged, base = s_lo;
  const float scale = (float)AVOS_BT / ((float)s_hi - (float)base + 1.0f);
  auto bucket = [&](int key) { return min((int)((float)(key - base) * scale), AVOS_BT - 1); };
  for (int i = threadIdx.x; i < n; i += AVOS_BT)
    atomicAdd(&s_fill[bucket(skeys[i])], 1);
  __syncthreads();
  int start;
  scan_t(scan_tmp).ExclusiveSum(s_fill[threadIdx.x], start);
  __syncthreads();
  s_start[threadIdx.x] = start;
  s_fill[threadIdx.x] = start;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += AVOS_BT) {
    const int key = skeys[i];
    tmp[atomicAdd(&s_fill[bucket(key)], 1)] = key;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += AVOS_BT) {
    const int key = skeys[i], b = bucket(key), end = s_fill[b];
    int r = s_start[b];
    for (int j = s_start[b]; j < end; j++)
      r += tmp[j] < key;
    if (r < limit) {
      idx[r] = key;
      val[r] = (T)(long long)svals[i];
    }
  }
}

/* Symbolic, block tier: a block per listed row, persistent over the list; a row with more than
 * avos_block_slots/2 distinct columns is given up and listed for the global tier. */
template <class Ops, typename T>
static __global__ void __launch_bounds__(AVOS_BT) avos_symbolic_block_kernel(const struct avos_args a)
{
  constexpr int SLOTS = avos_block_slots<Ops>();
  __shared__ int keys[SLOTS];
  __shared__ int s_count, s_stop;
  const unsigned nlist = a.stats->n_sym_block;
  for (unsigned li = blockIdx.x; li < nlist; li += gridDim.x) {
    const int row = a.sym_block[li];
    for (int s = threadIdx.x; s < SLOTS; s += AVOS_BT)
      keys[s] = AVOS_EMPTY;
    if (threadIdx.x == 0) {
      s_count = 0;
      s_stop = 0;
    }
    __syncthreads();
    auto insert = [&](int col) {
      if (*(volatile int *)&s_stop)
        return;
      bool is_new;
      avos_hash_insert(keys, SLOTS - 1, col, &is_new);
      if (is_new && atomicAdd(&s_count, 1) >= SLOTS / 2)
        s_stop = 1;
    };
    long long ub = avos_block_row<Ops, T, false>(
        a, row, [&](int col, T) { insert(col); }, &s_stop, (unsigned *)0);
    __syncthreads();
    if (threadIdx.x == 0) {
      if (s_stop) {
        long long ube = ub < a.cols ? ub : a.cols;
        unsigned gi = atomicAdd(&a.stats->n_global, 1u);
        unsigned sl = avos_slots(ube, AVOS_BT, 0x40000000u);
        a.global_rows[2 * gi] = row; /* the list holds (row, slots) pairs */
        a.global_rows[2 * gi + 1] = (int)sl;
        atomicMax(&a.stats->global_slots, sl);
      } else {
        a.counts[row] = s_count;
      }
    }
    __syncthreads();
  }
}

/* Numeric, block tier: rows with AVOS_WARP_SLOTS/2 < count <= avos_block_slots/2 (with split rows
 * also narrower rows of many terms). Dynamic shared memory (avos_block_numeric_smem):
 * avos_block_slots keys and values, half as many staged entries. */
template <class Ops, typename T>
static __global__ void __launch_bounds__(AVOS_BT) avos_numeric_block_kernel(const struct avos_args a)
{
  constexpr int SLOTS = avos_block_slots<Ops>();
  extern __shared__ unsigned long long avos_dyn[];
  unsigned long long *vals = avos_dyn;
  unsigned long long *svals = vals + SLOTS;
  int *keys = (int *)(svals + SLOTS / 2);
  int *skeys = keys + SLOTS;
  __shared__ int s_n;
  const unsigned nlist = a.stats->n_num_block;
  unsigned ovf = 0;
  for (unsigned li = blockIdx.x; li < nlist; li += gridDim.x) {
    const int row = a.num_block[li];
    const int cbeg = a.c_ptr[row], cnt = a.c_ptr[row + 1] - cbeg;
    const unsigned slots = avos_slots(cnt, AVOS_BT, SLOTS);
    avos_block_accumulate<Ops, T>(a, row, keys, vals, slots, &s_n, &ovf);
    const long long limit = a.c_cap - cbeg < cnt ? a.c_cap - cbeg : cnt;
    if constexpr (avos_split<Ops>::value)
      avos_block_emit_buckets<T>(keys, vals, skeys, svals, slots, SLOTS / 2, &s_n, a.c_idx + cbeg,
                                 (T *)a.c_val + cbeg, limit, keys);
    else
      avos_block_emit<T>(keys, vals, skeys, svals, slots, SLOTS / 2, &s_n, a.c_idx + cbeg,
                         (T *)a.c_val + cbeg, limit);
    __syncthreads();
  }
  if (ovf)
    atomicAdd(&a.stats->overflow, (unsigned long long)ovf);
}

/* Symbolic step of split rows (Ops::split_rows), group tiers: the symbolic group kernel's rows and
 * routing (a table sized from the row's upper bound), but each row computed whole as the numeric
 * step would (values, overflows, cycles), its count into counts[row] and its entries, in column
 * order, into the stash when there is room (stash_off[row] = where; otherwise the row stays at
 * -1, its overflows uncounted, and the numeric step computes it again). One pass over the terms
 * of a row where the two steps took two. */
template <class Ops, typename T, int G>
static __global__ void __launch_bounds__(AVOS_GT)
    avos_fused_group_kernel(const struct avos_args a, const int *list, const unsigned *nlist,
                            int *warp_list, unsigned *n_warp, int *block_list, unsigned *n_block)
{
  constexpr int SL = 8 * G, GPB = AVOS_GT / G;
  __shared__ int tkeys[GPB][SL];
  __shared__ unsigned long long tvals[GPB][SL];
  __shared__ int skeys[GPB][SL / 2]; /* a row here has at most SL / 2 columns */
  __shared__ unsigned long long svals[GPB][SL / 2];
  const int gl = threadIdx.x & (G - 1), gi = threadIdx.x / G;
  const unsigned gmask = avos_group_mask<G>();
  int *keys = tkeys[gi], *sk = skeys[gi];
  unsigned long long *vals = tvals[gi], *sv = svals[gi];
  const unsigned n_rows = list ? *nlist : (unsigned)a.rows;
  const unsigned stride = list ? gridDim.x * GPB : n_rows;
  unsigned ovf = 0;
  for (unsigned t = blockIdx.x * GPB + gi; t < n_rows; t += stride) {
    const int row = list ? list[t] : (int)t;
    long long ub = avos_group_upper_bound<T, G>(a, row, gl, gmask, AVOS_WARP_SLOTS / 2);
    long long ube = ub < a.cols ? ub : a.cols;
    if (ube > SL / 2) {
      if (gl == 0) {
        if (G < 32 && ube <= AVOS_WARP_SLOTS / 2)
          warp_list[atomicAdd(n_warp, 1u)] = row;
        else
          block_list[atomicAdd(n_block, 1u)] = row;
      }
      continue;
    }
    const unsigned slots = avos_slots(ube, G, SL);
    unsigned rovf = 0;
    avos_group_fill<Ops, T, G>(a, row, keys, vals, slots, gl, gmask, &rovf);
    unsigned c = 0;
    for (unsigned s = gl; s < slots; s += G)
      c += keys[s] != AVOS_EMPTY;
    c = __reduce_add_sync(gmask, c);
    unsigned long long off = 0;
    if (gl == 0)
      off = atomicAdd(&a.stats->stash_used, (unsigned long long)c);
    off = __shfl_sync(gmask, off, 0, G);
    const bool room = off + c <= (unsigned long long)a.stash_cap;
    if (room) {
      avos_group_emit<T, G>(keys, vals, sk, sv, slots, gl, gmask, a.stash_idx + off,
                            (T *)a.stash_val + off, c);
      ovf += rovf;
    }
    if (gl == 0) {
      a.counts[row] = (int)c;
      a.stash_off[row] = room ? (int)off : -1;
    }
    __syncwarp(gmask); /* the tables are reused by the group's next row */
  }
  ovf = __reduce_add_sync(gmask, ovf);
  if (gl == 0 && ovf)
    atomicAdd(&a.stats->overflow, (unsigned long long)ovf);
}

/* The same for the block tier (the symbolic block kernel's rows): a block per listed row with the
 * numeric block tier's table (dynamic shared memory, avos_block_numeric_smem), given up for the
 * global tier past half its slots of columns, as the symbolic block kernel does. */
template <class Ops, typename T>
static __global__ void __launch_bounds__(AVOS_BT) avos_fused_block_kernel(const struct avos_args a)
{
  constexpr int SLOTS = avos_block_slots<Ops>();
  extern __shared__ unsigned long long avos_dyn[];
  unsigned long long *vals = avos_dyn;
  unsigned long long *svals = vals + SLOTS;
  int *keys = (int *)(svals + SLOTS / 2);
  int *skeys = keys + SLOTS;
  __shared__ int s_n, s_stop, s_off;
  const unsigned nlist = a.stats->n_sym_block;
  unsigned ovf = 0;
  for (unsigned li = blockIdx.x; li < nlist; li += gridDim.x) {
    const int row = a.sym_block[li];
    for (int s = threadIdx.x; s < SLOTS; s += AVOS_BT) {
      keys[s] = AVOS_EMPTY;
      vals[s] = avos_empty_value<Ops>();
    }
    if (threadIdx.x == 0) {
      s_n = 0;
      s_stop = 0;
    }
    __syncthreads();
    unsigned rovf = 0;
    long long ub = avos_block_row<Ops, T, true>(
        a, row,
        [&](int col, T v) {
          if (*(volatile int *)&s_stop)
            return;
          bool is_new;
          int slot = avos_hash_insert(keys, SLOTS - 1, col, &is_new);
          if (is_new && atomicAdd(&s_n, 1) >= SLOTS / 2)
            s_stop = 1;
          if (slot >= 0)
            avos_accumulate<Ops, T>(&vals[slot], v);
        },
        &s_stop, &rovf);
    __syncthreads();
    const int c = s_n;
    __syncthreads(); /* every thread has its c before s_n restarts */
    if (threadIdx.x == 0) {
      if (s_stop) {
        long long ube = ub < a.cols ? ub : a.cols;
        unsigned gi = atomicAdd(&a.stats->n_global, 1u);
        unsigned sl = avos_slots(ube, AVOS_BT, 0x40000000u);
        a.global_rows[2 * gi] = row; /* the list holds (row, slots) pairs */
        a.global_rows[2 * gi + 1] = (int)sl;
        atomicMax(&a.stats->global_slots, sl);
        s_off = -1;
      } else {
        unsigned long long off = atomicAdd(&a.stats->stash_used, (unsigned long long)c);
        s_off = off + c <= (unsigned long long)a.stash_cap ? (int)off : -1;
        a.counts[row] = c;
        a.stash_off[row] = s_off;
      }
      s_n = 0;
    }
    __syncthreads();
    const int off = s_off;
    if (off >= 0) {
      avos_block_emit_buckets<T>(keys, vals, skeys, svals, SLOTS, SLOTS / 2, &s_n,
                                 a.stash_idx + off, (T *)a.stash_val + off, c, keys);
      ovf += rovf;
    }
    __syncthreads(); /* the tables are the next row's */
  }
  if (ovf)
    atomicAdd(&a.stats->overflow, (unsigned long long)ovf);
}

/* Symbolic, global tier: the listed rows, a table of the row's size in this block's part of the
 * scratch (a.global_slots slots). */
template <class Ops, typename T>
static __global__ void __launch_bounds__(AVOS_BT) avos_symbolic_global_kernel(const struct avos_args a)
{
  __shared__ int s_count;
  int *keys = (int *)((char *)a.scratch + (size_t)blockIdx.x * a.global_slots * AVOS_GLOBAL_SLOT_BYTES);
  const unsigned nlist = a.stats->n_global;
  for (unsigned li = blockIdx.x; li < nlist; li += gridDim.x) {
    const int row = a.global_rows[2 * li];
    const unsigned slots = (unsigned)a.global_rows[2 * li + 1];
    for (unsigned s = threadIdx.x; s < slots; s += AVOS_BT)
      keys[s] = AVOS_EMPTY;
    if (threadIdx.x == 0)
      s_count = 0;
    __syncthreads();
    unsigned mine = 0;
    auto insert = [&](int col) {
      bool is_new;
      avos_hash_insert(keys, slots - 1, col, &is_new);
      mine += is_new;
    };
    avos_block_row<Ops, T, false>(
        a, row, [&](int col, T) { insert(col); }, (volatile int *)0, (unsigned *)0);
    atomicAdd(&s_count, (int)mine);
    __syncthreads();
    if (threadIdx.x == 0)
      a.counts[row] = s_count;
    __syncthreads();
  }
}

/* Numeric, global tier: as the block tier, the table in global scratch; entries are compacted
 * into the row's place in C, ranked, written sorted into the (now free) table, and copied back. */
template <class Ops, typename T>
static __global__ void __launch_bounds__(AVOS_BT) avos_numeric_global_kernel(const struct avos_args a)
{
  __shared__ int s_n;
  char *base = (char *)a.scratch + (size_t)blockIdx.x * a.global_slots * AVOS_GLOBAL_SLOT_BYTES;
  unsigned long long *vals = (unsigned long long *)base;
  int *keys = (int *)(vals + a.global_slots);
  const unsigned nlist = a.stats->n_global;
  T *cval = (T *)a.c_val;
  unsigned ovf = 0;
  for (unsigned li = blockIdx.x; li < nlist; li += gridDim.x) {
    const int row = a.global_rows[2 * li];
    const int cbeg = a.c_ptr[row], cnt = a.c_ptr[row + 1] - cbeg;
    const unsigned slots = avos_slots(cnt, AVOS_BT, a.global_slots);
    avos_block_accumulate<Ops, T>(a, row, keys, vals, slots, &s_n, &ovf);
    for (unsigned s = threadIdx.x; s < slots; s += AVOS_BT)
      if (keys[s] != AVOS_EMPTY) {
        int pos = atomicAdd(&s_n, 1);
        if (pos < cnt && cbeg + pos < a.c_cap) {
          a.c_idx[cbeg + pos] = keys[s];
          cval[cbeg + pos] = (T)(long long)vals[s];
        }
      }
    __syncthreads();
    int n = s_n < cnt ? s_n : cnt;
    if (cbeg + n > a.c_cap)
      n = cbeg < a.c_cap ? (int)(a.c_cap - cbeg) : 0;
    for (int i = threadIdx.x; i < n; i += AVOS_BT) { /* rank, into the free table */
      int key = a.c_idx[cbeg + i], r = 0;
      for (int j = 0; j < n; j++)
        r += a.c_idx[cbeg + j] < key;
      keys[r] = key;
      vals[r] = (unsigned long long)(long long)cval[cbeg + i];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += AVOS_BT) {
      a.c_idx[cbeg + i] = keys[i];
      cval[cbeg + i] = (T)(long long)vals[i];
    }
    __syncthreads();
  }
  if (ovf)
    atomicAdd(&a.stats->overflow, (unsigned long long)ovf);
}

/* stats->changed = 1 when C (c_ptr, c_idx, c_val) differs from S (same number of entries). */
template <typename T>
static __global__ void avos_compare_kernel(const struct avos_args a)
{
  long long stride = (long long)gridDim.x * blockDim.x;
  bool diff = false;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.c_nnz || i <= a.rows;
       i += stride) {
    if (i <= a.rows && a.c_ptr[i] != a.s_ptr[i])
      diff = true;
    if (i < a.c_nnz &&
        (a.c_idx[i] != a.s_idx[i] || ((const T *)a.c_val)[i] != ((const T *)a.s_val)[i]))
      diff = true;
  }
  if (diff)
    a.stats->changed = 1;
}

/* launcher (shared) */

static inline int avos_sm_count(void)
{
  int dev, sms;
  GR_CUDA_CHECK(cudaGetDevice(&dev));
  GR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

/* The group tiers of a pass: a group of AVOS_TINY_G threads per row over every row (longer rows
 * listed for the warp tier, longer still for the block tier), then a warp per listed row. */
typedef void (*avos_group_kernel_fn)(const struct avos_args, const int *, const unsigned *, int *,
                                     unsigned *, int *, unsigned *);
static inline void avos_launch_groups(avos_group_kernel_fn tiny, avos_group_kernel_fn warp,
                                      const struct avos_args *a, int *warp_list, unsigned *n_warp,
                                      int *block_list, unsigned *n_block, int sms, cudaStream_t st,
                                      bool after_threads, int warp_blocks_per_sm = 8)
{
  const int tiny_rows = AVOS_GT / AVOS_TINY_G;
  if (after_threads) /* the rows the thread tier listed */
    tiny<<<sms * 8, AVOS_GT, 0, st>>>(*a, a->group_rows, &a->stats->n_group, warp_list, n_warp,
                                      block_list, n_block);
  else
    tiny<<<(a->rows + tiny_rows - 1) / tiny_rows, AVOS_GT, 0, st>>>(*a, NULL, NULL, warp_list,
                                                                    n_warp, block_list, n_block);
  GR_CUDA_LAUNCH_CHECK();
  warp<<<sms * warp_blocks_per_sm, AVOS_GT, 0, st>>>(*a, warp_list, n_warp, NULL, NULL, block_list,
                                                     n_block);
  GR_CUDA_LAUNCH_CHECK();
}

/* Blocks of `kernel` (threads a block, dynamic shared memory smem) resident on one SM, for the
 * persistent grids of split rows (at least 1). */
template <typename K> static inline int avos_resident_blocks(K kernel, int threads, size_t smem)
{
  int b = 0;
  GR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, threads, smem));
  return b > 0 ? b : 1;
}

/* Whether a product step starts with the thread tier: with Ops::thread_rows, in products without
 * an S term (one product, op=spgemm). The squarings of a closure (C = W (+) W (x) W) keep the
 * group tier first: their rows are wider (|W_r| + the sum of its neighbours' rows), most of them
 * near or past the thread tier's 16 terms, and the tier cost the 21k closure 3% and the 1e6
 * closure 13% (H100, bench, same run as without it). Both steps of a product decide alike. */
template <class Ops> static inline bool avos_use_thread_tier(const struct avos_args *a)
{
  return Ops::thread_rows && a->s_ptr == NULL;
}

/* The thread tier of a step (Ops::thread_rows): a thread per row over every row. */
template <class Ops, typename T, bool NUMERIC>
static inline void avos_launch_threads(const struct avos_args *a, cudaStream_t st)
{
  avos_thread_rows_kernel<Ops, T, NUMERIC><<<(a->rows + AVOS_TT - 1) / AVOS_TT, AVOS_TT, 0, st>>>(
      *a, a->group_rows, &a->stats->n_group);
  GR_CUDA_LAUNCH_CHECK();
}

/* The symbolic step of split rows: the fused kernels (whole rows into the stash), persistent grids
 * of as many blocks as fit on the SMs. */
template <class Ops, typename T>
static inline void avos_launch_fused(const struct avos_args *a, int sms, cudaStream_t st,
                                     bool after_threads)
{
  static int warp_bps = avos_resident_blocks(avos_fused_group_kernel<Ops, T, 32>, AVOS_GT, 0);
  avos_launch_groups(avos_fused_group_kernel<Ops, T, AVOS_TINY_G>,
                     avos_fused_group_kernel<Ops, T, 32>, a, a->sym_warp, &a->stats->n_sym_warp,
                     a->sym_block, &a->stats->n_sym_block, sms, st, after_threads, warp_bps);
  static int bps = 0;
  if (!bps) {
    GR_CUDA_CHECK(cudaFuncSetAttribute(avos_fused_block_kernel<Ops, T>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)avos_block_numeric_smem<Ops>()));
    bps = avos_resident_blocks(avos_fused_block_kernel<Ops, T>, AVOS_BT,
                               avos_block_numeric_smem<Ops>());
  }
  avos_fused_block_kernel<Ops, T><<<sms * bps, AVOS_BT, avos_block_numeric_smem<Ops>(), st>>>(*a);
  GR_CUDA_LAUNCH_CHECK();
}

template <class Ops, typename T>
static int avos_launch_typed(int step, const struct avos_args *a, cudaStream_t st)
{
  const int sms = avos_sm_count();
  switch (step) {
  case AVOS_STEP_SUM:
  case AVOS_STEP_PRODUCT: {
    if (a->n <= 0)
      return 0;
    long long work = a->n / (16 / (long long)sizeof(T)) + 1;
    long long blocks = (work + AVOS_EW_THREADS - 1) / AVOS_EW_THREADS;
    if (blocks > (long long)sms * 16)
      blocks = (long long)sms * 16;
    if (step == AVOS_STEP_SUM)
      avos_sum_kernel<Ops, T><<<(unsigned)blocks, AVOS_EW_THREADS, 0, st>>>(
          (const T *)a->x, (const T *)a->y, (T *)a->out, a->n);
    else
      avos_product_kernel<Ops, T><<<(unsigned)blocks, AVOS_EW_THREADS, 0, st>>>(
          (const T *)a->x, (const T *)a->y, (T *)a->out, a->n, a->stats);
    GR_CUDA_LAUNCH_CHECK();
    return 0;
  }
  case AVOS_STEP_SYMBOLIC: {
    if (a->rows <= 0)
      return 0;
    const bool threads = avos_use_thread_tier<Ops>(a);
    if constexpr (Ops::thread_rows)
      if (threads)
        avos_launch_threads<Ops, T, false>(a, st);
    constexpr bool split = avos_split<Ops>::value;
    if constexpr (split)
      if (a->stash_idx) {
        avos_launch_fused<Ops, T>(a, sms, st, threads);
        return 0;
      }
    static int warp_bps =
        split ? avos_resident_blocks(avos_symbolic_group_kernel<Ops, T, 32>, AVOS_GT, 0) : 8;
    avos_launch_groups(avos_symbolic_group_kernel<Ops, T, AVOS_TINY_G>,
                       avos_symbolic_group_kernel<Ops, T, 32>, a, a->sym_warp,
                       &a->stats->n_sym_warp, a->sym_block, &a->stats->n_sym_block, sms, st,
                       threads, warp_bps);
    if (Ops::fallback) {
      static int bps =
          split ? avos_resident_blocks(avos_symbolic_block_kernel<Ops, T>, AVOS_BT, 0) : 4;
      avos_symbolic_block_kernel<Ops, T><<<sms * bps, AVOS_BT, 0, st>>>(*a);
      GR_CUDA_LAUNCH_CHECK();
    }
    return 0;
  }
  case AVOS_STEP_SYMBOLIC_GLOBAL:
    if (Ops::fallback && a->rows > 0 && a->global_grid > 0) {
      avos_symbolic_global_kernel<Ops, T><<<a->global_grid, AVOS_BT, 0, st>>>(*a);
      GR_CUDA_LAUNCH_CHECK();
    }
    return 0;
  case AVOS_STEP_NUMERIC: {
    if (a->rows <= 0)
      return 0;
    const bool threads = avos_use_thread_tier<Ops>(a);
    if constexpr (Ops::thread_rows)
      if (threads)
        avos_launch_threads<Ops, T, true>(a, st);
    constexpr bool split = avos_split<Ops>::value;
    static int warp_bps =
        split ? avos_resident_blocks(avos_numeric_group_kernel<Ops, T, 32>, AVOS_GT, 0) : 8;
    avos_launch_groups(avos_numeric_group_kernel<Ops, T, AVOS_TINY_G>,
                       avos_numeric_group_kernel<Ops, T, 32>, a, a->num_warp, &a->stats->n_num_warp,
                       a->num_block, &a->stats->n_num_block, sms, st, threads, warp_bps);
    if (Ops::fallback) {
      static int bps = 0;
      if (!bps) {
        GR_CUDA_CHECK(cudaFuncSetAttribute(avos_numeric_block_kernel<Ops, T>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)avos_block_numeric_smem<Ops>()));
        bps = split ? avos_resident_blocks(avos_numeric_block_kernel<Ops, T>, AVOS_BT,
                                           avos_block_numeric_smem<Ops>())
                    : 2;
      }
      avos_numeric_block_kernel<Ops, T>
          <<<sms * bps, AVOS_BT, avos_block_numeric_smem<Ops>(), st>>>(*a);
      GR_CUDA_LAUNCH_CHECK();
    }
    return 0;
  }
  case AVOS_STEP_NUMERIC_GLOBAL:
    if (Ops::fallback && a->rows > 0 && a->global_grid > 0) {
      avos_numeric_global_kernel<Ops, T><<<a->global_grid, AVOS_BT, 0, st>>>(*a);
      GR_CUDA_LAUNCH_CHECK();
    }
    return 0;
  case AVOS_STEP_STASH: /* split rows stash the squarings of a closure (C = S (+) A (x) B): one
                          product's rows (op=spgemm) are mostly the thread tier's, and the copy
                          cost it 4% (0.159 against 0.153 ms, 1e6 family, H200) */
    return avos_split<Ops>::value && a->s_ptr ? 0 : 1;
  case AVOS_STEP_COMPARE: {
    long long work = a->c_nnz > a->rows ? a->c_nnz : a->rows + 1;
    long long blocks = (work + 255) / 256;
    if (blocks > (long long)sms * 8)
      blocks = (long long)sms * 8;
    avos_compare_kernel<T><<<(unsigned)blocks, 256, 0, st>>>(*a);
    GR_CUDA_LAUNCH_CHECK();
    return 0;
  }
  }
  return 1;
}

template <class Ops> static int avos_launch_common(int step, const struct avos_args *a, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  switch (a->type) {
  case AVOS_INT8: return avos_launch_typed<Ops, int8_t>(step, a, st);
  case AVOS_INT16: return avos_launch_typed<Ops, int16_t>(step, a, st);
  case AVOS_INT32: return avos_launch_typed<Ops, int32_t>(step, a, st);
  case AVOS_INT64: return avos_launch_typed<Ops, int64_t>(step, a, st);
  }
  return 1;
}
