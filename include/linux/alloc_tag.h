/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory allocation profiling: a tag per allocation call site.
 *
 * Every call of an allocation API through its public name (kmalloc(),
 * kmem_cache_alloc(), ...) expands to alloc_hooks(), which defines a static
 * struct alloc_tag for that line and makes it the current task's tag while
 * the allocation runs.  The allocator charges the object's size to the tag
 * found in current->alloc_tag and remembers the tag next to the object, so
 * that the free subtracts from the same tag wherever it happens.
 *
 * Writing an allocation helper
 * ----------------------------
 * A function that allocates on behalf of its caller (kstrdup(), a driver's
 * foo_alloc(), ...) should charge its caller, not itself:
 *
 * 1. Name the function foo_alloc_noprof() and make it call only the
 *    _noprof variants of the allocation APIs (kmalloc_noprof(),
 *    kmem_cache_alloc_noprof(), alloc_pages_noprof(), ...).  These do not
 *    touch the tag.
 * 2. Give it back its public name as a macro that wraps it:
 *
 *	#define foo_alloc(...)	alloc_hooks(foo_alloc_noprof(__VA_ARGS__))
 *
 * Every caller of foo_alloc() then gets a tag of its own.  Calling a public
 * (wrapped) API inside foo_alloc_noprof() would charge foo_alloc_noprof()'s
 * own line instead, which is right for memory the helper keeps for itself.
 * With CONFIG_MEM_ALLOC_PROFILING=n alloc_hooks(x) is just x.
 */
#ifndef _LINUX_ALLOC_TAG_H
#define _LINUX_ALLOC_TAG_H

#include <linux/bits.h>
#include <linux/codetag.h>
#include <linux/gfp_types.h>
#include <linux/types.h>

/**
 * struct alloc_tag_counters - what one call site holds
 * @bytes: bytes allocated and not yet freed
 * @calls: allocations not yet freed
 *
 * Kept per CPU and summed on read; an object freed on another CPU than the
 * one it was allocated on makes the per-CPU values meaningless on their own.
 */
struct alloc_tag_counters {
	u64 bytes;
	u64 calls;
};

/**
 * struct alloc_tag - an allocation call site and its counters
 * @ct: where the call site is
 * @counters: per-CPU counters, allocated when profiling is first switched
 *	on (or, for a module loaded after that, when it loads); NULL until
 *	then
 */
struct alloc_tag {
	struct codetag ct;
	struct alloc_tag_counters __percpu *counters;
} __aligned(8);

/*
 * A tag value that means "deliberately not charged": set as the task's tag
 * while profiling allocates its own metadata, and stored as an object's tag
 * under CONFIG_MEM_ALLOC_PROFILING_DEBUG for objects that were allocated
 * while profiling was on but could not be charged.
 */
#define ALLOC_TAG_NONE		((struct alloc_tag *)1UL)

/* Memory profiling uses for itself, reported at boot and by show_mem(). */
enum alloc_tag_meta {
	ALLOC_TAG_META_SLAB,	/* slab tag vectors */
	ALLOC_TAG_META_PERCPU,	/* per-CPU chunk tag vectors */
	ALLOC_TAG_META_NR
};

#ifdef CONFIG_MEM_ALLOC_PROFILING

/*
 * <linux/irqflags.h>: the generic this_cpu_add() (asm-generic/percpu.h, used
 * by UML) saves and restores interrupts, and this header can be reached
 * from the end of <linux/percpu.h> before anything else included it.
 */
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>

#define ALLOC_TAG_SECTION	alloc_tags

/* The vmlinux tags, bracketed by CODETAG_SECTIONS() in the linker script. */
extern struct alloc_tag __start_alloc_tags[];
extern struct alloc_tag __stop_alloc_tags[];

/*
 * codetag.flags of an allocation tag:
 * - bit 31, ALLOC_TAG_INACCURATE: an allocation at this site could not be
 *   charged because profiling's own metadata could not be allocated; its
 *   counters are low;
 * - bits 27-30, for call-stack capture (lib/alloc_tag_capture.c): bit 30
 *   says that the site is selected, bits 27-29 which of the selected sites
 *   it is;
 * - bits 0-26: the page-tag number of a module's tag, so modules can have
 *   at most 2^27 - 1 tags with numbers.
 * Each part is changed by its own code, with alloc_tag_flags_replace().
 */
#define ALLOC_TAG_INACCURATE		BIT(31)
#define ALLOC_TAG_CAPTURE		BIT(30)
#define ALLOC_TAG_CAPTURE_SITE_SHIFT	27
#define ALLOC_TAG_CAPTURE_SITE		GENMASK(29, 27)
#define ALLOC_TAG_INDEX_MASK		GENMASK(26, 0)

static __always_inline bool alloc_tag_is_real(const struct alloc_tag *tag)
{
	return (unsigned long)tag > (unsigned long)ALLOC_TAG_NONE;
}

/**
 * alloc_tag_to_index() - the page-tag number of a tag
 * @tag: a real tag
 *
 * Return: the number pages refer to the tag by, or 0 if it has none.
 */
static __always_inline u32 alloc_tag_to_index(const struct alloc_tag *tag)
{
	/* Only the other bits change under us, by cmpxchg. */
	return READ_ONCE(tag->ct.flags) & ALLOC_TAG_INDEX_MASK;
}

/*
 * Two keys: whether allocations are charged now (vm.mem_profiling), and
 * whether profiling has ever been enabled since boot, which frees must
 * know (see mem_alloc_profiling_ever_enabled()).  Both start false, also
 * where profiling is on by default: the first switch-on, at the end of
 * mm_init() in that case, allocates what charging needs before it sets
 * them.  A hook is then a no-op while profiling is off, as for any
 * feature that is off by default, and a jump to its charging code while
 * it is on.
 */
DECLARE_STATIC_KEY_FALSE(mem_alloc_profiling_key);
DECLARE_STATIC_KEY_FALSE(mem_alloc_profiling_ever_key);

/**
 * mem_alloc_profiling_enabled() - do allocations get charged now?
 *
 * Return: true while vm.mem_profiling is 1.
 */
static __always_inline bool mem_alloc_profiling_enabled(void)
{
	return static_branch_unlikely(&mem_alloc_profiling_key);
}

/**
 * mem_alloc_profiling_ever_enabled() - has profiling been on since boot?
 *
 * Objects charged while profiling was on may be freed at any later time,
 * also after it was switched off, and their tag must then be decremented
 * and cleared so that the object's slot never carries a stale tag into a
 * later allocation.  So frees look for a tag from the first time profiling
 * is enabled on.
 *
 * Return: true if profiling has been enabled at any time since boot.
 */
static __always_inline bool mem_alloc_profiling_ever_enabled(void)
{
	return static_branch_unlikely(&mem_alloc_profiling_ever_key);
}

/*
 * On while an optional consumer of the page and slab hooks (call-stack
 * capture, say) is in use; each takes it with static_branch_inc().  The
 * hooks test it once, after the charge or before the uncharge, and reach
 * every consumer through one out-of-line step, so that while none is in
 * use they keep nothing live across a call for them.
 */
DECLARE_STATIC_KEY_FALSE(alloc_tag_extras_key);

/**
 * alloc_tag_extras_enabled() - does a hook have more to do than charge?
 *
 * Return: true while an optional consumer of the hooks is in use.
 */
static __always_inline bool alloc_tag_extras_enabled(void)
{
	return static_branch_unlikely(&alloc_tag_extras_key);
}

void alloc_tag_mm_init(void);
struct alloc_tag_counters alloc_tag_read(struct alloc_tag *tag);
u64 alloc_tag_content_id(void);
/* lib/alloc_tag_ioctl.c: the ioctl of /proc/allocinfo. */
struct alloc_tag_query;
long alloc_tag_ioctl(struct codetag_type *cttype,
		     struct alloc_tag_query **query, unsigned int cmd,
		     unsigned long arg);
void alloc_tag_ioctl_release(struct alloc_tag_query *query);
void alloc_tag_metadata_failed(struct alloc_tag *tag);
void alloc_tag_meta_add(enum alloc_tag_meta kind, long bytes);
void alloc_tag_show_mem(void);
/* mm/percpu.c: every percpu chunk gets its tag vector (switching on). */
void pcpu_alloc_tags_fill(void);
/* mm/slab_common.c: the caches of slab tag vectors (switching on). */
int slab_tags_init(void);

int alloc_tag_lock_sites(void);
void alloc_tag_unlock_sites(void);
int alloc_tag_for_each(int (*fn)(struct alloc_tag *tag, const char *modname,
				 void *arg), void *arg);
void alloc_tag_on_release(void (*fn)(struct alloc_tag *tags, size_t n));

/* Files that list the tags as /proc/allocinfo does. */
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

/* What a write to vm.mem_profiling does. */
int mem_alloc_profiling_switch(bool on);

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
void alloc_tag_check_unused(struct alloc_tag **ref);
void alloc_tag_report_untagged(unsigned long caller);
#endif

/* The tag gets its counters when profiling is first switched on. */
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
 * The word holds the page-tag number and flags such as accurate:no, each
 * changed by its own code without a common lock: the other bits must
 * survive, hence the cmpxchg.
 *
 * Context: any context.
 */
static inline void alloc_tag_flags_replace(struct alloc_tag *tag,
					   unsigned int mask, unsigned int bits)
{
	unsigned int old = READ_ONCE(tag->ct.flags);

	while (!try_cmpxchg(&tag->ct.flags, &old, (old & ~mask) | bits))
		;
}

/*
 * Add to a tag's counters.  Allocations and frees happen in every context,
 * including interrupts, so each update must be safe against one:
 * this_cpu_add() gives that on every architecture, with one instruction on
 * x86 and an atomic or LL/SC add on arm64.  Where an architecture has no
 * such instruction the generic this_cpu_add() disables interrupts around
 * the add.
 */
static __always_inline void alloc_tag_counters_add(struct alloc_tag *tag,
						   s64 bytes, s64 calls)
{
	/* Load once: for the compiler, a per-CPU update may change tag->counters. */
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
 * The three helpers below are macros, not inline functions, and this header
 * does not include <linux/sched.h>: it is included at the end of
 * <linux/percpu.h>, which <linux/sched.h> itself includes before struct
 * task_struct is defined, and including <linux/sched.h> from there breaks
 * other include orders (<linux/gfp.h> first, say).  A macro needs the task's
 * field only where it is expanded.  The headers whose wrappers expand them
 * (<linux/gfp.h>, <linux/vmalloc.h>) include <linux/sched.h> at their end.
 */

/**
 * alloc_tag_current_set() - is an allocation in progress charging a tag?
 *
 * Lets a function that serves both wrapped and unwrapped callers charge its
 * bookkeeping to the wrapped caller, or to its own line otherwise.
 *
 * Return: true if profiling is on and the current task has a tag.
 */
#define alloc_tag_current_set()						\
	(mem_alloc_profiling_enabled() && current->alloc_tag)

/**
 * alloc_tag_save() - make @_tag the current task's tag
 * @_tag: the tag, or ALLOC_TAG_NONE
 *
 * Return: the previous tag, for alloc_tag_restore().
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
 * Run _do_alloc with _tag as the current task's tag.  Until profiling is
 * first enabled nothing is done.  From then on the tag is set even while
 * profiling is off: otherwise a nested allocation (a slab page under
 * kmem_cache_alloc_bulk(), say) that starts while profiling is off and is
 * charged after it was switched on would be charged to the outer call
 * site.  The first test's result is reused so that a concurrent switch
 * cannot leave a saved tag unrestored.
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
 * For wrappers that pass the tag to an out-of-line function, which charges
 * it with alloc_hooks_tag(): the header of such a wrapper need not include
 * <linux/sched.h> (see <linux/percpu.h>).
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
 * With profiling compiled in, name() is a macro around name##_noprof().
 * The alias, a symbol that is not exported, is for what finds functions by
 * name: kprobes, BPF and perf probes written for 6.1, ftrace filters, and
 * UML's host-side code, which cannot see these headers' macros.  The
 * assembler gives it the function's type and size.  It is weak so that,
 * of the two names at one address, kallsyms gives the _noprof one (its
 * sort puts weak symbols after the others), as stack traces then show.
 */
#define alloc_6_1_name(name)						\
	asm(".weak " __stringify(name) "\n\t"				\
	    ".set " __stringify(name) ", " __stringify(name##_noprof))

/*
 * __noprof_text (<linux/gfp_types.h>) puts every allocator entry point of
 * vmlinux in .text..noprof, so that a stack walk can tell an entry point
 * by its address, as in_sched_functions() does for __sched, with no
 * symbol lookup.  A section attribute also keeps GCC from splitting a cold
 * part off.  The _noprof helpers of modules are not in it.
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
 * Compiled out, the headers define foo_noprof as foo, so that the
 * functions, their exports and their kallsyms names are 6.1's.  A call
 * foo(...) still goes through the macro foo(...), alloc_hooks(foo_noprof(...)),
 * which ends as a call to the function foo(): a macro is not expanded again
 * inside its own expansion.
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
