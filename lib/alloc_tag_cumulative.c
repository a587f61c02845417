// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cumulative counters of allocation tags, and /proc/allocinfo_cumulative.
 *
 * /proc/allocinfo says what each call site holds; a site that allocates and
 * frees a million objects a second holds little and costs much CPU.  Chosen
 * at boot ("sysctl.vm.mem_profiling=1,cumulative") or at run time
 * (vm.mem_profiling_cumulative=1), every charge also adds to counters of
 * the bytes and calls a site allocated since, which frees never decrease:
 * two reads a few seconds apart give each site's allocation rate
 * ("allocinfo top --rate").
 *
 * The counters are per CPU, as the totals, and found by the tag's page-tag
 * number in chunks of CUM_CHUNK_TAGS numbers behind a directory that only
 * grows; a replaced directory is kept, so that the hook reads it without a
 * lock.  A module's numbers are zeroed at its load: a number may have been
 * another tag's.  Once allocated, counters are never freed, as a hook may
 * still be adding to them when counting stops.
 */
#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/alloc_tag.h>
#include <linux/capability.h>
#include <linux/init.h>
#include <linux/kmemleak.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysctl.h>

#define CUM_CHUNK_SHIFT	10
#define CUM_CHUNK_TAGS	BIT(CUM_CHUNK_SHIFT)

struct cum_dir {
	u32 nr;
	struct alloc_tag_counters __percpu *chunk[];
};

static struct cum_dir cum_dir_none;
static struct cum_dir *cum_dir = &cum_dir_none;
static DEFINE_MUTEX(cum_lock);		/* allocates chunks, grows the directory */

static __always_inline struct alloc_tag_counters __percpu *cum_find(u32 idx)
{
	/* Pairs with smp_store_release() in cum_cover(). */
	const struct cum_dir *dir = READ_ONCE(cum_dir);
	struct alloc_tag_counters __percpu *chunk;

	if (unlikely(!idx || idx >> CUM_CHUNK_SHIFT >= dir->nr))
		return NULL;
	chunk = READ_ONCE(dir->chunk[idx >> CUM_CHUNK_SHIFT]);
	return chunk ? chunk + (idx & (CUM_CHUNK_TAGS - 1)) : NULL;
}

static void cum_charge(struct alloc_tag *tag, unsigned long key, int nid,
		       long bytes, unsigned long caller)
{
	struct alloc_tag_counters __percpu *c = cum_find(alloc_tag_to_index(tag));

	if (likely(c)) {
		this_cpu_add(c->bytes, bytes);
		this_cpu_inc(c->calls);
	}
}

/* Counters for the numbers below @nr; false without memory. */
static bool cum_cover(u32 nr)
{
	struct cum_dir *dir = cum_dir, *old = cum_dir;
	u32 c, want = DIV_ROUND_UP(nr, CUM_CHUNK_TAGS);
	struct alloc_tag_counters __percpu *chunk;

	lockdep_assert_held(&cum_lock);
	if (want > old->nr) {
		dir = kvzalloc(struct_size(dir, chunk, want), GFP_KERNEL);
		if (!dir)
			return false;
		dir->nr = want;
		memcpy(dir->chunk, old->chunk, old->nr * sizeof(old->chunk[0]));
		/* Filled before it is seen; the hook may still read the old one. */
		smp_store_release(&cum_dir, dir);
		if (old != &cum_dir_none)
			kmemleak_not_leak(old);
	}
	for (c = 0; c < want; c++) {
		if (dir->chunk[c])
			continue;
		chunk = __alloc_percpu(CUM_CHUNK_TAGS * sizeof(*chunk),
				       sizeof(u64));
		if (!chunk)
			return false;
		/* Zeroed before it is seen. */
		smp_store_release(&dir->chunk[c], chunk);
	}
	return true;
}

static int cum_start(void)
{
	bool ok;

	/* After "never" nothing is charged: nothing to count. */
	if (!alloc_tag_nr_indexes())
		return -EPERM;
	mutex_lock(&cum_lock);
	ok = cum_cover(alloc_tag_nr_indexes());
	mutex_unlock(&cum_lock);
	if (!ok)
		pr_err("cumulative counters: no memory; profiling goes on without them\n");
	return ok ? 0 : -ENOMEM;
}

/*
 * A module's tags got their numbers: zero their counters.  A tag whose
 * chunk cannot be had is not counted, and marked accurate:no.
 */
static void cum_load(struct alloc_tag *tags, size_t n)
{
	struct alloc_tag_counters __percpu *c;
	size_t i;
	int cpu;

	mutex_lock(&cum_lock);
	for (i = 0; i < n; i++) {
		u32 idx = alloc_tag_to_index(&tags[i]);

		if (!idx)
			continue;
		if (!cum_cover(idx + 1)) {
			alloc_tag_metadata_failed(&tags[i]);
			continue;
		}
		c = cum_find(idx);
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(c, cpu), 0, sizeof(*c));
	}
	mutex_unlock(&cum_lock);
}

static struct alloc_tag_consumer cum_consumer = {
	.option		= "cumulative",
	.start		= cum_start,
	.load		= cum_load,
	.charge		= cum_charge,
};

static bool cum_registered __initdata;

/*
 * With the boot parameter, early, so that the first switch-on at the end
 * of mm_init() starts it; without, at the initcall, for the sysctl.
 */
static int __init cum_register(char *arg)
{
	if (!cum_registered)
		alloc_tag_consumer_register(&cum_consumer);
	cum_registered = true;
	return 0;
}
early_param("sysctl.vm.mem_profiling", cum_register);

static struct alloc_tag_counters cum_read(struct alloc_tag *tag)
{
	struct alloc_tag_counters __percpu *c = cum_find(alloc_tag_to_index(tag));
	struct alloc_tag_counters v = { };
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!c)
			break;
		v.bytes += READ_ONCE(per_cpu_ptr(c, cpu)->bytes);
		v.calls += READ_ONCE(per_cpu_ptr(c, cpu)->calls);
	}
	return v;
}

static void cum_show_tag(struct seq_file *m, struct alloc_tag *tag,
			 const struct codetag_range *range)
{
	struct alloc_tag_counters v = cum_read(tag);

	alloc_tag_seq_line(m, tag, range, v.bytes, v.calls, -1);
}

static int cum_open(struct inode *inode, struct file *file)
{
	return alloc_tag_seq_open(file, "allocinfo_cumulative - version: 1.0\n"
				  "#     <size>  <calls> <tag info>\n",
				  cum_show_tag);
}

static const struct proc_ops cum_proc_ops = {
	.proc_open	= cum_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= alloc_tag_seq_release,
};

/*
 * Start or stop counting at run time.  Module loads wait meanwhile (the
 * sites' lock), so that each module's numbers are covered by the start or
 * by its load.
 */
static int cum_set(bool on)
{
	int ret = alloc_tag_lock_sites();

	if (ret)
		return ret;
	if (on && !READ_ONCE(cum_consumer.active))
		ret = cum_start();
	if (!ret && on)
		alloc_tag_consumer_start(&cum_consumer);
	else if (!on)
		alloc_tag_consumer_stop(&cum_consumer);
	alloc_tag_unlock_sites();
	return ret;
}

#ifdef CONFIG_SYSCTL
static int cum_handler(struct ctl_table *table, int write, void *buffer,
		       size_t *lenp, loff_t *ppos)
{
	int val = READ_ONCE(cum_consumer.active);
	struct ctl_table tmp = {
		.data		= &val,
		.maxlen		= sizeof(val),
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	};
	int ret;

	if (write && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	return cum_set(val);
}

static struct ctl_table cum_table[] = {
	{
		.procname	= "mem_profiling_cumulative",
		.mode		= 0644,
		.proc_handler	= cum_handler,
	},
	{ }
};
#endif /* CONFIG_SYSCTL */

static int __init alloc_tag_cumulative_init(void)
{
	cum_register(NULL);
	if (!proc_create("allocinfo_cumulative", 0400, NULL, &cum_proc_ops))
		pr_err("cannot create /proc/allocinfo_cumulative\n");
#ifdef CONFIG_SYSCTL
	register_sysctl_init("vm", cum_table);
#endif
	return 0;
}
device_initcall(alloc_tag_cumulative_init);

#ifdef CONFIG_MEM_ALLOC_PROFILING_CUMULATIVE_KUNIT_TEST
#include "alloc_tag_cumulative_kunit.c"
#endif /* CONFIG_MEM_ALLOC_PROFILING_CUMULATIVE_KUNIT_TEST */
