// SPDX-License-Identifier: GPL-2.0
/*
 * vmalloc() and friends in a file whose only header before them is
 * <linux/vmalloc.h>: three call sites.
 * allocprof-sites: 3
 */
#include <linux/vmalloc.h>
#include <linux/errno.h>

static void *v1, *v2, *v3;

static int hdr_alloc(void)
{
	v1 = vmalloc(4096);
	v2 = vzalloc(8192);
	v3 = vmalloc_node(4096, 0);
	return v1 && v2 && v3 ? 0 : -ENOMEM;
}

#include <linux/module.h>

static int __init hdr_init(void)
{
	return hdr_alloc();
}
module_init(hdr_init);

static void __exit hdr_exit(void)
{
	vfree(v1);
	vfree(v2);
	vfree(v3);
}
module_exit(hdr_exit);
MODULE_LICENSE("GPL");
