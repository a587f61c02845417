// SPDX-License-Identifier: GPL-2.0
/*
 * <linux/sched.h> first: it includes <linux/percpu.h> before struct
 * task_struct is complete.  One call site.
 * allocprof-sites: 1
 */
#include <linux/sched.h>
#include <linux/errno.h>

static void __percpu *p1;

static int hdr_alloc(void)
{
	p1 = alloc_percpu(long);
	return p1 ? 0 : -ENOMEM;
}

#include <linux/module.h>

static int __init hdr_init(void)
{
	return hdr_alloc();
}
module_init(hdr_init);

static void __exit hdr_exit(void)
{
	free_percpu(p1);
}
module_exit(hdr_exit);
MODULE_LICENSE("GPL");
