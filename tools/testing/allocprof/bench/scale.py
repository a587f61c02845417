#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scale figures of the allocation profiling benchmark.

    scale.py [--only ITEMS] [--venues icount,host] [--rounds N]
             [--host-rounds N] [--configs NAMES] [--fresh] [--report-only]

Items (see scale/README.md):

  sites      kmalloc+kfree cost with 1, 100, 2000 and 10000 hot call sites
  xcpu       kmalloc on one vCPU, kfree on the other (2 vCPUs)
  allocinfo  /proc/allocinfo read time with 1k, 2k, 10k, 50k module sites
  modload    load and unload time of a module with 2000 call sites
  ioctl      one site fetched by file and line with the /proc/allocinfo
             ioctl against the whole text read, at 4,000 and 50,000 sites

Kernels are the benchmark kernels of the perf work tree (never built here):
this series compiled out (q-off), compiled in and disabled by default
(q-dflt), enabled by default (q-on); mainline 6.12 compiled out (ml-off) and
in (ml-on, booted with sysctl.vm.mem_profiling=0 or =1).  The modules are
generated (scale/gen.py) and built against each kernel into
build/scale/<kernel>/; scale/scale-tool.c is built static for the guest.

Venues: icount (QEMU TCG, -icount shift=0: 1 ns = 1 guest instruction; the
verdict venue) and host (the same QEMU without icount: host clock, noisy).
Each round boots every configuration of every item once, interleaved
(A B C ... A B C ...).  Every boot is recorded in build/scale/scale.json as
it ends; a run that is started again skips the boots already there (same
item, venue, configuration and round, exit status 0) unless --fresh.  The
report is build/scale/scale.md.  At most one QEMU runs at a time, under
nice -n 10; builds run under nice -n 19 with two jobs.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from benchlib import HERE, TOP, T, git, host_tsc_khz, kv, logger, runner, sha1

SCALE = os.path.join(HERE, "scale")
OUT = os.path.join(TOP, "build/scale")
# The kernels are run.py's (make bench): build/bench/out/q-* and
# build/bench-6.12/out-*, in this tree or in BENCH_TOP.
PERF = os.path.abspath(os.environ.get("BENCH_TOP", TOP))

KERNELS = {
    "q-off": os.path.join(PERF, "build/bench/out/q-off"),
    "q-dflt": os.path.join(PERF, "build/bench/out/q-dflt"),
    "q-on": os.path.join(PERF, "build/bench/out/q-on"),
    "ml-off": os.path.join(PERF, "build/bench-6.12/out-off"),
    "ml-on": os.path.join(PERF, "build/bench-6.12/out-on"),
}
IMAGE = "arch/x86/boot/bzImage"

# name: (kernel, extra command line, tree, description).  The first of each
# tree is its baseline.
CONFIGS = {
    "off": ("q-off", "", "series", "this series, profiling compiled out (baseline)"),
    "dflt": ("q-dflt", "", "series", "this series, compiled in, disabled by default"),
    "on": ("q-on", "", "series", "this series, compiled in, enabled by default"),
    "on0": ("q-on", "sysctl.vm.mem_profiling=0", "series",
            "this series, compiled in, enabled by default, booted =0"),
    "dflt1": ("q-dflt", "sysctl.vm.mem_profiling=1", "series",
              "this series, compiled in, disabled by default, booted =1"),
    "ml-off": ("ml-off", "", "6.12", "mainline 6.12, compiled out (baseline)"),
    "ml-on0": ("ml-on", "sysctl.vm.mem_profiling=0", "6.12",
               "mainline 6.12, compiled in, booted =0"),
    "ml-on1": ("ml-on", "sysctl.vm.mem_profiling=1", "6.12",
               "mainline 6.12, compiled in, booted =1"),
}
BASELINE = {"series": "off", "6.12": "ml-off"}

# Mainline 6.12 with profiling compiled in gives each module site 16 bytes
# of static per-CPU data, and a module's static per-CPU data is one
# allocation, at most PCPU_MIN_UNIT_SIZE (32 KiB): about 2000 sites, the
# most a module can have there.  So 2000 is measured too.
SITES_N = (1, 100, 2000, 10000)
ALLOCINFO_N = (1000, 2000, 10000, 50000)
MODLOAD_N = 2000
# The ioctl item's totals of call sites (vmlinux's and a module's): the
# module is sized so that q-on has this many in all.
IOCTL_TOTALS = (4000, 50000)


def vmlinux_sites(kernel):
    """Call sites of a kernel's vmlinux: its alloc_tags section / 40."""
    sm = {}
    with open(os.path.join(KERNELS[kernel], "System.map")) as f:
        for line in f:
            a, _t, n = line.split()[:3]
            if n in ("__start_alloc_tags", "__stop_alloc_tags"):
                sm[n] = int(a, 16)
    return (sm["__stop_alloc_tags"] - sm["__start_alloc_tags"]) // 40


IOCTL_N = tuple(t - vmlinux_sites("q-on") for t in IOCTL_TOTALS) \
    if os.path.exists(os.path.join(KERNELS["q-on"], "System.map")) else ()

# item: (configurations, cpus, memory MiB, modules, command line, timeout s)
ITEMS = {
    "sites": (("off", "dflt", "on", "ml-off", "ml-on0", "ml-on1"), 1, 512,
              ["scale_sites_%d" % n for n in SITES_N],
              "scale_item=sites scale_sites=%s" % ",".join(map(str, SITES_N)),
              900),
    "xcpu": (("off", "dflt", "on", "ml-off", "ml-on0", "ml-on1"), 2, 512,
             ["scale_xcpu"], "scale_item=xcpu", 300),
    "allocinfo": (("on", "ml-on1"), 1, 1024,
                  ["scale_tags_%d" % n for n in ALLOCINFO_N],
                  "scale_item=allocinfo scale_sites=%s" %
                  ",".join(map(str, ALLOCINFO_N)), 900),
    "ioctl": (("on",), 1, 1024, ["scale_tags_%d" % n for n in IOCTL_N],
              "scale_item=ioctl scale_sites=%s" % ",".join(map(str, IOCTL_N)),
              1800),
    "modload": (("off", "dflt", "dflt1", "on", "on0", "ml-off", "ml-on0",
                 "ml-on1"), 1, 512,
                ["scale_tags_%d" % MODLOAD_N],
                "scale_item=modload scale_sites=%d scale_loads=5" % MODLOAD_N,
                600),
}
NICE_BUILD = ["nice", "-n", "19"]
NICE_QEMU = ["nice", "-n", "10"]


log = logger("scale")
run = runner(log)


# --------------------------------------------------------------------------
# Builds


def write_if_changed(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def build_modules(kernel, names):
    """Build the named modules against kernel in build/scale/<kernel>/mod."""
    kdir = KERNELS[kernel]
    mdir = os.path.join(OUT, kernel, "mod")
    os.makedirs(mdir, exist_ok=True)
    for name in names:
        m = re.match(r"scale_(sites|tags)_(\d+)$", name)
        if m:
            tmp = os.path.join(mdir, name + ".c.new")
            subprocess.check_call(["python3", os.path.join(SCALE, "gen.py"),
                                   m.group(1), m.group(2), tmp])
            write_if_changed(os.path.join(mdir, name + ".c"), open(tmp).read())
            os.unlink(tmp)
    for f in ("scale_sites_core.h", "scale_xcpu.c"):
        write_if_changed(os.path.join(mdir, f),
                         open(os.path.join(SCALE, f)).read())
    write_if_changed(os.path.join(mdir, "Kbuild"),
                     "# SPDX-License-Identifier: GPL-2.0\n"
                     "# Written by scale.py: see bench/scale/gen.py.\n"
                     "ccflags-y += -fno-ipa-icf\n"
                     "obj-m := %s\n" % " ".join(n + ".o" for n in names))
    run(NICE_BUILD + ["make", "-s", "-C", kdir, "M=" + mdir, "-j2", "modules"])
    return {n: os.path.join(mdir, n + ".ko") for n in names}


def build_tool():
    out = os.path.join(OUT, "scale-tool")
    src = os.path.join(SCALE, "scale-tool.c")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        run(["gcc", "-static", "-O2", "-Wall", "-o", out, src])
    return out


# --------------------------------------------------------------------------
# Boots


def boot(venue, kernel, files, append, cpus, mem, timeout):
    env = dict(os.environ)
    if venue == "icount":
        env["PATH"] = os.path.join(HERE, "icount") + ":" + env["PATH"]
        khz = 1000000
    else:
        khz = host_tsc_khz()
    append = "tsc_early_khz=%d tsc=reliable %s" % (khz, append)
    cmd = NICE_QEMU + [os.path.join(T, "qemu-run.sh"),
                       "-k", os.path.join(KERNELS[kernel], IMAGE),
                       "-s", os.path.join(SCALE, "guest.sh"),
                       "-c", str(cpus), "-m", str(mem), "-t", str(timeout),
                       "-a", append]
    for f in files:
        cmd += ["-f", f]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors="replace", env=env)
    return p.returncode, p.stdout


def parse(item, text):
    """The figures of one boot."""
    r = {"fails": [], "kmsg": []}
    cur = None
    at = []
    for line in text.splitlines():
        m = re.search(r"(SCALE-[A-Z-]+)\s?(.*)$", line)
        if not m:
            continue
        tag, rest = m.group(1), m.group(2).strip()
        if tag == "SCALE-STATE":
            r["state"] = rest
        elif tag.endswith("-FAIL"):
            r["fails"].append(rest)
        elif tag == "SCALE-KMSG":
            r["kmsg"].append(rest)
        elif tag == "SCALE-RESULT" and item == "sites":
            m = re.search(r"sites (\d+) iterations (\d+) raw (\d+) null (\d+)", rest)
            if m:
                n, it, raw, null = map(int, m.groups())
                r.setdefault("sites", {})[str(n)] = {
                    "iterations": it, "raw": raw, "null": null}
        elif tag == "SCALE-RESULT" and item == "xcpu":
            m = re.search(r"objects (\d+) local (\d+) remote (\d+) cpus (\d+)", rest)
            if m:
                r["xcpu"] = dict(zip(("objects", "local", "remote", "cpus"),
                                     map(int, m.groups())))
        elif tag == "SCALE-ALLOCINFO":
            cur = r.setdefault("allocinfo", {}).setdefault(
                str(kv(rest)["sites"]), {"reads": []})
        elif tag == "SCALE-READ" and cur is not None:
            cur["reads"].append(kv(rest))
        elif tag == "SCALE-MODLINES" and cur is not None:
            cur["modlines"] = int(rest.split()[0])
        elif tag == "SCALE-SAMPLE" and cur is not None:
            cur["sample"] = rest
        elif tag == "SCALE-IOCTLSET":
            v = kv(rest)
            cur = r.setdefault("ioctl", {}).setdefault(
                str(v["sites"]), {"total": v["total"], "reads": [],
                                  "first": [], "last": []})
            at = []
        elif tag == "SCALE-IOCTLAT" and cur is not None:
            m = re.match(r"which=(first|last) site=(\S*)", rest)
            if m:
                cur[m.group(1) + "_site"] = m.group(2)
                at = cur[m.group(1)]
        elif tag == "SCALE-IOCTL" and cur is not None:
            x = kv(rest)
            m = re.search(r"file=(\S+)", rest)
            x["file"] = m.group(1) if m else ""
            at.append(x)
        elif tag == "SCALE-MODLOAD":
            cur = {"round": kv(rest)["round"]}
            r.setdefault("modload", []).append(cur)
        elif tag == "SCALE-LOAD" and cur is not None:
            cur["load"] = kv(rest)
        elif tag == "SCALE-UNLOAD" and cur is not None:
            cur["unload"] = kv(rest)
    return r


# --------------------------------------------------------------------------
# Metadata


def meta(flags):
    cfgs = {}
    for k, d in sorted(KERNELS.items()):
        p = os.path.join(d, ".config")
        if os.path.exists(p):
            cfgs[k] = {"path": d, "image": os.path.join(d, IMAGE),
                       "config_sha1": sha1(p)}
    qemu = subprocess.run(["qemu-system-x86_64", "--version"],
                          stdout=subprocess.PIPE, universal_newlines=True)
    return {
        "perf_commit": git(PERF, "rev-parse", "HEAD"),
        "perf_describe": git(PERF, "describe", "--always", "--dirty"),
        "scale_commit": git(TOP, "rev-parse", "HEAD"),
        "kernels": cfgs,
        "configs": {n: {"kernel": c[0], "cmdline": c[1], "tree": c[2],
                        "desc": c[3]} for n, c in CONFIGS.items()},
        "flags": flags,
        "qemu": qemu.stdout.splitlines()[0] if qemu.stdout else "unknown",
        "host_cpu_mhz": host_tsc_khz() / 1000,
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }


# --------------------------------------------------------------------------
# Report


def med(vals):
    """"median (min-max)" of vals, or "-"."""
    if not vals:
        return "-"
    if len(vals) == 1:
        return "%.1f" % vals[0]
    return "%.1f (%.1f-%.1f)" % (statistics.median(vals), min(vals), max(vals))


def added(vals, base):
    if not vals or not base:
        return "-"
    d = statistics.median(vals) - statistics.median(base)
    return "%+.1f (%+.1f%%)" % (d, 100.0 * d / statistics.median(base))


def ok_runs(runs, item, venue, config):
    return [r for r in runs if r["item"] == item and r["venue"] == venue
            and r["config"] == config]


def venue_title(venue):
    if venue == "icount":
        return ("QEMU TCG x86_64, -icount shift=0: guest instructions "
                "(\"ns\" = instructions); deterministic, no cache model")
    return ("QEMU TCG x86_64, host clock (ns); SECONDARY, noisy: host load "
            "and QEMU's own translation caches, not CPU caches")


def fail_module(item, what):
    """The module a SCALE-*-FAIL line is about."""
    m = re.search(r"(scale_\w+)\.ko", what)
    if m:
        return m.group(1)
    m = re.search(r"sites=(\d+)", what)
    return "scale_tags_%s" % m.group(1) if m else None


def fail_kmsg(r, mod):
    """The kernel's words on why mod did not load: its own line and the
    percpu allocator's warning about the same size, if any."""
    mine = [k for k in r.get("kmsg", []) if mod and mod + ":" in k]
    if not mine:
        return "; ".join(r.get("kmsg", [])[-1:])
    line = re.sub(r"^\[[ .\d]+\] ", "", mine[0])
    m = re.search(r"allocate (\d+) bytes percpu", line)
    if m:
        warn = [k for k in r.get("kmsg", [])
                if "illegal size (%s)" % m.group(1) in k]
        if warn:
            line += "; before it: " + re.sub(r"^\[[ .\d]+\] ", "", warn[0])
    return line


def console_last(r):
    """The last console line of a boot that did not end well."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1bc", "", r.get("console_tail", ""))
    text = re.sub(r"qemu-system-\S+: terminating.*", "", text)
    lines = [l.strip() for l in text.splitlines()
             if l.strip() and not l.startswith("qemu-run")]
    return lines[-1] if lines else "?"


def failures(runs, item, venue, config):
    out = []
    for r in ok_runs(runs, item, venue, config):
        for f in r.get("fails", []):
            out.append("%s, round %d: %s did not load: %s" % (
                config, r["round"], f, fail_kmsg(r, fail_module(item, f))))
        if r["rc"] != 0:
            out.append("%s, round %d: boot ended with status %d after %.0f s; "
                       "last console line: `%s`" % (
                           config, r["round"], r["rc"], r["wall"],
                           console_last(r)))
    return out


def report_sites(runs, venue):
    rows = ["| configuration | sites | per kmalloc+kfree, raw | loop+calls (null pass) "
            "| net (raw - null) | added over baseline (net) | boots |",
            "|---|---|---|---|---|---|---|"]
    notes = []
    for n in SITES_N:
        base = {}
        for c in ITEMS["sites"][0]:
            vals = []
            for r in ok_runs(runs, "sites", venue, c):
                s = r.get("sites", {}).get(str(n))
                if s:
                    vals.append((s["raw"] / s["iterations"],
                                 s["null"] / s["iterations"]))
            net = [a - b for a, b in vals]
            if c == BASELINE[CONFIGS[c][2]]:
                base[CONFIGS[c][2]] = net
            if not vals:
                rows.append("| %s | %d | not measured, see below | | | | 0 |" % (c, n))
                continue
            rows.append("| %s | %d | %s | %s | %s | %s | %d |" % (
                c, n, med([a for a, _ in vals]), med([b for _, b in vals]),
                med(net), "" if c == BASELINE[CONFIGS[c][2]]
                else added(net, base.get(CONFIGS[c][2])), len(vals)))
    for c in ITEMS["sites"][0]:
        notes += failures(runs, "sites", venue, c)
    return rows, notes


def report_xcpu(runs, venue):
    rows = ["| configuration | local: alloc+free per object | added | "
            "remote (freed on the other CPU) per object | added | "
            "remote - local | boots |", "|---|---|---|---|---|---|---|"]
    base = {}
    notes = []
    for c in ITEMS["xcpu"][0]:
        loc, rem = [], []
        for r in ok_runs(runs, "xcpu", venue, c):
            x = r.get("xcpu")
            if x:
                loc.append(x["local"] / x["objects"])
                rem.append(x["remote"] / x["objects"])
        tree = CONFIGS[c][2]
        if c == BASELINE[tree]:
            base[tree] = (loc, rem)
        notes += failures(runs, "xcpu", venue, c)
        if not loc:
            rows.append("| %s | not measured, see below | | | | | 0 |" % c)
            continue
        b = base.get(tree, ([], []))
        isb = c == BASELINE[tree]
        rows.append("| %s | %s | %s | %s | %s | %.1f | %d |" % (
            c, med(loc), "" if isb else added(loc, b[0]), med(rem),
            "" if isb else added(rem, b[1]),
            statistics.median(rem) - statistics.median(loc), len(loc)))
    return rows, notes


def report_allocinfo(runs, venue):
    rows = ["| configuration | module sites | lines read | bytes | "
            "full read, us (min of 3 per boot) | per line, ns | added over 0 "
            "module sites, us | added per added line, ns | boots |",
            "|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for c in ITEMS["allocinfo"][0]:
        zero = []
        for n in (0,) + ALLOCINFO_N:
            ts, lines, nbytes, mod = [], set(), set(), set()
            for r in ok_runs(runs, "allocinfo", venue, c):
                a = r.get("allocinfo", {}).get(str(n))
                if not a or not a["reads"]:
                    continue
                ts.append(min(x["ns"] for x in a["reads"]) / 1000.0)
                lines.add(a["reads"][0]["lines"])
                nbytes.add(a["reads"][0]["bytes"])
                if "modlines" in a:
                    mod.add(a["modlines"])
            if n == 0:
                zero = ts
                zl = min(lines) if lines else 0
            if not ts:
                rows.append("| %s | %d | not measured, see below | | | | | | 0 |" % (c, n))
                continue
            ln = min(lines)
            addl = "-"
            if n and zero and ln > zl:
                addl = "%.1f" % (1000.0 * (statistics.median(ts) -
                                           statistics.median(zero)) / (ln - zl))
            rows.append("| %s | %d%s | %s | %s | %s | %.1f | %s | %s | %d |" % (
                c, n, "" if not mod or mod == {n} else
                " (module lines: %s)" % ",".join(map(str, sorted(mod))),
                "/".join(map(str, sorted(lines))),
                "/".join(map(str, sorted(nbytes))), med(ts),
                1000.0 * statistics.median(ts) / ln,
                "" if n == 0 else added(ts, zero), addl, len(ts)))
        notes += failures(runs, "allocinfo", venue, c)
    return rows, notes


def report_ioctl(runs, venue):
    rows = ["| call sites in all | whole text read, us | ioctl, first site, "
            "us | ioctl, last site, us | text / ioctl (first) | text / ioctl "
            "(last) | boots |", "|---|---|---|---|---|---|---|"]
    notes = []
    # The module sizes of the runs recorded, not of today's q-on.
    sizes = sorted({int(k) for r in ok_runs(runs, "ioctl", venue, "on")
                    for k in r.get("ioctl", {})}) or IOCTL_N
    for n in sizes:
        rd, fi, la, total, bad = [], [], [], set(), 0
        for r in ok_runs(runs, "ioctl", venue, "on"):
            a = r.get("ioctl", {}).get(str(n))
            if not a or not a["reads"] or not a["first"] or not a["last"]:
                continue
            total.add(a["total"])
            good = {}
            for which in ("first", "last"):
                site = a.get(which + "_site", "")
                f, _, ln = site.rpartition(":")
                # The answer must be the site asked for, file and line.
                ok = [x for x in a[which] if ln.isdigit() and
                      x["rc"] == 0 and x["line"] == int(ln) and
                      x.get("file", "-") not in ("", "-") and
                      f.endswith(x["file"])]
                bad += len(a[which]) - len(ok)
                good[which] = ok
            if not good["first"] or not good["last"]:
                continue
            rd.append(min(x["ns"] for x in a["reads"]) / 1000.0)
            fi.append(min(x["ns"] for x in good["first"]) / 1000.0)
            la.append(min(x["ns"] for x in good["last"]) / 1000.0)
        if not rd:
            rows.append("| %d | not measured | | | | | 0 |" % n)
            continue
        if bad:
            notes.append("%d ioctl calls at %s sites did not return the site "
                         "asked for." % (bad, "/".join(map(str, total))))
        m = statistics.median
        rows.append("| %s | %s | %s | %s | %.0f | %.1f | %d |" % (
            "/".join(map(str, sorted(total))), med(rd), med(fi), med(la),
            m(rd) / m(fi), m(rd) / m(la), len(rd)))
    notes += failures(runs, "ioctl", venue, "on")
    return rows, notes


def report_modload(runs, venue):
    rows = ["| configuration | load (all loads) | first load of each boot | "
            "added over baseline (all) | unload (all) | added over baseline "
            "| loads |", "|---|---|---|---|---|---|---|"]
    base = {}
    notes = []
    for c in ITEMS["modload"][0]:
        ld, first, ul = [], [], []
        for r in ok_runs(runs, "modload", venue, c):
            for x in r.get("modload", []):
                if x.get("load", {}).get("rc") == 0:
                    ld.append(x["load"]["ns"] / 1000.0)
                    if x["round"] == 0:
                        first.append(x["load"]["ns"] / 1000.0)
                if x.get("unload", {}).get("rc") == 0:
                    ul.append(x["unload"]["ns"] / 1000.0)
        tree = CONFIGS[c][2]
        isb = c == BASELINE[tree]
        if isb:
            base[tree] = (ld, ul)
        notes += failures(runs, "modload", venue, c)
        if not ld:
            rows.append("| %s | not measured, see below | | | | | 0 |" % c)
            continue
        b = base.get(tree, ([], []))
        rows.append("| %s | %s | %s | %s | %s | %s | %d |" % (
            c, med(ld), med(first), "" if isb else added(ld, b[0]), med(ul),
            "" if isb else added(ul, b[1]), len(ld)))
    return rows, notes


ITEM_TEXT = {
    "sites": ("kmalloc(64)+kfree with N distinct hot call sites",
              "Per kmalloc+kfree pair: fastest of 3 timed passes of "
              "`iterations` pairs per boot, batches of 32, site k%N for "
              "allocation k.  raw = the pass / iterations; null = the same "
              "loop over stub sites that allocate nothing (loop, indirect "
              "call, store, call of an empty free); net = raw - null.  "
              "\"added over baseline\": net median minus the same tree's "
              "baseline net median (off for this series, ml-off for 6.12), "
              "and as a percentage.  Cells: median (min-max) over boots.",
              report_sites),
    "xcpu": ("kmalloc and kfree on 2 vCPUs, objects freed on the other CPU",
             "Two kthreads (CPU 0 and CPU 1) each allocate `iterations` "
             "64-byte objects in batches of 32.  local: each frees its own "
             "batches; remote: each hands its batches to the other through a "
             "ring, so every object is freed on the CPU that did not "
             "allocate it.  Per object = (last end - first start) / objects "
             "(both threads).  QEMU runs both vCPUs in one host thread, in "
             "turn, so the time is the sum of both CPUs' work, not a "
             "parallel wall time.",
             report_xcpu),
    "allocinfo": ("/proc/allocinfo full read",
                  "A module with N call sites, each called once at load "
                  "with its 64-byte object kept (so each module line shows "
                  "64 bytes, 1 call), then /proc/allocinfo read to EOF with "
                  "64 KiB read()s, open to close, 3 times; the fastest of "
                  "the 3 per boot; median (min-max) over boots.  \"lines "
                  "read\" includes the header and vmlinux's own sites; "
                  "\"module sites 0\" is the kernel alone.",
                  report_allocinfo),
    "ioctl": ("One site by ioctl against the whole text",
              "A module sized so that the kernel has 4,000 or 50,000 call "
              "sites in all (each module site called once at load, its "
              "object kept).  Whole text: /proc/allocinfo read to EOF as in "
              "the allocinfo item.  ioctl: open, one ALLOCINFO_IOC_GET_AT "
              "from position 0 filtered by file name and line, close; for "
              "the first vmlinux site (the first record) and for the "
              "module's last site (after every other record).  Fastest of "
              "3 per boot, median (min-max) over boots; an answer counts only "
              "if it is the site asked for, file name and line.",
              report_ioctl),
    "modload": ("Module load and unload with 2000 call sites",
                "finit_module() of a module with 2000 kmalloc call sites "
                "(none called: the module's init does nothing), then "
                "delete_module(), 5 times per boot; times in us "
                "(icount: thousands of instructions).  Median (min-max) over "
                "all loads of all boots; the first load of a boot also "
                "separately.",
                report_modload),
}


NOT_RUN = {
    ("xcpu", "icount"):
        "Not measured: run with --xcpu-icount (the 6.1 kernels do not bring "
        "up their second CPU under -icount; see bench/scale/README.md).",
}

# Printed under a table.
VENUE_NOTES = {
    ("xcpu", "icount"):
        "Under -icount only the 6.12 kernels could be measured: this "
        "series' 6.1 kernels did not finish bringing up CPU 1 under "
        "-icount (q-off and q-on were killed after 180 s, q-dflt was not "
        "tried; bench/scale/README.md says what a -Os build of the same tree "
        "showed), while 6.12 boots two vCPUs under -icount in seconds.  So "
        "there is no icount figure for this series on two CPUs: see the "
        "host-clock table.  With two vCPUs the icount figures are not "
        "exactly repeatable (the round-robin switches between vCPUs depend "
        "on host events): compare the two boots' min-max.",
    ("sites", "icount"):
        "TCG has no cache model: under -icount the instructions per pair "
        "do not depend on N (1 differs only because the compiler drops the "
        "site counter's wrap-around for a single site).",
}


def report(data, items, venues):
    runs = data["runs"]
    m = data["meta"]
    out = ["# allocprof scale figures", "",
           "Kernels from %s (commit %s).  QEMU: %s; host %.0f MHz.  "
           "Invocations of scale.py (the later ones redid or added the items "
           "they name): %s." % (
               PERF, m.get("perf_describe"), m.get("qemu"),
               m.get("host_cpu_mhz", 0),
               "; ".join("`scale.py %s` at %s, tool %s" % (
                   " ".join(i["flags"]), i["started"], i["scale_commit"][:12])
                   for i in m.get("invocations", []))), "",
           "| kernel | .config sha1 | path |", "|---|---|---|"]
    for k, v in sorted(m.get("kernels", {}).items()):
        out.append("| %s | %s | %s |" % (k, v["config_sha1"][:12], v["path"]))
    out += ["", "| configuration | kernel | extra command line | what |",
            "|---|---|---|---|"]
    for n, c in CONFIGS.items():
        out.append("| %s | %s | %s | %s |" % (n, c[0], c[1] or "-", c[3]))
    out.append("")
    for item in items:
        title, text, fn = ITEM_TEXT[item]
        out += ["## %s" % title, "", text, ""]
        for venue in venues:
            out += ["### %s" % venue_title(venue), ""]
            if not any(r["item"] == item and r["venue"] == venue for r in runs):
                out += [NOT_RUN.get((item, venue), "Not measured here."), ""]
                continue
            rows, notes = fn(runs, venue)
            out += rows + [""]
            if (item, venue) in VENUE_NOTES:
                out += [VENUE_NOTES[(item, venue)], ""]
            if notes:
                out += ["Failures:", ""] + ["- " + n for n in notes] + [""]
            walls = [r["wall"] for r in runs
                     if r["item"] == item and r["venue"] == venue]
            if walls:
                out += ["Boots: %d, %.0f-%.0f s each (wall)." % (
                    len(walls), min(walls), max(walls)), ""]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="sites,xcpu,allocinfo,modload,ioctl",
                    help="comma-separated items")
    ap.add_argument("--venues", default="icount,host")
    ap.add_argument("--rounds", type=int, default=2,
                    help="boots of each configuration under icount (default 2)")
    ap.add_argument("--host-rounds", type=int, default=3,
                    help="boots of each configuration on the host clock (default 3)")
    ap.add_argument("--configs", help="comma-separated configuration names")
    ap.add_argument("--sites-iter", type=int, default=100000)
    ap.add_argument("--xcpu-iter", type=int, default=50000)
    ap.add_argument("--xcpu-rounds", type=int, default=5,
                    help="boots of each xcpu configuration on the host clock "
                    "(default 5)")
    ap.add_argument("--xcpu-icount", action="store_true",
                    help="also boot xcpu under icount (2 vCPUs under "
                    "-icount did not come up on QEMU 7.2: see README.md)")
    ap.add_argument("--xcpu-timeout", type=int,
                    help="timeout of the 2-vCPU boots (default 300 s)")
    ap.add_argument("--fresh", action="store_true",
                    help="start build/scale/scale.json anew")
    ap.add_argument("--redo", action="store_true",
                    help="boot again the selected items and configurations "
                    "even where scale.json has them (their old runs are "
                    "dropped)")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    items = args.only.split(",")
    venues = args.venues.split(",")
    for i in items:
        if i not in ITEMS:
            sys.exit("scale: unknown item %s" % i)
    os.makedirs(OUT, exist_ok=True)
    jpath = os.path.join(OUT, "scale.json")
    data = {"meta": {}, "runs": []}
    if os.path.exists(jpath) and not args.fresh:
        data = json.load(open(jpath))

    if not args.report_only:
        wanted = {CONFIGS[c][0] for i in items for c in ITEMS[i][0]
                  if not args.configs or c in args.configs.split(",")}
        for k, d in KERNELS.items():
            if k in wanted and not os.path.exists(os.path.join(d, IMAGE)):
                sys.exit("scale: %s not built (%s): run make bench first"
                         % (k, d))
        old = data.get("meta", {})
        data["meta"] = meta(sys.argv[1:])
        if "invocations" not in old and "flags" in old:
            old["invocations"] = [{k: old[k] for k in
                                   ("flags", "started", "scale_commit")}]
        data["meta"]["invocations"] = old.get("invocations", []) + [
            {"flags": sys.argv[1:], "started": data["meta"]["started"],
             "scale_commit": data["meta"]["scale_commit"]}]
        only = set(args.configs.split(",")) if args.configs else None
        todo = {i: [c for c in ITEMS[i][0] if not only or c in only]
                for i in items}
        # Modules: each kernel gets the ones its configurations need.
        need = {}
        for i in items:
            for c in todo[i]:
                need.setdefault(CONFIGS[c][0], set()).update(ITEMS[i][3])
        kos = {}
        for k, names in sorted(need.items()):
            kos[k] = build_modules(k, sorted(names))
        tool = build_tool()
        if args.redo:
            data["runs"] = [r for r in data["runs"] if not (
                r["item"] in todo and r["config"] in todo[r["item"]] and
                r["venue"] in venues)]
        done = {(r["item"], r["venue"], r["config"], r["round"])
                for r in data["runs"] if r["rc"] == 0}
        def rounds_of(item, venue):
            if item == "xcpu":
                if venue == "icount":
                    return args.rounds if args.xcpu_icount else 0
                return args.xcpu_rounds
            return args.rounds if venue == "icount" else args.host_rounds

        rounds = max(rounds_of(i, v) for i in items for v in venues)
        for rnd in range(rounds):
            for venue in venues:
                for item in items:
                    if rnd >= rounds_of(item, venue):
                        continue
                    _, cpus, mem, mods, cmdline, timeout = ITEMS[item]
                    if item == "xcpu" and args.xcpu_timeout:
                        timeout = args.xcpu_timeout
                    for c in todo[item]:
                        if (item, venue, c, rnd) in done:
                            continue
                        kernel, extra, _, _ = CONFIGS[c]
                        append = cmdline
                        if item == "sites":
                            append += " scale_iter=%d" % args.sites_iter
                        if item == "xcpu":
                            append += " scale_iter=%d" % args.xcpu_iter
                        append = (extra + " " + append).strip()
                        files = [tool] + [kos[kernel][m] for m in mods]
                        t0 = time.time()
                        rc, text = boot(venue, kernel, files, append, cpus,
                                        mem, timeout)
                        r = parse(item, text)
                        r.update(item=item, venue=venue, config=c, round=rnd,
                                 rc=rc, wall=round(time.time() - t0, 1),
                                 cmdline=append)
                        if rc != 0:
                            r["console_tail"] = text[-3000:]
                        log("%s/%s/%s round %d: rc %d, %.0f s%s" % (
                            item, venue, c, rnd, rc, r["wall"],
                            (" fails: " + "; ".join(r["fails"])) if r["fails"] else ""))
                        data["runs"] = [x for x in data["runs"] if (
                            x["item"], x["venue"], x["config"], x["round"]) !=
                            (item, venue, c, rnd)] + [r]
                        with open(jpath + ".new", "w") as f:
                            json.dump(data, f, indent=1)
                        os.replace(jpath + ".new", jpath)

    items_rep = [i for i in ITEMS if any(r["item"] == i for r in data["runs"])]
    venues_rep = [v for v in ("icount", "host")
                  if any(r["venue"] == v for r in data["runs"])]
    text = report(data, items_rep, venues_rep)
    with open(os.path.join(OUT, "scale.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
