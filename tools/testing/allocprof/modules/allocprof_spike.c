// SPDX-License-Identifier: GPL-2.0
/*
 * A spike of slab allocations: at load, for each kmalloc size class and
 * for a cache of its own, allocates nr objects (at most 32 MiB) and frees
 * them all again.
 * The boot check then shrinks every cache and compares the slab memory
 * left with what it was before, at profiling on and off: a slab that
 * holds nothing but an extension vector (its own, or one describing a
 * slab that holds its vector) never comes back.  account=1 allocates
 * with GFP_KERNEL_ACCOUNT (memcg's kmalloc-cg-* caches and vectors).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned int nr = 20000;
module_param(nr, uint, 0444);
MODULE_PARM_DESC(nr, "objects per size");

static bool account;
module_param(account, bool, 0444);
MODULE_PARM_DESC(account, "allocate with GFP_KERNEL_ACCOUNT");

static const unsigned int sizes[] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192
};

static int __init allocprof_spike_init(void)
{
	gfp_t gfp = account ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	struct kmem_cache *cache;
	unsigned int i, n;
	void **objs;

	objs = vmalloc(array_size(nr, sizeof(*objs)));
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		/* At most 32 MiB at a time: the guest has 512 MiB. */
		unsigned int max = min(nr, (32U << 20) / sizes[i]);

		for (n = 0; n < max; n++) {
			objs[n] = kmalloc(sizes[i], gfp);
			if (!objs[n])
				break;
		}
		pr_info("allocprof_spike: size %u: %u objects\n", sizes[i], n);
		while (n--)
			kfree(objs[n]);
	}
	cache = kmem_cache_create("allocprof_spike", 200, 0,
				  account ? SLAB_ACCOUNT : 0, NULL);
	if (cache) {
		for (n = 0; n < nr; n++) {
			objs[n] = kmem_cache_alloc(cache, GFP_KERNEL);
			if (!objs[n])
				break;
		}
		pr_info("allocprof_spike: cache: %u objects\n", n);
		while (n--)
			kmem_cache_free(cache, objs[n]);
		kmem_cache_destroy(cache);
	}
	vfree(objs);
	return 0;
}

static void __exit allocprof_spike_exit(void)
{
}

module_init(allocprof_spike_init);
module_exit(allocprof_spike_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling test: a spike of slab allocations");
