// SPDX-License-Identifier: GPL-2.0
/*
 * Three allocations that cannot sleep, each at a line of its own, made
 * when 1 is written to the parameter "alloc" and freed when 0 is (or at
 * unload): a per-CPU one, an order-0 page and a 128-byte kmalloc().
 *
 * Loaded while profiling is off, the module's tags have no counters until
 * profiling is first switched on.  Made before the switch, the allocations
 * carry no tag, and freeing them after it must charge nothing.  Made again
 * after it, they land in a percpu chunk, pages and a slab that existed
 * before the switch, and must be charged exactly: 64 bytes on every
 * possible CPU, a page, 128 bytes, one call each.  Loading a module after
 * the switch would not show that: the load allocates the module's per-CPU
 * counters with GFP_KERNEL first.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>

static void __percpu *obj;
static struct page *page;
static void *slab_obj;
static DEFINE_MUTEX(obj_lock);

static noinline int allocprof_pcpu_alloc(void)
{
	obj = __alloc_percpu_gfp(64, 8, GFP_NOWAIT);
	return obj ? 0 : -ENOMEM;
}

static noinline int allocprof_pcpu_page(void)
{
	page = alloc_page(GFP_NOWAIT);
	return page ? 0 : -ENOMEM;
}

static noinline int allocprof_pcpu_slab(void)
{
	slab_obj = kmalloc(128, GFP_NOWAIT);
	return slab_obj ? 0 : -ENOMEM;
}

static void allocprof_pcpu_free(void)
{
	free_percpu(obj);
	obj = NULL;
	if (page)
		__free_page(page);
	page = NULL;
	kfree(slab_obj);
	slab_obj = NULL;
}

static int allocprof_pcpu_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&obj_lock);
	if (on && !obj) {
		ret = allocprof_pcpu_alloc();
		if (!ret)
			ret = allocprof_pcpu_page();
		if (!ret)
			ret = allocprof_pcpu_slab();
		if (ret)
			allocprof_pcpu_free();
	} else if (!on) {
		allocprof_pcpu_free();
	}
	mutex_unlock(&obj_lock);
	return ret;
}

static int allocprof_pcpu_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", !!obj);
}

static const struct kernel_param_ops allocprof_pcpu_ops = {
	.set = allocprof_pcpu_set,
	.get = allocprof_pcpu_get,
};
module_param_cb(alloc, &allocprof_pcpu_ops, NULL, 0600);

static void __exit allocprof_pcpu_exit(void)
{
	allocprof_pcpu_free();
}

static int __init allocprof_pcpu_init(void)
{
	return 0;
}

module_init(allocprof_pcpu_init);
module_exit(allocprof_pcpu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling boot checks: allocations across the first switch-on");
