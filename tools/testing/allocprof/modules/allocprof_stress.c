// SPDX-License-Identifier: GPL-2.0
/*
 * Stress module for the reliability boot checks.
 *
 * Loading it runs one kernel thread on every online CPU for @seconds, or
 * until 1 is written to the "stop" parameter.  Each
 * thread keeps a ring of live allocations per API (kmalloc small and large,
 * a cache of its own, bulk slab, pages, bulk pages, vmalloc, percpu) and
 * replaces random entries, so objects are allocated on one CPU and freed on
 * the same or, through the rings of earlier rounds, after profiling was
 * switched.  At the end every thread keeps at most @hold entries per API;
 * the module prints, per API, the line of its one allocation site, what one
 * allocation there is charged (measured before the threads start), how many
 * are held and therefore what /proc/allocinfo must show.  Writing 1 to the
 * "release" parameter frees everything; the sites must then show 0 0.
 *
 * With fail=1 the threads are marked for fault injection (failslab,
 * fail_page_alloc with task-filter): only their allocations fail, and only
 * successful ones are counted as held.
 *
 * With hop=1 (the CPU hotplug check) the threads are not per-CPU threads:
 * each moves to the next online CPU every few rounds, so that every CPU
 * allocates and frees while CPUs go offline and come back, and an object
 * is often freed on another CPU than the one it was charged on.
 */
#include <linux/alloc_tag.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned int seconds = 5;
module_param(seconds, uint, 0444);
static unsigned int hold = 8;
module_param(hold, uint, 0444);
static bool fail;
module_param(fail, bool, 0444);
static bool stop;
module_param(stop, bool, 0644);
static bool hop;
module_param(hop, bool, 0444);

enum api {
	A_KMALLOC, A_KZALLOC, A_KMALLOC_LARGE, A_CACHE, A_CACHE_BULK,
	A_PAGES, A_PAGES_O2, A_PAGES_BULK, A_VMALLOC, A_PERCPU, A_NEWCACHE,
	NR_API
};

static const char * const api_name[NR_API] = {
	"kmalloc", "kzalloc", "kmalloc_large", "kmem_cache_alloc",
	"kmem_cache_alloc_bulk", "alloc_pages", "alloc_pages_order2",
	"alloc_pages_bulk_array", "vmalloc", "alloc_percpu",
	"kmem_cache_alloc_new_cache",
};

#define RING	32
#define BULK	4

struct slot {
	void *v[BULK];
	unsigned int n;		/* objects or pages held in v[] */
};

struct worker {
	struct task_struct *task;
	unsigned int cpu, rounds;
	DECLARE_BITMAP(ran_on, NR_CPUS);	/* CPUs it allocated on */
	struct completion done;
	struct rnd_state rnd;
	unsigned long attempts[NR_API], failures[NR_API];
	struct slot ring[NR_API][RING];
};

struct pcpu_obj {
	u64 a[6];
};

static struct kmem_cache *cache;
static struct worker *workers[NR_CPUS];
static unsigned int site_line[NR_API];
static u64 unit_bytes[NR_API], unit_calls[NR_API];
static unsigned long deadline;
static DEFINE_MUTEX(release_lock);

/*
 * The first object of a cache of its own: every such allocation needs a new
 * slab and so a new extension vector, the allocation that fault injection
 * must be able to fail without failing the object.  The constructor keeps
 * the cache from being merged with another.
 */
static void newcache_ctor(void *obj)
{
}

/*
 * Creating and destroying a cache allocates a lot, and a failed
 * kmem_cache_create() dumps a stack: keep fault injection for the object
 * (and its extension vector) only.
 */
static int fault_pause(void)
{
#ifdef CONFIG_FAULT_INJECTION
	int old = current->make_it_fail;

	current->make_it_fail = 0;
	return old;
#else
	return 0;
#endif
}

static void fault_resume(int old)
{
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = old;
#endif
}

/*
 * SITE(api, foo_noprof(...)) is foo(...) as <linux/slab.h> and friends
 * define it, a tag for the line and the allocation run under it, except
 * that the tag is remembered, so that the module can read its counters.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING
static struct alloc_tag *site_tag[NR_API];
#define SITE(api, call)							\
({									\
	DEFINE_ALLOC_TAG(_site_tag);					\
	site_tag[api] = &_site_tag;					\
	site_line[api] = __LINE__;					\
	alloc_hooks_tag(&_site_tag, call);				\
})
#else
#define SITE(api, call)	({ site_line[api] = __LINE__; call; })
#endif

/* Every API has exactly one allocation site, on the line SITE() records. */
static void do_alloc(struct slot *s, enum api api)
{
	unsigned int n = 0;
	int fi;

	memset(s->v, 0, sizeof(s->v));
	switch (api) {
	case A_KMALLOC:
		s->v[0] = SITE(A_KMALLOC, kmalloc_noprof(24, GFP_KERNEL));
		break;
	case A_KZALLOC:
		s->v[0] = SITE(A_KZALLOC, kzalloc_noprof(700, GFP_KERNEL));
		break;
	case A_KMALLOC_LARGE:
		s->v[0] = SITE(A_KMALLOC_LARGE,
			       kmalloc_noprof(3 * PAGE_SIZE, GFP_KERNEL));
		break;
	case A_CACHE:
		s->v[0] = SITE(A_CACHE, kmem_cache_alloc_noprof(cache, GFP_KERNEL));
		break;
	case A_CACHE_BULK:
		n = SITE(A_CACHE_BULK,
			 kmem_cache_alloc_bulk_noprof(cache, GFP_KERNEL, BULK, s->v));
		break;
	case A_PAGES:
		s->v[0] = SITE(A_PAGES, alloc_pages_noprof(GFP_KERNEL, 0));
		break;
	case A_PAGES_O2:
		s->v[0] = SITE(A_PAGES_O2, alloc_pages_noprof(GFP_KERNEL, 2));
		break;
	case A_PAGES_BULK:
		n = SITE(A_PAGES_BULK,
			 __alloc_pages_bulk_noprof(GFP_KERNEL, numa_mem_id(), NULL,
						   BULK, NULL, (struct page **)s->v));
		break;
	case A_VMALLOC:
		s->v[0] = SITE(A_VMALLOC, vmalloc_noprof(2 * PAGE_SIZE + 100));
		break;
	case A_PERCPU:
		s->v[0] = (void __force *)SITE(A_PERCPU,
			__alloc_percpu_gfp_noprof(sizeof(struct pcpu_obj),
						  __alignof__(struct pcpu_obj),
						  GFP_KERNEL));
		break;
	case A_NEWCACHE:
		fi = fault_pause();
		s->v[0] = kmem_cache_create("allocprof_stress_new", 200, 0, 0,
					    newcache_ctor);
		fault_resume(fi);
		if (!s->v[0])
			break;
		s->v[1] = SITE(A_NEWCACHE,
			       kmem_cache_alloc_noprof(s->v[0], GFP_KERNEL));
		if (!s->v[1]) {
			fi = fault_pause();
			kmem_cache_destroy(s->v[0]);
			fault_resume(fi);
			s->v[0] = NULL;
		}
		break;
	default:
		break;
	}
	if (api != A_CACHE_BULK && api != A_PAGES_BULK)
		n = s->v[0] ? 1 : 0;
	s->n = n;
}

static void do_free(struct slot *s, enum api api)
{
	unsigned int i;
	int fi;

	if (!s->n)
		return;
	switch (api) {
	case A_KMALLOC:
	case A_KZALLOC:
	case A_KMALLOC_LARGE:
		kfree(s->v[0]);
		break;
	case A_CACHE:
		kmem_cache_free(cache, s->v[0]);
		break;
	case A_CACHE_BULK:
		kmem_cache_free_bulk(cache, s->n, s->v);
		break;
	case A_PAGES:
		__free_pages(s->v[0], 0);
		break;
	case A_PAGES_O2:
		__free_pages(s->v[0], 2);
		break;
	case A_PAGES_BULK:
		for (i = 0; i < BULK; i++)
			if (s->v[i])
				__free_pages(s->v[i], 0);
		break;
	case A_VMALLOC:
		vfree(s->v[0]);
		break;
	case A_PERCPU:
		free_percpu((void __percpu __force *)s->v[0]);
		break;
	case A_NEWCACHE:
		kmem_cache_free(s->v[0], s->v[1]);
		fi = fault_pause();
		kmem_cache_destroy(s->v[0]);
		fault_resume(fi);
		break;
	default:
		break;
	}
	memset(s, 0, sizeof(*s));
}

/* A full bulk allocation is the unit of the bulk APIs. */
static unsigned int unit_objects(enum api api)
{
	return api == A_CACHE_BULK || api == A_PAGES_BULK ? BULK : 1;
}

#ifdef CONFIG_MEM_ALLOC_PROFILING
static struct alloc_tag_counters site_read(enum api api)
{
	struct alloc_tag_counters none = { 0, 0 };

	return site_tag[api] ? alloc_tag_read(site_tag[api]) : none;
}

/*
 * What one allocation at each site is charged, measured on this CPU before
 * any thread runs: allocate once, read the site, free, read again.
 */
static int measure_units(void)
{
	enum api api;

	if (!mem_alloc_profiling_enabled()) {
		pr_info("allocprof_stress: profiling is off at load: no units\n");
		return 0;
	}
	for (api = 0; api < NR_API; api++) {
		struct alloc_tag_counters on, off;
		struct slot s;

		do_alloc(&s, api);
		if (s.n != unit_objects(api)) {
			do_free(&s, api);
			pr_err("allocprof_stress: %s failed while measuring\n",
			       api_name[api]);
			return -ENOMEM;
		}
		on = site_read(api);
		do_free(&s, api);
		off = site_read(api);
		unit_bytes[api] = on.bytes - off.bytes;
		unit_calls[api] = on.calls - off.calls;
		if (off.bytes || off.calls)
			pr_err("allocprof_stress: %s site not back to 0 after free: %llu %llu\n",
			       api_name[api], off.bytes, off.calls);
	}
	return 0;
}
#else
static int measure_units(void)
{
	return 0;
}
#endif

/*
 * Move to the next online CPU.  It may go offline before or after the move:
 * then the move fails, or the scheduler moves the thread on, and the next
 * hop binds it again.
 */
static void hop_cpu(struct worker *w)
{
	unsigned int cpu = cpumask_next(w->cpu, cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	if (cpu < nr_cpu_ids && !set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		w->cpu = cpu;
}

static int stress_thread(void *arg)
{
	struct worker *w = arg;
	unsigned int api, i;

#ifdef CONFIG_FAULT_INJECTION
	if (fail)
		current->make_it_fail = 1;
#endif
	if (hop)
		set_cpus_allowed_ptr(current, cpumask_of(w->cpu));
	while (time_before(jiffies, deadline) && !READ_ONCE(stop)) {
		struct slot *s;

		if (hop && !(++w->rounds % 16))
			hop_cpu(w);

		api = prandom_u32_state(&w->rnd) % NR_API;
		s = &w->ring[api][prandom_u32_state(&w->rnd) % RING];
		do_free(s, api);
		__set_bit(raw_smp_processor_id(), w->ran_on);
		do_alloc(s, api);
		w->attempts[api]++;
		if (s->n < unit_objects(api))
			w->failures[api]++;
		cond_resched();
	}
	/* Keep at most @hold entries of every ring. */
	for (api = 0; api < NR_API; api++)
		for (i = min_t(unsigned int, hold, RING); i < RING; i++)
			do_free(&w->ring[api][i], api);
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = 0;
#endif
	/* Leave without running any more of this module's code. */
	kthread_complete_and_exit(&w->done, 0);
}

static void release_all(void)
{
	unsigned int cpu, api, i;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct worker *w = workers[cpu];

		if (!w)
			continue;
		for (api = 0; api < NR_API; api++)
			for (i = 0; i < RING; i++)
				do_free(&w->ring[api][i], api);
		kfree(w);
		workers[cpu] = NULL;
	}
}

static void report(void)
{
	unsigned int cpu, api, i;

	for (api = 0; api < NR_API; api++) {
		unsigned long objects = 0, attempts = 0, failures = 0;
		u64 calls, bytes;

		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct worker *w = workers[cpu];

			if (!w)
				continue;
			attempts += w->attempts[api];
			failures += w->failures[api];
			for (i = 0; i < RING; i++)
				objects += w->ring[api][i].n;
		}
		/* Units are per full bulk; bulk pages may come back partial. */
		bytes = div_u64(unit_bytes[api] * objects, unit_objects(api));
		calls = div_u64(unit_calls[api] * objects, unit_objects(api));
		pr_info("allocprof_stress: api %s line %u unit %llu %llu held %lu expect %llu %llu attempts %lu failed %lu\n",
			api_name[api], site_line[api], unit_bytes[api],
			unit_calls[api], objects, bytes, calls, attempts,
			failures);
	}
}

/* Set once every thread has finished; "release" waits for it. */
static bool threads_done;

static int release_set(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&release_lock);
	if (!threads_done) {
		mutex_unlock(&release_lock);
		return -EBUSY;
	}
	release_all();
	mutex_unlock(&release_lock);
	pr_info("allocprof_stress: released\n");
	return 0;
}

static const struct kernel_param_ops release_ops = {
	.set = release_set,
};
module_param_cb(release, &release_ops, NULL, 0200);

static int __init allocprof_stress_init(void)
{
	static DECLARE_BITMAP(ran_on, NR_CPUS);
	unsigned int cpu, n = 0, least = NR_CPUS;
	int ret;

	cache = kmem_cache_create("allocprof_stress", 200, 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	ret = measure_units();
	if (ret)
		goto out_cache;

	deadline = jiffies + seconds * HZ;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct worker *w = kzalloc(sizeof(*w), GFP_KERNEL);

		if (!w)
			break;
		init_completion(&w->done);
		prandom_seed_state(&w->rnd, 0x5eed + cpu);
		w->cpu = cpu;
		/* A per-CPU thread cannot leave its CPU when it goes offline. */
		if (hop)
			w->task = kthread_create(stress_thread, w,
						 "allocprof_stress/%u", cpu);
		else
			w->task = kthread_create_on_cpu(stress_thread, w, cpu,
							"allocprof_stress/%u");
		if (IS_ERR(w->task)) {
			kfree(w);
			break;
		}
		workers[cpu] = w;
		wake_up_process(w->task);
		n++;
	}
	cpus_read_unlock();
	pr_info("allocprof_stress: %u threads started\n", n);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (workers[cpu])
			wait_for_completion(&workers[cpu]->done);
	pr_info("allocprof_stress: %u threads ran %u s\n", n, seconds);
	if (READ_ONCE(stop))
		pr_info("allocprof_stress: threads stopped\n");
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if (!workers[cpu])
			continue;
		bitmap_or(ran_on, ran_on, workers[cpu]->ran_on, NR_CPUS);
		least = min(least, bitmap_weight(workers[cpu]->ran_on, NR_CPUS));
	}
	pr_info("allocprof_stress: allocated on %u CPUs, each thread on at least %u\n",
		bitmap_weight(ran_on, NR_CPUS), least);
	report();
	mutex_lock(&release_lock);
	threads_done = true;
	mutex_unlock(&release_lock);
	return 0;

out_cache:
	kmem_cache_destroy(cache);
	return ret;
}

static void __exit allocprof_stress_exit(void)
{
	mutex_lock(&release_lock);
	release_all();
	mutex_unlock(&release_lock);
	kmem_cache_destroy(cache);
}

module_init(allocprof_stress_init);
module_exit(allocprof_stress_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling stress test");
