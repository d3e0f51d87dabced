/* The toy algorithm: the running maximum of n int32 values, with the CPU reference and one fixed
 * CPU variant (blocked: block maxima first, then each block from its carry). It exists to prove
 * that an algorithm folder plus its registry line is all a new algorithm needs
 * (tests/toy_alg.sh); nothing is measured. */
#include <stdlib.h>

#include "alg.h"
#include "check.h"
#include "gr.h"
#include "toy_ref.h"

#define TOY_BLOCK 64

static const struct gr_param_spec toy_params[] = {
    {"n", GR_PARAM_INT, 1, 1000000, NULL, "values"},
};

struct toy_data {
  int32_t *x, *ref;
};

static enum gr_run_status toy_run_reference(const struct gr_variant *v,
                                            const struct gr_instance *inst, void *out,
                                            struct gr_run_ctx *ctx)
{
  const struct toy_data *d = inst->priv;
  toy_reference(d->x, out, inst->out_bytes / 4);
  return GR_RUN_OK;
}

static enum gr_run_status toy_run_blocked(const struct gr_variant *v,
                                          const struct gr_instance *inst, void *out,
                                          struct gr_run_ctx *ctx)
{
  const struct toy_data *d = inst->priv;
  int32_t *o = out;
  size_t n = inst->out_bytes / 4;
  int32_t carry = INT32_MIN;
  for (size_t b = 0; b < n; b += TOY_BLOCK) {
    size_t end = b + TOY_BLOCK < n ? b + TOY_BLOCK : n;
    int32_t m = carry;
    for (size_t i = b; i < end; i++)
      o[i] = m = d->x[i] > m ? d->x[i] : m;
    carry = m;
  }
  return GR_RUN_OK;
}

static const struct gr_variant toy_variants[] = {
    {"reference", GR_VARIANT_REFERENCE, 0, toy_run_reference, NULL, "serial running maximum"},
    {"v1_blocked", GR_VARIANT_FIXED, 0, toy_run_blocked, NULL, "blocks of 64 with a carry"},
};

static void toy_generate(struct gr_case *c, struct gr_rng *r)
{
  static const int64_t edges[] = {1, 63, 64, 65, 1000};
  c->v[0] = gr_rng_boundary(r, 1, 5000, edges, sizeof edges / sizeof *edges, 0.5);
}

static size_t toy_device_bytes(const struct gr_case *c) { return (size_t)c->v[0] * 8; }

static void toy_work(const struct gr_case *c, double *bytes, double *items)
{
  *bytes = (double)c->v[0] * 8;
  *items = (double)c->v[0];
}

static void toy_free(struct gr_instance *inst)
{
  if (!inst)
    return;
  struct toy_data *d = inst->priv;
  free(d->x);
  free(d->ref);
  free(d);
  free(inst);
}

static int toy_new(const struct gr_case *c, struct gr_instance **out, char *why, size_t len)
{
  size_t n = (size_t)c->v[0];
  struct gr_instance *inst = gr_instance_alloc(c, sizeof(struct toy_data), why, len);
  if (!inst)
    return -1;
  struct toy_data *d = inst->priv;
  if (!(d->x = malloc(n * 4)) || !(d->ref = malloc(n * 4))) {
    toy_free(inst);
    gr_fmt(why, len, "out of host memory");
    return -1;
  }
  struct gr_rng r;
  gr_rng_seed(&r, c->seed);
  for (size_t i = 0; i < n; i++)
    d->x[i] = (int32_t)gr_rng_u32(&r);
  toy_reference(d->x, d->ref, n);
  inst->out_bytes = n * 4;
  inst->elem_size = 4;
  *out = inst;
  return 0;
}

static int toy_check(const struct gr_instance *inst, const void *out, struct gr_check_report *rep)
{
  const struct toy_data *d = inst->priv;
  return gr_check_exact(out, d->ref, inst->out_bytes / 4, GR_ELEM_I32, "max", rep);
}

const struct gr_algorithm toy_algorithm = {
    .name = "toy",
    .summary = "running maximum of int32 values (the test algorithm of tests/toy_alg.sh)",
    .params = toy_params,
    .n_params = sizeof toy_params / sizeof *toy_params,
    .variants = toy_variants,
    .n_variants = sizeof toy_variants / sizeof *toy_variants,
    .generate = toy_generate,
    .device_bytes = toy_device_bytes,
    .instance_new = toy_new,
    .instance_free = toy_free,
    .check = toy_check,
    .work = toy_work,
};
GR_REGISTER_ALGORITHM(toy_algorithm);
