/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-NUMA-node counters of allocation tags (lib/alloc_tag_nodes.c).
 *
 * Chosen at boot with "sysctl.vm.mem_profiling=1,nodes" (or "0,nodes"):
 * each call site then also counts its live bytes and calls per node of the
 * memory, shown in /proc/allocinfo_nodes.  Not chosen, every hook below is
 * a patched-out branch and nothing is allocated.
 */
#ifndef _LINUX_ALLOC_TAG_NODES_H
#define _LINUX_ALLOC_TAG_NODES_H

#include <linux/alloc_tag.h>

#if defined(CONFIG_MEM_ALLOC_PROFILING) && defined(CONFIG_NUMA)

#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(alloc_tag_nodes_key);

void __alloc_tag_node_add(u32 idx, int nid, long bytes, long calls);
void __alloc_tag_node_pcpu(struct alloc_tag *tag, size_t size, int sign);
void alloc_tag_nodes_option(char *arg);
size_t alloc_tag_nodes_strip(const char *buf, size_t len);
void alloc_tag_nodes_on(u32 nr_vmlinux);
void alloc_tag_nodes_cover(struct alloc_tag *tag, u32 idx);

/**
 * alloc_tag_node_add() - add to the counters of a tag on one node
 * @idx: the tag's page-tag number (see alloc_tag_to_index()); 0 does
 *	nothing
 * @nid: the node of the memory
 * @bytes: bytes to add, negative to subtract
 * @calls: calls to add, negative to subtract
 *
 * Context: any context.
 */
static __always_inline void alloc_tag_node_add(u32 idx, int nid, long bytes,
					       long calls)
{
	if (static_branch_unlikely(&alloc_tag_nodes_key))
		__alloc_tag_node_add(idx, nid, bytes, calls);
}

/**
 * alloc_tag_node_charge() - count an object of @bytes on node @nid
 * @tag: the tag it was charged to, a real tag
 * @nid: the node of the object's memory
 * @bytes: its size, as charged
 */
static __always_inline void alloc_tag_node_charge(struct alloc_tag *tag,
						  int nid, long bytes)
{
	if (static_branch_unlikely(&alloc_tag_nodes_key))
		__alloc_tag_node_add(alloc_tag_to_index(tag), nid, bytes, 1);
}

/**
 * alloc_tag_node_uncharge() - undo alloc_tag_node_charge() at the free
 * @tag: the object's tag as stored, which may be NULL or ALLOC_TAG_NONE
 *	(nothing was counted then)
 * @nid: the node of the object's memory
 * @bytes: its size, as charged
 */
static __always_inline void alloc_tag_node_uncharge(struct alloc_tag *tag,
						    int nid, long bytes)
{
	if (static_branch_unlikely(&alloc_tag_nodes_key) &&
	    alloc_tag_is_real(tag))
		__alloc_tag_node_add(alloc_tag_to_index(tag), nid, -bytes, -1);
}

/**
 * alloc_tag_node_pcpu() - count a per-CPU allocation on the nodes
 * @tag: its tag, or NULL or ALLOC_TAG_NONE (nothing is counted)
 * @size: the size of each CPU's copy
 * @sign: 1 at the allocation, -1 at the free
 *
 * Each node gets the copies of its possible CPUs, and a call.
 */
static __always_inline void alloc_tag_node_pcpu(struct alloc_tag *tag,
						size_t size, int sign)
{
	if (static_branch_unlikely(&alloc_tag_nodes_key) &&
	    alloc_tag_is_real(tag))
		__alloc_tag_node_pcpu(tag, size, sign);
}

#else /* CONFIG_MEM_ALLOC_PROFILING && CONFIG_NUMA */

static inline void alloc_tag_node_add(u32 idx, int nid, long bytes,
				      long calls) {}
static inline void alloc_tag_node_charge(struct alloc_tag *tag, int nid,
					 long bytes) {}
static inline void alloc_tag_node_uncharge(struct alloc_tag *tag, int nid,
					   long bytes) {}
static inline void alloc_tag_node_pcpu(struct alloc_tag *tag, size_t size,
				       int sign) {}
static inline void alloc_tag_nodes_option(char *arg) {}
static inline size_t alloc_tag_nodes_strip(const char *buf, size_t len)
{
	return len;
}

static inline void alloc_tag_nodes_on(u32 nr_vmlinux) {}
static inline void alloc_tag_nodes_cover(struct alloc_tag *tag, u32 idx) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING && CONFIG_NUMA */

#endif /* _LINUX_ALLOC_TAG_NODES_H */
