/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-stack capture for chosen allocation call sites
 * (lib/alloc_tag_capture.c).  A selected tag carries ALLOC_TAG_CAPTURE in
 * its codetag.flags.  Each hook below is a static branch, patched out
 * while no site is selected, then a test of that flag, and only for a
 * selected tag a call into lib/alloc_tag_capture.c.
 */
#ifndef _LINUX_ALLOC_TAG_CAPTURE_H
#define _LINUX_ALLOC_TAG_CAPTURE_H

#include <linux/alloc_tag.h>
#include <linux/bits.h>
#include <linux/types.h>

struct page;

/*
 * The most sites that can be selected at once: ALLOC_TAG_CAPTURE_SITE in
 * <linux/alloc_tag.h> numbers them.
 */
#define ALLOC_TAG_CAPTURE_MAX_SITES	8

#ifdef CONFIG_MEM_ALLOC_PROFILING_CAPTURE

#include <linux/compiler.h>
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(alloc_tag_capture_key);

void __alloc_tag_capture_add(struct alloc_tag *tag, unsigned long key,
			     unsigned long bytes, unsigned long caller);
void __alloc_tag_capture_sub(struct alloc_tag *tag, unsigned long key);
void __alloc_tag_capture_page_split(struct alloc_tag *tag, struct page *page,
				    unsigned int nr);
void __alloc_tag_capture_page_move(struct alloc_tag *tag, struct page *dst,
				   struct page *src);
void __alloc_tag_capture_page_detach(struct alloc_tag *tag,
				     struct page *page);

/**
 * alloc_tag_capture_enabled() - is any call site selected for capture?
 *
 * Return: true while at least one site is selected; a patched-out jump
 * otherwise.
 */
static __always_inline bool alloc_tag_capture_enabled(void)
{
	return static_branch_unlikely(&alloc_tag_capture_key);
}

/**
 * alloc_tag_capture_selected() - is @tag's site selected for capture?
 * @tag: a tag, or NULL or ALLOC_TAG_NONE
 *
 * Return: true if @tag is a real tag whose site is selected.
 */
static __always_inline bool alloc_tag_capture_selected(struct alloc_tag *tag)
{
	return alloc_tag_is_real(tag) &&
	       unlikely(READ_ONCE(tag->ct.flags) & ALLOC_TAG_CAPTURE);
}

/**
 * alloc_tag_capture_add() - record the stack of an allocation just charged
 * @tag: the tag it was charged to
 * @key: the object's address (slab, per-CPU) or its struct page (pages)
 * @bytes: what was charged
 * @caller: return address into the caller of the allocator's entry point,
 *	if known (slab), or 0; used to leave the allocator's own frames out
 *
 * Context: any context the allocation was made in.
 */
static __always_inline void alloc_tag_capture_add(struct alloc_tag *tag,
						  unsigned long key,
						  unsigned long bytes,
						  unsigned long caller)
{
	if (alloc_tag_capture_enabled() && alloc_tag_capture_selected(tag))
		__alloc_tag_capture_add(tag, key, bytes, caller);
}

/**
 * alloc_tag_capture_sub() - an object charged to @tag is being freed
 * @tag: the tag it is uncharged from
 * @key: as given to alloc_tag_capture_add()
 *
 * Context: any context.
 */
static __always_inline void alloc_tag_capture_sub(struct alloc_tag *tag,
						  unsigned long key)
{
	if (alloc_tag_capture_enabled() && alloc_tag_capture_selected(tag))
		__alloc_tag_capture_sub(tag, key);
}

/**
 * alloc_tag_capture_page_split() - a block of pages became @nr pages
 * @tag: the block's tag
 * @page: the first page
 * @nr: number of pages, each now freed on its own
 */
static __always_inline void alloc_tag_capture_page_split(struct alloc_tag *tag,
							 struct page *page,
							 unsigned int nr)
{
	if (alloc_tag_capture_enabled() && alloc_tag_capture_selected(tag))
		__alloc_tag_capture_page_split(tag, page, nr);
}

/**
 * alloc_tag_capture_page_move() - migration moved @src's data to @dst
 * @tag: the tag that @dst took over from @src
 * @dst: first page of the new block
 * @src: first page of the old block
 */
static __always_inline void alloc_tag_capture_page_move(struct alloc_tag *tag,
							struct page *dst,
							struct page *src)
{
	if (alloc_tag_capture_selected(tag))
		__alloc_tag_capture_page_move(tag, dst, src);
}

/**
 * alloc_tag_capture_page_detach() - all but the first page may be freed
 * @tag: the tag of the non-compound block that starts at @page
 * @page: its first page
 *
 * __free_pages() of a non-compound block releases the other pages at once
 * if someone else holds a reference to the first one.
 */
static __always_inline void alloc_tag_capture_page_detach(struct alloc_tag *tag,
							  struct page *page)
{
	if (alloc_tag_capture_selected(tag))
		__alloc_tag_capture_page_detach(tag, page);
}

#else /* CONFIG_MEM_ALLOC_PROFILING_CAPTURE */

static inline bool alloc_tag_capture_enabled(void)
{
	return false;
}

static inline void alloc_tag_capture_add(struct alloc_tag *tag,
					 unsigned long key, unsigned long bytes,
					 unsigned long caller)
{
}

static inline void alloc_tag_capture_sub(struct alloc_tag *tag,
					 unsigned long key)
{
}

static inline void alloc_tag_capture_page_split(struct alloc_tag *tag,
						struct page *page,
						unsigned int nr)
{
}

static inline void alloc_tag_capture_page_move(struct alloc_tag *tag,
					       struct page *dst,
					       struct page *src)
{
}

static inline void alloc_tag_capture_page_detach(struct alloc_tag *tag,
						 struct page *page)
{
}

#endif /* CONFIG_MEM_ALLOC_PROFILING_CAPTURE */

#endif /* _LINUX_ALLOC_TAG_CAPTURE_H */
