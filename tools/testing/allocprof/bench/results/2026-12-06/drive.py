# SPDX-License-Identifier: GPL-2.0
# Boot the already built UML benchmark kernels interleaved, pattern 1.
import sys, json, time, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
import run as R
B = os.path.join(R.TOP, "build")
K = {
    "1 out": (B + "/bench/out/um-off/linux", ""),
    "2 in, off": (B + "/bench/out/um-dflt/linux", ""),
    "3 on": (B + "/bench/out/um-on/linux", ""),
    "3c on, cumulative": (B + "/bench/out/um-on/linux", "sysctl.vm.mem_profiling=1,cumulative"),
    "M1 6.12 out": (B + "/bench-6.12/out-um-off/linux", ""),
    "M2 6.12 in, =0": (B + "/bench-6.12/out-um-on/linux", "sysctl.vm.mem_profiling=0"),
    "M3 6.12 on": (B + "/bench-6.12/out-um-on/linux", ""),
}
rounds = int(sys.argv[1]); iters = int(sys.argv[2]); out = sys.argv[3]
only = sys.argv[4].split(",") if len(sys.argv) > 4 else list(K)
res = []
for r in range(rounds):
    for name in only:
        linux, extra = K[name]
        app = ("%s bench_iter=%d bench_pattern=1" % (extra, iters)).strip()
        t0 = time.time()
        rc, text = R.boot_uml(linux, None, app)
        p = R.parse(text)
        p.pop("mem", None)
        p.update(config=name, round=r, rc=rc, wall=time.time() - t0)
        if rc or "kmalloc" not in p:
            p["error"] = text[-1500:]
        print(json.dumps(p), flush=True)
        res.append(p)
        json.dump(res, open(out, "w"), indent=1)
