/* The timing layer's report: the summary table of a timed plan and its verdict (bench.h), and
 * what each lane of bench --gpus did (bench_private.h). */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "bench_private.h"
#include "gr.h"

int bench_failed(const struct bench_plan *p)
{
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_result *r = &p->res[i];
    if (r->done && p->items[i].v->kind != GR_VARIANT_HISTORICAL &&
        (r->verdict == VERDICT_FAIL || r->verdict == VERDICT_CRASH ||
         r->verdict == VERDICT_TIMEOUT))
      return 1;
  }
  return 0;
}

int bench_all_no_gpu(const struct bench_plan *p)
{
  size_t ran = 0, no_gpu = 0;
  for (size_t i = 0; i < p->n; i++) {
    ran += p->res[i].done;
    no_gpu += p->res[i].done && p->res[i].status == GR_STATUS_NO_GPU;
  }
  return ran && no_gpu == ran;
}

/* The head: the run, the GPU, the L2 mode, the copy bandwidth, the cases left out and the item
 * peaks measured. */
static void print_head(FILE *f, const struct bench_plan *p, const struct bench_opts *o)
{
  char b1[32];
  fprintf(f, "\ngpuregress bench%s%lld  %s  L2 %s", o->store ? " run " : "",
          (long long)(o->store ? o->run_id : 0), p->gpu_name[0] ? p->gpu_name : "no GPU",
          o->hot ? "hot" : "cold");
  if (p->copy_gbps > 0)
    fprintf(f, "  copy bandwidth %.0f GB/s (device to device, read + write)", p->copy_gbps);
  fprintf(f, "\n");
  for (size_t i = 0; i < p->n_skipped; i++)
    fprintf(f, "%s\n", p->skipped[i]);
  for (size_t i = 0; i < p->n_peaks; i++)
    if (p->peaks[i].items_per_s > 0)
      fprintf(f, "%s peak %s %s/s (%s, measured here)\n", p->peaks[i].alg->name,
              gr_si(p->peaks[i].items_per_s, b1, sizeof b1),
              p->peaks[i].alg->item_unit ? p->peaks[i].alg->item_unit : "items",
              p->peaks[i].name);
}

/* Nothing timed and one reason for all (no GPU): that one line, not a table of skips. 1 when
 * printed. */
static int print_all_skipped(FILE *f, const struct bench_plan *p)
{
  size_t n_done = 0, n_same = 0;
  const char *reason0 = NULL;
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_result *r = &p->res[i];
    if (!r->done)
      continue;
    if (!n_done++)
      reason0 = r->reason;
    n_same += r->verdict == VERDICT_SKIP && r->s.n == 0 && strcmp(r->reason, reason0) == 0;
  }
  if (!n_done || n_same != n_done)
    return 0;
  fprintf(f, "all %zu benchmarks skipped: %s\n", n_done, reason0);
  return 1;
}

/* Item i's row: median, noise, samples, rate in the algorithm's unit (items/s against its peak,
 * else GB/s against the copy), the ratio to the peer of its case timed in this run, the clock,
 * the check and the accuracy metrics. */
static void print_row(FILE *f, const struct bench_plan *p, size_t i)
{
  const struct bench_item *it = &p->items[i];
  const struct bench_result *r = &p->res[i];
  const char *unit = it->alg->item_unit;
  const struct bench_result *peer = NULL;
  for (size_t j = 0; j < p->n; j++)
    if (p->items[j].alg == it->alg && p->items[j].v->kind == GR_VARIANT_PEER &&
        strcmp(p->items[j].params, it->params) == 0 && p->items[j].c.seed == it->c.seed &&
        p->res[j].done && p->res[j].s.n)
      peer = &p->res[j];
  char ratio[32] = "-", noise[16] = "-", pct[16] = "-", med[24] = "-", gbps[24] = "-";
  if (r->s.n) {
    gr_fmt(med, sizeof med, "%.4f", r->s.median);
    gr_fmt(noise, sizeof noise, "%.2f%%", 100 * r->s.noise);
    if (unit)
      gr_si(r->items_per_s, gbps, sizeof gbps);
    else
      gr_fmt(gbps, sizeof gbps, "%.1f", r->gbps);
    double share = unit ? r->pct_peak : r->pct_copy;
    if (share > 0)
      gr_fmt(pct, sizeof pct, "%.1f%%", share);
    if (peer && peer != r)
      gr_fmt(ratio, sizeof ratio, "%.2fx", r->s.median / peer->s.median);
  }
  fprintf(f, "  %-20s %-10s %10s %7s %7zu %9s %6s %8s %6.0f  %s", it->v->name,
          gr_variant_kind_name(it->v->kind), med, noise, r->s.n, gbps, pct, ratio, r->clock_mhz,
          verdict_name(r->verdict));
  for (size_t k = 0; k < r->acc.n; k++) /* accuracy: error rates */
    fprintf(f, "%s%s %.2f%%", k ? ", " : "  ", r->acc.name[k], 100 * r->acc.value[k]);
  fprintf(f, "\n");
}

void bench_print_summary(FILE *f, const struct bench_plan *p, const struct bench_opts *o)
{
  char b1[32], b2[32];
  print_head(f, p, o);
  if (print_all_skipped(f, p))
    return;
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_item *it = &p->items[i];
    const struct bench_result *r = &p->res[i];
    int first_of_case = i == 0 || p->items[i - 1].alg != it->alg ||
                        strcmp(p->items[i - 1].params, it->params) != 0 ||
                        p->items[i - 1].c.seed != it->c.seed;
    int any = 0;
    for (size_t j = i; j < p->n && p->items[j].alg == it->alg &&
                       strcmp(p->items[j].params, it->params) == 0;
         j++)
      any |= p->res[j].done;
    if (!any)
      continue;
    const char *unit = it->alg->item_unit;
    if (first_of_case) {
      char rate_head[32];
      gr_fmt(rate_head, sizeof rate_head, "%s/s", unit ? unit : "GB");
      fprintf(f, "\n%s %s  (%s B, %s %s)\n", it->alg->name, it->params,
              gr_si(r->bytes, b1, sizeof b1), gr_si(r->items, b2, sizeof b2),
              unit ? unit : "items");
      fprintf(f, "  %-20s %-10s %10s %7s %7s %9s %6s %8s %6s  %s\n", "variant", "kind",
              "median ms", "noise", "samples", rate_head, unit ? "%peak" : "%copy", "vs peer",
              "MHz", "check");
    }
    if (r->done)
      print_row(f, p, i);
  }
  int details = 0;
  for (size_t i = 0; i < p->n; i++) {
    const struct bench_result *r = &p->res[i];
    if (!r->done || !r->reason[0] || r->verdict == VERDICT_PASS || r->verdict == VERDICT_CAUGHT)
      continue;
    if (!details++)
      fprintf(f, "\n");
    fprintf(f, "%s %s: %s\n", p->items[i].name, verdict_name(r->verdict), r->reason);
  }
}

size_t bench_lanes_timeline(char *buf, size_t len, size_t jobs, const struct bench_lists *l,
                            size_t ng, const int *claim, const double *gcost,
                            const double *built_s, const double *ready, const double *end,
                            double t0, const int *gpu)
{
  size_t at = 0;
  if (len)
    buf[0] = 0;
  for (size_t j = 0; j < jobs && jobs > 1; j++) {
    size_t timed = 0, own = 0, own_elsewhere = 0;
    double expect = 0, build = 0, dealt = 0;
    for (size_t g = 0; g < ng; g++) {
      int mine = 0;
      for (size_t k = 0; k < l->n_own[j] && !mine; k++)
        mine = l->gid[l->start[j] + k] == g;
      dealt += mine ? gcost[g] : 0;
      if (claim[g] == (int)j + 1) {
        timed++;
        own += mine;
        expect += gcost[g];
        build += built_s[g] > 0 ? built_s[g] : 0;
      } else if (mine) {
        own_elsewhere++;
      }
    }
    char gpu_s[16] = "?", ready_s[32] = "?", end_s[32] = "?";
    if (gpu[j] >= 0)
      gr_fmt(gpu_s, sizeof gpu_s, "%d", gpu[j]);
    if (ready[j] > 0)
      gr_fmt(ready_s, sizeof ready_s, "%.2f s", ready[j] - t0);
    if (end[j] > 0)
      gr_fmt(end_s, sizeof end_s, "%.2f s", end[j] - t0);
    int w = snprintf(buf + at, len > at ? len - at : 0,
                     "  lane %zu, GPU %s: CUDA ready at %s, done at %s; timed %zu groups (%zu own, "
                     "%zu taken over; %zu own timed by others), expected %.2f s (dealt %.2f s), "
                     "case builds %.2f s\n",
                     j, gpu_s, ready_s, end_s, timed, own, timed - own, own_elsewhere, expect,
                     dealt, build);
    if (w > 0)
      at = at + (size_t)w < len ? at + (size_t)w : (len ? len - 1 : 0);
  }
  return at;
}
