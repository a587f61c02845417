// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling: the call stacks of a few selected call sites
 * (debugfs allocinfo/capture), listed per live object in allocinfo/stacks
 * for tools/vm/allocinfo to sum.  Design and locking: "Call-stack capture"
 * in Documentation/mm/allocation-profiling-design.rst.
 */
#define pr_fmt(fmt) "alloc_tag: capture: " fmt

#include <linux/alloc_tag.h>
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/init.h>
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
#include <linux/spinlock.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/xarray.h>

/* Frames saved, and kept once the allocator's own are left out. */
#define CAPTURE_SAVE_FRAMES	40
#define CAPTURE_KEEP_FRAMES	16
/* Context levels that capture: task, softirq, hardirq (not NMI). */
#define CAPTURE_LEVELS		3
/* Pool slots that deselection and reading visit per hold of capture_lock. */
#define CAPTURE_STEP		256

/* Sites selected at once: a flag and a 3-bit site number in codetag.flags. */
#define ALLOC_TAG_CAPTURE_MAX_SITES	8
#define CAPTURE_MIN_CAP		16
#define CAPTURE_MAX_CAP		1048576
#define CAPTURE_NIL		U32_MAX
#define CAPTURE_CMD_MAX		512

/* One live object of a selected site; a free slot has key 0. */
struct capture_rec {
	unsigned long key;
	unsigned long bytes;
	depot_stack_handle_t handle;
	u32 next;		/* in its hash chain, or in the free list */
	u8 site;
};

/* Everything the hooks touch, allocated with the first selected site. */
struct capture_pool {
	struct capture_rec *recs;
	u32 *hash;
	unsigned int bits;
	u32 nr, free;
	unsigned long (__percpu *frames)[CAPTURE_LEVELS][CAPTURE_SAVE_FRAMES];
	size_t bytes;
};

/* A selected site: one or more tags with the same file:line [module]. */
struct capture_site {
	bool used;			/* under capture_lock */
	char *name;			/* as /proc/allocinfo prints it */
	char *func;
	struct alloc_tag **tags;
	unsigned int nr_tags;
	u64 serial;			/* tells this selection from others */
	u64 dropped;
	u64 bytes;
	u32 records;
};

/* Selection: the sites, the cap, the pool pointer. */
static DEFINE_MUTEX(capture_mutex);
/* The hooks: the pool's contents, sites' used flag and counters. */
static DEFINE_RAW_SPINLOCK(capture_lock);

/* A selected tag has capture_selected and its site's slot << capture_shift. */
static struct capture_site capture_sites[ALLOC_TAG_CAPTURE_MAX_SITES];
static u32 capture_flags __ro_after_init;
static u32 capture_selected __ro_after_init;
static unsigned int capture_shift __ro_after_init;
static struct alloc_tag_consumer capture_consumer;
/* Set while a site is used, and only then (a site's used implies it). */
static struct capture_pool *capture_pool;
static unsigned int capture_nr_sites;
static unsigned int capture_cap = 4096;
static u64 capture_serial;

/* A bit per context level (task, softirq, hardirq) capturing on this CPU. */
static DEFINE_PER_CPU(u8, capture_busy);

static void capture_pool_free(struct capture_pool *pool)
{
	free_percpu(pool->frames);
	kvfree(pool->recs);
	kvfree(pool->hash);
	kfree(pool);
}

/* Process context; charged to the lines below like any allocation. */
static struct capture_pool *capture_pool_alloc(u32 cap)
{
	struct capture_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	u32 i;

	if (!pool)
		return NULL;
	pool->nr = cap;
	pool->bits = ilog2(roundup_pow_of_two(cap));
	pool->recs = kvcalloc(cap, sizeof(*pool->recs), GFP_KERNEL);
	pool->hash = kvmalloc_array(1U << pool->bits, sizeof(u32), GFP_KERNEL);
	pool->frames = alloc_percpu(typeof(*pool->frames));
	if (!pool->recs || !pool->hash || !pool->frames) {
		capture_pool_free(pool);
		return NULL;
	}
	memset(pool->hash, 0xff, sizeof(u32) << pool->bits);
	for (i = 0; i < cap; i++)
		pool->recs[i].next = i + 1 < cap ? i + 1 : CAPTURE_NIL;
	pool->bytes = sizeof(*pool) + cap * sizeof(*pool->recs) +
		      (sizeof(u32) << pool->bits) +
		      num_possible_cpus() * sizeof(*pool->frames);
	return pool;
}

/* The link that holds the index of @key's record, or ends its chain. */
static u32 *rec_link(struct capture_pool *pool, unsigned long key)
{
	u32 *link = &pool->hash[hash_long(key, pool->bits)];

	while (*link != CAPTURE_NIL && pool->recs[*link].key != key)
		link = &pool->recs[*link].next;
	return link;
}

static u32 rec_unlink(struct capture_pool *pool, unsigned long key)
{
	u32 *link = rec_link(pool, key);
	u32 i = *link;

	if (i != CAPTURE_NIL)
		*link = pool->recs[i].next;
	return i;
}

/* Link record @i, if any, under @key, which is not in the table. */
static void rec_insert(struct capture_pool *pool, u32 i, unsigned long key)
{
	u32 *head;

	if (i == CAPTURE_NIL)
		return;
	head = &pool->hash[hash_long(key, pool->bits)];
	pool->recs[i].key = key;
	pool->recs[i].next = *head;
	*head = i;
}

static void rec_drop(struct capture_pool *pool, unsigned long key)
{
	u32 i = rec_unlink(pool, key);
	struct capture_rec *rec;

	if (i == CAPTURE_NIL)
		return;
	rec = &pool->recs[i];
	capture_sites[rec->site].records--;
	capture_sites[rec->site].bytes -= rec->bytes;
	rec->key = 0;
	rec->next = pool->free;
	pool->free = i;
}

/* Record @key for @site, replacing a stale record; or count it dropped. */
static void rec_add(struct capture_pool *pool, unsigned int site,
		    unsigned long key, unsigned long bytes,
		    depot_stack_handle_t handle)
{
	struct capture_rec *rec;
	u32 i;

	rec_drop(pool, key);
	i = pool->free;
	if (i == CAPTURE_NIL) {
		capture_sites[site].dropped++;
		return;
	}
	rec = &pool->recs[i];
	pool->free = rec->next;
	rec->bytes = bytes;
	rec->handle = handle;
	rec->site = site;
	rec_insert(pool, i, key);
	capture_sites[site].records++;
	capture_sites[site].bytes += bytes;
}

/*
 * Under capture_mutex, which keeps the pool: copy @site's first record from
 * *@slot on to @copy, leave *@slot at it, return true; @copy NULL: drop all.
 */
static bool capture_scan(struct capture_pool *pool, unsigned int site,
			 u64 *slot, struct capture_rec *copy)
{
	struct capture_rec *rec;
	unsigned long flags;
	u64 end;

	while (*slot < pool->nr) {
		end = min_t(u64, *slot + CAPTURE_STEP, pool->nr);
		raw_spin_lock_irqsave(&capture_lock, flags);
		for (; *slot < end; (*slot)++) {
			rec = &pool->recs[*slot];
			if (!rec->key || rec->site != site)
				continue;
			if (copy) {
				*copy = *rec;
				break;
			}
			rec_drop(pool, rec->key);
		}
		raw_spin_unlock_irqrestore(&capture_lock, flags);
		if (*slot < end)
			return true;
		cond_resched();
	}
	return false;
}

/* @tag's site or -1; capture_lock orders this against deselection. */
static int capture_site_locked(struct alloc_tag *tag)
{
	unsigned int flags = READ_ONCE(tag->ct.flags);
	unsigned int site;

	if (!(flags & capture_selected))
		return -1;
	site = (flags >> capture_shift) & (ALLOC_TAG_CAPTURE_MAX_SITES - 1);
	return capture_sites[site].used ? site : -1;
}

/*
 * The first frame to keep: after the outermost allocator entry point, or
 * else, for slab, at @caller, or else 0 (see the design document).
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

static bool capture_tag(struct alloc_tag *tag)
{
	return tag && unlikely(READ_ONCE(tag->ct.flags) & capture_selected);
}

/*
 * Record the stack of a new object of a selected site.  Never fails the
 * allocation: with no record left, the object is counted as dropped.
 * Allocates only what stackdepot needs for a new stack (GFP_NOWAIT).  Any
 * context but NMI, which does not allocate.
 */
static void capture_charge(struct alloc_tag *tag, unsigned long key, int nid,
			   long bytes, unsigned long caller)
{
	depot_stack_handle_t handle = 0;
	struct capture_pool *pool;
	unsigned long *entries;
	unsigned int n, start;
	unsigned long flags;
	bool nested;
	int site;
	u8 bit;

	if (!capture_tag(tag) || in_nmi())
		return;
	/* Untag: KASAN tags a slab pointer after this hook, before kfree(). */
	key = (unsigned long)kasan_reset_tag((void *)key);
	preempt_disable();
	/* Freed only after a grace period, which waits for us. */
	pool = READ_ONCE(capture_pool);
	if (!pool)
		goto enable;
	/* Set: reached from our own stackdepot allocation. */
	bit = BIT(interrupt_context_level());
	nested = __this_cpu_read(capture_busy) & bit;
	if (!nested) {
		/* An interrupt restores what it changes: no atomic needed. */
		__this_cpu_or(capture_busy, bit);
		/* Off the stack: the hook may run deep in an allocation. */
		entries = (*this_cpu_ptr(pool->frames))[interrupt_context_level()];
		n = stack_trace_save(entries, CAPTURE_SAVE_FRAMES, 0);
		n = filter_irq_stacks(entries, n);
		start = capture_trim(entries, n, caller);
		/*
		 * PREEMPT_RT: the page allocator's locks sleep and preemption
		 * is off, so stackdepot may only use the room it has.
		 */
		handle = __stack_depot_save(entries + start,
					    min_t(unsigned int, n - start,
						  CAPTURE_KEEP_FRAMES), 0,
					    GFP_NOWAIT | __GFP_NOWARN,
					    !IS_ENABLED(CONFIG_PREEMPT_RT));
	}
	raw_spin_lock_irqsave(&capture_lock, flags);
	site = capture_site_locked(tag);
	if (site >= 0 && nested)
		capture_sites[site].dropped++;
	else if (site >= 0)
		rec_add(capture_pool, site, key, bytes, handle);
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	if (!nested)
		__this_cpu_and(capture_busy, ~bit);
enable:
	preempt_enable();
}

/* An object is freed: a block's other pages (!@calls) have no record. */
static void capture_uncharge(struct alloc_tag *tag, unsigned long key, int nid,
			     long bytes, int calls)
{
	unsigned long flags;

	if (!calls || !capture_tag(tag))
		return;
	key = (unsigned long)kasan_reset_tag((void *)key);
	raw_spin_lock_irqsave(&capture_lock, flags);
	if (capture_site_locked(tag) >= 0)
		rec_drop(capture_pool, key);
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/*
 * A block became @nr pages (1 when __free_pages() frees all but the still
 * referenced first page): the first page's record keeps a page's bytes,
 * each other page gets its own (or is dropped), a capture_lock hold each:
 * a block can be 1024 pages.
 */
static void capture_page_split(struct alloc_tag *tag, struct page *page,
			       unsigned int nr)
{
	depot_stack_handle_t handle = 0;
	unsigned long flags, each = 0;
	struct capture_rec *rec;
	u32 i = CAPTURE_NIL;
	unsigned int k;
	u64 serial = 0;
	int site;

	if (!capture_tag(tag))
		return;
	raw_spin_lock_irqsave(&capture_lock, flags);
	site = capture_site_locked(tag);
	if (site >= 0)
		i = *rec_link(capture_pool, (unsigned long)page);
	if (i != CAPTURE_NIL) {
		rec = &capture_pool->recs[i];
		each = min_t(unsigned long, rec->bytes, PAGE_SIZE);
		capture_sites[rec->site].bytes -= rec->bytes - each;
		rec->bytes = each;
		handle = rec->handle;
		serial = capture_sites[site].serial;
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	/* Not if the site was deselected meanwhile, even if selected again. */
	for (k = 1; serial && k < nr; k++) {
		raw_spin_lock_irqsave(&capture_lock, flags);
		if (capture_site_locked(tag) == site &&
		    capture_sites[site].serial == serial)
			rec_add(capture_pool, site, (unsigned long)nth_page(page, k),
				each, handle);
		raw_spin_unlock_irqrestore(&capture_lock, flags);
	}
}

/* Migration: the records follow the data, as the tags do. */
static void capture_page_swap(struct page *a, struct alloc_tag *atag,
			      struct page *b, struct alloc_tag *btag,
			      unsigned int nr)
{
	struct capture_pool *pool;
	unsigned long flags;
	u32 i, j;

	if (!capture_tag(atag) && !capture_tag(btag))
		return;
	raw_spin_lock_irqsave(&capture_lock, flags);
	pool = capture_pool;
	if (pool) {
		i = rec_unlink(pool, (unsigned long)a);
		j = rec_unlink(pool, (unsigned long)b);
		rec_insert(pool, i, (unsigned long)b);
		rec_insert(pool, j, (unsigned long)a);
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/* The tags of one site: a header's inline function has one per unit. */
struct capture_walk {
	const char *file;
	unsigned int line;
	const char *mod;		/* "" for vmlinux */
	struct alloc_tag **tags;
	unsigned int n;
};

/*
 * "FILE:LINE" or "FILE:LINE [MODULE]", parsed in place; only exactly as
 * /proc/allocinfo prints it, so that a site has one name.
 */
static int capture_parse(char *s, struct capture_walk *w)
{
	char *mod = strchr(s, ' '), *colon;
	size_t len;

	w->mod = "";
	if (mod) {
		*mod++ = '\0';
		len = strlen(mod);
		if (len < 3 || mod[0] != '[' || mod[len - 1] != ']')
			return -EINVAL;
		mod[len - 1] = '\0';
		w->mod = mod + 1;
	}
	colon = strrchr(s, ':');
	if (!colon || colon == s || colon[1] < '1' || colon[1] > '9' ||
	    kstrtouint(colon + 1, 10, &w->line))
		return -EINVAL;
	*colon = '\0';
	w->file = s;
	return 0;
}

static int capture_walk_one(struct alloc_tag *tag, const char *modname,
			    void *arg)
{
	struct capture_walk *w = arg;
	struct alloc_tag **tags;

	if (tag->ct.lineno != w->line || strcmp(modname, w->mod) ||
	    strcmp(tag->ct.filename, w->file))
		return 0;
	tags = krealloc_array(w->tags, w->n + 1, sizeof(*tags), GFP_KERNEL);
	if (!tags)
		return -ENOMEM;
	w->tags = tags;
	tags[w->n++] = tag;
	return 0;
}

/* The number of the selected site named @name, or -ENOENT. */
static int capture_find_site(const char *name)
{
	int i;

	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
		if (capture_sites[i].used && !strcmp(capture_sites[i].name, name))
			return i;
	return -ENOENT;
}

static void capture_site_free(struct capture_site *site)
{
	kfree(site->name);
	kfree(site->func);
	kfree(site->tags);
	memset(site, 0, sizeof(*site));
}

static void capture_tag_flags(struct capture_site *site, unsigned int i,
			      bool on)
{
	unsigned int t, bits = on ? capture_selected | i << capture_shift : 0;

	for (t = 0; t < site->nr_tags; t++)
		alloc_tag_flags_replace(site->tags[t], capture_flags, bits);
}

/* Tags first, then records; the last site frees the pool, records and all. */
static void capture_deselect(unsigned int i)
{
	struct capture_site *site = &capture_sites[i];
	struct capture_pool *pool;
	unsigned long flags;
	u64 slot = 0;

	lockdep_assert_held(&capture_mutex);
	capture_tag_flags(site, i, false);
	/* From here on the hooks leave the site's records alone. */
	raw_spin_lock_irqsave(&capture_lock, flags);
	site->used = false;
	pool = capture_pool;
	if (!--capture_nr_sites)
		WRITE_ONCE(capture_pool, NULL);
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	if (capture_nr_sites)
		capture_scan(pool, i, &slot, NULL);
	capture_site_free(site);
	if (capture_nr_sites)
		return;
	alloc_tag_consumer_stop(&capture_consumer);
	/*
	 * The hook uses the pool's frames with preemption off, outside
	 * capture_lock: free it once every such section that saw it is over.
	 */
	synchronize_rcu();
	capture_pool_free(pool);
}

/* Under alloc_tag_lock_sites(), which keeps the tags that @s names. */
static int capture_select(char *s)
{
	struct capture_pool *pool = NULL;
	struct capture_walk w = {};
	struct capture_site *site;
	unsigned long flags;
	int i, ret;

	lockdep_assert_held(&capture_mutex);
	if (capture_find_site(s) >= 0)
		return -EEXIST;
	if (capture_nr_sites == ALLOC_TAG_CAPTURE_MAX_SITES)
		return -ENOSPC;
	for (i = 0; capture_sites[i].used; i++)
		;
	site = &capture_sites[i];
	site->name = kstrdup(s, GFP_KERNEL);
	if (!site->name)
		return -ENOMEM;
	ret = capture_parse(s, &w) ?:
	      alloc_tag_for_each(capture_walk_one, &w) ?: (w.n ? 0 : -ENOENT);
	site->tags = w.tags;
	if (ret)
		goto fail;
	ret = -ENOMEM;
	site->func = kstrdup(w.tags[0]->ct.function, GFP_KERNEL);
	if (!site->func || stack_depot_init())
		goto fail;
	if (!capture_pool) {
		pool = capture_pool_alloc(capture_cap);
		if (!pool)
			goto fail;
	}
	site->serial = ++capture_serial;
	site->nr_tags = w.n;
	raw_spin_lock_irqsave(&capture_lock, flags);
	if (pool)
		WRITE_ONCE(capture_pool, pool);
	site->used = true;
	capture_nr_sites++;
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	capture_tag_flags(site, i, true);
	if (capture_nr_sites == 1)
		alloc_tag_consumer_start(&capture_consumer);
	return 0;
fail:
	capture_site_free(site);
	return ret;
}

/*
 * "FILE:LINE [MODULE]" selects a site, "-FILE:LINE [MODULE]" deselects it,
 * "clear" all; a failure changes nothing.
 */
static int alloc_tag_capture_command(const char *cmd)
{
	char *buf, *s;
	int ret, i;

	buf = kstrdup(cmd, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = alloc_tag_lock_sites();
	if (ret)
		goto out;
	s = strim(buf);
	mutex_lock(&capture_mutex);
	if (!strcmp(s, "clear")) {
		for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
			if (capture_sites[i].used)
				capture_deselect(i);
	} else if (*s == '-') {
		ret = capture_find_site(s + 1);
		if (ret >= 0) {
			capture_deselect(ret);
			ret = 0;
		}
	} else {
		ret = capture_select(s);
	}
	mutex_unlock(&capture_mutex);
	alloc_tag_unlock_sites();
out:
	kfree(buf);
	return ret;
}

/* The pool is sized by the cap when the first site is selected. */
static int capture_cap_set(const char *val, const struct kernel_param *kp)
{
	int ret = -EBUSY;

	mutex_lock(&capture_mutex);
	if (!capture_nr_sites)
		ret = param_set_uint_minmax(val, kp, CAPTURE_MIN_CAP,
					    CAPTURE_MAX_CAP);
	mutex_unlock(&capture_mutex);
	return ret;
}

static const struct kernel_param_ops capture_cap_ops = {
	.set	= capture_cap_set,
	.get	= param_get_uint,
};
module_param_cb(cap, &capture_cap_ops, &capture_cap, 0644);
MODULE_PARM_DESC(cap, "live objects recorded over all sites, 16 to 1048576");

/* A module's @tags are released; alloc_tag_lock_sites() held for writing. */
static void capture_drop_tags(struct alloc_tag *tags, size_t n)
{
	unsigned int i;

	mutex_lock(&capture_mutex);
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		struct capture_site *site = &capture_sites[i];

		if (!site->used || site->tags[0] < tags ||
		    site->tags[0] >= tags + n)
			continue;
		pr_info("%s: the module's tags are released; site deselected\n",
			site->name);
		capture_deselect(i);
	}
	mutex_unlock(&capture_mutex);
}

/*
 * The stacks file: a header, then per selected site its line and a line per
 * live object; a stack's frames follow the first object naming it.  Position
 * 0 is the header, else 1 + site * (CAPTURE_MAX_CAP + 1) + (0 for the site's
 * line, or 1 + slot).  Each read() holds capture_mutex, which keeps the sites
 * and the pool, and copies one record at a time.  A site deselected between
 * read()s, its slot perhaps reused, is told by its serial and skipped.
 */
struct stacks_iter {
	struct xarray seen;		/* handles whose frames were printed */
	u64 serial;			/* of the site whose line was printed */
	struct capture_rec rec;
};

#define STACKS_PER_SITE		((u64)CAPTURE_MAX_CAP + 1)

/* The site at @pos or after it, or its next record: a site or &it->rec. */
static void *stacks_seek(struct seq_file *m, loff_t *pos)
{
	struct stacks_iter *it = m->private;
	u64 slot, i;

	if (!*pos) {
		/* Read again from the start: print every stack's frames again. */
		xa_destroy(&it->seen);
		return SEQ_START_TOKEN;
	}
	for (; capture_pool; *pos = 1 + (i + 1) * STACKS_PER_SITE) {
		i = div64_u64_rem(*pos - 1, STACKS_PER_SITE, &slot);
		if (i >= ALLOC_TAG_CAPTURE_MAX_SITES)
			return NULL;
		if (!capture_sites[i].used)
			continue;
		if (!slot) {
			it->serial = capture_sites[i].serial;
			return &capture_sites[i];
		}
		if (capture_sites[i].serial != it->serial)
			continue;
		slot--;
		if (capture_scan(capture_pool, i, &slot, &it->rec)) {
			*pos = 1 + i * STACKS_PER_SITE + 1 + slot;
			return &it->rec;
		}
	}
	return NULL;
}

static void *stacks_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&capture_mutex);
	return stacks_seek(m, pos);
}

static void *stacks_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return stacks_seek(m, pos);
}

static void stacks_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&capture_mutex);
}

static void stacks_show_site(struct seq_file *m, struct capture_site *site)
{
	struct alloc_tag_counters c, sum = {};
	unsigned long flags;
	u64 bytes, dropped;
	unsigned int t;
	u32 records;

	raw_spin_lock_irqsave(&capture_lock, flags);
	bytes = site->bytes;
	dropped = site->dropped;
	records = site->records;
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	for (t = 0; t < site->nr_tags; t++) {
		c = alloc_tag_read(site->tags[t]);
		sum.bytes += c.bytes;
		sum.calls += c.calls;
	}
	seq_printf(m, "site %s func:%s bytes:%llu calls:%u dropped:%llu site_bytes:%llu site_calls:%llu\n",
		   site->name, site->func, bytes, records, dropped, sum.bytes,
		   sum.calls);
}

static int stacks_show(struct seq_file *m, void *v)
{
	struct stacks_iter *it = m->private;
	unsigned long *entries;
	unsigned int i, n;
	u32 seen;

	if (v == SEQ_START_TOKEN)
		seq_puts(m, "allocinfo stacks - version: 2.0\n");
	else if (v != &it->rec)
		stacks_show_site(m, v);
	if (v != &it->rec)
		return 0;
	seq_printf(m, "object %u %lu\n", it->rec.handle, it->rec.bytes);
	/*
	 * A handle's low bits are its depot slab, bits 16 up (4 KiB pages) its
	 * offset: rotated, one slab's stacks share @seen's nodes, not 2 each.
	 */
	seen = ror32(it->rec.handle, 16);
	if (!it->rec.handle || xa_load(&it->seen, seen))
		return 0;
	seq_printf(m, "stack %u\n", it->rec.handle);
	n = stack_depot_fetch(it->rec.handle, &entries);
	for (i = 0; i < n; i++)
		seq_printf(m, "  %pS\n", (void *)entries[i]);
	/* Should the buffer be too small, this object is shown again. */
	if (!seq_has_overflowed(m))
		xa_store(&it->seen, seen, xa_mk_value(1), GFP_KERNEL);
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
	struct stacks_iter *it;

	it = __seq_open_private(file, &stacks_seq_ops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	xa_init(&it->seen);
	return 0;
}

static int stacks_release(struct inode *inode, struct file *file)
{
	struct stacks_iter *it = ((struct seq_file *)file->private_data)->private;

	xa_destroy(&it->seen);
	return seq_release_private(inode, file);
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
	unsigned long flags;
	u64 dropped = 0;
	u32 records = 0;
	int i;

	mutex_lock(&capture_mutex);
	raw_spin_lock_irqsave(&capture_lock, flags);
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		records += capture_sites[i].records;
		dropped += capture_sites[i].dropped;
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	seq_printf(m, "cap %u records %u dropped %llu memory %zu\n",
		   capture_cap, records, dropped,
		   capture_pool ? capture_pool->bytes : 0);
	/* The sites' counts are in the stacks file. */
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++)
		if (capture_sites[i].used)
			seq_printf(m, "site %s func:%s tags:%u\n",
				   capture_sites[i].name, capture_sites[i].func,
				   capture_sites[i].nr_tags);
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
	char *buf;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	buf = memdup_user_nul(ubuf, min_t(size_t, count, CAPTURE_CMD_MAX));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* One whole command per write: none of it hidden after a NUL. */
	if (count >= CAPTURE_CMD_MAX || strlen(buf) != count)
		ret = -EINVAL;
	else
		ret = alloc_tag_capture_command(buf);
	if (ret)
		pr_warn_ratelimited("'%s': %pe\n", strim(buf), ERR_PTR(ret));
	kfree(buf);
	return ret ?: count;
}

static const struct file_operations capture_fops = {
	.owner		= THIS_MODULE,
	.open		= capture_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.write		= capture_write,
	.release	= single_release,
};

static struct alloc_tag_consumer capture_consumer = {
	.release	= capture_drop_tags,
	.charge		= capture_charge,
	.uncharge	= capture_uncharge,
	.page_split	= capture_page_split,
	.page_swap	= capture_page_swap,
};

static int __init alloc_tag_capture_init(void)
{
	struct dentry *dir;

	/* A flag and the site's number (3 bits). */
	capture_flags = alloc_tag_flags_reserve(4);
	if (!capture_flags) {
		pr_err("no flag bits left: capture is not available\n");
		return -ENOSPC;
	}
	capture_shift = __ffs(capture_flags);
	capture_selected = BIT(capture_shift + 3);
	alloc_tag_consumer_register(&capture_consumer);
	dir = debugfs_create_dir("allocinfo", NULL);
	debugfs_create_file("capture", 0600, dir, NULL, &capture_fops);
	debugfs_create_file("stacks", 0400, dir, NULL, &stacks_fops);
	return 0;
}
late_initcall(alloc_tag_capture_init);

#ifdef CONFIG_MEM_ALLOC_PROFILING_CAPTURE_KUNIT_TEST
#include "alloc_tag_capture_kunit.c"
#endif /* CONFIG_MEM_ALLOC_PROFILING_CAPTURE_KUNIT_TEST */
