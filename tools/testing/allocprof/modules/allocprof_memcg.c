// SPDX-License-Identifier: GPL-2.0
/*
 * Allocates objects charged to the loading task's memory cgroup
 * (GFP_KERNEL_ACCOUNT) and frees them when unloaded: lets the boot checks
 * see that kfree() gives back both what memcg charged and what profiling
 * charged, whichever of the two free paths the slab allocator takes
 * (profiling never enabled, enabled, enabled once and off again).
 */
#include <linux/module.h>
#include <linux/slab.h>

static unsigned int nr = 2048;
module_param(nr, uint, 0444);
MODULE_PARM_DESC(nr, "number of objects");

static unsigned int size = 512;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes asked of kmalloc() per object");

static void **objs;

static void allocprof_memcg_free(unsigned int n)
{
	while (n--)
		kfree(objs[n]);
	kvfree(objs);
}

static int __init allocprof_memcg_init(void)
{
	unsigned int i, line = 0;

	objs = kvcalloc(nr, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		objs[i] = kmalloc(size, GFP_KERNEL_ACCOUNT); line = __LINE__;
		if (!objs[i]) {
			allocprof_memcg_free(i);
			return -ENOMEM;
		}
	}
	pr_info("allocprof_memcg: line %u bytes %zu calls %u\n", line,
		(size_t)nr * kmalloc_size_roundup(size), nr);
	return 0;
}

static void __exit allocprof_memcg_exit(void)
{
	allocprof_memcg_free(nr);
}

module_init(allocprof_memcg_init);
module_exit(allocprof_memcg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling boot checks: memcg-charged objects");
