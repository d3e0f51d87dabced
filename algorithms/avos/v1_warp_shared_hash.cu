/* avos v1_warp_shared_hash (historical). The SpGEMM count and value kernels of the original CUDA
 * design notes (doc/algorithms.md), kept as written: one thread per row, but the hash table in shared
 * memory is one per warp ("Use small fixed-size hash table in shared memory per warp"), so the 32
 * rows of a warp insert into the same table. A row's count is then the number of columns it was
 * the first of its warp to insert, the accumulator is updated with a plain read-modify-write
 * ("Need atomic operation to handle potential conflicts" -- and none is used) so two lanes adding
 * to one slot lose one update, and each row's output is the smallest keys of the whole warp's
 * table. The early `if (row >= m) return;` before the warp-cooperative initialisation also leaves
 * the slots of a partial last warp's missing lanes holding whatever shared memory held. Kept from
 * the notes: HASH_SIZE slots per warp (256 here), key % size probing, the value step's write
 * through slot -1 when the table is full (it lands in the warp's own last key slot). Changed only
 * where the original would fault or hang, which would end the whole test process instead of
 * failing a case: the shared allocation holds keys and values for every warp (the notes' launch
 * gave each warp HASH_SIZE ints for both), the modulo is taken unsigned, a column outside B is
 * skipped, __syncwarp names the lanes still running, and products use the fixed helpers. The fix
 * (v2_warp_hash): a warp per row with a row-private table and atomic accumulation. Product steps
 * only; elementwise steps are unsupported. */
#include <cuda_runtime.h>

#include "avos.h"
#include "avos_common.cuh"

#define V1_HASH_SIZE 256
#define V1_THREADS 256

/* device helpers */

struct avos_ops_v1_shared { /* the fixed sum and MSB: this variant's bug is in the kernels */
  template <typename T> static __device__ __forceinline__ T sum(T x, T y)
  {
    if (x == 0)
      return y;
    if (y == 0)
      return x;
    return x < y ? x : y;
  }
  template <typename T> static __device__ __forceinline__ int msb(T x)
  {
    if (x <= 1)
      return 0;
    typedef typename avos_traits<T>::ut UT;
    UT ux = (UT)x;
    if (sizeof(T) == 8)
      return 63 - __clzll((long long)ux);
    return 31 - __clz((int)(uint32_t)ux);
  }
  static constexpr bool fallback = true;
  static constexpr bool thread_rows = false;
};

__device__ static bool v1_hash_insert(int *hash_table, int size, int key)
{
  int slot = (int)((unsigned)key % (unsigned)size);
  for (int i = 0; i < size; i++) {
    int probe = (slot + i) % size;
    int old = atomicCAS(&hash_table[probe], -1, key);
    if (old == -1)
      return true; /* new insertion */
    if (old == key)
      return false; /* already exists */
  }
  return false; /* hash table full: "should not happen with proper sizing" */
}

__device__ static int v1_hash_find_or_insert(int *hash_table, int size, int key)
{
  int slot = (int)((unsigned)key % (unsigned)size);
  for (int i = 0; i < size; i++) {
    int probe = (slot + i) % size;
    int old = atomicCAS(&hash_table[probe], -1, key);
    if (old == -1 || old == key)
      return probe;
  }
  return -1; /* error: table full */
}

/* The nnz smallest keys of the table, in order, with their values. */
template <typename T>
__device__ static void v1_extract_and_sort(const int *col_hash, const T *val_accum, int size,
                                           int *out_idx, T *out_val, int nnz)
{
  long long last = -1;
  for (int r = 0; r < nnz; r++) {
    long long best = 0x7fffffffffffll;
    int at = -1;
    for (int s = 0; s < size; s++) {
      int k = col_hash[s];
      if (k != -1 && k > last && k < best) {
        best = k;
        at = s;
      }
    }
    if (at < 0)
      return;
    out_idx[r] = (int)best;
    out_val[r] = val_accum[at];
    last = best;
  }
}

/* kernels */

template <typename T> static __global__ void v1_count_nnz_kernel(const struct avos_args a)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.rows)
    return;

  extern __shared__ int shared_hash[];
  int lane_id = threadIdx.x % 32;
  int warp_id = threadIdx.x / 32;
  int *my_hash = &shared_hash[warp_id * V1_HASH_SIZE];

  for (int i = lane_id; i < V1_HASH_SIZE; i += 32)
    my_hash[i] = -1;
  __syncwarp(__activemask());

  int count = 0;
  const T *a_data = (const T *)a.a_val, *b_data = (const T *)a.b_val;
  if (a.s_ptr) /* the closure's addend: its columns are inserted like products */
    for (int p = a.s_ptr[row]; p < a.s_ptr[row + 1]; p++)
      if (((const T *)a.s_val)[p] != 0 && v1_hash_insert(my_hash, V1_HASH_SIZE, a.s_idx[p]))
        count++;
  for (int a_idx = a.a_ptr[row]; a_idx < a.a_ptr[row + 1]; a_idx++) {
    T a_val = a_data[a_idx];
    if (a_val == 0)
      continue;
    int k = a.a_idx[a_idx];
    if ((unsigned)k >= (unsigned)a.inner)
      continue;
    for (int b_idx = a.b_ptr[k]; b_idx < a.b_ptr[k + 1]; b_idx++) {
      T b_val = b_data[b_idx];
      if (b_val == 0)
        continue;
      int o = 0;
      T prod = avos_product<avos_ops_v1_shared, T>(a_val, b_val, &o);
      if (prod == 0)
        continue;
      int col = a.b_idx[b_idx];
      bool is_new = v1_hash_insert(my_hash, V1_HASH_SIZE, col);
      if (is_new)
        count++;
    }
  }
  a.counts[row] = count;
}

template <typename T> static __global__ void v1_compute_values_kernel(const struct avos_args a)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.rows)
    return;

  extern __shared__ unsigned long long v1_shared_mem[];
  char *shared_mem = (char *)v1_shared_mem;
  int lane_id = threadIdx.x % 32;
  int warp_id = threadIdx.x / 32;
  int *col_hash = (int *)&shared_mem[warp_id * V1_HASH_SIZE * (sizeof(int) + sizeof(T))];
  T *val_accum = (T *)&col_hash[V1_HASH_SIZE];

  for (int i = lane_id; i < V1_HASH_SIZE; i += 32) {
    col_hash[i] = -1;
    val_accum[i] = 0;
  }
  __syncwarp(__activemask());

  const T *a_data = (const T *)a.a_val, *b_data = (const T *)a.b_val;
  unsigned ovf = 0;
  if (a.s_ptr)
    for (int p = a.s_ptr[row]; p < a.s_ptr[row + 1]; p++) {
      T v = ((const T *)a.s_val)[p];
      if (v == 0)
        continue;
      int slot = v1_hash_find_or_insert(col_hash, V1_HASH_SIZE, a.s_idx[p]);
      val_accum[slot] = avos_ops_v1_shared::sum<T>(val_accum[slot], v);
    }
  for (int a_idx = a.a_ptr[row]; a_idx < a.a_ptr[row + 1]; a_idx++) {
    T a_val = a_data[a_idx];
    if (a_val == 0)
      continue;
    int k = a.a_idx[a_idx];
    if ((unsigned)k >= (unsigned)a.inner)
      continue;
    for (int b_idx = a.b_ptr[k]; b_idx < a.b_ptr[k + 1]; b_idx++) {
      T b_val = b_data[b_idx];
      if (b_val == 0)
        continue;
      int o = 0;
      T prod = avos_product<avos_ops_v1_shared, T>(a_val, b_val, &o);
      ovf += o;
      if (prod == 0)
        continue;
      int col = a.b_idx[b_idx];
      avos_note_cycle(a, row, col, (long long)prod);
      int slot = v1_hash_find_or_insert(col_hash, V1_HASH_SIZE, col);
      /* accumulate using avos_sum: a plain read-modify-write, shared by the warp's 32 rows */
      T old_val = val_accum[slot];
      T new_val = avos_ops_v1_shared::sum<T>(old_val, prod);
      val_accum[slot] = new_val;
    }
  }
  __syncwarp(__activemask());
  if (ovf)
    atomicAdd(&a.stats->overflow, (unsigned long long)ovf);

  int c_start = a.c_ptr[row];
  int nnz = a.c_ptr[row + 1] - c_start;
  if (c_start + (long long)nnz > a.c_cap) /* replays: counts vary run to run */
    nnz = c_start < a.c_cap ? (int)(a.c_cap - c_start) : 0;
  if (nnz > 0)
    v1_extract_and_sort(col_hash, val_accum, V1_HASH_SIZE, &a.c_idx[c_start],
                        &((T *)a.c_val)[c_start], nnz);
}

/* launcher */

template <typename T> static int v1_launch_typed(int step, const struct avos_args *a, cudaStream_t st)
{
  int blocks = (a->rows + V1_THREADS - 1) / V1_THREADS;
  switch (step) {
  case AVOS_STEP_SYMBOLIC:
    if (a->rows > 0) {
      v1_count_nnz_kernel<T><<<blocks, V1_THREADS, V1_THREADS / 32 * V1_HASH_SIZE * sizeof(int), st>>>(*a);
      GR_CUDA_LAUNCH_CHECK();
    }
    return 0;
  case AVOS_STEP_NUMERIC:
    if (a->rows > 0) {
      v1_compute_values_kernel<T><<<blocks, V1_THREADS,
                                    V1_THREADS / 32 * V1_HASH_SIZE * (sizeof(int) + sizeof(T)), st>>>(*a);
      GR_CUDA_LAUNCH_CHECK();
    }
    return 0;
  case AVOS_STEP_SYMBOLIC_GLOBAL:
  case AVOS_STEP_NUMERIC_GLOBAL:
    return 0; /* no global tier */
  case AVOS_STEP_COMPARE:
    return avos_launch_common<avos_ops_v1_shared>(step, a, st);
  }
  return 1; /* no elementwise kernels */
}

extern "C" int avos_v1_warp_shared_hash_launch(int step, const struct avos_args *a, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  switch (a->type) {
  case AVOS_INT8: return v1_launch_typed<int8_t>(step, a, st);
  case AVOS_INT16: return v1_launch_typed<int16_t>(step, a, st);
  case AVOS_INT32: return v1_launch_typed<int32_t>(step, a, st);
  case AVOS_INT64: return v1_launch_typed<int64_t>(step, a, st);
  }
  return 1;
}
