/* The kmedoids GPU lifecycle (alg.h: struct gr_gpu_lifecycle) of the in-process GPU variants,
 * v1_racy_score and v2_gpu (the mpi_* variants are mpirun processes with runs of their own, timed
 * by kmedoids_mpi --time).
 *
 * setup prepares the dataset on the device (km_gpu_new: it stays resident). The work needs the
 * host between its kernels: each iteration reads the assignment and the scores back, picks the
 * new medoids and stops when they stop moving (km_engine.c). So kmedoids has a run step: in the
 * checked run, the engine's whole run, whose result fetch packs; in a benchmark, one iteration at
 * the initial medoids (the assignment, then the score plan of its clusters), whose kernels launch
 * replays (the timed unit: one iteration's kernels); after the timing loop fetch runs the engine
 * from the start, so that the check after timing judges the variant's full run. The outputs
 * poisoned by the harness are the device's assignment and distances, which the first iteration's
 * kernel must write in full before the engine reads them back (km_gpu.cu checks what it reads). */
#ifndef GR_HOST_ONLY

#include <stdlib.h>
#include <string.h>

#include <gpuregress/util.h>
#include "km_engine.h"
#include "km_gpu.h"
#include "km_mpirun.h"
#include "kmedoids_alg.h"

/* One case on the device. */
struct km_case {
  struct km_gpu *g;
  struct km_result res; /* the checked run's result (has_res) */
  int has_res;
};

static enum gr_run_status km_setup(struct gr_gpu_case *c)
{
  const struct km_data *d = c->inst->priv;
  if (!c->variant->impl) {
    gr_fmt(c->why, sizeof c->why, "%s is timed by kmedoids_mpi --time (tests/test_kmedoids_bench)",
           c->variant->name);
    return GR_RUN_UNSUPPORTED;
  }
  struct km_case *s = calloc(1, sizeof *s);
  if (!s) {
    gr_fmt(c->why, sizeof c->why, "out of host memory");
    return GR_RUN_ERROR;
  }
  int st = km_gpu_new(&d->ds, d->cfg.alpha, 0, d->ds.n, (km_score_big_fn)c->variant->impl, &s->g,
                      c->why, sizeof c->why);
  if (st) {
    free(s);
    return st > 0 ? GR_RUN_UNSUPPORTED : GR_RUN_ERROR;
  }
  km_gpu_outputs(s->g, &c->out[0], &c->out_bytes[0], &c->out[1], &c->out_bytes[1]);
  c->state = s;
  return GR_RUN_OK;
}

/* The engine's run from the initial medoids into *res (allocated here). 0, or -1 with why. */
static int km_engine_full(struct km_case *s, const struct km_data *d, struct km_result *res,
                          char *why, size_t len)
{
  struct km_backend be = km_gpu_backend_ops;
  be.ctx = s->g;
  if (km_result_alloc(res, d->ds.n, d->cfg.k, d->cfg.iters)) {
    gr_fmt(why, len, "out of host memory for the result");
    return -1;
  }
  return km_engine_run(&d->cfg, d->ds.n, &be, &km_comm_single, res, NULL, why, len) ? -1 : 0;
}

/* One iteration at the initial medoids, so that the medoids and that iteration's score plan stay
 * on the device for the launches to replay. 0, or -1 with why. */
static int km_first_iteration(struct km_case *s, const struct km_data *d, char *why, size_t len)
{
  struct km_result res;
  memset(&res, 0, sizeof res);
  if (km_result_alloc(&res, d->ds.n, d->cfg.k, 0)) {
    km_result_release(&res);
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  struct km_backend be = km_gpu_backend_ops;
  be.ctx = s->g;
  double *mind = malloc(sizeof(double) * (size_t)d->ds.n);
  uint64_t *score = calloc((size_t)d->ds.n, sizeof *score);
  struct km_clusters cl;
  memset(&cl, 0, sizeof cl);
  struct km_work *work = NULL;
  int n_work = 0;
  int err = !mind || !score || km_init_medoids(d->ds.n, d->cfg.k, d->cfg.init_seed, res.medoids);
  if (!err)
    err = be.assign(s->g, res.medoids, d->cfg.k, 0, d->ds.n, res.assign, mind, why, len);
  if (!err)
    err = km_clusters_build(&cl, res.assign, d->ds.n, d->cfg.k) ||
          km_split_work(&cl, 0, 1, &work, &n_work);
  if (!err && n_work)
    err = be.score(s->g, res.assign, &cl, work, n_work, score, why, len);
  if (err && !why[0])
    gr_fmt(why, len, "out of host memory");
  free(score);
  free(work);
  free(mind);
  km_clusters_release(&cl);
  km_result_release(&res);
  return err ? -1 : 0;
}

static enum gr_run_status km_run(struct gr_gpu_case *c, void *stream)
{
  struct km_case *s = c->state;
  const struct km_data *d = c->inst->priv;
  km_gpu_set_stream(s->g, stream);
  if (c->bench)
    return km_first_iteration(s, d, c->why, sizeof c->why) ? GR_RUN_ERROR : GR_RUN_OK;
  s->has_res = 1; /* allocated, released in teardown */
  if (km_engine_full(s, d, &s->res, c->why, sizeof c->why))
    return GR_RUN_ERROR;
  int n_small, n_big;
  km_gpu_plan_counts(s->g, &n_small, &n_big, NULL);
  c->reached |= (n_small ? 1u << KM_REGIME_SMALL : 0) | (n_big ? 1u << KM_REGIME_BIG : 0);
  return GR_RUN_OK;
}

/* The kernels of the iteration run planned: the assignment, the score kernels. */
static enum gr_run_status km_launch(struct gr_gpu_case *c, void *stream)
{
  struct km_case *s = c->state;
  km_gpu_set_stream(s->g, stream);
  km_gpu_enqueue_iteration(s->g);
  return GR_RUN_OK;
}

static enum gr_run_status km_fetch(struct gr_gpu_case *c, void *out)
{
  struct km_case *s = c->state;
  const struct km_data *d = c->inst->priv;
  if (!c->bench) {
    km_out_pack(&s->res, out);
    return GR_RUN_OK;
  }
  struct km_result res;
  memset(&res, 0, sizeof res);
  char why[GR_WHY_LEN] = "";
  if (km_engine_full(s, d, &res, why, sizeof why)) {
    memset(out, 0xff, km_out_layout(d->ds.n, d->cfg.k, d->cfg.iters).bytes); /* steps = -1 */
    gr_fmt(c->why, sizeof c->why, "%s", why);
  } else {
    km_out_pack(&res, out);
  }
  km_result_release(&res);
  return GR_RUN_OK;
}

static void km_teardown(struct gr_gpu_case *c)
{
  struct km_case *s = c->state;
  if (!s)
    return;
  if (s->has_res)
    km_result_release(&s->res);
  km_gpu_free(s->g);
  free(s);
  c->state = NULL;
}

const struct gr_gpu_lifecycle km_lifecycle = {km_setup, km_launch, km_fetch, km_teardown, km_run};

#endif
