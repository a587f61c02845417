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

/* One range of tags: vmlinux, or one type's section in one module. */
struct ct_range {
	struct codetag_range r;
	struct list_head node;		/* in codetag_type.ranges, by id */
	unsigned long id;
	struct ct_module *cmod;		/* NULL for vmlinux */
	bool owns_section;		/* frees r.start..r.stop when deleted */
	char *strings;			/* copies made at unload, or NULL */
};

/* A section placed outside a module's memory, not yet a range. */
struct ct_section {
	struct list_head node;		/* in ct_module.sections */
	void *start;
	size_t size;
};

/* A module that carries tags of at least one type. */
struct ct_module {
	struct list_head node;		/* in ct_modules */
	struct module *mod;		/* NULL once unloaded */
	char name[MODULE_NAME_LEN];
	unsigned int nr_ranges;		/* ranges still listed */
	struct list_head sections;	/* placed, not (yet) in a range */
};

struct codetag_type {
	struct list_head node;		/* in codetag_types */
	struct codetag_type_desc desc;
	struct rw_semaphore lock;	/* protects ranges, next_id, count */
	struct list_head ranges;
	unsigned long next_id;
	size_t count;
};

/*
 * Protects codetag_types, ct_modules, ct_chunks and the ownership of module
 * tag sections; taken before any type's lock.
 */
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

static bool range_valid(const struct codetag_type_desc *desc, void *start,
			size_t bytes)
{
	return IS_ALIGNED((unsigned long)start, 8) &&
	       bytes % desc->tag_size == 0;
}

#ifdef CONFIG_MODULES
static void ct_section_free(void *start, size_t size);
#else
static inline void ct_section_free(void *start, size_t size) {}
#endif

static struct ct_range *ct_add_range(struct codetag_type *cttype,
				     struct ct_module *cmod, void *start,
				     size_t bytes)
{
	struct ct_range *range = kzalloc(sizeof(*range), GFP_KERNEL);

	lockdep_assert_held_write(&cttype->lock);
	if (!range)
		return NULL;
	range->r.start = start;
	range->r.stop = (void *)((char *)start + bytes);
	range->r.mod = cmod ? cmod->mod : NULL;
	range->r.modname = cmod ? cmod->name : "";
	range->cmod = cmod;
	range->id = cttype->next_id++;
	list_add_tail(&range->node, &cttype->ranges);
	cttype->count += range_size(cttype, &range->r);
	if (cmod)
		cmod->nr_ranges++;
	return range;
}

/* Without modules only the KUnit suite unlists a range. */
static void __maybe_unused ct_del_range(struct codetag_type *cttype, struct ct_range *range)
{
	lockdep_assert_held_write(&cttype->lock);
	cttype->count -= range_size(cttype, &range->r);
	list_del(&range->node);
	if (range->cmod)
		range->cmod->nr_ranges--;
	if (range->owns_section)
		ct_section_free(range->r.start,
				(char *)range->r.stop - (char *)range->r.start);
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
	size_t bytes;

	if (!desc->section || desc->tag_size < sizeof(struct codetag) ||
	    !IS_ALIGNED(desc->tag_size, 8))
		return ERR_PTR(-EINVAL);
	bytes = (char *)desc->vmlinux_stop - (char *)desc->vmlinux_start;
	if (desc->vmlinux_stop < desc->vmlinux_start ||
	    !range_valid(desc, desc->vmlinux_start, bytes))
		return ERR_PTR(-EINVAL);

	mutex_lock(&codetag_lock);
	list_for_each_entry(cttype, &codetag_types, node) {
		if (!strcmp(cttype->desc.section, desc->section)) {
			cttype = ERR_PTR(-EEXIST);
			goto out;
		}
	}
	cttype = kzalloc(sizeof(*cttype), GFP_KERNEL);
	if (!cttype) {
		cttype = ERR_PTR(-ENOMEM);
		goto out;
	}
	cttype->desc = *desc;
	init_rwsem(&cttype->lock);
	INIT_LIST_HEAD(&cttype->ranges);
	down_write(&cttype->lock);
	if (!ct_add_range(cttype, NULL, desc->vmlinux_start, bytes)) {
		up_write(&cttype->lock);
		kfree(cttype);
		cttype = ERR_PTR(-ENOMEM);
		goto out;
	}
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
 * codetag_get_ct_iter() - an iterator positioned before the first tag
 * @cttype: the type to walk
 *
 * Return: the iterator; pass it to codetag_next_ct().
 */
struct codetag_iterator codetag_get_ct_iter(struct codetag_type *cttype)
{
	struct codetag_iterator iter = {
		.cttype = cttype,
	};

	return iter;
}

/**
 * codetag_next_ct() - advance an iterator to the next tag
 * @iter: the iterator
 *
 * Tags come range by range in load order, vmlinux first, each once; if the
 * current range went away while the lock was dropped, the walk goes on with
 * the next one.  Clear @iter->ct before resuming (it may have gone with its
 * module): the tag at @iter's position is then returned again.
 *
 * Context: under codetag_lock_module_list().
 * Return: the next tag, or NULL at the end.
 */
struct codetag *codetag_next_ct(struct codetag_iterator *iter)
{
	struct codetag_type *cttype = iter->cttype;
	unsigned long idx = iter->ct ? iter->index + 1 : iter->index;
	struct ct_range *range;

	lockdep_assert_held(&cttype->lock);
	list_for_each_entry(range, &cttype->ranges, node) {
		if (range->id < iter->range_id)
			continue;
		if (range->id > iter->range_id)
			idx = 0;
		if (idx < range_size(cttype, &range->r)) {
			iter->range_id = range->id;
			iter->range = &range->r;
			iter->index = idx;
			iter->ct = range_tag(cttype, &range->r, idx);
			return iter->ct;
		}
		iter->range_id = range->id + 1;
		idx = 0;
	}
	iter->range_id = cttype->next_id;
	iter->index = 0;
	iter->range = NULL;
	iter->ct = NULL;
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
	if (c->pool)
		gen_pool_destroy(c->pool);
	module_memfree(c->mem);
	kfree(c);
}

static struct ct_chunk *ct_chunk_new(size_t size)
{
	struct ct_chunk *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
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
	list_add(&c->node, &ct_chunks);
	return c;
fail:
	ct_chunk_free(c);
	return NULL;
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
	c = ct_chunk_new(size);
	if (!c)
		return NULL;
	addr = gen_pool_alloc(c->pool, size);
	if (WARN_ON_ONCE(!addr))
		return NULL;
found:
	c->used += size;
	return (void *)addr;
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
		if (!c->used) {
			list_del(&c->node);
			ct_chunk_free(c);
		}
		return;
	}
	WARN_ONCE(1, "codetag: section at %p is in no chunk\n", start);
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

static struct ct_module *find_cmod(struct module *mod)
{
	struct ct_module *cmod;

	lockdep_assert_held(&codetag_lock);
	list_for_each_entry(cmod, &ct_modules, node)
		if (cmod->mod == mod)
			return cmod;
	return NULL;
}

static struct ct_module *get_cmod(struct module *mod)
{
	struct ct_module *cmod = find_cmod(mod);

	if (cmod)
		return cmod;
	cmod = kzalloc(sizeof(*cmod), GFP_KERNEL);
	if (!cmod)
		return NULL;
	cmod->mod = mod;
	strscpy(cmod->name, mod->name, sizeof(cmod->name));
	INIT_LIST_HEAD(&cmod->sections);
	list_add_tail(&cmod->node, &ct_modules);
	return cmod;
}

static void put_cmod(struct ct_module *cmod)
{
	lockdep_assert_held(&codetag_lock);
	if (cmod->nr_ranges || !list_empty(&cmod->sections))
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
	struct ct_section *sec;
	struct ct_module *cmod;
	void *dst = NULL;

	mutex_lock(&codetag_lock);
	cmod = get_cmod(mod);
	sec = kzalloc(sizeof(*sec), GFP_KERNEL);
	if (!cmod || !sec)
		goto out;
	dst = size ? ct_section_alloc(size) : ZERO_SIZE_PTR;
	if (!dst)
		goto out;
	if (size && src)
		memcpy(dst, src, size);
	else if (size)
		memset(dst, 0, size);
	sec->start = dst;
	sec->size = size;
	list_add_tail(&sec->node, &cmod->sections);
	sec = NULL;
out:
	kfree(sec);
	if (cmod)
		put_cmod(cmod);
	mutex_unlock(&codetag_lock);
	return dst;
}

static struct ct_section *placed_section(struct ct_module *cmod, void *start,
					 size_t size)
{
	struct ct_section *sec;

	list_for_each_entry(sec, &cmod->sections, node)
		if (sec->start == start && sec->size == size)
			return sec;
	return NULL;
}

/* The strings a range's tags point to, and their copies. */
struct ct_strings {
	const char **old;
	const char **new;
	size_t n;
	size_t len;
};

static void note_string(struct ct_strings *cs, const char *s,
			struct module *mod)
{
	size_t i;

	if (!s || !within_module((unsigned long)s, mod))
		return;
	for (i = 0; i < cs->n; i++)
		if (cs->old[i] == s)
			return;
	cs->old[cs->n++] = s;
	cs->len += strlen(s) + 1;
}

static const char *copied_string(struct ct_strings *cs, const char *s)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		if (cs->old[i] == s)
			return cs->new[i];
	return s;
}

/*
 * Point a kept range's strings (3 per tag) at copies of those in the
 * module's memory, or at "?" if there is no memory for the copies.
 */
static void copy_range_strings(struct codetag_type *cttype,
			       struct ct_range *range, struct module *mod)
{
	size_t i, n = range_size(cttype, &range->r);
	struct ct_strings cs = { };
	struct codetag *ct;
	char *p;

	cs.old = kvmalloc_array(3 * n, sizeof(*cs.old), GFP_KERNEL);
	cs.new = kvmalloc_array(3 * n, sizeof(*cs.new), GFP_KERNEL);
	if (!cs.old || !cs.new)
		goto fail;
	for (i = 0; i < n; i++) {
		ct = range_tag(cttype, &range->r, i);
		note_string(&cs, ct->modname, mod);
		note_string(&cs, ct->function, mod);
		note_string(&cs, ct->filename, mod);
	}
	p = kvmalloc(cs.len ?: 1, GFP_KERNEL);
	if (!p)
		goto fail;
	range->strings = p;
	for (i = 0; i < cs.n; i++) {
		size_t l = strlen(cs.old[i]) + 1;

		cs.new[i] = memcpy(p, cs.old[i], l);
		p += l;
	}
	for (i = 0; i < n; i++) {
		ct = range_tag(cttype, &range->r, i);
		ct->modname = copied_string(&cs, ct->modname);
		ct->function = copied_string(&cs, ct->function);
		ct->filename = copied_string(&cs, ct->filename);
	}
	kvfree(cs.old);
	kvfree(cs.new);
	return;
fail:
	kvfree(cs.old);
	kvfree(cs.new);
	pr_warn("%s: no memory to keep the names of its tags\n",
		range->r.modname);
	for (i = 0; i < n; i++) {
		ct = range_tag(cttype, &range->r, i);
		if (within_module((unsigned long)ct->modname, mod))
			ct->modname = "?";
		if (within_module((unsigned long)ct->function, mod))
			ct->function = "?";
		if (within_module((unsigned long)ct->filename, mod))
			ct->filename = "?";
	}
}

/*
 * Drop the kept ranges their types no longer need.  Runs at every module
 * load and unload: that is when their memory and numbers are wanted.
 */
static void release_unloaded(void)
{
	struct ct_module *cmod, *tmp_cmod;
	struct codetag_type *cttype;
	struct ct_range *range, *tmp;

	lockdep_assert_held(&codetag_lock);
	list_for_each_entry(cttype, &codetag_types, node) {
		down_write(&cttype->lock);
		list_for_each_entry_safe(range, tmp, &cttype->ranges, node) {
			if (!codetag_range_unloaded(&range->r))
				continue;
			if (cttype->desc.module_unload &&
			    cttype->desc.module_unload(cttype, &range->r))
				continue;
			ct_del_range(cttype, range);
		}
		up_write(&cttype->lock);
	}
	list_for_each_entry_safe(cmod, tmp_cmod, &ct_modules, node)
		if (!cmod->mod)
			put_cmod(cmod);
}

/**
 * codetag_load_module() - register the tags of a module being loaded
 * @mod: the module, laid out and relocated, not yet running
 * @find_section: returns the address and size of a named section, or NULL
 * @data: passed to @find_section
 *
 * Context: module loader, process context.
 * Return: 0, or a type's module_load error, -EINVAL for a malformed section,
 * or -ENOMEM.  On error the loader calls codetag_unload_module() to undo.
 */
int codetag_load_module(struct module *mod,
			void *(*find_section)(void *data, const char *name,
					      size_t *size),
			void *data)
{
	struct codetag_type *cttype;
	struct ct_section *sec;
	struct ct_range *range;
	struct ct_module *cmod;
	int err = 0;

	mutex_lock(&codetag_lock);
	release_unloaded();
	cmod = find_cmod(mod);
	if (!cmod)
		goto out;	/* no tag sections */
	list_for_each_entry(cttype, &codetag_types, node) {
		size_t bytes = 0;
		void *start;

		start = find_section(data, cttype->desc.section, &bytes);
		if (!start || !bytes)
			continue;
		if (!range_valid(&cttype->desc, start, bytes)) {
			pr_err("%s: section %s is not an array of %zu-byte tags\n",
			       cmod->name, cttype->desc.section,
			       cttype->desc.tag_size);
			err = -EINVAL;
			break;
		}
		sec = placed_section(cmod, start, bytes);
		if (!sec) {
			/* The type registered after the module was laid out. */
			pr_warn("%s: tags of %s not registered (loaded too early)\n",
				cmod->name, cttype->desc.section);
			continue;
		}
		down_write(&cttype->lock);
		range = ct_add_range(cttype, cmod, start, bytes);
		if (!range)
			err = -ENOMEM;
		else if (cttype->desc.module_load)
			err = cttype->desc.module_load(cttype, &range->r);
		if (range && err) {
			ct_del_range(cttype, range);
		} else if (range) {
			/* The range frees the section from now on. */
			range->owns_section = true;
			list_del(&sec->node);
			kfree(sec);
		}
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
	struct codetag_type *cttype;
	struct ct_range *range, *tmp;
	struct ct_section *sec, *stmp;
	struct ct_module *cmod;

	mutex_lock(&codetag_lock);
	cmod = find_cmod(mod);
	if (!cmod)
		goto out;	/* no tags, but it may have freed others' */
	list_for_each_entry(cttype, &codetag_types, node) {
		down_write(&cttype->lock);
		list_for_each_entry_safe(range, tmp, &cttype->ranges, node) {
			if (range->cmod != cmod)
				continue;
			/* Still with its module: the type's first call. */
			if (cttype->desc.module_unload &&
			    cttype->desc.module_unload(cttype, &range->r)) {
				copy_range_strings(cttype, range, mod);
				range->r.mod = NULL;
				continue;
			}
			ct_del_range(cttype, range);
		}
		up_write(&cttype->lock);
	}
	list_for_each_entry_safe(sec, stmp, &cmod->sections, node) {
		ct_section_free(sec->start, sec->size);
		list_del(&sec->node);
		kfree(sec);
	}
	cmod->mod = NULL;
	put_cmod(cmod);
out:
	release_unloaded();
	mutex_unlock(&codetag_lock);
}
#endif /* CONFIG_MODULES */

#ifdef CONFIG_CODETAG_KUNIT_TEST
#include "codetag_kunit.c"
#endif /* CONFIG_CODETAG_KUNIT_TEST */
