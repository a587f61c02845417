// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for call-stack capture of chosen allocation call sites: a
 * helper allocates at one line for three callers, which call it once,
 * twice and three times; with the helper's line selected, each caller
 * must have a stack of its own with exactly its bytes and calls, and
 * frees must bring them back to zero.
 *
 * Built in only, and included at the end of lib/alloc_tag_capture.c: it
 * reads the records from the inside, so that the kernel carries no
 * interface for it.
 */
#include <kunit/test.h>
#include <linux/alloc_tag.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/memcontrol.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../mm/slab.h"

/* One stack of a site, as tools/vm/allocinfo stacks lists it. */
struct test_stat {
	u32 handle;		/* stack depot handle of one of its objects */
	s64 bytes;
	s64 calls;
};

/* Do the stacks of @a and @b pass through the same functions? */
static bool test_same_funcs(u32 a, u32 b)
{
	unsigned long *ea, *eb, sa, sb, off;
	unsigned int i, na, nb;

	na = a ? stack_depot_fetch(a, &ea) : 0;
	nb = b ? stack_depot_fetch(b, &eb) : 0;
	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		if (ea[i] == eb[i])
			continue;
		if (!kallsyms_lookup_size_offset(ea[i], &sa, &off))
			return false;
		sa = ea[i] - off;
		if (!kallsyms_lookup_size_offset(eb[i], &sb, &off))
			return false;
		if (sa != eb[i] - off)
			return false;
	}
	return true;
}

static int test_stat_cmp(const void *a, const void *b)
{
	const struct test_stat *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->calls > y->calls ? -1 : x->calls < y->calls;
}

/*
 * The stacks of the selected site @name ("FILE:LINE [MODULE]"), merged by
 * the functions they pass through as the tool merges the stacks file's
 * objects: up to @max in @out, largest first.  Returns how many the site
 * has (which may exceed @max), -ENOENT if it is not selected, -ENOMEM.
 */
static int test_stacks(const char *name, struct test_stat *out, int max)
{
	struct test_stat *all = NULL;
	unsigned long flags;
	int site, n = 0, i, j;
	u32 k;

	mutex_lock(&capture_mutex);
	site = capture_find_site(name);
	if (site < 0) {
		n = -ENOENT;
		goto out;
	}
	all = kvcalloc(capture_pool->nr, sizeof(*all), GFP_KERNEL);
	if (!all) {
		n = -ENOMEM;
		goto out;
	}
	raw_spin_lock_irqsave(&capture_lock, flags);
	for (k = 0; k < capture_pool->nr; k++) {
		struct capture_rec *rec = &capture_pool->recs[k];

		if (!rec->key || rec->site != site)
			continue;
		for (i = 0; i < n && all[i].handle != rec->handle; i++)
			;
		if (i == n)
			all[n++].handle = rec->handle;
		all[i].bytes += rec->bytes;
		all[i].calls++;
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !test_same_funcs(all[j].handle,
						      all[i].handle); j++)
			;
		if (j == i)
			continue;
		all[j].bytes += all[i].bytes;
		all[j].calls += all[i].calls;
		all[i--] = all[--n];
	}
	sort(all, n, sizeof(*all), test_stat_cmp, NULL);
	memcpy(out, all, min(n, max) * sizeof(*all));
out:
	mutex_unlock(&capture_mutex);
	kvfree(all);
	return n;
}

/*
 * What the site @name's line in the stacks file says its objects hold
 * (bytes:, calls:): counters kept apart from the records.  -1 bytes if it
 * is not selected.
 */
static void test_site_counts(const char *name, s64 *bytes, s64 *calls)
{
	unsigned long flags;
	int site;

	*bytes = -1;
	*calls = -1;
	mutex_lock(&capture_mutex);
	site = capture_find_site(name);
	if (site >= 0) {
		raw_spin_lock_irqsave(&capture_lock, flags);
		*bytes = capture_sites[site].bytes;
		*calls = capture_sites[site].records;
		raw_spin_unlock_irqrestore(&capture_lock, flags);
	}
	mutex_unlock(&capture_mutex);
}

/* The records in use, and the allocations of selected sites not recorded. */
static void test_counts(unsigned long *records, unsigned long *dropped)
{
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&capture_lock, flags);
	*records = 0;
	*dropped = 0;
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES; i++) {
		*records += capture_sites[i].records;
		*dropped += capture_sites[i].dropped;
	}
	raw_spin_unlock_irqrestore(&capture_lock, flags);
}

/* The tag of vmlinux at @line of @file, or NULL. */
static struct alloc_tag *test_find_tag(const char *file, unsigned int line)
{
	struct capture_walk w = { .file = file, .line = line, .mod = "" };
	struct alloc_tag *tag = NULL;

	if (alloc_tag_lock_sites())
		return NULL;
	if (!alloc_tag_for_each(capture_walk_one, &w) && w.n)
		tag = w.tags[0];
	alloc_tag_unlock_sites();
	kfree(w.tags);
	return tag;
}

/* A write of @val to the cap's parameter file. */
static int set_cap(const char *val)
{
	const struct kernel_param kp = { .arg = &capture_cap };

	return capture_cap_set(val, &kp);
}

#define OBJ_SIZE	100
/* What a kmalloc(OBJ_SIZE) is charged: its cache's slot size. */
#define OBJ_CHARGE	((size_t)kmalloc_slab(OBJ_SIZE, GFP_KERNEL)->size)
#define MAX_OBJS	32

static unsigned int helper_line, page_line, vmalloc_line, percpu_line;
static unsigned int many_lines[ALLOC_TAG_CAPTURE_MAX_SITES + 1];
static void *objs[MAX_OBJS];
static unsigned int nr_objs;

/* The helper: every caller is charged to this one line. */
static noinline void *capture_test_helper(gfp_t gfp)
{
	void *p = kmalloc(OBJ_SIZE, gfp); helper_line = __LINE__;

	return p;
}

static noinline void capture_test_keep(void *p)
{
	if (p && nr_objs < MAX_OBJS)
		objs[nr_objs++] = p;
	else
		kfree(p);
}

static noinline void capture_test_caller1(void)
{
	capture_test_keep(capture_test_helper(GFP_KERNEL));
}

static noinline void capture_test_caller2(void)
{
	int i;

	for (i = 0; i < 2; i++)
		capture_test_keep(capture_test_helper(GFP_KERNEL));
}

static noinline void capture_test_caller3(void)
{
	int i;

	for (i = 0; i < 3; i++)
		capture_test_keep(capture_test_helper(GFP_KERNEL));
}

/*
 * 2^depth distinct stacks: a chain of capture_test_walk_a() and
 * capture_test_walk_b() calls, one per bit of @bits, then the helper.  The
 * counter after each call keeps the compiler from making it a tail call.
 */
static unsigned int walk_count;
static noinline void capture_test_walk_b(unsigned int depth, unsigned int bits);

static noinline void capture_test_walk_a(unsigned int depth, unsigned int bits)
{
	if (!depth)
		kfree(capture_test_helper(GFP_KERNEL));
	else if (bits & 1)
		capture_test_walk_a(depth - 1, bits >> 1);
	else
		capture_test_walk_b(depth - 1, bits >> 1);
	WRITE_ONCE(walk_count, walk_count + 1);
}

static noinline void capture_test_walk_b(unsigned int depth, unsigned int bits)
{
	if (!depth)
		kfree(capture_test_helper(GFP_KERNEL));
	else if (bits & 1)
		capture_test_walk_a(depth - 1, bits >> 1);
	else
		capture_test_walk_b(depth - 1, bits >> 1);
	/* Not the same code as _a(), which the compiler would fold into one. */
	WRITE_ONCE(walk_count, walk_count + 2);
}

static void capture_test_free_all(void)
{
	while (nr_objs)
		kfree(objs[--nr_objs]);
}

static noinline struct page *capture_test_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order); page_line = __LINE__;

	return page;
}

static noinline void *capture_test_vmalloc(unsigned long size)
{
	void *p = vmalloc(size); vmalloc_line = __LINE__;

	return p;
}

static noinline u64 __percpu *capture_test_percpu(void)
{
	u64 __percpu *p = alloc_percpu(u64); percpu_line = __LINE__;

	return p;
}

/* More sites than can be selected at once. */
static noinline void capture_test_many(void)
{
	void *p[ARRAY_SIZE(many_lines)];
	int i = 0;

	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	p[i] = kmalloc(8, GFP_KERNEL); many_lines[i++] = __LINE__;
	while (i--)
		kfree(p[i]);
}

/* A string freed with the test. */
static __printf(2, 3) char *test_sprintf(struct kunit *test,
					 const char *fmt, ...)
{
	char *s = kunit_kzalloc(test, 256, GFP_KERNEL);
	va_list ap;

	KUNIT_ASSERT_NOT_NULL(test, s);
	va_start(ap, fmt);
	vsnprintf(s, 256, fmt, ap);
	va_end(ap);
	return s;
}

static char *site_of(struct kunit *test, unsigned int line)
{
	return test_sprintf(test, "%s:%u", __FILE__, line);
}

/* @fmt has a %s for this file and a %u for @line. */
static int command(struct kunit *test, const char *fmt, unsigned int line)
{
	return alloc_tag_capture_command(test_sprintf(test, fmt, __FILE__, line));
}

/* Does the @i-th frame of @handle belong to @func? */
static bool frame_is(depot_stack_handle_t handle, unsigned int i,
		     const char *func)
{
	unsigned long *entries;
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(func);

	if (stack_depot_fetch(handle, &entries) <= i)
		return false;
	snprintf(buf, sizeof(buf), "%ps", (void *)entries[i]);
	return !strncmp(buf, func, len) && (!buf[len] || buf[len] == '.');
}

static struct alloc_tag_counters site_counters(struct kunit *test,
					       unsigned int line)
{
	struct alloc_tag *tag = test_find_tag(__FILE__, line);

	KUNIT_ASSERT_NOT_NULL(test, tag);
	return alloc_tag_read(tag);
}

static int capture_test_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "vm.mem_profiling is 0");
	if (!IS_ENABLED(CONFIG_KALLSYMS))
		kunit_skip(test, "frames are named with CONFIG_KALLSYMS only");
	/* Make the tags' lines known. */
	kfree(capture_test_helper(GFP_KERNEL));
	__free_pages(capture_test_pages(GFP_KERNEL, 0), 0);
	vfree(capture_test_vmalloc(PAGE_SIZE));
	free_percpu(capture_test_percpu());
	capture_test_many();
	return 0;
}

static void capture_test_exit(struct kunit *test)
{
	capture_test_free_all();
	alloc_tag_capture_command("clear");
	set_cap("4096");
}

static void alloc_tag_test_capture_callers(struct kunit *test)
{
	static const char * const callers[] = {
		"capture_test_caller3", "capture_test_caller2",
		"capture_test_caller1",
	};
	size_t size = OBJ_CHARGE;
	struct test_stat st[4];
	unsigned long records, dropped;
	char *site = site_of(test, helper_line);
	s64 bytes, calls;
	int i, n;

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", helper_line), 0);
	capture_test_caller1();
	capture_test_caller2();
	capture_test_caller3();
	KUNIT_ASSERT_EQ(test, nr_objs, 6);
	n = test_stacks(site, st, ARRAY_SIZE(st));
	KUNIT_ASSERT_EQ(test, n, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, st[i].bytes, (s64)(3 - i) * size);
		KUNIT_EXPECT_EQ(test, st[i].calls, 3 - i);
		KUNIT_EXPECT_TRUE_MSG(test, frame_is(st[i].handle, 0,
						     "capture_test_helper"),
				      "stack %d does not start in the helper", i);
		KUNIT_EXPECT_TRUE_MSG(test, frame_is(st[i].handle, 1, callers[i]),
				      "stack %d: second frame is not %s", i,
				      callers[i]);
	}
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 6);
	KUNIT_EXPECT_EQ(test, dropped, 0);
	test_site_counts(site, &bytes, &calls);
	KUNIT_EXPECT_EQ(test, bytes, (s64)6 * size);
	KUNIT_EXPECT_EQ(test, calls, 6);

	/* A stack goes with the last of its objects. */
	capture_test_free_all();
	n = test_stacks(site, st, ARRAY_SIZE(st));
	KUNIT_EXPECT_EQ(test, n, 0);
	test_site_counts(site, &bytes, &calls);
	KUNIT_EXPECT_EQ(test, bytes, 0);
	KUNIT_EXPECT_EQ(test, calls, 0);
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 0);

	/* Deselecting drops the records of objects still live. */
	capture_test_caller2();
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 2);
	KUNIT_ASSERT_EQ(test, command(test, "-%s:%u", helper_line), 0);
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 0);
	KUNIT_EXPECT_EQ(test, test_stacks(site, st, 4), -ENOENT);
	capture_test_free_all();
}

static void alloc_tag_test_capture_bad_input(struct kunit *test)
{
	struct test_stat st[2];
	char *site = site_of(test, helper_line);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command(""), -EINVAL);
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command("garbage"), -EINVAL);
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command("a.c:x"), -EINVAL);
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command("a.c:0"), -EINVAL);
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command(":12"), -EINVAL);
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u junk", helper_line), -EINVAL);
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u [", helper_line), -EINVAL);
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command("no/such/file.c:12"),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u [nosuchmodule]", helper_line),
			-ENOENT);
	/* vmlinux's sites have no [MODULE]: an empty one is not vmlinux. */
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u []", helper_line), -EINVAL);
	KUNIT_EXPECT_EQ(test, command(test, "-%s:%u", helper_line), -ENOENT);
	/* Forms once accepted: a function, a whole /proc/allocinfo line. */
	KUNIT_EXPECT_EQ(test,
			command(test, "%s:%u func:capture_test_helper", helper_line),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			command(test, "  4096  4 %s:%u func:capture_test_helper",
				helper_line), -EINVAL);
	/* Only as /proc/allocinfo prints it: a site has one name. */
	KUNIT_EXPECT_EQ(test, command(test, "%s:0%u", helper_line), -EINVAL);
	KUNIT_EXPECT_EQ(test, command(test, "%s:+%u", helper_line), -EINVAL);
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u  [m]", helper_line), -EINVAL);
	/* The cap is a parameter now, not a command. */
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command("cap 100"), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_cap("1"), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_cap("1048577"), -EINVAL);
	KUNIT_EXPECT_EQ(test, set_cap("many"), -EINVAL);
	KUNIT_EXPECT_EQ(test, capture_cap, 4096U);
	/* Nothing was selected by any of these. */
	KUNIT_EXPECT_EQ(test, test_stacks(site, st, 2), -ENOENT);

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u\n", helper_line), 0);
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u", helper_line), -EEXIST);
	KUNIT_EXPECT_EQ(test, command(test, "%s:0%u", helper_line), -EINVAL);
	KUNIT_EXPECT_EQ(test, command(test, "-%s:0%u", helper_line), -ENOENT);
	KUNIT_EXPECT_EQ(test, set_cap("100"), -EBUSY);
	KUNIT_EXPECT_EQ(test, capture_cap, 4096U);
	for (i = 0; i < ALLOC_TAG_CAPTURE_MAX_SITES - 1; i++)
		KUNIT_EXPECT_EQ(test, command(test, "%s:%u", many_lines[i]), 0);
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u", many_lines[i]), -ENOSPC);
	/* The refused site was not selected; the others still are. */
	KUNIT_EXPECT_EQ(test,
			test_stacks(site_of(test, many_lines[i]), st, 2),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, test_stacks(site, st, 2), 0);
	KUNIT_EXPECT_EQ(test, alloc_tag_capture_command("clear"), 0);
	KUNIT_EXPECT_EQ(test, test_stacks(site, st, 2), -ENOENT);
}

static void alloc_tag_test_capture_cap(struct kunit *test)
{
	size_t size = OBJ_CHARGE;
	struct test_stat st[2];
	unsigned long records, dropped;
	int i;

	KUNIT_ASSERT_EQ(test, set_cap("16"), 0);
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", helper_line), 0);
	for (i = 0; i < 20; i++)
		capture_test_caller1();
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 16);
	KUNIT_EXPECT_EQ(test, dropped, 4);
	KUNIT_ASSERT_EQ(test,
			test_stacks(site_of(test, helper_line), st, 2),
			1);
	KUNIT_EXPECT_EQ(test, st[0].bytes, (s64)16 * size);
	KUNIT_EXPECT_EQ(test, st[0].calls, 16);
	capture_test_free_all();
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 0);
	KUNIT_EXPECT_EQ(test, dropped, 4);
}

/*
 * One stack, holding @bytes in @calls; none for 0 calls: a stack goes
 * with the last of its objects.
 */
static void expect_one_stack(struct kunit *test, unsigned int line,
			     s64 bytes, s64 calls)
{
	struct test_stat st[2];
	s64 site_bytes, site_calls;

	/* The site's line agrees with its records. */
	test_site_counts(site_of(test, line), &site_bytes, &site_calls);
	KUNIT_EXPECT_EQ(test, site_bytes, bytes);
	KUNIT_EXPECT_EQ(test, site_calls, calls);
	KUNIT_ASSERT_EQ(test,
			test_stacks(site_of(test, line), st, 2),
			calls ? 1 : 0);
	if (!calls)
		return;
	KUNIT_EXPECT_EQ(test, st[0].bytes, bytes);
	KUNIT_EXPECT_EQ(test, st[0].calls, calls);
}

static void alloc_tag_test_capture_pages_split(struct kunit *test)
{
	struct page *page;
	int i;

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", page_line), 0);
	page = capture_test_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_one_stack(test, page_line, 4 * PAGE_SIZE, 1);
	split_page(page, 2);
	expect_one_stack(test, page_line, 4 * PAGE_SIZE, 4);
	for (i = 0; i < 4; i++) {
		__free_page(page + i);
		expect_one_stack(test, page_line, (3 - i) * PAGE_SIZE, 3 - i);
	}

	/* __free_pages() while another reference holds the first page. */
	page = capture_test_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, page);
	get_page(page);
	__free_pages(page, 2);
	expect_one_stack(test, page_line, PAGE_SIZE, 1);
	put_page(page);
	expect_one_stack(test, page_line, 0, 0);
}

static void alloc_tag_test_capture_migrate(struct kunit *test)
{
#ifdef CONFIG_MIGRATION
	struct folio *src, *dst;
	struct page *page;

	if (!mem_cgroup_disabled())
		kunit_skip(test, "boot with cgroup_disable=memory to run this");
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", page_line), 0);
	page = capture_test_pages(GFP_KERNEL | __GFP_COMP, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	src = page_folio(page);
	dst = folio_alloc(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	folio_lock(src);
	folio_lock(dst);
	folio_migrate_flags(dst, src);
	folio_unlock(dst);
	folio_unlock(src);
	/* The record went with the data: freeing the old page drops nothing. */
	folio_put(src);
	expect_one_stack(test, page_line, PAGE_SIZE, 1);
	folio_put(dst);
	expect_one_stack(test, page_line, 0, 0);
#else
	kunit_skip(test, "CONFIG_MIGRATION is off");
#endif
}

/* What a site's stacks hold matches what its tag was charged. */
static void expect_stacks_match_tag(struct kunit *test, unsigned int line,
				    struct alloc_tag_counters before)
{
	struct alloc_tag_counters now = site_counters(test, line);
	struct test_stat st[4];
	s64 bytes = 0, calls = 0;
	int i, n;

	n = test_stacks(site_of(test, line), st, ARRAY_SIZE(st));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_LE(test, n, (int)ARRAY_SIZE(st));
	for (i = 0; i < n; i++) {
		bytes += st[i].bytes;
		calls += st[i].calls;
	}
	KUNIT_EXPECT_EQ(test, bytes, (s64)(now.bytes - before.bytes));
	KUNIT_EXPECT_EQ(test, calls, (s64)(now.calls - before.calls));
}

static void alloc_tag_test_capture_vmalloc_percpu(struct kunit *test)
{
	struct alloc_tag_counters before;
	u64 __percpu *pcp;
	void *v;

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", vmalloc_line), 0);
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", percpu_line), 0);

	before = site_counters(test, vmalloc_line);
	v = capture_test_vmalloc(3 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, v);
	/* Three pages, the vm_struct and the page array. */
	expect_stacks_match_tag(test, vmalloc_line, before);
	expect_one_stack(test, vmalloc_line,
			 site_counters(test, vmalloc_line).bytes - before.bytes, 5);
	vfree(v);
	expect_one_stack(test, vmalloc_line, 0, 0);

	before = site_counters(test, percpu_line);
	pcp = capture_test_percpu();
	KUNIT_ASSERT_NOT_NULL(test, pcp);
	expect_stacks_match_tag(test, percpu_line, before);
	expect_one_stack(test, percpu_line,
			 sizeof(u64) * num_possible_cpus(), 1);
	free_percpu(pcp);
	expect_one_stack(test, percpu_line, 0, 0);
}

struct capture_irq {
	struct hrtimer timer;
	struct completion done;
	bool hardirq;
};

static enum hrtimer_restart capture_test_timer(struct hrtimer *timer)
{
	struct capture_irq *irq = container_of(timer, struct capture_irq, timer);

	irq->hardirq = in_hardirq();
	capture_test_keep(capture_test_helper(GFP_ATOMIC));
	complete(&irq->done);
	return HRTIMER_NORESTART;
}

static void alloc_tag_test_capture_interrupt(struct kunit *test)
{
	size_t size = OBJ_CHARGE;
	struct test_stat st[2];
	struct capture_irq irq = { };

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", helper_line), 0);
	init_completion(&irq.done);
	hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	irq.timer.function = capture_test_timer;
	hrtimer_start(&irq.timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	wait_for_completion(&irq.done);
	hrtimer_cancel(&irq.timer);
	destroy_hrtimer_on_stack(&irq.timer);
	KUNIT_EXPECT_TRUE(test, irq.hardirq);
	KUNIT_ASSERT_EQ(test, nr_objs, 1);
	KUNIT_ASSERT_EQ(test,
			test_stacks(site_of(test, helper_line), st, 2),
			1);
	KUNIT_EXPECT_EQ(test, st[0].bytes, (s64)size);
	KUNIT_EXPECT_EQ(test, st[0].calls, 1);
	KUNIT_EXPECT_TRUE(test, frame_is(st[0].handle, 1, "capture_test_timer"));
	capture_test_free_all();
	expect_one_stack(test, helper_line, 0, 0);
}

/* vm.mem_profiling off: nothing charged, nothing captured; frees still count. */
static void alloc_tag_test_capture_switch(struct kunit *test)
{
	size_t size = OBJ_CHARGE;
	unsigned long records, dropped;

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", helper_line), 0);
	capture_test_caller1();
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(false), 0);
	capture_test_caller1();
	test_counts(&records, &dropped);
	KUNIT_EXPECT_EQ(test, records, 1);
	kfree(objs[--nr_objs]);
	kfree(objs[--nr_objs]);
	expect_one_stack(test, helper_line, 0, 0);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(true), 0);
	capture_test_caller1();
	expect_one_stack(test, helper_line, size, 1);
	capture_test_free_all();
	expect_one_stack(test, helper_line, 0, 0);
}

/*
 * The stack depot's own page allocations are charged to its line in
 * lib/stackdepot.c.  With that line selected too, 256 new stacks make the
 * depot allocate while the helper's allocations are being captured: the
 * nested capture must be refused and counted as dropped (or, if another
 * user of the depot made it allocate, captured from there), never recurse.
 */
#define DEPOT_ALLOC_LINE	474

static void alloc_tag_test_capture_recursion(struct kunit *test)
{
	struct test_stat *st;
	unsigned long records, dropped;
	char depot[64];
	s64 depot_calls = 0;
	unsigned int i;
	int n;

	if (!test_find_tag("lib/stackdepot.c", DEPOT_ALLOC_LINE))
		kunit_skip(test, "no allocation tag at lib/stackdepot.c:%d",
			   DEPOT_ALLOC_LINE);
	st = kunit_kcalloc(test, 512, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	snprintf(depot, sizeof(depot), "lib/stackdepot.c:%d", DEPOT_ALLOC_LINE);
	KUNIT_ASSERT_EQ(test, alloc_tag_capture_command(depot), 0);
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", helper_line), 0);
	for (i = 0; i < 256; i++)
		capture_test_walk_a(8, i);
	/* Each object was freed at once, and its stack with it. */
	n = test_stacks(site_of(test, helper_line), st, 512);
	KUNIT_EXPECT_EQ(test, n, 0);
	n = test_stacks(depot, st, 512);
	for (i = 0; i < n && i < 512; i++)
		depot_calls += st[i].calls;
	test_counts(&records, &dropped);
	kunit_info(test, "depot pages: %lld captured, %lu refused as nested",
		   depot_calls, dropped);
	KUNIT_EXPECT_GT(test, depot_calls + (s64)dropped, 0);
	KUNIT_EXPECT_EQ(test, records, (unsigned long)depot_calls);
}

/*
 * The hooks reach capture, a consumer, through alloc_tag_extras_key, and
 * its frees through alloc_tag_extras_free_key: capture holds one count of
 * each from its first selected site to its last deselected one, beside
 * whatever else holds them (the per-node counters).
 */
static void alloc_tag_test_capture_extras_key(struct kunit *test)
{
	struct static_key *key = &alloc_tag_extras_key.key;
	struct static_key *free_key = &alloc_tag_extras_free_key.key;
	int base = static_key_count(key);
	int free_base = static_key_count(free_key);

	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", many_lines[0]), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(key), base + 1);
	KUNIT_EXPECT_EQ(test, static_key_count(free_key), free_base + 1);
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", many_lines[1]), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(key), base + 1);
	KUNIT_ASSERT_EQ(test, command(test, "-%s:%u", many_lines[0]), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(key), base + 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(capture_consumer.active));
	KUNIT_ASSERT_EQ(test, command(test, "-%s:%u", many_lines[1]), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(key), base);
	KUNIT_EXPECT_EQ(test, static_key_count(free_key), free_base);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(capture_consumer.active));
	/* A selection that fails takes nothing. */
	KUNIT_EXPECT_EQ(test, command(test, "%s:%u", 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, static_key_count(key), base);
	/* "clear" gives back what the sites took. */
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", many_lines[2]), 0);
	KUNIT_ASSERT_EQ(test, command(test, "%s:%u", many_lines[3]), 0);
	KUNIT_ASSERT_EQ(test, alloc_tag_capture_command("clear"), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(key), base);
}

static struct kunit_case capture_test_cases[] = {
	KUNIT_CASE(alloc_tag_test_capture_callers),
	KUNIT_CASE(alloc_tag_test_capture_bad_input),
	KUNIT_CASE(alloc_tag_test_capture_cap),
	KUNIT_CASE(alloc_tag_test_capture_pages_split),
	KUNIT_CASE(alloc_tag_test_capture_migrate),
	KUNIT_CASE(alloc_tag_test_capture_vmalloc_percpu),
	KUNIT_CASE(alloc_tag_test_capture_interrupt),
	KUNIT_CASE(alloc_tag_test_capture_switch),
	KUNIT_CASE(alloc_tag_test_capture_recursion),
	KUNIT_CASE(alloc_tag_test_capture_extras_key),
	{}
};

static struct kunit_suite capture_test_suite = {
	.name = "alloc_tag_capture",
	.init = capture_test_init,
	.exit = capture_test_exit,
	.test_cases = capture_test_cases,
};

kunit_test_suites(&capture_test_suite);
