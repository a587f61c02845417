// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory allocation profiling: the tags, their counters, /proc/allocinfo and
 * the vm.mem_profiling switch.
 *
 * The allocators do the charging themselves (see include/linux/alloc_tag.h
 * and the hooks in mm/); this file owns everything around it: the tag type
 * registered with the code tagging framework, per-CPU counters for module
 * tags, the file operators read, and the static keys that make profiling
 * cost nothing while it is off.
 */
#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/alloc_tag.h>
#include <linux/capability.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysctl.h>

DEFINE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			mem_alloc_profiling_key);
EXPORT_SYMBOL(mem_alloc_profiling_key);
DEFINE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			mem_alloc_profiling_free_key);
EXPORT_SYMBOL(mem_alloc_profiling_free_key);

static struct codetag_type *alloc_tag_cttype;

/* ---------------------------------------------------------------------- */
/* State: vm.mem_profiling and the boot parameter                          */

/* "never": profiling was refused at boot and cannot be switched on. */
static bool mem_profiling_never;
/* The boot parameter was seen; do_sysctl_args() will write it once more. */
static bool mem_profiling_boot_arg;
static DEFINE_MUTEX(mem_profiling_mutex);

/* Caller holds mem_profiling_mutex, or runs before other CPUs exist. */
static void mem_profiling_set(bool on)
{
	if (on) {
		static_branch_enable(&mem_alloc_profiling_free_key);
		static_branch_enable(&mem_alloc_profiling_key);
	} else {
		static_branch_disable(&mem_alloc_profiling_key);
	}
}

/*
 * sysctl.vm.mem_profiling= is applied by do_sysctl_args() only after all
 * initcalls, long after the first allocations.  Catch it early so that the
 * state it asks for holds from the start of boot, and so that "never"
 * allocates no profiling metadata at all.
 */
static int __init mem_profiling_early(char *arg)
{
	mem_profiling_boot_arg = true;
	if (!arg) {
		pr_err("sysctl.vm.mem_profiling needs a value (0, 1 or never)\n");
		return 0;
	}
	if (!strcmp(arg, "never")) {
		mem_profiling_never = true;
		static_branch_disable(&mem_alloc_profiling_key);
		static_branch_disable(&mem_alloc_profiling_free_key);
	} else if (!strcmp(arg, "0")) {
		static_branch_disable(&mem_alloc_profiling_key);
		static_branch_disable(&mem_alloc_profiling_free_key);
	} else if (!strcmp(arg, "1")) {
		mem_profiling_set(true);
	} else {
		pr_err("sysctl.vm.mem_profiling=%s is not 0, 1 or never; keeping the default (%d)\n",
		       arg, mem_alloc_profiling_enabled());
	}
	return 0;
}
early_param("sysctl.vm.mem_profiling", mem_profiling_early);

/**
 * mem_alloc_profiling_switch() - switch profiling on or off
 * @on: the new state
 *
 * What vm.mem_profiling does; also used by tests.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EPERM if profiling was disabled with "never" at boot.
 */
int mem_alloc_profiling_switch(bool on)
{
	int ret = 0;

	mutex_lock(&mem_profiling_mutex);
	if (mem_profiling_never)
		ret = -EPERM;
	else if (on != mem_alloc_profiling_enabled())
		mem_profiling_set(on);
	mutex_unlock(&mem_profiling_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(mem_alloc_profiling_switch);

#ifdef CONFIG_SYSCTL
/*
 * Accept exactly "0" or "1", optionally followed by one newline.  Anything
 * else, including "never" and a value after the first, is -EINVAL and
 * changes nothing.
 */
static int mem_profiling_parse(const char *buf, size_t len, bool *on)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if (len != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	*on = buf[0] == '1';
	return 0;
}

static int mem_profiling_handler(struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	char val[4];
	bool on;
	int ret;

	if (!write) {
		struct ctl_table tmp = {
			.data = val,
			.maxlen = sizeof(val),
		};

		snprintf(val, sizeof(val), "%d", mem_alloc_profiling_enabled());
		return proc_dostring(&tmp, 0, buffer, lenp, ppos);
	}

	if (READ_ONCE(mem_profiling_boot_arg) && !current->mm) {
		/* do_sysctl_args() replaying what mem_profiling_early() did */
		WRITE_ONCE(mem_profiling_boot_arg, false);
		return 0;
	}
	WRITE_ONCE(mem_profiling_boot_arg, false);
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (mem_profiling_never) {
		pr_warn_ratelimited("vm.mem_profiling: disabled with 'never' at boot\n");
		return -EPERM;
	}
	if (*ppos || mem_profiling_parse(buffer, *lenp, &on))
		return -EINVAL;
	ret = mem_alloc_profiling_switch(on);
	if (!ret)
		*ppos += *lenp;
	return ret;
}

static struct ctl_table mem_profiling_table[] = {
	{
		.procname	= "mem_profiling",
		.mode		= 0644,
		.proc_handler	= mem_profiling_handler,
	},
	{ }
};
#endif /* CONFIG_SYSCTL */

/* ---------------------------------------------------------------------- */
/* Reading the counters                                                    */

/**
 * alloc_tag_read() - sum a tag's per-CPU counters
 * @tag: the tag
 *
 * Counters of a tag whose objects were allocated on one CPU and freed on
 * another are negative on the latter; only the sum means something.
 *
 * Return: bytes and calls currently held by allocations from @tag.
 */
struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag)
{
	struct alloc_tag_counters v = { 0, 0 };
	int cpu;

	if (!tag->counters)
		return v;
	for_each_possible_cpu(cpu) {
		struct alloc_tag_counters *c = per_cpu_ptr(tag->counters, cpu);

		v.bytes += READ_ONCE(c->bytes);
		v.calls += READ_ONCE(c->calls);
	}
	return v;
}
EXPORT_SYMBOL_GPL(alloc_tag_read);

/**
 * alloc_tag_find() - look a tag up by its place in the source
 * @file: the tag's file name, as printed in /proc/allocinfo
 * @line: the line
 * @modname: the module, or NULL for vmlinux
 *
 * Meant for tests; walks all tags.
 *
 * Context: process context, may sleep.
 * Return: the first matching tag, or NULL.
 */
struct alloc_tag *alloc_tag_find(const char *file, unsigned int line,
				 const char *modname)
{
	struct codetag_iterator iter;
	struct alloc_tag *found = NULL;
	struct codetag *ct;

	if (!alloc_tag_cttype)
		return NULL;
	codetag_lock_module_list(alloc_tag_cttype);
	iter = codetag_get_ct_iter(alloc_tag_cttype);
	while ((ct = codetag_next_ct(&iter))) {
		if (ct->lineno != line || strcmp(ct->filename, file))
			continue;
		if (strcmp(iter.range->modname, modname ? modname : ""))
			continue;
		found = container_of(ct, struct alloc_tag, ct);
		break;
	}
	codetag_unlock_module_list(alloc_tag_cttype);
	return found;
}
EXPORT_SYMBOL_GPL(alloc_tag_find);

static atomic_long_t alloc_tag_metadata_failures;

/**
 * alloc_tag_metadata_failed() - profiling could not record an allocation
 *
 * Called when the metadata needed to remember an object's tag could not be
 * allocated.  The object is still handed out, uncharged, so the counters
 * are now lower than reality; say so once.
 */
void alloc_tag_metadata_failed(void)
{
	if (atomic_long_inc_return(&alloc_tag_metadata_failures) == 1)
		pr_warn("no memory for tag metadata: counters are now lower than actual use\n");
}

/* ---------------------------------------------------------------------- */
/* /proc/allocinfo                                                         */

struct allocinfo_private {
	struct codetag_iterator iter;
	loff_t pos;			/* seq_file position of iter.ct */
};

static void *allocinfo_start(struct seq_file *m, loff_t *pos)
{
	struct allocinfo_private *priv = m->private;

	codetag_lock_module_list(alloc_tag_cttype);
	if (*pos == 0)
		return SEQ_START_TOKEN;
	/* Resume where the last read() stopped; anything else walks anew. */
	if (!priv->iter.ct || *pos < priv->pos) {
		priv->iter = codetag_get_ct_iter(alloc_tag_cttype);
		priv->pos = 0;
	}
	while (priv->pos < *pos) {
		if (!codetag_next_ct(&priv->iter))
			return NULL;
		priv->pos++;
	}
	return priv->iter.ct;
}

static void *allocinfo_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct allocinfo_private *priv = m->private;

	(*pos)++;
	if (v == SEQ_START_TOKEN) {
		priv->iter = codetag_get_ct_iter(alloc_tag_cttype);
		priv->pos = 0;
	}
	if (!codetag_next_ct(&priv->iter))
		return NULL;
	priv->pos = *pos;
	return priv->iter.ct;
}

static void allocinfo_stop(struct seq_file *m, void *v)
{
	codetag_unlock_module_list(alloc_tag_cttype);
}

static int allocinfo_show(struct seq_file *m, void *v)
{
	struct allocinfo_private *priv = m->private;
	struct alloc_tag_counters c;
	struct seq_buf sb;
	char *buf;
	size_t n;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "allocinfo - version: 1.0\n");
		seq_puts(m, "#     <size>  <calls> <tag info>\n");
		return 0;
	}
	c = alloc_tag_read(container_of((struct codetag *)v,
					struct alloc_tag, ct));
	n = seq_get_buf(m, &buf);
	seq_buf_init(&sb, buf, n);
	seq_buf_printf(&sb, "%12llu %8llu ", c.bytes, c.calls);
	codetag_to_text(&sb, v, priv->iter.range);
	seq_buf_putc(&sb, '\n');
	seq_commit(m, seq_buf_has_overflowed(&sb) ? -1 : seq_buf_used(&sb));
	return 0;
}

static const struct seq_operations allocinfo_seq_op = {
	.start	= allocinfo_start,
	.next	= allocinfo_next,
	.stop	= allocinfo_stop,
	.show	= allocinfo_show,
};

/* ---------------------------------------------------------------------- */
/* Modules                                                                 */

static size_t range_tags(struct codetag_range *range, struct alloc_tag **first)
{
	*first = container_of(range->start, struct alloc_tag, ct);
	return (struct alloc_tag *)range->stop - *first;
}

static void free_module_counters(struct alloc_tag *tags, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free_percpu(tags[i].counters);
		tags[i].counters = NULL;
	}
}

/*
 * Module tags cannot use static per-CPU data: all modules share a few KiB
 * of it.  Allocate each tag's counters from the dynamic per-CPU area.
 */
static int alloc_tag_module_load(struct codetag_type *cttype,
				 struct codetag_range *range)
{
	struct alloc_tag *tags;
	size_t i, n = range_tags(range, &tags);

	for (i = 0; i < n; i++) {
		tags[i].counters = alloc_percpu(struct alloc_tag_counters);
		if (!tags[i].counters) {
			pr_err("%s: no memory for the counters of %zu tags\n",
			       range->modname, n);
			free_module_counters(tags, i);
			return -ENOMEM;
		}
	}
	return 0;
}

static bool alloc_tag_module_unload(struct codetag_type *cttype,
				    struct codetag_range *range)
{
	struct alloc_tag_counters live = { 0, 0 };
	struct alloc_tag *tags;
	size_t i, n = range_tags(range, &tags);

	for (i = 0; i < n; i++) {
		struct alloc_tag_counters c = alloc_tag_read(&tags[i]);

		live.bytes += c.bytes;
		live.calls += c.calls;
	}
	if (live.bytes || live.calls) {
		if (!range->unloaded)
			pr_info("module %s unloaded with %llu bytes in %llu allocations still live\n",
				range->modname, live.bytes, live.calls);
		return true;
	}
	free_module_counters(tags, n);
	return false;
}

/* ---------------------------------------------------------------------- */
/* Debugging                                                               */

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
/**
 * alloc_tag_check_unused() - warn if an object's tag slot is still in use
 * @ref: the slot, about to be charged
 */
void alloc_tag_check_unused(struct alloc_tag **ref)
{
	struct alloc_tag *old = *ref;

	if (likely(!old))
		return;
	if (alloc_tag_is_real(old))
		WARN_ONCE(1, "alloc_tag: tag slot not cleared on free or charged twice (held %s:%u)\n",
			  old->ct.filename, old->ct.lineno);
	else
		WARN_ONCE(1, "alloc_tag: tag slot not cleared on free\n");
}

#define UNTAGGED_SLOTS	64
static unsigned long untagged_callers[UNTAGGED_SLOTS];
static DEFINE_RAW_SPINLOCK(untagged_lock);

/**
 * alloc_tag_report_untagged() - an allocation reached the allocator untagged
 * @caller: return address identifying the call site
 *
 * Warns once per call site (for the first 64 sites).
 */
void alloc_tag_report_untagged(unsigned long caller)
{
	unsigned long flags;
	bool report = false;
	int i;

	raw_spin_lock_irqsave(&untagged_lock, flags);
	for (i = 0; i < UNTAGGED_SLOTS; i++) {
		if (untagged_callers[i] == caller)
			break;
		if (!untagged_callers[i]) {
			untagged_callers[i] = caller;
			report = true;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&untagged_lock, flags);
	if (report)
		pr_warn("allocation without a tag from %pS: annotate it with alloc_hooks()\n",
			(void *)caller);
}
#endif /* CONFIG_MEM_ALLOC_PROFILING_DEBUG */

/* ---------------------------------------------------------------------- */

static int __init alloc_tag_init(void)
{
	const struct codetag_type_desc desc = {
		.section	= __stringify(ALLOC_TAG_SECTION),
		.tag_size	= sizeof(struct alloc_tag),
		.vmlinux_start	= &__start_alloc_tags->ct,
		.vmlinux_stop	= &__stop_alloc_tags->ct,
		.module_load	= alloc_tag_module_load,
		.module_unload	= alloc_tag_module_unload,
	};
	struct codetag_type *cttype;

	cttype = codetag_register_type(&desc);
	if (IS_ERR(cttype)) {
		pr_err("cannot register the allocation tag type: %ld\n",
		       PTR_ERR(cttype));
		return PTR_ERR(cttype);
	}
	alloc_tag_cttype = cttype;
	if (!proc_create_seq_private("allocinfo", 0400, NULL, &allocinfo_seq_op,
				     sizeof(struct allocinfo_private), NULL))
		pr_err("cannot create /proc/allocinfo\n");
#ifdef CONFIG_SYSCTL
	register_sysctl_init("vm", mem_profiling_table);
#endif
	pr_info("%zu allocation call sites, profiling %s\n",
		codetag_type_count(cttype),
		mem_profiling_never ? "disabled permanently (never)" :
		mem_alloc_profiling_enabled() ? "on" : "off");
	return 0;
}
module_init(alloc_tag_init);
