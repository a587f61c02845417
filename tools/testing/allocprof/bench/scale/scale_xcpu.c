// SPDX-License-Identifier: GPL-2.0
/*
 * Cross-CPU kmalloc/kfree benchmark of the allocation profiling series.
 *
 * Two kernel threads, bound to CPU 0 and CPU 1, run at once.  Each
 * allocates @iterations objects of SIZE bytes, in batches of BATCH, and
 *
 *   local:  frees each batch itself, right away;
 *   remote: hands each batch to the other thread through a ring of RING
 *           batches and frees the batches the other thread hands it: every
 *           object is freed on the CPU that did not allocate it (SLUB's
 *           remote free path; with profiling, the tag's per-CPU counters
 *           are raised on one CPU and lowered on the other).
 *
 * A thread that can neither allocate (its ring is full) nor free (the
 * other's ring is empty) waits with cpu_relax(), which on QEMU TCG with one
 * thread for all vCPUs also lets the other vCPU run.
 *
 * Time is taken from the first thread's start to the last thread's end, on
 * the one clock both CPUs share.  Each mode runs once untimed and then
 * @repeat times timed; the fastest timed pass is printed, as
 *
 *   scale_xcpu: objects <2 * iterations> local <ns> remote <ns> cpus <n>
 *
 * Loading fails on purpose (-EAGAIN) once the line is printed (see
 * scale_sites_core.h); take the last line.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#define SIZE	64
#define BATCH	32
#define RING	8	/* batches in flight per direction */

static unsigned int iterations = 50000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "objects allocated per thread and pass (default 50000)");

static unsigned int repeat = 3;
module_param(repeat, uint, 0444);
MODULE_PARM_DESC(repeat, "timed passes per mode; the fastest is reported (default 3)");

/* Batches from one thread to the other: one producer, one consumer. */
struct scale_ring {
	unsigned int head;	/* batches published, written by the producer */
	unsigned int tail;	/* batches freed, written by the consumer */
	void *obj[RING][BATCH];
} ____cacheline_aligned;

struct scale_thread {
	struct scale_ring *out, *in;
	bool remote;
	unsigned int n;
	int err;
	u64 start, end;
	struct completion *go;
	struct completion done;
};

static int scale_alloc_batch(void **obj)
{
	unsigned int j;
	int err = 0;

	for (j = 0; j < BATCH; j++) {
		obj[j] = kmalloc(SIZE, GFP_KERNEL);
		if (unlikely(!obj[j]))
			err = -ENOMEM;
	}
	return err;
}

static void scale_free_batch(void **obj)
{
	unsigned int j;

	for (j = 0; j < BATCH; j++)
		kfree(obj[j]);
}

static void scale_local(struct scale_thread *t)
{
	void *obj[BATCH];
	unsigned int made;

	for (made = 0; made < t->n; made += BATCH) {
		if (scale_alloc_batch(obj))
			t->err = -ENOMEM;
		scale_free_batch(obj);
	}
}

static void scale_remote(struct scale_thread *t)
{
	struct scale_ring *out = t->out, *in = t->in;
	unsigned int made = 0, freed = 0, head, tail;
	bool busy;

	while (made < t->n || freed < t->n) {
		busy = false;
		tail = smp_load_acquire(&out->tail);
		if (made < t->n && out->head - tail < RING) {
			if (scale_alloc_batch(out->obj[out->head % RING]))
				t->err = -ENOMEM;
			smp_store_release(&out->head, out->head + 1);
			made += BATCH;
			busy = true;
		}
		head = smp_load_acquire(&in->head);
		if (in->tail != head) {
			scale_free_batch(in->obj[in->tail % RING]);
			smp_store_release(&in->tail, in->tail + 1);
			freed += BATCH;
			busy = true;
		}
		if (!busy) {
			cpu_relax();
			cond_resched();
		}
	}
}

static int scale_thread_fn(void *data)
{
	struct scale_thread *t = data;

	wait_for_completion(t->go);
	t->start = ktime_get_ns();
	if (t->remote)
		scale_remote(t);
	else
		scale_local(t);
	t->end = ktime_get_ns();
	complete(&t->done);
	return 0;
}

static int scale_run(struct scale_ring *ring, bool remote, u64 *ns)
{
	struct scale_thread t[2];
	struct task_struct *task[2];
	DECLARE_COMPLETION_ONSTACK(go);
	int i;

	memset(ring, 0, 2 * sizeof(*ring));
	for (i = 0; i < 2; i++) {
		t[i] = (struct scale_thread) {
			.out = &ring[i], .in = &ring[!i], .remote = remote,
			.n = iterations, .go = &go,
		};
		init_completion(&t[i].done);
		task[i] = kthread_create(scale_thread_fn, &t[i], "scale_xcpu/%d", i);
		if (IS_ERR(task[i])) {
			/* The first one waits for go: let it run and finish. */
			if (i) {
				t[0].n = 0;
				complete_all(&go);
				wait_for_completion(&t[0].done);
			}
			return PTR_ERR(task[i]);
		}
		kthread_bind(task[i], i);
		wake_up_process(task[i]);
	}
	complete_all(&go);
	wait_for_completion(&t[0].done);
	wait_for_completion(&t[1].done);
	*ns = max(t[0].end, t[1].end) - min(t[0].start, t[1].start);
	return t[0].err ?: t[1].err;
}

static int __init scale_xcpu_init(void)
{
	u64 best[2] = { U64_MAX, U64_MAX }, ns;
	struct scale_ring *ring;
	unsigned int r;
	int mode, ret = 0;

	if (!cpu_online(0) || !cpu_online(1)) {
		pr_err("scale_xcpu: needs CPUs 0 and 1 online\n");
		return -ENODEV;
	}
	iterations = roundup(max(iterations, 1U), BATCH);
	ring = kcalloc(2, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	for (mode = 0; mode < 2 && !ret; mode++) {
		ret = scale_run(ring, mode, &ns);
		for (r = 0; !ret && r < repeat; r++) {
			ret = scale_run(ring, mode, &ns);
			best[mode] = min(best[mode], ns);
		}
	}
	kfree(ring);
	if (ret) {
		pr_err("scale_xcpu: pass failed (%d)\n", ret);
		return ret;
	}
	pr_info("scale_xcpu: objects %u local %llu remote %llu cpus %u\n",
		2 * iterations, best[0], best[1], num_online_cpus());
	return -EAGAIN;
}

module_init(scale_xcpu_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling scale benchmark: kmalloc and kfree on two CPUs");
