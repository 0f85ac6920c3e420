/*
 * memory_limit.c -- how much host memory the engine may hold.
 *
 * A process that asks Linux for more memory than there is does not get an
 * error: allocations succeed (overcommit), and touching the pages later
 * wakes the OOM killer, which ends the process and the user's session with
 * it.  So the engine refuses an allocation itself when its live blocks plus
 * the request would pass a limit, and the caller raises MemoryError.  The
 * limit is ZAMBEZI_MEMORY_LIMIT ("8GB", "512M", "80%", a byte count; "0" or
 * "none" for no limit) or zb_set_memory_limit, and by default 90% of the
 * memory this process may use: its cgroup's limit (v2 memory.max, v1
 * memory.limit_in_bytes) when one is set, else the physical memory.  The
 * check itself is in alloc.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

/* A limit in bytes read from a cgroup file; 0 if none (absent, "max", or
 * the v1 "unlimited" value near INT64_MAX). */
static int64_t read_cgroup_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  char buf[64] = {0};
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  if (!isdigit((unsigned char)buf[0])) return 0; /* "max" */
  unsigned long long v = strtoull(buf, NULL, 10);
  if (v == 0 || v >= (1ULL << 62)) return 0;
  return (int64_t)v;
}

/* The smallest memory limit among this process's cgroups, 0 if none. */
static int64_t cgroup_limit(void) {
  int64_t best = 0;
  FILE *f = fopen("/proc/self/cgroup", "r");
  char line[512], path[1024];
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL) continue;
    const char *ctrl = c1 + 1, *where = c2 + 1;
    int64_t v = 0;
    if (c2 == c1 + 1) { /* v2: "0::/path" */
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", where);
      v = read_cgroup_file(path);
    } else if (strncmp(ctrl, "memory", 6) == 0 && (ctrl[6] == ':' || ctrl[6] == ',')) {
      snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", where);
      v = read_cgroup_file(path);
    }
    if (v > 0 && (best == 0 || v < best)) best = v;
  }
  if (f != NULL) fclose(f);
  /* inside a container the process's own cgroup is often mounted as the root */
  int64_t roots[2] = {read_cgroup_file("/sys/fs/cgroup/memory.max"),
                      read_cgroup_file("/sys/fs/cgroup/memory/memory.limit_in_bytes")};
  for (int i = 0; i < 2; i++)
    if (roots[i] > 0 && (best == 0 || roots[i] < best)) best = roots[i];
  return best;
}

int64_t zb_memory_total(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  int64_t phys = pages > 0 && page > 0 ? (int64_t)pages * page : 0;
  int64_t cg = cgroup_limit();
  if (cg > 0 && (phys == 0 || cg < phys)) return cg;
  return phys;
}

zb_status zb_parse_memory_size(const char *text, int64_t *out, zb_error *err) {
  *out = 0;
  if (text == NULL) return zb_error_set(err, ZB_EINVAL, "memory size: no text");
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (strcasecmp(p, "none") == 0) return ZB_OK;
  char *end = NULL;
  double v = strtod(p, &end);
  if (end == p || !(v >= 0) || v > 9e18)
    return zb_error_set(err, ZB_EINVAL,
                        "memory size %s: expected bytes (1000000), a size with a unit "
                        "(512MB, 8GB, 1.5TiB) or a share of memory (80%%)",
                        text);
  while (isspace((unsigned char)*end)) end++;
  double mult = 1;
  if (*end == '%') {
    if (v > 100)
      return zb_error_set(err, ZB_EINVAL, "memory size %s: a share of memory is at most 100%%",
                          text);
    mult = (double)zb_memory_total() / 100.0;
    end++;
  } else if (*end != '\0') {
    static const char units[] = "KMGTP";
    const char *u = strchr(units, toupper((unsigned char)*end));
    if (u == NULL)
      return zb_error_set(err, ZB_EINVAL, "memory size %s: unknown unit '%s'", text, end);
    for (long i = 0; i <= u - units; i++) mult *= 1024;
    end++;
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
  }
  while (isspace((unsigned char)*end)) end++;
  if (*end != '\0')
    return zb_error_set(err, ZB_EINVAL, "memory size %s: unexpected '%s'", text, end);
  double bytes = v * mult;
  if (bytes > 9e18) return zb_error_set(err, ZB_EINVAL, "memory size %s is too large", text);
  *out = (int64_t)bytes;
  return ZB_OK;
}

int64_t zb__memory_limit_default(void) {
  const char *env = getenv("ZAMBEZI_MEMORY_LIMIT");
  if (env != NULL && *env != '\0') {
    zb_error err = {{0}};
    int64_t v = 0;
    if (zb_parse_memory_size(env, &v, &err) == ZB_OK) return v;
    fprintf(stderr, "zambezi: ignoring ZAMBEZI_MEMORY_LIMIT: %s\n", err.message);
  }
  return zb_memory_total() / 10 * 9;
}
