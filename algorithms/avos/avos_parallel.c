/* The reference's products over the CPUs (avos_alg.h): rows cut into pieces, each piece
 * avos_spgemm_rows on a thread of gr_parallel_for, then joined in row order. */
#include "avos_alg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpuregress/util.h>

struct piece {
  struct avos_csr c;
  struct avos_stats st;
  int failed;
  char why[GR_WHY_LEN];
};

struct product_job {
  const struct avos_csr *a, *b, *s;
  int bits;
  size_t n, threads; /* pieces; thread t takes pieces t, t + threads, ... */
  struct piece *p;
};

static int32_t piece_row(const struct product_job *job, size_t k)
{
  return (int32_t)((int64_t)job->a->rows * (int64_t)k / (int64_t)job->n);
}

/* threads [lo, hi) of job->threads: thread t the pieces t, t + threads, ... (a genealogy's rows
 * are in generation order, the late ones heavy: contiguous halves were 0.99 s of CPU time in
 * 1.09 s on two CPUs) */
static void thread_chunk(void *ctx, size_t lo, size_t hi)
{
  struct product_job *job = ctx;
  for (size_t t = lo; t < hi; t++)
    for (size_t k = t; k < job->n; k += job->threads) {
      struct piece *p = &job->p[k];
      p->st.cycle_vertex = -1;
      p->failed = avos_spgemm_rows(job->a, job->b, job->s, job->bits, piece_row(job, k),
                                   piece_row(job, k + 1), &p->c, &p->st, p->why,
                                   sizeof p->why) != 0;
    }
}

int avos_spgemm_parallel(const struct avos_csr *a, const struct avos_csr *b,
                         const struct avos_csr *s, int bits, struct avos_csr *c,
                         struct avos_stats *st, char *why, size_t len)
{
  memset(c, 0, sizeof *c);
  if (avos_spgemm_shapes(a, b, s, why, len))
    return -1;
  /* rows are uneven (a genealogy's founders have none, its late generations many): 16 pieces a
   * thread, dealt round-robin */
  size_t threads = gr_parallel_threads((size_t)a->rows, 64);
  if (threads <= 1)
    return avos_spgemm_rows(a, b, s, bits, 0, a->rows, c, st, why, len);
  size_t n = 16 * threads;
  struct product_job job = {a, b, s, bits, n, threads, calloc(n, sizeof *job.p)};
  if (!job.p) {
    gr_fmt(why, len, "out of host memory for a %d x %d product", a->rows, b->cols);
    return -1;
  }
  gr_parallel_for(threads, 1, thread_chunk, &job);
  int rc = 0;
  int64_t nnz = 0;
  for (size_t k = 0; k < job.n && !rc; k++) {
    if (job.p[k].failed) {
      gr_fmt(why, len, "%s", job.p[k].why);
      rc = -1;
    }
    nnz += job.p[k].failed ? 0 : job.p[k].c.indptr[job.p[k].c.rows];
  }
  if (!rc && nnz > INT32_MAX) {
    gr_fmt(why, len, "product has more than 2^31-1 entries");
    rc = -1;
  }
  if (!rc && avos_csr_alloc(c, a->rows, b->cols, nnz)) {
    gr_fmt(why, len, "out of host memory for a %d x %d product", a->rows, b->cols);
    rc = -1;
  }
  for (size_t k = 0, at = 0; !rc && k < job.n; k++) { /* join, in row order */
    const struct piece *p = &job.p[k];
    int32_t r0 = piece_row(&job, k), m = p->c.indptr[p->c.rows];
    for (int32_t r = 0; r < p->c.rows; r++)
      c->indptr[r0 + r + 1] = (int32_t)at + p->c.indptr[r + 1];
    memcpy(c->indices + at, p->c.indices, (size_t)m * sizeof *c->indices);
    memcpy(c->values + at, p->c.values, (size_t)m * sizeof *c->values);
    at += (size_t)m;
    st->overflow += p->st.overflow;
    if (p->st.cycle_vertex >= 0 && (st->cycle_vertex < 0 || p->st.cycle_vertex < st->cycle_vertex))
      st->cycle_vertex = p->st.cycle_vertex;
  }
  for (size_t k = 0; k < job.n; k++)
    avos_csr_release(&job.p[k].c);
  free(job.p);
  return rc;
}
