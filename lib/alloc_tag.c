// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling: the tags, their counters, /proc/allocinfo and
 * the vm.mem_profiling switch.
 *
 * The allocators do the charging themselves (see include/linux/alloc_tag.h
 * and the hooks in mm/); this file owns everything around it: the tag type
 * registered with the code tagging framework, per-CPU counters for module
 * tags, the file operators read, and the static keys that make profiling
 * cost nothing while it is off.
 */
#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/alloc_tag.h>
#include <linux/alloc_tag_nodes.h>
#include <linux/alloc_tag_capture.h>
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
#include <linux/preempt.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

DEFINE_STATIC_KEY_FALSE(mem_alloc_profiling_key);
EXPORT_SYMBOL(mem_alloc_profiling_key);
DEFINE_STATIC_KEY_FALSE(mem_alloc_profiling_ever_key);
EXPORT_SYMBOL(mem_alloc_profiling_ever_key);
DEFINE_STATIC_KEY_FALSE(alloc_tag_extras_key);

static struct codetag_type *alloc_tag_cttype __ro_after_init;

/* ---------------------------------------------------------------------- */
/* State: vm.mem_profiling and the boot parameter                          */

/* "never": profiling was refused at boot and cannot be switched on. */
static bool mem_profiling_never;
/* Whether to switch profiling on at the end of mm_init(). */
static bool mem_profiling_boot_on __initdata =
	IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT);
static DEFINE_MUTEX(mem_profiling_mutex);

static int alloc_tag_first_on(void);

/*
 * Switch profiling on or off.  The first switch-on allocates what
 * profiling needs (see alloc_tag_first_on()); until then a kernel that
 * has it compiled in pays for its static tags and its patched jumps only.
 */
static int mem_profiling_set(bool on)
{
	int err;

	lockdep_assert_held(&mem_profiling_mutex);
	if (!on) {
		static_branch_disable(&mem_alloc_profiling_key);
		return 0;
	}
	if (!mem_alloc_profiling_ever_enabled()) {
		err = alloc_tag_first_on();
		if (err)
			return err;
	}
	static_branch_enable(&mem_alloc_profiling_key);
	return 0;
}

/*
 * sysctl.vm.mem_profiling= is applied by do_sysctl_args() only after all
 * initcalls, long after the first allocations.  Read it early so that the
 * state it asks for holds from mm_init() on, and so that "never" allocates
 * nothing for profiling at all.  do_sysctl_args() writes the value once
 * more later; the sysctl accepts that (see below).
 */
static int __init mem_profiling_early(char *arg)
{
	if (!arg) {
		pr_err("sysctl.vm.mem_profiling needs a value (0, 1 or never)\n");
		return 0;
	}
	if (mem_profiling_never) {
		pr_err("sysctl.vm.mem_profiling=%s ignored after 'never'\n", arg);
		return 0;
	}
	/* "1,nodes" chooses the node counters: see alloc_tag_nodes_option(). */
	alloc_tag_nodes_option(arg);
	if (!strcmp(arg, "never"))
		mem_profiling_never = true;
	else if (!strcmp(arg, "0"))
		mem_profiling_boot_on = false;
	else if (!strcmp(arg, "1"))
		mem_profiling_boot_on = true;
	else
		pr_err("sysctl.vm.mem_profiling=%s is not 0, 1 or never; keeping the default (%d)\n",
		       arg, mem_profiling_boot_on);
	return 0;
}
early_param("sysctl.vm.mem_profiling", mem_profiling_early);

static void __init pgtag_setup(void);

/**
 * alloc_tag_mm_init() - profiling's part of setting up memory management
 *
 * Chooses where page tags will live and, if the kernel boots with
 * profiling on, switches it on: from here on, allocations are charged.
 * Those made before (the page and slab allocators setting themselves up)
 * are not, as allocations made before a switch-on at run time are not.
 *
 * Context: the end of mm_init(), once vmalloc() works; one CPU.
 */
void __init alloc_tag_mm_init(void)
{
	if (mem_profiling_never)
		return;
	pgtag_setup();
	if (!mem_profiling_boot_on)
		return;
	mutex_lock(&mem_profiling_mutex);
	if (mem_profiling_set(true))
		pr_err("cannot switch profiling on at boot: it stays off\n");
	mutex_unlock(&mem_profiling_mutex);
}

/*
 * Switch profiling on or off: what a write to vm.mem_profiling does, and
 * what the KUnit suites use.  Process context.  Returns 0, -EPERM if
 * profiling was disabled with "never" at boot, or -ENOMEM if the first
 * switch-on could not allocate what profiling needs (it stays off).
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
/*
 * vm.mem_profiling reads and writes 0 or 1 like any integer sysctl; a
 * write needs CAP_SYS_ADMIN.  After "never" at boot the file is read-only,
 * as mainline's is (see alloc_tag_init()).
 */
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
	size_t len = *lenp;
	int ret;

	if (!write)
		return proc_dointvec_minmax(&tmp, 0, buffer, lenp, ppos);
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* do_sysctl_args() writes the boot's "1,nodes": alloc_tag_nodes_strip() */
	len = alloc_tag_nodes_strip(buffer, len);
	ret = proc_dointvec_minmax(&tmp, 1, buffer, &len, ppos);
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

/* ---------------------------------------------------------------------- */
/* Reading the counters                                                    */

/*
 * Sum a tag's per-CPU counters, signed.  The sum is taken while other CPUs
 * allocate and free: an object allocated on a CPU the walk has passed and
 * freed on one it has not reached yet is seen freed but not allocated, so a
 * sum can read below the true value, and below zero, for a moment.  It can
 * never read above it for long, and it is exact once the tag is idle.
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
 * The counters of every released module tag.  A tag is released only once
 * nothing is charged to it, so only a bug reaches this (a tag pointer
 * kept past its module's unload, by alloc_tag_save() or in an object
 * that was not charged): it then charges this, not whatever the per-CPU
 * area holds at offset 0.  alloc_tag_released_check() says so once.
 */
static DEFINE_PER_CPU(struct alloc_tag_counters, alloc_tag_released);

/*
 * alloc_tag_released_check() - warn once if a released tag was charged
 *
 * Context: any context.
 */
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
 * The per-CPU counters are summed without stopping allocations, so a sum
 * may momentarily read below the true value (see alloc_tag_sum()); a sum
 * below zero is returned as 0, never as a wrapped huge number.
 *
 * Return: bytes and calls currently held by allocations from @tag.
 */
struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag)
{
	struct alloc_tag_counters v;
	s64 bytes, calls;

	alloc_tag_sum(tag, &bytes, &calls);
	v.bytes = max_t(s64, bytes, 0);
	v.calls = max_t(s64, calls, 0);
	return v;
}
EXPORT_SYMBOL_GPL(alloc_tag_read);

/**
 * alloc_tag_lock_sites() - keep the set of listed tags as it is
 *
 * Module loads and unloads wait until alloc_tag_unlock_sites(); tags found
 * with alloc_tag_for_each() stay valid until then.
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENODEV if the tag type could not be registered at boot
 * (then there is nothing to unlock).
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
 * @fn: called with each tag of vmlinux and of the loaded modules, in the
 *	order of /proc/allocinfo, with the name of its module ("" for
 *	vmlinux) and @arg; a nonzero return ends the walk
 * @arg: passed to @fn
 *
 * The tags an unloaded module left listed because they still hold memory
 * are not passed: no new allocation can be charged to them.
 *
 * Context: under alloc_tag_lock_sites().
 * Return: the first nonzero return of @fn, or 0.
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

static atomic_long_t alloc_tag_metadata_failures;

/**
 * alloc_tag_metadata_failed() - profiling could not record an allocation
 * @tag: the tag the allocation should have been charged to
 *
 * Called when the metadata needed to remember an object's tag could not be
 * allocated.  The object is still handed out, uncharged, so @tag's counters
 * are now lower than reality: mark it, so that /proc/allocinfo says
 * "accurate:no" on its line, and say so in the log once.
 *
 * Context: any context.
 */
void alloc_tag_metadata_failed(struct alloc_tag *tag)
{
	/* Module tags keep their index in the other bits. */
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

static long alloc_tag_meta_read(enum alloc_tag_meta kind)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(alloc_tag_meta[kind], cpu));
	return max(sum, 0L);
}

static size_t pgtag_array_bytes(void);

#define ALLOC_TAG_META_FMT						\
	"metadata: %llu bytes (%u.%02u%% of RAM): vmlinux tags %zu, "	\
	"their per-CPU counters %zu, page tags %zu, "			\
	"slab extension vectors %ld, per-CPU tag vectors %ld\n"

/* What profiling's own data take now; for the boot log and show_mem(). */
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

	pr_notice(ALLOC_TAG_META_FMT, total, bp / 100, bp % 100, tags, cntrs,
		  pages, slab, pcpu);
}

static int __init alloc_tag_metadata_report(void)
{
	if (mem_alloc_profiling_ever_enabled())
		alloc_tag_print_metadata();
	return 0;
}
late_initcall_sync(alloc_tag_metadata_report);

/* ---------------------------------------------------------------------- */
/* Tag indices: how pages refer to their tag                               */

/*
 * vmlinux tags are numbered 1..n by their place in the section.  A module's
 * tags take free numbers above n when it loads.  Every tag keeps its number
 * in codetag.flags (vmlinux tags from alloc_tag_mm_init() on), and
 * module tags are found again through a table.  0 means "no tag".  The
 * numbers of a module are given back when its tags are released, which
 * happens only once nothing is charged to them (alloc_tag_module_unload()):
 * no page can hold such a number any more, so it can be given to another
 * tag.
 *
 * The table only grows, and a table replaced by a larger one is kept (a
 * few KiB at most), so that a page's free looks its tag up without RCU,
 * whose read side is a call on preemptible kernels.
 */
struct pgtag_mod_table {
	u32 size;
	struct alloc_tag *tags[];
};

static struct pgtag_mod_table pgtag_mod_none;	/* no module numbered yet */
static struct pgtag_mod_table *pgtag_mod_table = &pgtag_mod_none;
static unsigned long *pgtag_mod_used;	/* slots of the table in use */
static u32 pgtag_mod_limit;		/* how many slots pages can name */
static DEFINE_MUTEX(pgtag_mod_lock);
/* The number of vmlinux tags, for the page hooks; set before any page is. */
static u32 pgtag_nr_vmlinux __ro_after_init;

static inline u32 nr_vmlinux_tags(void)
{
	return __stop_alloc_tags - __start_alloc_tags;
}

/* Give @tag page-tag number @idx (0: none). */
static void alloc_tag_set_index(struct alloc_tag *tag, u32 idx)
{
	alloc_tag_flags_replace(tag, ALLOC_TAG_INDEX_MASK, idx);
}

/* The tag of number @idx (not 0), or NULL if no tag has it. */
static __always_inline struct alloc_tag *alloc_tag_from_index(u32 idx)
{
	const struct pgtag_mod_table *table;

	if (likely(idx <= pgtag_nr_vmlinux))
		return &__start_alloc_tags[idx - 1];
	/* Pairs with smp_store_release() in pgtag_mod_table_grow(). */
	table = READ_ONCE(pgtag_mod_table);
	idx -= pgtag_nr_vmlinux + 1;
	if (likely(idx < table->size))
		return READ_ONCE(table->tags[idx]);
	return NULL;
}

/* Make room for @want slots; false if the table cannot grow that far. */
static bool pgtag_mod_table_grow(u32 want)
{
	struct pgtag_mod_table *table, *old = pgtag_mod_table;
	unsigned long *used;
	u32 size;

	lockdep_assert_held(&pgtag_mod_lock);
	if (old->size >= want)
		return true;
	if (want > pgtag_mod_limit)
		return false;
	size = max3(want, 2 * old->size, 256U);
	size = min(size, pgtag_mod_limit);
	table = kvzalloc(struct_size(table, tags, size), GFP_KERNEL);
	used = bitmap_zalloc(size, GFP_KERNEL);
	if (!table || !used) {
		kvfree(table);
		bitmap_free(used);
		return false;
	}
	table->size = size;
	memcpy(table->tags, old->tags, old->size * sizeof(old->tags[0]));
	if (pgtag_mod_used)
		bitmap_copy(used, pgtag_mod_used, old->size);
	bitmap_free(pgtag_mod_used);
	pgtag_mod_used = used;
	/* Filled before it is seen; lookups may still read the old one. */
	smp_store_release(&pgtag_mod_table, table);
	if (old != &pgtag_mod_none)
		kmemleak_not_leak(old);
	return true;
}

/*
 * Number the tags of a module being loaded.  If no numbers are left, the
 * module still loads: its tags get none, and its page allocations are
 * marked inaccurate instead of charged.
 */
static void pgtag_register_module(struct alloc_tag *tags, size_t n,
				  const char *modname)
{
	struct pgtag_mod_table *table;
	unsigned long slot = 0;
	size_t i;

	mutex_lock(&pgtag_mod_lock);
	table = pgtag_mod_table;
	for (i = 0; i < n; i++) {
		if (table->size)
			slot = find_next_zero_bit(pgtag_mod_used, table->size,
						  slot);
		if (slot >= table->size) {
			if (!pgtag_mod_table_grow(table->size + 1))
				break;
			table = pgtag_mod_table;
		}
		__set_bit(slot, pgtag_mod_used);
		alloc_tag_nodes_cover(&tags[i], nr_vmlinux_tags() + 1 + slot);
		alloc_tag_set_index(&tags[i], nr_vmlinux_tags() + 1 + slot);
		WRITE_ONCE(table->tags[slot], &tags[i]);
	}
	mutex_unlock(&pgtag_mod_lock);
	if (i < n)
		pr_warn_ratelimited("%s: no page tag numbers left for %zu of its %zu tags: their pages are not charged\n",
				    modname, n - i, n);
}

/* Give back the numbers of a module's tags; no page refers to them. */
static void pgtag_unregister_module(struct alloc_tag *tags, size_t n)
{
	struct pgtag_mod_table *table;
	size_t i;

	mutex_lock(&pgtag_mod_lock);
	table = pgtag_mod_table;
	for (i = 0; i < n; i++) {
		u32 idx = alloc_tag_to_index(&tags[i]);
		u32 slot = idx - nr_vmlinux_tags() - 1;

		if (idx && slot < table->size) {
			WRITE_ONCE(table->tags[slot], NULL);
			__clear_bit(slot, pgtag_mod_used);
		}
		alloc_tag_set_index(&tags[i], 0);
	}
	mutex_unlock(&pgtag_mod_lock);
}

/* ---------------------------------------------------------------------- */
/* Page tags                                                               */

/*
 * The field declared in <linux/page-flags-layout.h> (ALLOC_TAG_WIDTH bits
 * at ALLOC_TAG_PGOFF) if the configuration leaves room for it, or else a
 * 4-byte slot per page frame.  The flags field also needs enough numbers
 * for the vmlinux tags and PGTAG_MOD_RESERVE module tags; a kernel with
 * more tags than that uses the array.
 */
#define PGTAG_FLAGS_MASK	(ALLOC_TAG_WIDTH ?				\
				 GENMASK(ALLOC_TAG_PGOFF + ALLOC_TAG_WIDTH - 1, \
					 ALLOC_TAG_PGOFF) : 0UL)
#define PGTAG_MOD_RESERVE	4096

/*
 * The array: a slot per page frame, in chunks of PGTAG_CHUNK_PAGES frames,
 * allocated when profiling is first switched on for the memory online
 * then, and when more memory goes online.  A directory indexed by
 * pfn / PGTAG_CHUNK_PAGES points to them.  A chunk is freed when none of
 * its memory is online any more (pgtag_uncover()); a directory replaced
 * by a larger one (memory added above the end of the old one) is kept, so
 * lookups need no lock.
 */
#define PGTAG_CHUNK_SHIFT	15
#define PGTAG_CHUNK_PAGES	BIT(PGTAG_CHUNK_SHIFT)
#define PGTAG_CHUNK_BYTES	(PGTAG_CHUNK_PAGES * sizeof(u32))

struct pgtag_dir {
	unsigned long nr;		/* chunks it can point to */
	u32 *chunk[];
};

/*
 * Tags are in the array if pgtag_array_key is set, or if page->flags has
 * no field for them.  pgtag_dir points to an empty directory until the
 * first switch-on gives the array one; no hook runs before that.
 */
static DEFINE_STATIC_KEY_FALSE(pgtag_array_key);
static struct pgtag_dir pgtag_dir_none;
static struct pgtag_dir *pgtag_dir __read_mostly = &pgtag_dir_none;
static atomic_long_t pgtag_chunks;	/* chunks allocated */
static DEFINE_MUTEX(pgtag_dir_lock);	/* allocates and frees chunks */

static __always_inline bool pgtag_in_array(void)
{
	return !ALLOC_TAG_WIDTH || static_branch_unlikely(&pgtag_array_key);
}

/*
 * The array slot of @page, or NULL if it has none.
 *
 * Only pages of online memory reach the hooks (being allocated, freed,
 * split or migrated), and only once profiling has been switched on, when
 * online memory has its chunk: the first switch-on gives all memory online
 * then its chunks (or fails), memory that goes online later does not
 * without them, and a chunk is freed
 * only once none of its memory is online, when no hook can still be
 * working on one of its pages (offlining waits until every page of the
 * range is free in the buddy allocator, which is after its free hook),
 * unless it covers a hardware-poisoned page: offlining passes over those
 * while in use, and their holders free them later.
 * The bound and the chunk are tested all the same, for the price of a
 * compare and a test: a page that breaks that rule gets a warning and
 * goes uncharged, not a write to memory that is not its slot.
 */
static __always_inline u32 *pgtag_slot(struct page *page)
{
	const struct pgtag_dir *dir = READ_ONCE(pgtag_dir);
	unsigned long pfn = page_to_pfn(page);
	unsigned long c = pfn >> PGTAG_CHUNK_SHIFT;
	u32 *chunk;

	if (WARN_ON_ONCE(c >= dir->nr))
		return NULL;
	chunk = READ_ONCE(dir->chunk[c]);
	if (WARN_ON_ONCE(!chunk))
		return NULL;
	return &chunk[pfn & (PGTAG_CHUNK_PAGES - 1)];
}

static __always_inline u32 pgtag_get(struct page *page)
{
	u32 *slot;

	if (!pgtag_in_array())
		return (READ_ONCE(page->flags) & PGTAG_FLAGS_MASK) >>
		       ALLOC_TAG_PGOFF;
	slot = pgtag_slot(page);
	return slot ? READ_ONCE(*slot) : 0;
}

/*
 * Give @page tag number @idx; false if it has nowhere to keep it.  In the
 * flags field no check is needed: pgtag_mod_limit keeps every number in
 * range.
 * @in_use: someone else may change other bits of page->flags meanwhile.
 * A page being allocated has just left the free lists and nobody else
 * holds it: 6.1's own prep_new_page() then sets PG_head with a plain
 * store into the same word.
 */
static __always_inline bool pgtag_store(struct page *page, u32 idx,
					bool in_use)
{
	unsigned long old, new;
	u32 *slot;

	if (pgtag_in_array()) {
		slot = pgtag_slot(page);
		if (!slot)
			return false;
		WRITE_ONCE(*slot, idx);
		return true;
	}
	old = READ_ONCE(page->flags);
	do {
		new = (old & ~PGTAG_FLAGS_MASK) |
		      ((unsigned long)idx << ALLOC_TAG_PGOFF);
		if (!in_use) {
			WRITE_ONCE(page->flags, new);
			break;
		}
	} while (!try_cmpxchg(&page->flags, &old, new));
	return true;
}

/* Set the tag of a page in use: split, migration. */
static void pgtag_set(struct page *page, u32 idx)
{
	pgtag_store(page, idx, true);
}

#if defined(CONFIG_MEM_ALLOC_PROFILING_DEBUG) && defined(CONFIG_STACKTRACE)
#define PGALLOC_REPORT_UNTAGGED
static void pgalloc_report_untagged(void);
#else
static inline void pgalloc_report_untagged(void) {}
#endif

/*
 * The optional consumers' part of __pgalloc_tag_add(), out of line: the
 * hook then calls nothing and saves no register on its way to charging a
 * page while they are not in use.
 */
static noinline void pgalloc_tag_extras_add(struct alloc_tag *tag, u32 idx,
					    struct page *page, unsigned int nr)
{
	alloc_tag_node_add(idx, page_to_nid(page), (long)nr << PAGE_SHIFT, 1);
	alloc_tag_capture_add(tag, (unsigned long)page, nr * PAGE_SIZE, 0);
}

/* Out-of-line parts of the hooks in include/linux/pgalloc_tag.h. */
void __pgalloc_tag_add(struct page *page, unsigned int nr)
{
	struct alloc_tag *tag = current->alloc_tag;
	u32 idx;

	if (unlikely(!alloc_tag_is_real(tag))) {
		if (!tag)
			pgalloc_report_untagged();
		return;
	}
	idx = alloc_tag_to_index(tag);
#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
	WARN_ONCE(pgtag_get(page), "alloc_tag: page charged twice or tag not cleared on free\n");
#endif
	if (unlikely(!idx)) {
		alloc_tag_metadata_failed(tag);
		return;
	}
	if (unlikely(!pgtag_store(page, idx, false)))
		return;
	alloc_tag_counters_add(tag, (s64)nr << PAGE_SHIFT, 1);
	if (alloc_tag_extras_enabled())
		pgalloc_tag_extras_add(tag, idx, page, nr);
}

/*
 * The tag number of a page being freed, which is cleared.  Its refcount is
 * zero, so nobody else takes a reference and changes its flags, except
 * memory_failure(), which sets PG_hwpoison on any page;
 * free_pages_prepare() clears flags with a plain store too, with the same
 * race.  Only for pages being freed.
 */
static __always_inline u32 pgtag_take_freed(struct page *page)
{
	unsigned long flags;
	u32 *slot, idx;

	if (pgtag_in_array()) {
		slot = pgtag_slot(page);
		if (!slot)
			return 0;
		idx = READ_ONCE(*slot);
		if (idx)
			WRITE_ONCE(*slot, 0);
		return idx;
	}
	flags = READ_ONCE(page->flags);
	idx = (flags & PGTAG_FLAGS_MASK) >> ALLOC_TAG_PGOFF;
	if (idx)
		WRITE_ONCE(page->flags, flags & ~PGTAG_FLAGS_MASK);
	return idx;
}

/*
 * pgtag_uncharge() while an optional consumer is in use, out of line for
 * the reason given at pgalloc_tag_extras_add().
 */
static noinline void pgtag_uncharge_extras(struct alloc_tag *tag, u32 idx,
					   unsigned int nr, bool first,
					   struct page *page)
{
	/* Capture first, while the tag is charged; @page keys the block. */
	if (first)
		alloc_tag_capture_sub(tag, (unsigned long)page);
	alloc_tag_counters_add(tag, -((s64)nr << PAGE_SHIFT), first ? -1 : 0);
	alloc_tag_node_add(idx, page_to_nid(page), -((long)nr << PAGE_SHIFT), first ? -1 : 0);
}

/*
 * Release @nr pages' bytes of tag number @idx, pages of @page's block.
 * With @first, also the allocation itself (a call) and its captured
 * stack, which @page, the block's first page, keys.
 */
static __always_inline void pgtag_uncharge(u32 idx, unsigned int nr,
					   bool first, struct page *page)
{
	struct alloc_tag *tag;

	/* Only a module's number can name no tag: test there only. */
	if (likely(idx <= pgtag_nr_vmlinux)) {
		tag = &__start_alloc_tags[idx - 1];
	} else {
		tag = alloc_tag_from_index(idx);
		if (WARN_ONCE(!tag, "alloc_tag: page names unknown tag %u\n", idx))
			return;
	}
	if (alloc_tag_extras_enabled()) {
		pgtag_uncharge_extras(tag, idx, nr, first, page);
		return;
	}
	alloc_tag_counters_add(tag, -((s64)nr << PAGE_SHIFT), first ? -1 : 0);
}

void __pgalloc_tag_sub(struct page *page, unsigned int nr)
{
	u32 idx = pgtag_take_freed(page);

	if (likely(idx))
		pgtag_uncharge(idx, nr, true, page);
}

unsigned int __pgalloc_tag_peek(struct page *page)
{
	u32 idx = pgtag_get(page);

	if (alloc_tag_capture_enabled() && idx) {
		struct alloc_tag *tag = alloc_tag_from_index(idx);

		/* The block keeps its first page's share: a split into one. */
		if (alloc_tag_capture_selected(tag))
			__alloc_tag_capture_page_split(tag, page, 1);
	}
	return idx;
}

void __pgalloc_tag_sub_tail(struct page *page, unsigned int tag,
			    unsigned int nr)
{
	pgtag_uncharge(tag, nr, false, page);
}

void __pgalloc_tag_split(struct page *page, unsigned int nr)
{
	u32 idx = pgtag_get(page);
	struct alloc_tag *tag;
	unsigned int i;

	if (!idx)
		return;
	tag = alloc_tag_from_index(idx);
	if (WARN_ONCE(!tag, "alloc_tag: page names unknown tag %u\n", idx))
		return;
	for (i = 1; i < nr; i++)
		pgtag_set(nth_page(page, i), idx);
	alloc_tag_counters_add(tag, 0, nr - 1);
	alloc_tag_node_add(idx, page_to_nid(page), 0, nr - 1);
	if (alloc_tag_capture_selected(tag))
		__alloc_tag_capture_page_split(tag, page, nr);
}

void __pgalloc_tag_move(struct page *dst, struct page *src, unsigned int nr)
{
	u32 didx, sidx;

	if (is_zone_device_page(dst) || is_zone_device_page(src))
		return;
	didx = pgtag_get(dst);
	sidx = pgtag_get(src);

	/* Both pages are in use: other flags may change, use pgtag_set(). */
	if (didx) {
		pgtag_set(dst, 0);
		pgtag_uncharge(didx, nr, true, dst);
	}
	if (!sidx)
		return;
	pgtag_set(dst, sidx);
	pgtag_set(src, 0);
	alloc_tag_node_add(sidx, page_to_nid(src), -((long)nr << PAGE_SHIFT), -1);
	alloc_tag_node_add(sidx, page_to_nid(dst), (long)nr << PAGE_SHIFT, 1);
	if (alloc_tag_capture_enabled()) {
		struct alloc_tag *tag = alloc_tag_from_index(sidx);

		if (alloc_tag_capture_selected(tag))
			__alloc_tag_capture_page_move(tag, dst, src);
	}
}

/* Does the flags field number every vmlinux tag and enough module tags? */
static bool __init pgtag_flags_fit(void)
{
	u64 numbers = min(BIT_ULL(ALLOC_TAG_WIDTH), ALLOC_TAG_INDEX_MASK + 1ULL);

	/* The field is below all the others and above the flags proper. */
	BUILD_BUG_ON(ALLOC_TAG_WIDTH && (NR_PAGEFLAGS > ALLOC_TAG_PGOFF ||
					 LRU_REFS_PGOFF !=
					 ALLOC_TAG_PGOFF + ALLOC_TAG_WIDTH));
	return nr_vmlinux_tags() + 1 + PGTAG_MOD_RESERVE <= numbers;
}

/*
 * Number the vmlinux tags and choose where page tags will live: in the
 * flags field if it numbers every vmlinux tag and PGTAG_MOD_RESERVE module
 * tags, in the array otherwise.  Allocates nothing.
 */
static void __init pgtag_setup(void)
{
	u32 t, ntags = nr_vmlinux_tags();

	pgtag_nr_vmlinux = ntags;
	for (t = 0; t < ntags; t++)
		__start_alloc_tags[t].ct.flags |= t + 1;
	if (ALLOC_TAG_WIDTH && !pgtag_flags_fit())
		static_branch_enable(&pgtag_array_key);
	if (pgtag_in_array())
		pgtag_mod_limit = ALLOC_TAG_INDEX_MASK - ntags;
	else
		pgtag_mod_limit = min(BIT_ULL(ALLOC_TAG_WIDTH),
				      ALLOC_TAG_INDEX_MASK + 1ULL) - ntags - 1;
}

/* The first online page that chunk @c covers, or NULL if none is. */
static struct page *pgtag_chunk_online(unsigned long c)
{
	unsigned long pfn = c << PGTAG_CHUNK_SHIFT;
	unsigned long end = pfn + PGTAG_CHUNK_PAGES;

#ifdef CONFIG_SPARSEMEM
	for (; pfn < end; pfn = ALIGN(pfn + 1, PAGES_PER_SECTION)) {
		struct page *page = pfn_to_online_page(pfn);

		if (page)
			return page;
	}
	return NULL;
#else
	/* One range of page frames, with its holes in the memmap. */
	pfn = max_t(unsigned long, pfn, ARCH_PFN_OFFSET);
	return pfn < end && pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
#endif
}

/* Give @dir a chunk at @c, on node @nid, if it has none. */
static int pgtag_chunk_add(struct pgtag_dir *dir, unsigned long c, int nid)
{
	u32 *chunk;

	if (dir->chunk[c])
		return 0;
	/* Profiling's own metadata, charged to no tag. */
	chunk = alloc_hooks_tag(ALLOC_TAG_NONE,
				kvzalloc_node_noprof(PGTAG_CHUNK_BYTES,
						     GFP_KERNEL, nid));
	if (!chunk)
		return -ENOMEM;
	/* Zeroed before it is seen. */
	smp_store_release(&dir->chunk[c], chunk);
	atomic_long_inc(&pgtag_chunks);
	return 0;
}

/* Free @dir and its chunks; nothing was charged, no hook looks at it. */
static void pgtag_dir_free(struct pgtag_dir *dir)
{
	unsigned long c;

	lockdep_assert_held(&pgtag_dir_lock);
	for (c = 0; c < dir->nr; c++)
		kvfree(dir->chunk[c]);
	kvfree(dir);
	atomic_long_set(&pgtag_chunks, 0);
}

/*
 * What page tags need at the first switch-on, before pages can be
 * charged: in the array, its directory and chunks for the memory online
 * now.  Memory that goes online later gets its chunks then
 * (pgtag_cover()), and hotplug waits until this is done.  All or
 * nothing: -ENOMEM if any of it cannot be allocated.
 */
static int pgtag_first_on(void)
{
	unsigned long c, nr;
	struct pgtag_dir *dir;
	struct page *page;
	int err = 0;

	if (!pgtag_in_array())
		return 0;
	get_online_mems();
	mutex_lock(&pgtag_dir_lock);
	/* Room in the directory for memory that may be hot-added later. */
	nr = DIV_ROUND_UP(max_t(unsigned long, max_pfn, max_possible_pfn),
			  PGTAG_CHUNK_PAGES);
	dir = alloc_hooks_tag(ALLOC_TAG_NONE,
			      kvzalloc_noprof(struct_size(dir, chunk, nr),
					      GFP_KERNEL));
	if (!dir)
		err = -ENOMEM;
	else
		dir->nr = nr;
	for (c = 0; !err && c < nr; c++) {
		page = pgtag_chunk_online(c);
		if (page)
			err = pgtag_chunk_add(dir, c, page_to_nid(page));
	}
	if (!err)
		smp_store_release(&pgtag_dir, dir);	/* filled before seen */
	else if (dir)
		pgtag_dir_free(dir);
	mutex_unlock(&pgtag_dir_lock);
	put_online_mems();
	if (err) {
		pr_err("page tags: no memory for the array: profiling stays off\n");
		return err;
	}
	pr_info("page tags: %zu bytes, 4 per page frame of memory online (page->flags has no room)\n",
		pgtag_array_bytes());
	return 0;
}

/* Undo pgtag_first_on(): the rest of the first switch-on failed. */
static void pgtag_first_off(void)
{
	if (!pgtag_in_array())
		return;
	get_online_mems();
	mutex_lock(&pgtag_dir_lock);
	if (pgtag_dir != &pgtag_dir_none)
		pgtag_dir_free(pgtag_dir);
	WRITE_ONCE(pgtag_dir, &pgtag_dir_none);
	mutex_unlock(&pgtag_dir_lock);
	put_online_mems();
}

#ifdef CONFIG_MEMORY_HOTPLUG
/*
 * Whether chunk @c covers a hardware-poisoned page: one still in use when
 * its memory went offline reaches the free hook later (see pgtag_slot()).
 */
static bool pgtag_chunk_poisoned(unsigned long c)
{
	unsigned long pfn = c << PGTAG_CHUNK_SHIFT;
	unsigned long end = pfn + PGTAG_CHUNK_PAGES;
	struct page *page;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		return false;
	for (; pfn < end; pfn++) {
		if (!pfn_valid(pfn))
			continue;
		/* Memory offlined earlier has its memmap poisoned (DEBUG_VM). */
		page = pfn_to_page(pfn);
		if (!PagePoisoned(page) && PageHWPoison(page))
			return true;
	}
	return false;
}

/*
 * Chunks for memory going online; a larger directory if need be.  Every
 * page that the allocator may hand out must have its slot (see
 * pgtag_slot()): -ENOMEM, and the memory stays offline, if the directory
 * cannot grow or a chunk cannot be allocated.  Chunks allocated before
 * the failure are freed by the MEM_CANCEL_ONLINE that follows.
 */
static int pgtag_cover(unsigned long start, unsigned long nr_pages, int nid)
{
	unsigned long c, first = start >> PGTAG_CHUNK_SHIFT;
	unsigned long end = DIV_ROUND_UP(start + nr_pages, PGTAG_CHUNK_PAGES);
	struct pgtag_dir *dir, *old;

	mutex_lock(&pgtag_dir_lock);
	old = pgtag_dir;
	/* Until the first switch-on, pgtag_first_on() will cover it. */
	if (old == &pgtag_dir_none)
		goto out;
	if (end > old->nr) {
		dir = alloc_hooks_tag(ALLOC_TAG_NONE,
				      kvzalloc_noprof(struct_size(dir, chunk, end),
						      GFP_KERNEL));
		if (!dir)
			goto fail;
		dir->nr = end;
		memcpy(dir->chunk, old->chunk, old->nr * sizeof(old->chunk[0]));
		/* Lookups may still read the old one: it is kept. */
		smp_store_release(&pgtag_dir, dir);
		kmemleak_not_leak(old);
	}
	dir = pgtag_dir;
	for (c = first; c < end; c++)
		if (pgtag_chunk_add(dir, c, nid))
			goto fail;
out:
	mutex_unlock(&pgtag_dir_lock);
	return 0;
fail:
	mutex_unlock(&pgtag_dir_lock);
	pr_err("page tags: no memory to cover pfns %#lx-%#lx: memory not onlined\n",
	       start, start + nr_pages - 1);
	return -ENOMEM;
}

/*
 * Memory that went offline, or failed to go online, drops its pages' tag
 * numbers in either storage.  Offlining leaves charged only pages that it
 * could not free (an in-use hardware-poisoned page): their number would
 * otherwise be taken for a new allocation's when the memory is onlined
 * again, in the array, or cleared with the memmap, in page->flags.  The
 * charges stay, said once here: a page's size is not known from its slot.
 * Then chunks of which no memory is online any more are freed; no hook
 * can be looking at one of their pages (see pgtag_slot()), unless they
 * cover a hardware-poisoned page, whose free would find no slot.
 */
static void pgtag_uncover(unsigned long start, unsigned long nr_pages)
{
	unsigned long pfn, c, last, end = start + nr_pages, charged = 0;
	struct pgtag_dir *dir;
	size_t freed = 0;
	u32 *chunk;

	mutex_lock(&pgtag_dir_lock);
	dir = pgtag_dir;
	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		if (!pgtag_in_array()) {
			if (pgtag_get(page)) {
				charged++;
				pgtag_set(page, 0);
			}
			continue;
		}
		/* After a failed pgtag_cover(), some chunks may be missing. */
		c = pfn >> PGTAG_CHUNK_SHIFT;
		chunk = c < dir->nr ? dir->chunk[c] : NULL;
		if (chunk && chunk[pfn & (PGTAG_CHUNK_PAGES - 1)]) {
			charged++;
			WRITE_ONCE(chunk[pfn & (PGTAG_CHUNK_PAGES - 1)], 0);
		}
	}
	last = pgtag_in_array() ?
	       min(dir->nr, DIV_ROUND_UP(end, PGTAG_CHUNK_PAGES)) : 0;
	for (c = start >> PGTAG_CHUNK_SHIFT; c < last; c++) {
		chunk = dir->chunk[c];
		if (!chunk || pgtag_chunk_online(c) || pgtag_chunk_poisoned(c))
			continue;
		WRITE_ONCE(dir->chunk[c], NULL);
		kvfree(chunk);
		atomic_long_dec(&pgtag_chunks);
		freed += PGTAG_CHUNK_BYTES;
	}
	mutex_unlock(&pgtag_dir_lock);
	if (charged)
		pr_warn("page tags: %lu charged pages in pfns %#lx-%#lx went offline; their charges stay\n",
			charged, start, end - 1);
	if (freed)
		pr_info("page tags: %zu bytes of slots for pfns %#lx-%#lx freed, %zu in use\n",
			freed, start, end - 1, pgtag_array_bytes());
}

static int pgtag_memory_callback(struct notifier_block *nb,
				 unsigned long action, void *arg)
{
	struct memory_notify *mn = arg;
	int nid;

	switch (action) {
	case MEM_GOING_ONLINE:
		if (!pgtag_in_array())
			break;
		nid = page_to_nid(pfn_to_page(mn->start_pfn));
		return notifier_from_errno(pgtag_cover(mn->start_pfn,
						       mn->nr_pages, nid));
	case MEM_OFFLINE:
	case MEM_CANCEL_ONLINE:
		pgtag_uncover(mn->start_pfn, mn->nr_pages);
		break;
	}
	return NOTIFY_OK;
}

static void __init pgtag_hotplug_init(void)
{
	hotplug_memory_notifier(pgtag_memory_callback, 0);
}
#else
static inline void pgtag_hotplug_init(void) {}
#endif /* CONFIG_MEMORY_HOTPLUG */

/* Say where page tags live and why. */
static int __init pgtag_storage_init(void)
{
	if (mem_profiling_never) {
		pr_info("page tags: none, profiling disabled with 'never'\n");
		return 0;
	}
	pgtag_hotplug_init();
	if (!pgtag_in_array()) {
		pr_info("page tags: %d bits of page->flags, no per-page memory (%u numbers for modules)\n",
			ALLOC_TAG_WIDTH, pgtag_mod_limit);
		return 0;
	}
	if (ALLOC_TAG_WIDTH)
		pr_notice("page tags: %d bits of page->flags cannot number %u vmlinux tags and %u for modules: using the array\n",
			  ALLOC_TAG_WIDTH, nr_vmlinux_tags(), PGTAG_MOD_RESERVE);
	if (READ_ONCE(pgtag_dir) == &pgtag_dir_none)
		pr_info("page tags: an array of 4 bytes per page frame, allocated when profiling is first switched on\n");
	return 0;
}
early_initcall(pgtag_storage_init);

static size_t pgtag_array_bytes(void)
{
	const struct pgtag_dir *dir = READ_ONCE(pgtag_dir);

	if (dir == &pgtag_dir_none)
		return 0;
	return atomic_long_read(&pgtag_chunks) * PGTAG_CHUNK_BYTES +
	       struct_size(dir, chunk, dir->nr);
}

/* ---------------------------------------------------------------------- */
/* /proc/allocinfo                                                         */

struct allocinfo_private {
	struct codetag_iterator iter;
	loff_t pos;			/* seq_file position of iter.ct */
	struct alloc_tag_query *query;	/* the ioctl's (lib/alloc_tag_ioctl.c) */
	const char *header;
	void (*show)(struct seq_file *m, struct alloc_tag *tag,
		     const struct codetag_range *range);
};

static void *allocinfo_start(struct seq_file *m, loff_t *pos)
{
	struct allocinfo_private *priv = m->private;

	codetag_lock_module_list(alloc_tag_cttype);
	if (*pos == 0) {
		alloc_tag_released_check();
		return SEQ_START_TOKEN;
	}
	/*
	 * Resume where the last read() stopped; anything else walks anew.
	 * The tag it stopped at may have gone with its module since.
	 */
	if (!priv->iter.ct || *pos < priv->pos) {
		priv->iter = codetag_get_ct_iter(alloc_tag_cttype);
		priv->pos = 0;
	} else {
		/* Look the position up again (see codetag_next_ct()). */
		priv->iter.ct = NULL;
		if (!codetag_next_ct(&priv->iter))
			return NULL;
	}
	while (priv->pos < *pos) {
		if (!codetag_next_ct(&priv->iter))
			return NULL;
		priv->pos++;
	}
	return priv->iter.ct;
}

static void *allocinfo_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct allocinfo_private *priv = m->private;

	(*pos)++;
	if (v == SEQ_START_TOKEN) {
		priv->iter = codetag_get_ct_iter(alloc_tag_cttype);
		priv->pos = 0;
	}
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
		priv->show(m, container_of((struct codetag *)v,
					   struct alloc_tag, ct),
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
 * The file's proc_ops use seq_read(), seq_lseek() and
 * alloc_tag_seq_release().
 *
 * Return: 0, -ENODEV if the tag type could not be registered at boot, or
 * -ENOMEM.
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

/**
 * alloc_tag_seq_release() - release a file of alloc_tag_seq_open()
 * @inode: its inode
 * @file: the file
 *
 * Return: 0.
 */
int alloc_tag_seq_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct allocinfo_private *priv = m->private;

	alloc_tag_ioctl_release(priv->query);
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

	return alloc_tag_ioctl(alloc_tag_cttype, &priv->query, cmd, arg);
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

/*
 * Changes whenever the list of tags does: when a module with tags loads,
 * goes, or has its tags released.  Under the module list lock taken for
 * writing, where the module callbacks run.
 */
static u64 alloc_tag_content;

/**
 * alloc_tag_content_id() - a value that changes with the list of tags
 *
 * Return: the current value; compare it with an earlier one.
 */
u64 alloc_tag_content_id(void)
{
	return READ_ONCE(alloc_tag_content);
}

/* ---------------------------------------------------------------------- */
/* Memory reports (OOM, SysRq-m)                                           */

#define SHOW_TOP_MAX	10

struct show_top {
	struct alloc_tag *tag;
	const char *modname;
	u64 bytes;
	u64 calls;
};

static void show_top_consider(struct show_top *top, unsigned int n,
			      struct alloc_tag *tag, const char *modname)
{
	struct alloc_tag_counters c = alloc_tag_read(tag);
	unsigned int i;

	if (!c.bytes || c.bytes <= top[n - 1].bytes)
		return;
	for (i = n - 1; i > 0 && top[i - 1].bytes < c.bytes; i--)
		top[i] = top[i - 1];
	top[i].tag = tag;
	top[i].modname = modname;
	top[i].bytes = c.bytes;
	top[i].calls = c.calls;
}

static void show_top_print(struct show_top *top, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && top[i].tag; i++) {
		struct codetag *ct = &top[i].tag->ct;

		pr_notice("%12llu %8llu %s:%u%s%s%s func:%s\n",
			  top[i].bytes, top[i].calls, ct->filename, ct->lineno,
			  top[i].modname ? " [" : "",
			  top[i].modname ? top[i].modname : "",
			  top[i].modname ? "]" : "", ct->function);
	}
}

/**
 * alloc_tag_show_mem() - print the call sites holding the most memory
 *
 * Part of the kernel's memory report (OOM, SysRq-m).  Allocates nothing and
 * never sleeps: it reads the vmlinux tags directly, and the module tags
 * only outside interrupts and if their lock is free right now.
 */
void alloc_tag_show_mem(void)
{
	/* An OOM on another CPU may come before the initcall sets it. */
	struct codetag_type *cttype = READ_ONCE(alloc_tag_cttype);
	struct show_top top[SHOW_TOP_MAX] = { };
	struct alloc_tag *tag;
	bool modules = false;

	if (!mem_alloc_profiling_ever_enabled() || !cttype)
		return;
	for (tag = __start_alloc_tags; tag < __stop_alloc_tags; tag++)
		show_top_consider(top, SHOW_TOP_MAX, tag, NULL);
	if (!in_interrupt() && codetag_trylock_module_list(cttype)) {
		struct codetag_iterator iter = codetag_get_ct_iter(cttype);
		struct codetag *ct;

		modules = true;
		while ((ct = codetag_next_ct(&iter))) {
			if (!iter.range->modname[0])
				continue;
			show_top_consider(top, SHOW_TOP_MAX,
					  container_of(ct, struct alloc_tag, ct),
					  iter.range->modname);
		}
	}
	pr_notice("Memory allocations by call site (top %d%s):\n", SHOW_TOP_MAX,
		  modules ? "" : ", modules not included");
	pr_notice("%12s %8s %s\n", "bytes", "calls", "call site");
	show_top_print(top, SHOW_TOP_MAX);
	if (modules)
		codetag_unlock_module_list(cttype);
	alloc_tag_print_metadata();
}

/* ---------------------------------------------------------------------- */
/* Modules                                                                 */

/* Told of tags about to be released: call-stack capture, when built. */
static void (*alloc_tag_release_fn)(struct alloc_tag *tags, size_t n) __ro_after_init;

/**
 * alloc_tag_on_release() - be told when a module's tags are released
 * @fn: called with a module's tags once nothing is charged to them any
 *	more, before they are released, with the lock of
 *	alloc_tag_lock_sites() held for writing
 *
 * Context: boot, from an initcall; one user.
 */
void __init alloc_tag_on_release(void (*fn)(struct alloc_tag *tags, size_t n))
{
	WARN_ON_ONCE(alloc_tag_release_fn);
	alloc_tag_release_fn = fn;
}

static size_t range_tags(struct codetag_range *range, struct alloc_tag **first)
{
	*first = container_of(range->start, struct alloc_tag, ct);
	return (struct alloc_tag *)range->stop - *first;
}

/*
 * Tags get their counters from the dynamic per-CPU area when profiling is
 * first switched on, or when a module loads after that: a kernel that
 * never switches profiling on has none.  They come in blocks of up to
 * PCPU_TAG_BLOCK tags, the per-CPU allocator's largest allocation.
 */
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

/*
 * alloc_tag_counters_alloc() - give @n tags their per-CPU counters
 * @tags: the first tag
 * @n: how many
 *
 * Context: process context.
 * Return: 0, or -ENOMEM with no counters allocated.
 */
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

/* Counters and page-tag numbers for the tags of a module. */
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
	return 0;
}

static int alloc_tag_module_load(struct codetag_type *cttype,
				 struct codetag_range *range)
{
	WRITE_ONCE(alloc_tag_content, alloc_tag_content + 1);
	/*
	 * Until the first switch-on, which gives the tags of the modules
	 * loaded then what they need, nothing (see alloc_tag_first_on()).
	 */
	if (!mem_alloc_profiling_ever_enabled())
		return 0;
	return alloc_tag_module_attach(range);
}

/*
 * Undo alloc_tag_modules_on() for the modules before @until (NULL: all).
 * Under the module list lock.
 */
static void alloc_tag_modules_off(struct codetag_range *until)
{
	struct codetag_iterator iter = codetag_get_ct_iter(alloc_tag_cttype);
	struct alloc_tag *tags;
	struct codetag *ct;
	size_t n;

	while ((ct = codetag_next_ct(&iter)) && iter.range != until) {
		if (!iter.range->mod || ct != iter.range->start)
			continue;
		n = range_tags(iter.range, &tags);
		pgtag_unregister_module(tags, n);
		alloc_tag_counters_free(tags, n, NULL);
	}
}

/*
 * Counters and page-tag numbers for the tags of the modules loaded before
 * the first switch-on, which have none yet.  Under the module list lock.
 */
static int alloc_tag_modules_on(void)
{
	struct codetag_iterator iter = codetag_get_ct_iter(alloc_tag_cttype);
	struct codetag_range *range = NULL;
	struct codetag *ct;

	while ((ct = codetag_next_ct(&iter))) {
		if (iter.range == range)
			continue;
		range = iter.range;
		if (range->mod && alloc_tag_module_attach(range)) {
			alloc_tag_modules_off(range);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * What profiling needs from its first switch-on: the page-tag array if
 * page tags live there, counters for every tag, page-tag numbers for the
 * tags of modules, the caches of slab tag vectors, and tag vectors for the
 * per-CPU allocator's chunks.  Then mem_alloc_profiling_ever_key, from
 * which module loads give their tags the same, and frees look for tags.
 * The module list lock, taken for writing, keeps module loads out
 * meanwhile, and the readers of /proc/allocinfo, which must not see
 * counters that a failure frees again.  -ENOMEM, and
 * profiling stays off, if any of it cannot be allocated (a tag vector of
 * a per-CPU chunk is retried later instead).  Under mem_profiling_mutex.
 */
static int alloc_tag_first_on(void)
{
	u32 n = nr_vmlinux_tags();
	int err;

	err = pgtag_first_on();
	if (err)
		return err;
	alloc_tag_nodes_on(n);
	if (alloc_tag_cttype)
		codetag_lock_module_list_write(alloc_tag_cttype);
	err = alloc_tag_counters_alloc(__start_alloc_tags, n);
	if (err) {
		pr_err("no memory for the counters of %u tags: profiling stays off\n",
		       n);
		goto out;
	}
	if (alloc_tag_cttype) {
		err = alloc_tag_modules_on();
		if (err)
			goto free_vmlinux;
	}
	err = slab_tags_init();
	if (err)
		goto free_modules;
	/* From the ever key on, new per-CPU chunks get tag vectors too. */
	static_branch_enable(&mem_alloc_profiling_ever_key);
	pcpu_alloc_tags_fill();
	goto out;

free_modules:
	if (alloc_tag_cttype)
		alloc_tag_modules_off(NULL);
free_vmlinux:
	alloc_tag_counters_free(__start_alloc_tags, n, NULL);
out:
	if (alloc_tag_cttype)
		codetag_unlock_module_list_write(alloc_tag_cttype);
	if (err)
		pgtag_first_off();
	return err;
}

/*
 * Modules unloaded with allocations charged to their tags.  Many of those
 * are frees still on their way: kfree_rcu() in a module's exit function
 * frees after a grace period and up to 5 seconds of batching, call_rcu()
 * after a grace period.  So the "still live" message waits for both
 * (ALLOC_TAG_UNLOAD_GRACE, then rcu_barrier()) and names only modules
 * whose allocations outlive that.  Entries are added and removed under the
 * type's lock held for writing (the module_unload callback); the report
 * reads them under it held for reading.
 */
#define ALLOC_TAG_UNLOAD_GRACE	(10 * HZ)

struct alloc_tag_unloaded {
	struct list_head node;
	struct codetag_range *range;
	bool reported;		/* "still live" printed; written by the report */
};

static LIST_HEAD(alloc_tag_unloaded_list);

static bool alloc_tag_range_live(struct codetag_range *range)
{
	s64 bytes = 0, calls = 0;
	struct alloc_tag *tags;
	size_t i, n = range_tags(range, &tags);

	for (i = 0; i < n; i++) {
		s64 b, c;

		alloc_tag_sum(&tags[i], &b, &c);
		bytes |= b;
		calls |= c;
	}
	return bytes || calls;
}

static void alloc_tag_say_live(struct codetag_range *range)
{
	struct alloc_tag *tags;

	pr_info("module %s unloaded with allocations still live; keeping its %zu tags\n",
		range->modname, range_tags(range, &tags));
}

static void alloc_tag_unloaded_report(struct work_struct *work)
{
	struct alloc_tag_unloaded *u;

	rcu_barrier();
	codetag_lock_module_list(alloc_tag_cttype);
	list_for_each_entry(u, &alloc_tag_unloaded_list, node) {
		if (u->reported || !alloc_tag_range_live(u->range))
			continue;
		alloc_tag_say_live(u->range);
		u->reported = true;
	}
	codetag_unlock_module_list(alloc_tag_cttype);
}

static DECLARE_DELAYED_WORK(alloc_tag_unloaded_work, alloc_tag_unloaded_report);

static struct alloc_tag_unloaded *alloc_tag_unloaded_find(struct codetag_range *range)
{
	struct alloc_tag_unloaded *u;

	list_for_each_entry(u, &alloc_tag_unloaded_list, node)
		if (u->range == range)
			return u;
	return NULL;
}

/*
 * Are allocations charged to the module's tags still live?  No new ones
 * can be made once the module is gone, so a sum of zero stays zero: then
 * its counters and page-tag numbers are given back.
 */
static bool alloc_tag_module_unload(struct codetag_type *cttype,
				    struct codetag_range *range)
{
	struct alloc_tag_unloaded *u;
	struct alloc_tag *tags;
	size_t n = range_tags(range, &tags);

	/* The module goes (first call: @range->mod still set) or its tags. */
	if (range->mod)
		WRITE_ONCE(alloc_tag_content, alloc_tag_content + 1);
	if (alloc_tag_range_live(range)) {
		if (!range->mod)
			return true;
		u = kzalloc(sizeof(*u), GFP_KERNEL);
		if (!u) {
			/* Say it now, as nothing will later. */
			alloc_tag_say_live(range);
			return true;
		}
		u->range = range;
		list_add(&u->node, &alloc_tag_unloaded_list);
		mod_delayed_work(system_wq, &alloc_tag_unloaded_work,
				 ALLOC_TAG_UNLOAD_GRACE);
		return true;
	}
	if (!range->mod) {
		WRITE_ONCE(alloc_tag_content, alloc_tag_content + 1);
		u = alloc_tag_unloaded_find(range);
		if (!u || u->reported)
			pr_info("%s: every allocation of the unloaded module is freed; its tags are released\n",
				range->modname);
		if (u) {
			list_del(&u->node);
			kfree(u);
		}
	}
	if (alloc_tag_release_fn)
		alloc_tag_release_fn(tags, n);
	pgtag_unregister_module(tags, n);
	alloc_tag_counters_free(tags, n, &alloc_tag_released);
	alloc_tag_released_check();
	return false;
}

/* ---------------------------------------------------------------------- */
/* Debugging                                                               */

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
 * alloc_tag_report_untagged() - an allocation reached the allocator untagged
 * @caller: return address identifying the call site
 *
 * Warns once per call site (for the first 64 sites).
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

#ifdef PGALLOC_REPORT_UNTAGGED
/*
 * A page allocation has no caller address at hand, so the stack is walked:
 * the function that called the outermost allocator entry point (a
 * __noprof_text function, see in_noprof_functions()) is the one that
 * lacks the annotation; a module's own _noprof helper is not one.  Each
 * distinct stack is looked at once: stackdepot gives equal stacks the same
 * handle, and the first UNTAGGED_PAGE_STACKS handles are remembered.
 * Limits: a _noprof function reached by a tail call leaves no frame, so
 * the caller's caller is named; an untagged allocation in an interrupt that
 * hit a _noprof call of the task is blamed on the task's caller.
 */
#define UNTAGGED_PAGE_FRAMES	32
#define UNTAGGED_PAGE_STACKS	256
static depot_stack_handle_t untagged_page_stacks[UNTAGGED_PAGE_STACKS];
static unsigned int untagged_page_nr_stacks;

/* Remember @handle; false if it was seen before or there is no room. */
static bool untagged_page_stack_new(depot_stack_handle_t handle)
{
	unsigned long flags;
	bool new = false;
	unsigned int i;

	raw_spin_lock_irqsave(&untagged_lock, flags);
	for (i = 0; i < untagged_page_nr_stacks; i++)
		if (untagged_page_stacks[i] == handle)
			break;
	if (i == untagged_page_nr_stacks && i < UNTAGGED_PAGE_STACKS) {
		untagged_page_stacks[i] = handle;
		WRITE_ONCE(untagged_page_nr_stacks, i + 1);
		new = true;
	}
	raw_spin_unlock_irqrestore(&untagged_lock, flags);
	if (new && i + 1 == UNTAGGED_PAGE_STACKS)
		pr_warn("%d distinct stacks of untagged page allocations seen; no more are reported\n",
			UNTAGGED_PAGE_STACKS);
	return new;
}

static noinline __cold void pgalloc_report_untagged(void)
{
	unsigned long entries[UNTAGGED_PAGE_FRAMES];
	depot_stack_handle_t handle;
	unsigned int n, i;

	if (READ_ONCE(untagged_page_nr_stacks) >= UNTAGGED_PAGE_STACKS)
		return;
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	/*
	 * stackdepot's alloc_pages() has a tag of its own (lib/stackdepot.c),
	 * so the pages it takes here are charged there and do not come back
	 * to this report.
	 */
	handle = stack_depot_save(entries, n, GFP_NOWAIT | __GFP_NOWARN);
	if (!handle || !untagged_page_stack_new(handle))
		return;
	for (i = n; i-- > 1;) {
		if (in_noprof_functions(entries[i - 1])) {
			alloc_tag_report_untagged(entries[i]);
			return;
		}
	}
}
#endif /* PGALLOC_REPORT_UNTAGGED */
#endif /* CONFIG_MEM_ALLOC_PROFILING_DEBUG */

/* ---------------------------------------------------------------------- */

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
	/*
	 * After "never" no write can change anything: a write fails with
	 * EACCES, and so does the boot's own (do_sysctl_args() logs it).
	 */
	if (mem_profiling_never)
		mem_profiling_table[0].mode = 0444;
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

/* Before any module can load: its tags need counters from the start. */
core_initcall(alloc_tag_init);

#ifdef CONFIG_MEM_ALLOC_PROFILING_KUNIT_TEST
#include "alloc_tag_kunit.c"
#endif /* CONFIG_MEM_ALLOC_PROFILING_KUNIT_TEST */
