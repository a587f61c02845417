#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make distro: gather the figures of the builds and boots.

    results.py results   write build/distro/results.json and results.txt
    results.py report    print the Markdown section for BENCHMARKS.md
                         (from results.json; run "results" first)

Inputs (made by distro.sh): build/distro*/ (vmlinux, .config,
distro-build-times, build-errors.txt, build-warnings.txt, modules.order),
build/distro-logs/boot-TAG.log (DISTRO-* lines of guest.sh, PASS/FAIL/SKIP
lines of the guest checks) and boot-TAG.host (host load average), and
build/distro-logs/modset.txt.
"""
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../bench"))
from benchlib import TOP, section_bytes, size_of  # noqa: E402

B = os.path.join(TOP, "build")
L = os.environ.get("DISTRO_LOGS", os.path.join(B, "distro-logs"))
OUT = os.environ.get("DISTRO_OUT", os.path.join(B, "distro"))
KERNELS = {"series": "distro", "base": "distro-base", "ml": "distro-ml"}
BOOTS = ("series-on", "series-off", "series-icount", "base", "ml-on",
         "ml-icount")
# sizeof(struct alloc_tag) and of its per-CPU counters (bytes, calls), the
# same in the series and in mainline 6.12 on 64-bit.
TAG_BYTES = 40
COUNTER_BYTES = 16
# Objects built into the comparison kernels' vmlinux only (configs/
# builtin.config: the virtio drivers are modules in Debian's config, so in
# the series kernel): subtracted from the base before text/data growth.
BUILTIN_ONLY = [
    "drivers/virtio/virtio.o", "drivers/virtio/virtio_ring.o",
    "drivers/virtio/virtio_pci_modern_dev.o",
    "drivers/virtio/virtio_pci_legacy_dev.o",
    "drivers/virtio/virtio_pci_common.o", "drivers/virtio/virtio_pci_legacy.o",
    "drivers/virtio/virtio_pci_modern.o", "drivers/block/virtio_blk.o",
    "drivers/net/virtio_net.o", "drivers/net/net_failover.o",
    "net/core/failover.o",
]
# What counts as a splat on the console (as in ../check.sh).
SPLAT = re.compile(
    r"WARNING:|BUG:|KASAN|Kernel panic|Oops|possible recursive locking|"
    r"inconsistent lock state|possible circular locking|suspicious RCU usage|"
    r"rcu_sched detected stalls|rcu: INFO|kernel BUG at|slab error in|"
    r"Slab corruption|alloc_tag: .*(not cleared|charged twice|without a tag|"
    r"unknown tag)")


def build_info(kind):
    out = os.path.join(B, KERNELS[kind])
    r = {"folder": out, "built": os.path.exists(os.path.join(out, ".distro-built"))}
    sessions = []
    p = os.path.join(out, "distro-build-times")
    if os.path.exists(p):
        for line in open(p):
            f = line.split()
            if len(f) >= 6:
                sessions.append({"start": int(f[0]), "end": int(f[1]),
                                 "status": int(f[2]), "wall": float(f[3]),
                                 "user": float(f[4]), "sys": float(f[5])})
    r["sessions"] = sessions
    r["wall_s"] = sum(s["wall"] for s in sessions)
    r["cpu_s"] = sum(s["user"] + s["sys"] for s in sessions)
    kos = 0
    for _, _, files in os.walk(out):
        kos += sum(1 for f in files if f.endswith(".ko"))
    r["ko"] = kos
    mo = os.path.join(out, "modules.order")
    r["modules_order"] = sum(1 for _ in open(mo)) if os.path.exists(mo) else 0
    for name in ("build-errors.txt", "build-warnings.txt"):
        p = os.path.join(out, name)
        r[name.split(".")[0]] = open(p).read().splitlines() if os.path.exists(p) else []
    vm = os.path.join(out, "vmlinux")
    if os.path.exists(vm):
        r["size"] = size_of(vm)
        r["alloc_tags_section"] = section_bytes(vm, "alloc_tags")
        r["percpu_section"] = section_bytes(vm, ".data..percpu")
        bz = os.path.join(out, "arch/x86/boot/bzImage")
        r["bzImage"] = os.path.getsize(bz) if os.path.exists(bz) else None
    p = os.path.join(out, "include/config/kernel.release")
    r["release"] = open(p).read().strip() if os.path.exists(p) else None
    p = os.path.join(out, "config-diff.txt")
    r["config_diff"] = open(p).read().splitlines() if os.path.exists(p) else []
    return r


def builtin_only_size():
    tot = {"text": 0, "data": 0, "bss": 0}
    found = []
    for o in BUILTIN_ONLY:
        p = os.path.join(B, KERNELS["base"], o)
        s = size_of(p) if os.path.exists(p) else None
        if s:
            found.append(o)
            for k in tot:
                tot[k] += s[k]
    return tot, found


def cpus(spec):
    n = 0
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            n += int(b) - int(a) + 1
        elif part:
            n += 1
    return n


def parse_boot(tag):
    path = os.path.join(L, "boot-%s.log" % tag)
    if not os.path.exists(path):
        return None
    text = open(path, errors="replace").read()
    r = {"log": path, "mem": {}, "sites": {}, "modsites": {}, "modules": {},
         "mounts": {}, "reads": [], "dmesg": [], "aisites": {}, "checks": [],
         "other": {}}
    m = re.findall(r"^ALLOCPROF-GUEST-EXIT=(\d+)$", text, re.M)
    r["exit"] = int(m[-1]) if m else None
    r["done"] = "DISTRO-DONE" in text
    for line in text.splitlines():
        if re.match(r"^(PASS|FAIL|SKIP): ", line):
            r["checks"].append(line)
            continue
        if SPLAT.search(line):
            r.setdefault("splats", []).append(line)
        if not line.startswith("DISTRO-"):
            continue
        key, _, rest = line[len("DISTRO-"):].partition(" ")
        if key == "MEM":
            stage, kv = rest.split(" ", 1)
            k, v = kv.split("=", 1)
            r["mem"].setdefault(stage, {})[k] = int(v) if v.isdigit() else v
        elif key == "SITES":
            stage, kvs = rest.split(" ", 1)
            r["sites"][stage] = {k: int(v) for k, v in
                                 (x.split("=") for x in kvs.split())}
        elif key == "MODSITES":
            stage, kv = rest.split(" ", 1)
            k, v = kv.split("=")
            r["modsites"].setdefault(stage, {})[k] = int(v)
        elif key == "AISITE":
            stage, l = rest.split(" ", 1)
            r["aisites"].setdefault(stage, []).append(l.strip())
        elif key == "MODULE":
            name, _, st = rest.partition(" ")
            r["modules"][name] = st
        elif key == "MOUNT":
            f = rest.split(" ", 2)
            r["mounts"][f[0]] = " ".join(f[1:])
        elif key == "READ":
            if rest.strip() == "none":
                continue
            r["reads"].append({k: int(v) for k, v in
                               (x.split("=") for x in rest.split())})
        elif key == "DMESG":
            r["dmesg"].append(rest)
        elif key == "CPUS":
            kv = dict(x.split("=") for x in rest.split())
            r["possible"] = kv["possible"]
            r["npossible"] = cpus(kv["possible"])
        else:
            r["other"][key] = rest
    # The kernel's own lines.
    for l in r["dmesg"] + [r["other"].get("SYSRQM", "")]:
        m = re.search(r"(\d+) allocation call sites \((\d+) bytes of tags, "
                      r"(\d+) of per-CPU counters\), profiling (.*)$", l)
        if m:
            r["boot_sites"] = {"sites": int(m.group(1)), "tags": int(m.group(2)),
                               "counters": int(m.group(3)), "state": m.group(4)}
        m = re.search(r"page tags: (.*)$", l)
        if m:
            r["page_tags"] = m.group(1)
            mb = re.match(r"(\d+) bytes", m.group(1))
            r["page_tag_bytes"] = int(mb.group(1)) if mb else 0
        m = re.search(r"allocated (\d+) bytes of page_ext", l)
        if m:
            r["page_ext_bytes"] = int(m.group(1))
        m = re.search(r"Memory: (\d+)K/(\d+)K available \((\d+)K kernel code, "
                      r"(\d+)K rwdata, (\d+)K rodata, (\d+)K init, (\d+)K bss, "
                      r"(\d+)K reserved", l)
        if m:
            r["memory_line"] = dict(zip(
                ("avail", "total", "code", "rwdata", "rodata", "init", "bss",
                 "reserved"), (int(x) for x in m.groups())))
        m = re.search(r"percpu: Embedded (\d+) pages/cpu s(\d+) r(\d+) d(\d+) u(\d+)", l)
        if m:
            r["percpu_embedded"] = dict(zip(("pages", "static", "reserved",
                                             "dynamic", "unit"),
                                            (int(x) for x in m.groups())))
    meta = re.compile(r"metadata: (\d+) bytes \(([\d.]+)% of RAM\): vmlinux tags "
                      r"(\d+), their per-CPU counters (\d+), page tags (\d+), "
                      r"slab extension vectors (-?\d+), per-CPU tag vectors (-?\d+)")
    for src, l in [("boot", x) for x in r["dmesg"]] + \
            [("sysrq", r["other"].get("SYSRQM", ""))]:
        m = meta.search(l)
        if m and src not in r.get("metadata", {}):
            # The first in the boot log is the boot's own report.
            r.setdefault("metadata", {})[src] = dict(zip(
                ("total", "pct", "tags", "counters", "page_tags", "slab_vectors",
                 "percpu_vectors"),
                [int(m.group(1)), float(m.group(2))] + [int(x) for x in m.groups()[2:]]))
    if r["reads"]:
        per = [x["ns_per_read"] for x in r["reads"]]
        r["read_median_ns"] = int(statistics.median(per))
        r["read_min_ns"] = min(per)
        r["read_lines"] = r["reads"][-1]["lines"]
        r["read_bytes"] = r["reads"][-1]["bytes"]
    p = os.path.join(L, "boot-%s.host" % tag)
    if os.path.exists(p):
        f = open(p).read().split()
        r["host_load"] = f[1:4] + f[5:8]
        if len(f) >= 5:
            r["boot_wall_s"] = int(f[4]) - int(f[0])
    r["pass"] = sum(1 for c in r["checks"] if c.startswith("PASS"))
    r["fail"] = sum(1 for c in r["checks"] if c.startswith("FAIL"))
    r["skip"] = sum(1 for c in r["checks"] if c.startswith("SKIP"))
    return r


def derive(res):
    """The figures of issue 17 item 3, from the raw results."""
    d = {}
    on = res["boots"].get("series-on")
    if on and on.get("sites"):
        st = on["sites"].get("B") or on["sites"].get("A")
        n = on.get("npossible", 0)
        d["sites_total"] = st["total"]
        d["sites_vmlinux"] = st["vmlinux"]
        d["sites_modules"] = st["modules"]
        d["possible_cpus"] = n
        d["tags_vmlinux"] = st["vmlinux"] * TAG_BYTES
        d["tags_modules"] = st["modules"] * TAG_BYTES
        d["counters_vmlinux"] = st["vmlinux"] * COUNTER_BYTES * n
        d["counters_modules"] = st["modules"] * COUNTER_BYTES * n
        d["page_tags"] = on.get("page_tags")
        d["page_tag_bytes"] = on.get("page_tag_bytes")
        meta = on.get("metadata", {})
        if "sysrq" in meta:
            d["metadata_after_modules"] = meta["sysrq"]
            # show_mem() counts vmlinux tags only: add the modules'.
            total = meta["sysrq"]["total"] + d["tags_modules"] + d["counters_modules"]
            d["total_with_modules"] = total
            memtotal = on["mem"].get("B", on["mem"].get("A", {})).get("MemTotal")
            if memtotal:
                d["total_pct_of_memtotal"] = 100.0 * total / (memtotal * 1024)
        if "boot" in meta:
            d["metadata_at_boot"] = meta["boot"]
    sb, bb = res["builds"]["series"], res["builds"]["base"]
    if sb.get("size") and bb.get("size"):
        extra, found = builtin_only_size()
        g = {}
        for k in ("text", "data", "bss"):
            g[k] = sb["size"][k] - bb["size"][k]
            g[k + "_adj"] = sb["size"][k] - (bb["size"][k] - extra[k])
            base_adj = bb["size"][k] - extra[k]
            g[k + "_adj_pct"] = 100.0 * g[k + "_adj"] / base_adj if base_adj else None
        g["builtin_only"] = extra
        g["builtin_only_objects"] = found
        d["growth"] = g
    return d


def results():
    res = {"builds": {k: build_info(k) for k in KERNELS},
           "boots": {}}
    for t in BOOTS:
        b = parse_boot(t)
        if b:
            res["boots"][t] = b
    p = os.path.join(L, "modset.txt")
    res["modset"] = open(p).read().splitlines() if os.path.exists(p) else []
    res["derived"] = derive(res)
    out = OUT
    os.makedirs(out, exist_ok=True)
    json.dump(res, open(os.path.join(out, "results.json"), "w"), indent=1)
    txt = text(res)
    open(os.path.join(out, "results.txt"), "w").write(txt)
    print(txt, end="")


def hms(s):
    s = int(s)
    return "%dh%02dm" % (s // 3600, s // 60 % 60)


def text(res):
    o = []
    for k, b in res["builds"].items():
        o.append("build %s: %s, release %s, %d session(s), wall %s, cpu %s, "
                 "%d .ko of %d in modules.order, %d error lines, %d warnings"
                 % (k, "complete" if b["built"] else "NOT complete",
                    b.get("release"), len(b["sessions"]), hms(b["wall_s"]),
                    hms(b["cpu_s"]), b["ko"], b["modules_order"],
                    len(b["build-errors"]), len(b["build-warnings"])))
        if b.get("size"):
            o.append("  size %s: text %d data %d bss %d; bzImage %s; "
                     "alloc_tags %s; .data..percpu %s"
                     % (k, b["size"]["text"], b["size"]["data"], b["size"]["bss"],
                        b.get("bzImage"), b.get("alloc_tags_section"),
                        b.get("percpu_section")))
        for e in b["build-errors"][:30]:
            o.append("  error: " + e)
    for t, b in res["boots"].items():
        o.append("boot %s: exit %s, %s, %d PASS %d FAIL %d SKIP, %s s, host load %s"
                 % (t, b["exit"], "finished" if b["done"] else "DID NOT FINISH",
                    b["pass"], b["fail"], b["skip"], b.get("boot_wall_s"),
                    " ".join(b.get("host_load", []))))
        for c in b["checks"]:
            o.append("  " + c)
        for s in b.get("splats", []):
            o.append("  splat: " + s)
        for stage, m in sorted(b["mem"].items()):
            o.append("  mem %s: %s" % (stage, " ".join(
                "%s=%s" % kv for kv in m.items())))
        for stage, s in sorted(b["sites"].items()):
            o.append("  sites %s: %s" % (stage, " ".join(
                "%s=%s" % kv for kv in s.items())))
        for l in b["dmesg"]:
            o.append("  kernel: " + l)
        if b["other"].get("SYSRQM"):
            o.append("  after the module set: " + b["other"]["SYSRQM"])
        if b.get("read_median_ns") is not None:
            o.append("  read /proc/allocinfo (%d lines, %d bytes): median %d, "
                     "min %d %s per read"
                     % (b["read_lines"], b["read_bytes"], b["read_median_ns"],
                        b["read_min_ns"],
                        "instructions" if "icount" in t else "ns"))
        bad = {m: s for m, s in b["modules"].items() if s != "loaded"}
        o.append("  modules: %d loaded%s" % (
            sum(1 for s in b["modules"].values() if s == "loaded"),
            "; " + ", ".join("%s %s" % kv for kv in bad.items()) if bad else ""))
        o.append("  mounts: " + ", ".join("%s %s" % kv for kv in b["mounts"].items()))
    for k, v in res["derived"].items():
        o.append("derived %s: %s" % (k, v))
    return "\n".join(o) + "\n"


def kib(n):
    return "%.1f KiB" % (n / 1024.0) if n is not None else "n/a"


def mib(n):
    return "%.2f MiB" % (n / 1048576.0) if n is not None else "n/a"


def report():
    p = os.path.join(OUT, "results.json")
    if not os.path.exists(p):
        sys.exit("report: no %s; run distro.sh results first" % p)
    res = json.load(open(p))
    d, bo, bu = res["derived"], res["boots"], res["builds"]
    o = ["## A distribution's kernel (make distro)", ""]
    s = bu["series"]
    o.append("Debian's `config.amd64_none_cloud-amd64` (linux-config-6.1) with "
             "`CONFIG_MEM_ALLOC_PROFILING=y`, `..._ENABLED_BY_DEFAULT=n`, "
             "`..._DEBUG=n`; no DWARF/BTF, no Debian signing keys "
             "(`tools/testing/allocprof/distro/configs/`). NUMA, "
             "NODES_SHIFT=10, NR_CPUS=8192, MEMCG, LRU_GEN, NUMA_BALANCING, "
             "SPARSEMEM_VMEMMAP, FORTIFY_SOURCE, JUMP_LABEL and -O2 are "
             "Debian's.")
    o.append("")
    o.append("Build (nice 19, `-j2`, ccache; the host's load is not "
             "recorded, say what else ran): %s, %d session(s), %s wall, %s CPU; **%d modules** "
             "(%d in modules.order); %d error lines, %d warnings."
             % ("complete" if s["built"] else "**not complete**",
                len(s["sessions"]), hms(s["wall_s"]), hms(s["cpu_s"]), s["ko"],
                s["modules_order"], len(s["build-errors"]),
                len(s["build-warnings"])))
    o.append("")
    o.append("Guest: QEMU TCG, 2 vCPUs, 4 GiB, three virtio disks (ext4, "
             "xfs, btrfs) and a virtio NIC, booted with "
             "`sysctl.vm.mem_profiling=1`. Comparison kernels are bzImage-only "
             "builds (no modules; virtio built in), so they are compared "
             "with the series kernel at stage A: virtio drivers loaded, ext4 "
             "mounted, before the module set. Stage B: after loading the "
             "module set (`distro/modules.list`) and mounting xfs, btrfs and "
             "an overlay.")
    o.append("")
    on = bo.get("series-on")
    if on:
        loaded = sum(1 for v in on["modules"].values() if v == "loaded")
        o.append("Boot checks (`guest/allocinfo.sh`, `guest/modules.sh`, as "
                 "they are): %d PASS, %d FAIL, %d SKIP; %d of %d modules of "
                 "the set loaded (%s modules in lsmod)."
                 % (on["pass"], on["fail"], on["skip"], loaded,
                    len(on["modules"]), on["other"].get("LSMOD", "?")))
        for c in on["checks"]:
            if not c.startswith("PASS"):
                o.append("- `%s`" % c)
        o.append("")
    if d.get("sites_total") is not None:
        n = d["possible_cpus"]
        o += ["| figure (series, profiling on, stage B) | value |", "|---|---|"]
        o.append("| call sites | %d (vmlinux %d, modules %d) |"
                 % (d["sites_total"], d["sites_vmlinux"], d["sites_modules"]))
        o.append("| tags (40 B each) | vmlinux %s, modules %s |"
                 % (kib(d["tags_vmlinux"]), kib(d["tags_modules"])))
        o.append("| per-CPU counters (16 B x %d possible CPUs) | vmlinux %s, modules %s |"
                 % (n, kib(d["counters_vmlinux"]), kib(d["counters_modules"])))
        o.append("| page tags | %s |" % d.get("page_tags"))
        ma = d.get("metadata_after_modules")
        if ma:
            o.append("| slab extension vectors | %s |" % kib(ma["slab_vectors"]))
            o.append("| per-CPU chunk tag vectors | %s |" % kib(ma["percpu_vectors"]))
            o.append("| total (kernel's metadata line + module tags and counters) "
                     "| %s = %.3f%% of MemTotal |"
                     % (mib(d["total_with_modules"]), d["total_pct_of_memtotal"]))
        o.append("")
    g = d.get("growth")
    if g:
        o.append("Kernel image (`size vmlinux`), series vs the base with the "
                 "same config, less the virtio objects built into the base "
                 "only (%s text): text %+d B (%+.2f%%), data %+d B (%+.2f%%), "
                 "bss %+d B." % (kib(g["builtin_only"]["text"]), g["text_adj"],
                                 g["text_adj_pct"], g["data_adj"],
                                 g["data_adj_pct"], g["bss_adj"]))
        o.append("")
    rows = [("series, =1", "series-on"), ("series, =0", "series-off"),
            ("base 6.1", "base"), ("mainline 6.12, =1", "ml-on")]
    o += ["| kernel (boot) | stage | MemTotal | MemFree | Slab | SUnreclaim | "
          "Percpu | sites | page tags / page_ext |", "|---|---|---|---|---|---|---|---|---|"]
    for label, t in rows:
        b = bo.get(t)
        if not b:
            continue
        for stage in sorted(b["mem"]):
            m = b["mem"][stage]
            st = b["sites"].get(stage, {})
            pt = b.get("page_tags") or (
                "page_ext %s" % mib(b["page_ext_bytes"]) if b.get("page_ext_bytes") else "")
            o.append("| %s | %s | %s kB | %s kB | %s kB | %s kB | %s kB | %s | %s |"
                     % (label, stage, m.get("MemTotal"), m.get("MemFree"),
                        m.get("Slab"), m.get("SUnreclaim"), m.get("Percpu"),
                        st.get("total", "-"), pt))
    o.append("")
    o += ["| read of /proc/allocinfo | lines | wall clock (TCG, median of 5x20) "
          "| instructions (-icount shift=0) |", "|---|---|---|---|"]
    for label, t, ti in (("series", "series-on", "series-icount"),
                         ("mainline 6.12", "ml-on", "ml-icount")):
        b, bi = bo.get(t), bo.get(ti)
        if not b:
            continue
        o.append("| %s | %s | %s | %s |" % (
            label, b.get("read_lines"),
            "%.1f ms" % (b["read_median_ns"] / 1e6) if b.get("read_median_ns") else "-",
            "%.1f M" % (bi["read_median_ns"] / 1e6) if bi and bi.get("read_median_ns") else "-"))
    o.append("")
    print("\n".join(o))


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("results", "report"):
        sys.exit("usage: results.py results|report")
    {"results": results, "report": report}[sys.argv[1]]()
