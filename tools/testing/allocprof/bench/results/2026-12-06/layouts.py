# SPDX-License-Identifier: GPL-2.0
# Rows 1 and 3 on kernels that run.py does not build (other page->flags
# layouts), under -icount:
#   layouts.py OUT.json "1n out, NODES_SHIFT=10:q-n10-off" ...
# each argument a row's name, ":", and a kernel of build/bench/out (or a
# folder of build/ such as bench-6.12/out-dl-on), then optionally "+" and
# words for its command line; this series' kernels built by
#   bench/build.sh build/linux build/bench/out/KERNEL x86_64 \
#	configs/guest.config bench/configs/distro-like.config \
#	configs/prof-{off,on}.config EXTRA.config
# nodes10.json: EXTRA CONFIG_NODES_SHIFT=10 (q-n10-*); deblayout.json:
# CONFIG_NODES_SHIFT=10, CONFIG_NUMA_BALANCING=y, CONFIG_NR_CPUS=512
# (q-dl-*; mainline's bench-6.12/out-dl-{off,on} from the same fragments
# with bench/configs/ml-prof-on.config).  The boot log's "page tags:"
# line says where this series' tags went.
import sys, json, time, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
import run as R
B = os.path.join(R.TOP, "build/bench")
out = sys.argv[1]
rows = [a.rsplit(":", 1) for a in sys.argv[2:]]
res = []
for pat in (0, 1, 2):
    for name, kx in rows:
        k, _, extra = kx.partition("+")
        kdir = os.path.join(R.TOP, "build", k) if "/" in k else B + "/out/" + k
        ko = R.build_module(kdir, "x86_64", k.replace("/", "-"))
        app = ("%s loglevel=7 bench_iter=30000 bench_pattern=%d" % (extra, pat)).strip()
        t0 = time.time()
        rc, text = R.boot_qemu(kdir + "/arch/x86/boot/bzImage", ko, app,
                               icount=True)
        p = R.parse(text)
        p.pop("mem", None)
        p.update(config=name, pattern=pat, rc=rc, wall=time.time() - t0,
                 pagetags=[l for l in text.splitlines() if "page tags:" in l])
        if rc or "kmalloc" not in p:
            p["error"] = text[-1500:]
        print(json.dumps(p), flush=True)
        res.append(p)
        json.dump(res, open(out, "w"), indent=1)
