#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge Prometheus text files as node_exporter's textfile collector does.

    textfile-merge.py FILE.prom...

node_exporter reads every *.prom file of its textfile directory and serves
their series together.  What goes wrong there goes wrong without a scrape
error, so this script says it instead, and exits 1:

- a file that does not parse, or that has client-side timestamps (the
  collector skips the whole file);
- a metric family whose HELP or TYPE differs between two files, or that
  has no HELP in one (the collector then makes one up that names the
  file): node_exporter serves the family of one file only;
- the same series twice, in one file or in two: one of them is dropped.
  Labels with an empty value are no labels, as in Prometheus, so
  {a="1",b=""} and {a="1"} are the same series.

With no problem it prints one line, "merged: N files, N families, N
series", and exits 0.
"""

import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
TYPES = ('counter', 'gauge', 'histogram', 'summary', 'untyped')


class Bad(Exception):
    pass


def unescape(s, quotes):
    """Undo the escapes of a HELP text (quotes False) or a label value."""
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == '\\' and i + 1 < len(s):
            n = s[i + 1]
            if n == 'n':
                out.append('\n')
            elif n == '\\' or (quotes and n == '"'):
                out.append(n)
            else:
                out.append(c + n)
            i += 2
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def parse_labels(s, pos):
    """Parse {name="value",...} from s[pos] == '{'; return (labels, end)."""
    labels = {}
    pos += 1
    while True:
        while pos < len(s) and s[pos] in ' \t':
            pos += 1
        if pos < len(s) and s[pos] == '}':
            return labels, pos + 1
        m = LABEL.match(s, pos)
        if not m:
            raise Bad('bad label name at column %d' % (pos + 1))
        name = m.group(0)
        pos = m.end()
        if s[pos:pos + 2] != '="':
            raise Bad('label %s: expected ="' % name)
        pos += 2
        start = pos
        while pos < len(s) and s[pos] != '"':
            pos += 2 if s[pos] == '\\' else 1
        if pos >= len(s):
            raise Bad('label %s: unterminated value' % name)
        if name in labels:
            raise Bad('label %s twice' % name)
        labels[name] = unescape(s[start:pos], True)
        pos += 1
        if pos < len(s) and s[pos] == ',':
            pos += 1
        elif pos < len(s) and s[pos] != '}':
            raise Bad('expected , or } after label %s' % name)


def parse_value(v):
    if v in ('NaN', '+Inf', '-Inf', 'Inf'):
        return v
    try:
        float(v)
    except ValueError:
        raise Bad('bad value %r' % v) from None
    return v


def parse_file(path):
    """Return {family: {'help', 'type', 'series': [(labels, value)]}}."""
    fams = {}
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if text and not text.endswith('\n'):
        raise Bad('%s: last line has no newline' % path)
    for no, line in enumerate(text.split('\n')[:-1], 1):
        where = '%s:%d' % (path, no)
        try:
            if not line.strip():
                continue
            if line.startswith('#'):
                parts = line.split(None, 3)
                if len(parts) < 3 or parts[1] not in ('HELP', 'TYPE'):
                    continue                # a comment
                kind, name = parts[1], parts[2]
                if not NAME.fullmatch(name):
                    raise Bad('bad metric name %r' % name)
                rest = parts[3] if len(parts) > 3 else ''
                fam = fams.setdefault(name, {'help': None, 'type': None,
                                             'series': []})
                if kind == 'HELP':
                    if fam['help'] is not None:
                        raise Bad('second HELP for %s' % name)
                    fam['help'] = unescape(rest, False)
                else:
                    if fam['type'] is not None or fam['series']:
                        raise Bad('TYPE for %s twice or after its samples' % name)
                    if rest not in TYPES:
                        raise Bad('unknown TYPE %r' % rest)
                    fam['type'] = rest
                continue
            m = NAME.match(line)
            if not m:
                raise Bad('bad metric name')
            name = m.group(0)
            pos = m.end()
            labels = {}
            if pos < len(line) and line[pos] == '{':
                labels, pos = parse_labels(line, pos)
            fields = line[pos:].split()
            if not fields:
                raise Bad('no value')
            if len(fields) > 2:
                raise Bad('text after the timestamp')
            if len(fields) == 2:
                raise Bad('client-side timestamp: node_exporter skips the file')
            value = parse_value(fields[0])
            fam = fams.setdefault(name, {'help': None, 'type': None,
                                         'series': []})
            fam['series'].append((labels, value))
        except Bad as e:
            raise Bad('%s: %s' % (where, e)) from None
    return fams


def main(paths):
    problems = []
    merged = {}             # family: (help, type, first file)
    seen = {}               # series key: file
    nseries = 0
    for path in paths:
        try:
            fams = parse_file(path)
        except (Bad, OSError, UnicodeDecodeError) as e:
            problems.append(str(e))
            continue
        for name, fam in fams.items():
            typ = fam['type'] or 'untyped'
            if fam['help'] is None and fam['series']:
                problems.append('%s: %s has no HELP (node_exporter makes one up '
                                'from the file name)' % (path, name))
            if name in merged:
                help0, typ0, path0 = merged[name]
                if fam['help'] != help0:
                    problems.append('%s: HELP of %s differs from %s: %r, not %r'
                                    % (path, name, path0, fam['help'], help0))
                if typ != typ0:
                    problems.append('%s: TYPE of %s differs from %s: %s, not %s'
                                    % (path, name, path0, typ, typ0))
            else:
                merged[name] = (fam['help'], typ, path)
            for labels, _ in fam['series']:
                key = (name,) + tuple(sorted((k, v) for k, v in labels.items() if v))
                if key in seen:
                    problems.append('%s: series %s{%s} already in %s: one is dropped'
                                    % (path, name,
                                       ','.join('%s="%s"' % kv for kv in key[1:]),
                                       seen[key]))
                else:
                    seen[key] = path
                nseries += 1
    for p in problems:
        print('textfile-merge: ' + p, file=sys.stderr)
    if problems:
        return 1
    print('merged: %d files, %d families, %d series' % (len(paths), len(merged), nseries))
    return 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        print('usage: textfile-merge.py FILE.prom...', file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
