// SPDX-License-Identifier: GPL-2.0
/*
 * Page allocations in a file whose only header before them is
 * <linux/gfp.h>: two call sites.
 * allocprof-sites: 2
 */
#include <linux/gfp.h>
#include <linux/errno.h>

static struct page *pg;
static unsigned long addr;

static int hdr_alloc(void)
{
	pg = alloc_pages(GFP_KERNEL, 1);
	addr = __get_free_page(GFP_KERNEL);
	return pg && addr ? 0 : -ENOMEM;
}

#include <linux/module.h>

static int __init hdr_init(void)
{
	return hdr_alloc();
}
module_init(hdr_init);

static void __exit hdr_exit(void)
{
	__free_pages(pg, 1);
	free_page(addr);
}
module_exit(hdr_exit);
MODULE_LICENSE("GPL");
