// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the code tagging framework, with a tag type of its own:
 * registration, iteration over vmlinux tags, formatting, and bad input.
 *
 * Built in only, and included at the end of lib/codetag.c, which gives it
 * a way to unregister its types that the kernel does not need.
 */
#include <kunit/test.h>
#include <linux/codetag.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/seq_buf.h>
#include <linux/string.h>

/* A tag type used only here: a codetag plus a cookie to recognise it. */
struct ct_test_tag {
	struct codetag ct;
	u64 cookie;
} __aligned(8);

/* Sections of types registered here: no module carries them. */
#define CT_TEST_SECTION		"codetag_kunit_tags"
#define CT_TEST_OTHER_SECTION	"codetag_kunit_other"

#define NR_SITES 3

/*
 * The tags of the test type, standing in for the tags a linker section
 * would give vmlinux: an array of tags, one per line, each with a cookie
 * to recognise it.
 */
static unsigned int site_line[NR_SITES];
static struct ct_test_tag *test_tags(void)
{
	const unsigned int first = __LINE__ + 2;	/* the line of tags[0] */
	static struct ct_test_tag tags[NR_SITES] __aligned(8) = {
		{ .ct = CODE_TAG_INIT, .cookie = 0xc0de0001 },
		{ .ct = CODE_TAG_INIT, .cookie = 0xc0de0002 },
		{ .ct = CODE_TAG_INIT, .cookie = 0xc0de0003 },
	};
	int i;

	for (i = 0; i < NR_SITES; i++)
		site_line[i] = first + i;
	return tags;
}

static struct codetag_type_desc test_desc(void)
{
	struct codetag_type_desc desc = {
		.section	= CT_TEST_SECTION,
		.tag_size	= sizeof(struct ct_test_tag),
		.vmlinux_start	= &test_tags()[0].ct,
		.vmlinux_stop	= (struct codetag *)(test_tags() + NR_SITES),
	};

	return desc;
}

/*
 * Forget a type registered here, whose tags live only in vmlinux: the
 * kernel itself never unregisters a type.
 */
static void codetag_unregister_type(struct codetag_type *cttype)
{
	struct ct_range *range, *tmp;

	mutex_lock(&codetag_lock);
	list_del(&cttype->node);
	down_write(&cttype->lock);
	list_for_each_entry_safe(range, tmp, &cttype->ranges, node) {
		WARN_ON_ONCE(range->cmod);
		ct_del_range(cttype, range);
	}
	up_write(&cttype->lock);
	mutex_unlock(&codetag_lock);
	kfree(cttype);
}

static int codetag_test_init(struct kunit *test)
{
	struct codetag_type_desc desc = test_desc();
	struct codetag_type *cttype;

	cttype = codetag_register_type(&desc);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(cttype), "register: %ld",
			       PTR_ERR(cttype));
	test->priv = cttype;
	return 0;
}

static void codetag_test_exit(struct kunit *test)
{
	codetag_unregister_type(test->priv);
}

static int site_of(struct codetag *ct)
{
	u64 cookie = container_of(ct, struct ct_test_tag, ct)->cookie;

	if (cookie < 0xc0de0001 || cookie > 0xc0de0000 + NR_SITES)
		return -1;
	return cookie - 0xc0de0001;
}

/* Every tag is found exactly once, with the fields of its call site. */
static void codetag_test_iterate_all(struct kunit *test)
{
	struct codetag_type *cttype = test->priv;
	int seen[NR_SITES] = { 0 };
	struct codetag_iterator iter;
	struct codetag *ct;
	int i, total = 0;

	codetag_lock_module_list(cttype);
	KUNIT_EXPECT_EQ(test, codetag_type_count(cttype), (size_t)NR_SITES);
	iter = codetag_get_ct_iter(cttype);
	while ((ct = codetag_next_ct(&iter))) {
		i = site_of(ct);
		total++;
		KUNIT_ASSERT_GE_MSG(test, i, 0, "foreign tag in the section");
		seen[i]++;
		KUNIT_EXPECT_EQ(test, ct->lineno, site_line[i]);
		KUNIT_EXPECT_STREQ(test, ct->filename, "lib/codetag_kunit.c");
		KUNIT_EXPECT_STREQ(test, ct->function, "test_tags");
		KUNIT_EXPECT_STREQ(test, ct->modname, KBUILD_MODNAME);
	}
	codetag_unlock_module_list(cttype);
	KUNIT_EXPECT_EQ(test, total, NR_SITES);
	for (i = 0; i < NR_SITES; i++)
		KUNIT_EXPECT_EQ_MSG(test, seen[i], 1, "site %d", i);
}

/* With no module carrying the section, every tag is in the vmlinux range. */
static void codetag_test_no_module_tags(struct kunit *test)
{
	struct codetag_type *cttype = test->priv;
	struct codetag_iterator iter;
	struct codetag *ct;
	int n = 0;

	codetag_lock_module_list(cttype);
	iter = codetag_get_ct_iter(cttype);
	while ((ct = codetag_next_ct(&iter))) {
		KUNIT_EXPECT_NULL(test, iter.range->mod);
		KUNIT_EXPECT_STREQ(test, iter.range->modname, "");
		KUNIT_EXPECT_FALSE(test, codetag_range_unloaded(iter.range));
		n++;
	}
	/* The end is sticky. */
	KUNIT_EXPECT_NULL(test, codetag_next_ct(&iter));
	codetag_unlock_module_list(cttype);
	KUNIT_EXPECT_EQ(test, n, NR_SITES);
}

/* An iterator kept across unlock/lock resumes where it stopped. */
static void codetag_test_resume(struct kunit *test)
{
	struct codetag_type *cttype = test->priv;
	int seen[NR_SITES] = { 0 };
	struct codetag_iterator iter;
	struct codetag *ct;
	int i, n = 0;

	codetag_lock_module_list(cttype);
	iter = codetag_get_ct_iter(cttype);
	ct = codetag_next_ct(&iter);
	KUNIT_ASSERT_NOT_NULL(test, ct);
	seen[site_of(ct)]++;
	n++;
	codetag_unlock_module_list(cttype);

	codetag_lock_module_list(cttype);
	/* With ->ct cleared, the same tag again: its range is still listed. */
	iter.ct = NULL;
	KUNIT_EXPECT_PTR_EQ(test, codetag_next_ct(&iter), ct);
	while ((ct = codetag_next_ct(&iter))) {
		seen[site_of(ct)]++;
		n++;
	}
	codetag_unlock_module_list(cttype);
	KUNIT_EXPECT_EQ(test, n, NR_SITES);
	for (i = 0; i < NR_SITES; i++)
		KUNIT_EXPECT_EQ(test, seen[i], 1);
}

/* "file:line [module] func:function", the module part only for modules. */
static void codetag_test_to_text(struct kunit *test)
{
	struct codetag_range vmlinux = { .modname = "" };
	struct codetag_range mod = { .modname = "some_mod" };
	struct ct_test_tag *t = &test_tags()[1];
	char buf[128], want[128];
	struct seq_buf sb;

	seq_buf_init(&sb, buf, sizeof(buf));
	codetag_to_text(&sb, &t->ct, &vmlinux);
	seq_buf_putc(&sb, '\0');
	snprintf(want, sizeof(want), "lib/codetag_kunit.c:%u func:test_tags",
		 site_line[1]);
	KUNIT_EXPECT_STREQ(test, buf, want);

	seq_buf_init(&sb, buf, sizeof(buf));
	codetag_to_text(&sb, &t->ct, &mod);
	seq_buf_putc(&sb, '\0');
	snprintf(want, sizeof(want),
		 "lib/codetag_kunit.c:%u [some_mod] func:test_tags",
		 site_line[1]);
	KUNIT_EXPECT_STREQ(test, buf, want);
}

/* A second type with the same section is refused. */
static void codetag_test_duplicate(struct kunit *test)
{
	struct codetag_type_desc desc = test_desc();
	struct codetag_type *dup = codetag_register_type(&desc);

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(dup), -EEXIST);
	if (!IS_ERR(dup))
		codetag_unregister_type(dup);
}

/* Sizes that are not whole 8-byte-aligned tags are refused. */
static void codetag_test_bad_size(struct kunit *test)
{
	static const size_t bad[] = {
		0, 12, sizeof(struct codetag) - 8, sizeof(struct codetag) + 4,
	};
	struct codetag_type_desc desc = test_desc();
	struct codetag_type *cttype;
	int i;

	desc.section = CT_TEST_OTHER_SECTION;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		desc.tag_size = bad[i];
		cttype = codetag_register_type(&desc);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(cttype), -EINVAL,
				    "tag_size %zu", bad[i]);
		if (!IS_ERR(cttype))
			codetag_unregister_type(cttype);
	}

	/* A vmlinux range that is not a whole number of tags. */
	desc = test_desc();
	desc.section = CT_TEST_OTHER_SECTION;
	desc.vmlinux_stop = (struct codetag *)((char *)desc.vmlinux_stop - 8);
	cttype = codetag_register_type(&desc);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(cttype), -EINVAL);
	if (!IS_ERR(cttype))
		codetag_unregister_type(cttype);

	desc = test_desc();
	desc.section = NULL;
	cttype = codetag_register_type(&desc);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(cttype), -EINVAL);
}

static struct kunit_case codetag_test_cases[] = {
	KUNIT_CASE(codetag_test_iterate_all),
	KUNIT_CASE(codetag_test_no_module_tags),
	KUNIT_CASE(codetag_test_resume),
	KUNIT_CASE(codetag_test_to_text),
	KUNIT_CASE(codetag_test_duplicate),
	KUNIT_CASE(codetag_test_bad_size),
	{}
};

static struct kunit_suite codetag_test_suite = {
	.name = "codetag",
	.init = codetag_test_init,
	.exit = codetag_test_exit,
	.test_cases = codetag_test_cases,
};

kunit_test_suites(&codetag_test_suite);
