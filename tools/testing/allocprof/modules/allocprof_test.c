// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the boot checks: allocates at known lines when loaded,
 * prints those lines and what the allocator says each allocation takes
 * (kmalloc_size_roundup(): the smallest kmalloc cache differs between
 * architectures), and frees on unload, except with leak=1, which hands one
 * kmalloc(100) to allocprof_holder to be freed after this module is gone,
 * and with rcu=1, which frees the kzalloc(1000) with kfree_rcu(): seconds
 * after the module is gone.
 */
#include <linux/module.h>
#include <linux/slab.h>

void allocprof_holder_set(void *p);

static bool leak;
module_param(leak, bool, 0444);
static bool rcu;
module_param(rcu, bool, 0444);

struct rcu_obj {
	struct rcu_head rcu;
};

static void *obj_kmalloc, *obj_kzalloc;
static char *obj_str;
static const char str[] = "allocprof";

static int __init allocprof_test_init(void)
{
	unsigned int l1, l2, l3;

	obj_kmalloc = kmalloc(100, GFP_KERNEL); l1 = __LINE__;
	obj_kzalloc = kzalloc(1000, GFP_KERNEL); l2 = __LINE__;
	obj_str = kstrdup(str, GFP_KERNEL); l3 = __LINE__;
	if (!obj_kmalloc || !obj_kzalloc || !obj_str) {
		kfree(obj_kmalloc);
		kfree(obj_kzalloc);
		kfree(obj_str);
		return -ENOMEM;
	}
	pr_info("allocprof_test: sizes %zu %zu %zu\n", kmalloc_size_roundup(100),
		kmalloc_size_roundup(1000), kmalloc_size_roundup(sizeof(str)));
	pr_info("allocprof_test: sites %u %u %u\n", l1, l2, l3);
	return 0;
}

static void __exit allocprof_test_exit(void)
{
	if (leak)
		allocprof_holder_set(obj_kmalloc);
	else
		kfree(obj_kmalloc);
	if (rcu)
		kfree_rcu((struct rcu_obj *)obj_kzalloc, rcu);
	else
		kfree(obj_kzalloc);
	kfree(obj_str);
}

module_init(allocprof_test_init);
module_exit(allocprof_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling boot-check module");
