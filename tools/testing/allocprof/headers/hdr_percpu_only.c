// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU allocations in a file whose first and only header before them is
 * <linux/percpu.h> (as kernel/bpf/percpu_freelist.c): three call sites.
 * allocprof-sites: 3
 */
#include <linux/percpu.h>
#include <linux/errno.h>

struct hdr_pair {
	long a, b;
};

static struct hdr_pair __percpu *p1;
static void __percpu *p2, *p3;

static int hdr_alloc(void)
{
	p1 = alloc_percpu(struct hdr_pair);
	p2 = __alloc_percpu(64, 8);
	p3 = alloc_percpu_gfp(long, GFP_KERNEL);
	return p1 && p2 && p3 ? 0 : -ENOMEM;
}

#include <linux/module.h>

static int __init hdr_init(void)
{
	return hdr_alloc();
}
module_init(hdr_init);

static void __exit hdr_exit(void)
{
	free_percpu(p1);
	free_percpu(p2);
	free_percpu(p3);
}
module_exit(hdr_exit);
MODULE_LICENSE("GPL");
