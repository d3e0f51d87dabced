/* avos peer: cuSPARSE SpGEMM (float, plus-times) on the sparsity pattern of the avos product
 * C = A (x) B, every stored entry of A and B set to 1.0f. The structural peer: same rows, same
 * lookups, same output pattern when no avos product term is zero (no parity filter zeroes a term,
 * nothing overflows, no explicit zeros), which the case knows (avos_data.peer_comparable): only
 * then does this variant take a case, and only the pattern (row pointers and columns) is checked
 * (AVOS_ST_PATTERN); the values (path counts) are not comparable and are written as 0. Timed:
 * work estimation, compute and copy with the buffers allocated in setup.
 *
 * cuSPARSE is loaded at run time (dlopen of libcusparse.so.12, or $AVOS_CUSPARSE_LIB), so that
 * no binary of the suite depends on it: where it is missing the peer is skipped with the reason. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "avos_alg.h"
#include <gpuregress/gpu.h>
#include <gpuregress/util.h>

/* device helpers: none (the library) */

struct cusp_api {
  void *lib;
  decltype(&cusparseCreate) create;
  decltype(&cusparseDestroy) destroy;
  decltype(&cusparseSetStream) set_stream;
  decltype(&cusparseCreateCsr) create_csr;
  decltype(&cusparseDestroySpMat) destroy_spmat;
  decltype(&cusparseSpGEMM_createDescr) create_descr;
  decltype(&cusparseSpGEMM_destroyDescr) destroy_descr;
  decltype(&cusparseSpGEMM_workEstimation) work_estimation;
  decltype(&cusparseSpGEMM_compute) compute;
  decltype(&cusparseSpGEMM_copy) copy;
  decltype(&cusparseSpMatGetSize) get_size;
  decltype(&cusparseCsrSetPointers) set_pointers;
  decltype(&cusparseGetErrorString) error_string;
};

static struct cusp_api cusp;

/* 0 ok, -1 with why. Loads once per process. */
static int cusp_load(char *why, size_t len)
{
  if (cusp.lib)
    return 0;
  const char *env = getenv("AVOS_CUSPARSE_LIB");
  const char *names[] = {env, "libcusparse.so.12", "/usr/local/cuda/lib64/libcusparse.so.12",
                         "/usr/local/cuda/targets/x86_64-linux/lib/libcusparse.so.12",
                         "libcusparse.so"};
  void *lib = NULL;
  const char *err = "not found";
  for (size_t i = 0; i < sizeof names / sizeof *names && !lib; i++) {
    if (!names[i])
      continue;
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      err = dlerror();
  }
  if (!lib) {
    gr_fmt(why, len, "cannot load cuSPARSE ('libcusparse.so.12': %s): set AVOS_CUSPARSE_LIB", err);
    return -1;
  }
#define CUSP_SYM(field, name)                                                                      \
  do {                                                                                             \
    *(void **)&cusp.field = dlsym(lib, name);                                                      \
    if (!cusp.field) {                                                                             \
      gr_fmt(why, len, "cuSPARSE has no '%s'", name);                                              \
      dlclose(lib);                                                                                \
      return -1;                                                                                   \
    }                                                                                              \
  } while (0)
  CUSP_SYM(create, "cusparseCreate");
  CUSP_SYM(destroy, "cusparseDestroy");
  CUSP_SYM(set_stream, "cusparseSetStream");
  CUSP_SYM(create_csr, "cusparseCreateCsr");
  CUSP_SYM(destroy_spmat, "cusparseDestroySpMat");
  CUSP_SYM(create_descr, "cusparseSpGEMM_createDescr");
  CUSP_SYM(destroy_descr, "cusparseSpGEMM_destroyDescr");
  CUSP_SYM(work_estimation, "cusparseSpGEMM_workEstimation");
  CUSP_SYM(compute, "cusparseSpGEMM_compute");
  CUSP_SYM(copy, "cusparseSpGEMM_copy");
  CUSP_SYM(get_size, "cusparseSpMatGetSize");
  CUSP_SYM(set_pointers, "cusparseCsrSetPointers");
  CUSP_SYM(error_string, "cusparseGetErrorString");
#undef CUSP_SYM
  cusp.lib = lib;
  return 0;
}

struct cusp_state {
  const struct gr_instance *inst;
  cusparseHandle_t handle;
  cusparseSpMatDescr_t mat_a, mat_b, mat_c;
  cusparseSpGEMMDescr_t descr;
  int *a_ptr, *a_idx, *b_ptr, *b_idx, *c_ptr, *c_idx;
  float *a_val, *b_val, *c_val;
  void *buf1, *buf2;
  size_t size1, size2;
  long long c_nnz;
  int rows, cols;
  cusparseStatus_t failed; /* first failure of a timed launch */
};

#define CUSP_TRY(call, what)                                                                       \
  do {                                                                                             \
    cusparseStatus_t e_ = (call);                                                                  \
    if (e_ != CUSPARSE_STATUS_SUCCESS) {                                                           \
      gr_fmt(why, len, "cuSPARSE %s failed: %s", what, cusp.error_string(e_));                     \
      goto fail;                                                                                   \
    }                                                                                              \
  } while (0)

static void upload_pattern(const struct avos_csr *m, int **ptr, int **idx, float **val)
{
  long long nnz = avos_csr_nnz(m);
  float *ones = (float *)malloc((size_t)(nnz ? nnz : 1) * sizeof(float));
  if (!ones)
    gr_cuda_fail("malloc", __func__, __FILE__, __LINE__, 2);
  for (long long i = 0; i < nnz; i++)
    ones[i] = 1.0f;
  GR_CUDA_CHECK(cudaMalloc((void **)ptr, ((size_t)m->rows + 1) * sizeof(int)));
  GR_CUDA_CHECK(cudaMalloc((void **)idx, (size_t)(nnz ? nnz : 1) * sizeof(int)));
  GR_CUDA_CHECK(cudaMalloc((void **)val, (size_t)(nnz ? nnz : 1) * sizeof(float)));
  GR_CUDA_CHECK(cudaMemcpy(*ptr, m->indptr, ((size_t)m->rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  if (nnz) {
    GR_CUDA_CHECK(cudaMemcpy(*idx, m->indices, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    GR_CUDA_CHECK(cudaMemcpy(*val, ones, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
  }
  free(ones);
}

/* kernels: none */

/* launcher: the SpGEMM sequence with the buffers in place */

static cusparseStatus_t cusp_spgemm(struct cusp_state *s)
{
  const float alpha = 1.0f, beta = 0.0f;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseStatus_t e;
  if (s->descr)
    cusp.destroy_descr(s->descr);
  s->descr = NULL;
  if ((e = cusp.create_descr(&s->descr)))
    return e;
  if ((e = cusp.work_estimation(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c,
                                CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, s->descr, &s->size1, s->buf1)))
    return e;
  if ((e = cusp.compute(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c, CUDA_R_32F,
                        CUSPARSE_SPGEMM_DEFAULT, s->descr, &s->size2, s->buf2)))
    return e;
  return cusp.copy(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c, CUDA_R_32F,
                   CUSPARSE_SPGEMM_DEFAULT, s->descr);
}

extern "C" void avos_cusparse_teardown(void *state)
{
  struct cusp_state *s = (struct cusp_state *)state;
  if (!s)
    return;
  if (s->descr)
    cusp.destroy_descr(s->descr);
  if (s->mat_a)
    cusp.destroy_spmat(s->mat_a);
  if (s->mat_b)
    cusp.destroy_spmat(s->mat_b);
  if (s->mat_c)
    cusp.destroy_spmat(s->mat_c);
  if (s->handle)
    cusp.destroy(s->handle);
  void *bufs[] = {s->a_ptr, s->a_idx, s->a_val, s->b_ptr, s->b_idx, s->b_val,
                  s->c_ptr, s->c_idx, s->c_val, s->buf1,  s->buf2};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i])
      GR_CUDA_CHECK(cudaFree(bufs[i]));
  free(s);
}

extern "C" void *avos_cusparse_setup(const struct gr_instance *inst, char *why, size_t len)
{
  const struct avos_data *d = (const struct avos_data *)inst->priv;
  const float alpha = 1.0f, beta = 0.0f;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  int64_t r64, c64, nnz64;
  if (avos_peer_takes(inst, why, len))
    return NULL;
  if (cusp_load(why, len))
    return NULL;
  struct cusp_state *s = (struct cusp_state *)calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(why, len, "out of host memory");
    return NULL;
  }
  const struct avos_csr *b = d->b_is_a ? &d->a : &d->b;
  s->inst = inst;
  s->rows = d->a.rows;
  s->cols = b->cols;
  upload_pattern(&d->a, &s->a_ptr, &s->a_idx, &s->a_val);
  upload_pattern(b, &s->b_ptr, &s->b_idx, &s->b_val);
  /* C's row offsets and the two work buffers zeroed: the scan cuSPARSE runs inside its SpGEMM
   * (CUB's DeviceScanKernel) reads 4-byte words of them before it writes them (initcheck, H200,
   * CUDA 13.0, op=spgemm n=1) */
  GR_CUDA_CHECK(cudaMalloc((void **)&s->c_ptr, ((size_t)s->rows + 1) * sizeof(int)));
  GR_CUDA_CHECK(cudaMemset(s->c_ptr, 0, ((size_t)s->rows + 1) * sizeof(int)));
  CUSP_TRY(cusp.create(&s->handle), "create");
  CUSP_TRY(cusp.set_stream(s->handle, 0), "set stream");
  CUSP_TRY(cusp.create_csr(&s->mat_a, d->a.rows, d->a.cols, avos_csr_nnz(&d->a), s->a_ptr, s->a_idx,
                           s->a_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                           CUDA_R_32F),
           "create A");
  CUSP_TRY(cusp.create_csr(&s->mat_b, b->rows, b->cols, avos_csr_nnz(b), s->b_ptr, s->b_idx, s->b_val,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
           "create B");
  CUSP_TRY(cusp.create_csr(&s->mat_c, s->rows, s->cols, 0, s->c_ptr, NULL, NULL, CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
           "create C");
  CUSP_TRY(cusp.create_descr(&s->descr), "create descriptor");
  CUSP_TRY(cusp.work_estimation(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c,
                                CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, s->descr, &s->size1, NULL),
           "work estimation (size)");
  GR_CUDA_CHECK(cudaMalloc(&s->buf1, s->size1 ? s->size1 : 1));
  GR_CUDA_CHECK(cudaMemset(s->buf1, 0, s->size1 ? s->size1 : 1));
  CUSP_TRY(cusp.work_estimation(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c,
                                CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, s->descr, &s->size1, s->buf1),
           "work estimation");
  CUSP_TRY(cusp.compute(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c, CUDA_R_32F,
                        CUSPARSE_SPGEMM_DEFAULT, s->descr, &s->size2, NULL),
           "compute (size)");
  GR_CUDA_CHECK(cudaMalloc(&s->buf2, s->size2 ? s->size2 : 1));
  GR_CUDA_CHECK(cudaMemset(s->buf2, 0, s->size2 ? s->size2 : 1));
  CUSP_TRY(cusp.compute(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c, CUDA_R_32F,
                        CUSPARSE_SPGEMM_DEFAULT, s->descr, &s->size2, s->buf2),
           "compute");
  CUSP_TRY(cusp.get_size(s->mat_c, &r64, &c64, &nnz64), "get size");
  s->c_nnz = nnz64;
  GR_CUDA_CHECK(cudaMalloc((void **)&s->c_idx, (size_t)(nnz64 ? nnz64 : 1) * sizeof(int)));
  GR_CUDA_CHECK(cudaMalloc((void **)&s->c_val, (size_t)(nnz64 ? nnz64 : 1) * sizeof(float)));
  CUSP_TRY(cusp.set_pointers(s->mat_c, s->c_ptr, s->c_idx, s->c_val), "set pointers");
  CUSP_TRY(cusp.copy(s->handle, op, op, &alpha, s->mat_a, s->mat_b, &beta, s->mat_c, CUDA_R_32F,
                     CUSPARSE_SPGEMM_DEFAULT, s->descr),
           "copy");
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  return s;
fail:
  avos_cusparse_teardown(s);
  return NULL;
}

extern "C" void avos_cusparse_launch(void *state, void *stream)
{
  struct cusp_state *s = (struct cusp_state *)state;
  cusparseStatus_t e = cusp.set_stream(s->handle, (cudaStream_t)stream);
  if (!e)
    e = cusp_spgemm(s);
  if (e && !s->failed)
    s->failed = e;
}

static int cmp_int(const void *x, const void *y)
{
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

extern "C" void avos_cusparse_fetch(void *state, void *out)
{
  struct cusp_state *s = (struct cusp_state *)state;
  const struct avos_data *d = (const struct avos_data *)s->inst->priv;
  GR_CUDA_CHECK(cudaDeviceSynchronize());
  long long keep = s->c_nnz < d->cap ? s->c_nnz : d->cap;
  int *ptr = (int *)malloc(((size_t)s->rows + 1) * sizeof(int));
  int *idx = (int *)malloc((size_t)(s->c_nnz ? s->c_nnz : 1) * sizeof(int));
  void *zeros = calloc((size_t)(keep ? keep : 1), d->tsize);
  if (!ptr || !idx || !zeros)
    gr_cuda_fail("malloc", __func__, __FILE__, __LINE__, 2);
  GR_CUDA_CHECK(cudaMemcpy(ptr, s->c_ptr, ((size_t)s->rows + 1) * sizeof(int), cudaMemcpyDeviceToHost));
  if (s->c_nnz)
    GR_CUDA_CHECK(cudaMemcpy(idx, s->c_idx, (size_t)s->c_nnz * sizeof(int), cudaMemcpyDeviceToHost));
  for (int r = 0; r < s->rows; r++) /* cuSPARSE does not promise sorted rows: the set is compared */
    if (ptr[r] >= 0 && ptr[r] <= ptr[r + 1] && ptr[r + 1] <= s->c_nnz)
      qsort(idx + ptr[r], (size_t)(ptr[r + 1] - ptr[r]), sizeof(int), cmp_int);
  int64_t status[AVOS_STATUS_WORDS] = {0};
  status[AVOS_ST_NNZ] = s->failed ? -1 : s->c_nnz;
  status[AVOS_ST_CYCLE] = -1;
  status[AVOS_ST_FIRST_OVF] = -1;
  status[AVOS_ST_PATTERN] = 1;
  avos_out_matrix(s->inst, out, status, ptr, idx, zeros, keep);
  free(ptr);
  free(idx);
  free(zeros);
}
