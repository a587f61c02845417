/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linker-script support for code tags (see include/linux/codetag.h).
 *
 * vmlinux: CODETAG_SECTIONS() keeps each known tag section and brackets it
 * with __start_<name>/__stop_<name>, 8-byte aligned so that the section is
 * an array of tags.  Modules: MOD_CODETAG_SECTIONS() keeps the same
 * sections as allocated output sections of their own, which the module
 * loader finds by name.
 */
#ifndef __ASM_GENERIC_CODETAG_LDS_H
#define __ASM_GENERIC_CODETAG_LDS_H

#define CODETAG_SECTION(_name)				\
	. = ALIGN(8);					\
	__start_##_name = .;				\
	KEEP(*(_name))					\
	__stop_##_name = .;

#define CODETAG_SECTIONS()				\
	CODETAG_SECTION(alloc_tags)			\
	CODETAG_SECTION(codetag_kunit_tags)

#define MOD_CODETAG_SECTION(_name)			\
	_name : ALIGN(8) { KEEP(*(_name)) }

#define MOD_CODETAG_SECTIONS()				\
	MOD_CODETAG_SECTION(alloc_tags)

#endif /* __ASM_GENERIC_CODETAG_LDS_H */
