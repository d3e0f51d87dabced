/* Running one case of one variant in this process. See worker.h. */
#include "worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "check.h"
#include "coverage.h"
#include "gpu.h"

static int gpu_state = -1; /* -1 unknown, 0 none, 1 ready */
static char gpu_why[GR_WHY_LEN];

int worker_gpu_ready(char *why, size_t len)
{
  if (gpu_state < 0)
    gpu_state = gr_gpu_device_count(gpu_why, sizeof gpu_why) > 0;
  if (!gpu_state)
    gr_fmt(why, len, "%s", gpu_why);
  return gpu_state;
}

static void set_result(struct case_result *res, enum verdict v, const char *tag, const char *why)
{
  res->verdict = v;
  res->tag = tag;
  gr_fmt(res->why, sizeof res->why, "%s", why);
}

static const char *gib(double bytes, char *buf, size_t len)
{
  return gr_fmt(buf, len, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

unsigned worker_checks(char *why, size_t len)
{
  static const struct {
    const char *name;
    unsigned bit;
  } names[] = {{"parity", WORKER_CHECK_PARITY},   {"invariants", WORKER_CHECK_INVARIANTS},
               {"determinism", WORKER_CHECK_DETERMINISM}, {"output", WORKER_CHECK_OUTPUT},
               {"smem", WORKER_CHECK_SMEM}};
  const char *s = getenv("GR_CHECKS");
  if (!s)
    return WORKER_CHECK_ALL;
  unsigned m = 0;
  while (*s) {
    size_t w = strcspn(s, ",");
    size_t i = 0;
    while (i < sizeof names / sizeof *names &&
           !(strlen(names[i].name) == w && strncmp(s, names[i].name, w) == 0))
      i++;
    if (i == sizeof names / sizeof *names) {
      gr_fmt(why, len, "unknown check '%.*s' in GR_CHECKS (parity, invariants, determinism, "
                       "output, smem)", (int)w, s);
      return 0;
    }
    m |= names[i].bit;
    s += w + (s[w] == ',');
  }
  if (!m)
    gr_fmt(why, len, "GR_CHECKS names no check");
  return m;
}

/* 1 if a failure tagged tag counts under the checks kept */
static int check_kept(unsigned checks, const char *tag)
{
  int inv = tag && strcmp(tag, "invariant") == 0;
  return (checks & (inv ? WORKER_CHECK_INVARIANTS : WORKER_CHECK_PARITY)) != 0;
}

/* Before the case: the checks asked for (GR_WORKER_CHECKS), a ready GPU and enough device memory
 * for a GPU variant. The checks, or 0 with res set (the case ends here). */
static unsigned before_case(const struct gr_case *c, const struct gr_variant *v,
                            struct case_result *res)
{
  char why[GR_WHY_LEN];
  unsigned checks = worker_checks(why, sizeof why);
  if (!checks) {
    set_result(res, VERDICT_ERROR, "input", why);
    return 0;
  }
  if (!(v->flags & GR_VARIANT_GPU))
    return checks;
  if (!worker_gpu_ready(why, sizeof why)) {
    set_result(res, VERDICT_SKIP, "", why);
    return 0;
  }
  size_t free_b, total_b, need = c->alg->device_bytes(c);
  gr_gpu_mem_info(&free_b, &total_b);
  if (need > free_b) {
    char n1[32], n2[32], n3[32];
    gr_fmt(res->why, sizeof res->why,
           "case needs %s of device memory, %s free of %s: use smaller sizes",
           gib((double)need, n1, sizeof n1), gib((double)free_b, n2, sizeof n2),
           gib((double)total_b, n3, sizeof n3));
    res->verdict = VERDICT_ERROR;
    res->tag = "memory";
    return 0;
  }
  return checks;
}

/* The two runs into out[0] and out[1] (different output poison and shared-memory patterns where
 * the checks ask for them), the first checked. 1 when both ran and the first passed (*reached
 * set), 0 with res set. */
static int two_runs(const struct gr_case *c, const struct gr_variant *v,
                    const struct gr_instance *inst, unsigned checks, unsigned char *out[2],
                    uint32_t *reached, struct case_result *res)
{
  const struct gr_algorithm *a = c->alg;
  int gpu = (v->flags & GR_VARIANT_GPU) != 0;
  size_t bytes = inst->out_bytes ? inst->out_bytes : 1;
  struct gr_run_ctx ctx;
  struct gr_check_report rep;
  for (int t = 0; t < 2; t++) {
    memset(&ctx, 0, sizeof ctx);
    ctx.poison = t && (checks & WORKER_CHECK_OUTPUT) ? GR_POISON_B : GR_POISON_A;
    ctx.trial = t;
    memset(out[t], ctx.poison, bytes);
    if (gpu && !(v->flags & GR_VARIANT_NOSHMEM))
      gr_gpu_poison_shared(t && (checks & WORKER_CHECK_SMEM) ? GR_SMEM_POISON_B
                                                             : GR_SMEM_POISON_A);
    enum gr_run_status st = v->run(v, inst, out[t], &ctx);
    if (st == GR_RUN_UNSUPPORTED) {
      set_result(res, VERDICT_SKIP, "", ctx.why);
      return 0;
    }
    if (st != GR_RUN_OK) {
      set_result(res, VERDICT_CRASH, "error", ctx.why[0] ? ctx.why : "variant reported an error");
      return 0;
    }
    if (t == 0) {
      *reached = coverage_mask(c, v, inst) | ctx.reached;
      memset(&rep, 0, sizeof rep);
      int failed = a->check(inst, out[0], &rep);
      res->err = rep.err;
      if (failed && check_kept(checks, rep.tag)) {
        set_result(res, VERDICT_FAIL, rep.tag ? rep.tag : "check", rep.why);
        res->regimes = *reached;
        return 0;
      }
    }
  }
  return 1;
}

void worker_run_case(const struct gr_case *c, const struct gr_variant *v, struct case_result *res)
{
  const struct gr_algorithm *a = c->alg;
  double t0 = now_seconds();
  struct gr_instance *inst = NULL;
  unsigned char *out[2] = {NULL, NULL};
  char why[GR_WHY_LEN];
  uint32_t reached = 0;
  memset(res, 0, sizeof *res);
  res->tag = "";
  unsigned checks = before_case(c, v, res);
  if (!checks)
    goto out;
  if (a->instance_new(c, &inst, why, sizeof why)) {
    set_result(res, VERDICT_ERROR, "input", why);
    goto out;
  }
  size_t bytes = inst->out_bytes ? inst->out_bytes : 1;
  for (int t = 0; t < 2; t++) {
    out[t] = malloc(bytes);
    if (!out[t]) {
      set_result(res, VERDICT_ERROR, "memory", "out of host memory for the output");
      goto out;
    }
  }
  if (!two_runs(c, v, inst, checks, out, &reached, res))
    goto out;
  res->regimes = reached;
  if (!(v->flags & GR_VARIANT_NONDET) &&
      (checks & (WORKER_CHECK_DETERMINISM | WORKER_CHECK_OUTPUT | WORKER_CHECK_SMEM)) &&
      memcmp(out[0], out[1], inst->out_bytes) != 0) {
    size_t i = gr_check_first_diff(out[0], out[1], inst->out_bytes, inst->elem_size);
    gr_fmt(res->why, sizeof res->why,
           "two runs differ from output element %zu on (the first was right): nondeterministic, an "
           "element left unwritten, or a read of stale %s memory",
           i, (v->flags & GR_VARIANT_GPU) ? "shared" : "");
    res->verdict = VERDICT_FAIL;
    res->tag = "determinism";
    goto out;
  }
  res->verdict = VERDICT_PASS;
out:
  free(out[0]);
  free(out[1]);
  if (inst)
    a->instance_free(inst);
  res->seconds = now_seconds() - t0;
}
