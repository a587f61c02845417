// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-path micro-benchmark for the allocation profiling series.
 *
 * On load it times, with ktime_get_ns(), two loops on the CPU it runs on:
 *
 *   kmalloc: @iterations kmalloc()/kfree() calls of 8 to 240 bytes, in
 *            one of three patterns (@pattern): 0, batches of BATCH objects
 *            whose sizes grow from 8 to 240 bytes (8, 16, ... 240), from
 *            one call site; 1, for each of those sizes a batch of 10
 *            objects of that size, from one call site; 2, batches of 10
 *            constant sizes (8..80, 88..160, 168..240), from 30 call sites
 *            (kmalloc() with a constant size takes another entry point);
 *   pgalloc: @iterations __get_free_page()/free_page() calls, in batches
 *            of PBATCH pages.
 *
 * Each loop runs once untimed first (warm caches, per-CPU lists and slabs)
 * and then @repeat times timed; the fastest timed pass is reported, as
 *
 *   allocprof_bench: kmalloc <ns> pgalloc <ns> iterations <n> account <0|1> pattern <p>
 *
 * @account=1 adds __GFP_ACCOUNT to every allocation (memcg kmem charging;
 * only has an effect when the loading task is in a non-root memory cgroup).
 * The module uses nothing but kmalloc(), kfree(), __get_free_page() and
 * free_page(), so it builds against a kernel with profiling compiled out,
 * against the profiling kernel and against mainline.  Loading fails on
 * purpose (-EAGAIN) once the figures are printed, so it can be loaded
 * again without an rmmod.  (busybox's insmod does that by itself: when
 * finit_module() fails it tries init_module(), so every insmod runs the
 * benchmark twice; guest.sh reports the second run.)
 *
 * Before the kmalloc loop, @drain batches are allocated at once and freed,
 * so that the loop does not depend on how full the caches' slabs were (see
 * drain_partial_slabs()).
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>

#define BATCH	30	/* sizes 8, 16, ..., 240 */
#define PBATCH	16
#define DRAIN	128	/* batches held at once by drain_partial_slabs() */

static unsigned int iterations = 300000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "allocations per loop (default 300000)");

static unsigned int repeat = 3;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat, "timed passes per loop; the fastest is reported (default 3)");

static unsigned int drain = DRAIN;
module_param(drain, uint, 0444);
MODULE_PARM_DESC(drain, "batches allocated and freed before the kmalloc loop (default 128, 0: none)");

static unsigned int pattern;
module_param(pattern, uint, 0444);
MODULE_PARM_DESC(pattern, "kmalloc call pattern, 0, 1 or 2 (default 0; see the top of the file)");

static bool account;
module_param(account, bool, 0444);
MODULE_PARM_DESC(account, "add __GFP_ACCOUNT to every allocation (default 0)");

/*
 * The kmalloc loop runs on the fast paths only if the CPU slab of each cache
 * it uses has room for a whole batch.  If it has not, because objects that
 * other code keeps there fill it, every batch takes the slow paths: a new
 * CPU slab when the current one runs out, and __slab_free() for the objects
 * of the previous one.  On arm64, whose 8..240-byte requests share
 * kmalloc-128 (32 objects a slab) and kmalloc-256 (16), one batch of 16 and
 * 14 objects seldom fits in a slab that holds anything else, and whether it
 * fits depends on what was allocated before, not on the kernel under test:
 * an arm64 kernel with profiling off once measured 16% slower than the
 * baseline only because its kmalloc-128 slabs were fuller.
 *
 * So take the partial slabs out of the game first: hold @batches batches at
 * once, which uses up the partial slabs and ends in fresh ones, then free
 * them.  The CPU slab is then a fresh slab with room for a batch.  The
 * objects are chained through their first word, so no array is needed.
 */
static int drain_partial_slabs(gfp_t gfp, unsigned int batches)
{
	void **head = NULL, **obj;
	unsigned int i, j;
	int ret = 0;

	for (i = 0; i < batches && !ret; i++) {
		for (j = 0; j < BATCH; j++) {
			obj = kmalloc(8 * (j + 1), gfp);
			if (!obj) {
				ret = -ENOMEM;
				break;
			}
			*obj = head;
			head = obj;
		}
	}
	while (head) {
		obj = *head;
		kfree(head);
		head = obj;
	}
	return ret;
}

static int bench_kmalloc_batch(gfp_t gfp, unsigned int n, u64 *ns)
{
	void *obj[BATCH];
	unsigned int i, j;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += BATCH) {
		for (j = 0; j < BATCH; j++) {
			obj[j] = kmalloc(8 * (j + 1), gfp);
			if (!obj[j])
				goto fail;
		}
		for (j = 0; j < BATCH; j++)
			kfree(obj[j]);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
fail:
	while (j--)
		kfree(obj[j]);
	return -ENOMEM;
}

/* Pattern 1: for each size, a batch of 10 objects of that size. */
static int bench_kmalloc_per_size(gfp_t gfp, unsigned int n, u64 *ns)
{
	void *obj[10];
	unsigned int i, j, size;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += 10) {
		size = 8 * ((i / 10) % BATCH + 1);
		for (j = 0; j < 10; j++) {
			obj[j] = kmalloc(size, gfp);
			if (!obj[j])
				goto fail;
		}
		for (j = 0; j < 10; j++)
			kfree(obj[j]);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
fail:
	while (j--)
		kfree(obj[j]);
	return -ENOMEM;
}

/*
 * Pattern 2: ten kmalloc() calls with constant sizes @base + 8 ... @base +
 * 80, then their frees.  Always inlined with a constant @base, so that
 * each call is a call site of its own with a constant size.
 */
static __always_inline int kmalloc_const10(gfp_t gfp, const unsigned int base)
{
	void *obj[10] = {
		kmalloc(base + 8, gfp), kmalloc(base + 16, gfp),
		kmalloc(base + 24, gfp), kmalloc(base + 32, gfp),
		kmalloc(base + 40, gfp), kmalloc(base + 48, gfp),
		kmalloc(base + 56, gfp), kmalloc(base + 64, gfp),
		kmalloc(base + 72, gfp), kmalloc(base + 80, gfp),
	};
	unsigned int j;
	int ret = 0;

	for (j = 0; j < 10; j++) {
		if (!obj[j])
			ret = -ENOMEM;
		kfree(obj[j]);
	}
	return ret;
}

static int bench_kmalloc_const(gfp_t gfp, unsigned int n, u64 *ns)
{
	unsigned int i;
	u64 t0 = ktime_get_ns();
	int ret = 0;

	for (i = 0; i < n && !ret; i += BATCH)
		ret = kmalloc_const10(gfp, 0) | kmalloc_const10(gfp, 80) |
		      kmalloc_const10(gfp, 160);
	*ns = ktime_get_ns() - t0;
	return ret;
}

static int bench_kmalloc(gfp_t gfp, unsigned int n, u64 *ns)
{
	switch (pattern) {
	case 1:
		return bench_kmalloc_per_size(gfp, n, ns);
	case 2:
		return bench_kmalloc_const(gfp, n, ns);
	default:
		return bench_kmalloc_batch(gfp, n, ns);
	}
}

static int bench_pgalloc(gfp_t gfp, unsigned int n, u64 *ns)
{
	unsigned long pg[PBATCH];
	unsigned int i, j;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += PBATCH) {
		for (j = 0; j < PBATCH; j++) {
			pg[j] = __get_free_page(gfp);
			if (!pg[j])
				goto fail;
		}
		for (j = 0; j < PBATCH; j++)
			free_page(pg[j]);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
fail:
	while (j--)
		free_page(pg[j]);
	return -ENOMEM;
}

static int __init allocprof_bench_init(void)
{
	gfp_t gfp = GFP_KERNEL | (account ? __GFP_ACCOUNT : 0);
	u64 km = U64_MAX, pa = U64_MAX, t;
	unsigned int r;
	int ret;

	/* Round up to whole batches so that every pass does the same work. */
	iterations = roundup(max(iterations, 1U), BATCH * PBATCH);

	ret = drain_partial_slabs(gfp, drain);
	if (!ret)
		ret = bench_kmalloc(gfp, iterations, &t);
	for (r = 0; !ret && r < repeat; r++) {
		ret = bench_kmalloc(gfp, iterations, &t);
		km = min(km, t);
	}
	if (!ret)
		ret = bench_pgalloc(gfp, iterations, &t);
	for (r = 0; !ret && r < repeat; r++) {
		ret = bench_pgalloc(gfp, iterations, &t);
		pa = min(pa, t);
	}
	if (ret) {
		pr_err("allocprof_bench: allocation failed\n");
		return ret;
	}
	pr_info("allocprof_bench: kmalloc %llu pgalloc %llu iterations %u account %d pattern %u\n",
		km, pa, iterations, account ? 1 : 0, pattern);
	return -EAGAIN;
}

module_init(allocprof_bench_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling: kmalloc and page allocator timing");
