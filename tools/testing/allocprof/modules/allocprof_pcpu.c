// SPDX-License-Identifier: GPL-2.0
/*
 * One per-CPU allocation that cannot sleep, made when 1 is written to the
 * parameter "alloc" and freed when 0 is (or at unload).  Loaded while
 * profiling is off and triggered right after it is first switched on, the
 * allocation lands in a chunk that existed before the switch, and must be
 * charged exactly: 64 bytes on every possible CPU, one call.  Loading a
 * module after the switch would not show that: the load allocates the
 * module's per-CPU counters with GFP_KERNEL first.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

static void __percpu *obj;
static DEFINE_MUTEX(obj_lock);

static noinline int allocprof_pcpu_alloc(void)
{
	obj = __alloc_percpu_gfp(64, 8, GFP_NOWAIT);
	return obj ? 0 : -ENOMEM;
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
	} else if (!on) {
		free_percpu(obj);
		obj = NULL;
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
	free_percpu(obj);
}

static int __init allocprof_pcpu_init(void)
{
	return 0;
}

module_init(allocprof_pcpu_init);
module_exit(allocprof_pcpu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling boot checks: an atomic percpu allocation");
