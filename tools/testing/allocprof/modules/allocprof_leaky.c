// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for "allocinfo leaks" (guest/leaks.sh): while it runs, a
 * delayed work item, every period_ms milliseconds (default 100),
 *
 *   leaks    one object of leak_size bytes (default 4096), kept until
 *            the module is unloaded: allocprof_leaky_leak() grows steadily;
 *   churns   frees the objects it allocated one period before and
 *            allocates a random number (0 to 63) of 2 KiB objects again:
 *            allocprof_leaky_churn() goes up and down;
 *   fills    a cache of its own: 8 objects of 1 KiB a period for 30
 *            periods, then frees 12 a period for 20 periods, which empties
 *            it, and again: allocprof_leaky_cache_fill() grows and
 *            shrinks every 50 periods (5 s), far less than a leaks run.
 *
 * Driven through module parameters: run=1 starts it (also at insmod),
 * run=0 stops it and keeps what it holds; unloading frees everything.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define CHURN_MAX	64	/* objects of one period, at most */
#define CHURN_SIZE	2048
#define CACHE_SIZE	1024
#define CACHE_FILL	8	/* objects a period while the cache grows */
#define CACHE_EMPTY	12	/* objects a period while it shrinks */
#define CACHE_GROW	30	/* periods it grows, then shrinks to empty */
#define CACHE_MAX	(CACHE_FILL * CACHE_GROW)

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "milliseconds between two rounds (default 100)");

static unsigned int leak_size = 4096;
module_param(leak_size, uint, 0444);
MODULE_PARM_DESC(leak_size, "bytes leaked a round (default 4096, at least 16)");

static DEFINE_MUTEX(run_lock);
static bool running;		/* run=1 was written last */
static bool ready;		/* the module is initialised */

/* Touched by the work item only, and at unload once it is cancelled. */
static LIST_HEAD(leaked);
static unsigned long nr_leaked;
static void *churn[CHURN_MAX];
static unsigned int nr_churn;
static struct kmem_cache *cache;
static void *cached[CACHE_MAX];
static unsigned int nr_cached;
static unsigned int round;

static noinline void allocprof_leaky_leak(void)
{
	struct list_head *obj = kmalloc(leak_size, GFP_KERNEL);

	if (obj) {
		list_add(obj, &leaked);
		nr_leaked++;
	}
}

static noinline void allocprof_leaky_churn(void)
{
	unsigned int n = get_random_u32() % CHURN_MAX;

	while (nr_churn)
		kfree(churn[--nr_churn]);
	while (nr_churn < n) {
		churn[nr_churn] = kmalloc(CHURN_SIZE, GFP_KERNEL);
		if (!churn[nr_churn])
			break;
		nr_churn++;
	}
}

static noinline void allocprof_leaky_cache_fill(void)
{
	unsigned int i;

	if (round % (CACHE_GROW + CACHE_MAX / CACHE_EMPTY) < CACHE_GROW) {
		for (i = 0; i < CACHE_FILL && nr_cached < CACHE_MAX; i++) {
			cached[nr_cached] = kmem_cache_alloc(cache, GFP_KERNEL);
			if (!cached[nr_cached])
				break;
			nr_cached++;
		}
		return;
	}
	for (i = 0; i < CACHE_EMPTY && nr_cached; i++)
		kmem_cache_free(cache, cached[--nr_cached]);
}

static void allocprof_leaky_round(struct work_struct *work);
static DECLARE_DELAYED_WORK(leaky_work, allocprof_leaky_round);

static void allocprof_leaky_round(struct work_struct *work)
{
	allocprof_leaky_leak();
	allocprof_leaky_churn();
	allocprof_leaky_cache_fill();
	round++;
	if (READ_ONCE(running))
		schedule_delayed_work(&leaky_work, msecs_to_jiffies(period_ms));
}

static int set_run(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&run_lock);
	WRITE_ONCE(running, on);
	if (ready && on)
		schedule_delayed_work(&leaky_work, 0);
	else if (ready)
		cancel_delayed_work_sync(&leaky_work);
	mutex_unlock(&run_lock);
	return 0;
}

static int get_run(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", READ_ONCE(running));
}

static const struct kernel_param_ops run_ops = { .set = set_run, .get = get_run };
module_param_cb(run, &run_ops, NULL, 0644);
MODULE_PARM_DESC(run, "1 starts the rounds, 0 stops them");

static int __init allocprof_leaky_init(void)
{
	if (leak_size < sizeof(struct list_head) || !period_ms)
		return -EINVAL;
	cache = kmem_cache_create("allocprof_leaky", CACHE_SIZE, 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	mutex_lock(&run_lock);
	ready = true;
	if (running)
		schedule_delayed_work(&leaky_work, 0);
	mutex_unlock(&run_lock);
	return 0;
}

static void __exit allocprof_leaky_exit(void)
{
	struct list_head *obj, *next;

	mutex_lock(&run_lock);
	ready = false;
	WRITE_ONCE(running, false);
	cancel_delayed_work_sync(&leaky_work);
	mutex_unlock(&run_lock);
	list_for_each_safe(obj, next, &leaked)
		kfree(obj);
	while (nr_churn)
		kfree(churn[--nr_churn]);
	while (nr_cached)
		kmem_cache_free(cache, cached[--nr_cached]);
	kmem_cache_destroy(cache);
	pr_info("allocprof_leaky: %lu objects of %u bytes leaked in %u rounds, freed\n",
		nr_leaked, leak_size, round);
}

module_init(allocprof_leaky_init);
module_exit(allocprof_leaky_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling test: a slow leak beside churn and a cache");
