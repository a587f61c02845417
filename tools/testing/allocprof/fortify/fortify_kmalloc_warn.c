// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc()'s __alloc_size must reach FORTIFY_SOURCE through the profiling
 * wrapper: memset() of 16 bytes into an 8-byte kmalloc() object gets
 * FORTIFY's "detected write beyond size of field" warning at build time
 * (for a pointer, plain 6.1 warns and does not stop the build), and a
 * memset() whose length is known only at run time keeps the run-time check.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static unsigned int len = 8;
module_param(len, uint, 0444);
static void *obj, *obj2;

static int __init fortify_kmalloc_warn_init(void)
{
	char *a = kmalloc(8, GFP_KERNEL);
	char *b = kmalloc(8, GFP_KERNEL);

	if (!a || !b) {
		kfree(a);
		kfree(b);
		return -ENOMEM;
	}
	memset(a, 0, 16);
	memset(b, 0, len);
	obj = a;
	obj2 = b;
	return 0;
}
module_init(fortify_kmalloc_warn_init);

static void __exit fortify_kmalloc_warn_exit(void)
{
	kfree(obj);
	kfree(obj2);
}
module_exit(fortify_kmalloc_warn_exit);

MODULE_LICENSE("GPL");
