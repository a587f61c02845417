// SPDX-License-Identifier: GPL-2.0
/*
 * Must not build against a CONFIG_FORTIFY_SOURCE=y kernel: kmemdup() reads
 * 16 bytes from an 8-byte object.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char src[8];
static void *dup;

static int __init fortify_kmemdup_over_init(void)
{
	dup = kmemdup(src, 16, GFP_KERNEL);
	return dup ? 0 : -ENOMEM;
}
module_init(fortify_kmemdup_over_init);

static void __exit fortify_kmemdup_over_exit(void)
{
	kfree(dup);
}
module_exit(fortify_kmemdup_over_exit);

MODULE_LICENSE("GPL");
