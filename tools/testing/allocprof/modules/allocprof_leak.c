// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for module lifetime: a large image (256 KiB of data) that
 * leaks one kmalloc() object and one page at every load.  Loaded and
 * unloaded many times, it must cost the kernel the leaked memory and the
 * tags of its two sites per load, not its image.  With leak=0 it frees
 * both at once: the same loads and unloads without the leak, for
 * comparison.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>

#define IMAGE_BYTES	(256 * 1024)

/* Initialised, so that it is in the module's image, not allocated. */
static char image[IMAGE_BYTES] = { 1 };

static bool leak = true;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "leak the object and the page (default 1)");

static int __init allocprof_leak_init(void)
{
	unsigned int l1, l2;
	void *obj;
	struct page *page;

	obj = kmalloc(100, GFP_KERNEL); l1 = __LINE__;
	page = alloc_page(GFP_KERNEL); l2 = __LINE__;
	if (!obj || !page) {
		kfree(obj);
		if (page)
			__free_page(page);
		return -ENOMEM;
	}
	if (!leak) {
		kfree(obj);
		__free_page(page);
		return 0;
	}
	/* Leaked on purpose: nothing keeps them. */
	pr_info("allocprof_leak: sites %u %u size %zu image %d\n", l1, l2,
		kmalloc_size_roundup(100), image[0]);
	return 0;
}

static void __exit allocprof_leak_exit(void)
{
}

module_init(allocprof_leak_init);
module_exit(allocprof_leak_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling module-lifetime test module");
