// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobes on 6.1's names of the main slab entry points, __kmalloc() and
 * kmem_cache_alloc(): with profiling compiled in the functions are
 * __kmalloc_noprof() and kmem_cache_alloc_noprof(), and a tool written for
 * 6.1 attaches by the old name.  At load the probes are registered by
 * name, one allocation is made through each function, and the hits are
 * left in the parameters kmalloc_hits and cache_hits (at least 1 each).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

static atomic_t hits[2];
static int kmalloc_hits, cache_hits;
module_param(kmalloc_hits, int, 0444);
module_param(cache_hits, int, 0444);

/* Not a constant, so that kmalloc() calls __kmalloc(). */
static unsigned long size = 100;
module_param(size, ulong, 0444);

static int allocprof_kprobe_hit(struct kprobe *p, struct pt_regs *regs);

static struct kprobe probes[] = {
	{ .symbol_name = "__kmalloc", .pre_handler = allocprof_kprobe_hit },
	{ .symbol_name = "kmem_cache_alloc", .pre_handler = allocprof_kprobe_hit },
};

static int allocprof_kprobe_hit(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&hits[p == &probes[1]]);
	return 0;
}

static int __init allocprof_kprobe_init(void)
{
	struct kprobe *kps[] = { &probes[0], &probes[1] };
	struct kmem_cache *cache;
	void *a, *b = NULL;
	int ret;

	cache = kmem_cache_create("allocprof_kprobe", 64, 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	ret = register_kprobes(kps, ARRAY_SIZE(kps));
	if (ret) {
		pr_err("allocprof_kprobe: register_kprobes: %d\n", ret);
		kmem_cache_destroy(cache);
		return ret;
	}
	a = kmalloc(size, GFP_KERNEL);
	if (a)
		b = kmem_cache_alloc(cache, GFP_KERNEL);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	kmalloc_hits = atomic_read(&hits[0]);
	cache_hits = atomic_read(&hits[1]);
	pr_info("allocprof_kprobe: __kmalloc %d hits, kmem_cache_alloc %d hits\n",
		kmalloc_hits, cache_hits);
	if (b)
		kmem_cache_free(cache, b);
	kfree(a);
	kmem_cache_destroy(cache);
	return a && b ? 0 : -ENOMEM;
}

static void __exit allocprof_kprobe_exit(void)
{
}

module_init(allocprof_kprobe_init);
module_exit(allocprof_kprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling boot checks: kprobes on 6.1's names");
