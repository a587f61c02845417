# SPDX-License-Identifier: GPL-2.0
# Rows 1, 3 and 3c under -icount on the built q-off / q-on kernels.
import sys, json, time, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
import run as R
B = os.path.join(R.TOP, "build/bench")
K = {
    "1 out": ("q-off", ""),
    "3 on": ("q-on", ""),
    "3c on, cumulative": ("q-on", "sysctl.vm.mem_profiling=1,cumulative"),
}
iters = int(sys.argv[1]); out = sys.argv[2]
pats = [int(p) for p in sys.argv[3].split(",")]
res = []
for pat in pats:
    for name, (k, extra) in K.items():
        img = B + "/out/%s/arch/x86/boot/bzImage" % k
        ko = B + "/mod/%s/allocprof_bench.ko" % k
        app = ("%s bench_iter=%d bench_pattern=%d" % (extra, iters, pat)).strip()
        t0 = time.time()
        rc, text = R.boot_qemu(img, ko, app, icount=True)
        p = R.parse(text)
        p.pop("mem", None)
        p.update(config=name, pattern=pat, rc=rc, wall=time.time() - t0)
        if rc or "kmalloc" not in p:
            p["error"] = text[-1500:]
        else:
            p["kmalloc_per_op"] = p["kmalloc"] / p["iterations"]
            p["pgalloc_per_op"] = p["pgalloc"] / p["iterations"]
        print(json.dumps(p), flush=True)
        res.append(p)
        json.dump(res, open(out, "w"), indent=1)
