// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the call-stack capture boot check (guest/capture.sh): a
 * helper, allocprof_capture_helper(), allocates at one line for three
 * callers, which call it 1, 2 and 3 times, and for a timer that calls it
 * in hard interrupt context.  Driven through module parameters:
 *
 *   run=1    the three callers allocate (6 objects)
 *   irq=N    the timer allocates N objects, one per expiry
 *   free=1   every object is freed
 *   bench=N  N allocations and frees of the helper's object, and then N
 *            of a page from allocprof_capture_page_helper(), timed (with
 *            QEMU -icount the "ns" are guest instructions)
 *
 * With leak=1 the module hands one object to allocprof_holder when it is
 * unloaded, so that an allocation outlives the module.
 */
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

void allocprof_holder_set(void *p);

#define OBJ_SIZE	200
#define MAX_OBJS	256

static bool leak;
module_param(leak, bool, 0444);

static DEFINE_SPINLOCK(objs_lock);
static DEFINE_MUTEX(run_lock);
static void *objs[MAX_OBJS];
static unsigned int nr_objs;

static noinline void *allocprof_capture_helper(gfp_t gfp)
{
	return kmalloc(OBJ_SIZE, gfp);
}

static noinline struct page *allocprof_capture_page_helper(void)
{
	return alloc_pages(GFP_KERNEL, 0);
}

static noinline void allocprof_capture_keep(void *p)
{
	unsigned long flags;

	spin_lock_irqsave(&objs_lock, flags);
	if (p && nr_objs < MAX_OBJS) {
		objs[nr_objs++] = p;
		p = NULL;
	}
	spin_unlock_irqrestore(&objs_lock, flags);
	kfree(p);
}

static noinline void allocprof_capture_caller1(void)
{
	allocprof_capture_keep(allocprof_capture_helper(GFP_KERNEL));
}

static noinline void allocprof_capture_caller2(void)
{
	int i;

	for (i = 0; i < 2; i++)
		allocprof_capture_keep(allocprof_capture_helper(GFP_KERNEL));
}

static noinline void allocprof_capture_caller3(void)
{
	int i;

	for (i = 0; i < 3; i++)
		allocprof_capture_keep(allocprof_capture_helper(GFP_KERNEL));
}

static void allocprof_capture_free_all(void)
{
	unsigned long flags;
	void *p;

	for (;;) {
		spin_lock_irqsave(&objs_lock, flags);
		p = nr_objs ? objs[--nr_objs] : NULL;
		spin_unlock_irqrestore(&objs_lock, flags);
		if (!p)
			break;
		kfree(p);
	}
}

static struct hrtimer timer;
static DECLARE_COMPLETION(timer_done);
static unsigned int timer_left;
static bool timer_hardirq = true;

static enum hrtimer_restart allocprof_capture_timer(struct hrtimer *t)
{
	if (!in_hardirq())
		timer_hardirq = false;
	allocprof_capture_keep(allocprof_capture_helper(GFP_ATOMIC));
	if (--timer_left) {
		hrtimer_forward_now(t, ns_to_ktime(100000));
		return HRTIMER_RESTART;
	}
	complete(&timer_done);
	return HRTIMER_NORESTART;
}

static int set_run(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret || !on)
		return ret;
	mutex_lock(&run_lock);
	allocprof_capture_caller1();
	allocprof_capture_caller2();
	allocprof_capture_caller3();
	mutex_unlock(&run_lock);
	return 0;
}

static int set_irq(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 10, &n);

	if (ret || !n)
		return ret ?: -EINVAL;
	mutex_lock(&run_lock);
	reinit_completion(&timer_done);
	timer_left = n;
	hrtimer_start(&timer, ns_to_ktime(100000), HRTIMER_MODE_REL_HARD);
	wait_for_completion(&timer_done);
	mutex_unlock(&run_lock);
	pr_info("allocprof_capture: %u timer allocations, in hard irq: %d\n",
		n, timer_hardirq);
	return 0;
}

static int set_free(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret || !on)
		return ret;
	allocprof_capture_free_all();
	return 0;
}

static int set_bench(const char *val, const struct kernel_param *kp)
{
	u64 t0, t1, t2;
	unsigned int n, i;
	struct page *pg;
	void *p;
	int ret = kstrtouint(val, 10, &n);

	if (ret || !n)
		return ret ?: -EINVAL;
	/* Warm the slab and the per-CPU page lists first. */
	kfree(allocprof_capture_helper(GFP_KERNEL));
	__free_page(allocprof_capture_page_helper());
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		p = allocprof_capture_helper(GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
	}
	t1 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		pg = allocprof_capture_page_helper();
		if (!pg)
			return -ENOMEM;
		__free_page(pg);
	}
	t2 = ktime_get_ns();
	pr_info("allocprof_capture: bench %u kmalloc+kfree %llu ns, alloc_page+free %llu ns\n",
		n, t1 - t0, t2 - t1);
	return 0;
}

static const struct kernel_param_ops bench_ops = { .set = set_bench };
static const struct kernel_param_ops run_ops = { .set = set_run };
static const struct kernel_param_ops irq_ops = { .set = set_irq };
static const struct kernel_param_ops free_ops = { .set = set_free };
module_param_cb(bench, &bench_ops, NULL, 0200);
module_param_cb(run, &run_ops, NULL, 0200);
module_param_cb(irq, &irq_ops, NULL, 0200);
module_param_cb(free, &free_ops, NULL, 0200);

static int __init allocprof_capture_init(void)
{
	hrtimer_init(&timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	timer.function = allocprof_capture_timer;
	return 0;
}

static void __exit allocprof_capture_exit(void)
{
	unsigned long flags;
	void *keep = NULL;

	hrtimer_cancel(&timer);
	if (leak) {
		spin_lock_irqsave(&objs_lock, flags);
		if (nr_objs)
			keep = objs[--nr_objs];
		spin_unlock_irqrestore(&objs_lock, flags);
		allocprof_holder_set(keep);
	}
	allocprof_capture_free_all();
}

module_init(allocprof_capture_init);
module_exit(allocprof_capture_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling: a helper with three callers, for capture");
