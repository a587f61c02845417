# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the benchmark drivers (run.py, scale.py, workload.py)
and distro/results.py: logging and running commands, reading a kernel's
.config, sizes of a vmlinux, what a run records about where it came from.
"""
import hashlib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "../../../.."))
T = os.path.join(TOP, "tools/testing/allocprof")


def logger(prefix):
    """A log(msg) that writes "prefix: msg" to stderr at once."""
    def log(msg):
        sys.stderr.write("%s: %s\n" % (prefix, msg))
        sys.stderr.flush()
    return log


def runner(log):
    """A run(cmd, **kw) that logs cmd, then runs it and stops the script
    (CalledProcessError) if it fails."""
    def run(cmd, **kw):
        log("$ " + " ".join(cmd))
        subprocess.check_call(cmd, **kw)
    return run


def sh(cmd):
    """stdout of cmd, or "" if it cannot run or fails."""
    try:
        return subprocess.check_output(cmd, universal_newlines=True,
                                       stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return ""


def git(path, *args):
    """git -C path args, or "unknown" outside a repository."""
    return sh(["git", "-C", path] + list(args)).strip() or "unknown"


def sha1(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def host_tsc_khz():
    """The host's CPU clock in kHz.  Without -icount, TCG's guest TSC runs
    at the host's rate, and tinyconfig guests have no HPET or PM timer to
    calibrate it against (they would fall back to jiffies, 4 ms), so the
    drivers pass it as tsc_early_khz=."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("cpu MHz"):
                return int(float(line.split(":")[1]) * 1000)
    return 0


def kv(s):
    """{key: int} of the "key=value" pairs in a guest's result line."""
    return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", s)}


def read_config(path):
    """{CONFIG_X: value} of a .config or a fragment; "n" for
    "# CONFIG_X is not set"."""
    have = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = re.match(r"^# (CONFIG_\w+) is not set$", line)
            if m:
                have[m.group(1)] = "n"
                continue
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
            if m:
                have[m.group(1)] = m.group(2)
    return have


def size_of(path):
    """{text, data, bss} of an ELF file as size(1) counts them, or None."""
    out = sh(["size", path]).splitlines()
    if len(out) < 2:
        return None
    f = out[1].split()
    return {"text": int(f[0]), "data": int(f[1]), "bss": int(f[2])}


def section_bytes(vmlinux, name):
    """Bytes of a section, or None.  In vmlinux the tags sit inside .data
    between __start_/__stop_ symbols, so fall back to those."""
    for line in sh(["objdump", "-h", vmlinux]).splitlines():
        f = line.split()
        if len(f) > 2 and f[1] == name:
            return int(f[2], 16)
    syms = {}
    for line in sh(["nm", vmlinux]).splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in ("__start_" + name, "__stop_" + name):
            syms[f[2]] = int(f[0], 16)
    if len(syms) == 2:
        return syms["__stop_" + name] - syms["__start_" + name]
    return None
