/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing code of the generated scale_sites_N modules (see gen.py), which
 * define, before including this file:
 *
 *   SCALE_SIZE, SCALE_NAME
 *   scale_sites[]: N functions, each storing kmalloc(SCALE_SIZE) through
 *                  its argument from a call site of its own;
 *   scale_nops[]:  N functions, each storing a constant instead.
 *
 * On load it times, with ktime_get_ns(), @iterations kmalloc()/kfree()
 * pairs in batches of BATCH objects.  Allocation k of the pass goes through
 * scale_sites[k % N], so with N sites every site (its tag and counters) is
 * used once every N allocations: with N = 10000 the tags and counters
 * touched in one pass are far more than a CPU cache holds.  The batch is
 * small and the same for every N, so that SLUB takes the same (fast)
 * paths whatever N is; only the call sites change.
 *
 * The same loop over scale_nops[], freeing with an empty function instead
 * of kfree(), gives what the loop and the indirect calls cost ("null").
 * Each pass runs once untimed, then @repeat times timed; the fastest timed
 * pass of each is printed:
 *
 *   scale_sites: sites <N> iterations <n> raw <ns> null <ns>
 *
 * Loading fails on purpose (-EAGAIN) once the line is printed, so the
 * module can be loaded again without an rmmod; a loader that retries a
 * failed init (busybox insmod does) runs it twice, and the last line
 * printed is the one to take.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>

#define BATCH	32	/* objects held at once; half a kmalloc-64 slab */
#define DRAIN	64	/* batches held at once by scale_drain() */

static unsigned int iterations = 100000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "kmalloc+kfree pairs per pass (default 100000)");

static unsigned int repeat = 3;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat, "timed passes; the fastest is reported (default 3)");

#define NSITES	ARRAY_SIZE(scale_sites)

/*
 * Start from a fresh CPU slab with room for a batch (see drain_partial_slabs()
 * in ../allocprof_bench.c): hold DRAIN batches at once, then free them.
 */
static int scale_drain(void)
{
	void **head = NULL, **obj;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < DRAIN * BATCH; i++) {
		obj = kmalloc(SCALE_SIZE, GFP_KERNEL);
		if (!obj) {
			ret = -ENOMEM;
			break;
		}
		*obj = head;
		head = obj;
	}
	while (head) {
		obj = *head;
		kfree(head);
		head = obj;
	}
	return ret;
}

static int scale_pass(unsigned int n, u64 *ns)
{
	void *obj[BATCH];
	unsigned int i, j, s = 0;
	bool failed = false;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += BATCH) {
		for (j = 0; j < BATCH; j++) {
			scale_sites[s](&obj[j]);
			if (++s == NSITES)
				s = 0;
		}
		for (j = 0; j < BATCH; j++) {
			if (unlikely(!obj[j]))
				failed = true;
			kfree(obj[j]);
		}
	}
	*ns = ktime_get_ns() - t0;
	return failed ? -ENOMEM : 0;
}

static noinline void scale_nop_free(const void *p)
{
	/* Keep the call: it stands for the call to kfree(). */
	barrier();
}

/* scale_pass() without the allocator: the loop, the calls, the stores. */
static int scale_null_pass(unsigned int n, u64 *ns)
{
	void *obj[BATCH];
	unsigned int i, j, s = 0;
	bool failed = false;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += BATCH) {
		for (j = 0; j < BATCH; j++) {
			scale_nops[s](&obj[j]);
			if (++s == NSITES)
				s = 0;
		}
		for (j = 0; j < BATCH; j++) {
			if (unlikely(!obj[j]))
				failed = true;
			scale_nop_free(obj[j]);
		}
	}
	*ns = ktime_get_ns() - t0;
	return failed ? -EINVAL : 0;
}

static int __init scale_sites_init(void)
{
	u64 raw = U64_MAX, null = U64_MAX, t;
	unsigned int r;
	int ret;

	/* Whole batches, and at least one full cycle over the sites. */
	iterations = roundup(max_t(unsigned int, iterations, NSITES), BATCH);

	ret = scale_drain();
	if (!ret)
		ret = scale_pass(iterations, &t);
	for (r = 0; !ret && r < repeat; r++) {
		ret = scale_pass(iterations, &t);
		raw = min(raw, t);
	}
	if (!ret)
		ret = scale_null_pass(iterations, &t);
	for (r = 0; !ret && r < repeat; r++) {
		ret = scale_null_pass(iterations, &t);
		null = min(null, t);
	}
	if (ret) {
		pr_err("scale_sites: %s: pass failed (%d)\n", SCALE_NAME, ret);
		return ret;
	}
	pr_info("scale_sites: sites %zu iterations %u raw %llu null %llu\n",
		NSITES, iterations, raw, null);
	return -EAGAIN;
}

module_init(scale_sites_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling scale benchmark: kmalloc/kfree over many call sites");
