/* SPDX-License-Identifier: GPL-2.0 */
/* Call-stack capture for selected allocation call sites. */
#ifndef _LINUX_ALLOC_TAG_CAPTURE_H
#define _LINUX_ALLOC_TAG_CAPTURE_H

#include <linux/alloc_tag.h>
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/types.h>

struct page;

/* The most sites selected at once: the ALLOC_TAG_CAPTURE_SITE bits. */
#define ALLOC_TAG_CAPTURE_MAX_SITES					\
	((ALLOC_TAG_CAPTURE_SITE >> ALLOC_TAG_CAPTURE_SITE_SHIFT) + 1)

#ifdef CONFIG_MEM_ALLOC_PROFILING_CAPTURE
DECLARE_STATIC_KEY_FALSE(alloc_tag_capture_key);

/**
 * alloc_tag_capture_enabled() - is any call site selected for capture?
 *
 * Return: true if so; a static branch, patched out while none is.
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
	return alloc_tag_capture_enabled() && alloc_tag_is_real(tag) &&
	       unlikely(READ_ONCE(tag->ct.flags) & ALLOC_TAG_CAPTURE);
}
#else
static __always_inline bool alloc_tag_capture_enabled(void)
{
	return false;
}

static __always_inline bool alloc_tag_capture_selected(struct alloc_tag *tag)
{
	return false;
}
#endif /* CONFIG_MEM_ALLOC_PROFILING_CAPTURE */

/* lib/alloc_tag_capture.c: only for a tag alloc_tag_capture_selected(). */
void __alloc_tag_capture_add(struct alloc_tag *tag, unsigned long key,
			     unsigned long bytes, unsigned long caller);
void __alloc_tag_capture_sub(struct alloc_tag *tag, unsigned long key);
void __alloc_tag_capture_page_split(struct alloc_tag *tag, struct page *page,
				    unsigned int nr);
void __alloc_tag_capture_page_swap(struct page *a, struct page *b);

/**
 * alloc_tag_capture_add() - record the stack of an allocation just charged
 * @tag: the tag it was charged to
 * @key: the object's address (slab, per-CPU) or its struct page (pages)
 * @bytes: what was charged
 * @caller: where the slab allocator returns to, or 0; trims its frames
 *
 * Context: any context the allocation was made in.
 */
static __always_inline void alloc_tag_capture_add(struct alloc_tag *tag,
						  unsigned long key,
						  unsigned long bytes,
						  unsigned long caller)
{
	if (alloc_tag_capture_selected(tag))
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
	if (alloc_tag_capture_selected(tag))
		__alloc_tag_capture_sub(tag, key);
}

#endif /* _LINUX_ALLOC_TAG_CAPTURE_H */
