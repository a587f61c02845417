// SPDX-License-Identifier: GPL-2.0
/*
 * Holds one object for another module and frees it when unloaded: lets the
 * boot checks free an allocation after the module that made it is gone.
 */
#include <linux/module.h>
#include <linux/slab.h>

static void *held;

/**
 * allocprof_holder_set() - keep @p until this module is unloaded
 * @p: a kmalloc()ed object, or NULL
 */
void allocprof_holder_set(void *p)
{
	kfree(held);
	held = p;
}
EXPORT_SYMBOL_GPL(allocprof_holder_set);

static void __exit allocprof_holder_exit(void)
{
	kfree(held);
}

static int __init allocprof_holder_init(void)
{
	return 0;
}

module_init(allocprof_holder_init);
module_exit(allocprof_holder_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling boot checks: frees after unload");
