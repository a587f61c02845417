// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/allocinfo_nodes follows memory across nodes: anonymous memory
 * bound to the first node with memory is counted there, at the fault's
 * call site; move_pages(2) to a second node moves the charge; munmap()
 * takes it away.  Needs a kernel booted with sysctl.vm.mem_profiling=1,nodes
 * and two nodes with memory, and skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include "../kselftest.h"

#define AREA_MB		32
#define MAX_SITES	65536

struct site {
	char key[512];		/* the tag info, without " node:N" */
	int node;
	long long bytes;
};

static struct site *snap[4];
static int snap_n[4];

/* Read /proc/allocinfo_nodes into snapshot @i. */
static void snapshot(int i)
{
	char line[1024], *node;
	FILE *f = fopen("/proc/allocinfo_nodes", "r");
	int n = 0;

	if (!f)
		ksft_exit_fail_msg("/proc/allocinfo_nodes: %s\n", strerror(errno));
	if (!snap[i])
		snap[i] = calloc(MAX_SITES, sizeof(struct site));
	if (!snap[i])
		ksft_exit_fail_msg("no memory\n");
	if (!fgets(line, sizeof(line), f) ||
	    strcmp(line, "allocinfo_nodes - version: 1.0\n"))
		ksft_exit_fail_msg("bad header: %s", line);
	if (!fgets(line, sizeof(line), f) || line[0] != '#')
		ksft_exit_fail_msg("bad second line: %s", line);
	while (n < MAX_SITES && fgets(line, sizeof(line), f)) {
		struct site *s = &snap[i][n];
		unsigned long long bytes, calls;
		int off;

		node = strstr(line, " node:");
		if (!node || sscanf(line, "%llu %llu %n", &bytes, &calls, &off) != 2)
			ksft_exit_fail_msg("bad line: %s", line);
		s->node = atoi(node + 6);
		*node = '\0';
		snprintf(s->key, sizeof(s->key), "%s", line + off);
		s->bytes = bytes;
		n++;
	}
	fclose(f);
	snap_n[i] = n;
}

static long long bytes_of(int i, const char *key, int node)
{
	int k;

	for (k = 0; k < snap_n[i]; k++)
		if (snap[i][k].node == node && !strcmp(snap[i][k].key, key))
			return snap[i][k].bytes;
	return 0;
}

/* The nodes with memory, from sysfs. */
static int memory_nodes(int *nodes, int max)
{
	char buf[256], *p = buf;
	FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
	int n = 0, a, b;

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	while (n < max && *p >= '0' && *p <= '9') {
		a = strtol(p, &p, 10);
		b = a;
		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b && n < max; a++)
			nodes[n++] = a;
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	long nr = (AREA_MB << 20) / page, k;
	long long want = (long long)AREA_MB << 20, best = 0, d0, d1;
	int nodes[2], *status, *to, i;
	unsigned long mask;
	const char *site = NULL;
	void **pages;
	char *area;

	ksft_print_header();
	if (access("/proc/allocinfo_nodes", F_OK))
		ksft_exit_skip("no /proc/allocinfo_nodes: not booted with ,nodes\n");
	if (memory_nodes(nodes, 2) < 2)
		ksft_exit_skip("fewer than two nodes with memory\n");
	ksft_set_plan(4);

	pages = calloc(nr, sizeof(*pages));
	status = calloc(nr, sizeof(*status));
	to = calloc(nr, sizeof(*to));
	area = mmap(NULL, want, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pages || !status || !to || area == MAP_FAILED)
		ksft_exit_fail_msg("no memory\n");
	/* Order-0 pages: a transparent huge page would do as well, slower. */
	madvise(area, want, MADV_NOHUGEPAGE);
	mask = 1UL << nodes[0];
	if (syscall(SYS_mbind, area, want, MPOL_BIND, &mask,
		    sizeof(mask) * 8, 0))
		ksft_exit_fail_msg("mbind: %s\n", strerror(errno));

	snapshot(0);
	for (k = 0; k < nr; k++) {
		area[k * page] = 1;
		pages[k] = area + k * page;
		to[k] = nodes[1];
	}
	snapshot(1);
	/* The fault's call site: the one that grew most on the first node. */
	for (i = 0; i < snap_n[1]; i++) {
		struct site *s = &snap[1][i];

		if (s->node != nodes[0])
			continue;
		d0 = s->bytes - bytes_of(0, s->key, nodes[0]);
		if (d0 > best) {
			best = d0;
			site = s->key;
		}
	}
	ksft_test_result(best >= want * 9 / 10,
			 "%lld bytes on node %d at %s (area %lld)\n", best,
			 nodes[0], site ? site : "?", want);
	if (!site)
		ksft_exit_fail_msg("no call site grew\n");

	if (syscall(SYS_move_pages, 0, nr, pages, to, status, MPOL_MF_MOVE))
		ksft_exit_fail_msg("move_pages: %s\n", strerror(errno));
	for (k = 0, i = 0; k < nr; k++)
		i += status[k] == nodes[1];
	snapshot(2);
	d0 = bytes_of(1, site, nodes[0]) - bytes_of(2, site, nodes[0]);
	d1 = bytes_of(2, site, nodes[1]) - bytes_of(1, site, nodes[1]);
	ksft_print_msg("%d of %ld pages moved to node %d\n", i, nr, nodes[1]);
	ksft_test_result(d0 >= (long long)i * page * 9 / 10 && i >= nr * 9 / 10,
			 "migration took %lld bytes from node %d\n", d0, nodes[0]);
	ksft_test_result(d1 >= (long long)i * page * 9 / 10,
			 "migration gave %lld bytes to node %d\n", d1, nodes[1]);

	munmap(area, want);
	snapshot(3);
	d1 = bytes_of(2, site, nodes[1]) - bytes_of(3, site, nodes[1]);
	ksft_test_result(d1 >= (long long)i * page * 9 / 10,
			 "munmap() took %lld bytes from node %d\n", d1, nodes[1]);
	ksft_finished();
}
