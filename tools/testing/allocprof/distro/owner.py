#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""owner.py: /proc/allocinfo's page totals against page_owner's (issue 36
item 3).  Run by "distro.sh owner" on the results of distro/owner-guest.sh.

page_owner records the stack of every allocated block of pages,
independently of this series.  For each stack, the frame that names the
call site is the first one outside the page allocator (post_alloc_hook,
get_page_from_freelist, __alloc_pages, alloc_pages, folio_alloc, ... and
every *_noprof entry point, which the series' wrappers call).  Frames carry
no file and line (the distro build has no DWARF), so the call sites a
function holds are read from its machine code: the allocation hooks store
the address of the call site's tag (in the alloc_tags section) in
current->alloc_tag, so each function's code names its tags.  vmlinux is
disassembled once; a module's tags are the relocations against its
alloc_tags section.  A tag's position in its section is its position in
/proc/allocinfo (checked: every tag's line number read from the section
must equal its line's).

When the first frame outside the page allocator holds no tag (a helper
that charges its caller, such as vmalloc's page loop), the next frame up
that holds one is taken, and the report says how many bytes that applied
to and through which functions.  The walk stops at an initcall, the module
loader or a worker (WALK_STOP): above them a tag is not the allocation's.
Functions that share a tag (inlining can put one tag in several functions)
and the tags they hold form one group; the two sides are compared per
group:

  agree = sum over groups of min(page_owner bytes, allocinfo bytes)

as a fraction of page_owner's bytes, and the largest differences are
listed, each with its functions and call sites.  allocinfo's bytes of a
group are all of its tags' bytes, so a group whose call sites also
allocate slab objects shows allocinfo above page_owner by those objects,
and those objects could hide a shortfall of the group's pages: the
listing shows each group's call sites, to be read for that.  Agreement is
also given without the largest group, so that one site (the page cache,
in a run with files) cannot carry the figure alone, and against all of
page_owner's bytes.
"""
import argparse
import bisect
import os
import re
import struct
import subprocess
import sys

TAG_SIZE = 40   # struct alloc_tag: struct codetag (32 bytes), a pointer

# The page allocator: page_owner's frames until the first one outside it.
ALLOCATOR = re.compile(r'''^(
    post_alloc_hook | prep_new_page | get_page_from_freelist |
    rmqueue\w* | __rmqueue\w* | __alloc_pages\w* | alloc_pages\w* |
    __folio_alloc\w* | folio_alloc\w* | vma_alloc_folio\w* |
    __get_free_pages\w* | get_zeroed_page\w* | alloc_pages_exact\w* |
    alloc_contig\w* | __alloc_contig\w* | alloc_page_interleave |
    alloc_pages_preferred_many | \w+_noprof
)$''', re.X)

# Profiling's own metadata, allocated with no call site charged
# (ALLOC_TAG_NONE) and reported by show_mem() instead.
OWN_META = {'pcpu_chunk_tags_zalloc'}

# Where the walk up from a helper stops: past these, a tag in the code is
# an initcall's or a module loader's, not the allocation's caller.
WALK_STOP = {'do_one_initcall', 'kernel_init_freeable', 'do_init_module',
             'load_module', 'kthread', 'ret_from_fork', 'start_kernel',
             'process_one_work', 'worker_thread', 'do_syscall_64'}

# page_owner's stacks of its own: pages in use when it started (it cannot
# know who allocated them), pages it allocated while saving a stack (the
# stack depot's), and a stack it failed to save.
OWN_STACKS = {'register_early_stack': 'early', 'register_dummy_stack': 'dummy',
              'register_failure_stack': 'failure'}


def base_name(sym):
    """A symbol's name without GCC's clone suffixes (.cold, .isra.0...)."""
    return sym.split('.', 1)[0]


# ---------------------------------------------------------------------
# ELF: just enough to read a section's bytes.

def elf_sections(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2:
        raise SystemExit(f'{path}: not a 64-bit ELF file')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    secs = []
    for i in range(shnum):
        name, typ, _flags, addr, off, size = struct.unpack_from(
            '<IIQQQQ', data, shoff + i * shentsize)
        secs.append([name, typ, addr, off, size])
    stroff = secs[shstrndx][3]
    for s in secs:
        end = data.index(b'\0', stroff + s[0])
        s[0] = data[stroff + s[0]:end].decode()
    return data, secs


def section_bytes(path, name):
    data, secs = elf_sections(path)
    for n, typ, _addr, off, size in secs:
        if n == name and typ != 8:          # not SHT_NOBITS
            return data[off:off + size]
    return None


def read_at(data, secs, addr, size):
    for _n, typ, saddr, off, ssize in secs:
        if typ != 8 and saddr and saddr <= addr < saddr + ssize:
            return data[off + addr - saddr:off + addr - saddr + size]
    raise SystemExit(f'address {addr:#x} is in no section')


def linenos(raw):
    """Line numbers of the tags in an alloc_tags section's bytes."""
    return [struct.unpack_from('<I', raw, i + 4)[0]
            for i in range(0, len(raw), TAG_SIZE)]


# ---------------------------------------------------------------------
# Which tags each function's code names.

HEXADDR = re.compile(r'\b(?:0x)?(ffffffff[0-9a-f]{8})\b')
FUNC = re.compile(r'^([0-9a-f]+) <([^>]+)>:$')


def vmlinux_refs(vmlinux, start, stop):
    """{function: set of tag indexes} for vmlinux, by one disassembly.

    A name that several static functions share is also keyed (name, size),
    the size being the distance to the next symbol, as kallsyms gives it
    in page_owner's "+off/size"."""
    cur = None
    seen = {}                           # name: [[address, tags], ...]
    # .init.text too: page_owner keeps the stacks of boot-time allocations
    # made by code that is freed once the kernel has booted.
    p = subprocess.Popen(['objdump', '-d', '--no-show-raw-insn', '-j', '.text',
                          '-j', '.init.text', vmlinux], stdout=subprocess.PIPE, text=True,
                         bufsize=1 << 20)
    for line in p.stdout:
        if line.endswith('>:\n'):
            m = FUNC.match(line.rstrip())
            if m:
                cur = m.group(2)
                seen.setdefault(cur, []).append([int(m.group(1), 16), set()])
            continue
        # The instruction's own address comes first: skip it.
        text = line.split(':', 1)[1] if ':' in line else ''
        # A hook's store or load of its tag's address: a mov or a lea.
        # Arithmetic with a section bound (pgtag_register_module()
        # subtracts __start_alloc_tags) names no tag.
        if 'ffffffff8' not in text or not text.split()[0].startswith(('mov', 'lea')):
            continue
        for h in HEXADDR.findall(text):
            a = int(h, 16)
            if start <= a < stop and cur:
                seen[cur][-1][1].add((a - start) // TAG_SIZE)
    p.wait()
    refs = {name: set().union(*(tags for _a, tags in v))
            for name, v in seen.items() if any(tags for _a, tags in v)}
    addrs = sorted(x[0] for v in seen.values() for x in v)
    for name, v in seen.items():
        if len(v) > 1 and name in refs:
            for addr, tags in v:
                i = bisect.bisect_right(addrs, addr)
                if i < len(addrs):
                    refs[(name, addrs[i] - addr)] = tags
    return refs


RELOC = re.compile(r'^\s*([0-9a-f]+): R_X86_64_(\w+)\s+(\S+?)(?:([+-]0x[0-9a-f]+))?$')
INSN = re.compile(r'^\s*([0-9a-f]+):\t')


def module_refs(ko):
    """{function: set of tag indexes} for one module, from its relocations."""
    syms = {}
    out = subprocess.run(['objdump', '-t', ko], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if 'alloc_tags' in f[1:-1] and f[-1] != 'alloc_tags':
            syms[f[-1]] = int(f[0], 16)
    refs = {}
    cur = None
    pending = None                      # a PC-relative reference's (at, off, func)

    def add(func, off):
        refs.setdefault(func, set()).add(off // TAG_SIZE)
    p = subprocess.Popen(['objdump', '-dr', '--no-show-raw-insn', ko],
                         stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        m = FUNC.match(line.rstrip())
        if m:
            cur = m.group(2)
            continue
        m = RELOC.match(line)
        if not m:
            i = INSN.match(line)
            if i and pending:
                # PC-relative: the CPU adds the address of the next
                # instruction, which the addend counts from the field.
                at, off, func = pending
                add(func, off + int(i.group(1), 16) - at)
                pending = None
            continue
        if not cur:
            continue
        sym, addend = m.group(3), int(m.group(4) or '0', 16)
        if sym == 'alloc_tags':
            off = addend
        elif sym in syms:
            off = syms[sym] + addend
        else:
            continue
        if m.group(2) in ('PC32', 'PLT32'):
            pending = (int(m.group(1), 16), off, cur)
        else:
            add(cur, off)
    p.wait()
    return refs


# ---------------------------------------------------------------------
# The guest's files.

AILINE = re.compile(r'^\s*(\d+)\s+(\d+)\s+(\S+):(\d+)(?:\s+\[(\S+)\])?\s+func:(\S+)(.*)$')


def read_allocinfo(path):
    """[(bytes, calls, file, line, module or '', func)] in file order."""
    rows = []
    with open(path) as f:
        for line in f:
            m = AILINE.match(line)
            if m:
                rows.append((int(m.group(1)), int(m.group(2)), m.group(3),
                             int(m.group(4)), m.group(5) or '', m.group(6)))
    return rows


FRAME = re.compile(r'^(\S+?)\+0x([0-9a-f]+)/0x([0-9a-f]+)(?:\s+\[(\S+)\])?$')


def read_page_owner(path):
    """[(bytes, blocks, [(module or '', symbol or raw text, size)])]."""
    stacks = []
    with open(path) as f:
        for line in f:
            n, c, key = line.rstrip('\n').split(' ', 2)
            frames = []
            for fr in key.split('|')[1:]:
                m = FRAME.match(fr.strip())
                frames.append((m.group(4) or '', m.group(1), int(m.group(3), 16))
                              if m else ('', fr.strip(), 0))
            stacks.append((int(n), int(c), frames))
    return stacks


# ---------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', required=True, help='the O= folder (vmlinux, *.ko)')
    ap.add_argument('--results', required=True, help="the guest's files")
    ap.add_argument('--top', type=int, default=15)
    a = ap.parse_args()

    vmlinux = os.path.join(a.build, 'vmlinux')
    smap = {}
    with open(os.path.join(a.build, 'System.map')) as f:
        for line in f:
            addr, _t, name = line.split()[:3]
            smap[name] = int(addr, 16)
    start, stop = smap['__start_alloc_tags'], smap['__stop_alloc_tags']
    if (stop - start) % TAG_SIZE:
        raise SystemExit('alloc_tags is not a whole number of tags')

    # allocinfo as the page_owner read ended (the reading processes' pages
    # in both); before and after it for comparison.
    during = os.path.join(a.results, 'allocinfo.during')
    ai = read_allocinfo(during if os.path.exists(during) else
                        os.path.join(a.results, 'allocinfo.before'))
    ai0 = read_allocinfo(os.path.join(a.results, 'allocinfo.before'))
    ai2 = read_allocinfo(os.path.join(a.results, 'allocinfo.after'))
    po = read_page_owner(os.path.join(a.results, 'page_owner'))
    loaded = set()
    with open(os.path.join(a.results, 'modules')) as f:
        for line in f:
            loaded.add(line.split()[0])

    # Tag ids: ('', index) for vmlinux, (module, index) for a module; the
    # allocinfo row of each.  vmlinux's rows come first, then each
    # module's in a run; a module loaded more than once (or an unloaded
    # one whose tags are still listed) has several runs: the loaded
    # module's is the last run whose line numbers are the .ko's.
    data, secs = elf_sections(vmlinux)
    vl = linenos(read_at(data, secs, start, stop - start))
    del data
    nv = len(vl)
    if [r[3] for r in ai[:nv]] != vl or any(r[4] for r in ai[:nv]):
        raise SystemExit("vmlinux's tags are not allocinfo's first rows in order")
    rowof = {('', i): i for i in range(nv)}
    runs = []                           # (module, first row, rows)
    i = nv
    while i < len(ai):
        j = i
        while j < len(ai) and ai[j][4] == ai[i][4]:
            j += 1
        runs.append((ai[i][4], i, j - i))
        i = j
    kos = {}
    for root, _d, files in os.walk(a.build):
        for fn in files:
            if fn.endswith('.ko'):
                kos.setdefault(fn[:-3].replace('-', '_'), os.path.join(root, fn))
    modtags = {}
    checked = 0
    for mod in sorted({r[0] for r in runs}):
        ko = kos.get(mod)
        if not ko:
            continue
        raw = section_bytes(ko, 'alloc_tags')
        if raw is None:
            continue
        ml = linenos(raw)
        # A module unloaded with live tags and loaded again has two runs
        # side by side: cut each run in the .ko's tag count.
        mine = [(m, f + k, len(ml)) for m, f, n in runs
                if m == mod and n % len(ml) == 0 for k in range(0, n, len(ml))
                if [x[3] for x in ai[f + k:f + k + len(ml)]] == ml]
        if not mine:
            continue
        first = mine[-1][1]
        for k in range(len(ml)):
            rowof[(mod, k)] = first + k
        modtags[mod] = ko
        checked += len(ml)

    # Each function's tags.
    refs = {('', f): {('', t) for t in ts}
            for f, ts in vmlinux_refs(vmlinux, start, stop).items()}
    needmods = {fr[0] for _b, _c, frames in po for fr in frames if fr[0]}
    for mod in needmods & set(modtags):
        for f, ts in module_refs(modtags[mod]).items():
            refs[(mod, f)] = {(mod, t) for t in ts if (mod, t) in rowof}

    def tags_of(mod, sym, size=0):
        t = set(refs.get((mod, (sym, size)), refs.get((mod, sym), ())))
        # A frame in f.cold is f's code; f's tags may be in either part.
        if sym.endswith('.cold'):
            t |= refs.get((mod, sym[:-5]), set())
        else:
            t |= refs.get((mod, sym + '.cold'), set())
        return t

    # Resolve every stack.
    resolved = []                       # (bytes, frame, tags, walked over)
    unresolved = {}
    walked_bytes = 0
    walked_over = {}
    own = {}
    for b, _c, frames in po:
        kind = next((OWN_STACKS[base_name(f[1])] for f in frames
                     if base_name(f[1]) in OWN_STACKS), None)
        if kind:
            own[kind] = own.get(kind, 0) + b
            continue
        i = 0
        while i < len(frames) and ALLOCATOR.match(base_name(frames[i][1])):
            i += 1
        first = frames[i] if i < len(frames) else ('', '(allocator only)', 0)
        j = i
        while j < len(frames) and not tags_of(*frames[j]):
            j += 1
            if j < len(frames) and base_name(frames[j][1]) in WALK_STOP:
                j = len(frames)
        if j == len(frames):
            key = f'{first[1]}' + (f' [{first[0]}]' if first[0] else '')
            unresolved[key] = unresolved.get(key, 0) + b
            continue
        if j > i:
            walked_bytes += b
            key = ' < '.join(base_name(f[1]) for f in frames[i:j + 1])
            walked_over[key] = walked_over.get(key, 0) + b
        resolved.append((b, frames[j], tags_of(*frames[j])))

    # Groups: union of tags that share a function.
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(x, y):
        parent[find(x)] = find(y)
    for _b, _fr, ts in resolved:
        ts = sorted(ts)
        for t in ts[1:]:
            union(ts[0], t)
    po_g, funcs_g = {}, {}
    for b, fr, ts in resolved:
        g = find(min(ts))
        po_g[g] = po_g.get(g, 0) + b
        funcs_g.setdefault(g, set()).add(fr[1] + (f' [{fr[0]}]' if fr[0] else ''))
    tags_g = {}
    for t in list(parent):
        tags_g.setdefault(find(t), set()).add(t)

    def ai_bytes(rows, t):
        return rows[rowof[t]][0] if t in rowof else 0
    ai_g = {g: sum(ai_bytes(ai, t) for t in ts) for g, ts in tags_g.items()}

    def agreement(rows):
        return sum(min(po_g.get(g, 0), sum(ai_bytes(rows, t) for t in ts))
                   for g, ts in tags_g.items())
    all_po = sum(b for b, _c, _f in po)
    total_po = all_po - sum(own.values())
    agree = agreement(ai)
    unres = sum(unresolved.values())

    def named(rows, fname, func):
        return sum(r[0] for r in rows if r[2] == fname and r[5] == func)

    def site(t):
        r = ai[rowof[t]]
        return f'{r[2]}:{r[3]}' + (f' [{r[4]}]' if r[4] else '') + f' func:{r[5]}'

    mb = 1 << 20
    print('page_owner against /proc/allocinfo (distro.sh owner; owner.py)')
    print()
    print(f'page_owner: {len(po)} distinct stacks, {all_po} bytes '
          f'({all_po / mb:.1f} MiB) in allocated blocks')
    print(f'  with a stack of their own: {total_po} bytes ({total_po / mb:.1f} MiB)')
    print(f"  page_owner's own stacks: in use when it started {own.get('early', 0)} "
          f"bytes (allocinfo: mm/page_ext.c alloc_page_ext, page_owner's own "
          f"tables, {named(ai, 'mm/page_ext.c', 'alloc_page_ext')}); "
          f"allocated while saving a stack {own.get('dummy', 0)} (allocinfo: "
          f"lib/stackdepot.c __stack_depot_save "
          f"{named(ai, 'lib/stackdepot.c', '__stack_depot_save')}); "
          f"stack not saved {own.get('failure', 0)}")
    mi = {}
    with open(os.path.join(a.results, 'meminfo')) as f:
        for line in f:
            k, v = line.split(':', 1)
            mi[k] = int(v.split()[0]) * 1024
    used = mi['MemTotal'] - mi['MemFree']
    print(f'  MemTotal - MemFree before the read: {used} bytes; page_owner has '
          f'{100 * all_po / used:.1f}% of it (a truncated read would show here)')
    meta = os.path.join(a.results, 'metadata')
    if os.path.exists(meta):
        print("  profiling's own metadata (charged to no call site): " +
              open(meta).read().strip().split('] ', 1)[-1])
    print(f'call sites: {nv} in vmlinux, {checked} in {len(modtags)} modules '
          'mapped to allocinfo rows (line numbers checked)')
    print('functions whose code names a call site: '
          f'{sum(1 for k in refs if isinstance(k[1], str))}')
    print(f'stacks resolved to call sites: {total_po - unres} bytes '
          f'({100 * (total_po - unres) / total_po:.2f}%); unresolved {unres} bytes')
    print(f'  of which through a helper holding no call site: {walked_bytes} bytes')
    print(f'agreement: {agree} of {total_po} bytes ({100 * agree / total_po:.2f}%) '
          'of the pages with a stack charged to the same groups of call sites '
          'by allocinfo')
    big = max(tags_g, key=lambda g: po_g.get(g, 0))
    bp = po_g.get(big, 0)
    bx = min(bp, ai_g[big])
    print(f'           without the largest group ({", ".join(sorted(funcs_g[big]))}, '
          f'{bp} bytes): {agree - bx} of {total_po - bp} '
          f'({100 * (agree - bx) / (total_po - bp):.2f}%)')
    meta_b = sum(v for k, v in unresolved.items() if k in OWN_META)
    print(f'           and also without profiling\'s own metadata ({meta_b} bytes, '
          f'no call site by design): {agree - bx} of {total_po - bp - meta_b} '
          f'({100 * (agree - bx) / (total_po - bp - meta_b):.2f}%)')
    print(f'           against all of page_owner\'s bytes: {agree} of {all_po} '
          f'({100 * agree / all_po:.2f}%)')
    for name, rows in (('before', ai0), ('after', ai2)):
        x = agreement(rows)
        print(f'           {x} bytes ({100 * x / total_po:.2f}%) with allocinfo read '
              f'{name} page_owner')
    print()
    print('Largest differences (page_owner bytes, allocinfo bytes, difference):')
    diffs = sorted(tags_g, key=lambda g: -abs(po_g.get(g, 0) - ai_g[g]))
    for g in diffs[:a.top]:
        p, q = po_g.get(g, 0), ai_g[g]
        if p == q:
            break
        print(f'  {p:>12} {q:>12} {q - p:>+12}  {", ".join(sorted(funcs_g.get(g, [])))}')
        for t in sorted(tags_g[g], key=lambda t: -ai_bytes(ai, t))[:4]:
            print(f'{"":44}{ai_bytes(ai, t):>12} {site(t)}')
    print()
    print('Unresolved page_owner bytes, by first frame outside the allocator:')
    for k, v in sorted(unresolved.items(), key=lambda kv: -kv[1])[:a.top]:
        print(f'  {v:>12} {k}')
    print()
    print('Helpers walked over (page_owner bytes, frames from the first outside '
          'the allocator to the one holding the call site):')
    for k, v in sorted(walked_over.items(), key=lambda kv: -kv[1])[:a.top]:
        print(f'  {v:>12} {k}')
    print()
    print('Largest groups (page_owner bytes, allocinfo bytes):')
    for g in sorted(tags_g, key=lambda g: -po_g.get(g, 0))[:a.top]:
        print(f'  {po_g.get(g, 0):>12} {ai_g[g]:>12}  {", ".join(sorted(funcs_g.get(g, [])))}')
    pct = 100 * agree / total_po
    print()
    print(f'goal (issue 36): at least 99% of the page bytes attributed alike: '
          f'{pct:.2f}%, {"met" if pct >= 99 else "NOT met"}')
    return 0 if pct >= 99 else 1


if __name__ == '__main__':
    sys.exit(main())
