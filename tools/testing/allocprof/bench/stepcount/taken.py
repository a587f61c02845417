#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Taken branches of each call in a stepcount.sh trace.

Instruction counts are blind to control flow; a real CPU pays for each
taken branch (a fetch redirect, a BTB entry).  A call, ret or jmp is
always taken; a conditional jump is taken when the next instruction
executed is its target.  Patched static-key no-ops are not branches;
a static key that is on is a jmp and counts.

    taken.py TRACE
"""
import re
import sys

LINE = re.compile(r'^(?:=> )?0x([0-9a-f]+) <[^>]*>:\s+(\S+)\s*(.*)$')


def main():
    calls = []
    for text in open(sys.argv[1]):
        if text.startswith('== '):
            calls.append((text.split()[1], []))
            continue
        m = LINE.match(text.strip())
        if m and calls:
            calls[-1][1].append((int(m.group(1), 16), m.group(2), m.group(3)))
    for name, insns in calls:
        taken = 0
        for i, (_, op, arg) in enumerate(insns):
            if op.startswith(('call', 'ret', 'jmp')):
                taken += 1
            elif op.startswith('j') and i + 1 < len(insns):
                t = re.match(r'0x([0-9a-f]+)', arg)
                if t and int(t.group(1), 16) == insns[i + 1][0]:
                    taken += 1
        print('== %s %d instructions, %d taken branches' %
              (name, len(insns), taken))


if __name__ == '__main__':
    main()
