// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling core: tag counters, page tags, /proc/allocinfo
 * and vm.mem_profiling.  The allocators charge through the hooks in mm/.
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

/* vm.mem_profiling and its boot parameter */

/* "never": profiling was refused at boot and cannot be switched on. */
static bool mem_profiling_never;
/* Whether to switch profiling on at the end of mm_init(). */
static bool mem_profiling_boot_on __initdata =
	IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT);
static DEFINE_MUTEX(mem_profiling_mutex);

static int alloc_tag_first_on(void);

/* The first switch-on also allocates what profiling needs. */
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
 * do_sysctl_args() applies this only after the initcalls: read it early so
 * that it holds from mm_init() on and "never" allocates nothing.
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
	pgtag_setup();
	if (!mem_profiling_boot_on)
		return;
	mutex_lock(&mem_profiling_mutex);
	if (mem_profiling_set(true))
		pr_err("cannot switch profiling on at boot: it stays off\n");
	mutex_unlock(&mem_profiling_mutex);
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
/* 0 or 1; read-only after "never", as in mainline (alloc_tag_init()). */
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
	/* Accept the boot's "1,nodes" from do_sysctl_args(). */
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

/* Reading the counters */

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

/* Warn once if a released tag was charged.  Any context. */
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
	struct alloc_tag_counters v;
	s64 bytes, calls;

	alloc_tag_sum(tag, &bytes, &calls);
	v.bytes = max_t(s64, bytes, 0);
	v.calls = max_t(s64, calls, 0);
	return v;
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

static atomic_long_t alloc_tag_metadata_failures;

/**
 * alloc_tag_metadata_failed() - no memory to record an object's tag
 * @tag: the tag the object should have been charged to
 *
 * The object is handed out uncharged: mark @tag "accurate:no" in
 * /proc/allocinfo and log the first such failure.
 *
 * Context: any context.
 */
void alloc_tag_metadata_failed(struct alloc_tag *tag)
{
	/* Other bits change concurrently: replace this one only. */
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

/* Page-tag numbers */

/*
 * See "Charging and numbers" in
 * Documentation/mm/allocation-profiling-design.rst.  The module table only
 * grows and replaced tables are kept, so a page's free looks its tag up
 * without RCU, whose read side is a call on preemptible kernels.
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

/* Number a module's tags; tags left without a number charge no pages. */
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

/* Page tags */

/*
 * Page tags live in the page->flags field of <linux/page-flags-layout.h> if
 * it numbers every vmlinux tag and PGTAG_MOD_RESERVE module tags, else in
 * an array of 4 bytes per page frame.
 */
#define PGTAG_FLAGS_MASK	(ALLOC_TAG_WIDTH ?				\
				 GENMASK(ALLOC_TAG_PGOFF + ALLOC_TAG_WIDTH - 1, \
					 ALLOC_TAG_PGOFF) : 0UL)
#define PGTAG_MOD_RESERVE	4096

/*
 * The array: chunks of PGTAG_CHUNK_PAGES slots behind a directory indexed
 * by pfn / PGTAG_CHUNK_PAGES, for online memory from the first switch-on
 * on.  A replaced directory is kept, so lookups need no lock.
 */
#define PGTAG_CHUNK_SHIFT	15
#define PGTAG_CHUNK_PAGES	BIT(PGTAG_CHUNK_SHIFT)
#define PGTAG_CHUNK_BYTES	(PGTAG_CHUNK_PAGES * sizeof(u32))

struct pgtag_dir {
	unsigned long nr;		/* chunks it can point to */
	u32 *chunk[];
};

/* pgtag_dir: empty until the first switch-on in array mode; no hook before. */
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
 * The array slot of @page, or NULL.  Hooks see only pages of online memory
 * after the first switch-on, and such memory has its chunk: pgtag_first_on()
 * and pgtag_cover() allocate it or fail, and pgtag_uncover() frees a chunk
 * only when no hook can be at work on its pages (offlining waits until they
 * are free, after their free hook), keeping chunks with an in-use
 * hardware-poisoned page.  The bound and chunk are tested anyway: a page
 * breaking this rule warns and goes uncharged, not a stray write.
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
 * False if @page has no slot; pgtag_mod_limit keeps @idx within the flags
 * field.  A page being allocated (!@in_use) is held by nobody else: plain
 * store, as prep_new_page() does for PG_head.  In use, other flag bits may
 * change meanwhile: cmpxchg.
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

/* Out of line, so that without consumers the hook calls and saves nothing. */
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
 * Read and clear the number of a page being freed.  Its refcount is 0, so
 * only memory_failure() (PG_hwpoison) can race with the plain store, as it
 * can with free_pages_prepare()'s.
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

/* Out of line for the same reason as pgalloc_tag_extras_add(). */
static noinline void pgtag_uncharge_extras(struct alloc_tag *tag, u32 idx,
					   unsigned int nr, bool first,
					   struct page *page)
{
	/*
	 * Before the uncharge: once its sum is zero, an unloaded module's tag
	 * may be released and its number given to another tag.
	 */
	if (first)
		alloc_tag_capture_sub(tag, (unsigned long)page);
	alloc_tag_node_add(idx, page_to_nid(page), -((long)nr << PAGE_SHIFT), first ? -1 : 0);
	alloc_tag_counters_add(tag, -((s64)nr << PAGE_SHIFT), first ? -1 : 0);
}

/*
 * Uncharge @nr pages of number @idx; with @first also the call and the
 * stack captured for the block, keyed by its first page @page.
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

void __pgalloc_tag_swap(struct page *dst, struct page *src, unsigned int nr)
{
	u32 didx, sidx;

	if (is_zone_device_page(dst) || is_zone_device_page(src))
		return;
	didx = pgtag_get(dst);
	sidx = pgtag_get(src);

	/* Both pages are in use: other flags may change, use pgtag_set(). */
	pgtag_set(dst, sidx);
	pgtag_set(src, didx);
	alloc_tag_node_add(sidx, page_to_nid(src), -((long)nr << PAGE_SHIFT), -1);
	alloc_tag_node_add(sidx, page_to_nid(dst), (long)nr << PAGE_SHIFT, 1);
	alloc_tag_node_add(didx, page_to_nid(dst), -((long)nr << PAGE_SHIFT), -1);
	alloc_tag_node_add(didx, page_to_nid(src), (long)nr << PAGE_SHIFT, 1);
	if (alloc_tag_capture_enabled()) {
		struct alloc_tag *stag = sidx ? alloc_tag_from_index(sidx) : NULL;
		struct alloc_tag *dtag = didx ? alloc_tag_from_index(didx) : NULL;

		if (alloc_tag_capture_selected(stag) ||
		    alloc_tag_capture_selected(dtag))
			__alloc_tag_capture_page_swap(dst, src);
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

/* Number the vmlinux tags, choose page-tag storage.  Allocates nothing. */
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

/*
 * Does chunk @c cover online memory?  Asked of the sections, not of their
 * pages: a section's first pages may be a hole, and at boot deferred
 * memmap init may not have initialized its struct pages yet.
 */
static bool pgtag_chunk_online(unsigned long c)
{
	unsigned long pfn = c << PGTAG_CHUNK_SHIFT;
	unsigned long end = pfn + PGTAG_CHUNK_PAGES;

#ifdef CONFIG_SPARSEMEM
	for (; pfn < end && pfn_to_section_nr(pfn) < NR_MEM_SECTIONS;
	     pfn = ALIGN(pfn + 1, PAGES_PER_SECTION))
		if (online_section_nr(pfn_to_section_nr(pfn)))
			return true;
	return false;
#else
	/* One range of page frames, with its holes in the memmap. */
	pfn = max_t(unsigned long, pfn, ARCH_PFN_OFFSET);
	return pfn < end && pfn_valid(pfn);
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
 * Array mode: directory and chunks for the memory online now, before any
 * page is charged; all or nothing.  Hotplug waits meanwhile.
 */
static int pgtag_first_on(void)
{
	unsigned long c, nr;
	struct pgtag_dir *dir;
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
	for (c = 0; !err && c < nr; c++)
		if (pgtag_chunk_online(c))
			err = pgtag_chunk_add(dir, c, pgtag_chunk_nid(c));
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
/* Does chunk @c cover a hardware-poisoned page, which may yet be freed? */
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
		/* Offlined memory has its memmap poisoned (DEBUG_VM). */
		page = pfn_to_page(pfn);
		if (!PagePoisoned(page) && PageHWPoison(page))
			return true;
	}
	return false;
}

/*
 * Memory going online needs its chunks (see pgtag_slot()): -ENOMEM keeps it
 * offline, and MEM_CANCEL_ONLINE frees what was allocated.
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
 * Memory went offline or failed to: clear its pages' numbers, so that stale
 * ones do not come back with it.  In-use hardware-poisoned pages keep their
 * charge (a slot gives no size), logged.  Then free the chunks with no
 * online memory left, unless they cover such a page.
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

/* /proc/allocinfo */

struct allocinfo_private {
	struct codetag_iterator iter;
	loff_t pos;			/* seq_file position of iter.ct */
	struct alloc_tag_query *query;	/* for lib/alloc_tag_ioctl.c */
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
	/* Resume where the last read() stopped; its tag may have gone since. */
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

/**
 * alloc_tag_seq_release() - release a file of alloc_tag_seq_open()
 * @inode: its inode
 * @file: the file
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

/* Bumped on module load, unload and tag release; module list lock (write). */
static u64 alloc_tag_content;

/**
 * alloc_tag_content_id() - a value that changes with the list of tags
 */
u64 alloc_tag_content_id(void)
{
	return READ_ONCE(alloc_tag_content);
}

/* Memory reports (OOM, SysRq-m) */

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
 * For OOM and SysRq-m reports: allocates nothing, never sleeps; module tags
 * only outside interrupts and if their lock is free.
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

/* Modules */

/* Told of tags about to be released: call-stack capture, when built. */
static void (*alloc_tag_release_fn)(struct alloc_tag *tags, size_t n) __ro_after_init;

/**
 * alloc_tag_on_release() - be told when a module's tags are released
 * @fn: called with a module's tags once nothing is charged to them, before
 *	their release, under alloc_tag_lock_sites()'s lock held for writing
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
	/* Before the first switch-on, alloc_tag_modules_on() attaches it. */
	if (!mem_alloc_profiling_ever_enabled())
		return 0;
	return alloc_tag_module_attach(range);
}

/* Undo alloc_tag_modules_on() up to @until (NULL: all); module list lock. */
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

/* Attach the modules loaded before the first switch-on; module list lock. */
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
 * See "The first switch-on" in allocation-profiling-design.rst.  The module
 * list lock, held for writing, keeps out module loads and allocinfo readers,
 * which must not see counters a failure frees again.  -ENOMEM leaves
 * profiling off (a per-CPU chunk's vector is retried later instead).
 * Under mem_profiling_mutex.
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
 * Modules unloaded with allocations live.  Many are frees on their way:
 * kfree_rcu() batches up to 5 s before a grace period, call_rcu() waits for
 * one; so "still live" is said only after ALLOC_TAG_UNLOAD_GRACE and
 * rcu_barrier().  The list changes under the type's lock held for writing
 * (module_unload callback) and is read under it held for reading.
 */
#define ALLOC_TAG_UNLOAD_GRACE	(10 * HZ)

struct alloc_tag_unloaded {
	struct list_head node;
	struct codetag_range *range;
	bool reported;		/* "still live" said; set by the report */
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

/* Release the tags unless charged; after the unload a zero sum stays zero. */
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

/* Debugging */

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

#ifdef PGALLOC_REPORT_UNTAGGED
/*
 * Name the caller of the outermost __noprof_text entry point, once per
 * distinct stack (see "Debugging" in allocation-profiling-design.rst).  A
 * module's _noprof helper is not one; an untagged allocation in an
 * interrupt that hit a task's _noprof call is blamed on the task's caller.
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
	 * stackdepot's own alloc_pages() has a tag (lib/stackdepot.c), so its
	 * pages are charged there and do not come back to this report.
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
	/* After "never" all writes fail (EACCES), also do_sysctl_args()'s. */
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

/* Before any module loads: modules loaded earlier would not be listed. */
core_initcall(alloc_tag_init);

#ifdef CONFIG_MEM_ALLOC_PROFILING_KUNIT_TEST
#include "alloc_tag_kunit.c"
#endif /* CONFIG_MEM_ALLOC_PROFILING_KUNIT_TEST */
