/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Queries of /proc/allocinfo by ioctl, for programs that want a few of its
 * records (one module, one file, everything above a size) without reading
 * and parsing the whole text.
 *
 * The records are the lines of /proc/allocinfo, in the same order, counted
 * from 0.  ALLOCINFO_IOC_GET_AT returns the first record at or after a
 * position that matches a filter, and ALLOCINFO_IOC_GET_NEXT the next
 * matching one after the last returned; both fail with ENOENT past the
 * last record.  The records change when a module with allocation call
 * sites is loaded or unloaded, and so does the value that
 * ALLOCINFO_IOC_CONTENT_ID returns: a walk that saw it change should start
 * again.
 *
 * Names longer than ALLOCINFO_STR_SIZE - 1 characters are given, and
 * compared, by their last ALLOCINFO_STR_SIZE - 1 characters; modname is
 * empty for call sites of the kernel image itself.
 */
#ifndef _UAPI_LINUX_ALLOC_TAG_H
#define _UAPI_LINUX_ALLOC_TAG_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define ALLOCINFO_STR_SIZE	64

struct allocinfo_content_id {
	__u64 id;
};

struct allocinfo_tag {
	char modname[ALLOCINFO_STR_SIZE];
	char function[ALLOCINFO_STR_SIZE];
	char filename[ALLOCINFO_STR_SIZE];
	__u64 lineno;
};

struct allocinfo_counter {
	__u64 bytes;		/* bytes allocated and not freed */
	__u64 calls;		/* allocations not freed */
	__u8 accurate;		/* 0 where the text says accurate:no */
} __attribute__((aligned(8)));

struct allocinfo_tag_data {
	struct allocinfo_tag tag;
	struct allocinfo_counter counter;
};

/* Bits of allocinfo_filter.mask: which fields a record must match. */
enum {
	ALLOCINFO_FILTER_MODNAME,	/* fields.modname, "" for vmlinux */
	ALLOCINFO_FILTER_FUNCTION,	/* fields.function */
	ALLOCINFO_FILTER_FILENAME,	/* fields.filename */
	ALLOCINFO_FILTER_LINENO,	/* fields.lineno */
	ALLOCINFO_FILTER_INACCURATE,	/* !counter.accurate == !!inaccurate */
	ALLOCINFO_FILTER_MIN_SIZE,	/* counter.bytes >= min_size */
	ALLOCINFO_FILTER_MAX_SIZE,	/* counter.bytes <= max_size */
};

#define ALLOCINFO_FILTER_MASK_MODNAME	(1 << ALLOCINFO_FILTER_MODNAME)
#define ALLOCINFO_FILTER_MASK_FUNCTION	(1 << ALLOCINFO_FILTER_FUNCTION)
#define ALLOCINFO_FILTER_MASK_FILENAME	(1 << ALLOCINFO_FILTER_FILENAME)
#define ALLOCINFO_FILTER_MASK_LINENO	(1 << ALLOCINFO_FILTER_LINENO)
#define ALLOCINFO_FILTER_MASK_INACCURATE (1 << ALLOCINFO_FILTER_INACCURATE)
#define ALLOCINFO_FILTER_MASK_MIN_SIZE	(1 << ALLOCINFO_FILTER_MIN_SIZE)
#define ALLOCINFO_FILTER_MASK_MAX_SIZE	(1 << ALLOCINFO_FILTER_MAX_SIZE)

struct allocinfo_filter {
	__u64 mask;			/* ALLOCINFO_FILTER_MASK_* */
	struct allocinfo_tag fields;
	__u64 min_size;
	__u64 max_size;
	__u64 inaccurate;
};

struct allocinfo_get_at {
	__u64 pos;			/* in: the first record to look at */
	struct allocinfo_filter filter;	/* in: kept for GET_NEXT */
	struct allocinfo_tag_data data;	/* out: the record found */
};

#define ALLOCINFO_IOC_BASE	0xA6
#define ALLOCINFO_IOC_CONTENT_ID \
	_IOR(ALLOCINFO_IOC_BASE, 0, struct allocinfo_content_id)
#define ALLOCINFO_IOC_GET_AT \
	_IOWR(ALLOCINFO_IOC_BASE, 1, struct allocinfo_get_at)
#define ALLOCINFO_IOC_GET_NEXT \
	_IOR(ALLOCINFO_IOC_BASE, 2, struct allocinfo_tag_data)

#endif /* _UAPI_LINUX_ALLOC_TAG_H */
