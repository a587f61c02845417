// SPDX-License-Identifier: GPL-2.0
/*
 * The control: builds against a CONFIG_FORTIFY_SOURCE=y kernel.  kmemdup()
 * reads exactly its source, and a kmemdup() whose length is known only at
 * run time keeps the run-time check (a call of fortify_panic()).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char src[8];
static unsigned int len = sizeof(src);
module_param(len, uint, 0444);
static void *exact, *runtime;

static int __init fortify_ok_init(void)
{
	exact = kmemdup(src, sizeof(src), GFP_KERNEL);
	runtime = kmemdup(src, len, GFP_KERNEL);
	if (!exact || !runtime) {
		kfree(exact);
		kfree(runtime);
		return -ENOMEM;
	}
	return 0;
}
module_init(fortify_ok_init);

static void __exit fortify_ok_exit(void)
{
	kfree(exact);
	kfree(runtime);
}
module_exit(fortify_ok_exit);

MODULE_LICENSE("GPL");
