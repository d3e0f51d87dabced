/* gpus_near_cpus: a GPU's PCI bus id (nvidia-smi's form or Linux's) to the CPUs of its NUMA node,
 * read from a sysfs tree built here; hostile or malformed ids and lists are refused. gpus_lane_cpus:
 * the timing lanes of GPUs on one node get disjoint slices of its allowed CPUs. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpus.h"
#include "test_util.h"

static char root[256];

static void put(const char *dev, const char *text)
{
  char path[512];
  snprintf(path, sizeof path, "%s/bus", root);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/bus/pci", root);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/bus/pci/devices", root);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/bus/pci/devices/%s", root, dev);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/bus/pci/devices/%s/local_cpulist", root, dev);
  FILE *f = fopen(path, "w");
  EXPECT(f != NULL);
  fputs(text, f);
  fclose(f);
}

static int cpus(const char *pci, char *out, size_t len)
{
  cpu_set_t set;
  int rc = gpus_near_cpus(pci, root, &set);
  out[0] = 0;
  for (int c = 0; rc == 0 && c < 64; c++)
    if (CPU_ISSET(c, &set))
      snprintf(out + strlen(out), len - strlen(out), "%s%d", out[0] ? "," : "", c);
  return rc;
}

int main(void)
{
  char got[512];
  snprintf(root, sizeof root, "%s/gr_test_gpus_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  EXPECT(mkdtemp(root) != NULL);
  put("0000:18:00.0", "0-3,8,10-11\n");
  put("0000:ab:00.0", "32-33\n");
  put("0000:01:00.0", "3-1\n");
  put("0000:02:00.0", "\n");
  put("0000:03:00.0", "0-1;rm -rf\n");

  EXPECT(cpus("00000000:18:00.0", got, sizeof got) == 0); /* nvidia-smi's 8-digit domain */
  EXPECT(!strcmp(got, "0,1,2,3,8,10,11"), "got %s", got);
  EXPECT(cpus("0000:18:00.0", got, sizeof got) == 0); /* Linux's */
  EXPECT(!strcmp(got, "0,1,2,3,8,10,11"), "got %s", got);
  EXPECT(cpus("00000000:AB:00.0", got, sizeof got) == 0); /* upper case hex as nvidia-smi prints */
  EXPECT(!strcmp(got, "32,33"), "got %s", got);
  EXPECT(cpus("00000000:19:00.0", got, sizeof got) == -1); /* no such device */
  EXPECT(cpus("00000001:18:00.0", got, sizeof got) == -1); /* a domain past 16 bits */
  EXPECT(cpus("00000000:01:00.0", got, sizeof got) == -1); /* a range backwards */
  EXPECT(cpus("00000000:02:00.0", got, sizeof got) == -1); /* nothing listed */
  EXPECT(cpus("00000000:03:00.0", got, sizeof got) == -1); /* junk after the list */
  EXPECT(cpus("../../../../etc/pas", got, sizeof got) == -1);
  EXPECT(cpus("0000:18:00.0/../..", got, sizeof got) == -1);
  EXPECT(cpus("0000:18:00", got, sizeof got) == -1);
  EXPECT(cpus("", got, sizeof got) == -1);
  EXPECT(cpus(NULL, got, sizeof got) == -1);

  /* four GPUs: three on the node of CPUs 0-3,8,10-11 (7 CPUs), one on 32-33 */
  put("0000:19:00.0", "0-3,8,10-11\n");
  put("0000:1a:00.0", "0-3,8,10-11\n");
  static struct gpu_set set;
  const char *pci[] = {"00000000:18:00.0", "00000000:AB:00.0", "00000000:19:00.0", "00000000:1A:00.0"};
  set.n = 4;
  for (size_t k = 0; k < 4; k++)
    snprintf(set.slot[k].pci, sizeof set.slot[k].pci, "%s", pci[k]);
  cpu_set_t all, mine, seen;
  CPU_ZERO(&all);
  CPU_ZERO(&seen);
  for (int c = 0; c < 64; c++)
    CPU_SET(c, &all);
  const char *want[] = {"0,1", "32,33", "2,3", "8,10,11"}; /* 7 / 3: 2, 2, the rest */
  for (size_t k = 0; k < 4; k++) {
    char text[256] = "";
    EXPECT(gpus_lane_cpus(&set, k, root, &all, &mine) == 0, "lane %zu", k);
    for (int c = 0; c < 64; c++)
      if (CPU_ISSET(c, &mine)) {
        EXPECT(!CPU_ISSET(c, &seen), "CPU %d given to two lanes", c);
        CPU_SET(c, &seen);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", text[0] ? "," : "", c);
      }
    EXPECT(!strcmp(text, want[k]), "lane %zu got %s, want %s", k, text, want[k]);
  }
  /* within what the job may use: CPUs 1-3 allowed, three lanes on that node: one each */
  cpu_set_t some;
  CPU_ZERO(&some);
  for (int c = 1; c <= 3; c++)
    CPU_SET(c, &some);
  EXPECT(gpus_lane_cpus(&set, 3, root, &some, &mine) == 0 && CPU_COUNT(&mine) == 1 &&
         CPU_ISSET(3, &mine));
  /* two allowed CPUs for three lanes: each keeps both (sharing beats none) */
  CPU_CLR(1, &some);
  EXPECT(gpus_lane_cpus(&set, 2, root, &some, &mine) == 0 && CPU_COUNT(&mine) == 2);
  /* a slot without a PCI id, or a node with no allowed CPU: left alone */
  set.slot[1].pci[0] = 0;
  EXPECT(gpus_lane_cpus(&set, 1, root, &all, &mine) == -1);
  EXPECT(gpus_lane_cpus(&set, 0, root, &some, &mine) == 0); /* 2,3 of the node */
  CPU_ZERO(&some);
  CPU_SET(40, &some);
  EXPECT(gpus_lane_cpus(&set, 0, root, &some, &mine) == -1);
  EXPECT(gpus_lane_cpus(&set, 9, root, &all, &mine) == -1);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  EXPECT(system(cmd) == 0);
  TEST_DONE();
}
