// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ioctl of /proc/allocinfo: its records one at a time, filtered in the
 * kernel (include/uapi/linux/alloc_tag.h).  A monitoring agent that wants
 * one module's call sites, or those above a size, then walks the tags
 * without the text being formatted, copied and parsed.
 *
 * Each open file keeps where its last query stopped, so that a walk with
 * ALLOCINFO_IOC_GET_NEXT costs one step per record, as reading the text
 * does (see codetag_next_ct() for how a walk resumes after the module list
 * lock was dropped).
 */
#include <linux/alloc_tag.h>
#include <linux/codetag.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/alloc_tag.h>

#define ALLOCINFO_FILTER_MASK_ALL	(ALLOCINFO_FILTER_MASK_MODNAME |	\
					 ALLOCINFO_FILTER_MASK_FUNCTION |	\
					 ALLOCINFO_FILTER_MASK_FILENAME |	\
					 ALLOCINFO_FILTER_MASK_LINENO |		\
					 ALLOCINFO_FILTER_MASK_INACCURATE |	\
					 ALLOCINFO_FILTER_MASK_MIN_SIZE |	\
					 ALLOCINFO_FILTER_MASK_MAX_SIZE)

/* What an open file's queries remember. */
struct alloc_tag_query {
	struct mutex lock;		/* one query of the file at a time */
	struct codetag_type *cttype;
	struct allocinfo_filter filter;
	struct codetag_iterator iter;	/* at the last record returned */
	bool started;			/* a GET_AT was made */
	bool end;			/* the last query found nothing */
};

/* @src by its last ALLOCINFO_STR_SIZE - 1 characters, as the ABI trims. */
static void allocinfo_name(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (len >= ALLOCINFO_STR_SIZE)
		src += len - (ALLOCINFO_STR_SIZE - 1);
	strscpy(dst, src, ALLOCINFO_STR_SIZE);
}

/*
 * The record of @ct in @data, and whether it passes @f.  The counters are
 * summed only for a record that may be returned or for a size filter.
 */
static bool allocinfo_record(struct codetag *ct, struct codetag_range *range,
			     const struct allocinfo_filter *f,
			     struct allocinfo_tag_data *data)
{
	struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);
	struct allocinfo_tag *t = &data->tag;
	struct alloc_tag_counters c;
	bool accurate;

	if ((f->mask & ALLOCINFO_FILTER_MASK_LINENO) &&
	    f->fields.lineno != ct->lineno)
		return false;
	accurate = !(READ_ONCE(ct->flags) & ALLOC_TAG_INACCURATE);
	if ((f->mask & ALLOCINFO_FILTER_MASK_INACCURATE) &&
	    accurate == !!f->inaccurate)
		return false;
	memset(data, 0, sizeof(*data));
	allocinfo_name(t->modname, range->modname);
	allocinfo_name(t->function, ct->function);
	allocinfo_name(t->filename, ct->filename);
	t->lineno = ct->lineno;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MODNAME) &&
	    strcmp(t->modname, f->fields.modname))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FUNCTION) &&
	    strcmp(t->function, f->fields.function))
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_FILENAME) &&
	    strcmp(t->filename, f->fields.filename))
		return false;
	c = alloc_tag_read(tag);
	if ((f->mask & ALLOCINFO_FILTER_MASK_MIN_SIZE) && c.bytes < f->min_size)
		return false;
	if ((f->mask & ALLOCINFO_FILTER_MASK_MAX_SIZE) && c.bytes > f->max_size)
		return false;
	data->counter.bytes = c.bytes;
	data->counter.calls = c.calls;
	data->counter.accurate = accurate;
	return true;
}

/*
 * From @ct on, the first record that passes the query's filter, into
 * @data; the iterator stays at it.  -ENOENT at the end.  Under the module
 * list lock.
 */
static int alloc_tag_query_find(struct alloc_tag_query *q, struct codetag *ct,
				struct allocinfo_tag_data *data)
{
	for (; ct; ct = codetag_next_ct(&q->iter))
		if (allocinfo_record(ct, q->iter.range, &q->filter, data))
			return 0;
	q->end = true;
	return -ENOENT;
}

static int alloc_tag_get_at(struct alloc_tag_query *q,
			    struct allocinfo_get_at *at)
{
	struct codetag *ct;
	u64 pos;

	if (at->filter.mask & ~ALLOCINFO_FILTER_MASK_ALL)
		return -EINVAL;
	q->filter = at->filter;
	q->filter.fields.modname[ALLOCINFO_STR_SIZE - 1] = '\0';
	q->filter.fields.function[ALLOCINFO_STR_SIZE - 1] = '\0';
	q->filter.fields.filename[ALLOCINFO_STR_SIZE - 1] = '\0';
	q->started = true;
	q->end = false;
	q->iter = codetag_get_ct_iter(q->cttype);
	ct = codetag_next_ct(&q->iter);
	for (pos = 0; ct && pos < at->pos; pos++)
		ct = codetag_next_ct(&q->iter);
	return alloc_tag_query_find(q, ct, &at->data);
}

static int alloc_tag_get_next(struct alloc_tag_query *q,
			      struct allocinfo_tag_data *data)
{
	unsigned long range_id, index;
	struct codetag *ct;

	if (q->end)
		return -ENOENT;
	if (!q->started) {
		/* As GET_AT of the first record without a filter. */
		q->started = true;
		q->iter = codetag_get_ct_iter(q->cttype);
		return alloc_tag_query_find(q, codetag_next_ct(&q->iter), data);
	}
	/*
	 * The last record returned again (the lock was dropped), then on;
	 * if its module's tags went meanwhile, the walk is at the first
	 * record after them, not returned yet.
	 */
	range_id = q->iter.range_id;
	index = q->iter.index;
	q->iter.ct = NULL;
	ct = codetag_next_ct(&q->iter);
	if (ct && q->iter.range_id == range_id && q->iter.index == index)
		ct = codetag_next_ct(&q->iter);
	return alloc_tag_query_find(q, ct, data);
}

/*
 * Returns 0, -ENOENT past the last record, -EINVAL for unknown filter bits,
 * -ENOTTY for an unknown command, -EFAULT or -ENOMEM.
 */
static long alloc_tag_ioctl(struct codetag_type *cttype, void **state,
			    unsigned int cmd, unsigned long arg)
{
	struct alloc_tag_query **query = (struct alloc_tag_query **)state;
	void __user *uarg = (void __user *)arg;
	struct alloc_tag_query *q = READ_ONCE(*query);
	struct allocinfo_content_id id;
	struct allocinfo_tag_data data;
	struct allocinfo_get_at at;
	long ret;

	switch (cmd) {
	case ALLOCINFO_IOC_CONTENT_ID:
		id.id = alloc_tag_content_id();
		return copy_to_user(uarg, &id, sizeof(id)) ? -EFAULT : 0;
	case ALLOCINFO_IOC_GET_AT:
		if (copy_from_user(&at, uarg, sizeof(at)))
			return -EFAULT;
		break;
	case ALLOCINFO_IOC_GET_NEXT:
		break;
	default:
		return -ENOTTY;
	}
	if (!q) {
		q = kzalloc(sizeof(*q), GFP_KERNEL);
		if (!q)
			return -ENOMEM;
		mutex_init(&q->lock);
		q->cttype = cttype;
		if (cmpxchg(query, NULL, q)) {
			kfree(q);
			q = READ_ONCE(*query);
		}
	}
	mutex_lock(&q->lock);
	codetag_lock_module_list(q->cttype);
	if (cmd == ALLOCINFO_IOC_GET_AT)
		ret = alloc_tag_get_at(q, &at);
	else
		ret = alloc_tag_get_next(q, &data);
	codetag_unlock_module_list(q->cttype);
	mutex_unlock(&q->lock);
	if (ret)
		return ret;
	if (cmd == ALLOCINFO_IOC_GET_AT)
		return copy_to_user(uarg, &at, sizeof(at)) ? -EFAULT : 0;
	return copy_to_user(uarg, &data, sizeof(data)) ? -EFAULT : 0;
}

static void alloc_tag_ioctl_release(void *query)
{
	kfree(query);
}

static const struct allocinfo_ioctl_ops alloc_tag_ioctl_ops = {
	.ioctl		= alloc_tag_ioctl,
	.release	= alloc_tag_ioctl_release,
};

static int __init alloc_tag_ioctl_init(void)
{
	allocinfo_ioctl_register(&alloc_tag_ioctl_ops);
	return 0;
}
core_initcall(alloc_tag_ioctl_init);
