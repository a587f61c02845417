/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation tags for pages: which call site a page (or a higher-order block
 * of pages) was charged to.
 *
 * A page remembers its tag as a small index, not a pointer: in spare bits of
 * page->flags when the configuration leaves enough of them (no memory per
 * page at all), otherwise in a 4-byte slot per page frame.  Only the first
 * page of an allocation carries the index; splitting copies it to the other
 * pages, migration moves it to the new page.
 *
 * The hooks are called by the page allocator; each is an inline test of a
 * static key around an out-of-line function, always inlined so that while
 * profiling is off a hook is the patched branch and nothing else.
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
void __pgalloc_tag_move(struct page *dst, struct page *src, unsigned int nr);

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
 * @page: first page of the block; its refcount is zero (the tag is
 *	cleared with a plain store)
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
 * Return: the tag's number for a non-compound block of order > 0, else 0
 * (also while no tag can be set).
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
 * @page: first page of the block
 * @tag: what pgalloc_tag_peek() returned for the block before the caller
 *	dropped its reference (the first page may have been freed since,
 *	and its tag cleared, by the holder of another reference)
 * @order: order of the block
 *
 * For a non-compound block whose other pages are freed now, while the
 * first page stays allocated.
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
 * Each page gets the block's tag, and the tag one call per extra page, so
 * that freeing the pages one by one brings bytes and calls back to zero.
 */
static __always_inline void pgalloc_tag_split(struct page *page,
					      unsigned int nr)
{
	if (nr > 1 && mem_alloc_profiling_ever_enabled())
		__pgalloc_tag_split(page, nr);
}

/**
 * pgalloc_tag_move() - migration: the data of @src now lives in @dst
 * @dst: first page of the new block
 * @src: first page of the old block
 * @nr: number of pages of each
 *
 * @dst takes over @src's tag (giving up what its own allocation charged);
 * @src is left untagged, so freeing it releases nothing.  Nothing moves to
 * or from a ZONE_DEVICE page: those are not page allocator pages, and the
 * system RAM page releases its charge when it is freed.
 */
static __always_inline void pgalloc_tag_move(struct page *dst,
					     struct page *src, unsigned int nr)
{
	if (mem_alloc_profiling_ever_enabled())
		__pgalloc_tag_move(dst, src, nr);
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
static inline void pgalloc_tag_move(struct page *dst, struct page *src,
				    unsigned int nr) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_PGALLOC_TAG_H */
