// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling: call stacks of chosen call sites.
 *
 * /proc/allocinfo names the line that allocated memory.  When that line is
 * in a helper with many callers, it does not say on whose behalf the
 * memory was allocated.  Here an operator selects one or a few call sites
 * (debugfs: allocinfo/capture); from then on every allocation charged to a
 * selected site also records its call stack, and allocinfo/stacks lists
 * each site's distinct stacks with the bytes and calls they still hold.
 *
 * Design:
 *
 * - A selected tag has ALLOC_TAG_CAPTURE and its site's number in
 *   codetag.flags.  The hooks (<linux/alloc_tag_capture.h>) test a static
 *   key, then that flag, and only then call in here.  Nothing else is
 *   touched for the sites that are not selected.
 * - The records live in a pool allocated when the first site is selected
 *   and sized by the cap, freed when the last one is deselected: the hooks
 *   never allocate records, so they work in any context, interrupts
 *   included, and records past the cap are counted as dropped.  A record
 *   per live object (keyed by the object's address, its struct page for
 *   pages, its per-CPU address for per-CPU memory) points to an aggregate
 *   per (site, stack) that holds the live bytes and calls of that stack.
 *   Both are found through hash tables of 32-bit indices.  One raw
 *   spinlock, taken with interrupts off, protects all of it; nothing is
 *   allocated, printed or called out under it.
 * - The stack is saved and handed to stackdepot before the lock is taken.
 *   The frames of the allocator itself are left out, so that a stack
 *   starts at the function that contains the selected line (for slab
 *   objects, the return address that the slab allocator was given; for
 *   pages and per-CPU memory, the frame after the outermost allocator
 *   entry point, told by its address: in_noprof_functions()).
 * - stackdepot may allocate a page, which is charged to its own line in
 *   lib/stackdepot.c.  Should that line (or any other reached from here)
 *   be selected, the nested capture is refused by a per-CPU guard with a
 *   bit per context level (task, softirq, hardirq), and counted as
 *   dropped: capture never recurses, and an interrupt that allocates
 *   while a task captures is still captured.
 * - Deselecting clears the flags first, then drops the site's records
 *   under the lock; the hooks check the flag again under the lock, so no
 *   record is added for a site after it was dropped.
 * - Module tags: when the tags of a module are released (unload with
 *   nothing live, or later, once its last allocation is freed), a site
 *   among them is deselected.
 */
#define pr_fmt(fmt) "alloc_tag: capture: " fmt

#include <linux/alloc_tag_capture.h>
#include <linux/capability.h>
#include <linux/codetag.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kasan.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

DEFINE_STATIC_KEY_FALSE(alloc_tag_capture_key);

/* Frames saved, and kept once the allocator's own are left out. */
#define CAPTURE_SAVE_FRAMES	40
#define CAPTURE_KEEP_FRAMES	16
/* Context levels that capture: task, softirq, hardirq (not NMI). */
#define CAPTURE_LEVELS		3
/*
 * What deselection and the snapshot do per hold of capture_lock: hash
 * buckets emptied, or stacks copied.  Each is a few memory accesses, so
 * that interrupts are never off for long whatever the cap.
 */
#define CAPTURE_STEP		256

#define CAPTURE_DEFAULT_CAP	4096
#define CAPTURE_MIN_CAP		16
#define CAPTURE_MAX_CAP		BIT(20)
#define CAPTURE_NIL		U32_MAX
#define CAPTURE_CMD_MAX		512

/* One live object of a selected site. */
struct capture_rec {
	unsigned long key;
	unsigned long bytes;
	u32 next;		/* in its hash chain, or in the free list */
	u32 stack;		/* its aggregate */
};

/* What the live objects of one (site, stack) hold. */
struct capture_stack {
	s64 bytes;
	s64 calls;		/* also the number of records pointing here */
	depot_stack_handle_t handle;
	u32 next;		/* in its hash chain, or in the free list */
	u8 site;
	bool used;
};

/* Everything the hooks touch, allocated with the first selected site. */
struct capture_pool {
	struct capture_rec *recs;
	struct capture_stack *stacks;
	u32 *rec_hash;
	u32 *stack_hash;
	u32 nr_recs, nr_stacks;
	unsigned int rec_bits, stack_bits;
	u32 rec_free, stack_free;
	u32 recs_used, stacks_used;
	/* Per CPU, the frames of a capture at each context level. */
	unsigned long (__percpu *frames)[CAPTURE_LEVELS][CAPTURE_SAVE_FRAMES];
	size_t bytes;
};

/* A selected site: one or more tags with the same file:line [module]. */
struct capture_site {
	bool used;			/* under capture_lock */
	unsigned int line;
	char *file;
	char *func;
	char mod[MODULE_NAME_LEN];
	struct alloc_tag **tags;
	unsigned int nr_tags;
	/* under capture_lock */
	u64 dropped;
	u32 records;
	u32 stacks;
};

/* Selection: the sites, the cap, the pool pointer. */
static DEFINE_MUTEX(capture_mutex);
/* The hooks: the pool's contents, sites' used flag and counters. */
static DEFINE_RAW_SPINLOCK(capture_lock);

static struct capture_site capture_sites[ALLOC_TAG_CAPTURE_MAX_SITES];
/* A site's slot is kept in the ALLOC_TAG_CAPTURE_SITE bits of its tags. */
static_assert(ALLOC_TAG_CAPTURE_MAX_SITES ==
	      (ALLOC_TAG_CAPTURE_SITE >> ALLOC_TAG_CAPTURE_SITE_SHIFT) + 1);
static struct capture_pool *capture_pool;
static unsigned int capture_nr_sites;
static u32 capture_cap = CAPTURE_DEFAULT_CAP;
static bool capture_depot_ready;

/* A bit per context level (task, softirq, hardirq) capturing on this CPU. */
static DEFINE_PER_CPU(u8, capture_busy);

/* ---------------------------------------------------------------------- */
/* The pool                                                                */

static u32 capture_stacks_for(u32 cap)
{
	return max_t(u32, CAPTURE_MIN_CAP, cap / 4);
}

static void capture_pool_free(struct capture_pool *pool)
{
	if (!pool)
		return;
	free_percpu(pool->frames);
	kvfree(pool->recs);
	kvfree(pool->stacks);
	kvfree(pool->rec_hash);
	kvfree(pool->stack_hash);
	kfree(pool);
}

/* Process context; charged to the lines below like any allocation. */
static struct capture_pool *capture_pool_alloc(u32 cap)
{
	struct capture_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	u32 i, nr_rec_hash, nr_stack_hash;

	if (!pool)
		return NULL;
	pool->nr_recs = cap;
	pool->nr_stacks = capture_stacks_for(cap);
	pool->rec_bits = ilog2(roundup_pow_of_two(pool->nr_recs));
	pool->stack_bits = ilog2(roundup_pow_of_two(pool->nr_stacks));
	nr_rec_hash = 1U << pool->rec_bits;
	nr_stack_hash = 1U << pool->stack_bits;
	pool->recs = kvmalloc_array(pool->nr_recs, sizeof(*pool->recs),
				    GFP_KERNEL);
	pool->stacks = kvcalloc(pool->nr_stacks, sizeof(*pool->stacks),
				GFP_KERNEL);
	pool->rec_hash = kvmalloc_array(nr_rec_hash, sizeof(u32), GFP_KERNEL);
	pool->stack_hash = kvmalloc_array(nr_stack_hash, sizeof(u32),
					  GFP_KERNEL);
	pool->frames = alloc_percpu(typeof(*pool->frames));
	if (!pool->recs || !pool->stacks || !pool->rec_hash ||
	    !pool->stack_hash || !pool->frames) {
		capture_pool_free(pool);
		return NULL;
	}
	memset(pool->rec_hash, 0xff, nr_rec_hash * sizeof(u32));
	memset(pool->stack_hash, 0xff, nr_stack_hash * sizeof(u32));
	for (i = 0; i < pool->nr_recs; i++)
		pool->recs[i].next = i + 1 < pool->nr_recs ? i + 1 : CAPTURE_NIL;
	for (i = 0; i < pool->nr_stacks; i++)
		pool->stacks[i].next = i + 1 < pool->nr_stacks ?
				       i + 1 : CAPTURE_NIL;
	pool->rec_free = 0;
	pool->stack_free = 0;
	pool->bytes = sizeof(*pool) +
		      pool->nr_recs * sizeof(*pool->recs) +
		      pool->nr_stacks * sizeof(*pool->stacks) +
		      (nr_rec_hash + nr_stack_hash) * sizeof(u32) +
		      num_possible_cpus() * sizeof(*pool->frames);
	return pool;
}

static u32 *rec_bucket(struct capture_pool *pool, unsigned long key)
{
	return &pool->rec_hash[hash_long(key, pool->rec_bits)];
}

static u32 *stack_bucket(struct capture_pool *pool, unsigned int site,
			 depot_stack_handle_t handle)
{
	return &pool->stack_hash[hash_32(handle ^ (site * GOLDEN_RATIO_32),
					 pool->stack_bits)];
}

/* Unlink the record with @key; return its index or CAPTURE_NIL. */
static u32 rec_unlink(struct capture_pool *pool, unsigned long key)
{
	u32 *link = rec_bucket(pool, key);
	u32 i;

	for (i = *link; i != CAPTURE_NIL; link = &pool->recs[i].next,
	     i = *link) {
		if (pool->recs[i].key == key) {
			*link = pool->recs[i].next;
			return i;
		}
	}
	return CAPTURE_NIL;
}

static void rec_link(struct capture_pool *pool, u32 i)
{
	u32 *bucket = rec_bucket(pool, pool->recs[i].key);

	pool->recs[i].next = *bucket;
	*bucket = i;
}

static void stack_account(struct capture_pool *pool, struct capture_stack *st,
			  s64 bytes, s64 calls)
{
	st->bytes += bytes;
	st->calls += calls;
}

static void stack_release(struct capture_pool *pool, u32 i);

/*
 * Give back an unlinked record and what it held; its stack too, once no
 * record points to it (its calls are the number of those).
 */
static void rec_release(struct capture_pool *pool, u32 i)
{
	struct capture_rec *rec = &pool->recs[i];
	struct capture_stack *st = &pool->stacks[rec->stack];

	stack_account(pool, st, -(s64)rec->bytes, -1);
	capture_sites[st->site].records--;
	rec->next = pool->rec_free;
	pool->rec_free = i;
	pool->recs_used--;
	if (!st->calls)
		stack_release(pool, rec->stack);
}

static void stack_unlink(struct capture_pool *pool, u32 i)
{
	struct capture_stack *st = &pool->stacks[i];
	u32 *link = stack_bucket(pool, st->site, st->handle);

	while (*link != i)
		link = &pool->stacks[*link].next;
	*link = st->next;
}

/* Forget a stack that no record points to. */
static void stack_release(struct capture_pool *pool, u32 i)
{
	struct capture_stack *st = &pool->stacks[i];

	stack_unlink(pool, i);
	capture_sites[st->site].stacks--;
	st->used = false;
	st->next = pool->stack_free;
	pool->stack_free = i;
	pool->stacks_used--;
}

/*
 * The aggregate of (@site, @handle), created if need be; CAPTURE_NIL if
 * none is left.  A stack whose objects were all freed is released then
 * (rec_release()), so nothing here scans for one to reuse.
 */
static u32 stack_get(struct capture_pool *pool, unsigned int site,
		     depot_stack_handle_t handle)
{
	u32 *bucket = stack_bucket(pool, site, handle);
	struct capture_stack *st;
	u32 i;

	for (i = *bucket; i != CAPTURE_NIL; i = pool->stacks[i].next) {
		st = &pool->stacks[i];
		if (st->site == site && st->handle == handle)
			return i;
	}
	i = pool->stack_free;
	if (i == CAPTURE_NIL)
		return CAPTURE_NIL;
	st = &pool->stacks[i];
	pool->stack_free = st->next;
	pool->stacks_used++;
	st->used = true;
	st->bytes = 0;
	st->calls = 0;
	st->site = site;
	st->handle = handle;
	bucket = stack_bucket(pool, site, handle);
	st->next = *bucket;
	*bucket = i;
	capture_sites[site].stacks++;
	return i;
}

/*
 * Drop the records of @site, which the hooks no longer touch, and with
 * them its stacks: CAPTURE_STEP hash buckets per hold of capture_lock.
 * Under capture_mutex, which keeps the pool.
 */
static void capture_drop_site_records(struct capture_pool *pool,
				      unsigned int site)
{
	u32 b = 0, end, i, *link;
	unsigned long flags;

	while (pool && b < (1U << pool->rec_bits)) {
		end = min(b + CAPTURE_STEP, 1U << pool->rec_bits);
		raw_spin_lock_irqsave(&capture_lock, flags);
		for (; b < end; b++) {
			link = &pool->rec_hash[b];
			while ((i = *link) != CAPTURE_NIL) {
				if (pool->stacks[pool->recs[i].stack].site == site) {
					*link = pool->recs[i].next;
					rec_release(pool, i);
				} else {
					link = &pool->recs[i].next;
				}
			}
		}
		raw_spin_unlock_irqrestore(&capture_lock, flags);
		cond_resched();
	}
}

/* ---------------------------------------------------------------------- */
/* The hooks                                                               */

/*
 * The site of a selected tag, if it is still selected and the pool
 * exists; -1 otherwise.  Under capture_lock, which orders this against
 * deselection (see the comment at the top).
 */
static int capture_site_locked(struct alloc_tag *tag)
{
	unsigned int flags = READ_ONCE(tag->ct.flags);
	unsigned int site;

	if (!(flags & ALLOC_TAG_CAPTURE) || !capture_pool)
		return -1;
	site = (flags & ALLOC_TAG_CAPTURE_SITE) >> ALLOC_TAG_CAPTURE_SITE_SHIFT;
	return capture_sites[site].used ? site : -1;
}

static void capture_count_dropped(struct alloc_tag *tag)
{
	unsigned long flags;
	int site;

	raw_spin_lock_irqsave(&capture_lock, flags);
	site = capture_site_locked(tag);
	if (site >= 0)
		capture_sites[site].dropped++;
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/*
 * Where the stack proper starts in @entries: after the frame of the
 * outermost allocator entry point (the one nearest the bottom of the
 * stack), so that kmalloc() in a function called by kvmalloc_node_noprof()
 * or by vmalloc's internals starts at the caller of kvmalloc() or
 * vmalloc(), and a helper foo_alloc_noprof() of vmlinux wrapped in
 * alloc_hooks() starts at its caller: in every case the function that
 * holds the tagged line.  Without one (an entry point reached by a tail
 * call that left no frame) a slab object's stack starts at @caller, the
 * return address the slab allocator was given, and otherwise the whole
 * stack is kept; a module's own _noprof helper is not an entry point, so
 * its stacks start at the helper.
 */
static unsigned int capture_trim(unsigned long *entries, unsigned int n,
				 unsigned long caller)
{
	unsigned int i;

	for (i = n; i-- > 1;)
		if (in_noprof_functions(entries[i - 1]))
			return i;
	for (i = 0; caller && i < n; i++)
		if (entries[i] == caller)
			return i;
	return 0;
}

static bool capture_enter(u8 *bit)
{
	*bit = BIT(interrupt_context_level());
	if (__this_cpu_read(capture_busy) & *bit)
		return false;
	/* An interrupt restores what it changes: no atomic needed. */
	__this_cpu_or(capture_busy, *bit);
	return true;
}

static void capture_exit(u8 bit)
{
	__this_cpu_and(capture_busy, ~bit);
}

/**
 * __alloc_tag_capture_add() - record the stack of a new object
 * @tag: the selected tag it was charged to
 * @key: its address, struct page or per-CPU address
 * @bytes: what @tag was charged
 * @caller: return address into the slab allocator's caller, or 0
 *
 * The slow path of alloc_tag_capture_add().  Never fails the allocation
 * and allocates nothing itself but what stackdepot allocates for a new
 * stack (GFP_NOWAIT); with no record left the object is counted as
 * dropped.
 *
 * Context: any context but NMI, which does not allocate.
 */
void __cold __alloc_tag_capture_add(struct alloc_tag *tag, unsigned long key,
				    unsigned long bytes, unsigned long caller)
{
	struct capture_pool *pool;
	depot_stack_handle_t handle;
	unsigned long *entries;
	unsigned int n, start;
	unsigned long flags;
	struct capture_stack *st;
	u32 i, s, old;
	int site;
	u8 bit;

	/*
	 * The slab hook sees an object before KASAN's tag-based modes tag
	 * the pointer, kfree() gets it tagged: key records by the untagged
	 * address (a no-op for generic KASAN and for pages).
	 */
	key = (unsigned long)kasan_reset_tag((void *)key);
	/* NMIs do not allocate; should one, it is not captured. */
	if (in_nmi())
		return;
	preempt_disable();
	/* Freed only after a grace period, which waits for us. */
	pool = READ_ONCE(capture_pool);
	if (!pool)
		goto enable;
	if (!capture_enter(&bit)) {
		/* Reached from our own stackdepot allocation. */
		capture_count_dropped(tag);
		goto enable;
	}
	/* Off the stack: the hook may run deep in an allocation, or in an IRQ. */
	entries = (*this_cpu_ptr(pool->frames))[interrupt_context_level()];
	n = stack_trace_save(entries, CAPTURE_SAVE_FRAMES, 0);
	n = filter_irq_stacks(entries, n);
	start = capture_trim(entries, n, caller);
	/*
	 * On PREEMPT_RT the page allocator's locks sleep, and we run with
	 * preemption off: stackdepot may then only use the room it has.
	 */
	handle = __stack_depot_save(entries + start,
				    min_t(unsigned int, n - start,
					  CAPTURE_KEEP_FRAMES), 0,
				    GFP_NOWAIT | __GFP_NOWARN,
				    !IS_ENABLED(CONFIG_PREEMPT_RT));

	raw_spin_lock_irqsave(&capture_lock, flags);
	site = capture_site_locked(tag);
	if (site < 0)
		goto out;
	pool = capture_pool;
	/* A record left for this key would be stale: replace it. */
	old = rec_unlink(pool, key);
	if (old != CAPTURE_NIL)
		rec_release(pool, old);
	i = pool->rec_free;
	s = i == CAPTURE_NIL ? CAPTURE_NIL : stack_get(pool, site, handle);
	if (s == CAPTURE_NIL) {
		capture_sites[site].dropped++;
		goto out;
	}
	pool->rec_free = pool->recs[i].next;
	pool->recs_used++;
	pool->recs[i].key = key;
	pool->recs[i].bytes = bytes;
	pool->recs[i].stack = s;
	rec_link(pool, i);
	st = &pool->stacks[s];
	stack_account(pool, st, bytes, 1);
	capture_sites[site].records++;
out:
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	capture_exit(bit);
enable:
	preempt_enable();
}

/**
 * __alloc_tag_capture_page_sub() - the slow path of alloc_tag_capture_page_sub()
 * @page: the first page of the block being freed
 * @tag: its tag, or NULL
 *
 * Context: any context.
 */
void __cold __alloc_tag_capture_page_sub(struct page *page,
					 struct alloc_tag *tag)
{
	alloc_tag_capture_sub(tag, (unsigned long)page);
}

/**
 * __alloc_tag_capture_sub() - an object of a selected site is freed
 * @tag: its tag
 * @key: as given to __alloc_tag_capture_add()
 *
 * The slow path of alloc_tag_capture_sub(): the object's record, if it
 * has one, is released with what it holds.
 *
 * Context: any context.
 */
void __cold __alloc_tag_capture_sub(struct alloc_tag *tag, unsigned long key)
{
	unsigned long flags;
	u32 i;

	key = (unsigned long)kasan_reset_tag((void *)key);
	raw_spin_lock_irqsave(&capture_lock, flags);
	if (capture_site_locked(tag) >= 0) {
		i = rec_unlink(capture_pool, key);
		if (i != CAPTURE_NIL)
			rec_release(capture_pool, i);
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/**
 * __alloc_tag_capture_page_split() - a captured block became single pages
 * @tag: the block's tag
 * @page: its first page
 * @nr: its number of pages
 *
 * Each page gets a record of its own, with its share of the bytes and one
 * call, as the tag gets one call per page.  The other pages' shares leave
 * the block's record and stack first, and each comes back with its page's
 * record, one page per hold of capture_lock (a block can have 1024); a
 * page that gets no record (none left, or the site went meanwhile) is
 * counted as dropped, so the stack never keeps bytes that no record will
 * give back.
 *
 * Context: any context.
 */
void __cold __alloc_tag_capture_page_split(struct alloc_tag *tag,
					   struct page *page, unsigned int nr)
{
	depot_stack_handle_t handle = 0;
	struct capture_pool *pool = NULL;
	unsigned long flags, each = 0;
	struct capture_stack *st;
	unsigned int k;
	u32 i, j, s = CAPTURE_NIL;
	int site;

	raw_spin_lock_irqsave(&capture_lock, flags);
	site = capture_site_locked(tag);
	if (site >= 0) {
		pool = capture_pool;
		i = rec_unlink(pool, (unsigned long)page);
		if (i != CAPTURE_NIL) {
			rec_link(pool, i);
			s = pool->recs[i].stack;
			each = pool->recs[i].bytes / nr;
			pool->recs[i].bytes -= each * (nr - 1);
			stack_account(pool, &pool->stacks[s],
				      -(s64)each * (nr - 1), 0);
			handle = pool->stacks[s].handle;
		}
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	for (k = 1; s != CAPTURE_NIL && k < nr; k++) {
		unsigned long key = (unsigned long)nth_page(page, k);

		raw_spin_lock_irqsave(&capture_lock, flags);
		st = &pool->stacks[s];
		/* The stack went (its records were freed) or is another. */
		if (capture_site_locked(tag) != site || capture_pool != pool ||
		    !st->used || st->site != site || st->handle != handle) {
			raw_spin_unlock_irqrestore(&capture_lock, flags);
			break;
		}
		j = rec_unlink(pool, key);
		if (j != CAPTURE_NIL)
			rec_release(pool, j);
		j = st->used ? pool->rec_free : CAPTURE_NIL;
		if (j == CAPTURE_NIL) {
			capture_sites[site].dropped++;
		} else {
			pool->rec_free = pool->recs[j].next;
			pool->recs_used++;
			pool->recs[j].key = key;
			pool->recs[j].bytes = each;
			pool->recs[j].stack = s;
			rec_link(pool, j);
			stack_account(pool, st, each, 1);
			capture_sites[site].records++;
		}
		raw_spin_unlock_irqrestore(&capture_lock, flags);
	}
}

/**
 * __alloc_tag_capture_page_move() - the record of @src follows its data
 * @tag: the tag that @dst took over
 * @dst: first page of the new block
 * @src: first page of the old block
 *
 * Context: any context.
 */
void __cold __alloc_tag_capture_page_move(struct alloc_tag *tag,
					  struct page *dst, struct page *src)
{
	struct capture_pool *pool;
	unsigned long flags;
	u32 i, old;

	raw_spin_lock_irqsave(&capture_lock, flags);
	if (capture_site_locked(tag) < 0)
		goto out;
	pool = capture_pool;
	i = rec_unlink(pool, (unsigned long)src);
	if (i == CAPTURE_NIL)
		goto out;
	old = rec_unlink(pool, (unsigned long)dst);
	if (old != CAPTURE_NIL)
		rec_release(pool, old);
	pool->recs[i].key = (unsigned long)dst;
	rec_link(pool, i);
out:
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/**
 * __alloc_tag_capture_page_detach() - release all but a block's first page
 * @tag: the block's tag
 * @page: its first page, still referenced by the caller
 *
 * __free_pages() of a non-compound block frees the other pages at once if
 * the first one has another reference, and the first one when that goes.
 * Whichever happens, the block's record is left with the first page's
 * share, and the rest leaves its stack now; the free of the first page
 * (or of the whole block) then releases what the record still holds.
 *
 * Context: any context.
 */
void __cold __alloc_tag_capture_page_detach(struct alloc_tag *tag,
					    struct page *page)
{
	struct capture_pool *pool;
	struct capture_rec *rec;
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&capture_lock, flags);
	if (capture_site_locked(tag) < 0)
		goto out;
	pool = capture_pool;
	i = rec_unlink(pool, (unsigned long)page);
	if (i == CAPTURE_NIL)
		goto out;
	rec_link(pool, i);
	rec = &pool->recs[i];
	if (rec->bytes > PAGE_SIZE) {
		stack_account(pool, &pool->stacks[rec->stack],
			      -(s64)(rec->bytes - PAGE_SIZE), 0);
		rec->bytes = PAGE_SIZE;
	}
out:
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/* ---------------------------------------------------------------------- */
/* Selecting sites                                                         */

struct capture_spec {
	char *file;
	unsigned int line;
	char *mod;		/* NULL: vmlinux */
	char *func;		/* NULL: any */
};

/*
 * "FILE:LINE [MODULE] func:FUNCTION", as /proc/allocinfo prints a site,
 * with the module and the function optional.  @s is modified.
 */
static int capture_parse_spec(char *s, struct capture_spec *spec)
{
	char *word, *colon;
	size_t len;

	memset(spec, 0, sizeof(*spec));
	word = strsep(&s, " ");
	colon = strrchr(word, ':');
	if (!colon || colon == word)
		return -EINVAL;
	*colon = '\0';
	if (kstrtouint(colon + 1, 10, &spec->line) || !spec->line)
		return -EINVAL;
	spec->file = word;
	while ((word = strsep(&s, " "))) {
		if (!*word)
			continue;
		len = strlen(word);
		if (word[0] == '[' && !spec->mod && !spec->func) {
			if (len < 3 || len - 2 >= MODULE_NAME_LEN ||
			    word[len - 1] != ']')
				return -EINVAL;
			word[len - 1] = '\0';
			spec->mod = word + 1;
		} else if (str_has_prefix(word, "func:") && !spec->func &&
			   len > 5) {
			spec->func = word + 5;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static bool capture_spec_is_site(struct capture_spec *spec,
				 struct capture_site *site)
{
	return site->used && site->line == spec->line &&
	       !strcmp(site->file, spec->file) &&
	       !strcmp(site->mod, spec->mod ?: "");
}

/*
 * The selected site @spec names, or -1.  Without a module, a site of
 * vmlinux, else the one site of a module with that file and line.
 */
static int capture_find_site(struct capture_spec *spec)
{
	struct capture_spec any = *spec;
	int i, found = -1;

	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
		if (capture_spec_is_site(spec, &capture_sites[i]))
			return i;
	if (spec->mod)
		return -1;
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		any.mod = capture_sites[i].mod;
		if (!capture_spec_is_site(&any, &capture_sites[i]))
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

static bool capture_tag_matches(struct alloc_tag *tag, const char *modname,
				struct capture_spec *spec)
{
	return tag->ct.lineno == spec->line &&
	       !strcmp(tag->ct.filename, spec->file) &&
	       !strcmp(modname, spec->mod ?: "") &&
	       (!spec->func || !strcmp(tag->ct.function, spec->func));
}

/* A walk of the tags for capture_resolve_module() or capture_find_tags(). */
struct capture_walk {
	struct capture_spec *spec;
	char *mod;		/* resolving: the module found first */
	bool several;		/* resolving: another module has it too */
	struct alloc_tag **tags;	/* finding: filled if not NULL */
	unsigned int n;		/* finding: tags that match */
};

static int capture_resolve_one(struct alloc_tag *tag, const char *modname,
			       void *arg)
{
	struct capture_walk *w = arg;
	struct capture_spec any = *w->spec;

	any.mod = (char *)modname;
	if (!capture_tag_matches(tag, modname, &any))
		return 0;
	if (!modname[0])
		return 1;	/* vmlinux has it: spec->mod stays NULL */
	if (!w->mod[0])
		strscpy(w->mod, modname, MODULE_NAME_LEN);
	else if (strcmp(w->mod, modname))
		w->several = true;
	return 0;
}

/*
 * "FILE:LINE" without a module names a site of vmlinux, or else the site
 * of the one module that has tags at that line; point spec->mod at that
 * module's name, copied to @mod.  Under alloc_tag_lock_sites().
 */
static int capture_resolve_module(struct capture_spec *spec, char *mod)
{
	struct capture_walk w = { .spec = spec, .mod = mod };

	mod[0] = '\0';
	if (alloc_tag_for_each(capture_resolve_one, &w))
		return 0;
	if (!mod[0])
		return -ENOENT;
	if (w.several)
		return -ENOTUNIQ;
	spec->mod = mod;
	return 0;
}

static int capture_find_one(struct alloc_tag *tag, const char *modname,
			    void *arg)
{
	struct capture_walk *w = arg;

	if (capture_tag_matches(tag, modname, w->spec)) {
		if (w->tags)
			w->tags[w->n] = tag;
		w->n++;
	}
	return 0;
}

/*
 * The tags of @spec, in a new array; an inline function of a header has
 * a tag per compilation unit that uses it, all of them one site.  Under
 * alloc_tag_lock_sites().
 */
static int capture_find_tags(struct capture_spec *spec,
			     struct alloc_tag ***tagsp)
{
	struct capture_walk w = { .spec = spec };

	alloc_tag_for_each(capture_find_one, &w);
	if (!w.n)
		return -ENOENT;
	w.tags = kcalloc(w.n, sizeof(*w.tags), GFP_KERNEL);
	if (!w.tags)
		return -ENOMEM;
	w.n = 0;
	alloc_tag_for_each(capture_find_one, &w);
	*tagsp = w.tags;
	return w.n;
}

/* Set or clear the capture bits of a tag. */
static void capture_tag_flags(struct alloc_tag *tag, unsigned int bits)
{
	alloc_tag_flags_replace(tag, ALLOC_TAG_CAPTURE | ALLOC_TAG_CAPTURE_SITE,
				bits);
}

static void capture_site_free(struct capture_site *site)
{
	kfree(site->file);
	kfree(site->func);
	kfree(site->tags);
	memset(site, 0, sizeof(*site));
}

/* Deselect site @i: its tags first, then its records.  capture_mutex. */
static void capture_deselect(unsigned int i)
{
	struct capture_site *site = &capture_sites[i];
	struct capture_pool *pool = NULL;
	unsigned long flags;
	unsigned int t;

	lockdep_assert_held(&capture_mutex);
	for (t = 0; t < site->nr_tags; t++)
		capture_tag_flags(site->tags[t], 0);
	/* From here on the hooks leave the site's records alone. */
	raw_spin_lock_irqsave(&capture_lock, flags);
	site->used = false;
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	capture_drop_site_records(capture_pool, i);
	raw_spin_lock_irqsave(&capture_lock, flags);
	if (!--capture_nr_sites) {
		pool = capture_pool;
		WRITE_ONCE(capture_pool, NULL);
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	capture_site_free(site);
	if (!capture_nr_sites)
		static_branch_disable(&alloc_tag_capture_key);
	/*
	 * The pool is under capture_lock but for its per-CPU frames, which
	 * the capture hook uses with preemption off: free it once every
	 * such section that could have seen it is over.
	 */
	if (pool) {
		synchronize_rcu();
		capture_pool_free(pool);
	}
}

static int capture_select(struct capture_spec *spec)
{
	struct capture_pool *pool = NULL;
	char mod[MODULE_NAME_LEN];
	struct capture_site *site;
	struct alloc_tag **tags;
	unsigned long flags;
	int i, t, n;

	lockdep_assert_held(&capture_mutex);
	if (!spec->mod) {
		n = capture_resolve_module(spec, mod);
		if (n)
			return n;
	}
	if (capture_find_site(spec) >= 0)
		return -EEXIST;
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
		if (!capture_sites[i].used)
			break;
	if (i == ALLOC_TAG_CAPTURE_MAX_SITES)
		return -ENOSPC;
	n = capture_find_tags(spec, &tags);
	if (n < 0)
		return n;
	site = &capture_sites[i];
	site->file = kstrdup(spec->file, GFP_KERNEL);
	site->func = kstrdup(tags[0]->ct.function, GFP_KERNEL);
	if (!site->file || !site->func)
		goto nomem;
	if (!capture_depot_ready) {
		if (stack_depot_init())
			goto nomem;
		capture_depot_ready = true;
	}
	if (!capture_pool) {
		pool = capture_pool_alloc(capture_cap);
		if (!pool)
			goto nomem;
	}
	strscpy(site->mod, spec->mod ?: "", sizeof(site->mod));
	site->line = spec->line;
	site->tags = tags;
	site->nr_tags = n;
	raw_spin_lock_irqsave(&capture_lock, flags);
	if (pool)
		WRITE_ONCE(capture_pool, pool);
	site->used = true;
	capture_nr_sites++;
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	for (t = 0; t < n; t++)
		capture_tag_flags(tags[t], ALLOC_TAG_CAPTURE |
				  (i << ALLOC_TAG_CAPTURE_SITE_SHIFT));
	static_branch_enable(&alloc_tag_capture_key);
	return 0;
nomem:
	kfree(tags);
	capture_site_free(site);
	return -ENOMEM;
}

static int capture_set_cap(const char *arg)
{
	unsigned int cap;

	lockdep_assert_held(&capture_mutex);
	if (kstrtouint(arg, 10, &cap) || cap < CAPTURE_MIN_CAP ||
	    cap > CAPTURE_MAX_CAP)
		return -EINVAL;
	if (capture_nr_sites)
		return -EBUSY;
	capture_cap = cap;
	return 0;
}

static const char *capture_errmsg(int err)
{
	switch (err) {
	case -EINVAL:
		return "not FILE:LINE [MODULE], -FILE:LINE [MODULE], clear or cap 16..1048576";
	case -ENOENT:
		return "no such allocation call site";
	case -ENOTUNIQ:
		return "that line is in several modules: add [MODULE]";
	case -EEXIST:
		return "site already selected";
	case -ENOSPC:
		return "too many sites selected";
	case -EBUSY:
		return "the cap can only be changed while no site is selected";
	case -ENOMEM:
		return "out of memory";
	default:
		return "error";
	}
}

/**
 * alloc_tag_capture_command() - carry out one command of the control file
 * @cmd: "FILE:LINE [MODULE] [func:NAME]" selects a site,
 *	"-FILE:LINE [MODULE]" deselects one, "clear" deselects all,
 *	"cap N" sets the number of records (only while nothing is selected)
 *
 * A command that fails changes nothing.
 *
 * Context: process context, may sleep.
 * A site without [MODULE] is one of vmlinux or, if vmlinux has none at
 * that line, of the one module that has.
 *
 * Return: 0, -EINVAL for a malformed command, -ENOENT for an unknown or
 * (to deselect) unselected site, -ENOTUNIQ for a site without [MODULE]
 * in several modules, -EEXIST for a site already selected,
 * -ENOSPC if ALLOC_TAG_CAPTURE_MAX_SITES are selected, -EBUSY for a cap
 * while sites are selected, -ENOMEM.
 */
static int alloc_tag_capture_command(const char *cmd)
{
	struct capture_spec spec;
	char *buf, *s;
	int ret, i;

	buf = kstrdup(cmd, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = alloc_tag_lock_sites();
	if (ret) {
		kfree(buf);
		return ret;
	}
	s = strim(buf);
	mutex_lock(&capture_mutex);
	if (!strcmp(s, "clear")) {
		for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
			if (capture_sites[i].used)
				capture_deselect(i);
		ret = 0;
	} else if (str_has_prefix(s, "cap ")) {
		ret = capture_set_cap(skip_spaces(s + 4));
	} else if (s[0] == '-') {
		ret = capture_parse_spec(s + 1, &spec);
		if (!ret && spec.func)
			ret = -EINVAL;
		if (!ret) {
			i = capture_find_site(&spec);
			if (i < 0)
				ret = -ENOENT;
			else
				capture_deselect(i);
		}
	} else {
		ret = capture_parse_spec(s, &spec);
		if (!ret)
			ret = capture_select(&spec);
	}
	mutex_unlock(&capture_mutex);
	alloc_tag_unlock_sites();
	kfree(buf);
	return ret;
}

/*
 * A module's @n @tags are released: nothing is charged to them any more
 * (alloc_tag_on_release()).  A site among them is deselected, with its
 * records.  Under alloc_tag_lock_sites()'s lock, held for writing.
 */
static void capture_drop_tags(struct alloc_tag *tags, size_t n)
{
	unsigned int i;

	mutex_lock(&capture_mutex);
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		struct capture_site *site = &capture_sites[i];

		if (!site->used || site->tags[0] < tags ||
		    site->tags[0] >= tags + n)
			continue;
		pr_info("%s:%u [%s]: the module's tags are released; site deselected\n",
			site->file, site->line, site->mod);
		capture_deselect(i);
	}
	mutex_unlock(&capture_mutex);
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */

/*
 * A copy of the stacks, taken when the file is opened.  Stacks are told
 * apart by the functions they pass through, not by their return
 * addresses: calls of the helper from two lines of the same caller (or
 * from a loop the compiler unrolled) are one stack.  A frame in which the
 * merged stacks differ is printed without its offset.
 */
struct capture_snap_entry {
	s64 bytes;
	s64 calls;
	depot_stack_handle_t handle;	/* one of the merged stacks */
	u32 differ;			/* frames that differ among them */
	u8 site;
	bool header;			/* the site's own line, before its stacks */
	u8 nr_funcs;
	unsigned long funcs[CAPTURE_KEEP_FRAMES];
};

struct capture_snap {
	char *header[ALLOC_TAG_CAPTURE_MAX_SITES];
	unsigned int nr;
	struct capture_snap_entry e[];
};

/* The entry's frames as the functions they are in. */
static void capture_snap_funcs(struct capture_snap_entry *e)
{
	unsigned long *entries, size, off;
	unsigned int i, n;

	n = e->handle ? stack_depot_fetch(e->handle, &entries) : 0;
	e->nr_funcs = min_t(unsigned int, n, CAPTURE_KEEP_FRAMES);
	for (i = 0; i < e->nr_funcs; i++) {
		if (kallsyms_lookup_size_offset(entries[i], &size, &off))
			e->funcs[i] = entries[i] - off;
		else
			e->funcs[i] = entries[i];
	}
}

static int capture_snap_cmp_funcs(const void *a, const void *b)
{
	const struct capture_snap_entry *x = a, *y = b;
	unsigned int i;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->header != y->header)
		return x->header ? -1 : 1;
	if (x->nr_funcs != y->nr_funcs)
		return x->nr_funcs < y->nr_funcs ? -1 : 1;
	for (i = 0; i < x->nr_funcs; i++)
		if (x->funcs[i] != y->funcs[i])
			return x->funcs[i] < y->funcs[i] ? -1 : 1;
	return 0;
}

static int capture_snap_cmp(const void *a, const void *b)
{
	const struct capture_snap_entry *x = a, *y = b;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->header != y->header)
		return x->header ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->handle != y->handle)
		return x->handle < y->handle ? -1 : 1;
	return 0;
}

/* Which frames of @b differ from those of @a (same functions). */
static u32 capture_snap_differ(struct capture_snap_entry *a,
			       struct capture_snap_entry *b)
{
	unsigned long *ea, *eb;
	unsigned int i, na, nb;
	u32 differ = 0;

	na = a->handle ? stack_depot_fetch(a->handle, &ea) : 0;
	nb = b->handle ? stack_depot_fetch(b->handle, &eb) : 0;
	for (i = 0; i < a->nr_funcs && i < na && i < nb; i++)
		if (ea[i] != eb[i])
			differ |= BIT(i);
	return differ;
}

/* Merge the stacks that pass through the same functions; sort. */
static void capture_snap_merge(struct capture_snap *snap)
{
	unsigned int i, n = 0;

	for (i = 0; i < snap->nr; i++)
		if (!snap->e[i].header)
			capture_snap_funcs(&snap->e[i]);
	sort(snap->e, snap->nr, sizeof(snap->e[0]), capture_snap_cmp_funcs,
	     NULL);
	for (i = 0; i < snap->nr; i++) {
		struct capture_snap_entry *e = &snap->e[i];
		struct capture_snap_entry *last = n ? &snap->e[n - 1] : NULL;

		if (last && !e->header && !last->header &&
		    !capture_snap_cmp_funcs(last, e)) {
			last->bytes += e->bytes;
			last->calls += e->calls;
			last->differ |= capture_snap_differ(last, e);
			continue;
		}
		snap->e[n++] = *e;
	}
	snap->nr = n;
	sort(snap->e, snap->nr, sizeof(snap->e[0]), capture_snap_cmp, NULL);
}

static void capture_snap_free(struct capture_snap *snap)
{
	int i;

	if (!snap)
		return;
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
		kfree(snap->header[i]);
	kvfree(snap);
}

/* Sum a site's tags: what it holds, captured or not. */
static void capture_site_total(struct capture_site *site, u64 *bytes,
			       u64 *calls)
{
	unsigned int t;

	*bytes = 0;
	*calls = 0;
	for (t = 0; t < site->nr_tags; t++) {
		struct alloc_tag_counters c = alloc_tag_read(site->tags[t]);

		*bytes += c.bytes;
		*calls += c.calls;
	}
}

#define STACKS_SITE_FMT							\
	"site %s:%u%s%s%s func:%s bytes:%lld calls:%lld stacks:%u "	\
	"dropped:%llu site_bytes:%llu site_calls:%llu\n"

/*
 * Copy, merge and sort the stacks; format the sites' lines.  The copy is
 * sized by the aggregates in use, not by the pool: at the largest cap the
 * pool has room for 2^18, and a copy of that size on every open would be
 * tens of megabytes to allocate, clear and free.  Aggregates made while
 * the copy is taken fill the slack of CAPTURE_STEP; should more appear,
 * those in the highest slots are left out of this copy and of its
 * sites' totals.
 */
static struct capture_snap *capture_snapshot(void)
{
	s64 bytes[ALLOC_TAG_CAPTURE_MAX_SITES] = { };
	s64 calls[ALLOC_TAG_CAPTURE_MAX_SITES] = { };
	u32 stacks[ALLOC_TAG_CAPTURE_MAX_SITES] = { };
	u64 dropped[ALLOC_TAG_CAPTURE_MAX_SITES];
	struct capture_snap *snap;
	struct capture_pool *pool;
	unsigned long flags;
	unsigned int i, room = 0;

	lockdep_assert_held(&capture_mutex);
	/* Under capture_mutex the pool stays; copy a step at a time. */
	pool = capture_pool;
	if (pool) {
		raw_spin_lock_irqsave(&capture_lock, flags);
		room = min(pool->stacks_used + CAPTURE_STEP, pool->nr_stacks);
		raw_spin_unlock_irqrestore(&capture_lock, flags);
	}
	snap = kvzalloc(struct_size(snap, e, ALLOC_TAG_CAPTURE_MAX_SITES + room),
			GFP_KERNEL);
	if (!snap)
		return NULL;
	for (i = 0; pool && i < pool->nr_stacks && snap->nr < room;) {
		unsigned int end = min(i + CAPTURE_STEP, pool->nr_stacks);

		raw_spin_lock_irqsave(&capture_lock, flags);
		for (; i < end && snap->nr < room; i++) {
			struct capture_stack *st = &pool->stacks[i];
			struct capture_snap_entry *e = &snap->e[snap->nr];

			if (!st->used)
				continue;
			e->bytes = st->bytes;
			e->calls = st->calls;
			e->handle = st->handle;
			e->site = st->site;
			snap->nr++;
		}
		raw_spin_unlock_irqrestore(&capture_lock, flags);
		cond_resched();
	}
	raw_spin_lock_irqsave(&capture_lock, flags);
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
		dropped[i] = capture_sites[i].dropped;
	raw_spin_unlock_irqrestore(&capture_lock, flags);

	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		if (capture_sites[i].used) {
			snap->e[snap->nr].site = i;
			snap->e[snap->nr].header = true;
			snap->nr++;
		}
	}
	capture_snap_merge(snap);
	for (i = 0; i < snap->nr; i++) {
		struct capture_snap_entry *e = &snap->e[i];

		if (e->header)
			continue;
		bytes[e->site] += e->bytes;
		calls[e->site] += e->calls;
		stacks[e->site]++;
	}
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		struct capture_site *site = &capture_sites[i];
		u64 tb, tc;

		if (!site->used)
			continue;
		capture_site_total(site, &tb, &tc);
		snap->header[i] = kasprintf(GFP_KERNEL, STACKS_SITE_FMT,
					    site->file, site->line,
					    site->mod[0] ? " [" : "", site->mod,
					    site->mod[0] ? "]" : "", site->func,
					    bytes[i], calls[i], stacks[i],
					    dropped[i], tb, tc);
		if (!snap->header[i]) {
			capture_snap_free(snap);
			return NULL;
		}
	}
	return snap;
}

static void *stacks_start(struct seq_file *m, loff_t *pos)
{
	struct capture_snap *snap = m->private;

	if (!*pos)
		return SEQ_START_TOKEN;
	return *pos <= snap->nr ? &snap->e[*pos - 1] : NULL;
}

static void *stacks_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return stacks_start(m, pos);
}

static void stacks_stop(struct seq_file *m, void *v)
{
}

static int stacks_show(struct seq_file *m, void *v)
{
	struct capture_snap *snap = m->private;
	struct capture_snap_entry *e = v;
	unsigned long *entries;
	unsigned int n, i;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "allocinfo stacks - version: 1.0\n");
		return 0;
	}
	if (e->header) {
		seq_puts(m, snap->header[e->site]);
		return 0;
	}
	seq_printf(m, "stack %lld %lld\n", e->bytes, e->calls);
	n = e->handle ? stack_depot_fetch(e->handle, &entries) : 0;
	if (!n)
		seq_puts(m, "  (no stack: stack depot full)\n");
	for (i = 0; i < n; i++) {
		if (i < CAPTURE_KEEP_FRAMES && (e->differ & BIT(i)))
			seq_printf(m, "  %ps\n", (void *)entries[i]);
		else
			seq_printf(m, "  %pS\n", (void *)entries[i]);
	}
	return 0;
}

static const struct seq_operations stacks_seq_ops = {
	.start	= stacks_start,
	.next	= stacks_next,
	.stop	= stacks_stop,
	.show	= stacks_show,
};

static int stacks_open(struct inode *inode, struct file *file)
{
	struct capture_snap *snap;
	int ret;

	mutex_lock(&capture_mutex);
	snap = capture_snapshot();
	mutex_unlock(&capture_mutex);
	if (!snap)
		return -ENOMEM;
	ret = seq_open(file, &stacks_seq_ops);
	if (ret) {
		capture_snap_free(snap);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = snap;
	return 0;
}

static int stacks_release(struct inode *inode, struct file *file)
{
	capture_snap_free(((struct seq_file *)file->private_data)->private);
	return seq_release(inode, file);
}

static const struct file_operations stacks_fops = {
	.owner		= THIS_MODULE,
	.open		= stacks_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= stacks_release,
};

static int capture_show(struct seq_file *m, void *v)
{
	u64 dropped[ALLOC_TAG_CAPTURE_MAX_SITES];
	u32 records[ALLOC_TAG_CAPTURE_MAX_SITES];
	u32 stacks[ALLOC_TAG_CAPTURE_MAX_SITES];
	u32 recs_used = 0, stacks_used = 0;
	size_t bytes = 0;
	unsigned long flags;
	u64 all_dropped = 0;
	int i;

	mutex_lock(&capture_mutex);
	raw_spin_lock_irqsave(&capture_lock, flags);
	if (capture_pool) {
		recs_used = capture_pool->recs_used;
		stacks_used = capture_pool->stacks_used;
		bytes = capture_pool->bytes;
	}
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		dropped[i] = capture_sites[i].dropped;
		records[i] = capture_sites[i].records;
		stacks[i] = capture_sites[i].stacks;
		all_dropped += dropped[i];
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	seq_printf(m, "cap %u records %u entries %u dropped %llu memory %zu\n",
		   capture_cap, recs_used, stacks_used, all_dropped, bytes);
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		struct capture_site *site = &capture_sites[i];

		if (!site->used)
			continue;
		seq_printf(m, "site %s:%u%s%s%s func:%s tags:%u records:%u entries:%u dropped:%llu\n",
			   site->file, site->line, site->mod[0] ? " [" : "",
			   site->mod, site->mod[0] ? "]" : "", site->func,
			   site->nr_tags, records[i], stacks[i], dropped[i]);
	}
	mutex_unlock(&capture_mutex);
	return 0;
}

static int capture_open(struct inode *inode, struct file *file)
{
	return single_open(file, capture_show, NULL);
}

static ssize_t capture_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char *buf, *nl;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!count || count >= CAPTURE_CMD_MAX) {
		pr_warn_ratelimited("a command is 1 to %d bytes\n",
				    CAPTURE_CMD_MAX - 1);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* One command per write; a final newline is allowed. */
	nl = strchr(buf, '\n');
	if ((nl && nl[1]) || strlen(buf) != count) {
		ret = -EINVAL;
	} else {
		if (nl)
			*nl = '\0';
		ret = alloc_tag_capture_command(buf);
	}
	if (ret)
		pr_warn_ratelimited("'%s': %s\n", strim(buf),
				    capture_errmsg(ret));
	kfree(buf);
	if (ret == -ENOTUNIQ)
		ret = -EINVAL;	/* not a networking error */
	return ret ? ret : count;
}

static const struct file_operations capture_fops = {
	.owner		= THIS_MODULE,
	.open		= capture_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.write		= capture_write,
	.release	= single_release,
};

static int __init alloc_tag_capture_init(void)
{
	struct dentry *dir;

	dir = debugfs_create_dir("allocinfo", NULL);
	debugfs_create_file("capture", 0600, dir, NULL, &capture_fops);
	debugfs_create_file("stacks", 0400, dir, NULL, &stacks_fops);
	alloc_tag_on_release(capture_drop_tags);
	return 0;
}
late_initcall(alloc_tag_capture_init);

#ifdef CONFIG_MEM_ALLOC_PROFILING_CAPTURE_KUNIT_TEST
#include "alloc_tag_capture_kunit.c"
#endif /* CONFIG_MEM_ALLOC_PROFILING_CAPTURE_KUNIT_TEST */
