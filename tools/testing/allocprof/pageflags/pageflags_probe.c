// SPDX-License-Identifier: GPL-2.0
/*
 * Not loaded anywhere: compiled against a configured kernel tree by
 * pageflags.sh, which reads the page->flags layout of that configuration
 * from the "->NAME VALUE" strings this object carries in a section of
 * their own (the asm-offsets trick of include/linux/kbuild.h, out of the
 * text section, where arm64's assembler refuses unaligned data).
 */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/page-flags.h>

#define DEFINE(sym, val)						\
	({								\
		asm volatile(".pushsection .pageflags, \"a\"\n"		\
			     ".ascii \"->" #sym " %c0\\n\"\n"			\
			     ".popsection" : : "i" (val));		\
	})

static void __used pageflags_probe(void)
{
	DEFINE(BITS_PER_LONG, BITS_PER_LONG);
	DEFINE(NR_PAGEFLAGS, NR_PAGEFLAGS);
	DEFINE(SECTIONS_WIDTH, SECTIONS_WIDTH);
	DEFINE(NODES_WIDTH, NODES_WIDTH);
	DEFINE(ZONES_WIDTH, ZONES_WIDTH);
	DEFINE(LAST_CPUPID_WIDTH, LAST_CPUPID_WIDTH);
	DEFINE(KASAN_TAG_WIDTH, KASAN_TAG_WIDTH);
	DEFINE(LRU_GEN_WIDTH, LRU_GEN_WIDTH);
	DEFINE(LRU_REFS_MAX, __LRU_REFS_WIDTH);
	DEFINE(LRU_GEN_PGOFF, LRU_GEN_PGOFF);
#ifdef LAST_CPUPID_NOT_IN_PAGE_FLAGS
	DEFINE(LAST_CPUPID_MOVED_OUT, 1);
#else
	DEFINE(LAST_CPUPID_MOVED_OUT, 0);
#endif
}

MODULE_LICENSE("GPL");
