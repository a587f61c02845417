// SPDX-License-Identifier: GPL-2.0-only
/*
 * Code tagging: finds each tag type's tags in vmlinux and in modules as they
 * load; the type walks them under its rw_semaphore, which module load and
 * unload take for writing.  Module tags can outlive their module: see
 * Documentation/mm/allocation-profiling-design.rst.  No hot paths here.
 */
#define pr_fmt(fmt) "codetag: " fmt

#include <linux/codetag.h>
#include <linux/genalloc.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleloader.h>
#include <linux/sizes.h>
#include <linux/rwsem.h>
#include <linux/seq_buf.h>
#include <linux/set_memory.h>
#include <linux/slab.h>
#include <linux/string.h>

/*
 * One range of tags: vmlinux, or one type's section in one module, which
 * the range owns from its placement on.  Listed in its type from the
 * module's load, and until then in its module's placed list.
 */
struct ct_range {
	struct codetag_range r;
	struct list_head node;		/* in codetag_type.ranges, by id */
	unsigned long id;
	struct codetag_type *cttype;
	struct ct_module *cmod;		/* NULL for vmlinux */
	char *strings;			/* copies made at unload, or NULL */
};

/* A module that carries tags of at least one type. */
struct ct_module {
	struct list_head node;		/* in ct_modules */
	struct module *mod;		/* NULL once unloaded */
	char name[MODULE_NAME_LEN];
	unsigned int nr_ranges;		/* ranges placed or listed */
	struct list_head placed;	/* ranges not listed yet */
};

struct codetag_type {
	struct list_head node;		/* in codetag_types */
	struct codetag_type_desc desc;
	struct rw_semaphore lock;	/* protects ranges, next_id, count, gen */
	struct list_head ranges;
	unsigned long next_id;
	unsigned long gen;		/* changes when ranges come or go */
	size_t count;
};

/* Protects these lists, ct_chunks and placed ranges; outside types' locks. */
static DEFINE_MUTEX(codetag_lock);
static LIST_HEAD(codetag_types);
static LIST_HEAD(ct_modules);

static size_t range_size(struct codetag_type *cttype, struct codetag_range *r)
{
	return ((char *)r->stop - (char *)r->start) / cttype->desc.tag_size;
}

static struct codetag *range_tag(struct codetag_type *cttype,
				 struct codetag_range *r, unsigned long idx)
{
	return (struct codetag *)((char *)r->start + idx * cttype->desc.tag_size);
}

static bool range_valid(const struct codetag_type_desc *desc,
			struct codetag *start, struct codetag *stop)
{
	return stop >= start && IS_ALIGNED((unsigned long)start, 8) &&
	       ((char *)stop - (char *)start) % desc->tag_size == 0;
}

static struct codetag_type *find_type(const char *section)
{
	struct codetag_type *cttype;

	lockdep_assert_held(&codetag_lock);
	list_for_each_entry(cttype, &codetag_types, node)
		if (!strcmp(cttype->desc.section, section))
			return cttype;
	return NULL;
}

static void ct_section_free(void *start, size_t size);

/* List a new (vmlinux) or placed range in its type. */
static void ct_list_range(struct ct_range *range)
{
	struct codetag_type *cttype = range->cttype;

	lockdep_assert_held_write(&cttype->lock);
	range->id = cttype->next_id++;
	list_move_tail(&range->node, &cttype->ranges);
	cttype->count += range_size(cttype, &range->r);
	cttype->gen++;
}

/*
 * Unlist a range (or drop a placed one) and free it, with its section.
 * Without modules only the KUnit suite drops one.
 */
static void __maybe_unused ct_del_range(struct codetag_type *cttype,
					struct ct_range *range)
{
	if (range->id) {
		lockdep_assert_held_write(&cttype->lock);
		cttype->count -= range_size(cttype, &range->r);
		cttype->gen++;
	}
	list_del(&range->node);
	if (range->cmod) {
		range->cmod->nr_ranges--;
		ct_section_free(range->r.start,
				(char *)range->r.stop - (char *)range->r.start);
	}
	kvfree(range->strings);
	kfree(range);
}

/**
 * codetag_register_type() - make a tag type known to the framework
 * @desc: the type's section, tag size, vmlinux bounds and module callbacks
 *
 * Context: once, at boot (modules loaded before are not scanned); may sleep.
 * Return: the type, or ERR_PTR() of -EINVAL (bad size or vmlinux range),
 * -EEXIST (section already registered) or -ENOMEM.
 */
struct codetag_type *codetag_register_type(const struct codetag_type_desc *desc)
{
	struct codetag_type *cttype;
	struct ct_range *range;

	/* tag_size is checked first: range_valid() divides by it. */
	if (!desc->section || desc->tag_size < sizeof(struct codetag) ||
	    !IS_ALIGNED(desc->tag_size, 8) ||
	    !range_valid(desc, desc->vmlinux_start, desc->vmlinux_stop))
		return ERR_PTR(-EINVAL);

	mutex_lock(&codetag_lock);
	if (find_type(desc->section)) {
		cttype = ERR_PTR(-EEXIST);
		goto out;
	}
	cttype = kzalloc(sizeof(*cttype), GFP_KERNEL);
	range = cttype ? kzalloc(sizeof(*range), GFP_KERNEL) : NULL;
	if (!range) {
		kfree(cttype);
		cttype = ERR_PTR(-ENOMEM);
		goto out;
	}
	cttype->desc = *desc;
	init_rwsem(&cttype->lock);
	INIT_LIST_HEAD(&cttype->ranges);
	/* Ids start at 1: 0 means "not listed". */
	cttype->next_id = 1;
	range->r.start = desc->vmlinux_start;
	range->r.stop = desc->vmlinux_stop;
	range->r.modname = "";
	range->cttype = cttype;
	INIT_LIST_HEAD(&range->node);
	down_write(&cttype->lock);
	ct_list_range(range);
	up_write(&cttype->lock);
	list_add_tail(&cttype->node, &codetag_types);
out:
	mutex_unlock(&codetag_lock);
	return cttype;
}

/**
 * codetag_lock_module_list() - hold off module load and unload for a type
 * @cttype: the type
 *
 * Context: process context, may sleep.
 */
void codetag_lock_module_list(struct codetag_type *cttype)
{
	down_read(&cttype->lock);
}

/**
 * codetag_trylock_module_list() - codetag_lock_module_list() if free now
 * @cttype: the type
 *
 * Context: any context that may not sleep, but not hard interrupts.
 * Return: true if the lock was taken.
 */
bool codetag_trylock_module_list(struct codetag_type *cttype)
{
	return down_read_trylock(&cttype->lock);
}

/**
 * codetag_unlock_module_list() - release codetag_lock_module_list()
 * @cttype: the type
 */
void codetag_unlock_module_list(struct codetag_type *cttype)
{
	up_read(&cttype->lock);
}

/**
 * codetag_lock_module_list_write() - also exclude walkers, to change tags
 * @cttype: the type
 *
 * Context: process context, may sleep.
 */
void codetag_lock_module_list_write(struct codetag_type *cttype)
{
	down_write(&cttype->lock);
}

/**
 * codetag_unlock_module_list_write() - release the write lock
 * @cttype: the type
 */
void codetag_unlock_module_list_write(struct codetag_type *cttype)
{
	up_write(&cttype->lock);
}

/**
 * codetag_type_count() - number of tags of a type in vmlinux and modules
 * @cttype: the type
 *
 * Context: under codetag_lock_module_list() for a stable answer.
 * Return: the number of tags, including kept ones of unloaded modules.
 */
size_t codetag_type_count(struct codetag_type *cttype)
{
	return cttype->count;
}

/**
 * codetag_type_generation() - a value that changes when ranges come or go
 * @cttype: the type
 */
unsigned long codetag_type_generation(struct codetag_type *cttype)
{
	return READ_ONCE(cttype->gen);
}

/**
 * codetag_get_ct_iter() - an iterator positioned before the first tag
 * @cttype: the type to walk
 *
 * Return: the iterator; pass it to codetag_next_ct().
 */
struct codetag_iterator codetag_get_ct_iter(struct codetag_type *cttype)
{
	return (struct codetag_iterator){ .cttype = cttype };
}

/**
 * codetag_next_ct() - advance an iterator to the next tag
 * @iter: the iterator
 *
 * Tags come range by range in load order, vmlinux first, each once.  To
 * resume after dropping the lock, clear @iter->ct (it may have gone with its
 * module): the tag at @iter's position comes again, or the next range's first
 * if its range went.  A step is O(1) unless ranges came or went since.
 *
 * Context: under codetag_lock_module_list().
 * Return: the next tag, or NULL at the end.
 */
struct codetag *codetag_next_ct(struct codetag_iterator *iter)
{
	struct codetag_type *cttype = iter->cttype;
	unsigned long idx = iter->ct ? iter->index + 1 : iter->index;
	struct ct_range *range = iter->node;

	lockdep_assert_held(&cttype->lock);
	if (!range || iter->gen != cttype->gen) {
		list_for_each_entry(range, &cttype->ranges, node)
			if (range->id >= iter->range_id)
				break;
		if (list_entry_is_head(range, &cttype->ranges, node) ||
		    range->id != iter->range_id)
			idx = 0;
	}
	list_for_each_entry_from(range, &cttype->ranges, node) {
		if (idx < range_size(cttype, &range->r)) {
			iter->range_id = range->id;
			iter->range = &range->r;
			iter->index = idx;
			iter->node = range;
			iter->gen = cttype->gen;
			iter->ct = range_tag(cttype, &range->r, idx);
			return iter->ct;
		}
		idx = 0;
	}
	*iter = (struct codetag_iterator){ .cttype = cttype,
					   .range_id = cttype->next_id };
	return NULL;
}

/**
 * codetag_to_text() - format a tag as "file:line [module] func:function"
 * @out: buffer to append to
 * @ct: the tag
 * @range: the tag's range (from the iterator); names the module, if any
 */
void codetag_to_text(struct seq_buf *out, const struct codetag *ct,
		     const struct codetag_range *range)
{
	seq_buf_printf(out, "%s:%u", ct->filename, ct->lineno);
	if (range && range->modname[0])
		seq_buf_printf(out, " [%s]", range->modname);
	seq_buf_printf(out, " func:%s", ct->function);
}

#ifdef CONFIG_MODULES
/* Module tag sections: chunks of module_alloc() memory, in reach of modules */
#define CT_CHUNK_SIZE	SZ_64K

struct ct_chunk {
	struct list_head node;
	struct gen_pool *pool;
	void *mem;
	size_t size;
	size_t used;		/* bytes of sections in it */
};

static LIST_HEAD(ct_chunks);

static void ct_chunk_free(struct ct_chunk *c)
{
	list_del(&c->node);
	if (c->pool)
		gen_pool_destroy(c->pool);
	module_memfree(c->mem);
	kfree(c);
}

static void *ct_section_alloc(size_t size)
{
	unsigned long addr;
	struct ct_chunk *c;

	lockdep_assert_held(&codetag_lock);
	list_for_each_entry(c, &ct_chunks, node) {
		addr = gen_pool_alloc(c->pool, size);
		if (addr)
			goto found;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	list_add(&c->node, &ct_chunks);
	c->size = max_t(size_t, CT_CHUNK_SIZE, PAGE_ALIGN(size));
	c->pool = gen_pool_create(ilog2(8), NUMA_NO_NODE);
	c->mem = module_alloc(c->size);
	if (!c->pool || !c->mem)
		goto fail;
	if (set_memory_nx((unsigned long)c->mem, c->size >> PAGE_SHIFT)) {
		pr_warn("cannot make module tag memory non-executable\n");
		goto fail;
	}
	if (gen_pool_add(c->pool, (unsigned long)c->mem, c->size, NUMA_NO_NODE))
		goto fail;
	addr = gen_pool_alloc(c->pool, size);
	if (WARN_ON_ONCE(!addr))
		return NULL;
found:
	c->used += size;
	return (void *)addr;
fail:
	ct_chunk_free(c);
	return NULL;
}

static void ct_section_free(void *start, size_t size)
{
	struct ct_chunk *c;

	lockdep_assert_held(&codetag_lock);
	if (!size)
		return;
	list_for_each_entry(c, &ct_chunks, node) {
		if (start < c->mem || start >= c->mem + c->size)
			continue;
		gen_pool_free(c->pool, (unsigned long)start, size);
		c->used -= size;
		if (!c->used)
			ct_chunk_free(c);
		return;
	}
	WARN_ONCE(1, "codetag: section at %p is in no chunk\n", start);
}

/* @mod's ct_module; if it has none, a new one with @create, else NULL. */
static struct ct_module *find_cmod(struct module *mod, bool create)
{
	struct ct_module *cmod;

	lockdep_assert_held(&codetag_lock);
	list_for_each_entry(cmod, &ct_modules, node)
		if (cmod->mod == mod)
			return cmod;
	cmod = create ? kzalloc(sizeof(*cmod), GFP_KERNEL) : NULL;
	if (!cmod)
		return NULL;
	cmod->mod = mod;
	strscpy(cmod->name, mod->name, sizeof(cmod->name));
	INIT_LIST_HEAD(&cmod->placed);
	list_add_tail(&cmod->node, &ct_modules);
	return cmod;
}

static void put_cmod(struct ct_module *cmod)
{
	lockdep_assert_held(&codetag_lock);
	if (cmod->nr_ranges)
		return;
	list_del(&cmod->node);
	kfree(cmod);
}

/**
 * codetag_module_section() - is this a section of a tag type?
 * @name: the name of a module's ELF section
 *
 * Context: module loader, process context.
 * Return: true if a registered tag type keeps its tags in @name; the loader
 * then places it with codetag_place_module_section(), not in the module.
 */
bool codetag_module_section(const char *name)
{
	bool found;

	mutex_lock(&codetag_lock);
	found = find_type(name);
	mutex_unlock(&codetag_lock);
	return found;
}

/**
 * codetag_place_module_section() - memory for a module's tag section
 * @mod: the module being loaded
 * @name: the section, one for which codetag_module_section() is true
 * @src: its contents, or NULL for a section without contents
 * @size: its size
 *
 * Context: module loader, process context, before relocation.
 * Return: the section's new address, owned and freed by the framework from
 * now on, or NULL if out of memory.
 */
void *codetag_place_module_section(struct module *mod, const char *name,
				   const void *src, size_t size)
{
	struct ct_range *range = NULL;
	struct ct_module *cmod;
	void *dst = NULL;

	mutex_lock(&codetag_lock);
	cmod = find_cmod(mod, true);
	if (cmod)
		range = kzalloc(sizeof(*range), GFP_KERNEL);
	if (range)
		dst = size ? ct_section_alloc(size) : ZERO_SIZE_PTR;
	if (dst) {
		if (size && src)
			memcpy(dst, src, size);
		else if (size)
			memset(dst, 0, size);
		range->r.start = dst;
		range->r.stop = dst + size;
		range->r.modname = cmod->name;
		range->cttype = find_type(name);
		range->cmod = cmod;
		list_add_tail(&range->node, &cmod->placed);
		cmod->nr_ranges++;
		range = NULL;
	}
	kfree(range);
	if (cmod)
		put_cmod(cmod);
	mutex_unlock(&codetag_lock);
	return dst;
}

/*
 * Point a kept range's strings (3 per tag) at copies, or at "?" without
 * memory for them.  Tags of a function or a file are adjacent in a section:
 * a string that the previous tag had too is copied once.
 */
static void copy_range_strings(struct codetag_type *cttype,
			       struct ct_range *range, struct module *mod)
{
	size_t i, k, l, n = range_size(cttype, &range->r), len = 0;
	const char *old[3], *new[3] = { "?", "?", "?" };
	char *p = NULL;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		memset(old, 0, sizeof(old));
		for (i = 0; i < n; i++) {
			struct codetag *ct = range_tag(cttype, &range->r, i);
			const char **f[3] = { &ct->modname, &ct->function,
					      &ct->filename };

			for (k = 0; k < 3; k++) {
				const char *s = *f[k];

				if (!s || !within_module((unsigned long)s, mod))
					continue;
				if (s != old[k]) {
					old[k] = s;
					l = strlen(s) + 1;
					len += l;
					if (pass && p) {
						new[k] = memcpy(p, s, l);
						p += l;
					}
				}
				if (pass)
					*f[k] = new[k];
			}
		}
		if (pass)
			break;
		range->strings = kvmalloc(len ?: 1, GFP_KERNEL);
		p = range->strings;
		if (!p)
			pr_warn("%s: no memory to keep the names of its tags\n",
				range->r.modname);
	}
}

/*
 * With @cmod, whose module is going away: free its ranges that their type
 * no longer references, keep the others with copies of their strings (the
 * caller puts @cmod).  Without: free the kept ranges no longer referenced,
 * at every module load and unload, as that is when their memory is wanted.
 */
static void release_ranges(struct ct_module *cmod)
{
	struct codetag_type *cttype;
	struct ct_range *range, *tmp;

	lockdep_assert_held(&codetag_lock);
	list_for_each_entry(cttype, &codetag_types, node) {
		down_write(&cttype->lock);
		list_for_each_entry_safe(range, tmp, &cttype->ranges, node) {
			struct ct_module *owner = range->cmod;

			if (cmod ? owner != cmod :
			    !codetag_range_unloaded(&range->r))
				continue;
			if (!cttype->desc.module_unload ||
			    !cttype->desc.module_unload(cttype, &range->r)) {
				ct_del_range(cttype, range);
				if (!cmod)
					put_cmod(owner);
			} else if (cmod) {
				copy_range_strings(cttype, range, cmod->mod);
				range->r.mod = NULL;
				cttype->gen++;
			}
		}
		up_write(&cttype->lock);
	}
}

/**
 * codetag_load_module() - register the tags of a module being loaded
 * @mod: the module, laid out and relocated, not yet running
 *
 * Context: module loader, process context.
 * Return: 0, or a type's module_load error, -EINVAL for a malformed section.
 * On error the loader calls codetag_unload_module() to undo.
 */
int codetag_load_module(struct module *mod)
{
	struct codetag_type *cttype;
	struct ct_range *range, *tmp;
	struct ct_module *cmod;
	int err = 0;

	mutex_lock(&codetag_lock);
	release_ranges(NULL);
	cmod = find_cmod(mod, false);
	if (!cmod)
		goto out;	/* no tag sections */
	list_for_each_entry_safe(range, tmp, &cmod->placed, node) {
		cttype = range->cttype;
		if (range->r.start == range->r.stop)
			continue;
		if (!range_valid(&cttype->desc, range->r.start,
				 range->r.stop)) {
			pr_err("%s: section %s is not an array of %zu-byte tags\n",
			       cmod->name, cttype->desc.section,
			       cttype->desc.tag_size);
			err = -EINVAL;
			break;
		}
		range->r.mod = mod;
		down_write(&cttype->lock);
		ct_list_range(range);
		if (cttype->desc.module_load)
			err = cttype->desc.module_load(cttype, &range->r);
		if (err)
			ct_del_range(cttype, range);
		up_write(&cttype->lock);
		if (err)
			break;
	}
out:
	mutex_unlock(&codetag_lock);
	return err;
}

/**
 * codetag_unload_module() - a module is going away, or failed to load
 * @mod: the module, whose memory is not freed yet
 *
 * Ranges whose type says they are still referenced stay listed, with copies
 * of their strings; the rest is freed.  Calling it again does nothing.
 *
 * Context: module loader, process context.
 */
void codetag_unload_module(struct module *mod)
{
	struct ct_range *range, *tmp;
	struct ct_module *cmod;

	mutex_lock(&codetag_lock);
	cmod = find_cmod(mod, false);
	if (!cmod)
		goto out;	/* no tags, but it may have freed others' */
	list_for_each_entry_safe(range, tmp, &cmod->placed, node)
		ct_del_range(range->cttype, range);
	release_ranges(cmod);
	cmod->mod = NULL;
	put_cmod(cmod);
out:
	release_ranges(NULL);
	mutex_unlock(&codetag_lock);
}
#else /* !CONFIG_MODULES */
static void ct_section_free(void *start, size_t size) {}
#endif /* CONFIG_MODULES */

#ifdef CONFIG_CODETAG_KUNIT_TEST
#include "codetag_kunit.c"
#endif /* CONFIG_CODETAG_KUNIT_TEST */
