// SPDX-License-Identifier: GPL-2.0-only
/*
 * Code tagging framework.
 *
 * A tag type (allocation profiling is the first) keeps one static structure
 * per call site in an ELF section of its own.  This file finds those
 * sections in vmlinux and in modules as they load, lets the type walk all
 * of its tags, and, when a module goes away while its tags are still
 * referenced, keeps the module's memory until the type says the last
 * reference is gone.  The walk is done under a per-type rw_semaphore that
 * module load and unload take for writing.
 *
 * Nothing here runs on a hot path: the tags are found at boot and at module
 * load; the users of the tags touch them directly.
 */
#define pr_fmt(fmt) "codetag: " fmt

#include <linux/codetag.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

/* One range of tags: vmlinux, or one type's section in one module. */
struct ct_range {
	struct codetag_range r;
	struct list_head node;		/* in codetag_type.ranges, by id */
	unsigned long id;
	struct ct_module *cmod;		/* NULL for vmlinux */
};

/* A loaded module that carries tags of at least one type. */
struct ct_module {
	struct list_head node;		/* in ct_modules */
	struct module *mod;
	char name[MODULE_NAME_LEN];
	unsigned int nr_ranges;		/* ranges still listed */
	bool unloading;			/* free_module() has started */
	bool retained;			/* its memory is now ours to free */
};

struct codetag_type {
	struct list_head node;		/* in codetag_types */
	struct codetag_type_desc desc;
	struct rw_semaphore lock;	/* protects ranges and count */
	struct list_head ranges;
	unsigned long next_id;
	size_t count;
};

/* Protects codetag_types and ct_modules; taken before any type's lock. */
static DEFINE_MUTEX(codetag_lock);
static LIST_HEAD(codetag_types);
static LIST_HEAD(ct_modules);

static void codetag_release_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(codetag_release_dwork, codetag_release_work);
#define CODETAG_RELEASE_INTERVAL	(5 * HZ)

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

/* Caller holds cttype->lock for writing. */
static struct ct_range *ct_add_range(struct codetag_type *cttype,
				     struct ct_module *cmod, void *start,
				     size_t bytes)
{
	struct ct_range *range = kzalloc(sizeof(*range), GFP_KERNEL);

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
	return range;
}

/* Caller holds cttype->lock for writing. */
static void ct_del_range(struct codetag_type *cttype, struct ct_range *range)
{
	cttype->count -= range_size(cttype, &range->r);
	list_del(&range->node);
	if (range->cmod)
		range->cmod->nr_ranges--;
	kfree(range);
}

/**
 * codetag_register_type() - make a tag type known to the framework
 * @desc: the type's section, tag size, vmlinux bounds and module callbacks
 *
 * Types register once, at boot, before modules carrying their tags load;
 * modules loaded earlier are not scanned.
 *
 * Context: process context, may sleep.
 * Return: the type, or ERR_PTR(-EINVAL) for a bad size or vmlinux range,
 * ERR_PTR(-EEXIST) if a type with the same section is registered,
 * ERR_PTR(-ENOMEM).
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
	if (!ct_add_range(cttype, NULL, desc->vmlinux_start, bytes)) {
		kfree(cttype);
		cttype = ERR_PTR(-ENOMEM);
		goto out;
	}
	list_add_tail(&cttype->node, &codetag_types);
out:
	mutex_unlock(&codetag_lock);
	return cttype;
}

/**
 * codetag_unregister_type() - forget a tag type (for tests)
 * @cttype: a type returned by codetag_register_type()
 *
 * Context: process context, may sleep.
 */
void codetag_unregister_type(struct codetag_type *cttype)
{
	struct ct_range *range, *tmp;

	mutex_lock(&codetag_lock);
	list_del(&cttype->node);
	down_write(&cttype->lock);
	list_for_each_entry_safe(range, tmp, &cttype->ranges, node)
		ct_del_range(cttype, range);
	up_write(&cttype->lock);
	mutex_unlock(&codetag_lock);
	kfree(cttype);
}
EXPORT_SYMBOL_GPL(codetag_unregister_type);

/**
 * codetag_lock_module_list() - keep a type's set of tags stable
 * @cttype: the type
 *
 * Module load and unload wait while the lock is held.
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
 * codetag_type_count() - number of tags of a type in vmlinux and modules
 * @cttype: the type
 *
 * Context: under codetag_lock_module_list() for a stable answer.
 * Return: the number of tags.
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
 * Tags are returned range by range in load order, vmlinux first, each
 * exactly once.  If the range of the previous tag went away while the lock
 * was dropped, the walk continues with the next range.
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
		/* Past the end of this one: start the next at index 0. */
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
 * @range: the tag's range (from the iterator); the module part is printed
 *	only for tags in modules
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
static struct ct_module *find_cmod(struct module *mod)
{
	struct ct_module *cmod;

	list_for_each_entry(cmod, &ct_modules, node)
		if (cmod->mod == mod && !cmod->retained)
			return cmod;
	return NULL;
}

/* Drop the ranges of @cmod, asking each type; caller holds codetag_lock. */
static void release_ranges(struct ct_module *cmod, bool ask)
{
	struct codetag_type *cttype;
	struct ct_range *range, *tmp;

	list_for_each_entry(cttype, &codetag_types, node) {
		down_write(&cttype->lock);
		list_for_each_entry_safe(range, tmp, &cttype->ranges, node) {
			if (range->cmod != cmod)
				continue;
			if (ask && cttype->desc.module_unload &&
			    cttype->desc.module_unload(cttype, &range->r)) {
				range->r.unloaded = true;
				continue;
			}
			ct_del_range(cttype, range);
		}
		up_write(&cttype->lock);
	}
}

/**
 * codetag_load_module() - register the tags of a module being loaded
 * @mod: the module, laid out and relocated, not yet running
 * @find_section: returns the address and size of a named section, or NULL
 * @data: passed to @find_section
 *
 * Context: module loader, process context.
 * Return: 0, or the error of a type's module_load callback or -ENOMEM; on
 * error nothing is left registered.
 */
int codetag_load_module(struct module *mod,
			void *(*find_section)(void *data, const char *name,
					      size_t *size),
			void *data)
{
	struct codetag_type *cttype;
	struct ct_module *cmod;
	int err = 0;

	cmod = kzalloc(sizeof(*cmod), GFP_KERNEL);
	if (!cmod)
		return -ENOMEM;
	cmod->mod = mod;
	strscpy(cmod->name, mod->name, sizeof(cmod->name));

	mutex_lock(&codetag_lock);
	list_add_tail(&cmod->node, &ct_modules);
	list_for_each_entry(cttype, &codetag_types, node) {
		struct ct_range *range;
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
		down_write(&cttype->lock);
		range = ct_add_range(cttype, cmod, start, bytes);
		if (range) {
			cmod->nr_ranges++;
			if (cttype->desc.module_load)
				err = cttype->desc.module_load(cttype,
							       &range->r);
			if (err)
				ct_del_range(cttype, range);
		} else {
			err = -ENOMEM;
		}
		up_write(&cttype->lock);
		if (err)
			break;
	}
	if (err || !cmod->nr_ranges) {
		/* The module never ran: no tag of it can be referenced. */
		release_ranges(cmod, false);
		list_del(&cmod->node);
		kfree(cmod);
	}
	mutex_unlock(&codetag_lock);
	return err;
}

/**
 * codetag_unload_module() - a module is going away
 * @mod: the module
 *
 * Each type is asked whether the module's tags are still referenced.  Those
 * that are stay listed, marked unloaded.
 *
 * Context: module loader, process context.
 * Return: true if the module's memory must not be freed now; the loader
 * then calls codetag_retain_module() once it is done with the module, and
 * the memory is freed by module_free_retained() when the last reference
 * is gone.
 */
bool codetag_unload_module(struct module *mod)
{
	struct ct_module *cmod;
	bool keep = false;

	mutex_lock(&codetag_lock);
	cmod = find_cmod(mod);
	if (cmod) {
		cmod->unloading = true;
		release_ranges(cmod, true);
		keep = cmod->nr_ranges;
		if (!keep) {
			list_del(&cmod->node);
			kfree(cmod);
		}
	}
	mutex_unlock(&codetag_lock);
	return keep;
}

/**
 * codetag_retain_module() - take over the memory of an unloaded module
 * @mod: a module for which codetag_unload_module() returned true
 *
 * Context: module loader, after it stopped touching @mod.
 */
void codetag_retain_module(struct module *mod)
{
	struct ct_module *cmod;

	mutex_lock(&codetag_lock);
	list_for_each_entry(cmod, &ct_modules, node) {
		if (cmod->mod == mod && cmod->unloading && !cmod->retained) {
			cmod->retained = true;
			pr_info("%s: unloaded with tags still referenced; keeping its memory\n",
				cmod->name);
			break;
		}
	}
	mutex_unlock(&codetag_lock);
	schedule_delayed_work(&codetag_release_dwork, CODETAG_RELEASE_INTERVAL);
}

static void codetag_release_work(struct work_struct *work)
{
	struct ct_module *cmod, *tmp;
	bool pending = false;

	mutex_lock(&codetag_lock);
	list_for_each_entry_safe(cmod, tmp, &ct_modules, node) {
		if (!cmod->retained)
			continue;
		release_ranges(cmod, true);
		if (cmod->nr_ranges) {
			pending = true;
			continue;
		}
		pr_info("%s: last tag reference gone, freeing its memory\n",
			cmod->name);
		list_del(&cmod->node);
		module_free_retained(cmod->mod);
		kfree(cmod);
	}
	mutex_unlock(&codetag_lock);
	if (pending)
		schedule_delayed_work(&codetag_release_dwork,
				      CODETAG_RELEASE_INTERVAL);
}
#endif /* CONFIG_MODULES */
