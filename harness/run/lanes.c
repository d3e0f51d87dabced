/* Lanes: a process per GPU, jobs handed out to the idle ones. See lanes.h. */
#define _GNU_SOURCE
#include "lanes.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "gr.h"

#define LANE_RESTARTS 3     /* a lane that died is started again this many times */
#define LANE_READ_S 600.0   /* the bytes of a result, once its line came */

/* ---- in the lane ------------------------------------------------------------------------- */

struct lane;

struct lane_arg {
  const struct lanes_spec *s;
  size_t lane;
  struct lane *all; /* every lane of the parent, for the pipes a lane must not keep */
  size_t n;
};

struct lane {
  struct child c;
  struct lane_arg arg;
  long job;     /* the job it runs, -1 idle */
  int restarts;
  int dead;     /* gone for good */
};

static volatile int *lane_flag[2];

static void lane_on_term(int sig)
{
  (void)sig;
  for (int i = 0; i < 2; i++)
    if (lane_flag[i])
      *lane_flag[i] = 1;
}

static int lane_main(void *arg, int in, int out)
{
  const struct lane_arg *la = arg;
  const struct lanes_spec *s = la->s;
  const struct gpu_slot *g = &s->gpus->slot[la->lane];
  /* the parent's ends of the other lanes' pipes came with the fork: holding the write end of
   * another lane's input, this lane would keep it from seeing its end (it waited, and was
   * killed, 10 s after its last job: 30 s past the budget with 4 lanes) */
  for (size_t k = 0; k < la->n; k++)
    if (k != la->lane && la->all[k].c.pid) {
      if (la->all[k].c.in >= 0)
        close(la->all[k].c.in);
      if (la->all[k].c.out >= 0)
        close(la->all[k].c.out);
    }
  /* CUDA's order is its own (fastest first) unless told: indices mean nvidia-smi's */
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  setenv("CUDA_VISIBLE_DEVICES", g->id, 1);
  if (s->exclusive) /* timing: its launches from its share of its GPU's NUMA node's CPUs */
    gpus_bind_lane(s->gpus, la->lane);
  lane_flag[0] = s->lane_flags[0];
  lane_flag[1] = s->lane_flags[1];
  signal(SIGTERM, lane_on_term);
  signal(SIGHUP, lane_on_term);
  if (s->begin)
    s->begin(s->ctx, la->lane);
  FILE *fin = fdopen(in, "r");
  char line[256];
  while (fin && fgets(line, sizeof line, fin)) {
    size_t job;
    double param;
    if (sscanf(line, "J\t%zu\t%lf", &job, &param) != 2)
      continue;
    void *res = NULL;
    size_t n = 0;
    int lock = gpus_lock(g, s->exclusive);
    s->job(s->ctx, la->lane, job, param, &res, &n);
    if (lock >= 0)
      close(lock);
    child_say(out, "D\t%zu\t%zu", job, res ? n : 0);
    if (res && n)
      child_say_bytes(out, res, n);
    free(res);
  }
  if (s->end)
    s->end(s->ctx, la->lane);
  return 0;
}

/* ---- in the parent ----------------------------------------------------------------------- */

static int lane_start(struct lane *l)
{
  child_init(&l->c);
  l->c.what = "lane";
  l->c.fn = lane_main;
  l->c.arg = &l->arg;
  l->c.pipe_in = l->c.pipe_out = 1;
  l->job = -1;
  return child_start(&l->c);
}

/* Each idle lane gets the next job (not after a stop); returns how many lanes have a job. */
static size_t hand_out(const struct lanes_spec *s, struct lane *lanes, size_t nl, size_t *next,
                       int stop)
{
  size_t busy = 0;
  for (size_t i = 0; i < nl; i++) {
    struct lane *l = &lanes[i];
    if (l->dead)
      continue;
    if (l->job < 0 && *next < s->n_jobs && !stop) {
      double param = s->param ? s->param(s->ctx, *next, s->n_jobs - *next) : 0;
      char msg[128];
      gr_fmt(msg, sizeof msg, "J\t%zu\t%.17g\n", *next, param);
      if (child_write(&l->c, msg, strlen(msg)) == 0)
        l->job = (long)(*next)++;
    }
    busy += l->job >= 0;
  }
  return busy;
}

/* Lane i's answer, if one comes within 2 ms: its job's result handed to s->done (got[job] set);
 * where the lane died, its job handed on as lost and the lane started afresh (at most
 * LANE_RESTARTS times, never after a stop) or left dead. 1 when something came, 0 silence. */
static int lane_answer(const struct lanes_spec *s, struct lane *l, size_t i, char *got, int stop)
{
  char line[128];
  enum child_read_status r = child_read_line(&l->c, 0.002, line, sizeof line);
  if (r == CHILD_TIMEOUT || r == CHILD_INTERRUPTED)
    return 0;
  size_t job, n;
  void *res = NULL;
  if (r == CHILD_GOT && sscanf(line, "D\t%zu\t%zu", &job, &n) == 2 && (long)job == l->job) {
    res = n ? malloc(n) : NULL;
    if (n && (!res || child_read(&l->c, LANE_READ_S, res, n) != CHILD_GOT)) {
      free(res);
      res = NULL;
      r = CHILD_EOF; /* the stream is out of step: the lane is done for */
    }
    if (res || !n) {
      got[job] = 1;
      s->done(s->ctx, job, i, res, n);
      free(res);
      l->job = -1;
    }
  } else if (r == CHILD_GOT) {
    return 1; /* not ours: ignored */
  }
  if (r != CHILD_GOT) { /* the lane died with its job */
    char msg[GR_WHY_LEN];
    child_finish(&l->c, 1, msg, sizeof msg);
    if (l->job >= 0) {
      got[l->job] = 1;
      s->done(s->ctx, (size_t)l->job, i, NULL, 0);
    }
    if (l->restarts++ < LANE_RESTARTS && !stop && lane_start(l) == 0)
      return 1;
    l->dead = 1;
    l->job = -1;
  }
  return 1;
}

/* The lanes told there is no more work, waited for (10 s each) and reaped. */
static void lanes_close(struct lane *lanes, size_t nl)
{
  for (size_t i = 0; i < nl; i++) {
    struct lane *l = &lanes[i];
    if (l->dead)
      continue;
    child_close_in(&l->c);
    child_wait(&l->c, 10);
    child_finish(&l->c, 1, NULL, 0);
  }
}

int lanes_run(const struct lanes_spec *s, char *why, size_t len)
{
  size_t nl = s->gpus->n, next = 0, alive = 0;
  struct lane *lanes = calloc(nl ? nl : 1, sizeof *lanes);
  char *got = calloc(s->n_jobs ? s->n_jobs : 1, 1);
  if (!lanes || !got) {
    free(lanes);
    free(got);
    gr_fmt(why, len, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < nl; i++) {
    lanes[i].arg = (struct lane_arg){s, i, lanes, nl};
    if (lane_start(&lanes[i])) {
      lanes[i].dead = 1;
      gr_fmt(why, len, "cannot start a lane: %s", strerror(errno));
    } else {
      alive++;
    }
  }
  if (!alive) {
    free(lanes);
    free(got);
    return -1;
  }
  int termed = 0;
  for (;;) {
    int stop = s->interrupted && *s->interrupted;
    size_t busy = hand_out(s, lanes, nl, &next, stop);
    if (stop && !termed) { /* the lanes' own flags stop their jobs where they are */
      for (size_t i = 0; i < nl; i++)
        if (!lanes[i].dead && lanes[i].job >= 0)
          kill(lanes[i].c.pid, SIGTERM);
      termed = 1;
    }
    if (!busy)
      break;
    int progressed = 0;
    struct pollfd pf[GPUS_MAX];
    size_t np = 0;
    for (size_t i = 0; i < nl; i++) {
      struct lane *l = &lanes[i];
      if (l->dead || l->job < 0)
        continue;
      if (lane_answer(s, l, i, got, stop))
        progressed = 1;
      else
        pf[np++] = (struct pollfd){.fd = l->c.out, .events = POLLIN};
    }
    if (!progressed && np)
      poll(pf, np, 250);
    if (s->tick)
      s->tick(s->ctx);
  }
  lanes_close(lanes, nl);
  for (size_t j = 0; j < s->n_jobs; j++) /* never handed out: interrupted, or no lane left */
    if (!got[j])
      s->done(s->ctx, j, 0, NULL, 0);
  free(lanes);
  free(got);
  return 0;
}
