/* Device code shared by the k-medoids kernels: the SQFD tile. A block holds up to
 * KM_CHUNK_CENTROIDS source centroids in registers (KM_PER_THREAD consecutive ones per thread) and
 * streams target signatures through double-buffered shared memory, one __syncthreads per target;
 * for each (source, target) pair the per-centroid row sums are reduced to the cross term and the
 * distance is handed to an epilogue (assignment: running minimum; score: running sum).
 *
 * Every cross term is computed by the same arithmetic whatever the tile: row sum of centroid i in
 * target order with explicit FMAs, then the lane-strided float sum and a fixed double butterfly
 * over the source's rows. So a distance depends only on the two signatures (identical objects get
 * identical distances, tie rules hold bit for bit) and cross(i, i) equals the precomputed self(i),
 * making SQFD(i, i) exactly 0.
 *
 * The score epilogues take a pair only when the source ranks strictly below the target (crank,
 * kmedoids.h) and add its distance, in fixed point, to both members' scores; a warp none of whose
 * sources does skips the row sums of that target. */
#pragma once

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "kmedoids.h"

#define KM_WARPS (KM_BLOCK / 32)
#define KM_FULL 0xffffffffu

/* device helpers */

__device__ static __forceinline__ float km_ex2(float x)
{
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/* Source centroids of one thread: (s x, b) each. */
struct km_src {
  float a[KM_PER_THREAD][7];
  float b[KM_PER_THREAD];
};

/* Shared memory of one tile block. */
struct km_tile_smem {
  float4 tgt[2][2 * KM_MAX_SIG];     /* target centroids: (x0..x3), (x4..x6, 2^b) */
  float rows[2][KM_CHUNK_CENTROIDS]; /* per source centroid: row sum against the target */
  double sself[KM_CHUNK_MAX_SRC];    /* self similarity of each source */
  union {
    double acc[KM_CHUNK_MAX_SRC];              /* assignment: best distance */
    unsigned long long facc[KM_CHUNK_MAX_SRC]; /* score: partial score, fixed point */
  };
  int32_t cs[KM_CHUNK_MAX_SRC + 1];  /* first local centroid of each source */
  int32_t sobj[KM_CHUNK_MAX_SRC];    /* object of each source */
  int32_t scr[KM_CHUNK_MAX_SRC];     /* content rank of each source */
  int32_t arg[KM_CHUNK_MAX_SRC];     /* epilogue: nearest medoid, or cluster of the source */
  uint16_t cmap[KM_CHUNK_CENTROIDS]; /* source of each local centroid */
  int32_t tsize[2], tobj[2];         /* centroid count and object of each target buffer */
};

__device__ static __forceinline__ void km_load_src(const float4 *cent, int c, float scale,
                                                   km_src &s, int r)
{
  float4 lo = cent[2 * c], hi = cent[2 * c + 1];
  s.a[r][0] = scale * lo.x;
  s.a[r][1] = scale * lo.y;
  s.a[r][2] = scale * lo.z;
  s.a[r][3] = scale * lo.w;
  s.a[r][4] = scale * hi.x;
  s.a[r][5] = scale * hi.y;
  s.a[r][6] = scale * hi.z;
  s.b[r] = hi.w;
}

__device__ static __forceinline__ void km_clear_src(km_src &s, int r)
{
  for (int i = 0; i < 7; i++)
    s.a[r][i] = 0.f;
  s.b[r] = -1e30f; /* 2^b = 0: contributes nothing */
}

/* Target signature of nt centroids from centroid c0: each thread fetches its (up to) two float4
 * into registers, then stores them with the weight term turned into 2^b. */
__device__ static __forceinline__ void km_fetch_target(const float4 *cent, int c0, int nt,
                                                       float4 v[2])
{
  for (int u = 0; u < 2; u++) {
    int e = threadIdx.x + u * blockDim.x;
    if (e < 2 * nt)
      v[u] = cent[2 * c0 + e];
  }
}

__device__ static __forceinline__ void km_store_target(float4 *buf, int nt, float4 v[2])
{
  for (int u = 0; u < 2; u++) {
    int e = threadIdx.x + u * blockDim.x;
    if (e < 2 * nt) {
      float4 x = v[u];
      if (e & 1)
        x.w = km_ex2(x.w);
      buf[e] = x;
    }
  }
}

/* Row sums of this thread's source centroids against a target of nt centroids in tg. */
__device__ static __forceinline__ void km_rows(const km_src &s, const float4 *tg, int nt,
                                               float acc[KM_PER_THREAD])
{
#pragma unroll
  for (int r = 0; r < KM_PER_THREAD; r++)
    acc[r] = 0.f;
#pragma unroll 2
  for (int j = 0; j < nt; j++) {
    float4 p = tg[2 * j], q = tg[2 * j + 1];
#pragma unroll
    for (int r = 0; r < KM_PER_THREAD; r++) {
      float e = fmaf(s.a[r][0], p.x, s.b[r]);
      e = fmaf(s.a[r][1], p.y, e);
      e = fmaf(s.a[r][2], p.z, e);
      e = fmaf(s.a[r][3], p.w, e);
      e = fmaf(s.a[r][4], q.x, e);
      e = fmaf(s.a[r][5], q.y, e);
      e = fmaf(s.a[r][6], q.z, e);
      acc[r] = fmaf(q.w, km_ex2(e), acc[r]);
    }
  }
}

/* Cross term of one source from its rows [q0, q1): lane-strided float sums, then a fixed double
 * butterfly. Lane 0's value is the canonical one. Call with the whole warp. */
__device__ static __forceinline__ double km_source_sum(const float *rows, int q0, int q1, int lane)
{
  float s = 0.f;
  for (int q = q0 + lane; q < q1; q += 32)
    s += rows[q];
  double v = s;
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(KM_FULL, v, o);
  return v;
}

__device__ static __forceinline__ double km_dist(double self_s, double self_t, double cross)
{
  double rad = self_s + self_t - 2.0 * cross;
  return rad <= 1e-6 ? 0.0 : sqrt(rad);
}

/* The tile: sources src_ids[0..nsrc), targets tgt_ids[0..ntgt), nsrc >= 1, their centroids at most
 * KM_CHUNK_CENTROIDS, each signature at most KM_MAX_SIG. Epi provides:
 *   init(sm, nsrc)            before the sources are loaded (sobj is set)
 *   setup(sm, ncent)          per thread, after the sources are loaded
 *   begin(to)                 per target object, every thread
 *   active()                  warp-uniform: does this warp compute rows for this target
 *   wants(sm, ls)             warp-uniform: does source ls meet this target
 *   pair(sm, ls, m, dist)     lane 0 of the warp owning source ls
 *   end_target(sm, m, to)     every thread, after its warp's pairs with target m (object to)
 *   finish(sm, nsrc)          after the last target (block synchronised)
 * A source ls is always handled by the same warp (ls mod KM_WARPS), and one target's pairs are
 * all done before any warp starts the next target's. */
template <class Epi>
__device__ static __forceinline__ void km_tile_run(const km_dev_data &d, const int32_t *src_ids,
                                                   int nsrc, const int32_t *tgt_ids, int ntgt,
                                                   Epi &epi, km_tile_smem &sm)
{
  const float4 *cent = (const float4 *)d.cent;
  int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (int ls = tid; ls < nsrc; ls += KM_BLOCK) {
    int o = src_ids[ls];
    sm.sobj[ls] = o;
    sm.scr[ls] = d.crank[o];
    sm.cs[ls + 1] = d.off[o + 1] - d.off[o];
    sm.sself[ls] = d.self[o];
  }
  if (tid == 0)
    sm.cs[0] = 0;
  __syncthreads();
  if (warp == 0) { /* inclusive scan of the sizes */
    int carry = 0;
    for (int base = 0; base < nsrc; base += 32) {
      int i = base + lane, v = i < nsrc ? sm.cs[i + 1] : 0;
      for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(KM_FULL, v, o);
        if (lane >= o)
          v += u;
      }
      if (i < nsrc)
        sm.cs[i + 1] = v + carry;
      carry += __shfl_sync(KM_FULL, v, 31);
    }
  }
  __syncthreads();
  int ncent = sm.cs[nsrc];
  for (int ls = warp; ls < nsrc; ls += KM_WARPS)
    for (int q = sm.cs[ls] + lane; q < sm.cs[ls + 1]; q += 32)
      sm.cmap[q] = (uint16_t)ls;
  epi.init(sm, nsrc);
  __syncthreads();

  km_src s;
#pragma unroll
  for (int r = 0; r < KM_PER_THREAD; r++) {
    int q = tid * KM_PER_THREAD + r;
    if (q < ncent) {
      int ls = sm.cmap[q];
      km_load_src(cent, d.off[sm.sobj[ls]] + q - sm.cs[ls], d.scale, s, r);
    } else {
      km_clear_src(s, r);
    }
  }
  epi.setup(sm, ncent);

  float4 v[2];
  if (ntgt > 0) {
    int o = tgt_ids[0], c0 = d.off[o], nt = d.off[o + 1] - c0;
    km_fetch_target(cent, c0, nt, v);
    km_store_target(sm.tgt[0], nt, v);
    if (tid == 0) {
      sm.tsize[0] = nt;
      sm.tobj[0] = o;
    }
  }
  __syncthreads();
  for (int m = 0; m < ntgt; m++) {
    int buf = m & 1, nnt = 0, no = -1;
    if (m + 1 < ntgt) { /* prefetch the next target while this one is computed */
      no = tgt_ids[m + 1];
      int c0 = d.off[no];
      nnt = d.off[no + 1] - c0;
      km_fetch_target(cent, c0, nnt, v);
    }
    int nt = sm.tsize[buf], to = sm.tobj[buf];
    epi.begin(to);
    if (epi.active()) {
      float acc[KM_PER_THREAD];
      km_rows(s, sm.tgt[buf], nt, acc);
      if (tid * KM_PER_THREAD < ncent)
        *(float4 *)&sm.rows[buf][tid * KM_PER_THREAD] = make_float4(acc[0], acc[1], acc[2], acc[3]);
    }
    if (m + 1 < ntgt) {
      km_store_target(sm.tgt[buf ^ 1], nnt, v);
      if (tid == 0) {
        sm.tsize[buf ^ 1] = nnt;
        sm.tobj[buf ^ 1] = no;
      }
    }
    __syncthreads();
    double self_t = d.self[to];
    for (int ls = warp; ls < nsrc; ls += KM_WARPS) {
      if (!epi.wants(sm, ls))
        continue;
      double cross = km_source_sum(sm.rows[buf], sm.cs[ls], sm.cs[ls + 1], lane);
      if (lane == 0)
        epi.pair(sm, ls, m, km_dist(sm.sself[ls], self_t, cross));
    }
    epi.end_target(sm, m, to);
  }
  __syncthreads();
  epi.finish(sm, nsrc);
}

/* A distance as a score term, fixed point (kmedoids_ref.h km_score_fixed: same rounding). */
__device__ static __forceinline__ unsigned long long km_fixed(double x)
{
  return (unsigned long long)__double2ll_rn(x * KM_SCORE_ONE);
}

/* Epilogue of the big-cluster score kernels (one cluster per tile; sources and targets are
 * different positions): a pair ranked source < target adds to the source's partial score (kept
 * in shared memory, added to score[obj] at the end) and to the target's score (each warp adds its
 * sum per target). Add::add(p, v) is how a block adds into global memory. */
template <class Add> struct km_big_epi {
  const int32_t *crank;
  unsigned long long *score; /* by object */
  int mycr[KM_PER_THREAD];   /* rank of the source of each of this thread's centroids */
  int tcr;                   /* rank of the current target */
  unsigned long long tsum;   /* lane 0: this warp's pairs with the current target */
  __device__ void init(km_tile_smem &sm, int nsrc)
  {
    for (int ls = threadIdx.x; ls < nsrc; ls += KM_BLOCK)
      sm.facc[ls] = 0;
  }
  __device__ void setup(km_tile_smem &sm, int ncent)
  {
#pragma unroll
    for (int r = 0; r < KM_PER_THREAD; r++) {
      int q = threadIdx.x * KM_PER_THREAD + r;
      mycr[r] = q < ncent ? sm.scr[sm.cmap[q]] : INT_MAX;
    }
  }
  __device__ void begin(int to)
  {
    tcr = crank[to];
    tsum = 0;
  }
  __device__ bool active() const
  {
    bool mine = false;
#pragma unroll
    for (int r = 0; r < KM_PER_THREAD; r++)
      mine |= mycr[r] < tcr;
    return __any_sync(KM_FULL, mine);
  }
  __device__ bool wants(const km_tile_smem &sm, int ls) const { return sm.scr[ls] < tcr; }
  __device__ void pair(km_tile_smem &sm, int ls, int m, double dist)
  {
    unsigned long long f = km_fixed(dist);
    sm.facc[ls] += f; /* only this warp's lane 0 touches source ls */
    tsum += f;
  }
  __device__ void end_target(km_tile_smem &sm, int m, int to)
  {
    if ((threadIdx.x & 31) == 0 && tsum)
      Add::add(&score[to], tsum);
  }
  __device__ void finish(km_tile_smem &sm, int nsrc)
  {
    for (int ls = threadIdx.x; ls < nsrc; ls += KM_BLOCK)
      if (sm.facc[ls])
        Add::add(&score[sm.sobj[ls]], sm.facc[ls]);
  }
};
