/* SPDX-License-Identifier: GPL-2.0 */
/* Code tagging: a static tag per call site, starting with struct codetag. */
#ifndef _LINUX_CODETAG_H
#define _LINUX_CODETAG_H

#include <linux/types.h>

struct module;
struct seq_buf;
struct codetag_type;

/**
 * struct codetag - the part of a tag that identifies its call site
 * @flags: free for the tag type to use
 * @lineno: source line of the call site
 * @modname: KBUILD_MODNAME of the object the tag was compiled into
 * @function: function containing the call site
 * @filename: source file of the call site
 *
 * 32 bytes on 64-bit; 8-byte aligned so a section packs as a walkable array.
 */
struct codetag {
	unsigned int flags;
	unsigned int lineno;
	const char *modname;
	const char *function;
	const char *filename;
} __aligned(8);

#define CODE_TAG_INIT {					\
	.lineno		= __LINE__,			\
	.modname	= KBUILD_MODNAME,		\
	.function	= __func__,			\
	.filename	= __FILE__,			\
}

/**
 * struct codetag_range - the tags of one type in vmlinux or in one module
 * @start: first tag
 * @stop: end of the tags
 * @mod: the module, or NULL for vmlinux and for an unloaded module
 * @modname: the module's name ("" for vmlinux); stays valid after unload
 * @reported: free for the tag type (alloc_tag's "unloaded while live")
 */
struct codetag_range {
	struct codetag *start;
	struct codetag *stop;
	struct module *mod;
	const char *modname;
	bool reported;
};

/**
 * codetag_range_unloaded() - is @range the tags of a module that is gone?
 * @range: a range of tags
 *
 * Return: true if @range is of an unloaded module whose tags are kept.
 */
static inline bool codetag_range_unloaded(const struct codetag_range *range)
{
	return !range->mod && range->modname[0];
}

/**
 * struct codetag_type_desc - what a tag type tells the framework
 * @section: ELF section name holding the tags (a valid C identifier)
 * @tag_size: size of one tag, a multiple of 8 and at least sizeof(codetag)
 * @vmlinux_start: first tag in vmlinux (linker-provided __start_<section>)
 * @vmlinux_stop: end of the tags in vmlinux (__stop_<section>)
 * @module_load: optional, at a module's load, before it runs; non-zero fails it
 * @module_unload: optional, called when a module with such tags goes away,
 *	then (range->mod NULL) at each module load or unload for as long as it
 *	returns true: the tags are still referenced and are kept, with copies of
 *	their strings.  Release what @module_load set up only on false.
 */
struct codetag_type_desc {
	const char *section;
	size_t tag_size;
	struct codetag *vmlinux_start;
	struct codetag *vmlinux_stop;
	int (*module_load)(struct codetag_type *cttype,
			   struct codetag_range *range);
	bool (*module_unload)(struct codetag_type *cttype,
			      struct codetag_range *range);
};

/**
 * struct codetag_iterator - position in a walk over all tags of a type
 * @cttype: the type being walked
 * @range: range of the current tag
 * @ct: current tag, NULL before the first and after the last
 * @range_id: internal: id of the range, to resume after the lock was dropped
 * @index: internal: index of @ct in @range
 * @node: internal: the range, valid while the type's generation is @gen
 * @gen: internal
 */
struct codetag_iterator {
	struct codetag_type *cttype;
	struct codetag_range *range;
	struct codetag *ct;
	unsigned long range_id;
	unsigned long index;
	void *node;
	unsigned long gen;
};

#ifdef CONFIG_CODE_TAGGING
struct codetag_type *codetag_register_type(const struct codetag_type_desc *desc);
void codetag_lock_module_list(struct codetag_type *cttype);
bool codetag_trylock_module_list(struct codetag_type *cttype);
void codetag_unlock_module_list(struct codetag_type *cttype);
void codetag_lock_module_list_write(struct codetag_type *cttype);
void codetag_unlock_module_list_write(struct codetag_type *cttype);
struct codetag_iterator codetag_get_ct_iter(struct codetag_type *cttype);
struct codetag *codetag_next_ct(struct codetag_iterator *iter);
void codetag_to_text(struct seq_buf *out, const struct codetag *ct,
		     const struct codetag_range *range);
size_t codetag_type_count(struct codetag_type *cttype);
unsigned long codetag_type_generation(struct codetag_type *cttype);
#endif /* CONFIG_CODE_TAGGING */

#if defined(CONFIG_CODE_TAGGING) && defined(CONFIG_MODULES)
bool codetag_module_section(const char *name);
void *codetag_place_module_section(struct module *mod, const char *name,
				   const void *src, size_t size);
int codetag_load_module(struct module *mod);
void codetag_unload_module(struct module *mod);
#else
/* The module loader calls these unconditionally. */
static inline bool codetag_module_section(const char *name) { return false; }
static inline int codetag_load_module(struct module *mod) { return 0; }
static inline void codetag_unload_module(struct module *mod) {}
static inline void *codetag_place_module_section(struct module *mod,
						 const char *name,
						 const void *src, size_t size)
{
	return NULL;
}
#endif

#endif /* _LINUX_CODETAG_H */
