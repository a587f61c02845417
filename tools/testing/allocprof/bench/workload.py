#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Allocation profiling workloads: boot, run, report.

    workload.py [--rounds N] [--rounds-smp2 N] [--venues icount,smp2]
                [--only PREFIXES] [--with-m2] [--loops N] [--frounds N]
                [--execs N] [--guest-args ARGS] [--qemu-args ARGS]
                [--perf DIR] [--append] [--only-report]

Boots, interleaved (A B C D E A B C D E ...), the kernels that run.py
builds in the tree at --perf (default: this one): this series with
profiling compiled out (row 1), compiled in and disabled by default (2),
enabled by default (3), and mainline 6.12 compiled out (M1) and compiled
in and booted with sysctl.vm.mem_profiling=1 (M3; M2, booted =0, with
--with-m2).  Each boot runs workload/guest.sh: a hackbench-like program
(the upstream series' -s 512 -l 200 -g 15 -f 25 -P with the loops scaled
down, pipes since the kernels have no CONFIG_NET), a file creation and
deletion storm on tmpfs and a fork+exec+wait loop.  See workload/README.md.

Venues:
  icount  QEMU TCG x86_64, 1 vCPU, -icount shift=0,sleep=off: the guest
          clock counts guest instructions (1 ns = 1 instruction).
  smp2    QEMU TCG x86_64, 2 vCPUs, host clock: QEMU 7.2 does not bring up
          a second vCPU under -icount (README.md), so the 2-vCPU figures
          are host time and as noisy as the host.
  icount2 2 vCPUs under -icount, for when that works (it hangs in the
          secondary CPU's bring-up here).

Writes build/workload/workload.json (every boot, the commit of --perf,
kernel paths, each kernel's .config sha1, the flags) and workload.md.
Runs QEMU one at a time under nice -n 10; builds no kernel.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from benchlib import HERE, TOP, T, git, host_tsc_khz, logger, read_config, sha1

WL = os.path.join(HERE, "workload")
OUT = os.path.join(TOP, "build/workload")
BIN = os.path.join(OUT, "bin")
NICE = ["nice", "-n", "10"]
PROGS = ("wl-hackbench", "wl-files", "wl-forkexec", "wl-true")

# (row, kernel key, extra command line, description)
CONFIGS = [
    ("1 baseline", "off", "", "this series, profiling compiled out"),
    ("2 disabled", "dflt", "",
     "this series, compiled in, disabled by default"),
    ("3 enabled", "on", "", "this series, compiled in, enabled by default"),
    ("M1 6.12 baseline", "ml-off", "", "mainline 6.12, compiled out"),
    ("M2 6.12 disabled", "ml-on", "sysctl.vm.mem_profiling=0",
     "mainline 6.12, compiled in, booted =0"),
    ("M3 6.12 enabled", "ml-on", "sysctl.vm.mem_profiling=1",
     "mainline 6.12, compiled in, booted =1"),
]

# What /proc/sys/vm/mem_profiling must read in each row ("none": absent).
EXPECT_STATE = {"1": "none", "2": "0", "3": "1", "M1": "none", "M2": "0",
                "M3": "1"}

# venue: (vCPUs, icount, description)
VENUES = {
    "icount": (1, True, "QEMU TCG x86_64, 1 vCPU, -icount shift=0,sleep=off "
               "(guest ns = guest instructions)"),
    "smp2": (2, False, "QEMU TCG x86_64, 2 vCPUs, host clock (no -icount)"),
    "icount2": (2, True, "QEMU TCG x86_64, 2 vCPUs, -icount shift=0,sleep=off"),
}

# workload: (figure, label, unit per boot)
FIGURES = [
    ("hackbench", "ns", "hackbench, total time", "ms", 1e-6),
    ("hackbench", "ns_per_msg", "hackbench, per message", "ns", 1.0),
    ("files", "ns_per_file", "file storm, per file (create+write+close+unlink)",
     "ns", 1.0),
    ("forkexec", "ns_per_exec", "fork+exec+wait, per exec", "ns", 1.0),
]


log = logger("workload")


def kernel_dirs(perf):
    return {
        "off": os.path.join(perf, "build/bench/out/q-off"),
        "dflt": os.path.join(perf, "build/bench/out/q-dflt"),
        "on": os.path.join(perf, "build/bench/out/q-on"),
        "ml-off": os.path.join(perf, "build/bench-6.12/out-off"),
        "ml-on": os.path.join(perf, "build/bench-6.12/out-on"),
    }


def image(kdir):
    return os.path.join(kdir, "arch/x86/boot/bzImage")


def config_opts(kdir, names):
    have = read_config(os.path.join(kdir, ".config"))
    return {n: have.get(n, "absent") for n in names}


def build_progs():
    os.makedirs(BIN, exist_ok=True)
    subprocess.check_call(["make", "-s", "-C", WL, "O=" + BIN])
    return [os.path.join(BIN, p) for p in PROGS]


def boot(kernel, progs, append, venue, timeout, qemu_args="",
         script="guest.sh"):
    cpus, icount, _ = VENUES[venue]
    env = dict(os.environ)
    if icount:
        # bench/icount/qemu-system-x86_64 adds -icount shift=0,sleep=off.
        env["PATH"] = os.path.join(HERE, "icount") + ":" + env["PATH"]
        khz = 1000000
    else:
        khz = host_tsc_khz()
    append = "tsc_early_khz=%d tsc=reliable %s" % (khz, append)
    cmd = NICE + [os.path.join(T, "qemu-run.sh"), "-k", kernel,
                  "-s", os.path.join(WL, script), "-c", str(cpus),
                  "-m", "512", "-t", str(timeout), "-a", append]
    if qemu_args:
        cmd += ["-x", qemu_args]
    for p in progs:
        cmd += ["-f", p]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    return p.returncode, p.stdout


def kv(s):
    return {k: v for k, v in re.findall(r"(\w+)=(\S+)", s)}


def parse(text):
    res = {}
    for line in text.splitlines():
        m = re.match(r"^WL-RESULT (\w+) (.*)$", line)
        if m:
            d = {}
            for k, v in kv(m.group(2)).items():
                try:
                    d[k] = float(v) if "." in v else int(v)
                except ValueError:
                    d[k] = v
            if m.group(1) == "hackbench":
                d["ns_per_msg"] = d["ns"] / d["msgs"]
            res[m.group(1)] = d
        m = re.match(r"^WL-DIAG (\w+) (.*)$", line)
        if m:
            res.setdefault("diag", {})[m.group(1)] = {
                k: int(v) for k, v in kv(m.group(2)).items()}
        m = re.match(r"^WL-STATE (.*)$", line)
        if m:
            res["state"] = kv(m.group(1))
        m = re.match(r"^WL-FS (.*)$", line)
        if m:
            res["fs"] = m.group(1).strip()
    return res


# --------------------------------------------------------------------------
# Report


def stats(vals):
    return (statistics.median(vals), min(vals), max(vals), len(vals))


def fmt(v, scale, sign=""):
    v = v * scale
    return ("%" + sign + (".1f" if abs(v) < 1e5 else ".0f")) % v


def summarise(runs, venue, cfgs):
    out = []
    for wl, key, title, unit, scale in FIGURES:
        s = {}
        for name, _, _, _ in cfgs:
            vals = [r[wl][key] for r in runs if r["venue"] == venue and
                    r["config"] == name and wl in r and not r.get("error")]
            if vals:
                s[name] = stats(vals)
        if not s:
            continue
        out += ["### %s (%s)" % (title, unit), "",
                "| configuration | median (min-max) | spread | n | added "
                "over the same tree's baseline | added % |",
                "|---|---|---|---|---|---|"]
        for name, _, _, desc in cfgs:
            if name not in s:
                out.append("| %s | not measured | | 0 | | |" % name)
                continue
            med, lo, hi, n = s[name]
            base = s.get("M1 6.12 baseline" if name.startswith("M")
                         else "1 baseline")
            if base and base is not s[name]:
                b = base[0]
                add = "**%s**" % fmt(med - b, scale, "+")
                addp = "%+.2f%%" % (100.0 * (med - b) / b)
            else:
                add = addp = ""
            out.append("| %s | %s (%s-%s) | %.2f%% | %d | %s | %s |" % (
                name, fmt(med, scale), fmt(lo, scale), fmt(hi, scale),
                100.0 * (hi - lo) / med, n, add, addp))
        out.append("")
    return out


def per_boot(runs, venue):
    diag = any("diag" in r for r in runs)
    out = ["| round | configuration | mem_profiling | hackbench ms | "
           "ns/msg | ns/file | ns/exec | host s |" +
           (" context switches hackbench / files / forkexec |" if diag else ""),
           "|---|---|---|---|---|---|---|---|" + ("---|" if diag else "")]
    for r in runs:
        if r["venue"] != venue:
            continue
        if r.get("error"):
            out.append("| %d | %s | FAILED rc %s | | | | | %.0f |" % (
                r["round"], r["config"], r["rc"], r["wall"]))
            continue
        cell = lambda wl, k, sc: fmt(r[wl][k], sc) if wl in r else "-"
        line = "| %d | %s | %s | %s | %s | %s | %s | %.0f |" % (
            r["round"], r["config"], r.get("state", {}).get("mem_profiling"),
            cell("hackbench", "ns", 1e-6), cell("hackbench", "ns_per_msg", 1),
            cell("files", "ns_per_file", 1), cell("forkexec", "ns_per_exec", 1),
            r["wall"])
        if diag:
            line += " %s |" % " / ".join(
                str(r.get("diag", {}).get(w, {}).get("ctxt", "-"))
                for w in ("hackbench", "files", "forkexec"))
        out.append(line)
    return out


def report(data, cfgs):
    meta = data["meta"]
    runs = data["runs"]
    p = meta.get("params", {})
    rep = ["# allocprof workloads", "",
           "Kernels from %s at commit %s; workload commit %s; flags %s." % (
               meta.get("perf"), meta.get("perf_commit"),
               meta.get("commit"), ", then ".join(
                   "`%s`" % " ".join(f) for f in
                   meta.get("flags_earlier", []) + [meta.get("flags", [])])),
           "",
           "Kernels (.config sha1): " + ", ".join(
               "%s %s" % (k, v["config_sha1"][:12])
               for k, v in sorted(meta.get("kernels", {}).items())) + ".", "",
           "Workloads per boot (after one small untimed warm-up pass each): "
           "`wl-hackbench -s %s -l %s -g %s -f %s -P %s` "
           "(upstream: -s 512 -l 200 -g 15 -f 25 -P, socketpairs); "
           "`wl-files -j %s -n %s -r %s -b %s` on tmpfs (%s); "
           "`wl-forkexec -j %s -n %s` of a static binary." % (
               p.get("size"), p.get("loops"), p.get("groups"), p.get("fds"),
               "-p (pipes)" if p.get("ipc") == "pipe" else "(socketpairs)",
               p.get("fprocs"), p.get("files"), p.get("frounds"),
               p.get("fbytes"), meta.get("tmpfs", "?"),
               p.get("eprocs"), p.get("execs")), "",
           "\"added\": the configuration's median minus the median of the "
           "same tree's baseline (rows 2-3 over row 1, M2-M3 over M1), then "
           "as a percentage of it.  spread = (max-min)/median.", ""]
    for venue in meta.get("venues", []):
        rep += ["## %s" % VENUES[venue][2], ""]
        rep += summarise(runs, venue, cfgs)
        rep += ["### Per boot", ""] + per_boot(runs, venue) + [""]
    return "\n".join(rep) + "\n"


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--venues", default="icount,smp2")
    ap.add_argument("--rounds-smp2", type=int,
                    help="rounds for the smp2 venue (default: --rounds)")
    ap.add_argument("--only", help="comma-separated row prefixes (1,2,3,M1,M3)")
    ap.add_argument("--with-m2", action="store_true")
    ap.add_argument("--perf", default=TOP)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--loops", type=int, default=50)
    ap.add_argument("--groups", type=int, default=15)
    ap.add_argument("--fds", type=int, default=25)
    ap.add_argument("--ipc", default="pipe")
    ap.add_argument("--fprocs", type=int, default=2)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--frounds", type=int, default=10)
    ap.add_argument("--fbytes", type=int, default=4096)
    ap.add_argument("--eprocs", type=int, default=2)
    ap.add_argument("--execs", type=int, default=300)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--guest-args", default="norandmaps",
                    help="kernel arguments for every boot (default: no "
                    "address space randomisation of user space, whose "
                    "random layouts change instruction counts)")
    ap.add_argument("--qemu-args",
                    default="-rtc base=2025-01-01T00:00:00,clock=vm",
                    help="QEMU arguments for every boot (default: the same "
                    "wall clock at every boot, advancing with the guest)")
    ap.add_argument("--append", action="store_true",
                    help="add to build/workload/workload.json")
    ap.add_argument("--only-report", action="store_true")
    ap.add_argument("--script", default="guest.sh",
                    help="guest script in workload/ (diag.sh: also context "
                    "switches per workload)")
    ap.add_argument("--name", default="workload",
                    help="write build/workload/NAME.json and NAME.md")
    ap.add_argument("--complete-rounds", action="store_true",
                    help="with --only-report: leave out the boots of a "
                    "round that not every configuration finished (a run "
                    "stopped early)")
    args = ap.parse_args()

    cfgs = [c for c in CONFIGS if args.with_m2 or not c[0].startswith("M2")]
    if args.only:
        pre = args.only.split(",")
        cfgs = [c for c in cfgs if c[0].split()[0] in pre]
    venues = args.venues.split(",")
    os.makedirs(OUT, exist_ok=True)
    jpath = os.path.join(OUT, args.name + ".json")
    mpath = os.path.join(OUT, args.name + ".md")

    if args.only_report:
        data = json.load(open(jpath))
        if args.complete_rounds:
            names = {c[0] for c in cfgs}
            done = {}
            for r in data["runs"]:
                done.setdefault((r["venue"], r["round"]), set()).add(r["config"])
            data["runs"] = [r for r in data["runs"]
                            if done[(r["venue"], r["round"])] >= names]
            data["meta"]["report_flags"] = sys.argv[1:]
        open(mpath, "w").write(report(data, cfgs))
        print(open(mpath).read())
        return

    dirs = kernel_dirs(args.perf)
    used = sorted({k for _, k, _, _ in cfgs})
    kernels = {}
    for k in used:
        img = image(dirs[k])
        if not os.path.exists(img):
            sys.exit("workload: no kernel %s" % img)
        kernels[k] = {
            "image": img, "image_sha1": sha1(img),
            "config_sha1": sha1(os.path.join(dirs[k], ".config")),
            "options": config_opts(dirs[k], [
                "CONFIG_MEM_ALLOC_PROFILING",
                "CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT",
                "CONFIG_SHMEM", "CONFIG_TMPFS", "CONFIG_NET", "CONFIG_UNIX",
                "CONFIG_SMP", "CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE",
                "CONFIG_JUMP_LABEL", "CONFIG_SLUB", "CONFIG_HZ"]),
        }
    shmem = {k: v["options"]["CONFIG_SHMEM"] for k, v in kernels.items()}
    tmpfs = ("shmem" if all(v == "y" for v in shmem.values()) else
             "ramfs underneath: CONFIG_SHMEM is not set" if
             all(v != "y" for v in shmem.values()) else "mixed: %s" % shmem)
    progs = build_progs()
    params = {k: getattr(args, k) for k in (
        "size", "loops", "groups", "fds", "ipc", "fprocs", "files", "frounds",
        "fbytes", "eprocs", "execs")}
    wl_args = " ".join(["wl_%s=%s" % (k, v) for k, v in sorted(params.items())]
                       + args.guest_args.split())
    qemu = subprocess.check_output(["qemu-system-x86_64", "--version"],
                                   universal_newlines=True).splitlines()[0]
    meta = {"commit": git(TOP, "describe", "--always", "--dirty"),
            "perf": args.perf,
            "perf_commit": git(args.perf, "describe", "--always", "--dirty"),
            "perf_head": git(args.perf, "rev-parse", "HEAD"),
            "kernels": kernels, "flags": sys.argv[1:], "params": params,
            "venues": venues, "tmpfs": tmpfs, "qemu": qemu,
            "guest_args": args.guest_args, "qemu_args": args.qemu_args,
            "script": args.script,
            "progs_sha1": {os.path.basename(p): sha1(p) for p in progs}}

    runs = []
    first = 0
    if args.append and os.path.exists(jpath):
        old = json.load(open(jpath))
        runs = old["runs"]
        # The new rounds continue the old numbering, so that a round
        # stays one interleaved pass over the configurations.
        first = 1 + max([r["round"] for r in runs] + [-1])
        # Rounds added to a run must boot the run's kernels; the run then
        # keeps the commit its kernels were built from.
        for k, v in kernels.items():
            was = old["meta"]["kernels"].get(k, {}).get("image_sha1")
            if was and was != v["image_sha1"]:
                sys.exit("workload: --append: kernel %s is not the one of "
                         "%s (image sha1 %s, was %s)" % (
                             k, jpath, v["image_sha1"], was))
        meta["appended_by"] = (old["meta"].get("appended_by", []) +
                               [meta["commit"]])
        for key in ("commit", "perf_commit", "perf_head"):
            meta[key] = old["meta"][key]
        meta["venues"] = list(dict.fromkeys(old["meta"].get("venues", []) +
                                            venues))
        meta["flags_earlier"] = (old["meta"].get("flags_earlier", []) +
                                 [old["meta"].get("flags")])
    for venue in venues:
        rounds = args.rounds
        if venue == "smp2" and args.rounds_smp2:
            rounds = args.rounds_smp2
        for rnd in range(first, first + rounds):
            for name, k, extra, _ in cfgs:
                append = ("%s %s" % (extra, wl_args)).strip()
                t0 = time.time()
                rc, text = boot(kernels[k]["image"], progs, append, venue,
                                args.timeout, args.qemu_args, args.script)
                r = parse(text)
                r.update(venue=venue, config=name, kernel=k, round=rnd, rc=rc,
                         wall=time.time() - t0, append=append)
                want = EXPECT_STATE[name.split()[0]]
                got = r.get("state", {}).get("mem_profiling")
                missing = [w for w in ("hackbench", "files", "forkexec")
                           if w not in r]
                if rc != 0 or missing or got != want:
                    r["error"] = "rc %d, missing %s, mem_profiling %s (want %s)" % (
                        rc, missing, got, want)
                    r["console"] = text[-4000:]
                    log("%s/%s round %d FAILED: %s" % (venue, name, rnd,
                                                       r["error"]))
                else:
                    if "fs" in r and "fs" not in meta:
                        meta["fs"] = r["fs"]
                    log("%s/%s round %d: hackbench %.1f ms, %.1f ns/file, "
                        "%.0f ns/exec (%.0f s)" % (
                            venue, name, rnd, r["hackbench"]["ns"] / 1e6,
                            r["files"]["ns_per_file"],
                            r["forkexec"]["ns_per_exec"], r["wall"]))
                runs.append(r)
                with open(jpath, "w") as f:
                    json.dump({"meta": meta, "runs": runs}, f, indent=1)
                open(mpath, "w").write(report({"meta": meta, "runs": runs},
                                              cfgs))
    print(open(mpath).read())


if __name__ == "__main__":
    main()
