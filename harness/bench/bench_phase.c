/* The timing layer's entries for the commands: a plan timed into a run and summarised, the
 * timing phase of `run --bench`, the comparison of bench --against. See bench_phase.h. The
 * parent stays CUDA-free: the benchmarks run in a child process (child.c). */
#define _GNU_SOURCE
#include "bench_phase.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "runner.h"
#include "shard.h"

/* A run id (> 0): 0 ok, -1 junk (the command line's rule, cli_parse_run). */
static int parse_run(const char *s, int64_t *out)
{
  uint64_t u;
  if (gr_parse_u64(s, &u) || u == 0 || u > INT64_MAX)
    return -1;
  *out = (int64_t)u;
  return 0;
}

static void on_bench_signal(int sig)
{
  (void)sig;
  bench_interrupted = 1;
  runner_interrupted = 1;
}

int bench_session(struct store *st, int64_t run, struct bench_plan *p, struct bench_opts *o,
                  const char *cmd)
{
  FILE *human = o->json && !strcmp(o->json, "-") ? stderr : stdout; /* stdout: the JSON's */
  char why[GR_WHY_LEN];
  o->store = st;
  o->run_id = run;
  signal(SIGINT, on_bench_signal);
  signal(SIGTERM, on_bench_signal);
  signal(SIGHUP, on_bench_signal);
  enum gr_status status = bench_execute(p, o, why, sizeof why);
  if (store_write_failed(st))
    return GR_EXIT_USAGE; /* the caller says why, with nothing more printed */
  if (status != GR_STATUS_OK) {
    fprintf(stderr, "gpuregress %s: %s\n", cmd, why);
    return gr_status_exit(status);
  }
  bench_print_summary(human, p, o);
  if (bench_interrupted)
    return 130;
  if (bench_failed(p))
    return GR_EXIT_FAIL;
  if (bench_all_no_gpu(p))
    return GR_EXIT_ENV;
  return GR_EXIT_OK;
}

int bench_phase(struct store *st, int64_t run, const struct selection *sel,
                const struct bench_opts *o, int quick, const struct shard *shard, uint64_t seed)
{
  char why[GR_WHY_LEN];
  struct bench_plan *p;
  struct bench_opts q = *o;
  if (quick)
    q.max_time = 0.25;
  q.progress_lines = !isatty(STDERR_FILENO); /* the night's progress on a pipe (progress.h) */
  if (bench_plan_new(sel->alg, sel->v, sel->n, NULL, quick, NULL, 0, &p, why, sizeof why)) {
    printf("\ntiming phase: %s\n", why);
    return GR_EXIT_OK;
  }
  if (shard && shard->count) {
    size_t groups = 0, kept = 0, all = p->n;
    if (shard_bench_plan(p, shard, seed, &groups, &kept)) {
      bench_plan_free(p);
      printf("\ntiming phase: out of memory\n");
      return GR_EXIT_ENV;
    }
    printf("\ntiming phase: shard %d of %d: %zu of %zu benchmark groups (%zu of %zu benchmarks)\n",
           shard->index, shard->count, kept, groups, p->n, all);
    if (!p->n) {
      bench_plan_free(p);
      return GR_EXIT_OK;
    }
  }
  int rc = bench_session(st, run, p, &q, "run");
  bench_plan_free(p);
  return rc;
}

double bench_phase_expected(struct store *st, const struct selection *sel, int quick,
                            const struct gpu_set *gpus, const struct shard *shard, uint64_t seed)
{
  char why[GR_WHY_LEN];
  struct bench_plan *p;
  if (bench_plan_new(sel->alg, sel->v, sel->n, NULL, quick, NULL, 0, &p, why, sizeof why))
    return 0;
  size_t groups, kept;
  double sum = 0;
  if (!(shard && shard->count && shard_bench_plan(p, shard, seed, &groups, &kept)))
    for (size_t i = 0; i < p->n; i++) {
      double s = 0;
      if (store_last_seconds(st, p->items[i].alg->name, p->items[i].v->name, p->items[i].params,
                             &s) != 0) {
        sum = 0; /* one never timed: unknown */
        break;
      }
      sum += s;
    }
  bench_plan_free(p);
  return gpus && gpus->n > 1 ? sum / (double)gpus->n : sum;
}

int bench_against_check(struct store *st, const char *db, const char *against)
{
  int64_t id;
  struct store_run r;
  if (parse_run(against, &id) == 0) {
    if (store_get_run(st, STORE_MAIN, id, &r) == 0)
      return 0;
    fprintf(stderr, "gpuregress bench: --against %s: no run %lld in the database\n", against,
            (long long)id);
    return GR_EXIT_USAGE;
  }
  if (access(against, R_OK) != 0) {
    fprintf(stderr, "gpuregress bench: --against '%s': neither a run id nor a readable database\n",
            against);
    return GR_EXIT_USAGE;
  }
  char why[GR_WHY_LEN];
  struct store *probe = NULL;
  int bad = store_open_read(db, &probe, why, sizeof why) ||
            store_attach_baseline(probe, against, why, sizeof why);
  store_close(probe);
  if (bad)
    fprintf(stderr, "gpuregress bench: --against: %s\n", why);
  return bad ? GR_EXIT_USAGE : 0;
}

int bench_against(const char *db, int64_t run, const char *against)
{
  char why[GR_WHY_LEN];
  struct store *st = NULL;
  struct compare_result *cr = NULL;
  struct compare_opts co;
  compare_opts_default(&co);
  enum store_src src = STORE_MAIN;
  int64_t base = 0;
  int other = 0, rc = GR_EXIT_USAGE;
  if (store_open_read(db, &st, why, sizeof why))
    goto fail;
  if (parse_run(against, &base)) {
    if (store_attach_baseline(st, against, why, sizeof why))
      goto fail;
    src = STORE_BASE;
    base = store_pick_run(st, STORE_BASE, run, &other);
    if (base <= 0) {
      gr_fmt(why, sizeof why, "'%s' holds no finished run with timings", against);
      goto fail;
    }
  }
  if (compare_runs(st, src, base, run, &co, &cr, why, sizeof why))
    goto fail;
  if (src == STORE_BASE && cr->base_other_gpu) { /* a file from another model: nothing to judge */
    char model[128];
    gr_fmt(why, sizeof why, "'%s' was timed on %s, this run on %s: another GPU model, not "
           "comparable (run it on a %s)", against,
           cr->base.gpu[0] ? gr_printable(model, sizeof model, cr->base.gpu) : "no GPU",
           cr->cur.gpu[0] ? cr->cur.gpu : "no GPU", cr->base.gpu[0] ? model : "host without a GPU");
    goto fail;
  }
  printf("\nagainst run %lld%s%s (%.12s, %s)%s:\n", (long long)base,
         src == STORE_BASE ? " of " : "", src == STORE_BASE ? against : "", cr->base.commit,
         cr->base.gpu[0] ? cr->base.gpu : "no GPU",
         cr->base_other_gpu ? " [another GPU model: not comparable]" : "");
  size_t shown = 0, slower = 0;
  for (size_t i = 0; i < cr->n_t; i++) {
    const struct compare_timing *t = &cr->t[i];
    if (!t->in_cur)
      continue;
    shown++;
    if (!t->in_base) {
      printf("  %s/%s %s [%s]: not timed in run %lld\n", t->algorithm, t->variant, t->params,
             t->l2, (long long)base);
      continue;
    }
    slower += t->sc.cls == STATS_SLOWER;
    printf("  %s/%s %s [%s]: %.6g ms -> %.6g ms, ratio %.3fx, p %.2g: %s\n", t->algorithm,
           t->variant, t->params, t->l2, t->sc.base.median, t->sc.cur.median, t->sc.ratio,
           t->sc.p, stats_class_name(t->sc.cls));
  }
  if (!shown)
    printf("  nothing timed in run %lld\n", (long long)run);
  printf("against: %zu slower of %zu timed\n", slower, shown);
  rc = slower ? GR_EXIT_FAIL : GR_EXIT_OK;
  compare_result_free(cr);
  store_close(st);
  return rc;
fail:
  fprintf(stderr, "gpuregress bench: --against %s: %s\n", against, why);
  compare_result_free(cr);
  store_close(st);
  return rc;
}
