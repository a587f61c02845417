// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the per-node counters: on every node with memory,
 * allocates @nr 2048-byte slab objects and @nr pages at one line each,
 * pinned to the node (__GFP_THISNODE), node n getting (n + 1) * @nr of
 * each, so that the counts tell the nodes apart.  Writing a node's number
 * to the "release" parameter frees that node's objects and pages; the rest
 * are freed on unload.
 */
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#define OBJ_SIZE	2048	/* a kmalloc size: its cache's object size */

static unsigned int nr = 64;
module_param(nr, uint, 0444);

struct held {
	struct list_head list;
	struct page *page;
	int nid;
};

static LIST_HEAD(held);

static void release_node(int nid)
{
	struct held *h, *tmp;

	list_for_each_entry_safe(h, tmp, &held, list) {
		if (nid >= 0 && h->nid != nid)
			continue;
		list_del(&h->list);
		if (h->page)
			__free_page(h->page);
		kfree(h);
	}
}

static int release_set(const char *val, const struct kernel_param *kp)
{
	int nid, err = kstrtoint(val, 0, &nid);

	if (err)
		return err;
	release_node(nid);
	return 0;
}

static const struct kernel_param_ops release_ops = {
	.set = release_set,
};
module_param_cb(release, &release_ops, NULL, 0200);

static int __init allocprof_nodes_init(void)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN;
	unsigned int kline = 0, pline = 0, i;
	struct held *h;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		for (i = 0; i < (nid + 1) * nr; i++) {
			/* On one line each: a tag's line is where the call starts. */
			h = kmalloc_node(OBJ_SIZE, gfp, nid); kline = __LINE__;
			if (!h)
				goto fail;
			h->nid = nid;
			h->page = alloc_pages_node(nid, gfp, 0); pline = __LINE__;
			list_add(&h->list, &held);
			if (!h->page || page_to_nid(h->page) != nid ||
			    page_to_nid(virt_to_page(h)) != nid)
				goto fail;
		}
	}
	pr_info("allocprof_nodes: kmalloc %u page %u nr %u size %u page_size %lu\n",
		kline, pline, nr, OBJ_SIZE, PAGE_SIZE);
	return 0;
fail:
	pr_err("allocprof_nodes: an allocation on node %d failed or landed elsewhere\n",
	       nid);
	release_node(-1);
	return -ENOMEM;
}

static void __exit allocprof_nodes_exit(void)
{
	release_node(-1);
}

module_init(allocprof_nodes_init);
module_exit(allocprof_nodes_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("allocation profiling per-node counters test module");
