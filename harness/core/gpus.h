/* The GPUs of a command (`--gpus all|N|LIST`) and the lock that keeps a benchmark alone on its
 * GPU. The parent never initialises CUDA: the GPUs are listed by nvidia-smi (index, UUID, model),
 * within CUDA_VISIBLE_DEVICES when it is set, and each lane (lanes.h) is pinned to one of them by
 * setting CUDA_VISIBLE_DEVICES to its UUID before its workers start; a timing lane (bench) also
 * to the CPUs nearest its GPU (the NUMA node of its PCI device, as Linux lists it), so that a
 * launch-bound benchmark is not timed from the far socket (fuzzing lanes keep every CPU: their
 * references and checks are CPU work).
 *
 * The lock: one file per physical GPU, <GPUREGRESS_LOCK_DIR or /tmp>/gpuregress-gpu-<UUID>.lock.
 * A fuzzing job holds it shared, a benchmark exclusive (flock, so a killed holder releases it):
 * no benchmark is timed while another gpuregress job of this host loads the same GPU, and
 * fuzzing jobs share a GPU with each other. */
#ifndef GR_GPUS_H
#define GR_GPUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUS_MAX 64

struct gpu_slot {
  char id[96];    /* what CUDA_VISIBLE_DEVICES gets: the UUID, else the index as given */
  char uuid[96];  /* "GPU-..." or "" when unknown */
  char name[128]; /* the model, "" when unknown */
  int index;      /* nvidia-smi's index, -1 unknown */
  char pci[32];   /* PCI bus id as nvidia-smi prints it ("00000000:18:00.0"), "" unknown */
};

struct gpu_set {
  size_t n;        /* 0: no --gpus, the one visible GPU as before (no pinning) */
  struct gpu_slot slot[GPUS_MAX];
};

/* Resolve spec: "all" (every GPU nvidia-smi lists within CUDA_VISIBLE_DEVICES), "N" (the first
 * N of them), or a comma-separated LIST of indices or UUIDs (as CUDA_VISIBLE_DEVICES takes them;
 * checked against nvidia-smi's list when it answers). 0 ok; 2 with why on a malformed spec
 * (usage); 3 with why when the GPUs asked for are not there (environment). */
int gpus_resolve(const char *spec, struct gpu_set *out, char *why, size_t len);

/* The GPUs nvidia-smi lists (within CUDA_VISIBLE_DEVICES when set): 0 ok with out->n >= 0; -1
 * with why when nvidia-smi cannot be run. */
int gpus_list(struct gpu_set *out, char *why, size_t len);

/* Take the lock of GPU slot (exclusive: a benchmark; else shared), waiting for it; says once on
 * stderr what it waits for. Returns the lock's descriptor (close it to release), or -1 when the
 * lock cannot be had (no lock: the job runs anyway). A slot without UUID or id locks nothing. */
int gpus_lock(const struct gpu_slot *slot, int exclusive);
/* gpus_lock that also calls waiting(what, arg) once, before it blocks (what: the GPU and the
 * lock file), so that a process watched by a parent can say why it is silent. */
int gpus_lock_wait(const struct gpu_slot *slot, int exclusive,
                   void (*waiting)(const char *what, void *arg), void *arg);

/* The CPUs nearest the GPU of PCI bus id pci (nvidia-smi's form, 8 hex digits of domain, or
 * Linux's, 4): <sysfs>/bus/pci/devices/<id>/local_cpulist parsed into *out (a cpu_set_t, as
 * sched_setaffinity takes it). sysfs: "/sys", or a copy for tests. 0 ok with at least one CPU;
 * -1 when the id is malformed, the file is absent or unreadable, or lists nothing. */
int gpus_near_cpus(const char *pci, const char *sysfs, void *out);
/* The CPUs of lane `lane` of set when each lane times on its GPU (bench --gpus): those nearest
 * its GPU (gpus_near_cpus under sysfs) among the allowed ones (a cpu_set_t, as `out`), shared
 * out among the lanes whose GPUs have the same nearest CPUs: the k-th such lane gets the k-th
 * of as many contiguous slices (the last takes the rest), so that one lane's CPU work (a check
 * on every CPU it may use, a reference) never preempts another lane's launches. Where the node
 * has fewer allowed CPUs than lanes, the lane keeps all of them. 0 ok; -1 (out untouched) when
 * the slot has no PCI id, sysfs does not say, or no CPU of the node is allowed. */
int gpus_lane_cpus(const struct gpu_set *set, size_t lane, const char *sysfs, const void *allowed,
                   void *out);

/* Restrict this process (and what it starts) to gpus_lane_cpus of "/sys" within its current
 * affinity: the number of CPUs it keeps, or 0 when it was left as it was. */
int gpus_bind_lane(const struct gpu_set *set, size_t lane);

/* The --gpus help line, shared by run, fuzz, bench and sanitize. */
#define GPUS_HELP                                                                                  \
  "      --gpus N|all|LIST   spread the work over these GPUs of the host, one worker each\n"      \
  "                          (LIST: indices or UUIDs, comma-separated; default: the one\n"        \
  "                          visible GPU)\n"

#ifdef __cplusplus
}
#endif

#endif
