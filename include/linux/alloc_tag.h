/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory allocation profiling: a tag per allocation call site.  A helper
 * that allocates for its caller is foo_noprof(), calls only _noprof APIs,
 * and is wrapped by "#define foo(...) alloc_hooks(foo_noprof(__VA_ARGS__))".
 */
#ifndef _LINUX_ALLOC_TAG_H
#define _LINUX_ALLOC_TAG_H

#include <linux/bits.h>
#include <linux/codetag.h>
#include <linux/gfp_types.h>
#include <linux/types.h>

/**
 * struct alloc_tag_counters - a call site's counters, kept per CPU
 * @bytes: bytes allocated and not yet freed
 * @calls: allocations not yet freed
 *
 * Meaningful only summed: an object may be freed on another CPU.
 */
struct alloc_tag_counters {
	u64 bytes;
	u64 calls;
};

/**
 * struct alloc_tag - an allocation call site and its counters
 * @ct: where the call site is
 * @counters: per-CPU counters; NULL until profiling is first switched on
 */
struct alloc_tag {
	struct codetag ct;
	struct alloc_tag_counters __percpu *counters;
} __aligned(8);

/*
 * "Deliberately not charged": the task's tag for profiling's own metadata;
 * with _DEBUG also the stored tag of a slab object allocated untagged.
 */
#define ALLOC_TAG_NONE		((struct alloc_tag *)1UL)

/* Memory profiling uses for itself, reported at boot and by show_mem(). */
enum alloc_tag_meta {
	ALLOC_TAG_META_SLAB,	/* slab tag vectors */
	ALLOC_TAG_META_PERCPU,	/* per-CPU chunk tag vectors */
	ALLOC_TAG_META_NR
};

struct page;

/**
 * struct alloc_tag_consumer - an optional user of the charge hooks
 * @option: its word in "sysctl.vm.mem_profiling=1,word", or NULL
 * @start: the first switch-on (or the registration after it) with
 *	profiling's numbers in place: set up, 0 to be called from then on
 * @load: a module's @tags have their numbers; its code has not run yet
 * @release: a module's @tags hold no charge and are about to go
 * @charge: @bytes at @key (an address; a struct page for pages) on node
 *	@nid were charged to @tag; @nid is NUMA_NO_NODE for a per-CPU
 *	object, whose @bytes are all CPUs' copies; @caller is where the slab
 *	allocator returns to, or 0
 * @uncharge: what @charge was told is freed; @calls is 0 when the block's
 *	first page, which holds the call, stays with another holder
 * @page_split: the block at @page, charged to @tag, became @nr pages, each
 *	its own call
 * @page_swap: migration: the blocks at @a and @b, charged to @atag and
 *	@btag (either may be NULL), exchanged their tags
 *
 * Every callback but @start is called only while the consumer is active
 * (alloc_tag_consumer_start()), in any context its hook runs in, and must
 * neither sleep nor allocate.
 */
struct alloc_tag_consumer {
	const char *option;
	int (*start)(void);
	void (*load)(struct alloc_tag *tags, size_t n);
	void (*release)(struct alloc_tag *tags, size_t n);
	void (*charge)(struct alloc_tag *tag, unsigned long key, int nid,
		       long bytes, unsigned long caller);
	void (*uncharge)(struct alloc_tag *tag, unsigned long key, int nid,
			 long bytes, int calls);
	void (*page_split)(struct alloc_tag *tag, struct page *page,
			   unsigned int nr);
	void (*page_swap)(struct page *a, struct alloc_tag *atag,
			  struct page *b, struct alloc_tag *btag,
			  unsigned int nr);
	/* private: */
	bool active;
};

#ifdef CONFIG_MEM_ALLOC_PROFILING

/* The generic this_cpu_add() (UML) needs irqflags.h, maybe not included yet. */
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>

#define ALLOC_TAG_SECTION	alloc_tags

extern struct alloc_tag __start_alloc_tags[];
extern struct alloc_tag __stop_alloc_tags[];

/*
 * codetag.flags: INACCURATE, a charge was lost for want of metadata;
 * CONSUMER, bits reserved with alloc_tag_flags_reserve(); INDEX_MASK, the
 * page-tag number.
 */
#define ALLOC_TAG_INACCURATE		BIT(31)
#define ALLOC_TAG_CONSUMER_FLAGS	GENMASK(30, 27)
#define ALLOC_TAG_INDEX_MASK		GENMASK(26, 0)

static __always_inline bool alloc_tag_is_real(const struct alloc_tag *tag)
{
	return (unsigned long)tag > (unsigned long)ALLOC_TAG_NONE;
}

/**
 * alloc_tag_to_index() - the page-tag number of a tag, or 0 if it has none
 * @tag: a real tag
 *
 * Numbers are dense: consumers index their own per-tag data by them.
 */
static __always_inline u32 alloc_tag_to_index(const struct alloc_tag *tag)
{
	/* Only the other bits change under us, by cmpxchg. */
	return READ_ONCE(tag->ct.flags) & ALLOC_TAG_INDEX_MASK;
}

/* Off even if on by default: the first switch-on sets them after allocating. */
DECLARE_STATIC_KEY_FALSE(mem_alloc_profiling_key);
DECLARE_STATIC_KEY_FALSE(mem_alloc_profiling_ever_key);

/**
 * mem_alloc_profiling_enabled() - true while vm.mem_profiling is 1
 */
static __always_inline bool mem_alloc_profiling_enabled(void)
{
	return static_branch_unlikely(&mem_alloc_profiling_key);
}

/**
 * mem_alloc_profiling_ever_enabled() - has profiling been on since boot?
 *
 * Frees look for a tag once this is true, even after a switch-off, lest a
 * charged object's slot carry a stale tag into a later allocation.
 */
static __always_inline bool mem_alloc_profiling_ever_enabled(void)
{
	return static_branch_unlikely(&mem_alloc_profiling_ever_key);
}

DECLARE_STATIC_KEY_FALSE(alloc_tag_extras_key);
DECLARE_STATIC_KEY_FALSE(alloc_tag_extras_free_key);

/**
 * alloc_tag_extras_enabled() - is an optional consumer of the hooks active?
 */
static __always_inline bool alloc_tag_extras_enabled(void)
{
	return static_branch_unlikely(&alloc_tag_extras_key);
}

/**
 * alloc_tag_extras_free_enabled() - does an active consumer want more than
 * charges (uncharges, page splits and swaps)?
 *
 * One that counts only charges leaves frees alone.
 */
static __always_inline bool alloc_tag_extras_free_enabled(void)
{
	return static_branch_unlikely(&alloc_tag_extras_free_key);
}

void alloc_tag_mm_init(void);
struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag);
void alloc_tag_metadata_failed(struct alloc_tag *tag);
void alloc_tag_meta_add(enum alloc_tag_meta kind, long bytes);
void alloc_tag_show_mem(void);
/* mm/percpu.c, at the first switch-on: every chunk gets its tag vector. */
void pcpu_alloc_tags_fill(void);
/* mm/slab_common.c, at the first switch-on: the caches of tag vectors. */
int slab_tags_init(void);

/* Consumers (see struct alloc_tag_consumer) and what they may call. */
void alloc_tag_consumer_register(struct alloc_tag_consumer *c);
void alloc_tag_consumer_start(struct alloc_tag_consumer *c);
void alloc_tag_consumer_stop(struct alloc_tag_consumer *c);
bool alloc_tag_boot_option(const char *word);
u32 alloc_tag_flags_reserve(unsigned int nr);
u32 alloc_tag_nr_indexes(void);
void alloc_tag_extras_charge(struct alloc_tag *tag, unsigned long key,
			     int nid, long bytes, unsigned long caller);
void alloc_tag_extras_uncharge(struct alloc_tag *tag, unsigned long key,
			       int nid, long bytes, int calls);

int alloc_tag_lock_sites(void);
void alloc_tag_unlock_sites(void);
int alloc_tag_for_each(int (*fn)(struct alloc_tag *tag, const char *modname,
				 void *arg), void *arg);
u64 alloc_tag_content_id(void);

struct file;
struct inode;
struct seq_file;
int alloc_tag_seq_open(struct file *file, const char *header,
		       void (*show)(struct seq_file *m, struct alloc_tag *tag,
				    const struct codetag_range *range));
int alloc_tag_seq_release(struct inode *inode, struct file *file);
void alloc_tag_seq_line(struct seq_file *m, struct alloc_tag *tag,
			const struct codetag_range *range, u64 bytes,
			u64 calls, int nid);

/**
 * struct allocinfo_ioctl_ops - an ioctl of /proc/allocinfo
 * @ioctl: a command on an open file of the tags of @cttype; @state is the
 *	file's, NULL at first
 * @release: the file is closed; @state as @ioctl left it
 */
struct allocinfo_ioctl_ops {
	long (*ioctl)(struct codetag_type *cttype, void **state,
		      unsigned int cmd, unsigned long arg);
	void (*release)(void *state);
};

void allocinfo_ioctl_register(const struct allocinfo_ioctl_ops *ops);

int mem_alloc_profiling_switch(bool on);

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
void alloc_tag_check_unused(struct alloc_tag **ref);
void alloc_tag_report_untagged(unsigned long caller);
#endif

#define DEFINE_ALLOC_TAG(_name)						\
	static struct alloc_tag _name __used __aligned(8)		\
	__section(__stringify(ALLOC_TAG_SECTION)) = {			\
		.ct = CODE_TAG_INIT,					\
	}

/**
 * alloc_tag_flags_replace() - replace some bits of a tag's flags word
 * @tag: the tag
 * @mask: the bits to replace
 * @bits: their new value, within @mask
 *
 * Context: any context.  Parts of the word are changed by different code
 * with no common lock, so a cmpxchg loop keeps the other bits.
 */
static inline void alloc_tag_flags_replace(struct alloc_tag *tag,
					   unsigned int mask, unsigned int bits)
{
	unsigned int old = READ_ONCE(tag->ct.flags);

	while (!try_cmpxchg(&tag->ct.flags, &old, (old & ~mask) | bits))
		;
}

/* Any context, interrupts included: this_cpu_add() is irq-safe. */
static __always_inline void alloc_tag_counters_add(struct alloc_tag *tag,
						   s64 bytes, s64 calls)
{
	/* Load once: to the compiler, each add may change tag->counters. */
	struct alloc_tag_counters __percpu *c = READ_ONCE(tag->counters);

	this_cpu_add(c->bytes, bytes);
	this_cpu_add(c->calls, calls);
}

/**
 * alloc_tag_charge() - charge an allocation and remember its tag
 * @ref: where the object keeps its tag (slab extension, page tag, ...)
 * @tag: the tag to charge, a real tag (see alloc_tag_is_real())
 * @bytes: size of the object
 */
static __always_inline void alloc_tag_charge(struct alloc_tag **ref,
					     struct alloc_tag *tag, size_t bytes)
{
#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
	alloc_tag_check_unused(ref);
#endif
	*ref = tag;
	alloc_tag_counters_add(tag, bytes, 1);
}

/**
 * alloc_tag_uncharge() - release what an object's tag was charged
 * @ref: where the object keeps its tag; cleared
 * @bytes: size of the object, as charged
 */
static __always_inline void alloc_tag_uncharge(struct alloc_tag **ref,
					       size_t bytes)
{
	struct alloc_tag *tag = *ref;

	if (!tag)
		return;
	*ref = NULL;
	/* Only CONFIG_MEM_ALLOC_PROFILING_DEBUG stores ALLOC_TAG_NONE. */
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) &&
	    !alloc_tag_is_real(tag))
		return;
	alloc_tag_counters_add(tag, -(s64)bytes, -1);
}

/*
 * Macros: <linux/sched.h> includes this header (via <linux/percpu.h>) before
 * task_struct is defined; headers using them include it at their end.
 */

/**
 * alloc_tag_current_set() - is profiling on and the current task's tag set?
 *
 * Lets code with both wrapped and unwrapped callers charge its bookkeeping
 * to a wrapped caller, or to its own line otherwise.
 */
#define alloc_tag_current_set()						\
	(mem_alloc_profiling_enabled() && current->alloc_tag)

/**
 * alloc_tag_save() - make @_tag the task's tag, returning the previous one
 * @_tag: the tag, or ALLOC_TAG_NONE
 */
#define alloc_tag_save(_tag)						\
({									\
	struct alloc_tag *__prev_tag = current->alloc_tag;		\
									\
	current->alloc_tag = (_tag);					\
	__prev_tag;							\
})

/**
 * alloc_tag_restore() - undo alloc_tag_save()
 * @_old: what alloc_tag_save() returned
 */
#define alloc_tag_restore(_old)	((void)(current->alloc_tag = (_old)))

/*
 * Run _do_alloc with _tag as the task's tag once profiling was ever on, even
 * while off, lest a nested allocation charged after a switch-on go to the
 * outer site.  _prof is reused so a concurrent switch cannot skip a restore.
 */
#define alloc_hooks_tag(_tag, _do_alloc)				\
({									\
	bool _prof = mem_alloc_profiling_ever_enabled();		\
	struct alloc_tag *_old = NULL;					\
	typeof(_do_alloc) _res;						\
									\
	if (_prof)							\
		_old = alloc_tag_save(_tag);				\
	_res = _do_alloc;						\
	if (_prof)							\
		alloc_tag_restore(_old);				\
	_res;								\
})

/**
 * alloc_tag_here() - the tag of the line that expands it
 *
 * For wrappers whose header cannot use current (<linux/percpu.h>): they
 * pass the tag to an out-of-line function that uses alloc_hooks_tag().
 */
#define alloc_tag_here()						\
({									\
	DEFINE_ALLOC_TAG(_alloc_tag);					\
	&_alloc_tag;							\
})

/**
 * alloc_hooks() - charge an allocation to the line that calls it
 * @_do_alloc: the allocation expression, using a _noprof function
 */
#define alloc_hooks(_do_alloc)						\
({									\
	DEFINE_ALLOC_TAG(_alloc_tag);					\
	alloc_hooks_tag(&_alloc_tag, _do_alloc);			\
})

/**
 * alloc_6_1_name() - give an allocation function its 6.1 name as well
 * @name: the 6.1 name; the function is name##_noprof()
 *
 * name() is a macro; the unexported alias serves what finds functions by
 * name (kprobes, BPF, perf, ftrace, UML's host side).  It is weak so that
 * kallsyms, which sorts weak symbols last, names the _noprof function.
 */
#define alloc_6_1_name(name)						\
	asm(".weak " __stringify(name) "\n\t"				\
	    ".set " __stringify(name) ", " __stringify(name##_noprof))

/*
 * .text..noprof holds vmlinux's (not modules') allocator entry points, so a
 * stack walk can tell one by address, as in_sched_functions() does; the
 * section also keeps GCC from splitting off a cold part.
 */
extern char __noprof_text_start[], __noprof_text_end[];

/**
 * in_noprof_functions() - is this address in an allocator entry point?
 * @addr: a code address, such as a return address of a stack trace
 */
static inline bool in_noprof_functions(unsigned long addr)
{
	return addr >= (unsigned long)__noprof_text_start &&
	       addr < (unsigned long)__noprof_text_end;
}

#else /* CONFIG_MEM_ALLOC_PROFILING */

static inline bool in_noprof_functions(unsigned long addr)
{
	return false;
}

/*
 * Compiled out, foo_noprof is defined as foo, so symbols are 6.1's, and the
 * macro foo() calls the function foo(): a macro does not expand in itself.
 */
#define alloc_hooks(_do_alloc)		_do_alloc
#define alloc_hooks_tag(_tag, _do_alloc) _do_alloc
#define alloc_6_1_name(name)

static inline bool mem_alloc_profiling_enabled(void)
{
	return false;
}

static inline bool mem_alloc_profiling_ever_enabled(void)
{
	return false;
}

static inline bool alloc_tag_current_set(void)
{
	return false;
}

static inline void alloc_tag_mm_init(void)
{
}

static inline void alloc_tag_show_mem(void)
{
}

static inline void alloc_tag_meta_add(enum alloc_tag_meta kind, long bytes)
{
}

static inline struct alloc_tag *alloc_tag_save(struct alloc_tag *tag)
{
	return NULL;
}

static inline void alloc_tag_restore(struct alloc_tag *old)
{
}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_ALLOC_TAG_H */
