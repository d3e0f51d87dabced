/* gpus_near_cpus: a GPU's PCI bus id (nvidia-smi's form or Linux's) to the CPUs of its NUMA node,
 * read from a sysfs tree built here; hostile or malformed ids and lists are refused. */
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

  /* a slot without a PCI id is left alone */
  struct gpu_slot s;
  memset(&s, 0, sizeof s);
  EXPECT(gpus_bind_near(&s) == 0);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  EXPECT(system(cmd) == 0);
  TEST_DONE();
}
