// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the cumulative counters: allocations at known lines add
 * their bytes and a call each, frees take nothing back, a module's numbers
 * start from zero, and sums carry past 2^32 as the totals' do.
 *
 * Built in only, and included at the end of lib/alloc_tag_cumulative.c.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../mm/slab.h"

struct cum_test_find {
	unsigned int line;
	struct alloc_tag *tag;
};

static int cum_test_find_one(struct alloc_tag *tag, const char *modname,
			     void *arg)
{
	struct cum_test_find *f = arg;

	if (tag->ct.lineno != f->line || strcmp(tag->ct.filename, __FILE__))
		return 0;
	f->tag = tag;
	return 1;
}

static struct alloc_tag_counters cum_test_site(struct kunit *test,
					       unsigned int line)
{
	struct cum_test_find f = { .line = line };

	KUNIT_ASSERT_EQ(test, alloc_tag_lock_sites(), 0);
	alloc_tag_for_each(cum_test_find_one, &f);
	alloc_tag_unlock_sites();
	KUNIT_ASSERT_NOT_NULL_MSG(test, f.tag, "no tag for line %u", line);
	KUNIT_EXPECT_EQ_MSG(test, alloc_tag_read(f.tag).calls, 0ULL,
			    "line %u still holds memory", line);
	return cum_read(f.tag);
}

static int cum_test_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "vm.mem_profiling is 0");
	KUNIT_ASSERT_EQ(test, cum_set(true), 0);
	return 0;
}

static void cum_test_slab(struct kunit *test)
{
	u64 slot = kmalloc_slab(100, GFP_KERNEL)->size;
	struct alloc_tag_counters c;
	unsigned int line = 0, i;
	void *p;

	for (i = 0; i < 3; i++) {
		p = kmalloc(100, GFP_KERNEL); line = __LINE__;
		KUNIT_ASSERT_NOT_NULL(test, p);
		kfree(p);
	}
	c = cum_test_site(test, line);
	KUNIT_EXPECT_EQ(test, c.bytes, 3 * slot);
	KUNIT_EXPECT_EQ(test, c.calls, 3ULL);
}

/* A split block was one allocation: its pages' frees add no call. */
static void cum_test_pages(struct kunit *test)
{
	struct alloc_tag_counters c;
	unsigned int line, i;
	struct page *p;

	p = alloc_pages(GFP_KERNEL, 2); line = __LINE__;
	KUNIT_ASSERT_NOT_NULL(test, p);
	split_page(p, 2);
	for (i = 0; i < 4; i++)
		__free_page(p + i);
	c = cum_test_site(test, line);
	KUNIT_EXPECT_EQ(test, c.bytes, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c.calls, 1ULL);
}

/*
 * Stopped, the counters leave both keys as they found them; started, they
 * take the charge side's only: frees, splits and swaps stay untouched.
 */
static void cum_test_stop(struct kunit *test)
{
	int on = static_key_count(&alloc_tag_extras_key.key);
	int free_on = static_key_count(&alloc_tag_extras_free_key.key);
	struct alloc_tag_counters c;
	unsigned int line;
	void *p;

	KUNIT_ASSERT_EQ(test, cum_set(false), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(&alloc_tag_extras_key.key),
			on - 1);
	KUNIT_EXPECT_EQ(test, static_key_count(&alloc_tag_extras_free_key.key),
			free_on);
	p = kmalloc(64, GFP_KERNEL); line = __LINE__;
	kfree(p);
	KUNIT_ASSERT_EQ(test, cum_set(true), 0);
	c = cum_test_site(test, line);
	KUNIT_EXPECT_EQ(test, c.calls, 0ULL);
}

/*
 * A module's numbers may have been another module's: its load zeroes
 * them.  And a per-CPU sum carries past 2^32, as on 32-bit kernels too.
 */
static void cum_test_load_and_wrap(struct kunit *test)
{
	DEFINE_ALLOC_TAG(tag);
	struct alloc_tag_counters __percpu *c;

	c = cum_find(alloc_tag_to_index(&tag));
	KUNIT_ASSERT_NOT_NULL(test, c);
	cum_charge(&tag, 0, NUMA_NO_NODE, 64, 0);
	KUNIT_EXPECT_EQ(test, cum_read(&tag).bytes, 64ULL);
	cum_load(&tag, 1);
	KUNIT_EXPECT_EQ(test, cum_read(&tag).bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, cum_read(&tag).calls, 0ULL);
	this_cpu_add(c->bytes, 0xffffffffULL);
	this_cpu_add(c->bytes, 2);
	KUNIT_EXPECT_EQ(test, cum_read(&tag).bytes, 0x100000001ULL);
	cum_load(&tag, 1);
}

static struct kunit_case cum_test_cases[] = {
	KUNIT_CASE(cum_test_slab),
	KUNIT_CASE(cum_test_pages),
	KUNIT_CASE(cum_test_stop),
	KUNIT_CASE(cum_test_load_and_wrap),
	{}
};

static struct kunit_suite cum_test_suite = {
	.name = "alloc_tag_cumulative",
	.init = cum_test_init,
	.test_cases = cum_test_cases,
};

kunit_test_suite(cum_test_suite);
