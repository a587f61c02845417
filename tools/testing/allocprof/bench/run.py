#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation profiling benchmark: build, boot, time, report.

    run.py [--rounds N] [--iterations N] [--venues icount,qemu,um]
           [--no-mainline] [--src DIR] [--only PREFIXES] [--append]
           [--only-report] [--no-memory] [--patterns 0,1,2]

Builds from one source tree a baseline kernel (profiling compiled out) and
two profiling kernels (enabled and disabled by default) for each venue
(QEMU TCG x86_64 with 1 vCPU; UML x86_64; QEMU TCG arm64 -M virt with 1
vCPU, under -icount only, which also gets a profiling kernel whose counter
update is the interrupt-disabled one that 82bb81e replaced: row 3i),
optionally mainline 6.12 twice
(compiled out / in) for each venue, builds allocprof_bench.ko against
each, and boots every configuration once per round, interleaved
(A B C ... A B C ...), for each kmalloc call pattern of the module in
turn (--patterns; the page loop is the same in all).  Reports, per
pattern and configuration, the median and
min-max, the instructions (icount) or nanoseconds added per operation
over the baseline of the same tree and venue, and that as a percentage;
plus the memory figures and per-hook instruction counts.

Every x86-64 kernel, this series' and mainline's alike, is "distro-like":
tinyconfig + configs/guest.config + bench/configs/distro-like.config
(-O2, jump labels, full SLUB) + the profiling fragments; the three
kernels of rows N1-N3 add bench/configs/novmemmap.config (no
SPARSEMEM_VMEMMAP, no MEMCG), on x86-64 only.  After
configuring, every option the fragments set is checked in the .config
(check_config()); the run stops if one did not stick.  The icount venue
(-icount shift=0: guest instructions) is the one verdicts are taken on.

Everything goes under build/bench*/; the report is build/bench/report.md,
the raw figures build/bench/results.json (with the commit, each kernel's
.config hash and the command-line flags).

The source tree is build/bench/linux, made with tree.py and
ALLOCPROF_BUILD=build/bench, unless --src names an existing patched tree.
Everything runs under nice -n 19 with at most two make jobs.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import (HERE, TOP, T, git, host_tsc_khz, logger, read_config,
                      runner, section_bytes, sha1, size_of)

CONF = os.path.join(T, "configs")
BENCH = os.path.join(TOP, "build/bench")
OUT = os.path.join(BENCH, "out")
ML = os.path.join(TOP, "build/bench-6.12")
ML_TAR = "/usr/src/linux-source-6.12.tar.xz"
NICE = ["nice", "-n", "19"]
log = logger("bench")
run = runner(log)


# --------------------------------------------------------------------------
# Sources and builds


def source_tree(args):
    if args.src:
        return os.path.abspath(args.src)
    env = dict(os.environ, ALLOCPROF_BUILD=BENCH)
    run(["python3", os.path.join(T, "tree.py"), "tree"], env=env)
    return os.path.join(BENCH, "linux")


def mainline_tree():
    src = os.path.join(ML, "linux-source-6.12")
    if os.path.exists(os.path.join(ML, ".unpacked")):
        return src
    if not os.path.exists(ML_TAR):
        run(["apt-get", "install", "-y", "-qq", "linux-source-6.12"],
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    os.makedirs(ML, exist_ok=True)
    run(NICE + ["tar", "-xf", ML_TAR, "-C", ML])
    open(os.path.join(ML, ".unpacked"), "w").close()
    return src


def build_kernel(src, out, arch, frags):
    if REUSE["on"]:
        if not os.path.exists(os.path.join(out, "vmlinux")):
            sys.exit("bench: --no-build: %s was never built" % out)
        check_config(out, frags)
        return
    env = dict(os.environ, JOBS="2")
    run([os.path.join(HERE, "build.sh"), src, out, arch] + frags, env=env)
    check_config(out, frags)


def fragment_options(frags):
    """{option: value} the fragments ask for, later fragments winning;
    "n" for "# CONFIG_X is not set"."""
    want = {}
    for f in frags:
        want.update(read_config(f))
    return want


def check_config(out, frags):
    """Stop the run unless out/.config has every option of frags."""
    have = read_config(os.path.join(out, ".config"))
    bad = ["%s=%s" % (o, v) if v != "n" else "# %s is not set" % o
           for o, v in sorted(fragment_options(frags).items())
           if have.get(o, "n") != v]
    if bad:
        sys.exit("bench: %s/.config: did not stick: %s" % (out, ", ".join(bad)))


# venue: (ARCH, folder prefix, first fragments, image in the build folder)
VENUE_BUILD = {
    "qemu": ("x86_64", "q-", [os.path.join(CONF, "guest.config"),
                              os.path.join(HERE, "configs/distro-like.config")],
             "arch/x86/boot/bzImage"),
    "um": ("um", "um-", [os.path.join(HERE, "configs/um.config")], "linux"),
    "arm64": ("arm64", "a64-", [os.path.join(CONF, "guest.config"),
                                os.path.join(CONF, "arm64.config")],
              "arch/arm64/boot/Image"),
}

# Venues measured on the kernels of another: icount boots the qemu kernels.
KERNEL_VENUE = {"icount": "qemu", "arm64-icount": "arm64"}

# Row 3i (arm64): alloc_tag_counters_add() as it was before 82bb81e, one
# interrupt-disabled section around two raw_cpu_add()s, in a copy of the
# source tree; measures what the generic irq-save path would cost there.
IRQSAVE_OLD = """	struct alloc_tag_counters __percpu *c = tag->counters;

	this_cpu_add(c->bytes, bytes);
	this_cpu_add(c->calls, calls);
}"""
IRQSAVE_NEW = """	struct alloc_tag_counters __percpu *c = tag->counters;
	unsigned long flags;

	local_irq_save(flags);
	raw_cpu_add(c->bytes, bytes);
	raw_cpu_add(c->calls, calls);
	local_irq_restore(flags);
}"""


def irqsave_tree(src):
    """build/bench/linux-irqsave: src (hard links) with the old update."""
    dst = os.path.join(BENCH, "linux-irqsave")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    run(["cp", "-al", src, dst])
    hdr = os.path.join(dst, "include/linux/alloc_tag.h")
    text = open(hdr).read()
    if text.count(IRQSAVE_OLD) != 1:
        sys.exit("bench: alloc_tag_counters_add() is not as row 3i expects")
    os.unlink(hdr)  # a file of its own, not src's
    with open(hdr, "w") as f:
        f.write(text.replace(IRQSAVE_OLD, IRQSAVE_NEW))
    return dst


# --kernels: build only these of this series' kernels (rows of the others
# are reported as not measured).
ONLY_KERNELS = {"keys": None}
# --no-build: boot the kernels and modules of an earlier run as they are.
REUSE = {"on": False}


# UML runs no user space here: 6.1's UML cannot set the FP registers of
# its processes on recent hosts ("ptrace set fp regs failed"), and init
# dies.  So its kernels have the benchmark built in, in a copy of the tree
# (hard links, and lib/Makefile and the benchmark's file of its own): it
# runs as an initcall, its parameters on the command line.
def builtin_bench_tree(src):
    dst = src.rstrip("/") + "-um-bench"
    # Linked anew each time: tree.py replaces the files it rewrites, and
    # an older link would keep the file of before.
    if os.path.exists(dst):
        shutil.rmtree(dst)
    run(["cp", "-al", src, dst])
    shutil.copyfile(os.path.join(HERE, "allocprof_bench.c"),
                    os.path.join(dst, "lib", "allocprof_bench.c.tmp"))
    os.replace(os.path.join(dst, "lib", "allocprof_bench.c.tmp"),
               os.path.join(dst, "lib", "allocprof_bench.c"))
    mk = os.path.join(dst, "lib", "Makefile")
    text = open(os.path.join(src, "lib", "Makefile")).read()
    os.unlink(mk)  # a file of its own, not src's
    with open(mk, "w") as f:
        f.write(text + "obj-y += allocprof_bench.o\n")
    return dst


def build_venue(kernels, venue, src, mainline):
    """Build this series' kernels for venue (and mainline's, if asked)
    with the module against each; record them in kernels."""
    arch, prefix, base, image = VENUE_BUILD[venue]
    ours = OURS
    if venue == "um":
        um_on = os.path.join(HERE, "configs/um-prof-on.config")
        ours = tuple((k, [um_on if f.endswith("/prof-on.config") else f
                          for f in frags]) for k, frags in OURS)
    if venue == "arm64":
        ours = OURS + (("on-irqsave", [os.path.join(CONF, "prof-on.config")]),)
    for k, frags in ours:
        if ONLY_KERNELS["keys"] and k not in ONLY_KERNELS["keys"]:
            continue
        if k.startswith("nv-") and venue != "qemu":
            continue  # rows N1-N3 are x86-64's
        out = os.path.join(OUT, prefix + k)
        ksrc = irqsave_tree(src) if k == "on-irqsave" else src
        if venue == "um" and not REUSE["on"]:
            ksrc = builtin_bench_tree(src)
        build_kernel(ksrc, out, arch, base + frags)
        # UML's kernels have the benchmark built in: no module.
        ko = None if venue == "um" else build_module(out, arch, prefix + k)
        kernels[(venue, k)] = (os.path.join(out, image), ko, out)
    if not mainline:
        return
    msrc = mainline_tree()
    if venue == "um" and not REUSE["on"]:
        msrc = builtin_bench_tree(msrc)
    mp = "" if venue == "qemu" else prefix
    ml_on = "configs/um-prof-on.config" if venue == "um" else \
        "configs/ml-prof-on.config"
    for k, frag in (("off", os.path.join(CONF, "prof-off.config")),
                    ("on", os.path.join(HERE, ml_on))):
        out = os.path.join(ML, "out-" + mp + k)
        build_kernel(msrc, out, arch, base + [frag])
        ko = None if venue == "um" else build_module(out, arch, "ml-" + mp + k)
        kernels[(venue, "ml-" + k)] = (os.path.join(out, image), ko, out)


def build_module(kdir, arch, name):
    """Build allocprof_bench.ko against kdir in its own folder."""
    mdir = os.path.join(BENCH, "mod", name)
    if REUSE["on"]:
        ko = os.path.join(mdir, "allocprof_bench.ko")
        if not os.path.exists(ko):
            sys.exit("bench: --no-build: %s was never built" % ko)
        return ko
    os.makedirs(mdir, exist_ok=True)
    for f in ("allocprof_bench.c", "Makefile"):
        shutil.copy(os.path.join(HERE, f), mdir)
    cross = "aarch64-linux-gnu-" if arch == "arm64" else ""
    run(NICE + ["make", "-s", "-C", kdir, "ARCH=" + arch,
                "CROSS_COMPILE=" + cross, "M=" + mdir, "-j2", "modules"])
    return os.path.join(mdir, "allocprof_bench.ko")


# --------------------------------------------------------------------------
# Boots


def parse(text):
    res = {"mem": []}
    for line in text.splitlines():
        m = re.search(r"BENCH-RESULT kmalloc (\d+) pgalloc (\d+) iterations (\d+)",
                      line)
        if m:
            res["kmalloc"] = int(m.group(1))
            res["pgalloc"] = int(m.group(2))
            res["iterations"] = int(m.group(3))
        m = re.search(r"BENCH-STATE (.*)", line)
        if m:
            res["state"] = m.group(1).strip()
        m = re.search(r"BENCH-MEM (.*)", line)
        if m:
            res["mem"].append(m.group(1).strip())
    return res


def boot_qemu(kernel, ko, append, timeout=600, icount=False, arch="x86_64"):
    env = dict(os.environ)
    if arch == "arm64":
        # The generic timer needs no help; under -icount it counts guest
        # instructions too (icount/qemu-system-aarch64).
        if icount:
            env["PATH"] = os.path.join(HERE, "icount") + ":" + env["PATH"]
        khz = 0
    elif icount:
        # icount/qemu-system-x86_64 adds -icount shift=0: the TSC then
        # counts guest instructions (1 GHz), so 1 ns = 1 instruction.
        env["PATH"] = os.path.join(HERE, "icount") + ":" + env["PATH"]
        khz = 1000000
    else:
        khz = host_tsc_khz()
    if khz:
        append = "tsc_early_khz=%d tsc=reliable %s" % (khz, append)
    cmd = NICE + [os.path.join(T, "qemu-run.sh"), "-k", kernel,
                  "-s", os.path.join(HERE, "guest.sh"), "-f", ko,
                  "-c", "1", "-m", "512", "-t", str(timeout), "-a", append,
                  "-r", arch]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    return p.returncode, p.stdout


# The guest's parameters (guest.sh's) as the built-in benchmark's.
UML_PARAMS = {"bench_iter": "iterations", "bench_pattern": "pattern",
              "bench_acct": "account"}


def boot_uml(linux, ko, append, timeout=600):
    """Boot a UML kernel with the benchmark built in (builtin_bench_tree()):
    it runs at boot, before the kernel finds no root and panics, which ends
    UML.  Not niced: the figures are the host CPU's time."""
    args = []
    for a in append.split():
        k, _, v = a.partition("=")
        if k in UML_PARAMS:
            args.append("allocprof_bench.%s=%s" % (UML_PARAMS[k], v))
        elif k == "sysctl.vm.mem_profiling":
            args.append(a)
    cmd = ["timeout", "-k", "5", str(timeout), linux, "mem=256M",
           "con0=fd:0,fd:1", "panic=-1", "loglevel=7"] + args
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    out = p.stdout.replace("\r", "")
    m = re.findall(r"allocprof_bench: (kmalloc .*)$", out, re.M)
    if not m:
        return 125, out
    return 0, out + "\nBENCH-RESULT %s\n" % m[-1]


# --------------------------------------------------------------------------
# Configurations

# This series' kernels: profiling compiled out, compiled in and enabled by
# default, compiled in and disabled by default.
OURS = (
    ("off", [os.path.join(CONF, "prof-off.config")]),
    ("on", [os.path.join(CONF, "prof-on.config")]),
    ("dflt", [os.path.join(CONF, "prof-on.config"),
              os.path.join(HERE, "configs/default-off.config")]),
    # Without a virtual memmap and without memcg (rows N1-N3).
    ("nv-off", [os.path.join(CONF, "prof-off.config"),
                os.path.join(HERE, "configs/novmemmap.config")]),
    ("nv-on", [os.path.join(CONF, "prof-on.config"),
               os.path.join(HERE, "configs/novmemmap.config")]),
    ("nv-dflt", [os.path.join(CONF, "prof-on.config"),
                 os.path.join(HERE, "configs/default-off.config"),
                 os.path.join(HERE, "configs/novmemmap.config")]),
)


def configs(venue, k, mainline):
    """(name, kernel key, extra command line, description) per run."""
    c = [
        ("1 baseline", "off", "", "profiling compiled out"),
        ("2 disabled", "dflt", "",
         "compiled in, disabled by default (ENABLED_BY_DEFAULT=n)"),
        ("2b disabled, booted =0", "on", "sysctl.vm.mem_profiling=0",
         "enabled-by-default kernel booted =0"),
        ("2n never", "on", "sysctl.vm.mem_profiling=never",
         "enabled-by-default kernel booted =never"),
        ("3 enabled", "on", "", "enabled by default (page tags: default)"),
        ("3c enabled, cumulative", "on", "sysctl.vm.mem_profiling=1,cumulative",
         "(3) with the cumulative counters chosen at boot"),
        ("4 runtime", "dflt", "bench_rt=1",
         "disabled by default, echo 1 > vm.mem_profiling before insmod"),
        ("4b runtime, booted =0", "on", "sysctl.vm.mem_profiling=0 bench_rt=1",
         "enabled-by-default kernel booted =0, echo 1 before insmod"),
        ("5 baseline+acct", "off", "bench_acct=1", "(1) with account=1 in a memcg"),
        ("6 disabled+acct", "dflt", "bench_acct=1", "(2) with account=1 in a memcg"),
        ("7 enabled+acct", "on", "bench_acct=1", "(3) with account=1 in a memcg"),
    ]
    if venue in ("icount", "qemu"):
        c += [
            ("N1 no vmemmap, baseline", "nv-off", "",
             "(1) without SPARSEMEM_VMEMMAP and MEMCG"),
            ("N2 no vmemmap, disabled", "nv-dflt", "",
             "(2) without SPARSEMEM_VMEMMAP and MEMCG"),
            ("N3 no vmemmap, enabled", "nv-on", "",
             "(3) without SPARSEMEM_VMEMMAP and MEMCG"),
        ]
    if venue == "arm64-icount":
        c.append(("3i enabled, irq-save add", "on-irqsave", "",
                  "(3) with the counter update before 82bb81e: "
                  "local_irq_save() around two raw_cpu_add()"))
    if mainline and venue != "arm64-icount":
        c += [
            ("M1 6.12 baseline", "ml-off", "", "mainline 6.12, compiled out"),
            ("M2 6.12 disabled", "ml-on", "sysctl.vm.mem_profiling=0",
             "mainline 6.12, compiled in, booted =0"),
            ("M3 6.12 enabled", "ml-on", "sysctl.vm.mem_profiling=1",
             "mainline 6.12, booted =1"),
        ]
    return c


# --------------------------------------------------------------------------
# Static figures


HOOK_FUNCS = [
    "__kmalloc", "__kmalloc_noprof", "kmalloc_trace", "kmalloc_trace_noprof",
    "kmem_cache_alloc", "kmem_cache_alloc_noprof", "kfree", "kmem_cache_free",
    "__alloc_pages", "__alloc_pages_noprof", "free_unref_page", "__free_pages",
    "__get_free_pages_noprof", "__get_free_pages", "free_pages",
    "__pgalloc_tag_add", "__pgalloc_tag_sub", "__alloc_tagging_slab_alloc_hook",
    "__alloc_tagging_slab_free_hook", "alloc_tagging_slab_alloc_hook",
    "__kmem_cache_alloc_node", "__kmem_cache_free", "slab_tags_alloc",
    "__slab_tags_free", "alloc_tagging_slab_free_hook", "pgalloc_tag_add",
    "pgalloc_tag_sub", "get_page_from_freelist",
]


def disassemble(vmlinux, wanted=HOOK_FUNCS):
    """{function: [instruction lines]} for the functions of interest
    (all functions if wanted is None)."""
    out = subprocess.check_output(["objdump", "-d", "--no-show-raw-insn",
                                   vmlinux], universal_newlines=True)
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1) if wanted is None or m.group(1) in wanted else None
            if cur:
                funcs[cur] = []
            continue
        if cur and re.match(r"^\s*[0-9a-f]+:\s", line):
            funcs[cur].append(line.strip())
    return funcs


def hook_stats(vmlinux, wanted=HOOK_FUNCS):
    res = {}
    for name, insns in disassemble(vmlinux, wanted).items():
        calls = sorted({re.sub(r".*<([^>+]+).*", r"\1", i)
                        for i in insns if "call" in i and "<" in i})
        res[name] = {"insns": len(insns), "calls": calls,
                     "gs": sum(1 for i in insns if "%gs:" in i),
                     "nops5": sum(1 for i in insns if re.search(
                         r"\bnopl\s+0x0\(%rax,%rax,1\)$", i)),
                     "jmp_static": sum(1 for i in insns if re.search(
                         r"\bjmp\b", i))}
    return res


# --------------------------------------------------------------------------
# Report


def pct(v, base):
    return 100.0 * (v - base) / base


def summarise(results, venue, cfgs):
    rows = []
    base = {}
    mlbase = {}
    nvbase = {}
    acctbase = {}
    for name, _, _, desc in cfgs:
        runs = [r for r in results if r["venue"] == venue and r["config"] == name
                and "kmalloc" in r]
        if not runs:
            rows.append((name, desc, None))
            continue
        s = {}
        for key in ("kmalloc", "pgalloc"):
            vals = [r[key] / r["iterations"] for r in runs]
            s[key] = (statistics.median(vals), min(vals), max(vals), len(vals))
        if name.startswith("1 "):
            base = s
        if name.startswith("5 "):
            acctbase = s
        if name.startswith("M1"):
            mlbase = s
        if name.startswith("N1"):
            nvbase = s
        rows.append((name, desc, s))
    unit = "insns" if venue.endswith("icount") else "ns"
    lines = ["| configuration | kmalloc+kfree %s/op median (min-max) | added | "
             "added %% | page alloc+free %s/op median (min-max) | added | "
             "added %% | n |" % (unit, unit),
             "|---|---|---|---|---|---|---|---|"]
    for name, desc, s in rows:
        if s is None:
            lines.append("| %s | not measured | | | | | | 0 |" % name)
            continue
        b = mlbase if name.startswith("M") else nvbase if name.startswith(
            "N") else acctbase if "acct" in name else base
        cells = []
        for key in ("kmalloc", "pgalloc"):
            med, lo, hi, n = s[key]
            cells.append("%.1f (%.1f-%.1f)" % (med, lo, hi))
            if b and b is not s:
                cells.append("**%+.1f**" % (med - b[key][0]))
                cells.append("%+.1f%%" % pct(med, b[key][0]))
            else:
                cells += ["", ""]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %d |" %
                     ((name,) + tuple(cells) + (s["kmalloc"][3],)))
    return "\n".join(lines)


def run_meta(kernels, flags):
    """What results.json records besides the figures: the commit of this
    repository, the sha1 of each kernel's .config, the flags."""
    cfgs = {}
    for (venue, k), (_, _, out) in sorted(kernels.items()):
        cfgs["%s/%s" % (venue, k)] = sha1(os.path.join(out, ".config"))
    return {"commit": git(TOP, "describe", "--always", "--dirty"), "configs": cfgs, "flags": flags,
            "fragments": {"qemu": [os.path.relpath(f, TOP)
                                   for f in VENUE_BUILD["qemu"][2]]}}


def load_results(path):
    data = json.load(open(path))
    if isinstance(data, list):  # before the metadata was recorded
        data = {"meta": {}, "runs": data}
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=300000)
    ap.add_argument("--venues", default="icount",
                    help="icount (TCG -icount: guest instructions; the "
                    "default and the venue of the verdicts), qemu (TCG, host "
                    "clock), arm64-icount (the same on qemu-system-aarch64 "
                    "-M virt), um (UML)")
    ap.add_argument("--icount-iterations", type=int, default=30000)
    ap.add_argument("--patterns", default="0,1,2",
                    help="the module's kmalloc call patterns, comma-separated "
                    "(see allocprof_bench.c): 0 batches of 30 sizes from one "
                    "call site, 1 batches of 10 of one size, 2 ten call sites "
                    "with constant sizes; a table each (default: all three)")
    ap.add_argument("--no-mainline", action="store_true")
    ap.add_argument("--src")
    ap.add_argument("--only", help="comma-separated config name prefixes")
    ap.add_argument("--only-report", action="store_true")
    ap.add_argument("--append", action="store_true",
                    help="add to build/bench/results.json instead of starting anew")
    ap.add_argument("--no-memory", action="store_true",
                    help="skip the memory boots and hook statistics")
    ap.add_argument("--results",
                    help="where results go (default build/bench/results.json): "
                    "two runs with --no-build can boot on two CPUs at once")
    ap.add_argument("--no-build", action="store_true",
                    help="boot the kernels and modules built by an earlier "
                    "run, without make (their .config is still checked)")
    ap.add_argument("--kernels",
                    help="comma-separated: build only these of off, on, "
                    "dflt, nv-off, nv-on, nv-dflt (and on-irqsave for arm64)")
    args = ap.parse_args()
    if args.kernels:
        ONLY_KERNELS["keys"] = args.kernels.split(",")
    REUSE["on"] = args.no_build
    venues = args.venues.split(",")
    patterns = [int(p) for p in args.patterns.split(",")]
    if any(p not in (0, 1, 2) for p in patterns):
        sys.exit("bench: --patterns takes 0, 1 and 2")
    mainline = not args.no_mainline
    os.makedirs(OUT, exist_ok=True)
    rpath = args.results or os.path.join(BENCH, "results.json")

    kernels = {}
    if not args.only_report:
        src = source_tree(args)
        if "qemu" in venues or "icount" in venues:
            build_venue(kernels, "qemu", src, mainline)
        if "um" in venues:
            build_venue(kernels, "um", src, mainline)
        if "arm64-icount" in venues:
            # No mainline 6.12 on arm64: its two builds were not worth
            # their time for the figures asked of arm64.
            build_venue(kernels, "arm64", src, False)

        results = []
        if os.path.exists(rpath) and args.append:
            results = load_results(rpath)["runs"]
        meta = run_meta(kernels, sys.argv[1:])
        for rnd, pattern in [(r, p) for p in patterns
                             for r in range(args.rounds)]:
            for venue in venues:
                for name, k, extra, _ in configs(venue, k=None, mainline=mainline):
                    if args.only and not any(name.startswith(p) for p in
                                             args.only.split(",")):
                        continue
                    kv = KERNEL_VENUE.get(venue, venue)
                    if (kv, k) not in kernels:
                        continue
                    img, ko, _ = kernels[(kv, k)]
                    iters = args.iterations
                    if venue.endswith("icount"):
                        iters = args.icount_iterations
                    append = ("%s bench_iter=%d bench_pattern=%d" %
                              (extra, iters, pattern)).strip()
                    t0 = time.time()
                    if venue == "qemu":
                        rc, text = boot_qemu(img, ko, append)
                    elif venue == "icount":
                        rc, text = boot_qemu(img, ko, append, icount=True)
                    elif venue == "arm64-icount":
                        rc, text = boot_qemu(img, ko, append, icount=True,
                                             arch="arm64")
                    else:
                        rc, text = boot_uml(img, ko, append)
                    r = parse(text)
                    r.update(venue=venue, config=name, round=rnd, rc=rc,
                             pattern=pattern, wall=time.time() - t0)
                    r.pop("mem")
                    if rc != 0 or "kmalloc" not in r:
                        r["error"] = text[-3000:]
                        log("%s/%s pattern %d round %d FAILED (rc %d)" % (
                            venue, name, pattern, rnd, rc))
                    else:
                        log("%s/%s pattern %d round %d: kmalloc %d pgalloc %d (%s)" % (
                            venue, name, pattern, rnd, r["kmalloc"],
                            r["pgalloc"], r.get("state")))
                    results.append(r)
                    json.dump({"meta": meta, "runs": results},
                              open(rpath, "w"), indent=1)

        # Memory figures: one boot of each profiling kernel with bench_mem=1.
        mpath = os.path.join(BENCH, "memory.json")
        mem = json.load(open(mpath)) if os.path.exists(mpath) else {}
        mvenues = set() if args.no_memory else {KERNEL_VENUE.get(v, v)
                                                 for v in venues}
        for venue in sorted(mvenues):
            if venue == "arm64":
                continue  # the memory figures and hook statistics are x86's
            if (venue, "on") not in kernels:
                continue
            # Same image booted enabled and disabled: the difference in Slab
            # is what profiling's slab vectors (and its other slab
            # allocations) cost; the baseline kernel for comparison.
            for tag, k, extra in (
                    ("default", "on", ""),
                    ("disabled", "on", "sysctl.vm.mem_profiling=0"),
                    ("baseline", "off", "")):
                img, ko, out = kernels[(venue, k)]
                append = "bench_mem=1 bench_iter=480 " + extra
                rc, text = (boot_qemu if venue == "qemu" else boot_uml)(img, ko, append)
                mem["%s/%s" % (venue, tag)] = parse(text)["mem"]
            for k in ("off", "on"):
                mem["%s/size-%s" % (venue, k)] = size_of(
                    os.path.join(kernels[(venue, k)][2], "vmlinux"))
            v = os.path.join(kernels[(venue, "on")][2], "vmlinux")
            mem["%s/alloc_tags_section" % venue] = section_bytes(v, "alloc_tags")
            for k in ("off", "on"):
                if kernels[(venue, k)][1]:  # UML's have no module
                    mem["%s/module-%s" % (venue, k)] = hook_stats(
                        kernels[(venue, k)][1], None)
            mem["%s/hooks-on" % venue] = hook_stats(v)
            mem["%s/hooks-off" % venue] = hook_stats(
                os.path.join(kernels[(venue, "off")][2], "vmlinux"))
            if venue == "qemu" and ("qemu", "ml-on") in kernels:
                for k in ("off", "on"):
                    mem["qemu/ml-size-%s" % k] = size_of(
                        os.path.join(kernels[("qemu", "ml-" + k)][2], "vmlinux"))
                mem["qemu/ml-alloc_tags_section"] = section_bytes(
                    os.path.join(kernels[("qemu", "ml-on")][2], "vmlinux"),
                    "alloc_tags")
        json.dump(mem, open(mpath, "w"), indent=1)

    data = load_results(rpath)
    results = data["runs"]
    meta = data["meta"]
    rep = ["# allocprof benchmark report", "",
           "Commit %s; flags: `%s`.  Kernels (.config sha1): %s." % (
               meta.get("commit"), " ".join(meta.get("flags", [])),
               ", ".join("%s %s" % (k, v[:12]) for k, v in
                         sorted(meta.get("configs", {}).items()))), "",
           "Per operation = loop time / iterations (fastest of 3 timed passes "
           "per boot); median and min-max over the rounds.  \"added\": the "
           "median minus the baseline's median (rows 2-4 against 1, rows 6-7 "
           "(account=1) against 5, M2-M3 against M1, N2-N3 against N1), then "
           "as a percentage; "
           "always from the same session.", ""]
    for venue in venues:
        title = {"qemu": "QEMU TCG x86_64, 1 vCPU, host clock (tsc)",
                 "icount": "QEMU TCG x86_64, 1 vCPU, -icount shift=0 "
                           "(1 ns = 1 guest instruction)",
                 "arm64-icount": "QEMU TCG arm64 (-M virt -cpu max), 1 vCPU, "
                                 "-icount shift=0 (1 ns = 1 guest instruction)",
                 "um": "UML x86_64"}.get(venue, venue)
        for pattern in sorted({r.get("pattern", 0) for r in results}):
            rep += ["## %s, pattern %d" % (title, pattern), "",
                    summarise([r for r in results
                               if r.get("pattern", 0) == pattern], venue,
                              configs(venue, None, mainline)), ""]
    txt = "\n".join(rep)
    rep_path = os.path.splitext(args.results)[0] + ".md" if args.results \
        else os.path.join(BENCH, "report.md")
    open(rep_path, "w").write(txt + "\n")
    print(txt)


if __name__ == "__main__":
    main()
