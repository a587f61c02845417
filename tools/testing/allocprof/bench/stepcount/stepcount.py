# SPDX-License-Identifier: GPL-2.0
"""gdb script: count the instructions of single allocator calls.

Loaded by stepcount.sh into gdb attached to a QEMU guest that runs the
benchmark module.  For each entry point in STEP_FUNCS (comma-separated,
environment), it waits for the STEP_SKIP-th call made from module code
(return address above the module area's start), then single-steps to the
return and writes every instruction executed, with its function, to
STEP_OUT.  QEMU's gdb stub masks interrupts while stepping, so the count
is the call's own path.
"""
import os

import gdb

MODULES_START = 0xffffffffa0000000


def step_one(func, skip):
    bp = gdb.Breakpoint(func, internal=True, type=gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "*(unsigned long *)$rsp >= 0x%x" % MODULES_START
    bp.ignore_count = skip
    gdb.execute("continue")
    bp.delete()
    sp = int(gdb.parse_and_eval("$rsp"))
    ret = int(gdb.parse_and_eval("*(unsigned long *)$rsp"))
    trace = []
    while len(trace) < 20000:
        pc = int(gdb.parse_and_eval("$pc"))
        if pc == ret and int(gdb.parse_and_eval("$rsp")) > sp:
            break
        trace.append(gdb.execute("x/i 0x%x" % pc, to_string=True).strip())
        gdb.execute("stepi", to_string=True)
    return trace


def main():
    funcs = os.environ["STEP_FUNCS"].split(",")
    skip = int(os.environ.get("STEP_SKIP", "200"))
    with open(os.environ["STEP_OUT"], "w") as out:
        for func in funcs:
            trace = step_one(func, skip)
            out.write("== %s %d\n" % (func, len(trace)))
            for t in trace:
                out.write(t.replace("=> ", "") + "\n")
            out.flush()
    gdb.execute("kill")


main()
