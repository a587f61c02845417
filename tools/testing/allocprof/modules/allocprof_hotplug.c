// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for page tags in hot-added memory: allocates order-0 pages
 * at one line until @mb MiB are held or the allocator says no, and counts
 * how many come from page frames at or above @hot_pfn (memory added after
 * boot).  Everything is freed on unload.
 */
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>

static unsigned int mb = 64;
module_param(mb, uint, 0444);
static unsigned long hot_pfn = ULONG_MAX;
module_param(hot_pfn, ulong, 0444);

static LIST_HEAD(held);

static int __init allocprof_hotplug_init(void)
{
	unsigned long want = (unsigned long)mb << (20 - PAGE_SHIFT);
	gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_NOWARN | __GFP_NORETRY;
	unsigned long n = 0, hot = 0;
	unsigned int line = 0;
	struct page *page;

	while (n < want) {
		/* On one line: the tag's line is where the call starts. */
		page = alloc_page(gfp); line = __LINE__;
		if (!page)
			break;
		list_add(&page->lru, &held);
		n++;
		if (page_to_pfn(page) >= hot_pfn)
			hot++;
	}
	pr_info("allocprof_hotplug: site %u pages %lu hot %lu page_size %lu\n",
		line, n, hot, PAGE_SIZE);
	return 0;
}

static void __exit allocprof_hotplug_exit(void)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, &held, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
}

module_init(allocprof_hotplug_init);
module_exit(allocprof_hotplug_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling page-tag hotplug test module");
