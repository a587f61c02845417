// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling core: tag counters, page tags, /proc/allocinfo
 * and vm.mem_profiling.  Optional features register with it as consumers.
 */
#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/alloc_tag.h>
#include <linux/capability.h>
#include <linux/init.h>
#include <linux/kmemleak.h>
#include <linux/memblock.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pgalloc_tag.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <asm/tlbflush.h>

DEFINE_STATIC_KEY_FALSE(mem_alloc_profiling_key);
EXPORT_SYMBOL(mem_alloc_profiling_key);
DEFINE_STATIC_KEY_FALSE(mem_alloc_profiling_ever_key);
EXPORT_SYMBOL(mem_alloc_profiling_ever_key);
DEFINE_STATIC_KEY_FALSE(alloc_tag_extras_key);
DEFINE_STATIC_KEY_FALSE(alloc_tag_extras_free_key);

static struct codetag_type *alloc_tag_cttype __ro_after_init;

/* "never": profiling was refused at boot and cannot be switched on. */
static bool mem_profiling_never;
static bool mem_profiling_boot_on __initdata =
	IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT);
/* The boot parameter, which do_sysctl_args() writes again after initcalls. */
static char mem_profiling_arg[32];
static bool mem_profiling_replay;
static DEFINE_MUTEX(mem_profiling_mutex);

static int alloc_tag_first_on(void);

static int mem_profiling_set(bool on)
{
	int err;

	lockdep_assert_held(&mem_profiling_mutex);
	if (!on) {
		static_branch_disable(&mem_alloc_profiling_key);
		return 0;
	}
	err = mem_alloc_profiling_ever_enabled() ? 0 : alloc_tag_first_on();
	if (!err)
		static_branch_enable(&mem_alloc_profiling_key);
	return err;
}

/*
 * do_sysctl_args() applies this only after the initcalls: read it early so
 * that it holds from mm_init() on and "never" allocates nothing.
 */
static int __init mem_profiling_early(char *arg)
{
	size_t len;

	if (!arg) {
		pr_err("sysctl.vm.mem_profiling needs a value (0, 1 or never)\n");
		return 0;
	}
	if (mem_profiling_never) {
		pr_err("sysctl.vm.mem_profiling=%s ignored after 'never'\n", arg);
		return 0;
	}
	strscpy(mem_profiling_arg, arg, sizeof(mem_profiling_arg));
	mem_profiling_replay = true;
	len = strcspn(arg, ",");
	if (len == 5 && !strncmp(arg, "never", len))
		mem_profiling_never = true;
	else if (len == 1 && (arg[0] == '0' || arg[0] == '1'))
		mem_profiling_boot_on = arg[0] == '1';
	else
		pr_err("sysctl.vm.mem_profiling=%s is not 0, 1 or never; keeping the default (%d)\n",
		       arg, mem_profiling_boot_on);
	return 0;
}
early_param("sysctl.vm.mem_profiling", mem_profiling_early);

/**
 * alloc_tag_boot_option() - was ",@word" given to sysctl.vm.mem_profiling?
 * @word: an option word
 */
bool alloc_tag_boot_option(const char *word)
{
	const char *p = strchr(mem_profiling_arg, ',');
	size_t len = strlen(word);

	for (; p; p = strchr(p + 1, ','))
		if (!strncmp(p + 1, word, len) && (!p[len + 1] || p[len + 1] == ','))
			return true;
	return false;
}

/*
 * Switch profiling on or off (sysctl, KUnit); process context.  Returns 0,
 * -EPERM after "never", or -ENOMEM if the first switch-on failed.
 */
int mem_alloc_profiling_switch(bool on)
{
	int ret = 0;

	mutex_lock(&mem_profiling_mutex);
	if (mem_profiling_never)
		ret = -EPERM;
	else if (on != mem_alloc_profiling_enabled())
		ret = mem_profiling_set(on);
	mutex_unlock(&mem_profiling_mutex);
	return ret;
}

#ifdef CONFIG_SYSCTL
static bool mem_profiling_is_replay(const char *buf, size_t len)
{
	if (!mem_profiling_replay)
		return false;
	mem_profiling_replay = false;
	if (len && buf[len - 1] == '\n')
		len--;
	return len == strlen(mem_profiling_arg) &&
	       !strncmp(buf, mem_profiling_arg, len);
}

/* 0 or 1; -EPERM after "never", as the file is in mainline (0444). */
static int mem_profiling_handler(struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	int val = mem_alloc_profiling_enabled();
	struct ctl_table tmp = {
		.data		= &val,
		.maxlen		= sizeof(val),
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	};
	int ret;

	if (!write)
		return proc_dointvec_minmax(&tmp, 0, buffer, lenp, ppos);
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* The boot parameter was applied, or refused, by mem_profiling_early(). */
	if (mem_profiling_is_replay(buffer, *lenp))
		return 0;
	if (mem_profiling_never)
		return -EPERM;
	ret = proc_dointvec_minmax(&tmp, 1, buffer, lenp, ppos);
	if (ret)
		return ret;
	return mem_alloc_profiling_switch(val);
}

static struct ctl_table mem_profiling_table[] = {
	{
		.procname	= "mem_profiling",
		.mode		= 0644,
		.proc_handler	= mem_profiling_handler,
	},
	{ }
};
#endif /* CONFIG_SYSCTL */

#define ALLOC_TAG_MAX_CONSUMERS	4

static struct alloc_tag_consumer *consumers[ALLOC_TAG_MAX_CONSUMERS];
static unsigned int nr_consumers;
static u32 consumer_flags_free = ALLOC_TAG_CONSUMER_FLAGS;

/*
 * The charge and uncharge callbacks of the active consumers: a list for
 * each set of them, filled before it is first published and never changed
 * after.  A hook reads the current list once, so it calls every consumer
 * active for all of its run, as c->active did consumer by consumer.
 */
struct consumer_list {
	void (*charge[ALLOC_TAG_MAX_CONSUMERS])(struct alloc_tag *tag,
						unsigned long key, int nid,
						long bytes,
						unsigned long caller);
	void (*uncharge[ALLOC_TAG_MAX_CONSUMERS])(struct alloc_tag *tag,
						  unsigned long key, int nid,
						  long bytes, int calls);
	unsigned int nr_charge, nr_uncharge;
	bool filled;
};

static struct consumer_list consumer_lists[BIT(ALLOC_TAG_MAX_CONSUMERS)];
static struct consumer_list *active_list = consumer_lists;
static unsigned int active_mask;
/* Serialises starts and stops, and so the keys' counts. */
static DEFINE_MUTEX(consumer_lock);

/* The hooks read the array unlocked: see alloc_tag_consumer_register(). */
static bool consumer_active(struct alloc_tag_consumer *c)
{
	return c && READ_ONCE(c->active);
}

static bool consumer_wants_frees(struct alloc_tag_consumer *c)
{
	return c->uncharge || c->page_split || c->page_swap;
}

static int consumer_index(struct alloc_tag_consumer *c)
{
	unsigned int i;

	for (i = 0; i < nr_consumers; i++)
		if (consumers[i] == c)
			return i;
	WARN_ON_ONCE(1);
	return -1;
}

/*
 * Mark consumer @idx active or not and publish the list of the active
 * ones: its other callbacks, which test c->active, start before its charge
 * and stop after it.
 */
static void consumer_set_active(int idx, bool active)
{
	struct consumer_list *f;
	unsigned int i;

	lockdep_assert_held(&consumer_lock);
	active_mask = active ? active_mask | BIT(idx) : active_mask & ~BIT(idx);
	f = &consumer_lists[active_mask];
	for (i = 0; !f->filled && i < nr_consumers; i++) {
		if (!(active_mask & BIT(i)))
			continue;
		if (consumers[i]->charge)
			f->charge[f->nr_charge++] = consumers[i]->charge;
		if (consumers[i]->uncharge)
			f->uncharge[f->nr_uncharge++] = consumers[i]->uncharge;
	}
	f->filled = true;
	if (active)
		WRITE_ONCE(consumers[idx]->active, true);
	/* Filled before it is seen: pairs with READ_ONCE() in the hooks. */
	smp_store_release(&active_list, f);
	WRITE_ONCE(consumers[idx]->active, active);
}

/* Start @c if its option was given; under the module list lock (write). */
static void consumer_start_chosen(struct alloc_tag_consumer *c)
{
	if (c->option && alloc_tag_boot_option(c->option) && !c->start())
		alloc_tag_consumer_start(c);
}

/**
 * alloc_tag_consumer_register() - make an optional consumer known
 * @c: the consumer; its @start is called at the first switch-on if its
 *	option was given, at once if that was earlier
 *
 * Context: boot (early parameters, initcalls); consumers never go away.
 */
void __init alloc_tag_consumer_register(struct alloc_tag_consumer *c)
{
	if (WARN_ON_ONCE(nr_consumers == ALLOC_TAG_MAX_CONSUMERS))
		return;
	consumers[nr_consumers] = c;
	/* Filled before it is counted: the hooks read the array unlocked. */
	smp_store_release(&nr_consumers, nr_consumers + 1);
	/* Never so from an early parameter, where no lock may be taken. */
	if (!mem_alloc_profiling_ever_enabled())
		return;
	mutex_lock(&mem_profiling_mutex);
	codetag_lock_module_list_write(alloc_tag_cttype);
	consumer_start_chosen(c);
	codetag_unlock_module_list_write(alloc_tag_cttype);
	mutex_unlock(&mem_profiling_mutex);
}

/**
 * alloc_tag_consumer_start() - have the hooks call a consumer
 * @c: a registered consumer
 *
 * Context: process context, may sleep.
 */
void alloc_tag_consumer_start(struct alloc_tag_consumer *c)
{
	int idx = consumer_index(c);

	if (idx < 0)
		return;
	mutex_lock(&consumer_lock);
	if (!c->active) {
		/* Frees first: a consumer told of a charge must hear of its free. */
		if (consumer_wants_frees(c))
			static_branch_inc(&alloc_tag_extras_free_key);
		static_branch_inc(&alloc_tag_extras_key);
		consumer_set_active(idx, true);
	}
	mutex_unlock(&consumer_lock);
}
EXPORT_SYMBOL_GPL(alloc_tag_consumer_start);

/**
 * alloc_tag_consumer_stop() - undo alloc_tag_consumer_start()
 * @c: the consumer; a hook may still be in one of its callbacks on return
 *
 * Context: process context, may sleep.
 */
void alloc_tag_consumer_stop(struct alloc_tag_consumer *c)
{
	int idx = consumer_index(c);

	if (idx < 0)
		return;
	mutex_lock(&consumer_lock);
	if (c->active) {
		consumer_set_active(idx, false);
		static_branch_dec(&alloc_tag_extras_key);
		if (consumer_wants_frees(c))
			static_branch_dec(&alloc_tag_extras_free_key);
	}
	mutex_unlock(&consumer_lock);
}
EXPORT_SYMBOL_GPL(alloc_tag_consumer_stop);

static void __init alloc_tag_check_options(void)
{
	const char *p = strchr(mem_profiling_arg, ',');
	unsigned int i;

	for (; p; p = strchr(p + 1, ',')) {
		size_t len = strcspn(p + 1, ",");

		for (i = 0; i < nr_consumers; i++)
			if (consumers[i]->option &&
			    strlen(consumers[i]->option) == len &&
			    !strncmp(consumers[i]->option, p + 1, len))
				break;
		if (i == nr_consumers)
			pr_err("sysctl.vm.mem_profiling: unknown option '%.*s' ignored\n",
			       (int)len, p + 1);
	}
}

/**
 * alloc_tag_flags_reserve() - reserve bits of codetag.flags for a consumer
 * @nr: how many, contiguous
 *
 * Context: boot.
 * Return: their mask, or 0 if there is no room.
 */
u32 __init alloc_tag_flags_reserve(unsigned int nr)
{
	unsigned int lo;

	for (lo = __ffs(ALLOC_TAG_CONSUMER_FLAGS); lo + nr <= 31; lo++) {
		u32 mask = GENMASK(lo + nr - 1, lo);

		if ((consumer_flags_free & mask) == mask) {
			consumer_flags_free &= ~mask;
			return mask;
		}
	}
	return 0;
}

/**
 * alloc_tag_extras_charge() - tell active consumers of a charge
 * @tag: a real tag, just charged
 * @key: see struct alloc_tag_consumer
 * @nid: see struct alloc_tag_consumer
 * @bytes: as charged
 * @caller: see struct alloc_tag_consumer
 */
void alloc_tag_extras_charge(struct alloc_tag *tag, unsigned long key,
			     int nid, long bytes, unsigned long caller)
{
	/* Pairs with smp_store_release() in consumer_set_active(). */
	const struct consumer_list *f = READ_ONCE(active_list);
	unsigned int i;

	for (i = 0; i < f->nr_charge; i++)
		f->charge[i](tag, key, nid, bytes, caller);
}

/**
 * alloc_tag_extras_uncharge() - tell active consumers of an uncharge
 * @tag: the stored tag, which may be NULL or ALLOC_TAG_NONE (then nothing)
 * @key: as charged
 * @nid: as charged
 * @bytes: as charged
 * @calls: 1, or 0 (see struct alloc_tag_consumer)
 *
 * Before the counters: once its sum is zero, an unloaded module's tag may
 * be released, and a consumer would then read freed memory.
 */
void alloc_tag_extras_uncharge(struct alloc_tag *tag, unsigned long key,
			       int nid, long bytes, int calls)
{
	const struct consumer_list *f = READ_ONCE(active_list);
	unsigned int i;

	if (!alloc_tag_is_real(tag))
		return;
	for (i = 0; i < f->nr_uncharge; i++)
		f->uncharge[i](tag, key, nid, bytes, calls);
}

/* Tell active consumers of a module's tags; module list lock (write). */
static void consumers_tags(struct alloc_tag *tags, size_t n, bool load)
{
	struct alloc_tag_consumer *c;
	unsigned int i;

	for (i = 0; i < nr_consumers; i++) {
		c = consumers[i];
		if (!consumer_active(c))
			continue;
		if (load && c->load)
			c->load(tags, n);
		else if (!load && c->release)
			c->release(tags, n);
	}
}

/*
 * Signed sum, taken while others charge: an object allocated on a CPU
 * already summed and freed on one not yet summed counts as freed only, so
 * a sum can briefly read low, even below zero.  An idle tag sums exactly.
 */
static void alloc_tag_sum(struct alloc_tag *tag, s64 *bytes, s64 *calls)
{
	struct alloc_tag_counters __percpu *counters = READ_ONCE(tag->counters);
	int cpu;

	*bytes = 0;
	*calls = 0;
	if (!counters)
		return;
	for_each_possible_cpu(cpu) {
		struct alloc_tag_counters *c = per_cpu_ptr(counters, cpu);

		*bytes += (s64)READ_ONCE(c->bytes);
		*calls += (s64)READ_ONCE(c->calls);
	}
}

/*
 * Counters of all released module tags: a stale tag pointer charges this,
 * not per-CPU offset 0, and alloc_tag_released_check() warns once.
 */
static DEFINE_PER_CPU(struct alloc_tag_counters, alloc_tag_released);

static void alloc_tag_released_check(void)
{
	s64 bytes = 0, calls = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		bytes |= READ_ONCE(per_cpu(alloc_tag_released.bytes, cpu));
		calls |= READ_ONCE(per_cpu(alloc_tag_released.calls, cpu));
	}
	if (bytes || calls)
		pr_warn_once("allocations charged to module tags after their release: a stale tag reference\n");
}

/**
 * alloc_tag_read() - what a call site holds now
 * @tag: the tag
 *
 * Return: bytes and calls held by @tag's allocations; a sum that briefly
 * reads below zero (see alloc_tag_sum()) returns 0.
 */
struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag)
{
	s64 bytes, calls;

	alloc_tag_sum(tag, &bytes, &calls);
	return (struct alloc_tag_counters){ .bytes = max_t(s64, bytes, 0),
					    .calls = max_t(s64, calls, 0) };
}
EXPORT_SYMBOL_GPL(alloc_tag_read);

/**
 * alloc_tag_lock_sites() - block module loads and unloads
 *
 * Tags found by alloc_tag_for_each() stay valid until alloc_tag_unlock_sites().
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENODEV (nothing to unlock) if the tag type is unregistered.
 */
int alloc_tag_lock_sites(void)
{
	if (!alloc_tag_cttype)
		return -ENODEV;
	codetag_lock_module_list(alloc_tag_cttype);
	return 0;
}

/**
 * alloc_tag_unlock_sites() - undo a successful alloc_tag_lock_sites()
 */
void alloc_tag_unlock_sites(void)
{
	codetag_unlock_module_list(alloc_tag_cttype);
}

/**
 * alloc_tag_for_each() - call a function for every tag in use
 * @fn: called with each tag of vmlinux and loaded modules, in allocinfo
 *	order, with its module's name ("" for vmlinux) and @arg
 * @arg: passed to @fn
 *
 * Skips tags kept after their module's unload: nothing new charges them.
 *
 * Context: under alloc_tag_lock_sites().
 * Return: the first nonzero return of @fn, which ends the walk, or 0.
 */
int alloc_tag_for_each(int (*fn)(struct alloc_tag *tag, const char *modname,
				 void *arg), void *arg)
{
	struct codetag_iterator iter = codetag_get_ct_iter(alloc_tag_cttype);
	struct codetag *ct;
	int ret;

	while ((ct = codetag_next_ct(&iter))) {
		if (codetag_range_unloaded(iter.range))
			continue;
		ret = fn(container_of(ct, struct alloc_tag, ct),
			 iter.range->modname, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * alloc_tag_content_id() - a value that changes with the list of tags
 */
u64 alloc_tag_content_id(void)
{
	return codetag_type_generation(alloc_tag_cttype);
}

static atomic_long_t alloc_tag_metadata_failures;

/**
 * alloc_tag_metadata_failed() - no memory to record an object's tag
 * @tag: the tag the object should have been charged to
 *
 * The object goes uncharged: @tag is marked "accurate:no" in /proc/allocinfo.
 *
 * Context: any context.
 */
void alloc_tag_metadata_failed(struct alloc_tag *tag)
{
	if (alloc_tag_is_real(tag) &&
	    !(READ_ONCE(tag->ct.flags) & ALLOC_TAG_INACCURATE))
		alloc_tag_flags_replace(tag, ALLOC_TAG_INACCURATE,
					ALLOC_TAG_INACCURATE);
	if (atomic_long_inc_return(&alloc_tag_metadata_failures) == 1)
		pr_warn("no memory for tag metadata: allocations at %s:%u and any site marked accurate:no are undercounted\n",
			alloc_tag_is_real(tag) ? tag->ct.filename : "?",
			alloc_tag_is_real(tag) ? tag->ct.lineno : 0);
}

/* Per CPU: slab vectors come and go with slabs, on every CPU. */
static DEFINE_PER_CPU(long, alloc_tag_meta[ALLOC_TAG_META_NR]);

/**
 * alloc_tag_meta_add() - account memory that profiling uses for itself
 * @kind: what the memory is for
 * @bytes: bytes allocated (positive) or freed (negative)
 *
 * Context: any context.
 */
void alloc_tag_meta_add(enum alloc_tag_meta kind, long bytes)
{
	this_cpu_add(alloc_tag_meta[kind], bytes);
}

/*
 * vmlinux's tags are 1..pgtag_nr_vmlinux, modules' follow.  The module table
 * only grows and a replaced one is kept, so that a page's free looks its tag
 * up without RCU, whose read side is a call on preemptible kernels.
 */
static struct pgtag_mod_table pgtag_mod_none;
struct pgtag_mod_table *pgtag_mod_table = &pgtag_mod_none;
static u32 pgtag_mod_limit;		/* how many numbers pages can hold */
static u32 pgtag_mod_hint;		/* no free slot below it */
static DEFINE_MUTEX(pgtag_mod_lock);
u32 pgtag_nr_vmlinux __ro_after_init;

static inline u32 nr_vmlinux_tags(void)
{
	return __stop_alloc_tags - __start_alloc_tags;
}

/**
 * alloc_tag_nr_indexes() - every tag's number is below this
 *
 * Return: that bound, or 0 if tags have no numbers (profiling refused with
 * "never").
 */
u32 alloc_tag_nr_indexes(void)
{
	if (!pgtag_nr_vmlinux)
		return 0;
	return pgtag_nr_vmlinux + 1 + READ_ONCE(pgtag_mod_table)->size;
}

/* A free slot of the table, grown if need be; -1 if none is left. */
static long pgtag_mod_slot(void)
{
	struct pgtag_mod_table *table, *old = pgtag_mod_table;
	u32 size;

	lockdep_assert_held(&pgtag_mod_lock);
	for (; pgtag_mod_hint < old->size; pgtag_mod_hint++)
		if (!old->tags[pgtag_mod_hint])
			return pgtag_mod_hint;
	if (old->size >= pgtag_mod_limit)
		return -1;
	size = min(max(2 * old->size, 256U), pgtag_mod_limit);
	table = kvzalloc(struct_size(table, tags, size), GFP_KERNEL);
	if (!table)
		return -1;
	table->size = size;
	memcpy(table->tags, old->tags, old->size * sizeof(old->tags[0]));
	/* Filled before it is seen; lookups may still read the old one. */
	smp_store_release(&pgtag_mod_table, table);
	if (old != &pgtag_mod_none)
		kmemleak_not_leak(old);
	return pgtag_mod_hint;
}

/*
 * Number a module's tags.  A tag left without a number charges no pages:
 * it is marked accurate:no once, here, not at each of its allocations.
 */
static void pgtag_register_module(struct alloc_tag *tags, size_t n,
				  const char *modname)
{
	size_t i, left = 0;
	long slot;

	mutex_lock(&pgtag_mod_lock);
	for (i = 0; i < n; i++) {
		slot = pgtag_mod_slot();
		if (slot < 0) {
			alloc_tag_flags_replace(&tags[i], ALLOC_TAG_INACCURATE,
						ALLOC_TAG_INACCURATE);
			left++;
			continue;
		}
		alloc_tag_flags_replace(&tags[i], ALLOC_TAG_INDEX_MASK,
					pgtag_nr_vmlinux + 1 + slot);
		WRITE_ONCE(pgtag_mod_table->tags[slot], &tags[i]);
	}
	mutex_unlock(&pgtag_mod_lock);
	if (left)
		pr_warn_ratelimited("%s: no page tag numbers left for %zu of its %zu tags: their pages are not charged (accurate:no)\n",
				    modname, left, n);
}

/* Give back the numbers of a module's tags; no page refers to them. */
static void pgtag_unregister_module(struct alloc_tag *tags, size_t n)
{
	size_t i;

	mutex_lock(&pgtag_mod_lock);
	for (i = 0; i < n; i++) {
		u32 idx = alloc_tag_to_index(&tags[i]);

		if (!idx)
			continue;
		idx -= pgtag_nr_vmlinux + 1;
		WRITE_ONCE(pgtag_mod_table->tags[idx], NULL);
		pgtag_mod_hint = min(pgtag_mod_hint, idx);
		alloc_tag_flags_replace(&tags[i], ALLOC_TAG_INDEX_MASK, 0);
	}
	mutex_unlock(&pgtag_mod_lock);
}

/*
 * Page tags live in page->flags if its field numbers every vmlinux tag and
 * PGTAG_MOD_RESERVE module tags, else in pgtag_slots[pfn]: vmalloc space
 * reserved at the first switch-on for every frame memory may have, backed
 * a chunk (of whole sections) at a time, while memory in it is online.  The
 * hooks index it with no test: the first switch-on backs every online
 * chunk or fails, onlining backs its chunks or fails, and offlining frees
 * a chunk only when none of its pages is online or poisoned.
 */
#define PGTAG_MOD_RESERVE	4096
#ifdef CONFIG_SPARSEMEM
#define PGTAG_CHUNK_MIN_SHIFT	PFN_SECTION_SHIFT
#else
#define PGTAG_CHUNK_MIN_SHIFT	15
#endif
#define PGTAG_CHUNK_SHIFT	max_t(int, PGTAG_CHUNK_MIN_SHIFT, PAGE_SHIFT - 2)
#define PGTAG_CHUNK_PAGES	BIT(PGTAG_CHUNK_SHIFT)
#define PGTAG_CHUNK_BYTES	(PGTAG_CHUNK_PAGES * sizeof(u32))

DEFINE_STATIC_KEY_FALSE(pgtag_array_key);
u32 *pgtag_slots __read_mostly;
static struct vm_struct *pgtag_area;
static unsigned long pgtag_area_chunks, pgtag_chunks_end;
static atomic_long_t pgtag_chunks;	/* backed */
static DEFINE_MUTEX(pgtag_area_lock);	/* backs and frees chunks */

static size_t pgtag_array_bytes(void)
{
	return atomic_long_read(&pgtag_chunks) * PGTAG_CHUNK_BYTES;
}

/* Out-of-line parts of the hooks in include/linux/pgalloc_tag.h. */

/**
 * __pgalloc_tag_unknown() - a page's number names no tag: warn, once
 * @idx: the number
 */
void __pgalloc_tag_unknown(u32 idx)
{
	WARN_ONCE(1, "alloc_tag: page names unknown tag %u\n", idx);
}

/**
 * __pgalloc_tag_sub_extras() - uncharge pages, told to the consumers
 * @tag: their tag
 * @page: the block's first page
 * @nr: how many pages
 * @calls: 1, or 0 for a block's later pages (see struct alloc_tag_consumer)
 */
void __pgalloc_tag_sub_extras(struct alloc_tag *tag, struct page *page,
			      unsigned int nr, int calls)
{
	alloc_tag_extras_uncharge(tag, (unsigned long)page, page_to_nid(page),
				  (long)nr << PAGE_SHIFT, calls);
	alloc_tag_counters_add(tag, -((s64)nr << PAGE_SHIFT), -calls);
}

static void pgtag_split_extras(struct alloc_tag *tag, struct page *page,
			       unsigned int nr)
{
	struct alloc_tag_consumer *c;
	unsigned int i;

	for (i = 0; i < READ_ONCE(nr_consumers); i++) {
		c = consumers[i];
		if (consumer_active(c) && c->page_split)
			c->page_split(tag, page, nr);
	}
}

unsigned int __pgalloc_tag_peek(struct page *page)
{
	u32 idx = pgtag_get(page);
	struct alloc_tag *tag;

	/* The block keeps its first page's share: a split into one. */
	if (alloc_tag_extras_free_enabled() && idx) {
		tag = alloc_tag_from_index(idx);
		if (tag)
			pgtag_split_extras(tag, page, 1);
	}
	return idx;
}

void __pgalloc_tag_sub_tail(struct page *page, unsigned int idx,
			    unsigned int nr)
{
	struct alloc_tag *tag = alloc_tag_from_index(idx);

	if (unlikely(!tag))
		__pgalloc_tag_unknown(idx);
	else if (alloc_tag_extras_free_enabled())
		__pgalloc_tag_sub_extras(tag, page, nr, 0);
	else
		alloc_tag_counters_add(tag, -((s64)nr << PAGE_SHIFT), 0);
}

void __pgalloc_tag_split(struct page *page, unsigned int nr)
{
	u32 idx = pgtag_get(page);
	struct alloc_tag *tag;
	unsigned int i;

	if (!idx)
		return;
	tag = alloc_tag_from_index(idx);
	if (unlikely(!tag)) {
		__pgalloc_tag_unknown(idx);
		return;
	}
	for (i = 1; i < nr; i++)
		pgtag_store(nth_page(page, i), idx, true);
	alloc_tag_counters_add(tag, 0, nr - 1);
	if (alloc_tag_extras_free_enabled())
		pgtag_split_extras(tag, page, nr);
}

void __pgalloc_tag_swap(struct page *dst, struct page *src, unsigned int nr)
{
	struct alloc_tag_consumer *c;
	u32 didx, sidx;
	unsigned int i;

	if (is_zone_device_page(dst) || is_zone_device_page(src))
		return;
	didx = pgtag_get(dst);
	sidx = pgtag_get(src);
	/* Both pages are in use: other flags may change meanwhile. */
	pgtag_store(dst, sidx, true);
	pgtag_store(src, didx, true);
	if (!alloc_tag_extras_free_enabled() || (!didx && !sidx))
		return;
	for (i = 0; i < READ_ONCE(nr_consumers); i++) {
		c = consumers[i];
		if (consumer_active(c) && c->page_swap)
			c->page_swap(dst, didx ? alloc_tag_from_index(didx) : NULL,
				     src, sidx ? alloc_tag_from_index(sidx) : NULL,
				     nr);
	}
}

/* Number the vmlinux tags, choose page-tag storage.  Allocates nothing. */
static void __init pgtag_setup(void)
{
	u64 numbers = min(BIT_ULL(ALLOC_TAG_WIDTH), ALLOC_TAG_INDEX_MASK + 1ULL);
	u32 t, ntags = nr_vmlinux_tags();

	/* The field is below all the others and above the flags proper. */
	BUILD_BUG_ON(ALLOC_TAG_WIDTH && (NR_PAGEFLAGS > ALLOC_TAG_PGOFF ||
					 LRU_REFS_PGOFF !=
					 ALLOC_TAG_PGOFF + ALLOC_TAG_WIDTH));
	pgtag_nr_vmlinux = ntags;
	for (t = 0; t < ntags; t++)
		__start_alloc_tags[t].ct.flags |= t + 1;
	if (ALLOC_TAG_WIDTH && ntags + 1 + PGTAG_MOD_RESERVE > numbers)
		static_branch_enable(&pgtag_array_key);
	if (pgtag_in_array())
		numbers = ALLOC_TAG_INDEX_MASK + 1ULL;
	pgtag_mod_limit = numbers - ntags - 1;
}

/**
 * alloc_tag_mm_init() - choose page-tag storage; switch profiling on if asked
 *
 * Allocations made before this are not charged.
 *
 * Context: end of mm_init(), once vmalloc() works; one CPU.
 */
void __init alloc_tag_mm_init(void)
{
	if (mem_profiling_never)
		return;
	alloc_tag_check_options();
	pgtag_setup();
	if (!mem_profiling_boot_on)
		return;
	mutex_lock(&mem_profiling_mutex);
	if (mem_profiling_set(true))
		pr_err("cannot switch profiling on at boot: it stays off\n");
	mutex_unlock(&mem_profiling_mutex);
}

/* Is a page of chunk @c online?  Asked of sections, not struct pages. */
static bool pgtag_chunk_online(unsigned long c)
{
	unsigned long pfn = c << PGTAG_CHUNK_SHIFT;
#ifdef CONFIG_SPARSEMEM
	unsigned long nr;

	for (nr = pfn_to_section_nr(pfn); nr < NR_MEM_SECTIONS &&
	     nr < pfn_to_section_nr(pfn + PGTAG_CHUNK_PAGES); nr++)
		if (online_section_nr(nr))
			return true;
	return false;
#else
	/* No hotplug: every chunk that the memmap reaches, holes or not. */
	return pfn + PGTAG_CHUNK_PAGES > ARCH_PFN_OFFSET &&
	       pfn < ARCH_PFN_OFFSET + max_mapnr;
#endif
}

/* The node whose span holds chunk @c's first page, from no struct page. */
static int pgtag_chunk_nid(unsigned long c)
{
	unsigned long pfn = c << PGTAG_CHUNK_SHIFT;
	int nid;

	for_each_online_node(nid)
		if (pfn >= node_start_pfn(nid) && pfn < node_end_pfn(nid))
			return nid;
	return NUMA_NO_NODE;
}

static unsigned long pgtag_chunk_addr(unsigned long c)
{
	return (unsigned long)pgtag_area->addr + c * PGTAG_CHUNK_BYTES;
}

static bool pgtag_backed(unsigned long c)
{
	return vmalloc_to_page((void *)pgtag_chunk_addr(c));
}

static int pgtag_set_pte(pte_t *pte, unsigned long addr, void *page)
{
	set_pte_at(&init_mm, addr, pte,
		   mk_pte((struct page *)page, PAGE_KERNEL));
	return 0;
}

static int pgtag_clear_pte(pte_t *pte, unsigned long addr, void *pages)
{
	pte_t old = ptep_get_and_clear(&init_mm, addr, pte);

	if (pte_present(old))
		list_add(&pte_page(old)->lru, pages);
	return 0;
}

/* Free chunk @c's pages: all of it if @backed, else what pgtag_back() left. */
static void pgtag_unback(unsigned long c, bool backed)
{
	unsigned long addr = pgtag_chunk_addr(c);
	struct page *page, *next;
	LIST_HEAD(pages);

	if (backed)
		atomic_long_dec(&pgtag_chunks);
	apply_to_existing_page_range(&init_mm, addr, PGTAG_CHUNK_BYTES,
				     pgtag_clear_pte, &pages);
	flush_tlb_kernel_range(addr, addr + PGTAG_CHUNK_BYTES);
	list_for_each_entry_safe(page, next, &pages, lru)
		__free_page(page);
}

/*
 * Back chunk @c with zeroed pages of its node, charged to no tag; a page
 * at a time, as the page table callback may run with preemption off.
 */
static int pgtag_back(unsigned long c)
{
	unsigned long off, addr = pgtag_chunk_addr(c);
	gfp_t gfp = GFP_KERNEL | __GFP_HIGHMEM | __GFP_ZERO;
	int nid = pgtag_chunk_nid(c), err = 0;
	struct page *page;

	lockdep_assert_held(&pgtag_area_lock);
	if (c >= pgtag_area_chunks)
		return -ENOSPC;
	if (pgtag_backed(c))
		return 0;
	for (off = 0; !err && off < PGTAG_CHUNK_BYTES; off += PAGE_SIZE) {
		page = alloc_hooks_tag(ALLOC_TAG_NONE,
				       alloc_pages_node_noprof(nid, gfp, 0));
		err = page ? apply_to_page_range(&init_mm, addr + off,
						 PAGE_SIZE, pgtag_set_pte,
						 page) : -ENOMEM;
		if (err && page)
			__free_page(page);
	}
	if (err) {
		pgtag_unback(c, false);
		return err;
	}
	atomic_long_inc(&pgtag_chunks);
	pgtag_chunks_end = max(pgtag_chunks_end, c + 1);
	return 0;
}

/* Undo pgtag_first_on(): nothing was charged in the array, no hook reads it. */
static void pgtag_first_off(void)
{
	unsigned long c;

	if (!pgtag_in_array())
		return;
	mutex_lock(&pgtag_area_lock);
	WRITE_ONCE(pgtag_slots, NULL);
	for (c = 0; c < pgtag_chunks_end; c++)
		if (pgtag_backed(c))
			pgtag_unback(c, true);
	pgtag_chunks_end = 0;
	pgtag_area_chunks = 0;
	if (pgtag_area)
		free_vm_area(pgtag_area);
	pgtag_area = NULL;
	mutex_unlock(&pgtag_area_lock);
}

/*
 * Room for @nr chunks and for every frame memory hotplug may add, if
 * vmalloc space allows (hot-added memory beyond the room cannot go online);
 * at most four times @nr with KASAN, which allocates the shadow of the
 * whole area here, accessible from then on.  Failing the first, the
 * vmalloc allocator logs it.
 */
static int pgtag_reserve(unsigned long nr)
{
#ifdef CONFIG_MEMORY_HOTPLUG
	unsigned long all = PHYS_PFN(mhp_get_pluggable_range(true).end) + 1;

	all = DIV_ROUND_UP(all, PGTAG_CHUNK_PAGES);
	if (IS_ENABLED(CONFIG_KASAN_VMALLOC))
		all = min(all, 4 * nr);
	if (all > nr)
		pgtag_area = get_vm_area(all * PGTAG_CHUNK_BYTES, 0);
	if (pgtag_area)
		nr = all;
#endif
	if (!pgtag_area)
		pgtag_area = get_vm_area(nr * PGTAG_CHUNK_BYTES, 0);
	pgtag_area_chunks = pgtag_area ? nr : 0;
	return pgtag_area ? 0 : -ENOMEM;
}

/* Array mode: back the memory online now before any page is charged. */
static int pgtag_first_on(void)
{
	unsigned long c, nr = max_t(unsigned long, max_pfn, max_possible_pfn);
	struct zone *zone;
	int err;

	if (!pgtag_in_array())
		return 0;
	get_online_mems();
	/* Memory hot-added since boot is in its zone (ZONE_DEVICE is not). */
	for_each_populated_zone(zone)
		nr = max(nr, zone_end_pfn(zone));
	nr = DIV_ROUND_UP(nr, PGTAG_CHUNK_PAGES);
	mutex_lock(&pgtag_area_lock);
	err = pgtag_reserve(nr);
	for (c = 0; !err && c < nr; c++) {
		if (pgtag_chunk_online(c))
			err = pgtag_back(c);
		cond_resched();
	}
	if (!err)
		WRITE_ONCE(pgtag_slots, pgtag_area->addr);
	mutex_unlock(&pgtag_area_lock);
	/* Hotplug stays out (get_online_mems()) until the array is freed. */
	if (err)
		pgtag_first_off();
	put_online_mems();
	if (err) {
		pr_err("page tags: no memory for the array: profiling stays off\n");
		return err;
	}
	pr_info("page tags: %zu bytes, 4 per page frame of memory online (page->flags has no room)\n",
		pgtag_array_bytes());
	return 0;
}

#ifdef CONFIG_MEMORY_HOTPLUG
/* Does chunk @c cover a hardware-poisoned page, which may yet be freed? */
static bool pgtag_chunk_poisoned(unsigned long c)
{
	unsigned long pfn = c << PGTAG_CHUNK_SHIFT;
	struct page *page;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		return false;
	for (; pfn < (c + 1) << PGTAG_CHUNK_SHIFT; pfn++) {
		if (!pfn_valid(pfn))
			continue;
		/* Offlined memory has its memmap poisoned (DEBUG_VM). */
		page = pfn_to_page(pfn);
		if (!PagePoisoned(page) && PageHWPoison(page))
			return true;
	}
	return false;
}

/*
 * Memory went offline or failed to: clear its pages' numbers, so that
 * stale ones do not come back with it (in-use hardware-poisoned pages keep
 * their charge, logged), and free its chunks unless they cover such a page.
 */
static void pgtag_uncover(unsigned long start, unsigned long nr_pages)
{
	unsigned long pfn, c, end = start + nr_pages, charged = 0, freed = 0;
	bool array = pgtag_in_array();

	mutex_lock(&pgtag_area_lock);
	/* The array is backed before the hooks start; flags wait for them. */
	if (array ? !pgtag_slots : !mem_alloc_profiling_ever_enabled()) {
		mutex_unlock(&pgtag_area_lock);
		return;
	}
	for (c = start >> PGTAG_CHUNK_SHIFT;
	     c < DIV_ROUND_UP(end, PGTAG_CHUNK_PAGES); c++) {
		/* After a failed onlining, a chunk may not be backed. */
		if (array && (c >= pgtag_area_chunks || !pgtag_backed(c)))
			continue;
		for (pfn = max(start, c << PGTAG_CHUNK_SHIFT);
		     pfn < min(end, (c + 1) << PGTAG_CHUNK_SHIFT); pfn++) {
			if (!pgtag_get(pfn_to_page(pfn)))
				continue;
			pgtag_store(pfn_to_page(pfn), 0, true);
			charged++;
		}
		if (!array || pgtag_chunk_online(c) || pgtag_chunk_poisoned(c))
			continue;
		pgtag_unback(c, true);
		freed += PGTAG_CHUNK_BYTES;
	}
	mutex_unlock(&pgtag_area_lock);
	if (charged)
		pr_warn("page tags: %lu charged pages in pfns %#lx-%#lx went offline; their charges stay\n",
			charged, start, end - 1);
	if (freed)
		pr_info("page tags: %lu bytes of slots for pfns %#lx-%#lx freed, %zu in use\n",
			freed, start, end - 1, pgtag_array_bytes());
}

static int pgtag_memory_callback(struct notifier_block *nb,
				 unsigned long action, void *arg)
{
	struct memory_notify *mn = arg;
	unsigned long c, end = mn->start_pfn + mn->nr_pages;
	int err = 0;

	if (action == MEM_OFFLINE || action == MEM_CANCEL_ONLINE)
		pgtag_uncover(mn->start_pfn, mn->nr_pages);
	if (action != MEM_GOING_ONLINE || !pgtag_in_array())
		return NOTIFY_OK;
	mutex_lock(&pgtag_area_lock);
	/* Until the first switch-on, pgtag_first_on() will back it. */
	for (c = mn->start_pfn >> PGTAG_CHUNK_SHIFT; pgtag_slots && !err &&
	     c < DIV_ROUND_UP(end, PGTAG_CHUNK_PAGES); c++)
		err = pgtag_back(c);
	mutex_unlock(&pgtag_area_lock);
	if (!err)
		return NOTIFY_OK;
	pr_err("page tags: no %s to cover pfns %#lx-%#lx: memory not onlined\n",
	       err == -ENOSPC ? "room in the array" : "memory",
	       mn->start_pfn, end - 1);
	return notifier_from_errno(err);
}
#endif /* CONFIG_MEMORY_HOTPLUG */

static int __init pgtag_storage_init(void)
{
	if (mem_profiling_never) {
		pr_info("page tags: none, profiling disabled with 'never'\n");
		return 0;
	}
#ifdef CONFIG_MEMORY_HOTPLUG
	hotplug_memory_notifier(pgtag_memory_callback, 0);
#endif
	if (!pgtag_in_array()) {
		pr_info("page tags: %d bits of page->flags, no per-page memory (%u numbers for modules)\n",
			ALLOC_TAG_WIDTH, pgtag_mod_limit);
		return 0;
	}
	if (ALLOC_TAG_WIDTH)
		pr_notice("page tags: %d bits of page->flags cannot number %u vmlinux tags and %u for modules: using the array\n",
			  ALLOC_TAG_WIDTH, nr_vmlinux_tags(), PGTAG_MOD_RESERVE);
	if (!pgtag_slots)
		pr_info("page tags: an array of 4 bytes per page frame, allocated when profiling is first switched on\n");
	return 0;
}
early_initcall(pgtag_storage_init);

static long alloc_tag_meta_read(enum alloc_tag_meta kind)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(alloc_tag_meta[kind], cpu));
	return max(sum, 0L);
}

static void alloc_tag_print_metadata(void)
{
	size_t ntags = __stop_alloc_tags - __start_alloc_tags;
	size_t tags = ntags * sizeof(struct alloc_tag);
	size_t cntrs = mem_alloc_profiling_ever_enabled() ?
		       ntags * sizeof(struct alloc_tag_counters) *
		       num_possible_cpus() : 0;
	long slab = alloc_tag_meta_read(ALLOC_TAG_META_SLAB);
	long pcpu = alloc_tag_meta_read(ALLOC_TAG_META_PERCPU);
	size_t pages = pgtag_array_bytes();
	u64 total = tags + cntrs + pages + slab + pcpu;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;
	/* Basis points; u32, as 32-bit kernels have no 64-bit division. */
	u32 bp = ram ? div64_u64(total * 10000, ram) : 0;

	pr_notice("metadata: %llu bytes (%u.%02u%% of RAM): vmlinux tags %zu, their per-CPU counters %zu, page tags %zu, slab extension vectors %ld, per-CPU tag vectors %ld\n",
		  total, bp / 100, bp % 100, tags, cntrs, pages, slab, pcpu);
}

static int __init alloc_tag_metadata_report(void)
{
	if (mem_alloc_profiling_ever_enabled())
		alloc_tag_print_metadata();
	return 0;
}
late_initcall_sync(alloc_tag_metadata_report);

struct allocinfo_private {
	struct codetag_iterator iter;
	loff_t pos;			/* seq_file position of iter.ct */
	void *ioctl_state;
	const char *header;
	void (*show)(struct seq_file *m, struct alloc_tag *tag,
		     const struct codetag_range *range);
};

static void *allocinfo_start(struct seq_file *m, loff_t *pos)
{
	struct allocinfo_private *priv = m->private;

	codetag_lock_module_list(alloc_tag_cttype);
	/* Resume where the last read() stopped; its tag may have gone since. */
	if (*pos && priv->iter.ct && *pos >= priv->pos) {
		priv->iter.ct = NULL;
		if (!codetag_next_ct(&priv->iter))
			return NULL;
	} else {
		priv->iter = codetag_get_ct_iter(alloc_tag_cttype);
		priv->pos = 0;
	}
	if (*pos == 0) {
		alloc_tag_released_check();
		return SEQ_START_TOKEN;
	}
	for (; priv->pos < *pos; priv->pos++)
		if (!codetag_next_ct(&priv->iter))
			return NULL;
	return priv->iter.ct;
}

static void *allocinfo_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct allocinfo_private *priv = m->private;

	(*pos)++;
	if (!codetag_next_ct(&priv->iter))
		return NULL;
	priv->pos = *pos;
	return priv->iter.ct;
}

static void allocinfo_stop(struct seq_file *m, void *v)
{
	codetag_unlock_module_list(alloc_tag_cttype);
}

static int allocinfo_show(struct seq_file *m, void *v)
{
	struct allocinfo_private *priv = m->private;

	if (v == SEQ_START_TOKEN)
		seq_puts(m, priv->header);
	else
		priv->show(m, container_of(v, struct alloc_tag, ct),
			   priv->iter.range);
	return 0;
}

static const struct seq_operations allocinfo_seq_op = {
	.start	= allocinfo_start,
	.next	= allocinfo_next,
	.stop	= allocinfo_stop,
	.show	= allocinfo_show,
};

/**
 * alloc_tag_seq_line() - print a line in the format of /proc/allocinfo
 * @m: the file
 * @tag: the tag
 * @range: its range, as given to the show function of alloc_tag_seq_open()
 * @bytes: the bytes to print
 * @calls: the calls to print
 * @nid: a node, printed as " node:N" after the tag, or -1 for none
 */
void alloc_tag_seq_line(struct seq_file *m, struct alloc_tag *tag,
			const struct codetag_range *range, u64 bytes,
			u64 calls, int nid)
{
	struct seq_buf sb;
	char *buf;
	size_t n;

	/* A line of this record overflowed: seq_read() retries it whole. */
	if (seq_has_overflowed(m))
		return;
	n = seq_get_buf(m, &buf);
	seq_buf_init(&sb, buf, n);
	seq_buf_printf(&sb, "%12llu %8llu ", bytes, calls);
	codetag_to_text(&sb, &tag->ct, range);
	if (nid >= 0)
		seq_buf_printf(&sb, " node:%d", nid);
	if (READ_ONCE(tag->ct.flags) & ALLOC_TAG_INACCURATE)
		seq_buf_puts(&sb, " accurate:no");
	seq_buf_putc(&sb, '\n');
	seq_commit(m, seq_buf_has_overflowed(&sb) ? -1 : seq_buf_used(&sb));
}

/**
 * alloc_tag_seq_open() - open a file that walks the tags as allocinfo does
 * @file: the file being opened
 * @header: printed first
 * @show: prints the lines of one tag, of @range, with alloc_tag_seq_line()
 *
 * Use with seq_read(), seq_lseek() and alloc_tag_seq_release().
 *
 * Return: 0, -ENODEV if the tag type was not registered at boot, or -ENOMEM.
 */
int alloc_tag_seq_open(struct file *file, const char *header,
		       void (*show)(struct seq_file *m, struct alloc_tag *tag,
				    const struct codetag_range *range))
{
	struct allocinfo_private *priv;

	if (!alloc_tag_cttype)
		return -ENODEV;
	priv = __seq_open_private(file, &allocinfo_seq_op, sizeof(*priv));
	if (!priv)
		return -ENOMEM;
	priv->header = header;
	priv->show = show;
	return 0;
}

static const struct allocinfo_ioctl_ops *allocinfo_ioctl_ops __ro_after_init;

/**
 * allocinfo_ioctl_register() - give /proc/allocinfo an ioctl
 * @ops: the ioctl and the release of its per-file state
 *
 * Context: boot; one user.
 */
void __init allocinfo_ioctl_register(const struct allocinfo_ioctl_ops *ops)
{
	WARN_ON_ONCE(allocinfo_ioctl_ops);
	allocinfo_ioctl_ops = ops;
}

/**
 * alloc_tag_seq_release() - release a file of alloc_tag_seq_open()
 * @inode: its inode
 * @file: the file
 */
int alloc_tag_seq_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct allocinfo_private *priv = m->private;

	if (priv->ioctl_state)
		allocinfo_ioctl_ops->release(priv->ioctl_state);
	return seq_release_private(inode, file);
}

static void allocinfo_show_tag(struct seq_file *m, struct alloc_tag *tag,
			       const struct codetag_range *range)
{
	struct alloc_tag_counters c = alloc_tag_read(tag);

	alloc_tag_seq_line(m, tag, range, c.bytes, c.calls, -1);
}

static int allocinfo_open(struct inode *inode, struct file *file)
{
	/* 2.0: a line may end with key:value pairs (accurate:no). */
	return alloc_tag_seq_open(file, "allocinfo - version: 2.0\n"
				  "#     <size>  <calls> <tag info>\n",
				  allocinfo_show_tag);
}

static long allocinfo_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct seq_file *m = file->private_data;
	struct allocinfo_private *priv = m->private;

	if (!allocinfo_ioctl_ops)
		return -ENOTTY;
	return allocinfo_ioctl_ops->ioctl(alloc_tag_cttype, &priv->ioctl_state,
					  cmd, arg);
}

static const struct proc_ops allocinfo_proc_ops = {
	.proc_open		= allocinfo_open,
	.proc_read		= seq_read,
	.proc_lseek		= seq_lseek,
	.proc_release		= alloc_tag_seq_release,
	.proc_ioctl		= allocinfo_ioctl,
#ifdef CONFIG_COMPAT
	.proc_compat_ioctl	= compat_ptr_ioctl,
#endif
};

#define SHOW_TOP_MAX	10

struct show_top {
	struct alloc_tag *tag;
	const char *modname;
	u64 bytes;
	u64 calls;
};

static void show_top_consider(struct show_top *top, struct alloc_tag *tag,
			      const char *modname)
{
	struct alloc_tag_counters c = alloc_tag_read(tag);
	unsigned int i;

	if (!c.bytes || c.bytes <= top[SHOW_TOP_MAX - 1].bytes)
		return;
	for (i = SHOW_TOP_MAX - 1; i > 0 && top[i - 1].bytes < c.bytes; i--)
		top[i] = top[i - 1];
	top[i] = (struct show_top){ tag, modname, c.bytes, c.calls };
}

/**
 * alloc_tag_show_mem() - print the call sites holding the most memory
 *
 * For OOM and SysRq-m reports: allocates nothing, never sleeps; module tags
 * only outside interrupts and if their lock is free.
 */
void alloc_tag_show_mem(void)
{
	/* An OOM on another CPU may come before the initcall sets it. */
	struct codetag_type *cttype = READ_ONCE(alloc_tag_cttype);
	struct show_top top[SHOW_TOP_MAX] = { };
	struct codetag_iterator iter;
	struct alloc_tag *tag;
	bool modules = false;
	struct codetag *ct;
	unsigned int i;

	if (!mem_alloc_profiling_ever_enabled() || !cttype)
		return;
	for (tag = __start_alloc_tags; tag < __stop_alloc_tags; tag++)
		show_top_consider(top, tag, NULL);
	if (!in_interrupt() && codetag_trylock_module_list(cttype)) {
		modules = true;
		iter = codetag_get_ct_iter(cttype);
		while ((ct = codetag_next_ct(&iter)))
			if (iter.range->modname[0])
				show_top_consider(top, container_of(ct, struct alloc_tag, ct),
						  iter.range->modname);
	}
	pr_notice("Memory allocations by call site (top %d%s):\n", SHOW_TOP_MAX,
		  modules ? "" : ", modules not included");
	pr_notice("%12s %8s %s\n", "bytes", "calls", "call site");
	for (i = 0; i < SHOW_TOP_MAX && top[i].tag; i++) {
		ct = &top[i].tag->ct;
		pr_notice("%12llu %8llu %s:%u%s%s%s func:%s\n",
			  top[i].bytes, top[i].calls, ct->filename, ct->lineno,
			  top[i].modname ? " [" : "",
			  top[i].modname ? top[i].modname : "",
			  top[i].modname ? "]" : "", ct->function);
	}
	if (modules)
		codetag_unlock_module_list(cttype);
	alloc_tag_print_metadata();
}

static size_t range_tags(struct codetag_range *range, struct alloc_tag **first)
{
	*first = container_of(range->start, struct alloc_tag, ct);
	return (struct alloc_tag *)range->stop - *first;
}

/* Counters come in blocks of the per-CPU allocator's largest allocation. */
#define PCPU_TAG_BLOCK	(PCPU_MIN_UNIT_SIZE / sizeof(struct alloc_tag_counters))

/* Free the counters of @n tags, which then point to @after. */
static void alloc_tag_counters_free(struct alloc_tag *tags, size_t n,
				    struct alloc_tag_counters __percpu *after)
{
	struct alloc_tag_counters __percpu *block;
	size_t i, j;

	/* A stale charge must find @after, never the freed block. */
	for (i = 0; i < n; i += PCPU_TAG_BLOCK) {
		block = tags[i].counters;
		for (j = i; j < min(n, i + PCPU_TAG_BLOCK); j++)
			WRITE_ONCE(tags[j].counters, after);
		free_percpu(block);
	}
}

/* Per-CPU counters for @n tags; -ENOMEM leaves none.  Process context. */
static int alloc_tag_counters_alloc(struct alloc_tag *tags, size_t n)
{
	struct alloc_tag_counters __percpu *block;
	size_t i, j;

	for (i = 0; i < n; i += PCPU_TAG_BLOCK) {
		size_t nr = min_t(size_t, n - i, PCPU_TAG_BLOCK);

		block = __alloc_percpu(nr * sizeof(*block), sizeof(u64));
		if (!block) {
			alloc_tag_counters_free(tags, i, NULL);
			return -ENOMEM;
		}
		for (j = 0; j < nr; j++)
			tags[i + j].counters = block + j;
	}
	return 0;
}

/* Counters and numbers for a module's tags; module list lock (write). */
static int alloc_tag_module_attach(struct codetag_range *range)
{
	struct alloc_tag *tags;
	size_t n = range_tags(range, &tags);

	if (alloc_tag_counters_alloc(tags, n)) {
		pr_err("%s: no memory for the counters of %zu tags\n",
		       range->modname, n);
		return -ENOMEM;
	}
	pgtag_register_module(tags, n, range->modname);
	consumers_tags(tags, n, true);
	return 0;
}

static void alloc_tag_module_detach(struct codetag_range *range)
{
	struct alloc_tag *tags;
	size_t n = range_tags(range, &tags);

	pgtag_unregister_module(tags, n);
	alloc_tag_counters_free(tags, n, NULL);
}

static int alloc_tag_module_load(struct codetag_type *cttype,
				 struct codetag_range *range)
{
	/* Before the first switch-on, alloc_tag_first_on() attaches it. */
	return mem_alloc_profiling_ever_enabled() ?
	       alloc_tag_module_attach(range) : 0;
}

/*
 * See "The first switch-on" in allocation-profiling-design.rst.  The module
 * list lock, held for writing, keeps out module loads and allocinfo readers,
 * which must not see counters a failure frees again.  Consumers start last:
 * nothing can fail after them.  Under mem_profiling_mutex.
 */
static int alloc_tag_first_on(void)
{
	struct codetag_range *failed = NULL;
	struct codetag_iterator iter;
	struct codetag *ct;
	unsigned int i;
	int err;

	err = pgtag_first_on();
	if (err)
		return err;
	if (alloc_tag_cttype)
		codetag_lock_module_list_write(alloc_tag_cttype);
	err = alloc_tag_counters_alloc(__start_alloc_tags, nr_vmlinux_tags());
	if (err) {
		pr_err("no memory for the counters of %u tags: profiling stays off\n",
		       nr_vmlinux_tags());
		goto out;
	}
	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while (alloc_tag_cttype && !err && (ct = codetag_next_ct(&iter))) {
		if (!iter.range->mod || ct != iter.range->start)
			continue;
		failed = iter.range;
		err = alloc_tag_module_attach(failed);
	}
	/* The rollback detaches the modules before @failed, or all of them. */
	if (!err)
		failed = NULL;
	err = err ?: slab_tags_init();
	if (err) {
		iter = codetag_get_ct_iter(alloc_tag_cttype);
		while (alloc_tag_cttype && (ct = codetag_next_ct(&iter)) &&
		       iter.range != failed)
			if (iter.range->mod && ct == iter.range->start)
				alloc_tag_module_detach(iter.range);
		alloc_tag_counters_free(__start_alloc_tags, nr_vmlinux_tags(), NULL);
		goto out;
	}
	for (i = 0; i < nr_consumers; i++)
		consumer_start_chosen(consumers[i]);
	/* From the ever key on, new per-CPU chunks get tag vectors too. */
	static_branch_enable(&mem_alloc_profiling_ever_key);
	pcpu_alloc_tags_fill();
out:
	if (alloc_tag_cttype)
		codetag_unlock_module_list_write(alloc_tag_cttype);
	if (err)
		pgtag_first_off();
	return err;
}

/*
 * Modules unloaded with allocations live.  Many are frees on their way:
 * kfree_rcu() batches up to 5 s before a grace period, call_rcu() waits for
 * one; so "still live" is said only after ALLOC_TAG_UNLOAD_GRACE and
 * rcu_barrier(), of the unloaded ranges not reported yet.
 */
#define ALLOC_TAG_UNLOAD_GRACE	(10 * HZ)

static bool alloc_tag_range_live(struct codetag_range *range)
{
	struct alloc_tag *tags;
	size_t i, n = range_tags(range, &tags);
	s64 bytes, calls;

	for (i = 0; i < n; i++) {
		alloc_tag_sum(&tags[i], &bytes, &calls);
		if (bytes || calls)
			return true;
	}
	return false;
}

static void alloc_tag_unloaded_report(struct work_struct *work)
{
	struct codetag_iterator iter;
	struct alloc_tag *tags;
	struct codetag *ct;

	rcu_barrier();
	codetag_lock_module_list(alloc_tag_cttype);
	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		if (!codetag_range_unloaded(iter.range) || ct != iter.range->start ||
		    iter.range->reported || !alloc_tag_range_live(iter.range))
			continue;
		pr_info("module %s unloaded with allocations still live; keeping its %zu tags\n",
			iter.range->modname, range_tags(iter.range, &tags));
		/* A flag of ours, written under the lock held for reading. */
		WRITE_ONCE(iter.range->reported, true);
	}
	codetag_unlock_module_list(alloc_tag_cttype);
}

static DECLARE_DELAYED_WORK(alloc_tag_unloaded_work, alloc_tag_unloaded_report);

/* Release the tags unless charged; after the unload a zero sum stays zero. */
static bool alloc_tag_module_unload(struct codetag_type *cttype,
				    struct codetag_range *range)
{
	struct alloc_tag *tags;
	size_t n = range_tags(range, &tags);

	if (alloc_tag_range_live(range)) {
		if (range->mod)
			mod_delayed_work(system_wq, &alloc_tag_unloaded_work,
					 ALLOC_TAG_UNLOAD_GRACE);
		return true;
	}
	if (!range->mod && READ_ONCE(range->reported))
		pr_info("%s: every allocation of the unloaded module is freed; its tags are released\n",
			range->modname);
	consumers_tags(tags, n, false);
	pgtag_unregister_module(tags, n);
	alloc_tag_counters_free(tags, n, &alloc_tag_released);
	alloc_tag_released_check();
	return false;
}

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
/**
 * alloc_tag_check_unused() - warn if an object's tag slot is still in use
 * @ref: the slot, about to be charged
 */
void alloc_tag_check_unused(struct alloc_tag **ref)
{
	struct alloc_tag *old = *ref;

	if (likely(!old))
		return;
	if (alloc_tag_is_real(old))
		WARN_ONCE(1, "alloc_tag: tag slot not cleared on free or charged twice (held %s:%u)\n",
			  old->ct.filename, old->ct.lineno);
	else
		WARN_ONCE(1, "alloc_tag: tag slot not cleared on free\n");
}

#define UNTAGGED_SLOTS	64
static unsigned long untagged_callers[UNTAGGED_SLOTS];
static DEFINE_RAW_SPINLOCK(untagged_lock);	/* no allocation under it */

/**
 * alloc_tag_report_untagged() - warn once per untagged call site (first 64)
 * @caller: return address identifying the call site
 */
void alloc_tag_report_untagged(unsigned long caller)
{
	unsigned long flags;
	bool report = false;
	int i;

	raw_spin_lock_irqsave(&untagged_lock, flags);
	for (i = 0; i < UNTAGGED_SLOTS; i++) {
		if (untagged_callers[i] == caller)
			break;
		if (!untagged_callers[i]) {
			untagged_callers[i] = caller;
			report = true;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&untagged_lock, flags);
	if (report)
		pr_warn("allocation without a tag from %pS: annotate it with alloc_hooks()\n",
			(void *)caller);
}

/*
 * Name the caller of the outermost __noprof_text entry point (see
 * "Debugging" in allocation-profiling-design.rst).  A module's _noprof
 * helper is not one; an untagged allocation in an interrupt that hit a
 * task's _noprof call is blamed on the task's caller.
 */
static noinline __cold void pgalloc_report_untagged(void)
{
#ifdef CONFIG_STACKTRACE
	unsigned long entries[32];
	unsigned int i, n;

	/* Once every slot is taken, no more sites can be reported. */
	if (READ_ONCE(untagged_callers[UNTAGGED_SLOTS - 1]))
		return;
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = n; i-- > 1;) {
		if (in_noprof_functions(entries[i - 1])) {
			alloc_tag_report_untagged(entries[i]);
			return;
		}
	}
#endif
}

/**
 * __pgalloc_tag_untagged() - DEBUG's checks of a page being charged
 * @tag: the current task's tag
 * @page: the page
 */
void __pgalloc_tag_untagged(struct alloc_tag *tag, struct page *page)
{
	if (!tag)
		pgalloc_report_untagged();
	WARN_ONCE(pgtag_get(page), "alloc_tag: page charged twice or tag not cleared on free\n");
}
#endif /* CONFIG_MEM_ALLOC_PROFILING_DEBUG */

static int __init alloc_tag_init(void)
{
	const struct codetag_type_desc desc = {
		.section	= __stringify(ALLOC_TAG_SECTION),
		.tag_size	= sizeof(struct alloc_tag),
		.vmlinux_start	= &__start_alloc_tags->ct,
		.vmlinux_stop	= &__stop_alloc_tags->ct,
		.module_load	= alloc_tag_module_load,
		.module_unload	= alloc_tag_module_unload,
	};
	struct codetag_type *cttype;

	cttype = codetag_register_type(&desc);
	if (IS_ERR(cttype)) {
		pr_err("cannot register the allocation tag type: %ld\n",
		       PTR_ERR(cttype));
		return PTR_ERR(cttype);
	}
	WRITE_ONCE(alloc_tag_cttype, cttype);
	if (!proc_create("allocinfo", 0400, NULL, &allocinfo_proc_ops))
		pr_err("cannot create /proc/allocinfo\n");
#ifdef CONFIG_SYSCTL
	register_sysctl_init("vm", mem_profiling_table);
#endif
	pr_info("%zu allocation call sites (%zu bytes of tags, %zu of per-CPU counters), profiling %s\n",
		codetag_type_count(cttype),
		codetag_type_count(cttype) * sizeof(struct alloc_tag),
		mem_alloc_profiling_ever_enabled() ?
		codetag_type_count(cttype) * sizeof(struct alloc_tag_counters) *
		num_possible_cpus() : 0,
		mem_profiling_never ? "disabled permanently (never)" :
		mem_alloc_profiling_enabled() ? "on" : "off");
	return 0;
}

/* Before any module loads: modules loaded earlier would not be listed. */
core_initcall(alloc_tag_init);

#ifdef CONFIG_MEM_ALLOC_PROFILING_KUNIT_TEST
#include "alloc_tag_kunit.c"
#endif /* CONFIG_MEM_ALLOC_PROFILING_KUNIT_TEST */
