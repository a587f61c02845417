// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the debug boot check: allocates once through the _noprof
 * functions directly, which is what a missing alloc_hooks() annotation
 * looks like, so that CONFIG_MEM_ALLOC_PROFILING_DEBUG must name
 * untagged_slab() and untagged_page().  Loading ends with -EAGAIN on
 * purpose: nothing stays loaded.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>

static noinline int untagged_slab(void)
{
	void *p = kmalloc_noprof(64, GFP_KERNEL);

	kfree(p);
	return p ? 0 : -ENOMEM;
}

static noinline int untagged_page(void)
{
	struct page *page = alloc_pages_noprof(GFP_KERNEL, 0);

	if (!page)
		return -ENOMEM;
	__free_pages(page, 0);
	return 0;
}

static int __init allocprof_untagged_init(void)
{
	int i, ret = 0;

	/* Twice: the second time must not be reported again. */
	for (i = 0; i < 2 && !ret; i++)
		ret = untagged_slab() ?: untagged_page();

	pr_info("allocprof_untagged: done (%d)\n", ret);
	return ret ?: -EAGAIN;
}

module_init(allocprof_untagged_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling: untagged allocations for the debug check");
