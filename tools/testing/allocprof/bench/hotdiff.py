#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the hot allocator functions of two vmlinux images.

  hotdiff.py BASE_VMLINUX SERIES_VMLINUX [FUNCTION...]

For each function (by default the slab, page and memcg paths that issue
31 names), print its size in bytes and instructions in each image and the
instructions the series adds or removes, with addresses, jump targets and
symbol offsets taken out so that only the code is compared.  A function
of 6.1 that the series renamed to foo_noprof() is looked up under that
name too.  Used by hand, on kernels built the same way (bench/build.sh).
"""

import difflib
import re
import subprocess
import sys

FUNCS = [
    "kmem_cache_alloc", "__kmem_cache_alloc_node", "kmem_cache_alloc_node",
    "kmem_cache_alloc_lru", "kmem_cache_alloc_bulk", "kmem_cache_free",
    "__kmem_cache_free", "kmem_cache_free_bulk", "kfree", "allocate_slab",
    "__free_slab", "__free_pages", "free_unref_page", "free_pages_prepare",
    "get_page_from_freelist", "__alloc_pages", "mem_cgroup_from_obj",
    "mem_cgroup_from_obj_folio",
]


def symbols(vmlinux):
    """{name: (address, size)} of the text symbols."""
    out = subprocess.check_output(["nm", "-S", "--defined-only", vmlinux],
                                  universal_newlines=True)
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            syms.setdefault(f[3], (int(f[0], 16), int(f[1], 16)))
    return syms


def disassemble(vmlinux, addr, size):
    out = subprocess.check_output(
        ["objdump", "-d", "--no-show-raw-insn", "--start-address=%#x" % addr,
         "--stop-address=%#x" % (addr + size), vmlinux],
        universal_newlines=True)
    insns = []
    for line in out.splitlines():
        m = re.match(r"^\s*[0-9a-f]+:\s+(.*)$", line)
        if not m:
            continue
        insn = m.group(1).strip()
        # Jump and call targets are addresses: keep the symbol only.
        insn = re.sub(r"\b[0-9a-f]{8,16} <([^>+]*)(\+0x[0-9a-f]+)?>",
                      r"<\1>", insn)
        insn = re.sub(r"#.*$", "", insn).strip()
        insns.append(insn)
    return insns


def lookup(syms, name):
    for n in (name, name + "_noprof"):
        if n in syms and syms[n][1]:
            return n, syms[n]
    return None, None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base, series = sys.argv[1], sys.argv[2]
    funcs = sys.argv[3:] or FUNCS
    bs, ss = symbols(base), symbols(series)
    for f in funcs:
        bn, b = lookup(bs, f)
        sn, s = lookup(ss, f)
        if not b and not s:
            continue
        bi = disassemble(base, *b) if b else []
        si = disassemble(series, *s) if s else []
        print("== %s: %s bytes, %d insns -> %s: %s bytes, %d insns" %
              (bn or f, b[1] if b else "-", len(bi), sn or f,
               s[1] if s else "-", len(si)))
        for d in difflib.unified_diff(bi, si, lineterm="", n=1):
            if d.startswith(("---", "+++")):
                continue
            print("   " + d)


if __name__ == "__main__":
    main()
