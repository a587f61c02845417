// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo stacks: the call stacks that CONFIG_MEM_ALLOC_PROFILING_CAPTURE
 * records for the sites selected in /sys/kernel/debug/allocinfo/capture.
 * Version 2.0 of the file lists objects, which are summed here:
 *
 *   allocinfo stacks - version: 2.0
 *   site FILE:LINE [MODULE] func:NAME bytes:B calls:C dropped:D
 *        site_bytes:B site_calls:C      (on the same line)
 *   object STACK BYTES                  (one per live object of the site)
 *   stack STACK                         (after the first object with it)
 *     FRAME                             (two spaces, then the frame)
 *
 * STACK is a number, 0 for an object whose stack was not saved.  Stacks
 * that pass through the same functions are merged, and a frame in which
 * they differ is shown without its offset.  Version 1.0 listed each
 * site's stacks, already summed, merged and sorted, as "stack BYTES
 * CALLS", and had stacks:N after calls:C.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "allocinfo.h"

struct cstack {
	long long bytes;
	long long calls;
	unsigned long handle;	/* 2.0: the stack's number */
	char **frames;
	size_t nr_frames;
	size_t alloc_frames;
	char *key;		/* 2.0: the frames' functions */
};

struct csite {
	struct site id;		/* file, line, module, func */
	long long bytes, calls, site_bytes, site_calls;
	unsigned long long nr_stacks, dropped;
	struct cstack *stacks;
	size_t nr;
	size_t alloc;
};

struct csites {
	struct csite *v;
	size_t nr;
	size_t alloc;
	struct cstack *frames;	/* 2.0: the frames of each stack number */
	size_t nr_frames;
	size_t alloc_frames;
};

static void free_cstack(struct cstack *st)
{
	size_t k;

	for (k = 0; k < st->nr_frames; k++)
		free(st->frames[k]);
	free(st->frames);
	free(st->key);
}

static void free_csites(struct csites *cs)
{
	size_t i, j, k;

	for (i = 0; i < cs->nr; i++) {
		struct csite *c = &cs->v[i];

		for (j = 0; j < c->nr; j++)
			free_cstack(&c->stacks[j]);
		free(c->stacks);
		free(c->id.file);
	}
	for (k = 0; k < cs->nr_frames; k++)
		free_cstack(&cs->frames[k]);
	free(cs->frames);
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

static const char *parse_signed(const char *tok, long long *val)
{
	char *end;

	if (!tok || !*tok)
		return "a number is missing";
	errno = 0;
	*val = strtoll(tok, &end, 10);
	if (*end || errno)
		return "not a number";
	return NULL;
}

/* "KEY:VALUE" with a number as VALUE */
static const char *parse_field(const char *tok, const char *key, long long *val)
{
	static char msg[64];
	size_t len = strlen(key);

	if (!tok || strncmp(tok, key, len) || tok[len] != ':' ||
	    parse_signed(tok + len + 1, val)) {
		snprintf(msg, sizeof(msg), "no %s:NUMBER where expected", key);
		return msg;
	}
	return NULL;
}

static const char *parse_csite(char *s, struct csite *c, int version)
{
	static const char * const keys[] = {
		"bytes", "calls", "stacks", "dropped", "site_bytes", "site_calls"
	};
	long long v[ARRAY_SIZE(keys)] = { 0 };
	char *pos = s, *tok, *colon, *end;
	const char *mod = "", *err;
	size_t i;

	next_token(&pos);	/* "site" */
	tok = next_token(&pos);
	colon = tok ? strrchr(tok, ':') : NULL;
	if (!colon || colon == tok)
		return "no FILE:LINE";
	*colon = '\0';
	c->id.line = strtoul(colon + 1, &end, 10);
	if (*end || !c->id.line)
		return "bad line number";
	c->id.file = tok;
	tok = next_token(&pos);
	if (tok && tok[0] == '[') {
		size_t len = strlen(tok);

		if (len < 3 || tok[len - 1] != ']')
			return "bad [module]";
		tok[len - 1] = '\0';
		mod = tok + 1;
		tok = next_token(&pos);
	}
	if (!tok || strncmp(tok, "func:", 5) || !tok[5])
		return "no func:NAME";
	c->id.func = tok + 5;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (version == 2 && i == 2)
			continue;	/* stacks:N is counted here */
		err = parse_field(next_token(&pos), keys[i], &v[i]);
		if (err)
			return err;
	}
	if (v[2] < 0 || v[3] < 0)
		return "negative count";
	c->bytes = v[0];
	c->calls = v[1];
	c->nr_stacks = v[2];
	c->dropped = v[3];
	c->site_bytes = v[4];
	c->site_calls = v[5];
	/* one allocation for the three strings, as struct site does */
	{
		size_t lf = strlen(c->id.file) + 1, lm = strlen(mod) + 1;
		char *m = xmalloc(lf + lm + strlen(c->id.func) + 1);

		memcpy(m, c->id.file, lf);
		memcpy(m + lf, mod, lm);
		strcpy(m + lf + lm, c->id.func);
		c->id.file = m;
		c->id.module = m + lf;
		c->id.func = m + lf + lm;
	}
	return NULL;
}

/*
 * "func+0x1c/0x40 [mod]" without its offset: "func/0x40 [mod]" with
 * @size, which tells apart two functions of one name, else "func [mod]"
 * as the kernel's %ps prints it.  An address is in itself.
 */
static char *frame_func(const char *frame, bool size)
{
	const char *plus = strstr(frame, "+0x"), *end;
	char *f;

	if (!plus)
		return xstrdup(frame);
	end = plus + strcspn(plus, size ? "/ " : " ");
	f = xmalloc(strlen(frame) + 1);
	memcpy(f, frame, plus - frame);
	strcpy(f + (plus - frame), end);
	return f;
}

static int cstack_by_handle(const void *a, const void *b)
{
	const struct cstack *x = a, *y = b;

	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static int cstack_by_key(const void *a, const void *b)
{
	return strcmp(((const struct cstack *)a)->key, ((const struct cstack *)b)->key);
}

static int cstack_by_size(const void *a, const void *b)
{
	const struct cstack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * 2.0: a site's objects, one cstack each, become its stacks: summed by
 * stack number, given their frames, merged by the functions they pass
 * through and sorted, largest first, as version 1.0 had them.
 */
static void sum_objects(struct csite *c, struct csites *cs)
{
	struct cstack key = { 0 }, *f;
	size_t i, n = 0, k, len;

	if (!c->nr)
		return;
	qsort(c->stacks, c->nr, sizeof(*c->stacks), cstack_by_handle);
	for (i = 0; i < c->nr; i++) {
		struct cstack *last = n ? &c->stacks[n - 1] : NULL;

		if (last && last->handle == c->stacks[i].handle) {
			last->bytes = add_sat(last->bytes, c->stacks[i].bytes);
			last->calls++;
			continue;
		}
		c->stacks[n] = c->stacks[i];
		c->stacks[n++].calls = 1;
	}
	c->nr = n;
	for (i = 0; i < c->nr; i++) {
		struct cstack *st = &c->stacks[i];
		char *p;

		key.handle = st->handle;
		f = NULL;
		if (st->handle && cs->nr_frames)
			f = bsearch(&key, cs->frames, cs->nr_frames, sizeof(*f),
				    cstack_by_handle);
		if (f) {
			st->frames = xmalloc(f->nr_frames * sizeof(*st->frames));
			for (k = 0; k < f->nr_frames; k++)
				st->frames[k] = xstrdup(f->frames[k]);
			st->nr_frames = f->nr_frames;
		} else {
			char text[64];

			if (st->handle)
				snprintf(text, sizeof(text), "(no frames for stack %lu)",
					 st->handle);
			else
				snprintf(text, sizeof(text), "(no stack: stack depot full)");
			st->frames = xmalloc(sizeof(*st->frames));
			st->frames[0] = xstrdup(text);
			st->nr_frames = 1;
		}
		len = 1;
		for (k = 0; k < st->nr_frames; k++)
			len += strlen(st->frames[k]) + 1;
		st->key = xmalloc(len);
		p = st->key;
		for (k = 0; k < st->nr_frames; k++) {
			char *fn = frame_func(st->frames[k], true);

			p = stpcpy(p, fn);
			*p++ = '\n';
			free(fn);
		}
		*p = '\0';
	}
	qsort(c->stacks, c->nr, sizeof(*c->stacks), cstack_by_key);
	for (i = 0, n = 0; i < c->nr; i++) {
		struct cstack *last = n ? &c->stacks[n - 1] : NULL, *st = &c->stacks[i];

		if (!last || strcmp(last->key, st->key)) {
			c->stacks[n++] = *st;
			continue;
		}
		last->bytes = add_sat(last->bytes, st->bytes);
		last->calls = add_sat(last->calls, st->calls);
		for (k = 0; k < last->nr_frames; k++) {
			if (strcmp(last->frames[k], st->frames[k])) {
				char *fn = frame_func(last->frames[k], false);

				free(last->frames[k]);
				last->frames[k] = fn;
			}
		}
		free_cstack(st);
	}
	c->nr = n;
	qsort(c->stacks, c->nr, sizeof(*c->stacks), cstack_by_size);
	c->nr_stacks = n;
}

static int parse_stacks(FILE *fp, const char *name, struct csites *cs)
{
	struct csite *c = NULL;
	struct cstack *st = NULL;
	unsigned long lineno = 0;
	char *line = NULL, *pos;
	size_t i, cap = 0;
	int version = 0;
	const char *err;
	ssize_t len;

	memset(cs, 0, sizeof(*cs));
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1) {
			if (!strcmp(line, STACKS_HEADER "1.0")) {
				version = 1;
			} else if (!strcmp(line, STACKS_HEADER "2.0")) {
				version = 2;
			} else {
				errorf("%s:1: not a stacks file (expected \"%s2.0\" or 1.0)",
				       name, STACKS_HEADER);
				goto fail;
			}
			continue;
		}
		err = NULL;
		if (!strncmp(line, "site ", 5)) {
			cs->v = grow(cs->v, &cs->alloc, cs->nr, sizeof(*cs->v));
			c = &cs->v[cs->nr];
			memset(c, 0, sizeof(*c));
			err = parse_csite(line, c, version);
			if (!err)
				cs->nr++;
			st = NULL;
		} else if (!strncmp(line, version == 2 ? "object " : "stack ",
				    version == 2 ? 7 : 6)) {
			long long h = 0, b, n = 1;

			pos = line + (version == 2 ? 7 : 6);
			if (!c)
				err = "an object or stack before any site";
			if (!err && version == 2)
				err = parse_signed(next_token(&pos), &h);
			if (!err)
				err = parse_signed(next_token(&pos), &b);
			if (!err && version == 1)
				err = parse_signed(next_token(&pos), &n);
			if (!err && next_token(&pos))
				err = "text after the last number";
			if (!err && version == 2 && (h < 0 || b < 0))
				err = "a negative stack number or size";
			if (!err) {
				c->stacks = grow(c->stacks, &c->alloc, c->nr,
						 sizeof(*c->stacks));
				st = &c->stacks[c->nr++];
				memset(st, 0, sizeof(*st));
				st->handle = h;
				st->bytes = b;
				st->calls = n;
				/* 2.0: frames follow a stack line, not an object */
				if (version == 2)
					st = NULL;
			}
		} else if (version == 2 && !strncmp(line, "stack ", 6)) {
			long long h;

			pos = line + 6;
			err = parse_signed(next_token(&pos), &h);
			if (!err && (h <= 0 || next_token(&pos)))
				err = "not stack NUMBER";
			if (!err) {
				cs->frames = grow(cs->frames, &cs->alloc_frames,
						  cs->nr_frames, sizeof(*cs->frames));
				st = &cs->frames[cs->nr_frames++];
				memset(st, 0, sizeof(*st));
				st->handle = h;
			}
		} else if (!strncmp(line, "  ", 2) && line[2] && line[2] != ' ') {
			if (!st) {
				err = "a frame before any stack";
			} else {
				st->frames = grow(st->frames, &st->alloc_frames,
						  st->nr_frames, sizeof(*st->frames));
				st->frames[st->nr_frames++] = xstrdup(line + 2);
			}
		} else {
			err = version == 2 ? "not a site, object, stack or frame line" :
					     "not a site, stack or frame line";
		}
		if (err) {
			errorf("%s:%lu: %s", name, lineno, err);
			goto fail;
		}
	}
	if (ferror(fp)) {
		errorf("cannot read %s: %s", name, strerror(errno));
		goto fail;
	}
	if (!lineno) {
		errorf("%s is empty%s", name, empty_hint);
		goto fail;
	}
	if (version == 2) {
		if (cs->nr_frames)
			qsort(cs->frames, cs->nr_frames, sizeof(*cs->frames),
			      cstack_by_handle);
		for (i = 0; i < cs->nr; i++)
			sum_objects(&cs->v[i], cs);
	}
	free(line);
	return 0;
fail:
	free(line);
	free_csites(cs);
	return 1;
}

static const char *signed_size(long long v, char *buf, size_t len)
{
	return v < 0 ? signed_human(-(u64)v, true, buf, len) : human(v, buf, len);
}

static void stacks_table(const struct opts *o, const struct csites *cs, size_t limit)
{
	char b1[32], b2[32];
	size_t i, j, k, shown = 0;

	for (i = 0; i < cs->nr; i++) {
		const struct csite *c = &cs->v[i];

		if (!site_matches(&c->id, o))
			continue;
		if (shown++)
			fputc('\n', out);
		fprintf(out, "%s:%u [%s] %s\n", c->id.file, c->id.line,
			module_name(&c->id), c->id.func);
		fprintf(out, "  captured %s in %lld call%s, %llu stack%s, %llu dropped; "
			"the site holds %s in %lld call%s\n",
			signed_size(c->bytes, b1, sizeof(b1)), c->calls, plural(c->calls),
			c->nr_stacks, plural(c->nr_stacks), c->dropped,
			signed_size(c->site_bytes, b2, sizeof(b2)), c->site_calls,
			plural(c->site_calls));
		for (j = 0; j < c->nr && (!limit || j < limit); j++) {
			const struct cstack *st = &c->stacks[j];

			fprintf(out, "  %10s %8lld  %s\n",
				signed_size(st->bytes, b1, sizeof(b1)), st->calls,
				st->nr_frames ? st->frames[0] : "(no frames)");
			for (k = 1; k < st->nr_frames; k++)
				fprintf(out, "  %10s %8s  %s\n", "", "", st->frames[k]);
		}
		if (limit && c->nr > limit)
			fprintf(out, "  (%zu more stack%s; -n 0 lists all)\n", c->nr - limit,
				plural(c->nr - limit));
	}
	if (!shown)
		fprintf(out, "no site selected%s\n",
			cs->nr ? " that passes the filters" :
			" (select one: echo FILE:LINE > /sys/kernel/debug/allocinfo/capture)");
}

static void stacks_json(const struct opts *o, const struct csites *cs, size_t limit)
{
	size_t i, j, k;
	bool first = true;

	fputs("{\"sites\": [", out);
	for (i = 0; i < cs->nr; i++) {
		const struct csite *c = &cs->v[i];

		if (!site_matches(&c->id, o))
			continue;
		fputs(first ? "\n  {" : ",\n  {", out);
		first = false;
		fputs("\"file\": ", out);
		json_str(c->id.file);
		fprintf(out, ", \"line\": %u, \"module\": ", c->id.line);
		json_str(module_name(&c->id));
		fputs(", \"func\": ", out);
		json_str(c->id.func);
		fprintf(out, ", \"bytes\": %lld, \"calls\": %lld", c->bytes, c->calls);
		fprintf(out, ", \"stacks\": %llu, \"dropped\": %llu", c->nr_stacks, c->dropped);
		fprintf(out, ", \"site_bytes\": %lld, \"site_calls\": %lld,\n", c->site_bytes,
			c->site_calls);
		fputs("   \"captured\": [", out);
		for (j = 0; j < c->nr && (!limit || j < limit); j++) {
			const struct cstack *st = &c->stacks[j];

			fprintf(out, "%s\n    {\"bytes\": %lld, \"calls\": %lld, \"frames\": [",
				j ? "," : "", st->bytes, st->calls);
			for (k = 0; k < st->nr_frames; k++) {
				if (k)
					fputs(", ", out);
				json_str(st->frames[k]);
			}
			fputs("]}", out);
		}
		fputs(c->nr ? "\n   ]}" : "]}", out);
	}
	fputs(first ? "]}\n" : "\n]}\n", out);
}

int cmd_stacks(const struct opts *o)
{
	const char *name = o->input;
	struct csites cs;
	FILE *fp;
	int ret;

	fp = open_input(&name, stacks_file,
			" (no debugfs, or no CONFIG_MEM_ALLOC_PROFILING_CAPTURE?)");
	if (!fp)
		return 1;
	ret = parse_stacks(fp, name, &cs);
	if (fp != stdin)
		fclose(fp);
	if (ret)
		return ret;
	if (o->fmt == FMT_JSON)
		stacks_json(o, &cs, get_limit(o, DEFAULT_STACKS));
	else
		stacks_table(o, &cs, get_limit(o, DEFAULT_STACKS));
	free_csites(&cs);
	return 0;
}

