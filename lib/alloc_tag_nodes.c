// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-NUMA-node counters of allocation tags, and /proc/allocinfo_nodes.
 *
 * /proc/allocinfo says which call sites hold memory, not where it is: on a
 * NUMA host the question is often which sites fill node 0 while node 1 is
 * idle, or what a workload pins on a remote node.  Chosen at boot
 * ("sysctl.vm.mem_profiling=1,nodes"), every charge and uncharge of a tag
 * also adds to a pair of counters of (tag, node of the memory): the page's
 * node for pages (vmalloc()'s among them), the slab's node for slab
 * objects, and for a per-CPU allocation every node with possible CPUs, for
 * their copies.  Migration moves a page's charge to its new node.  The
 * text of /proc/allocinfo does not change: these counters have a file of
 * their own, in its format.
 *
 * The counters are atomics, not per-CPU counters like the totals: per CPU
 * and per node they would take CPUs x nodes x 16 bytes a call site, 1.3 GiB
 * on a 224-CPU, 8-node host with 50,000 sites.  Each node's counters are
 * in that node's memory, so that the common case, a CPU charging memory of
 * its own node, writes a local cache line; CPUs charging one site on one
 * node share its line.
 *
 * A tag's counters are found by its page-tag number (lib/alloc_tag.c), in
 * chunks of NODES_CHUNK_TAGS numbers per node: for the vmlinux tags at the
 * first switch-on, and for a module's tags as they get their numbers.  A
 * chunk is kept once allocated, since a number given back at a module's
 * unload goes to the next module's tags.  The directory of chunks grows
 * with the numbers in use; a directory replaced by a larger one is kept
 * (it is a few pointers), so that the hooks read it without a lock.
 */
#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/alloc_tag.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/kmemleak.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>

#define NODES_CHUNK_SHIFT	10
#define NODES_CHUNK_TAGS	BIT(NODES_CHUNK_SHIFT)

struct tag_node_counters {
	atomic64_t bytes;
	atomic_long_t calls;
};

struct tag_nodes_dir {
	u32 nr;					/* chunks per node */
	struct tag_node_counters *chunk[];	/* [chunk * nr_node_ids + node] */
};

static struct tag_nodes_dir nodes_dir_none;
static struct tag_nodes_dir *nodes_dir = &nodes_dir_none;
static DEFINE_MUTEX(nodes_lock);	/* allocates chunks, grows the directory */
static unsigned int *nodes_pcpu_cpus;	/* possible CPUs of each node */

/* The counters of tag number @idx on node @nid, or NULL. */
static __always_inline struct tag_node_counters *
nodes_find(const struct tag_nodes_dir *dir, u32 idx, int nid)
{
	u32 c = idx >> NODES_CHUNK_SHIFT;
	struct tag_node_counters *chunk;

	if (unlikely(!idx || c >= dir->nr || (unsigned int)nid >= nr_node_ids))
		return NULL;
	/* Pairs with smp_store_release() in nodes_chunk_get(). */
	chunk = READ_ONCE(dir->chunk[c * nr_node_ids + nid]);
	return chunk ? chunk + (idx & (NODES_CHUNK_TAGS - 1)) : NULL;
}

/*
 * A tag with no counters (its number could not get a chunk) is not
 * counted per node.  A module's tag is charged only once its module's
 * code runs, after the load that covered its number and published the
 * directory; that orders the reads of the number and of the directory.
 */
static void nodes_add(struct alloc_tag *tag, int nid, long bytes, long calls)
{
	/* Pairs with smp_store_release() in nodes_dir_grow(). */
	struct tag_node_counters *c;
	u32 idx = alloc_tag_to_index(tag);

	if (nid == NUMA_NO_NODE) {
		/* A per-CPU object: each node gets its CPUs' copies. */
		bytes /= (long)num_possible_cpus();
		for_each_node(nid)
			if (nodes_pcpu_cpus[nid])
				nodes_add(tag, nid, bytes * nodes_pcpu_cpus[nid],
					  calls);
		return;
	}
	c = nodes_find(READ_ONCE(nodes_dir), idx, nid);
	if (likely(c)) {
		atomic64_add(bytes, &c->bytes);
		atomic_long_add(calls, &c->calls);
	}
}

static void nodes_charge(struct alloc_tag *tag, unsigned long key, int nid,
			 long bytes, unsigned long caller)
{
	nodes_add(tag, nid, bytes, 1);
}

static void nodes_uncharge(struct alloc_tag *tag, unsigned long key, int nid,
			   long bytes, int calls)
{
	nodes_add(tag, nid, -bytes, -calls);
}

static void nodes_page_split(struct alloc_tag *tag, struct page *page,
			     unsigned int nr)
{
	nodes_add(tag, page_to_nid(page), 0, nr - 1);
}

/* The charges move with the data, to the other page's node. */
static void nodes_page_swap(struct page *a, struct alloc_tag *atag,
			    struct page *b, struct alloc_tag *btag,
			    unsigned int nr)
{
	long bytes = (long)nr << PAGE_SHIFT;

	if (page_to_nid(a) == page_to_nid(b))
		return;
	if (atag) {
		nodes_add(atag, page_to_nid(a), -bytes, -1);
		nodes_add(atag, page_to_nid(b), bytes, 1);
	}
	if (btag) {
		nodes_add(btag, page_to_nid(b), -bytes, -1);
		nodes_add(btag, page_to_nid(a), bytes, 1);
	}
}

/* Room in the directory for @want chunks per node; NULL without memory. */
static struct tag_nodes_dir *nodes_dir_grow(u32 want)
{
	struct tag_nodes_dir *dir, *old = nodes_dir;
	u32 nr;

	lockdep_assert_held(&nodes_lock);
	if (old->nr >= want)
		return old;
	nr = max(want, 2 * old->nr);
	dir = kvzalloc(struct_size(dir, chunk, (size_t)nr * nr_node_ids),
		       GFP_KERNEL);
	if (!dir)
		return NULL;
	dir->nr = nr;
	memcpy(dir->chunk, old->chunk,
	       (size_t)old->nr * nr_node_ids * sizeof(dir->chunk[0]));
	/* Filled before it is seen; the hooks may still read the old one. */
	smp_store_release(&nodes_dir, dir);
	if (old != &nodes_dir_none)
		kmemleak_not_leak(old);
	return dir;
}

/*
 * Give every node a chunk of counters for chunk number @c, all or none:
 * the numbers of a chunk are counted on every node, or on none.
 */
static bool nodes_chunk_get(u32 c)
{
	struct tag_nodes_dir *dir = nodes_dir_grow(c + 1);
	struct tag_node_counters **new;
	bool ok = false;
	int nid;

	if (!dir)
		return false;
	if (dir->chunk[c * nr_node_ids + first_node(node_possible_map)])
		return true;
	new = kcalloc(nr_node_ids, sizeof(*new), GFP_KERNEL);
	if (!new)
		return false;
	for_each_node(nid) {
		new[nid] = kvzalloc_node(NODES_CHUNK_TAGS * sizeof(**new),
					 GFP_KERNEL, node_state(nid, N_MEMORY) ?
					 nid : NUMA_NO_NODE);
		if (!new[nid])
			goto out;
	}
	for_each_node(nid) {
		/* Zeroed before it is seen: pairs with nodes_find(). */
		smp_store_release(&dir->chunk[c * nr_node_ids + nid], new[nid]);
	}
	ok = true;
out:
	if (!ok) {
		for_each_node(nid)
			kvfree(new[nid]);
	}
	kfree(new);
	return ok;
}

/* Undo a failed nodes_start(): no hook has run. */
static void nodes_free_all(void)
{
	struct tag_nodes_dir *dir = nodes_dir;
	size_t i;

	WRITE_ONCE(nodes_dir, &nodes_dir_none);
	if (dir != &nodes_dir_none) {
		for (i = 0; i < (size_t)dir->nr * nr_node_ids; i++)
			kvfree(dir->chunk[i]);
		kvfree(dir);
	}
	kfree(nodes_pcpu_cpus);
	nodes_pcpu_cpus = NULL;
}

/* The first switch-on: counters for every number in use.  No memory, none. */
static int nodes_start(void)
{
	u32 c, nr = alloc_tag_nr_indexes();
	int cpu, nid;

	mutex_lock(&nodes_lock);
	nodes_pcpu_cpus = kcalloc(nr_node_ids, sizeof(*nodes_pcpu_cpus),
				  GFP_KERNEL);
	if (!nodes_pcpu_cpus)
		goto fail;
	for_each_possible_cpu(cpu) {
		nid = cpu_to_node(cpu);
		/* What the per-CPU allocator does with a CPU of no node. */
		if ((unsigned int)nid >= nr_node_ids)
			nid = first_online_node;
		nodes_pcpu_cpus[nid]++;
	}
	for (c = 0; c <= nr >> NODES_CHUNK_SHIFT; c++)
		if (!nodes_chunk_get(c))
			goto fail;
	mutex_unlock(&nodes_lock);
	pr_info("per-node counters: %u nodes, %zu bytes for the vmlinux tags\n",
		nr_node_ids, (size_t)c * nr_node_ids * NODES_CHUNK_TAGS *
		sizeof(struct tag_node_counters));
	return 0;
fail:
	nodes_free_all();
	mutex_unlock(&nodes_lock);
	pr_err("per-node counters: no memory; profiling goes on without them\n");
	return -ENOMEM;
}

/*
 * A module's tags got their numbers: zero their counters, as a number may
 * have been another tag's.  A tag whose chunk cannot be had is marked
 * accurate:no: the chunk may come with a later tag's, and the frees of
 * what was allocated before then would subtract what was never counted.
 */
static void nodes_load(struct alloc_tag *tags, size_t n)
{
	struct tag_node_counters *c;
	size_t i;
	int nid;
	u32 idx;

	mutex_lock(&nodes_lock);
	for (i = 0; i < n; i++) {
		idx = alloc_tag_to_index(&tags[i]);
		if (!idx)
			continue;
		if (!nodes_chunk_get(idx >> NODES_CHUNK_SHIFT)) {
			alloc_tag_metadata_failed(&tags[i]);
			continue;
		}
		for_each_node(nid) {
			c = nodes_find(nodes_dir, idx, nid);
			atomic64_set(&c->bytes, 0);
			atomic_long_set(&c->calls, 0);
		}
	}
	mutex_unlock(&nodes_lock);
}

static struct alloc_tag_consumer nodes_consumer = {
	.option		= "nodes",
	.start		= nodes_start,
	.load		= nodes_load,
	.charge		= nodes_charge,
	.uncharge	= nodes_uncharge,
	.page_split	= nodes_page_split,
	.page_swap	= nodes_page_swap,
};

/* Early, so that the first switch-on at the end of mm_init() starts it. */
static int __init nodes_early(char *arg)
{
	static bool registered __initdata;

	if (!registered)
		alloc_tag_consumer_register(&nodes_consumer);
	registered = true;
	return 0;
}
early_param("sysctl.vm.mem_profiling", nodes_early);
/* A line per node on which the tag holds memory, or has calls. */
static void nodes_show_tag(struct seq_file *m, struct alloc_tag *tag,
			   const struct codetag_range *range)
{
	const struct tag_nodes_dir *dir = READ_ONCE(nodes_dir);
	u32 idx = alloc_tag_to_index(tag);
	int nid;

	for_each_node(nid) {
		struct tag_node_counters *c = nodes_find(dir, idx, nid);
		s64 bytes, calls;

		if (!c)
			continue;
		/*
		 * Below zero only if the tag's number got its chunk after
		 * some of its charges, by another number's cover: frees of
		 * those subtract what was never added.
		 */
		bytes = atomic64_read(&c->bytes);
		calls = atomic_long_read(&c->calls);
		if (bytes > 0 || calls > 0)
			alloc_tag_seq_line(m, tag, range, max_t(s64, bytes, 0),
					   max_t(s64, calls, 0), nid);
	}
}

static int nodes_open(struct inode *inode, struct file *file)
{
	return alloc_tag_seq_open(file, "allocinfo_nodes - version: 1.0\n"
				  "#     <size>  <calls> <tag info> node:<node>\n",
				  nodes_show_tag);
}

static const struct proc_ops nodes_proc_ops = {
	.proc_open	= nodes_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= alloc_tag_seq_release,
};

static int __init alloc_tag_nodes_init(void)
{
	if (alloc_tag_boot_option("nodes") &&
	    !proc_create("allocinfo_nodes", 0400, NULL, &nodes_proc_ops))
		pr_err("cannot create /proc/allocinfo_nodes\n");
	return 0;
}
device_initcall(alloc_tag_nodes_init);
