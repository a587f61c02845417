// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for memory allocation profiling: every slab API, called at a
 * known line of this file, must charge exactly that line with the object
 * size and one call, and the free must give both back.
 *
 * Expected sizes come from the allocator, never from constants: the
 * smallest kmalloc cache is 8 bytes on x86 but ARCH_KMALLOC_MINALIGN (128
 * on arm64) elsewhere, and a kmem_cache's objects are its object size.
 *
 * Built in only, and included at the end of lib/alloc_tag.c, so that the
 * kernel exports nothing for it.
 */
#include <kunit/test.h>
#include <linux/alloc_tag.h>
#include <linux/memcontrol.h>
#include <linux/migrate.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/pgalloc_tag.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../mm/slab.h"

struct site {
	unsigned int line;
	struct alloc_tag_counters before;
};

struct find_tag {
	unsigned int line;
	struct alloc_tag *tag;
};

static int find_tag_one(struct alloc_tag *tag, const char *modname, void *arg)
{
	struct find_tag *f = arg;

	if (tag->ct.lineno != f->line || strcmp(tag->ct.filename, __FILE__) ||
	    modname[0])
		return 0;
	f->tag = tag;
	return 1;
}

/* The tag of @line of this file, through the API call-stack capture uses. */
static struct alloc_tag *find_tag(unsigned int line)
{
	struct find_tag f = { .line = line };

	if (alloc_tag_lock_sites())
		return NULL;
	alloc_tag_for_each(find_tag_one, &f);
	alloc_tag_unlock_sites();
	return f.tag;
}

static struct alloc_tag_counters site_now(struct kunit *test, unsigned int line)
{
	struct alloc_tag *tag = find_tag(line);

	KUNIT_ASSERT_NOT_NULL_MSG(test, tag, "no tag for line %u", line);
	return alloc_tag_read(tag);
}

/* Record a site's counters; call right after the allocation at @line. */
#define AT(line_var)	(line_var = __LINE__)

static void expect_site(struct kunit *test, unsigned int line,
			u64 bytes, u64 calls)
{
	struct alloc_tag_counters c = site_now(test, line);

	KUNIT_EXPECT_EQ_MSG(test, c.bytes, bytes, "bytes at line %u", line);
	KUNIT_EXPECT_EQ_MSG(test, c.calls, calls, "calls at line %u", line);
}

/*
 * What one kmalloc(@size) is charged: the slot size of the cache it comes
 * from, or whole pages above KMALLOC_MAX_CACHE_SIZE.
 */
static u64 kmalloc_charge(struct kunit *test, size_t size)
{
	size_t bytes = size > KMALLOC_MAX_CACHE_SIZE ? kmalloc_size_roundup(size) :
		       kmalloc_slab(size, GFP_KERNEL)->size;

	/* Not 0: a hook that charged nothing must not pass. */
	KUNIT_EXPECT_GE_MSG(test, bytes, size, "kmalloc_size_roundup(%zu)", size);
	return bytes;
}

#define km(size)	kmalloc_charge(test, size)

static int alloc_tag_test_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "vm.mem_profiling is 0");
	return 0;
}

static void alloc_tag_test_kmalloc(struct kunit *test)
{
	unsigned int l1, l2, l3, l4;
	size_t n = 200;
	void *a, *b, *c, *d;

	a = kmalloc(100, GFP_KERNEL); AT(l1);
	b = kmalloc(n, GFP_KERNEL); AT(l2);
	c = kmalloc_node(64, GFP_KERNEL, NUMA_NO_NODE); AT(l3);
	d = kzalloc(8, GFP_KERNEL); AT(l4);
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	expect_site(test, l1, km(100), 1);
	expect_site(test, l2, km(n), 1);
	expect_site(test, l3, km(64), 1);
	expect_site(test, l4, km(8), 1);
	kfree(a);
	kfree(b);
	kfree(c);
	kfree(d);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
}

static void alloc_tag_test_arrays(struct kunit *test)
{
	unsigned int l1, l2, l3, l4;
	size_t n = 3;
	void *a, *b, *c, *d;

	a = kcalloc(n, 40, GFP_KERNEL); AT(l1);
	b = kmalloc_array(n + 1, 50, GFP_KERNEL); AT(l2);
	c = kcalloc_node(2, 16, GFP_KERNEL, NUMA_NO_NODE); AT(l3);
	d = kzalloc_node(100, GFP_KERNEL, NUMA_NO_NODE); AT(l4);
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	expect_site(test, l1, km(n * 40), 1);
	expect_site(test, l2, km((n + 1) * 50), 1);
	expect_site(test, l3, km(2 * 16), 1);
	expect_site(test, l4, km(100), 1);
	kfree(a);
	kfree(b);
	kfree(c);
	kfree(d);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
}

static void alloc_tag_test_krealloc(struct kunit *test)
{
	unsigned int l1, l2, l3;
	size_t big;
	void *p, *q;

	p = kmalloc(16, GFP_KERNEL); AT(l1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* Fits in place: nothing moves, nothing is charged anew. */
	q = krealloc(p, 12, GFP_KERNEL); AT(l2);
	KUNIT_ASSERT_PTR_EQ(test, p, q);
	expect_site(test, l1, km(16), 1);
	expect_site(test, l2, 0, 0);
	/* Moves: the new object is charged, the old one released. */
	big = ksize(q) + 1;
	p = krealloc(q, big, GFP_KERNEL); AT(l3);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_NE(test, p, q);
	expect_site(test, l1, 0, 0);
	expect_site(test, l3, km(big), 1);
	kfree(p);
	expect_site(test, l3, 0, 0);
}

static void alloc_tag_test_kmem_cache(struct kunit *test)
{
	unsigned int l1, l2, l3, l4, l5, osize;
	struct kmem_cache *s;
	void *a, *b, *c, *d, *bulk[4];
	int got;

	s = kmem_cache_create("alloc_tag_test", 200, 8, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL); AT(l1);
	b = kmem_cache_zalloc(s, GFP_KERNEL); AT(l2);
	c = kmem_cache_alloc_node(s, GFP_KERNEL, NUMA_NO_NODE); AT(l3);
	d = kmem_cache_alloc_lru(s, NULL, GFP_KERNEL); AT(l4);
	got = kmem_cache_alloc_bulk(s, GFP_KERNEL, 4, bulk); AT(l5);
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	KUNIT_ASSERT_EQ(test, got, 4);
	osize = s->size;
	KUNIT_EXPECT_GE(test, osize, 200U);
	expect_site(test, l1, osize, 1);
	expect_site(test, l2, osize, 1);
	expect_site(test, l3, osize, 1);
	expect_site(test, l4, osize, 1);
	expect_site(test, l5, 4 * osize, 4);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_free(s, c);
	kmem_cache_free(s, d);
	kmem_cache_free_bulk(s, 4, bulk);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
	expect_site(test, l5, 0, 0);
	kmem_cache_destroy(s);
}

static void alloc_tag_test_kvmalloc(struct kunit *test)
{
	unsigned int l1, l2, l3, l4;
	void *a, *b, *c, *d;

	a = kvmalloc(100, GFP_KERNEL); AT(l1);
	b = kvzalloc(64, GFP_KERNEL); AT(l2);
	c = kvcalloc(4, 8, GFP_KERNEL); AT(l3);
	KUNIT_ASSERT_TRUE(test, a && b && c);
	d = kvrealloc(c, 32, 300, GFP_KERNEL); AT(l4);
	KUNIT_ASSERT_NOT_NULL(test, d);
	expect_site(test, l1, km(100), 1);
	expect_site(test, l2, km(64), 1);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, km(300), 1);
	kvfree(a);
	kvfree(b);
	kvfree(d);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l4, 0, 0);
}

static unsigned int vasprintf_line;

static __printf(1, 2) char *test_vasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = kvasprintf(GFP_KERNEL, fmt, ap); AT(vasprintf_line);
	va_end(ap);
	return p;
}

static void alloc_tag_test_helpers(struct kunit *test)
{
	static const char data[100] = "abc";
	unsigned int l1, l2, l3, l4, l5;
	char *a, *b, *c, *d, *e;

	a = kstrdup("hello", GFP_KERNEL); AT(l1);
	b = kstrndup("hello world", 5, GFP_KERNEL); AT(l2);
	c = kmemdup(data, sizeof(data), GFP_KERNEL); AT(l3);
	d = kmemdup_nul(data, 20, GFP_KERNEL); AT(l4);
	e = kasprintf(GFP_KERNEL, "%d-%s", 12345, "abcdefghij"); AT(l5);
	KUNIT_ASSERT_TRUE(test, a && b && c && d && e);
	expect_site(test, l1, km(sizeof("hello")), 1);
	expect_site(test, l2, km(5 + 1), 1);
	expect_site(test, l3, km(sizeof(data)), 1);
	expect_site(test, l4, km(20 + 1), 1);
	expect_site(test, l5, km(sizeof("12345-abcdefghij")), 1);
	KUNIT_EXPECT_STREQ(test, e, "12345-abcdefghij");
	kfree(a);
	kfree(b);
	kfree(c);
	kfree(d);
	kfree(e);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
	expect_site(test, l5, 0, 0);
}

static void alloc_tag_test_kvasprintf(struct kunit *test)
{
	struct alloc_tag_counters before, after;
	char *p;

	/* Charged to the line in test_vasprintf() that calls kvasprintf(). */
	p = test_vasprintf("%s", "x");
	KUNIT_ASSERT_NOT_NULL(test, p);
	kfree(p);
	before = site_now(test, vasprintf_line);
	p = test_vasprintf("%08d", 1);
	after = site_now(test, vasprintf_line);
	KUNIT_EXPECT_EQ(test, after.bytes - before.bytes, km(sizeof("00000001")));
	KUNIT_EXPECT_EQ(test, after.calls - before.calls, 1ULL);
	kfree(p);
}

/* A helper written the documented way charges its caller. */
static unsigned int helper_line;

static void *test_helper_alloc_noprof(size_t size)
{
	void *p;

	p = kmalloc_noprof(size, GFP_KERNEL); AT(helper_line);
	return p;
}

#define test_helper_alloc(...)	alloc_hooks(test_helper_alloc_noprof(__VA_ARGS__))

static void alloc_tag_test_noprof_helper(struct kunit *test)
{
	unsigned int l1;
	void *p;

	p = test_helper_alloc(40); AT(l1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_site(test, l1, km(40), 1);
	/* The helper's own line has no tag at all. */
	KUNIT_EXPECT_NULL(test, find_tag(helper_line));
	kfree(p);
	expect_site(test, l1, 0, 0);
}

static void alloc_tag_test_pages(struct kunit *test)
{
	unsigned int l1, l2, l3, l4;
	struct page *a, *b;
	unsigned long c, d;

	a = alloc_pages(GFP_KERNEL, 2); AT(l1);
	b = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 0); AT(l2);
	c = __get_free_pages(GFP_KERNEL, 1); AT(l3);
	d = get_zeroed_page(GFP_KERNEL); AT(l4);
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	expect_site(test, l1, 4 * PAGE_SIZE, 1);
	expect_site(test, l2, PAGE_SIZE, 1);
	expect_site(test, l3, 2 * PAGE_SIZE, 1);
	expect_site(test, l4, PAGE_SIZE, 1);
	__free_pages(a, 2);
	__free_page(b);
	free_pages(c, 1);
	free_page(d);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
}

/*
 * A tag without a page-tag number (a module's, once the numbers ran out)
 * was marked accurate:no when its module loaded: its page allocations go
 * uncharged without a word, and without the failure counter's atomic.
 */
static void alloc_tag_test_pages_unnumbered(struct kunit *test)
{
	DEFINE_ALLOC_TAG(tag);
	long failures = atomic_long_read(&alloc_tag_metadata_failures);
	u32 idx = alloc_tag_to_index(&tag);
	struct alloc_tag_counters c;
	struct page *p;
	int i;

	alloc_tag_flags_replace(&tag, ALLOC_TAG_INDEX_MASK, 0);
	for (i = 0; i < 3; i++) {
		p = alloc_hooks_tag(&tag, alloc_pages_noprof(GFP_KERNEL, 0));
		KUNIT_ASSERT_NOT_NULL(test, p);
		__free_page(p);
	}
	alloc_tag_flags_replace(&tag, ALLOC_TAG_INDEX_MASK, idx);
	c = alloc_tag_read(&tag);
	KUNIT_EXPECT_EQ(test, c.calls, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&alloc_tag_metadata_failures),
			failures);
}

/*
 * Array mode: every frame of memory online has a backed slot, and so room.
 * Online is asked of the memory model, not of the code that backs chunks;
 * one frame per page of slots.
 */
static void alloc_tag_test_slots(struct kunit *test)
{
	unsigned long pfn, step = PAGE_SIZE / sizeof(u32), missing = 0;
	struct zone *zone;

	if (!pgtag_in_array() || !READ_ONCE(pgtag_slots))
		kunit_skip(test, "page tags are not in the array");
	get_online_mems();
	mutex_lock(&pgtag_area_lock);
	for_each_populated_zone(zone) {
		for (pfn = zone->zone_start_pfn; pfn < zone_end_pfn(zone);
		     pfn += step) {
			if (!pfn_to_online_page(pfn))
				continue;
			if (pfn >= pgtag_area_chunks << PGTAG_CHUNK_SHIFT ||
			    !vmalloc_to_page(&pgtag_slots[pfn]))
				missing++;
		}
	}
	mutex_unlock(&pgtag_area_lock);
	put_online_mems();
	KUNIT_EXPECT_EQ(test, missing, 0UL);
}

/*
 * __free_pages() of a non-compound block while another reference holds its
 * first page: the other pages are released at once, the first page when
 * its last reference goes, and the block's bytes and call come back whole.
 */
static void alloc_tag_test_free_tail(struct kunit *test)
{
	unsigned int l1;
	struct page *a;

	a = alloc_pages(GFP_KERNEL, 2); AT(l1);
	KUNIT_ASSERT_NOT_NULL(test, a);
	get_page(a);
	__free_pages(a, 2);
	expect_site(test, l1, PAGE_SIZE, 1);
	put_page(a);
	expect_site(test, l1, 0, 0);
}

static void alloc_tag_test_folios(struct kunit *test)
{
	unsigned int l1, l2, l3, l4;
	struct folio *a, *b, *c, *d;

	a = folio_alloc(GFP_KERNEL, 1); AT(l1);
	b = __folio_alloc(GFP_KERNEL, 0, numa_node_id(), NULL); AT(l2);
	c = vma_alloc_folio(GFP_KERNEL, 0, NULL, 0, false); AT(l3);
	d = filemap_alloc_folio(GFP_KERNEL, 0); AT(l4);
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	expect_site(test, l1, 2 * PAGE_SIZE, 1);
	expect_site(test, l2, PAGE_SIZE, 1);
	expect_site(test, l3, PAGE_SIZE, 1);
	expect_site(test, l4, PAGE_SIZE, 1);
	folio_put(a);
	folio_put(b);
	folio_put(c);
	folio_put(d);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
}

/*
 * Migration swaps the charges: the new page is charged to the old page's
 * line, the old page to the new one's, which its free then releases.
 */
static void alloc_tag_test_migrate(struct kunit *test)
{
#ifdef CONFIG_MIGRATION
	struct folio *src, *dst;
	unsigned int l1, l2;

	/* Without a memcg charge mem_cgroup_migrate() would warn. */
	if (!mem_cgroup_disabled())
		kunit_skip(test, "boot with cgroup_disable=memory to run this");
	src = folio_alloc(GFP_KERNEL, 0); AT(l1);
	dst = folio_alloc(GFP_KERNEL, 0); AT(l2);
	KUNIT_ASSERT_TRUE(test, src && dst);
	expect_site(test, l1, PAGE_SIZE, 1);
	expect_site(test, l2, PAGE_SIZE, 1);
	folio_lock(src);
	folio_lock(dst);
	folio_migrate_flags(dst, src);
	folio_unlock(dst);
	folio_unlock(src);
	expect_site(test, l1, PAGE_SIZE, 1);
	expect_site(test, l2, PAGE_SIZE, 1);
	/* The old page now carries the new one's charge. */
	folio_put(src);
	expect_site(test, l1, PAGE_SIZE, 1);
	expect_site(test, l2, 0, 0);
	folio_put(dst);
	expect_site(test, l1, 0, 0);
#else
	kunit_skip(test, "CONFIG_MIGRATION is off");
#endif
}

/* Splitting keeps bytes exact; each split page counts as one call. */
static void alloc_tag_test_split(struct kunit *test)
{
	unsigned int l1, l2, l3;
	struct page *page;
	void *ex, *exn;
	int i;

	page = alloc_pages(GFP_KERNEL, 2); AT(l1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	split_page(page, 2);
	expect_site(test, l1, 4 * PAGE_SIZE, 4);
	for (i = 0; i < 4; i++) {
		__free_page(page + i);
		expect_site(test, l1, (3 - i) * PAGE_SIZE, 3 - i);
	}

	/*
	 * 3 pages from an order-2 block: the fourth goes back at once.
	 * (alloc_pages_exact_nid() is __meminit: not callable from here.)
	 */
	ex = alloc_pages_exact(3 * PAGE_SIZE, GFP_KERNEL); AT(l2);
	exn = alloc_pages_exact(5 * PAGE_SIZE, GFP_KERNEL); AT(l3);
	KUNIT_ASSERT_TRUE(test, ex && exn);
	expect_site(test, l2, 3 * PAGE_SIZE, 3);
	expect_site(test, l3, 5 * PAGE_SIZE, 5);
	free_pages_exact(ex, 3 * PAGE_SIZE);
	free_pages_exact(exn, 5 * PAGE_SIZE);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
}

/*
 * Migration never moves a tag onto or off a ZONE_DEVICE page (those do not
 * come from the page allocator and are not uncharged when freed): a RAM
 * page keeps its own charge either way, released when it is freed.
 */
static void alloc_tag_test_zone_device(struct kunit *test)
{
#ifdef CONFIG_ZONE_DEVICE
	struct page *dev, *page;
	unsigned int l1;

	/* A struct page of the device zone, never handed to the allocator. */
	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	set_page_zone(dev, ZONE_DEVICE);
	KUNIT_ASSERT_TRUE(test, is_zone_device_page(dev));
	page = alloc_page(GFP_KERNEL); AT(l1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	pgalloc_tag_swap(dev, page, 1);
	expect_site(test, l1, PAGE_SIZE, 1);
	pgalloc_tag_swap(page, dev, 1);
	expect_site(test, l1, PAGE_SIZE, 1);
	__free_page(page);
	expect_site(test, l1, 0, 0);
#else
	kunit_skip(test, "needs CONFIG_ZONE_DEVICE");
#endif
}

/*
 * alloc_contig_range() hands out a range of order-0 pages that are freed
 * one by one: each is charged to the caller, one call per page.
 */
static void alloc_tag_test_contig(struct kunit *test)
{
#ifdef CONFIG_CONTIG_ALLOC
	struct page *page;
	unsigned int l1;

	page = alloc_hooks(alloc_contig_pages(4, GFP_KERNEL, numa_node_id(), NULL)); AT(l1);
	if (!page)
		kunit_skip(test, "no 4 free contiguous pages");
	expect_site(test, l1, 4 * PAGE_SIZE, 4);
	free_contig_range(page_to_pfn(page), 4);
	expect_site(test, l1, 0, 0);
#else
	kunit_skip(test, "needs CONFIG_CONTIG_ALLOC");
#endif
}

static void alloc_tag_test_bulk_and_large(struct kunit *test)
{
	struct page *pages[4] = { NULL };
	unsigned int l1, l2;
	unsigned long got;
	void *big;
	int i;

	got = alloc_pages_bulk_array(GFP_KERNEL, 4, pages); AT(l1);
	KUNIT_ASSERT_EQ(test, got, 4UL);
	expect_site(test, l1, 4 * PAGE_SIZE, 4);
	for (i = 0; i < 4; i++)
		__free_page(pages[i]);
	expect_site(test, l1, 0, 0);

	/* Above KMALLOC_MAX_CACHE_SIZE kmalloc() takes whole pages. */
	big = kmalloc(KMALLOC_MAX_CACHE_SIZE + 1, GFP_KERNEL); AT(l2);
	KUNIT_ASSERT_NOT_NULL(test, big);
	expect_site(test, l2, PAGE_SIZE << get_order(KMALLOC_MAX_CACHE_SIZE + 1), 1);
	kfree(big);
	expect_site(test, l2, 0, 0);
}

/* vmalloc: the pages and the bookkeeping land on the caller's line. */
static void alloc_tag_test_vmalloc(struct kunit *test)
{
	unsigned int l[7];
	void *p[7];
	int i;

	p[0] = vmalloc(3 * PAGE_SIZE + 1); AT(l[0]);
	p[1] = vzalloc(PAGE_SIZE); AT(l[1]);
	p[2] = vmalloc_node(2 * PAGE_SIZE, NUMA_NO_NODE); AT(l[2]);
	p[3] = vzalloc_node(PAGE_SIZE, NUMA_NO_NODE); AT(l[3]);
	p[4] = __vmalloc(PAGE_SIZE, GFP_KERNEL); AT(l[4]);
	p[5] = vmalloc_user(PAGE_SIZE); AT(l[5]);
	/* Too big for kmalloc: kvmalloc() falls back to vmalloc. */
	p[6] = kvmalloc(8 << 20, GFP_KERNEL); AT(l[6]);
	for (i = 0; i < 7; i++)
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	KUNIT_EXPECT_GE(test, site_now(test, l[0]).bytes, 4 * PAGE_SIZE);
	KUNIT_EXPECT_GE(test, site_now(test, l[1]).bytes, PAGE_SIZE);
	KUNIT_EXPECT_GE(test, site_now(test, l[2]).bytes, 2 * PAGE_SIZE);
	KUNIT_EXPECT_GE(test, site_now(test, l[3]).bytes, PAGE_SIZE);
	KUNIT_EXPECT_GE(test, site_now(test, l[4]).bytes, PAGE_SIZE);
	KUNIT_EXPECT_GE(test, site_now(test, l[5]).bytes, PAGE_SIZE);
	KUNIT_EXPECT_GE(test, site_now(test, l[6]).bytes, 8ULL << 20);
	/* Pages plus at least the vm_struct. */
	KUNIT_EXPECT_GE(test, site_now(test, l[0]).calls, 5ULL);
	for (i = 0; i < 6; i++)
		vfree(p[i]);
	kvfree(p[6]);
	for (i = 0; i < 7; i++)
		expect_site(test, l[i], 0, 0);
}

/* percpu: size times the number of possible CPUs. */
static void alloc_tag_test_percpu(struct kunit *test)
{
	struct big { char c[100]; };
	u64 ncpus = num_possible_cpus();
	unsigned int l1, l2, l3, l4;
	void __percpu *a, *b, *c, *d;

	a = alloc_percpu(u64); AT(l1);
	b = alloc_percpu_gfp(struct big, GFP_KERNEL); AT(l2);
	c = __alloc_percpu(64, 8); AT(l3);
	d = __alloc_percpu_gfp(32, 8, GFP_KERNEL); AT(l4);
	KUNIT_ASSERT_TRUE(test, a && b && c && d);
	expect_site(test, l1, 8 * ncpus, 1);
	expect_site(test, l2, 100 * ncpus, 1);
	expect_site(test, l3, 64 * ncpus, 1);
	expect_site(test, l4, 32 * ncpus, 1);
	free_percpu(a);
	free_percpu(b);
	free_percpu(c);
	free_percpu(d);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
	expect_site(test, l3, 0, 0);
	expect_site(test, l4, 0, 0);
}

/*
 * Switching off: allocations are not charged, and freeing them later, with
 * profiling back on, decrements nothing.  Objects charged while on are
 * released when freed while off.
 */
/*
 * A sum of per-CPU counters read while objects move between CPUs can be
 * negative for a moment; it is read as 0, never as a wrapped number.
 */
static void alloc_tag_test_negative_sum(struct kunit *test)
{
	DEFINE_ALLOC_TAG(tag);
	struct alloc_tag_counters c;

	this_cpu_add(tag.counters->bytes, -64);
	this_cpu_add(tag.counters->calls, -1);
	c = alloc_tag_read(&tag);
	KUNIT_EXPECT_EQ(test, c.bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, c.calls, 0ULL);
	this_cpu_add(tag.counters->bytes, 64 + 128);
	this_cpu_add(tag.counters->calls, 1 + 2);
	c = alloc_tag_read(&tag);
	KUNIT_EXPECT_EQ(test, c.bytes, 128ULL);
	KUNIT_EXPECT_EQ(test, c.calls, 2ULL);
	/* Leave nothing charged, as a module's tags must be at unload. */
	this_cpu_add(tag.counters->bytes, -128);
	this_cpu_add(tag.counters->calls, -2);
}

/*
 * A module tag released with its module no longer has counters of its own:
 * it points at a static counter shared by all released tags, so a stale
 * reference charges that, never per-CPU offset 0 (the counters were NULL).
 */
static void alloc_tag_test_released(struct kunit *test)
{
	struct alloc_tag_counters c;
	struct alloc_tag *tags;

	tags = kunit_kcalloc(test, 2, sizeof(*tags), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tags);
	KUNIT_ASSERT_EQ(test, alloc_tag_counters_alloc(tags, 2), 0);
	KUNIT_EXPECT_TRUE(test, tags[0].counters != tags[1].counters);
	alloc_tag_counters_free(tags, 2, &alloc_tag_released);
	KUNIT_EXPECT_TRUE(test, tags[0].counters);
	KUNIT_EXPECT_TRUE(test, tags[0].counters == tags[1].counters);
	alloc_tag_counters_add(&tags[0], 64, 1);
	c = alloc_tag_read(&tags[1]);
	KUNIT_EXPECT_EQ(test, c.bytes, 64ULL);
	KUNIT_EXPECT_EQ(test, c.calls, 1ULL);
	/* Undo, so that the check finds nothing and the log stays quiet. */
	alloc_tag_counters_add(&tags[0], -64, -1);
	alloc_tag_released_check();
	c = alloc_tag_read(&tags[0]);
	KUNIT_EXPECT_EQ(test, c.bytes, 0ULL);
}

/*
 * Stack walks (capture, the debug report of untagged pages) tell the
 * allocator entry points by their text section: each is in it, and the
 * functions that free, which are not entry points, are not.
 */
static void alloc_tag_test_entry_points(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)__kmalloc_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)kmem_cache_alloc_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)krealloc_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)kvmalloc_node_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)kstrdup_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)kasprintf_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)__alloc_pages_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)vmalloc_noprof));
	KUNIT_EXPECT_TRUE(test, in_noprof_functions((unsigned long)__alloc_percpu_gfp_noprof));
	KUNIT_EXPECT_FALSE(test, in_noprof_functions((unsigned long)kfree));
	KUNIT_EXPECT_FALSE(test, in_noprof_functions((unsigned long)__free_pages));
	KUNIT_EXPECT_FALSE(test, in_noprof_functions((unsigned long)vfree));
	KUNIT_EXPECT_FALSE(test, in_noprof_functions((unsigned long)free_percpu));
}

static void alloc_tag_test_switch(struct kunit *test)
{
	unsigned int l1, l2;
	void *off_obj, *on_obj;

	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(false), 0);
	KUNIT_EXPECT_FALSE(test, mem_alloc_profiling_enabled());
	off_obj = kmalloc(100, GFP_KERNEL); AT(l1);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(true), 0);
	KUNIT_ASSERT_NOT_NULL(test, off_obj);
	expect_site(test, l1, 0, 0);
	kfree(off_obj);
	expect_site(test, l1, 0, 0);

	on_obj = kmalloc(100, GFP_KERNEL); AT(l2);
	KUNIT_ASSERT_NOT_NULL(test, on_obj);
	expect_site(test, l2, km(100), 1);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(false), 0);
	kfree(on_obj);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(true), 0);
	expect_site(test, l2, 0, 0);

	/* The same slot reused while off must not carry the old tag. */
	on_obj = kmalloc(100, GFP_KERNEL); AT(l2);
	KUNIT_ASSERT_NOT_NULL(test, on_obj);
	kfree(on_obj);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(false), 0);
	off_obj = kmalloc(100, GFP_KERNEL); AT(l1);
	KUNIT_ASSERT_EQ(test, mem_alloc_profiling_switch(true), 0);
	KUNIT_ASSERT_NOT_NULL(test, off_obj);
	kfree(off_obj);
	expect_site(test, l1, 0, 0);
	expect_site(test, l2, 0, 0);
}

/*
 * A charged object's tag is in its slab's tag vector at obj_to_index(),
 * for every object of a slab.  The counts of the other cases would not see
 * a wrong slot: the charge and the release of an object would agree on it.
 * A slab of a cache's first order 0 is page-aligned: OBJEXTS_TAGS (but
 * KFENCE's, which has OBJEXTS_TAGS_UNALIGNED).
 */
#define OBJ_INDEX_OBJS	40

static void obj_index_check_cache(struct kunit *test, struct kmem_cache *s)
{
	unsigned long kind = s->tag_mask == PAGE_SIZE - 1 ? OBJEXTS_TAGS :
			     !s->tag_mask ? OBJEXTS_TAGS_UNALIGNED : 0;
	void **objs = kunit_kcalloc(test, OBJ_INDEX_OBJS, sizeof(*objs),
				    GFP_KERNEL);
	unsigned int i, line = 0;

	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < OBJ_INDEX_OBJS; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL); AT(line);
	}
	for (i = 0; i < OBJ_INDEX_OBJS; i++) {
		struct alloc_tag **tags, *tag = NULL;
		struct slab *slab;

		if (!objs[i]) {
			KUNIT_FAIL(test, "%s: object %u not allocated", s->name, i);
			continue;
		}
		slab = virt_to_slab(objs[i]);
		tags = slab_tags(READ_ONCE(slab->memcg_data));
		if (tags)
			tag = tags[obj_to_index(s, slab, objs[i])];
		KUNIT_EXPECT_TRUE_MSG(test, alloc_tag_is_real(tag) &&
				      tag->ct.lineno == line &&
				      !strcmp(tag->ct.filename, __FILE__),
				      "%s (size %u), object %u, index %u of %u",
				      s->name, s->size, i,
				      obj_to_index(s, slab, objs[i]),
				      slab->objects);
		if (kind && !is_kfence_address(objs[i]))
			KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(slab->memcg_data) &
					    (OBJEXTS_TAGS |
					     OBJEXTS_TAGS_UNALIGNED), kind,
					    "%s", s->name);
	}
	expect_site(test, line, OBJ_INDEX_OBJS * s->size, OBJ_INDEX_OBJS);
	for (i = 0; i < OBJ_INDEX_OBJS; i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
	expect_site(test, line, 0, 0);
}

static void alloc_tag_test_obj_index(struct kunit *test)
{
	/* Sizes that are not powers of 2, with and without red zones. */
	static const unsigned int sizes[] = { 24, 40, 104, 200, 328, 1000, 3000 };
	static const slab_flags_t flags[] = { 0, SLAB_RED_ZONE };
	struct kmem_cache *s;
	unsigned int i, f, caches = 0;

	for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++) {
		s = kmalloc_caches[KMALLOC_NORMAL][i];
		if (s) {
			obj_index_check_cache(test, s);
			caches++;
		}
	}
	/* Every power of two from the smallest kmalloc size up was checked. */
	KUNIT_EXPECT_GE(test, caches,
			(unsigned int)(KMALLOC_SHIFT_HIGH - KMALLOC_SHIFT_LOW + 1));
	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			s = kmem_cache_create("alloc_tag_test_index", sizes[i],
					      8, flags[f], NULL);
			KUNIT_ASSERT_NOT_NULL(test, s);
			obj_index_check_cache(test, s);
			kmem_cache_destroy(s);
		}
	}
}

static void obj_index_ctor(void *object)
{
}

/*
 * A slab larger than its cache's tag_mask + 1 (here every slab: the mask
 * is 0) gets OBJEXTS_TAGS_UNALIGNED, and its objects the exact index, out
 * of line.  The constructor keeps the cache from being merged.
 */
static void alloc_tag_test_unaligned(struct kunit *test)
{
	struct kmem_cache *s;

	s = kmem_cache_create("alloc_tag_test_unaligned", 200, 8, 0,
			      obj_index_ctor);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->tag_mask = 0;
	obj_index_check_cache(test, s);
	kmem_cache_destroy(s);
	/* memcg's own vector is 8-byte aligned: its bit 3 is no tag bit. */
	KUNIT_EXPECT_NULL(test, slab_tags(0x1008UL | OBJEXTS_VECTOR));
}

/*
 * A slab whose memcg vector predates its tag vector keeps it apart, at its
 * own address, which bit 3 may be part of: memcg's vectors are 8-byte
 * aligned: one of 65 words whose address has bit 3 set.
 */
static void alloc_tag_test_objcgs_apart(struct kunit *test)
{
	struct kmem_cache *vs, *s;
	struct alloc_tag *prev;
	void *vec[16], *obj;
	struct slab *slab;
	int i, v = -1;

	if (!slab_tags_objcgs)
		kunit_skip(test, "memcg cannot account slab objects");
	vs = kmem_cache_create("alloc_tag_test_vec", 520, 8, SLAB_NOLEAKTRACE,
			       NULL);
	s = kmem_cache_create("alloc_tag_test_apart", 64, 8, SLAB_NOLEAKTRACE,
			      NULL);
	KUNIT_ASSERT_TRUE(test, vs && s);
	/* Charged to no tag, the slab of @obj gets no tag vector yet. */
	prev = alloc_tag_save(ALLOC_TAG_NONE);
	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		vec[i] = kmem_cache_alloc_noprof(vs, GFP_KERNEL);
		if (v < 0 && vec[i] && ((unsigned long)vec[i] & 8))
			v = i;
	}
	obj = kmem_cache_alloc_noprof(s, GFP_KERNEL);
	alloc_tag_restore(prev);
	KUNIT_ASSERT_TRUE(test, v >= 0 && obj && !is_kfence_address(obj));
	slab = virt_to_slab(obj);
	KUNIT_ASSERT_EQ(test, READ_ONCE(slab->memcg_data), 0UL);
	memset(vec[v], 0, 520);
	WRITE_ONCE(slab->memcg_data, (unsigned long)vec[v] | OBJEXTS_VECTOR);
	KUNIT_ASSERT_NOT_NULL(test, slab_tags_alloc(s, slab, GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(slab->memcg_data) &
				OBJEXTS_OBJCGS_APART);
	KUNIT_EXPECT_PTR_EQ(test, (void *)slab_objcgs(slab), vec[v]);
	/* The slab's vectors go with it, memcg's too. */
	kmem_cache_free(s, obj);
	for (i = 0; i < ARRAY_SIZE(vec); i++)
		if (vec[i] && i != v)
			kmem_cache_free(vs, vec[i]);
	kmem_cache_destroy(s);
	kmem_cache_destroy(vs);
}

/*
 * slab_tag_off_index()'s multiplication against obj_to_index()'s division,
 * for every object of every kmalloc cache and of odd-sized caches with and
 * without red zones, at every slab order up to MAX_ORDER - 1: every order
 * any of them can use.
 */
static unsigned int tag_index_check_cache(struct kmem_cache *s)
{
	unsigned int order, k, objects, bad = 0;

	for (order = 0; order < MAX_ORDER; order++) {
		objects = (PAGE_SIZE << order) / s->size;
		for (k = 0; k < objects; k++) {
			u32 off = k * s->size + s->red_left_pad;

			bad += (((u64)off * s->tag_mul) >> 32) != k ||
			       reciprocal_divide(off, s->reciprocal_size) != k;
		}
	}
	return bad;
}

static void alloc_tag_test_tag_index(struct kunit *test)
{
	static const unsigned int sizes[] = { 24, 40, 104, 200, 328, 1000, 3000 };
	static const slab_flags_t flags[] = { 0, SLAB_RED_ZONE };
	unsigned int t, i, f, caches = 0;
	struct kmem_cache *s;

	for (t = 0; t < NR_KMALLOC_TYPES; t++) {
		for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++) {
			s = kmalloc_caches[t][i];
			if (!s)
				continue;
			KUNIT_EXPECT_EQ_MSG(test, tag_index_check_cache(s), 0U,
					    "%s", s->name);
			caches++;
		}
	}
	KUNIT_EXPECT_GE(test, caches,
			(unsigned int)(KMALLOC_SHIFT_HIGH - KMALLOC_SHIFT_LOW + 1));
	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			s = kmem_cache_create("alloc_tag_test_index", sizes[i],
					      8, flags[f], NULL);
			KUNIT_ASSERT_NOT_NULL(test, s);
			KUNIT_EXPECT_EQ_MSG(test, tag_index_check_cache(s), 0U,
					    "size %u, red zone %d", sizes[i], f);
			kmem_cache_destroy(s);
		}
	}
}

static struct kunit_case alloc_tag_test_cases[] = {
	KUNIT_CASE(alloc_tag_test_kmalloc),
	KUNIT_CASE(alloc_tag_test_arrays),
	KUNIT_CASE(alloc_tag_test_krealloc),
	KUNIT_CASE(alloc_tag_test_kmem_cache),
	KUNIT_CASE(alloc_tag_test_obj_index),
	KUNIT_CASE(alloc_tag_test_unaligned),
	KUNIT_CASE(alloc_tag_test_objcgs_apart),
	KUNIT_CASE(alloc_tag_test_tag_index),
	KUNIT_CASE(alloc_tag_test_kvmalloc),
	KUNIT_CASE(alloc_tag_test_helpers),
	KUNIT_CASE(alloc_tag_test_kvasprintf),
	KUNIT_CASE(alloc_tag_test_noprof_helper),
	KUNIT_CASE(alloc_tag_test_pages),
	KUNIT_CASE(alloc_tag_test_pages_unnumbered),
	KUNIT_CASE(alloc_tag_test_slots),
	KUNIT_CASE(alloc_tag_test_free_tail),
	KUNIT_CASE(alloc_tag_test_folios),
	KUNIT_CASE(alloc_tag_test_migrate),
	KUNIT_CASE(alloc_tag_test_split),
	KUNIT_CASE(alloc_tag_test_zone_device),
	KUNIT_CASE(alloc_tag_test_contig),
	KUNIT_CASE(alloc_tag_test_bulk_and_large),
	KUNIT_CASE(alloc_tag_test_vmalloc),
	KUNIT_CASE(alloc_tag_test_percpu),
	KUNIT_CASE(alloc_tag_test_negative_sum),
	KUNIT_CASE(alloc_tag_test_released),
	KUNIT_CASE(alloc_tag_test_entry_points),
	KUNIT_CASE(alloc_tag_test_switch),
	{}
};

static struct kunit_suite alloc_tag_test_suite = {
	.name = "alloc_tag",
	.init = alloc_tag_test_init,
	.test_cases = alloc_tag_test_cases,
};

kunit_test_suites(&alloc_tag_test_suite);
