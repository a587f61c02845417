/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page allocation tags: a block's first page keeps its tag's number, in
 * page->flags or in a 4-byte slot per page frame (see lib/alloc_tag.c).
 * Off, each hook is a patched branch; on, a block's charge and uncharge are
 * in line, as the page allocator's other per-page work is.
 */
#ifndef _LINUX_PGALLOC_TAG_H
#define _LINUX_PGALLOC_TAG_H

#include <linux/alloc_tag.h>

struct page;

#ifdef CONFIG_MEM_ALLOC_PROFILING

#include <linux/mm.h>
#include <linux/sched.h>

#define PGTAG_FLAGS_MASK	(ALLOC_TAG_WIDTH ?				\
				 GENMASK(ALLOC_TAG_PGOFF + ALLOC_TAG_WIDTH - 1, \
					 ALLOC_TAG_PGOFF) : 0UL)

/* Module numbers, above the vmlinux tags'; a free number is NULL. */
struct pgtag_mod_table {
	u32 size;
	struct alloc_tag *tags[];
};

DECLARE_STATIC_KEY_FALSE(pgtag_array_key);
extern u32 *pgtag_slots;
extern struct pgtag_mod_table *pgtag_mod_table;
extern u32 pgtag_nr_vmlinux;

void __pgalloc_tag_unknown(u32 idx);
void __pgalloc_tag_sub_extras(struct alloc_tag *tag, struct page *page,
			      unsigned int nr, int calls);
#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
void __pgalloc_tag_untagged(struct alloc_tag *tag, struct page *page);
#else
static inline void __pgalloc_tag_untagged(struct alloc_tag *tag,
					  struct page *page) {}
#endif
unsigned int __pgalloc_tag_peek(struct page *page);
void __pgalloc_tag_sub_tail(struct page *page, unsigned int idx,
			    unsigned int nr);
void __pgalloc_tag_split(struct page *page, unsigned int nr);
void __pgalloc_tag_swap(struct page *dst, struct page *src, unsigned int nr);

static __always_inline bool pgtag_in_array(void)
{
	return !ALLOC_TAG_WIDTH || static_branch_unlikely(&pgtag_array_key);
}

/*
 * The array slot of @page.  The hooks see only pages of online memory after
 * the first switch-on, whose slots are backed (see lib/alloc_tag.c).
 */
static __always_inline u32 *pgtag_slot(struct page *page)
{
	return &pgtag_slots[page_to_pfn(page)];
}

static __always_inline u32 pgtag_get(struct page *page)
{
	if (pgtag_in_array())
		return READ_ONCE(*pgtag_slot(page));
	return (READ_ONCE(page->flags) & PGTAG_FLAGS_MASK) >> ALLOC_TAG_PGOFF;
}

/*
 * A page being allocated (!@in_use) is held by nobody else: plain store, as
 * prep_new_page() does for PG_head.  In use, other flag bits may change
 * meanwhile: cmpxchg.
 */
static __always_inline void pgtag_store(struct page *page, u32 idx,
					bool in_use)
{
	unsigned long old, new;

	if (pgtag_in_array()) {
		WRITE_ONCE(*pgtag_slot(page), idx);
		return;
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

/* The module tag of number @idx, or NULL; no RCU: see lib/alloc_tag.c. */
static __always_inline struct alloc_tag *alloc_tag_from_mod_index(u32 idx)
{
	/* Pairs with smp_store_release() in lib/alloc_tag.c. */
	const struct pgtag_mod_table *table = READ_ONCE(pgtag_mod_table);

	idx -= pgtag_nr_vmlinux + 1;
	return likely(idx < table->size) ? READ_ONCE(table->tags[idx]) : NULL;
}

/* The tag of number @idx (not 0), or NULL. */
static __always_inline struct alloc_tag *alloc_tag_from_index(u32 idx)
{
	if (likely(idx <= pgtag_nr_vmlinux))
		return &__start_alloc_tags[idx - 1];
	return alloc_tag_from_mod_index(idx);
}

/**
 * pgalloc_tag_add() - charge a new block of pages to the current tag
 * @page: first page of the block
 * @order: order of the block
 *
 * A module tag left without a number (marked accurate:no) charges no block.
 */
static __always_inline void pgalloc_tag_add(struct page *page,
					    unsigned int order)
{
	struct alloc_tag *tag;
	u32 idx;

	if (!mem_alloc_profiling_enabled())
		return;
	tag = current->alloc_tag;
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		__pgalloc_tag_untagged(tag, page);
	if (unlikely(!alloc_tag_is_real(tag)))
		return;
	idx = alloc_tag_to_index(tag);
	if (unlikely(!idx))
		return;
	pgtag_store(page, idx, false);
	alloc_tag_counters_add(tag, (s64)PAGE_SIZE << order, 1);
	if (alloc_tag_extras_enabled())
		alloc_tag_extras_charge(tag, (unsigned long)page,
					page_to_nid(page),
					(long)PAGE_SIZE << order, 0);
}

/**
 * pgalloc_tag_sub() - release the charge of a block of pages being freed
 * @page: first page of the block; refcount zero, so a plain store clears it
 * @order: order of the block
 */
static __always_inline void pgalloc_tag_sub(struct page *page,
					    unsigned int order)
{
	struct alloc_tag *tag;
	u32 idx;

	if (!mem_alloc_profiling_ever_enabled())
		return;
	idx = pgtag_take_freed(page);
	if (!idx)
		return;
	/* A vmlinux tag is never NULL: only a module's number is tested. */
	if (likely(idx <= pgtag_nr_vmlinux)) {
		tag = &__start_alloc_tags[idx - 1];
	} else {
		tag = alloc_tag_from_mod_index(idx);
		if (unlikely(!tag)) {
			__pgalloc_tag_unknown(idx);
			return;
		}
	}
	if (alloc_tag_extras_free_enabled())
		__pgalloc_tag_sub_extras(tag, page, 1U << order, 1);
	else
		alloc_tag_counters_add(tag, -((s64)PAGE_SIZE << order), -1);
}

/**
 * pgalloc_tag_peek() - the tag of a block, for pgalloc_tag_sub_tail()
 * @page: first page of the block
 * @order: order of the block
 * @head: the block is a compound page
 *
 * Return: the tag number of a non-compound block of order > 0, else 0.
 */
static __always_inline unsigned int pgalloc_tag_peek(struct page *page,
						     unsigned int order,
						     bool head)
{
	if (mem_alloc_profiling_ever_enabled() && order && !head)
		return __pgalloc_tag_peek(page);
	return 0;
}

/**
 * pgalloc_tag_sub_tail() - release all but the first page of a block
 * @page: first page of a non-compound block whose other pages are freed now
 * @tag: pgalloc_tag_peek()'s result from before the caller dropped its
 *	reference: another holder may since have freed the first page
 * @order: order of the block
 */
static __always_inline void pgalloc_tag_sub_tail(struct page *page,
						 unsigned int tag,
						 unsigned int order)
{
	if (tag)
		__pgalloc_tag_sub_tail(page, tag, (1U << order) - 1);
}

/**
 * pgalloc_tag_split() - a block becomes @nr separately freed pages
 * @page: first page of the block
 * @nr: number of pages in the block
 *
 * Each page gets the block's tag, charged a call per extra page for its free.
 */
static __always_inline void pgalloc_tag_split(struct page *page,
					      unsigned int nr)
{
	if (nr > 1 && mem_alloc_profiling_ever_enabled())
		__pgalloc_tag_split(page, nr);
}

/**
 * pgalloc_tag_swap() - migration: the data of @src now lives in @dst
 * @dst: first page of the new block
 * @src: first page of the old block
 * @nr: number of pages of each
 *
 * The blocks exchange their tags: @dst's charge goes with the data, and
 * @src releases @dst's own when it is freed, or keeps it if it stays in
 * use (a hugetlb page going back to its pool).  Nothing moves to or from a
 * ZONE_DEVICE page (not from the page allocator).
 */
static __always_inline void pgalloc_tag_swap(struct page *dst,
					     struct page *src, unsigned int nr)
{
	if (mem_alloc_profiling_ever_enabled())
		__pgalloc_tag_swap(dst, src, nr);
}

#else /* CONFIG_MEM_ALLOC_PROFILING */

static inline void pgalloc_tag_add(struct page *page, unsigned int order) {}
static inline void pgalloc_tag_sub(struct page *page, unsigned int order) {}
static inline unsigned int pgalloc_tag_peek(struct page *page,
					    unsigned int order, bool head)
{
	return 0;
}

static inline void pgalloc_tag_sub_tail(struct page *page, unsigned int tag,
					unsigned int order) {}
static inline void pgalloc_tag_split(struct page *page, unsigned int nr) {}
static inline void pgalloc_tag_swap(struct page *dst, struct page *src,
				    unsigned int nr) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_PGALLOC_TAG_H */
