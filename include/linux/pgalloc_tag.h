/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page allocation tags: a block's first page keeps its tag's number, in
 * page->flags or in a 4-byte slot per page frame.  While profiling is off
 * each hook is a patched branch and nothing else.
 */
#ifndef _LINUX_PGALLOC_TAG_H
#define _LINUX_PGALLOC_TAG_H

#include <linux/alloc_tag.h>

struct page;

#ifdef CONFIG_MEM_ALLOC_PROFILING

void __pgalloc_tag_add(struct page *page, unsigned int nr);
void __pgalloc_tag_sub(struct page *page, unsigned int nr);
unsigned int __pgalloc_tag_peek(struct page *page);
void __pgalloc_tag_sub_tail(struct page *page, unsigned int tag,
			    unsigned int nr);
void __pgalloc_tag_split(struct page *page, unsigned int nr);
void __pgalloc_tag_swap(struct page *dst, struct page *src, unsigned int nr);

/**
 * pgalloc_tag_add() - charge a new block of pages to the current tag
 * @page: first page of the block
 * @order: order of the block
 */
static __always_inline void pgalloc_tag_add(struct page *page,
					    unsigned int order)
{
	if (mem_alloc_profiling_enabled())
		__pgalloc_tag_add(page, 1U << order);
}

/**
 * pgalloc_tag_sub() - release the charge of a block of pages being freed
 * @page: first page of the block; refcount zero, so a plain store clears it
 * @order: order of the block
 */
static __always_inline void pgalloc_tag_sub(struct page *page,
					    unsigned int order)
{
	if (mem_alloc_profiling_ever_enabled())
		__pgalloc_tag_sub(page, 1U << order);
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
